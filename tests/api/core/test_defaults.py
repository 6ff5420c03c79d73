"""core/v1 scheme defaulting (pkg/apis/core/v1/defaults.go, the generated SetObjectDefaults_*):
what the API server fills in when it decodes a Pod or a Node."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.core.defaults import image_tag, set_object_defaults_node, set_object_defaults_pod


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


def defaulted(obj: dict) -> dict:
    out = copy.deepcopy(obj)
    (set_object_defaults_node if obj["kind"] == "Node" else set_object_defaults_pod)(out)
    return out


# --------------------------------------------------------------------------------------------- containers

PULL_POLICY_CASES = [
    ("an image without a tag is pulled always", "nginx", "Always"),
    ("the latest tag is pulled always", "nginx:latest", "Always"),
    ("a pinned tag is pulled if not present", "nginx:1.25", "IfNotPresent"),
    ("a digest is pulled if not present", "nginx@sha256:" + "a" * 64, "IfNotPresent"),
    ("a registry with a port and no tag", "registry.local:5000/team/app", "Always"),
    ("a registry with a port and a tag", "registry.local:5000/team/app:v2", "IfNotPresent"),
    ("an unparsable reference falls back to IfNotPresent", "NGINX", "IfNotPresent"),
]


@pytest.mark.parametrize("image,policy", [c[1:] for c in PULL_POLICY_CASES], ids=[c[0] for c in PULL_POLICY_CASES])
def test_image_pull_policy_from_tag(image, policy):
    pod = defaulted(make_pod({"name": "c", "image": image}))
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_an_explicit_pull_policy_is_kept():
    pod = defaulted(make_pod({"name": "c", "image": "nginx", "imagePullPolicy": "Never"}))
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_image_tag_parsing():
    assert image_tag("busybox") == "latest"
    assert image_tag("docker.io/library/busybox:1.36") == "1.36"
    assert image_tag("localhost/app") == "latest"
    assert image_tag("app@sha256:" + "0" * 64) == ""
    assert image_tag("bad image") is None


def test_container_ports_default_to_tcp():
    pod = defaulted(make_pod({"name": "c", "image": "x", "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]}))
    assert pod["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"},
                                                     {"containerPort": 53, "protocol": "UDP"}]


def test_host_network_pods_default_host_ports():
    pod = defaulted(make_pod({"name": "c", "image": "x", "ports": [{"containerPort": 80}]}, hostNetwork=True))
    assert pod["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP", "hostPort": 80}]


RESOURCE_CASES = [
    ("requests default to limits", {"limits": {"cpu": "1", "memory": "1Gi"}},
     {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}),
    ("explicit requests are kept", {"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}},
     {"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}}),
    ("only missing requests are filled", {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
     {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}}),
    ("quantities are stored in canonical form", {"limits": {"cpu": 2, "memory": "1024Mi"}, "requests": {"cpu": 0.5}},
     {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}}),
    ("quantities are rounded up to milli units", {"requests": {"cpu": "0.0001"}}, {"requests": {"cpu": "1m"}}),
    ("no resources become an empty object", None, {}),
]


@pytest.mark.parametrize("given,stored", [c[1:] for c in RESOURCE_CASES], ids=[c[0] for c in RESOURCE_CASES])
def test_container_resources(given, stored):
    c = {"name": "c", "image": "x"}
    if given is not None:
        c["resources"] = given
    assert defaulted(make_pod(c))["spec"]["containers"][0]["resources"] == stored


def test_init_containers_get_requests_from_limits_too():
    pod = defaulted(make_pod(initContainers=[{"name": "i", "image": "x", "resources": {"limits": {"cpu": "1"}}}]))
    init = pod["spec"]["initContainers"][0]
    assert init["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    assert init["terminationMessagePolicy"] == "File"


def test_probes_get_their_defaults():
    c = {"name": "c", "image": "x", "livenessProbe": {"httpGet": {"port": 80}},
         "readinessProbe": {"tcpSocket": {"port": 80}, "periodSeconds": 5}}
    got = defaulted(make_pod(c))["spec"]["containers"][0]
    assert got["livenessProbe"] == {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                                    "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
    assert got["readinessProbe"]["periodSeconds"] == 5


def test_env_field_refs_default_their_api_version():
    c = {"name": "c", "image": "x", "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}
    got = defaulted(make_pod(c))["spec"]["containers"][0]["env"][0]
    assert got == {"name": "N", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}


# --------------------------------------------------------------------------------------------- pod spec

SPEC_CASES = [
    ("restartPolicy defaults to Always", {}, "restartPolicy", "Always"),
    ("an explicit restartPolicy is kept", {"restartPolicy": "Never"}, "restartPolicy", "Never"),
    ("dnsPolicy defaults to ClusterFirst", {}, "dnsPolicy", "ClusterFirst"),
    ("schedulerName defaults to default-scheduler", {}, "schedulerName", "default-scheduler"),
    ("an explicit schedulerName is kept", {"schedulerName": "my-scheduler"}, "schedulerName", "my-scheduler"),
    ("terminationGracePeriodSeconds defaults to 30", {}, "terminationGracePeriodSeconds", 30),
    ("an explicit zero grace period is kept", {"terminationGracePeriodSeconds": 0}, "terminationGracePeriodSeconds", 0),
    ("securityContext defaults to empty", {}, "securityContext", {}),
    ("enableServiceLinks defaults to true", {}, "enableServiceLinks", True),
    ("an explicit enableServiceLinks false is kept", {"enableServiceLinks": False}, "enableServiceLinks", False),
    ("the deprecated serviceAccount names the account", {"serviceAccount": "builder"}, "serviceAccountName", "builder"),
    ("serviceAccount mirrors serviceAccountName", {"serviceAccountName": "builder"}, "serviceAccount", "builder"),
]


@pytest.mark.parametrize("spec,field,value", [c[1:] for c in SPEC_CASES], ids=[c[0] for c in SPEC_CASES])
def test_pod_spec_defaults(spec, field, value):
    assert defaulted(make_pod(**spec))["spec"][field] == value


VOLUME_CASES = [
    ("a volume without a source becomes an emptyDir", {"name": "v"}, {"name": "v", "emptyDir": {}}),
    ("secret volumes get defaultMode 420", {"name": "v", "secret": {"secretName": "s"}},
     {"name": "v", "secret": {"secretName": "s", "defaultMode": 420}}),
    ("configMap volumes get defaultMode 420", {"name": "v", "configMap": {"name": "c"}},
     {"name": "v", "configMap": {"name": "c", "defaultMode": 420}}),
    ("hostPath volumes get an empty type", {"name": "v", "hostPath": {"path": "/d"}},
     {"name": "v", "hostPath": {"path": "/d", "type": ""}}),
    ("projected token sources expire after an hour",
     {"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
     {"name": "v", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}}]}}),
]


@pytest.mark.parametrize("given,stored", [c[1:] for c in VOLUME_CASES], ids=[c[0] for c in VOLUME_CASES])
def test_volume_defaults(given, stored):
    pod = defaulted(make_pod(volumes=[given], automountServiceAccountToken=False))
    assert pod["spec"]["volumes"] == [stored]


# --------------------------------------------------------------------------------------------- nodes


def make_node(**kw) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01"}}
    n.update(copy.deepcopy(kw))
    return n


def test_allocatable_defaults_to_capacity_in_canonical_form():
    node = defaulted(make_node(status={"capacity": {"cpu": 4, "memory": "8192Mi", "pods": "110"}}))
    assert node["status"]["capacity"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}
    assert node["status"]["allocatable"] == node["status"]["capacity"]


def test_an_explicit_allocatable_is_kept():
    node = defaulted(make_node(status={"capacity": {"cpu": "4"}, "allocatable": {"cpu": "3500m"}}))
    assert node["status"]["allocatable"] == {"cpu": "3500m"}


def test_pod_cidr_fields_are_kept_in_step():
    assert defaulted(make_node(spec={"podCIDR": "10.244.1.0/24"}))["spec"]["podCIDRs"] == ["10.244.1.0/24"]
    assert defaulted(make_node(spec={"podCIDRs": ["10.244.2.0/24", "fd00::/64"]}))["spec"]["podCIDR"] == "10.244.2.0/24"
