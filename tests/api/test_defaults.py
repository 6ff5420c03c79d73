"""Defaulting and admission on create: the objects a v1.35 API server stores (``kubectl get -o yaml``).
Cases follow pkg/apis/core/v1/defaults_test.go and the admission plugins' tests."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.api.defaults import apply_defaults, apply_update_defaults, image_tag
from kubesim.api.pods import qos_class
from kubesim.api.validation import validate_object
from kubesim.errors import Forbidden


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


def defaulted(obj: dict, seed: int = 0, **kw) -> dict:
    out = copy.deepcopy(obj)
    apply_defaults(out, rng=random.Random(seed), **kw)
    return out


def token_volume_name(seed: int = 0) -> str:
    rng = random.Random(seed)
    return "kube-api-access-" + "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))


def test_a_minimal_pod_is_stored_as_kubectl_get_shows_it():
    name = token_volume_name()
    assert defaulted(make_pod()) == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default", "generation": 1},
        "spec": {
            "containers": [{
                "name": "nginx", "image": "nginx", "imagePullPolicy": "Always", "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                "volumeMounts": [{"name": name, "readOnly": True,
                                  "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            }],
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {},
            "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            ],
            "volumes": [{"name": name, "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace",
                                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ]}}],
        },
        "status": {"phase": "Pending", "qosClass": "BestEffort"},
    }


def test_the_defaulted_pod_validates():
    assert validate_object(defaulted(make_pod())) == []


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
    assert init["volumeMounts"][0]["mountPath"] == "/var/run/secrets/kubernetes.io/serviceaccount"


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


# --------------------------------------------------------------------------------------------- service account


def test_the_token_volume_suffix_comes_from_the_rng():
    a, b, c = defaulted(make_pod(), seed=1), defaulted(make_pod(), seed=1), defaulted(make_pod(), seed=2)
    name_a = a["spec"]["volumes"][0]["name"]
    assert name_a == b["spec"]["volumes"][0]["name"] == token_volume_name(1)
    assert name_a != c["spec"]["volumes"][0]["name"]
    asslen = len("kube-api-access-") + 5
    assert len(name_a) == asslen and set(name_a[-5:]) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_every_container_mounts_the_token():
    pod = defaulted(make_pod({"name": "a", "image": "x"}, {"name": "b", "image": "y",
                                                            "volumeMounts": [{"name": "d", "mountPath": "/d"}]},
                             volumes=[{"name": "d", "emptyDir": {}}]))
    name = pod["spec"]["volumes"][1]["name"]
    assert [m["name"] for m in pod["spec"]["containers"][0]["volumeMounts"]] == [name]
    assert [m["name"] for m in pod["spec"]["containers"][1]["volumeMounts"]] == ["d", name]
    assert validate_object(pod) == []


def test_a_container_already_mounting_the_token_path_is_left_alone():
    c = {"name": "a", "image": "x", "volumeMounts": [{"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}
    pod = defaulted(make_pod(c, volumes=[{"name": "mine", "emptyDir": {}}]))
    assert pod["spec"]["containers"][0]["volumeMounts"] == c["volumeMounts"]
    assert [v["name"] for v in pod["spec"]["volumes"]] == ["mine"]


def test_an_existing_token_volume_is_reused():
    pod = defaulted(make_pod(volumes=[{"name": "kube-api-access-abcde", "projected": {"sources": []}}]))
    assert [v["name"] for v in pod["spec"]["volumes"]] == ["kube-api-access-abcde"]
    assert pod["spec"]["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-abcde"


def test_automount_false_mounts_nothing_but_names_the_account():
    pod = defaulted(make_pod(automountServiceAccountToken=False))
    assert "volumes" not in pod["spec"] and "volumeMounts" not in pod["spec"]["containers"][0]
    assert pod["spec"]["serviceAccountName"] == "default"


def test_mirror_pods_get_no_service_account():
    pod = make_pod(nodeName="node01")
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    got = defaulted(pod)
    assert "serviceAccountName" not in got["spec"] and "volumes" not in got["spec"]
    assert got["spec"]["tolerations"][0]["key"] == "node.kubernetes.io/not-ready"


MIRROR_REFUSALS = [
    ("a service account", {"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
    ("a secret volume", {"volumes": [{"name": "s", "secret": {"secretName": "x"}}]}, "a mirror pod may not reference secrets"),
    ("a configMap volume", {"volumes": [{"name": "c", "configMap": {"name": "x"}}]},
     "a mirror pod may not reference configmaps"),
]


@pytest.mark.parametrize("spec,detail", [c[1:] for c in MIRROR_REFUSALS], ids=[c[0] for c in MIRROR_REFUSALS])
def test_mirror_pods_may_not_reference_credentials(spec, detail):
    pod = make_pod(nodeName="node01", **spec)
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    with pytest.raises(Forbidden) as e:
        defaulted(pod)
    assert str(e.value) == f'Error from server (Forbidden): pods "nginx" is forbidden: {detail}'


# --------------------------------------------------------------------------------------------- priority

PRIORITY_CASES = [
    ("no class and no global default means priority 0", {}, None, (None, 0, "PreemptLowerPriority")),
    ("a named class sets its value", {"priorityClassName": "high"}, {"high": {"value": 1000}},
     ("high", 1000, "PreemptLowerPriority")),
    ("a class's preemption policy is copied", {"priorityClassName": "batch"},
     {"batch": {"value": 10, "preemptionPolicy": "Never"}}, ("batch", 10, "Never")),
    ("system classes are always known", {"priorityClassName": "system-node-critical"}, None,
     ("system-node-critical", 2000001000, "PreemptLowerPriority")),
    ("the global default class applies to pods without a class", {},
     {"low": {"value": 1, "globalDefault": True}, "high": {"value": 1000}}, ("low", 1, "PreemptLowerPriority")),
    ("with two global defaults the lower value wins", {},
     {"a": {"value": 5, "globalDefault": True}, "b": {"value": 3, "globalDefault": True}}, ("b", 3, "PreemptLowerPriority")),
    ("a class may be given as a bare value", {"priorityClassName": "high"}, {"high": 7}, ("high", 7, "PreemptLowerPriority")),
    ("a matching explicit priority is accepted", {"priorityClassName": "high", "priority": 1000}, {"high": {"value": 1000}},
     ("high", 1000, "PreemptLowerPriority")),
]


@pytest.mark.parametrize("spec,classes,expected", [c[1:] for c in PRIORITY_CASES], ids=[c[0] for c in PRIORITY_CASES])
def test_priority_admission(spec, classes, expected):
    s = defaulted(make_pod(**spec), priority_classes=classes)["spec"]
    assert (s.get("priorityClassName"), s["priority"], s["preemptionPolicy"]) == expected


PRIORITY_ERRORS = [
    ("an unknown class is forbidden", {"priorityClassName": "gold"}, None,
     'Error from server (Forbidden): pods "nginx" is forbidden: no PriorityClass with name gold was found'),
    ("a priority that contradicts the class", {"priorityClassName": "high", "priority": 5}, {"high": {"value": 1000}},
     'Error from server (Forbidden): pods "nginx" is forbidden: the integer value of priority (5) must not be provided '
     "in pod spec; priority admission controller computed 1000 from the given PriorityClass name"),
    ("a priority without a class", {"priority": 5}, None,
     'Error from server (Forbidden): pods "nginx" is forbidden: the integer value of priority (5) must not be provided '
     "in pod spec; priority admission controller computed 0 from the given PriorityClass name"),
    ("a preemption policy that contradicts the class", {"priorityClassName": "high", "preemptionPolicy": "Never"},
     {"high": {"value": 1}},
     'Error from server (Forbidden): pods "nginx" is forbidden: the string value of PreemptionPolicy (Never) must not be '
     "provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
]


@pytest.mark.parametrize("spec,classes,message", [c[1:] for c in PRIORITY_ERRORS], ids=[c[0] for c in PRIORITY_ERRORS])
def test_priority_admission_refusals(spec, classes, message):
    with pytest.raises(Forbidden) as e:
        defaulted(make_pod(**spec), priority_classes=classes)
    assert str(e.value) == message


def test_a_generated_name_is_not_known_to_admission():
    pod = make_pod(priorityClassName="gold")
    pod["metadata"] = {"generateName": "web-", "namespace": "default"}
    with pytest.raises(Forbidden) as e:
        defaulted(pod)
    assert str(e.value) == "Error from server (Forbidden): pods is forbidden: no PriorityClass with name gold was found"


# --------------------------------------------------------------------------------------------- tolerations

NR = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UR = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
TOLERATION_CASES = [
    ("both default tolerations are added", [], [NR, UR]),
    ("user tolerations come first", [{"key": "gpu", "operator": "Exists"}], [{"key": "gpu", "operator": "Exists"}, NR, UR]),
    ("an existing not-ready toleration is kept as is",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}, UR]),
    ("a toleration of everything needs no defaults", [{"operator": "Exists"}], [{"operator": "Exists"}]),
    ("an empty key with NoExecute covers both", [{"operator": "Exists", "effect": "NoExecute"}],
     [{"operator": "Exists", "effect": "NoExecute"}]),
    ("a NoSchedule toleration of not-ready does not count",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}, NR, UR]),
    ("a not-ready toleration without effect counts",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}, UR]),
]


@pytest.mark.parametrize("given,stored", [c[1:] for c in TOLERATION_CASES], ids=[c[0] for c in TOLERATION_CASES])
def test_default_toleration_seconds(given, stored):
    assert defaulted(make_pod(tolerations=given))["spec"]["tolerations"] == stored


# --------------------------------------------------------------------------------------------- status and metadata


def res(requests=None, limits=None) -> dict:
    r = {}
    if requests:
        r["requests"] = requests
    if limits:
        r["limits"] = limits
    return r


QOS_CASES = [
    ("no resources is BestEffort", [{}], [], "BestEffort"),
    ("zero requests count as none", [res({"cpu": "0"})], [], "BestEffort"),
    ("requests only is Burstable", [res({"cpu": "100m"})], [], "Burstable"),
    ("equal cpu and memory limits are Guaranteed", [res(limits={"cpu": "1", "memory": "1Gi"})], [], "Guaranteed"),
    ("limits without memory are Burstable", [res(limits={"cpu": "1"})], [], "Burstable"),
    ("requests below limits are Burstable", [res({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], [], "Burstable"),
    ("one best-effort container makes a pod Burstable",
     [res(limits={"cpu": "1", "memory": "1Gi"}), {}], [], "Burstable"),
    ("init containers count", [res(limits={"cpu": "1", "memory": "1Gi"})], [res({"cpu": "100m"})], "Burstable"),
    ("other resources are ignored", [res(limits={"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"})], [], "Guaranteed"),
]


@pytest.mark.parametrize("ctrs,inits,qos", [c[1:] for c in QOS_CASES], ids=[c[0] for c in QOS_CASES])
def test_qos_class(ctrs, inits, qos):
    containers = [{"name": f"c{i}", "image": "x", "resources": r} for i, r in enumerate(ctrs)]
    spec = {"initContainers": [{"name": f"i{i}", "image": "x", "resources": r} for i, r in enumerate(inits)]} if inits else {}
    pod = defaulted(make_pod(*containers, **spec))
    assert pod["status"] == {"phase": "Pending", "qosClass": qos}
    assert qos_class(pod) == qos


def test_pod_level_resources_decide_the_qos_class():
    pod = make_pod({"name": "c", "image": "x"}, resources={"limits": {"cpu": "1", "memory": "1Gi"},
                                                           "requests": {"cpu": "1", "memory": "1Gi"}})
    assert qos_class(pod) == "Guaranteed"


def test_a_given_status_is_replaced_but_its_qos_class_kept():
    pod = make_pod()
    pod["status"] = {"phase": "Running", "podIP": "10.0.0.1", "qosClass": "Guaranteed"}
    assert defaulted(pod)["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}


def test_scheduling_gated_pods_get_the_condition():
    pod = defaulted(make_pod(schedulingGates=[{"name": "example.com/wait"}]))
    assert pod["status"]["conditions"] == [{
        "type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": None,
        "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates"}]


def test_generate_name_becomes_a_name_from_the_rng():
    pod = make_pod()
    pod["metadata"] = {"generateName": "web-", "namespace": "default"}
    a, b = defaulted(pod, seed=3), defaulted(pod, seed=3)
    assert a["metadata"]["name"] == b["metadata"]["name"]
    assert a["metadata"]["name"].startswith("web-") and len(a["metadata"]["name"]) == 9


def test_match_label_keys_merge_into_selectors():
    pod = make_pod(
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}},
             "matchLabelKeys": ["pod-template-hash", "missing"], "mismatchLabelKeys": ["tenant"]}]}},
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                    "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}])
    pod["metadata"]["labels"] = {"app": "web", "pod-template-hash": "abc", "tenant": "t1"}
    got = defaulted(pod)["spec"]
    term = got["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["abc"]},
        {"key": "tenant", "operator": "NotIn", "values": ["t1"]}]
    assert got["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["abc"]}]


# --------------------------------------------------------------------------------------------- nodes


def make_node(**kw) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01"}}
    n.update(copy.deepcopy(kw))
    return n


def test_a_new_node_is_tainted_not_ready():
    assert defaulted(make_node())["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]


def test_a_node_keeps_its_taints_and_gets_not_ready_once():
    taints = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
              {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
    assert defaulted(make_node(spec={"taints": taints}))["spec"]["taints"] == taints


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


def test_cluster_scoped_objects_lose_their_namespace():
    node = make_node()
    node["metadata"]["namespace"] = "default"
    got = defaulted(node)
    assert "namespace" not in got["metadata"]
    assert validate_object(got) == []


# --------------------------------------------------------------------------------------------- namespaces


def test_a_namespace_is_stored_active_with_its_finalizer_and_name_label():
    assert defaulted({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}}) == {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "dev", "labels": {"kubernetes.io/metadata.name": "dev"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def test_namespace_finalizers_and_labels_are_merged():
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "dev", "labels": {"team": "a", "kubernetes.io/metadata.name": "wrong"}},
          "spec": {"finalizers": ["example.com/x"]}, "status": {"phase": "Terminating"}}
    got = defaulted(ns)
    assert got["metadata"]["labels"] == {"team": "a", "kubernetes.io/metadata.name": "dev"}
    assert got["spec"]["finalizers"] == ["example.com/x", "kubernetes"]
    assert got["status"] == {"phase": "Active"}


def test_kinds_without_defaults_are_untouched():
    obj = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}}
    assert defaulted(obj) == obj


def test_apply_defaults_without_an_rng_still_works():
    pod = make_pod()
    apply_defaults(pod)
    assert pod["spec"]["volumes"][0]["name"].startswith("kube-api-access-")


# --------------------------------------------------------------------------------------------- updates


def test_update_defaults_keep_status_priority_and_bump_generation():
    old = defaulted(make_pod())
    old["status"]["podIP"] = "10.0.0.5"
    new = copy.deepcopy(old)
    del new["spec"]["priority"]
    new["spec"]["tolerations"] = []
    new["spec"]["containers"][0]["image"] = "nginx:2"
    new["status"] = {}
    apply_update_defaults(new, old)
    assert new["spec"]["priority"] == 0
    assert new["spec"]["tolerations"] == [NR, UR]
    assert new["status"] == old["status"]
    assert new["metadata"]["generation"] == 2
    assert validate_object(new, old) == []


def test_namespace_updates_keep_finalizers_and_status():
    old = defaulted({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}})
    new = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"x": "y"}}}
    apply_update_defaults(new, old)
    assert new["spec"] == {"finalizers": ["kubernetes"]} and new["status"] == {"phase": "Active"}
    assert new["metadata"]["labels"] == {"x": "y", "kubernetes.io/metadata.name": "dev"}
