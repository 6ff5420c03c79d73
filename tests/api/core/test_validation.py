"""Semantic validation: tables after pkg/apis/core/validation/validation_test.go, each bad input
asserting the exact ``field: type: value: detail`` text the API server returns."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.core import validation as v
from kubesim.errors import Invalid

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def ctr(**kw) -> dict:
    c = {"name": "ctr", "image": "image", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File",
         "resources": {}}
    c.update(kw)
    return c


def make_pod(**spec) -> dict:
    """A defaulted pod, as validation sees it after the API server's defaulting."""
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "abc", "namespace": "default"},
         "spec": {"containers": [ctr()], "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
                  "terminationGracePeriodSeconds": 30, "securityContext": {}, "schedulerName": "default-scheduler"}}
    p["spec"].update(spec)
    return p


def setp(obj: dict, path: str, value) -> dict:
    out = copy.deepcopy(obj)
    cur = out
    parts = path.replace("[", ".[").split(".")
    for i, part in enumerate(parts):
        key = int(part[1:-1]) if part.startswith("[") else part
        if i == len(parts) - 1:
            if value is DELETE:
                del cur[key]
            else:
                cur[key] = value
        else:
            if isinstance(key, str) and key not in cur:
                cur[key] = {}
            cur = cur[key]
    return out


DELETE = object()


VALIDATE = {"Pod": (v.validate_pod_create, v.validate_pod_update),
            "Node": (v.validate_node_create, v.validate_node_update),
            "Namespace": (v.validate_namespace_create, v.validate_namespace_update)}


def messages(obj, old=None) -> list[str]:
    create, update = VALIDATE[obj["kind"]]
    return [str(e) for e in (create(obj) if old is None else update(obj, old))]


C0 = "spec.containers[0]"

# --------------------------------------------------------------------------------------------- names and metadata

META_CASES = [
    ("a valid pod has no errors", make_pod(), []),
    ("a name is required", setp(make_pod(), "metadata.name", ""),
     ["metadata.name: Required value: name or generateName is required"]),
    ("a pod name must be a DNS subdomain", setp(make_pod(), "metadata.name", "Web_1"),
     [f'metadata.name: Invalid value: "Web_1": {SUBDOMAIN}']),
    ("a pod name may contain dots", setp(make_pod(), "metadata.name", "web.v1"), []),
    ("a pod name longer than 253 characters", setp(make_pod(), "metadata.name", "a" * 254),
     [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters']),
    ("a bad generateName is reported on generateName",
     setp(setp(make_pod(), "metadata.generateName", "Web-"), "metadata.name", "web-abcde"),
     [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN}']),
    ("a trailing dash is fine in generateName", setp(make_pod(), "metadata.generateName", "web-"), []),
    ("a namespaced object needs a namespace", setp(make_pod(), "metadata.namespace", ""),
     ["metadata.namespace: Required value"]),
    ("a namespace reference must be a DNS label", setp(make_pod(), "metadata.namespace", "team.a"),
     ['metadata.namespace: Invalid value: "team.a": must not contain dots']),
    ("a label key with two slashes", setp(make_pod(), "metadata.labels", {"a/b/c": "x"}),
     ['metadata.labels: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '
      "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
      "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
      "subdomain prefix and '/' (e.g. 'example.com/MyName')"]),
    ("a label key with an empty prefix", setp(make_pod(), "metadata.labels", {"/app": "x"}),
     ['metadata.labels: Invalid value: "/app": prefix part must be non-empty']),
    ("a label key with a bad prefix", setp(make_pod(), "metadata.labels", {"Example.com/app": "x"}),
     [f'metadata.labels: Invalid value: "Example.com/app": prefix part {SUBDOMAIN}']),
    ("a label key starting with a dash", setp(make_pod(), "metadata.labels", {"-app": "x"}),
     [f'metadata.labels: Invalid value: "-app": {NAME_PART}']),
    # label keys and values are content.IsLabelKey/IsLabelValue: lengths in bytes, and v1.36 says
    # so (kubectl 1.36: `kubectl create pdb --selector` and `kubectl label` print "63 bytes")
    ("a label name part longer than 63", setp(make_pod(), "metadata.labels", {"a" * 64: "x"}),
     [f'metadata.labels: Invalid value: "{"a" * 64}": name part must be no more than 63 bytes']),
    ("a label name part longer than 63 bytes", setp(make_pod(), "metadata.labels", {"a" + "é" * 32: "x"}),
     [f'metadata.labels: Invalid value: "{"a" + "é" * 32}": name part must be no more than 63 bytes',
      f'metadata.labels: Invalid value: "{"a" + "é" * 32}": {NAME_PART}']),
    ("a label key prefix longer than 253 bytes", setp(make_pod(), "metadata.labels", {"a" * 254 + "/b": "x"}),
     [f'metadata.labels: Invalid value: "{"a" * 254}/b": prefix part must be no more than 253 bytes']),
    ("a label value with a space", setp(make_pod(), "metadata.labels", {"app": "my app"}),
     [f'metadata.labels: Invalid value: "my app": {LABEL_VALUE}']),
    ("a label value longer than 63", setp(make_pod(), "metadata.labels", {"app": "v" * 64}),
     [f'metadata.labels: Invalid value: "{"v" * 64}": must be no more than 63 bytes']),
    ("an empty label value is valid", setp(make_pod(), "metadata.labels", {"app": ""}), []),
    ("an annotation key is checked case-insensitively", setp(make_pod(), "metadata.annotations", {"Foo.Bar/Baz": "x"}), []),
    ("an annotation key with a space", setp(make_pod(), "metadata.annotations", {"my key": "x"}),
     [f'metadata.annotations: Invalid value: "my key": {NAME_PART}']),
    ("annotations larger than 256 KiB in total",
     setp(make_pod(), "metadata.annotations", {"big": "x" * (256 * 1024)}),
     ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
    ("a negative generation", setp(make_pod(), "metadata.generation", -1),
     ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
    ("an owner reference without uid",
     setp(make_pod(), "metadata.ownerReferences", [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"}]),
     ['metadata.ownerReferences.uid: Invalid value: "": must not be empty']),
    ("an owner reference without version",
     setp(make_pod(), "metadata.ownerReferences", [{"apiVersion": "", "kind": "ReplicaSet", "name": "rs", "uid": "1"}]),
     ['metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty']),
    ("a finalizer that is neither standard nor qualified", setp(make_pod(), "metadata.finalizers", ["cleanup"]),
     ['metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified']),
    ("a qualified finalizer is fine", setp(make_pod(), "metadata.finalizers", ["example.com/cleanup"]), []),
    ("orphan and foregroundDeletion together",
     setp(make_pod(), "metadata.finalizers", ["orphan", "foregroundDeletion"]),
     ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
      "finalizer orphan and foregroundDeletion cannot be both set"]),
    ("an event as owner",
     setp(make_pod(), "metadata.ownerReferences", [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1234"}]),
     ['metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"1234"}: '
      "/v1, Kind=Event is disallowed from being an owner"]),
    ("two controller owners",
     setp(make_pod(), "metadata.ownerReferences", [
         {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "u1", "controller": True},
         {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "u2", "controller": True,
          "blockOwnerDeletion": False}]),
     ['metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"u1",'
      '"controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"u2","controller":true,'
      '"blockOwnerDeletion":false}]: Only one reference can have Controller set to true. Found "true" in references '
      "for ReplicaSet/a and ReplicaSet/b"]),
    ("mirror pods must name their node",
     setp(make_pod(), "metadata.annotations", {"kubernetes.io/config.mirror": "abc"}),
     ['metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "abc": '
      "must set spec.nodeName if mirror pod annotation is set"]),
    ("a pod deletion cost must be a 32-bit integer",
     setp(make_pod(), "metadata.annotations", {"controller.kubernetes.io/pod-deletion-cost": "3000000000"}),
     ['metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "3000000000": '
      "must be a 32bit integer"]),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in META_CASES], ids=[c[0] for c in META_CASES])
def test_metadata(obj, expected):
    assert messages(obj) == expected


# --------------------------------------------------------------------------------------------- containers

CONTAINER_CASES = [
    ("containers are required", make_pod(containers=[]), ["spec.containers: Required value"]),
    ("a container name is required", setp(make_pod(), f"{C0}.name", ""), ["spec.containers[0].name: Required value"]),
    ("a container name must be a DNS label", setp(make_pod(), f"{C0}.name", "my.ctr"),
     ['spec.containers[0].name: Invalid value: "my.ctr": must not contain dots']),
    ("an upper-case container name", setp(make_pod(), f"{C0}.name", "Web"),
     [f'spec.containers[0].name: Invalid value: "Web": {LABEL}']),
    ("duplicate container names", make_pod(containers=[ctr(), ctr()]),
     ['spec.containers[1].name: Duplicate value: "ctr"']),
    ("an init container may not reuse a container's name", make_pod(initContainers=[ctr()]),
     ['spec.initContainers[0].name: Duplicate value: "ctr"']),
    ("an image is required", setp(make_pod(), f"{C0}.image", ""), ["spec.containers[0].image: Required value"]),
    ("an image with surrounding whitespace", setp(make_pod(), f"{C0}.image", " nginx"),
     ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']),
    ("an unsupported imagePullPolicy", setp(make_pod(), f"{C0}.imagePullPolicy", "Sometimes"),
     ['spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
      '"IfNotPresent", "Never"']),
    ("an undefaulted imagePullPolicy is required", setp(make_pod(), f"{C0}.imagePullPolicy", DELETE),
     ["spec.containers[0].imagePullPolicy: Required value"]),
    ("an unsupported terminationMessagePolicy", setp(make_pod(), f"{C0}.terminationMessagePolicy", "Always"),
     ['spec.containers[0].terminationMessagePolicy: Unsupported value: "Always": supported values: "File", '
      '"FallbackToLogsOnError"']),
    ("a restartPolicy on a regular container", setp(make_pod(), f"{C0}.restartPolicy", "Always"),
     ["spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"]),
    ("a sidecar init container may have probes",
     make_pod(initContainers=[ctr(name="side", restartPolicy="Always",
                                  readinessProbe={"exec": {"command": ["true"]}, "timeoutSeconds": 1,
                                                  "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})]),
     []),
    ("a plain init container may not have probes",
     make_pod(initContainers=[ctr(name="init", livenessProbe={"exec": {"command": ["true"]}, "successThreshold": 1})]),
     ["spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"]),
    ("an init container may have a resizePolicy (v1.35 API server: created)",
     make_pod(initContainers=[ctr(name="init", resizePolicy=[{"resourceName": "cpu", "restartPolicy": "NotRequired"}])]),
     []),
    ("an init container restartPolicy other than Always", make_pod(initContainers=[ctr(name="i", restartPolicy="Never")]),
     ['spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"']),
    ("a probe needs a handler", setp(make_pod(), f"{C0}.readinessProbe", {"periodSeconds": 10}),
     ["spec.containers[0].readinessProbe: Required value: must specify a handler type"]),
    ("a probe with two handlers",
     setp(make_pod(), f"{C0}.readinessProbe", {"exec": {"command": ["a"]}, "tcpSocket": {"port": 80}}),
     ["spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"]),
    ("a liveness probe successThreshold other than 1",
     setp(make_pod(), f"{C0}.livenessProbe", {"exec": {"command": ["a"]}, "successThreshold": 2}),
     ["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"]),
    ("a negative probe period",
     setp(make_pod(), f"{C0}.readinessProbe", {"exec": {"command": ["a"]}, "periodSeconds": -1}),
     ["spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0"]),
    ("an httpGet probe port out of range",
     setp(make_pod(), f"{C0}.readinessProbe", {"httpGet": {"path": "/", "port": 0, "scheme": "HTTP"}}),
     ["spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive"]),
    ("an httpGet probe with an invalid named port",
     setp(make_pod(), f"{C0}.readinessProbe", {"httpGet": {"path": "/", "port": "HTTP", "scheme": "HTTP"}}),
     ['spec.containers[0].readinessProbe.httpGet.port: Invalid value: "HTTP": must contain only alpha-numeric '
      "characters (a-z, 0-9), and hyphens (-)",
      'spec.containers[0].readinessProbe.httpGet.port: Invalid value: "HTTP": must contain at least one letter (a-z)']),
    ("an env var name with '='", setp(make_pod(), f"{C0}.env", [{"name": "A=B", "value": "1"}]),
     ['spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only '
      "of printable ASCII characters other than '='"]),
    ("an env var without name", setp(make_pod(), f"{C0}.env", [{"value": "1"}]),
     ["spec.containers[0].env[0].name: Required value"]),
    ("an env var with both value and valueFrom",
     setp(make_pod(), f"{C0}.env", [{"name": "A", "value": "1",
                                      "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}]),
     ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty']),
    ("an env var from an unsupported field path",
     setp(make_pod(), f"{C0}.env", [{"name": "A", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.host"}}}]),
     ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.host": supported values: '
      '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", '
      '"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"']),
    ("a volume mount of an unknown volume",
     setp(make_pod(), f"{C0}.volumeMounts", [{"name": "data", "mountPath": "/data"}]),
     ['spec.containers[0].volumeMounts[0].name: Not found: "data"']),
    ("two mounts on one path",
     setp(make_pod(volumes=[{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]), f"{C0}.volumeMounts",
          [{"name": "a", "mountPath": "/d"}, {"name": "b", "mountPath": "/d"}]),
     ['spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique']),
    ("a volume mount needs a mountPath",
     setp(make_pod(volumes=[{"name": "a", "emptyDir": {}}]), f"{C0}.volumeMounts", [{"name": "a"}]),
     ["spec.containers[0].volumeMounts[0].mountPath: Required value"]),
    ("a negative runAsUser", setp(make_pod(), f"{C0}.securityContext", {"runAsUser": -1}),
     ["spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 4294967295, inclusive"]),
    ("no privilege escalation for a privileged container",
     setp(make_pod(), f"{C0}.securityContext", {"allowPrivilegeEscalation": False, "privileged": True, "runAsUser": 1000,
                                                "capabilities": {"add": ["NET_ADMIN"]}}),
     ['spec.containers[0].securityContext: Invalid value: {"Capabilities":{"Add":["NET_ADMIN"],"Drop":null},'
      '"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":1000,"RunAsGroup":null,'
      '"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,'
      '"SeccompProfile":null,"AppArmorProfile":null}: cannot set `allowPrivilegeEscalation` to false and '
      "`privileged` to true"]),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in CONTAINER_CASES], ids=[c[0] for c in CONTAINER_CASES])
def test_containers(obj, expected):
    assert messages(obj) == expected


# --------------------------------------------------------------------------------------------- ports

PORT_CASES = [
    ("a named TCP port", [{"name": "http", "containerPort": 80, "protocol": "TCP"}], []),
    ("SCTP and UDP are supported", [{"containerPort": 80, "protocol": "SCTP"}, {"containerPort": 53, "protocol": "UDP"}], []),
    ("containerPort is required", [{"protocol": "TCP"}], ["spec.containers[0].ports[0].containerPort: Required value"]),
    ("containerPort above 65535", [{"containerPort": 65536, "protocol": "TCP"}],
     ["spec.containers[0].ports[0].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive"]),
    ("a negative containerPort", [{"containerPort": -1, "protocol": "TCP"}],
     ["spec.containers[0].ports[0].containerPort: Invalid value: -1: must be between 1 and 65535, inclusive"]),
    ("hostPort above 65535", [{"containerPort": 80, "hostPort": 70000, "protocol": "TCP"}],
     ["spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive"]),
    ("a lower-case protocol", [{"containerPort": 80, "protocol": "tcp"}],
     ['spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"']),
    ("an undefaulted protocol is required", [{"containerPort": 80}], ["spec.containers[0].ports[0].protocol: Required value"]),
    ("a port name longer than 15", [{"name": "a" * 16, "containerPort": 80, "protocol": "TCP"}],
     [f'spec.containers[0].ports[0].name: Invalid value: "{"a" * 16}": must be no more than 15 characters']),
    ("a port name with upper case", [{"name": "HTTP", "containerPort": 80, "protocol": "TCP"}],
     ['spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain at least one letter (a-z)']),
    ("a port name of digits only", [{"name": "8080", "containerPort": 80, "protocol": "TCP"}],
     ['spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)']),
    ("a port name with consecutive hyphens", [{"name": "a--b", "containerPort": 80, "protocol": "TCP"}],
     ['spec.containers[0].ports[0].name: Invalid value: "a--b": must not contain consecutive hyphens']),
    ("a port name starting with a hyphen", [{"name": "-ab", "containerPort": 80, "protocol": "TCP"}],
     ['spec.containers[0].ports[0].name: Invalid value: "-ab": must not begin or end with a hyphen']),
    ("duplicate port names",
     [{"name": "web", "containerPort": 80, "protocol": "TCP"}, {"name": "web", "containerPort": 81, "protocol": "TCP"}],
     ['spec.containers[0].ports[1].name: Duplicate value: "web"']),
    ("the same hostPort twice",
     [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}, {"containerPort": 81, "hostPort": 8080, "protocol": "TCP"}],
     ['spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//8080"']),
    ("one hostPort for TCP and UDP is fine",
     [{"containerPort": 53, "hostPort": 53, "protocol": "TCP"}, {"containerPort": 53, "hostPort": 53, "protocol": "UDP"}], []),
]


@pytest.mark.parametrize("ports,expected", [c[1:] for c in PORT_CASES], ids=[c[0] for c in PORT_CASES])
def test_container_ports(ports, expected):
    assert messages(setp(make_pod(), f"{C0}.ports", ports)) == expected


def test_host_network_requires_matching_host_ports():
    pod = setp(make_pod(hostNetwork=True), f"{C0}.ports", [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}])
    assert messages(pod) == [
        "spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"]


def test_host_port_conflicts_across_containers():
    p = [{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}]
    pod = make_pod(containers=[ctr(name="a", ports=p), ctr(name="b", ports=copy.deepcopy(p))])
    assert messages(pod) == ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"']


# --------------------------------------------------------------------------------------------- resources

RES = f"{C0}.resources"
RESOURCE_CASES = [
    ("requests within limits", {"requests": {"cpu": "500m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}, []),
    ("requests above the cpu limit", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
     ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']),
    ("requests above the memory limit, in canonical form", {"requests": {"memory": "2048Mi"}, "limits": {"memory": "1Gi"}},
     ['spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi']),
    ("a fractional request is printed canonically", {"requests": {"cpu": "1.5"}, "limits": {"cpu": "1"}},
     ['spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1']),
    ("a negative limit", {"limits": {"cpu": "-1"}},
     ['spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']),
    ("a negative request", {"requests": {"memory": "-1Mi"}},
     ['spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0']),
    ("an unknown unqualified resource name", {"limits": {"gpu": "1"}},
     ['spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers']),
    ("a standard resource that is not for containers", {"requests": {"pods": "1"}},
     ['spec.containers[0].resources.requests[pods]: Invalid value: "pods": must be a standard resource for containers']),
    ("an extended resource must be a whole number", {"limits": {"example.com/gpu": "1500m"}, "requests": {"example.com/gpu": "1500m"}},
     ['spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "1500m": must be an integer',
      'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "1500m": must be an integer']),
    ("an extended resource request must equal its limit", {"limits": {"example.com/gpu": "2"}, "requests": {"example.com/gpu": "1"}},
     ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2']),
    ("an extended resource request needs a limit", {"requests": {"example.com/gpu": "1"}},
     ["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"]),
    ("hugepages need cpu or memory", {"limits": {"hugepages-2Mi": "2Mi"}, "requests": {"hugepages-2Mi": "2Mi"}},
     ["spec.containers[0].resources: Forbidden: HugePages require cpu or memory"]),
    ("an unparsable quantity reaching validation", {"limits": {"cpu": "one"}},
     ["spec.containers[0].resources.limits[cpu]: Invalid value: \"one\": quantities must match the regular "
      "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
]


@pytest.mark.parametrize("res,expected", [c[1:] for c in RESOURCE_CASES], ids=[c[0] for c in RESOURCE_CASES])
def test_resources(res, expected):
    assert messages(setp(make_pod(), RES, res)) == expected


# --------------------------------------------------------------------------------------------- pod spec

SPEC_CASES = [
    ("an unsupported restartPolicy", make_pod(restartPolicy="Sometimes"),
     ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']),
    ("an undefaulted restartPolicy is required", setp(make_pod(), "spec.restartPolicy", DELETE),
     ["spec.restartPolicy: Required value"]),
    ("an unsupported dnsPolicy", make_pod(dnsPolicy="ClusterLast"),
     ['spec.dnsPolicy: Unsupported value: "ClusterLast": supported values: "ClusterFirstWithHostNet", '
      '"ClusterFirst", "Default", "None"']),
    ("dnsPolicy None needs a dnsConfig", make_pod(dnsPolicy="None"),
     ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"]),
    ("at most three nameservers",
     make_pod(dnsPolicy="None", dnsConfig={"nameservers": ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"]}),
     ['spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","2.2.2.2","3.3.3.3","4.4.4.4"]: '
      "must not have more than 3 nameservers"]),
    ("an undefaulted terminationGracePeriodSeconds is required", setp(make_pod(), "spec.terminationGracePeriodSeconds", DELETE),
     ["spec.terminationGracePeriodSeconds: Required value"]),
    ("a negative terminationGracePeriodSeconds is accepted, as upstream does", make_pod(terminationGracePeriodSeconds=-1), []),
    ("activeDeadlineSeconds must be positive", make_pod(activeDeadlineSeconds=0),
     ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]),
    ("a nodeSelector key with a space", make_pod(nodeSelector={"disk type": "ssd"}),
     [f'spec.nodeSelector: Invalid value: "disk type": {NAME_PART}']),
    ("a nodeSelector value with a slash", make_pod(nodeSelector={"disk": "a/b"}),
     [f'spec.nodeSelector: Invalid value: "a/b": {LABEL_VALUE}']),
    ("a nodeName must be a DNS subdomain", make_pod(nodeName="Node_1"),
     [f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN}']),
    ("a serviceAccountName must be a DNS subdomain", make_pod(serviceAccountName="my sa"),
     [f'spec.serviceAccountName: Invalid value: "my sa": {SUBDOMAIN}']),
    ("a priorityClassName must be a DNS subdomain", make_pod(priorityClassName="High"),
     [f'spec.priorityClassName: Invalid value: "High": {SUBDOMAIN}']),
    ("an unsupported preemptionPolicy", make_pod(preemptionPolicy="Sometimes"),
     ['spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']),
    ("a hostname must be a DNS label", make_pod(hostname="web.local"),
     ['spec.hostname: Invalid value: "web.local": must not contain dots']),
    ("ephemeral containers cannot be set on create", make_pod(ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
     ["spec.ephemeralContainers: Forbidden: cannot be set on create"]),
    ("a nodeName with scheduling gates", make_pod(nodeName="node01", schedulingGates=[{"name": "example.com/wait"}]),
     ["spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"]),
    ("duplicate scheduling gates", make_pod(schedulingGates=[{"name": "a"}, {"name": "a"}]),
     ['spec.schedulingGates[1]: Duplicate value: "a"']),
    ("a volume without a source", make_pod(volumes=[{"name": "data"}]),
     ["spec.volumes[0]: Required value: must specify a volume type"]),
    ("a volume with two sources", make_pod(volumes=[{"name": "data", "emptyDir": {}, "hostPath": {"path": "/x"}}]),
     ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"]),
    ("duplicate volume names", make_pod(volumes=[{"name": "d", "emptyDir": {}}, {"name": "d", "emptyDir": {}}]),
     ['spec.volumes[1].name: Duplicate value: "d"']),
    ("a volume name must be a DNS label", make_pod(volumes=[{"name": "my.data", "emptyDir": {}}]),
     ['spec.volumes[0].name: Invalid value: "my.data": must not contain dots']),
    ("a configMap volume needs a name", make_pod(volumes=[{"name": "c", "configMap": {}}]),
     ["spec.volumes[0].configMap.name: Required value"]),
    ("a hostPath volume needs a path", make_pod(volumes=[{"name": "h", "hostPath": {"path": ""}}]),
     ["spec.volumes[0].hostPath.path: Required value"]),
    ("a projected token without a service account",
     make_pod(volumes=[{"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]),
     ["spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when "
      "serviceAccountName is not set"]),
    ("a projected token with a service account is fine",
     make_pod(serviceAccountName="default",
              volumes=[{"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]), []),
    ("an unsupported os", make_pod(os={"name": "plan9"}),
     ['spec.os.name: Unsupported value: "plan9": supported values: "linux", "windows"']),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in SPEC_CASES], ids=[c[0] for c in SPEC_CASES])
def test_pod_spec(obj, expected):
    assert messages(obj) == expected


# --------------------------------------------------------------------------------------------- tolerations

TOLERATION_CASES = [
    ("a full toleration", {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}, []),
    ("an empty key with Exists tolerates everything", {"operator": "Exists"}, []),
    ("tolerationSeconds with NoExecute", {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}, []),
    ("an invalid toleration key", {"key": "nospecialchars^=@", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
     [f'spec.tolerations[0].key: Invalid value: "nospecialchars^=@": {NAME_PART}']),
    ("operator must be Exists when key is empty", {"operator": "Equal", "value": "bar"},
     ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
      'means "match all values and all keys"']),
    ("an empty key with an empty operator", {"effect": "NoSchedule"},
     ['spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means '
      '"match all values and all keys"']),
    ("value must be empty when operator is Exists", {"key": "foo", "operator": "Exists", "value": "bar"},
     ['spec.tolerations[0].operator: Invalid value: "bar": value must be empty when `operator` is \'Exists\'']),
    ("tolerationSeconds only with NoExecute", {"key": "foo", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 20},
     ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set']),
    ("an unsupported operator", {"key": "foo", "operator": "In", "value": "bar"},
     ['spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"']),
    ("Lt is not supported without its feature gate", {"key": "foo", "operator": "Lt", "value": "5"},
     ['spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists"']),
    ("an unsupported effect", {"key": "foo", "operator": "Exists", "effect": "NoScheduleNoAdmit"},
     ['spec.tolerations[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", '
      '"PreferNoSchedule", "NoExecute"']),
    ("a value that is not a label value", {"key": "foo", "operator": "Equal", "value": "bar baz"},
     [f'spec.tolerations[0].operator: Invalid value: "bar baz": {LABEL_VALUE}']),
]


@pytest.mark.parametrize("tol,expected", [c[1:] for c in TOLERATION_CASES], ids=[c[0] for c in TOLERATION_CASES])
def test_tolerations(tol, expected):
    assert messages(make_pod(tolerations=[tol])) == expected


# --------------------------------------------------------------------------------------------- affinity

NA = "spec.affinity.nodeAffinity"
REQ = f"{NA}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"


def node_affinity(*exprs, fields=()) -> dict:
    term = {}
    if exprs:
        term["matchExpressions"] = list(exprs)
    if fields:
        term["matchFields"] = list(fields)
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def pod_affinity_term(**kw) -> dict:
    t = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
    t.update(kw)
    return t


AFFINITY_CASES = [
    ("a valid node affinity", node_affinity({"key": "zone", "operator": "In", "values": ["a", "b"]}), []),
    ("no node selector terms",
     {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
     [f"{REQ}: Required value: must have at least one node selector term"]),
    ("In without values", node_affinity({"key": "zone", "operator": "In"}),
     [f"{REQ}[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]),
    ("Exists with values", node_affinity({"key": "zone", "operator": "Exists", "values": ["a"]}),
     [f"{REQ}[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]),
    ("Gt with two values", node_affinity({"key": "cores", "operator": "Gt", "values": ["1", "2"]}),
     [f"{REQ}[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"]),
    ("an unknown operator", node_affinity({"key": "zone", "operator": "Equals", "values": ["a"]}),
     [f'{REQ}[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator']),
    ("a bad value in a required term", node_affinity({"key": "zone", "operator": "In", "values": ["a b"]}),
     [f'{REQ}[0].matchExpressions[0].values[0]: Invalid value: "a b": {LABEL_VALUE}']),
    ("matchFields only knows metadata.name",
     node_affinity(fields=[{"key": "metadata.uid", "operator": "In", "values": ["x"]}]),
     [f'{REQ}[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key']),
    ("matchFields takes exactly one value",
     node_affinity(fields=[{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]),
     [f"{REQ}[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' "
      "for node field selector"]),
    ("a preferred weight out of range",
     {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 101, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]}}]}},
     [f"{NA}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"]),
    ("a pod affinity term needs a topologyKey",
     {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [pod_affinity_term(topologyKey="")]}},
     ["spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
      'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": '
      "name part must be non-empty",
      f'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": {NAME_PART}']),
    ("a pod anti-affinity label selector with a bad operator",
     {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [pod_affinity_term(
         labelSelector={"matchExpressions": [{"key": "app", "operator": "Is", "values": ["web"]}]})]}},
     ['spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.'
      'matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator']),
    ("a weighted pod affinity term out of range",
     {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 0, "podAffinityTerm": pod_affinity_term()}]}},
     ["spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: "
      "must be in the range 1-100"]),
    ("a bad namespace in a pod affinity term is reported on 'namespace'",
     {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [pod_affinity_term(namespaces=["a.b"])]}},
     ['spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: Invalid value: "a.b": '
      "must not contain dots"]),
]


@pytest.mark.parametrize("aff,expected", [c[1:] for c in AFFINITY_CASES], ids=[c[0] for c in AFFINITY_CASES])
def test_affinity(aff, expected):
    assert messages(make_pod(affinity=aff)) == expected


TSC = "spec.topologySpreadConstraints"
SPREAD_CASES = [
    ("a valid constraint", [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}], []),
    ("maxSkew must be positive", [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
     [f"{TSC}[0].maxSkew: Invalid value: 0: must be greater than zero"]),
    ("topologyKey is required", [{"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}],
     [f"{TSC}[0].topologyKey: Required value: can not be empty"]),
    ("an unsupported whenUnsatisfiable", [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}],
     [f'{TSC}[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"']),
    ("the same key and action twice",
     [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
     [f'{TSC}[0].{{topologyKey, whenUnsatisfiable}}: Duplicate value: "{{zone, DoNotSchedule}}"']),
    ("minDomains only with DoNotSchedule",
     [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}],
     [f"{TSC}[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"]),
]


@pytest.mark.parametrize("tsc,expected", [c[1:] for c in SPREAD_CASES], ids=[c[0] for c in SPREAD_CASES])
def test_topology_spread_constraints(tsc, expected):
    assert messages(make_pod(topologySpreadConstraints=tsc)) == expected


# --------------------------------------------------------------------------------------------- pod updates

UPDATABLE = ("pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
             "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
             "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")


def spec_diff(*hunk: str) -> str:
    """A refused pod update: the updatable fields, then diff.Diff of the internal pod specs (the
    hunk's lines, each ending in a newline). The texts are v1.35's ValidatePodUpdate's, run in Go
    on the same old and new pods."""
    return "spec: Forbidden: " + UPDATABLE + "\n" + "".join(line + "\n" for line in hunk)


def stored(pod: dict) -> dict:
    p = copy.deepcopy(pod)
    p["metadata"].update(uid="u-1", resourceVersion="1", creationTimestamp="2024-01-01T00:00:00Z")
    return p


OLD = stored(make_pod(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}],
                      activeDeadlineSeconds=100))

UPDATE_CASES = [
    ("no change", OLD, []),
    ("a new image", setp(OLD, f"{C0}.image", "image:2"), []),
    ("a label change", setp(OLD, "metadata.labels", {"a": "b"}), []),
    ("an added toleration", setp(OLD, "spec.tolerations", OLD["spec"]["tolerations"] + [{"key": "b", "operator": "Exists"}]), []),
    ("a changed tolerationSeconds", setp(OLD, "spec.tolerations[0].tolerationSeconds", 30), []),
    ("a changed toleration key", setp(OLD, "spec.tolerations[0].key", "b"),
     ["spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"]),
    ("a removed toleration", setp(OLD, "spec.tolerations", []),
     ["spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"]),
    ("a shorter activeDeadlineSeconds", setp(OLD, "spec.activeDeadlineSeconds", 50), []),
    ("a longer activeDeadlineSeconds", setp(OLD, "spec.activeDeadlineSeconds", 200),
     ["spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"]),
    ("activeDeadlineSeconds removed", setp(OLD, "spec.activeDeadlineSeconds", DELETE),
     ["spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"]),
    ("an added container", setp(OLD, "spec.containers", OLD["spec"]["containers"] + [ctr(name="b")]),
     ["spec.containers: Forbidden: pod updates may not add or remove containers"]),
    ("a changed name", setp(OLD, "metadata.name", "xyz"), ['metadata.name: Invalid value: "xyz": field is immutable']),
    ("a changed uid", setp(OLD, "metadata.uid", "u-2"), ['metadata.uid: Invalid value: "u-2": field is immutable']),
    ("a changed creationTimestamp", setp(OLD, "metadata.creationTimestamp", "2024-02-01T00:00:00Z"),
     ['metadata.creationTimestamp: Invalid value: "2024-02-01T00:00:00Z": field is immutable']),
    ("a set deletionTimestamp", setp(OLD, "metadata.deletionTimestamp", "2020-01-01T00:00:00Z"),
     ['metadata.deletionTimestamp: Invalid value: "2020-01-01T00:00:00Z": field is immutable']),
    ("a bumped generation", setp(OLD, "metadata.generation", 2), []),
    ("setting nodeName", setp(OLD, "spec.nodeName", "node01"),
     [spec_diff("@@ -42,7 +42,7 @@",
                '  "NodeSelector": null,',
                '  "ServiceAccountName": "",',
                '  "AutomountServiceAccountToken": null,',
                '- "NodeName": "",',
                '+ "NodeName": "node01",',
                '  "SecurityContext": {',
                '   "HostNetwork": false,',
                '   "HostPID": false,')]),
    ("changing the restartPolicy",
     setp(OLD, "spec.restartPolicy", "Never"),
     [spec_diff("@@ -35,7 +35,7 @@",
                "   }",
                "  ],",
                '  "EphemeralContainers": null,',
                '- "RestartPolicy": "Always",',
                '+ "RestartPolicy": "Never",',
                '  "TerminationGracePeriodSeconds": 30,',
                '  "ActiveDeadlineSeconds": 100,',
                '  "DNSPolicy": "ClusterFirst",')]),
    ("changing a container's env and resources shows both in one hunk",
     setp(setp(OLD, f"{C0}.env", [{"name": "A", "value": "1"}]), f"{C0}.resources", {"limits": {"cpu": "1"}}),
     [spec_diff("@@ -10,9 +10,17 @@",
                '    "WorkingDir": "",',
                '    "Ports": null,',
                '    "EnvFrom": null,',
                '-   "Env": null,',
                '+   "Env": [',
                "+    {",
                '+     "Name": "A",',
                '+     "Value": "1",',
                '+     "ValueFrom": null',
                "+    }",
                "+   ],",
                '    "Resources": {',
                '-    "Limits": null,',
                '+    "Limits": {',
                '+     "cpu": "1"',
                "+    },",
                '     "Requests": null,',
                '     "Claims": null',
                "    },")]),
    ("terminationGracePeriodSeconds may not change", setp(OLD, "spec.terminationGracePeriodSeconds", 10),
     [spec_diff("@@ -36,7 +36,7 @@",
                "  ],",
                '  "EphemeralContainers": null,',
                '  "RestartPolicy": "Always",',
                '- "TerminationGracePeriodSeconds": 30,',
                '+ "TerminationGracePeriodSeconds": 10,',
                '  "ActiveDeadlineSeconds": 100,',
                '  "DNSPolicy": "ClusterFirst",',
                '  "NodeSelector": null,')]),
]


@pytest.mark.parametrize("new,expected", [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES])
def test_pod_update(new, expected):
    assert messages(new, OLD) == expected


def test_generation_may_not_decrease():
    old = setp(OLD, "metadata.generation", 3)
    assert messages(setp(old, "metadata.generation", 2), old) == [
        "metadata.generation: Invalid value: 2: must not be decremented"]


def test_a_changed_node_name_is_refused():
    old = setp(OLD, "spec.nodeName", "node01")
    new = setp(old, "spec.nodeName", "node02")
    assert messages(new, old) == [
        spec_diff("@@ -42,7 +42,7 @@",
                  '  "NodeSelector": null,',
                  '  "ServiceAccountName": "",',
                  '  "AutomountServiceAccountToken": null,',
                  '- "NodeName": "node01",',
                  '+ "NodeName": "node02",',
                  '  "SecurityContext": {',
                  '   "HostNetwork": false,',
                  '   "HostPID": false,')]


def test_terminationGracePeriodSeconds_may_go_from_negative_to_one():
    old = setp(OLD, "spec.terminationGracePeriodSeconds", -1)
    assert messages(setp(old, "spec.terminationGracePeriodSeconds", 1), old) == []
    assert len(messages(setp(old, "spec.terminationGracePeriodSeconds", 2), old)) == 1


def test_mirror_pod_annotation_may_not_be_added_or_removed():
    old = setp(OLD, "spec.nodeName", "n")
    added = setp(old, "metadata.annotations", {"kubernetes.io/config.mirror": "x"})
    assert messages(added, old) == [
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation"]
    assert messages(old, added) == [
        "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation"]


def test_scheduling_gates_may_only_be_removed():
    old = setp(OLD, "spec.schedulingGates", [{"name": "a"}])
    assert messages(setp(old, "spec.schedulingGates", []), old) == []
    assert messages(setp(old, "spec.schedulingGates", [{"name": "a"}, {"name": "b"}]), old) == [
        "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'"]


def test_gated_pods_may_change_node_selector():
    old = setp(OLD, "spec.schedulingGates", [{"name": "a"}])
    assert messages(setp(old, "spec.nodeSelector", {"disk": "ssd"}), old) == []


def test_absent_and_empty_values_are_semantically_equal():
    new = setp(OLD, "spec.nodeSelector", {})
    new = setp(new, f"{C0}.env", [])
    assert messages(new, OLD) == []


def test_update_errors_format_as_kubectl_prints_them():
    err = Invalid("Pod", "abc", v.validate_pod_update(setp(OLD, "spec.tolerations", []), OLD))
    assert str(err) == ('The Pod "abc" is invalid: spec.tolerations: Forbidden: existing toleration can not be '
                        "modified except its tolerationSeconds")


# --------------------------------------------------------------------------------------------- nodes


def make_node(**spec) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01"}, "spec": {}}
    n["spec"].update(spec)
    return n


NODE_CASES = [
    ("a valid node", make_node(taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]), []),
    ("a node name must be a DNS subdomain", setp(make_node(), "metadata.name", "Node01"),
     [f'metadata.name: Invalid value: "Node01": {SUBDOMAIN}']),
    ("a node has no namespace", setp(make_node(), "metadata.namespace", "default"),
     ["metadata.namespace: Forbidden: not allowed on this type"]),
    ("a taint key is required (reported under metadata, as upstream)", make_node(taints=[{"effect": "NoSchedule"}]),
     ['metadata.taints[0].key: Invalid value: "": name part must be non-empty',
      f'metadata.taints[0].key: Invalid value: "": {NAME_PART}']),
    ("a taint effect is required", make_node(taints=[{"key": "a"}]), ["metadata.taints[0].effect: Required value"]),
    ("an unsupported taint effect", make_node(taints=[{"key": "a", "effect": "NoExecution"}]),
     ['metadata.taints[0].effect: Unsupported value: "NoExecution": supported values: "NoSchedule", '
      '"PreferNoSchedule", "NoExecute"']),
    ("a taint value that is not a label value", make_node(taints=[{"key": "a", "value": "x y", "effect": "NoSchedule"}]),
     [f'metadata.taints[0].value: Invalid value: "x y": {LABEL_VALUE}']),
    ("duplicate taints by key and effect",
     make_node(taints=[{"key": "a", "value": "1", "effect": "NoSchedule"}, {"key": "a", "value": "2", "effect": "NoSchedule"}]),
     ['metadata.taints[1]: Duplicate value: {"Key":"a","Value":"2","Effect":"NoSchedule","TimeAdded":null}: '
      "taints must be unique by key and effect pair"]),
    ("one key with two effects is fine",
     make_node(taints=[{"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoExecute"}]), []),
    ("a podCIDR that is not a CIDR", make_node(podCIDR="10.0.0.0"),
     ['spec.podCIDRs[0]: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']),
    ("a sloppy IPv4 CIDR is accepted", make_node(podCIDR="10.0.01.0/24"), []),
    ("dual-stack podCIDRs", make_node(podCIDRs=["10.244.1.0/24", "fd00::/64"]), []),
    ("two IPv4 podCIDRs", make_node(podCIDRs=["10.244.1.0/24", "10.244.2.0/24"]),
     ['spec.podCIDRs: Invalid value: ["10.244.1.0/24","10.244.2.0/24"]: may specify no more than one CIDR '
      "for each IP family"]),
    ("negative capacity", setp(make_node(), "status", {"capacity": {"cpu": "-1"}}),
     ['status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0']),
    ("a fractional pod capacity", setp(make_node(), "status", {"allocatable": {"pods": "1.5"}}),
     ['status.allocatable.pods: Invalid value: "1500m": must be an integer']),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES])
def test_node(obj, expected):
    assert messages(obj) == expected


def test_node_update_may_not_change_pod_cidr():
    old = stored_node(podCIDR="10.244.1.0/24", podCIDRs=["10.244.1.0/24"])
    new = setp(setp(old, "spec.podCIDR", "10.244.2.0/24"), "spec.podCIDRs", ["10.244.2.0/24"])
    assert messages(new, old) == ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']


def test_node_update_may_set_pod_cidr_once_and_change_taints():
    old = stored_node()
    new = setp(setp(old, "spec.podCIDRs", ["10.244.2.0/24"]), "spec.taints", [{"key": "a", "effect": "NoSchedule"}])
    assert messages(new, old) == []
    assert messages(setp(new, "spec.taints", [{"key": "a", "effect": "Bad"}]), old) == [
        'metadata.taints[0].effect: Unsupported value: "Bad": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']


def test_node_addresses_are_unique():
    old = stored_node()
    addr = {"type": "InternalIP", "address": "10.0.0.1"}
    assert messages(setp(old, "status", {"addresses": [addr, addr]}), old) == [
        'status.addresses[1]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}']


def stored_node(**spec) -> dict:
    n = make_node(**spec)
    n["metadata"].update(uid="n-1", resourceVersion="1")
    return n


# --------------------------------------------------------------------------------------------- namespaces


def make_ns(name="dev", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": dict(spec)}


NAMESPACE_CASES = [
    ("a valid namespace", make_ns(finalizers=["kubernetes"]), []),
    ("a namespace name must be a DNS label", make_ns("team.dev"),
     ['metadata.name: Invalid value: "team.dev": must not contain dots']),
    ("an upper-case namespace name", make_ns("Dev"), [f'metadata.name: Invalid value: "Dev": {LABEL}']),
    ("a namespace name longer than 63", make_ns("n" * 64),
     [f'metadata.name: Invalid value: "{"n" * 64}": must be no more than 63 characters']),
    ("a namespace name longer than 63 with a dot", make_ns("n" * 63 + ".x"),
     [f'metadata.name: Invalid value: "{"n" * 63}.x": must be no more than 63 characters',
      f'metadata.name: Invalid value: "{"n" * 63}.x": must not contain dots']),
    ("an unqualified non-standard spec finalizer", make_ns(finalizers=["cleanup"]),
     ['spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified']),
    ("a badly formed spec finalizer", make_ns(finalizers=["a b/c"]),
     [f'spec.finalizers: Invalid value: "a b/c": prefix part {SUBDOMAIN}']),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in NAMESPACE_CASES], ids=[c[0] for c in NAMESPACE_CASES])
def test_namespace(obj, expected):
    assert messages(obj) == expected


def test_namespace_update_checks_metadata_only():
    old = make_ns()
    old["metadata"]["uid"] = "x"
    assert messages(setp(old, "metadata.labels", {"team": "a"}), old) == []
    assert messages(setp(old, "metadata.name", "prod"), old) == ['metadata.name: Invalid value: "prod": field is immutable']


def hp(value) -> dict:
    return {"windowsOptions": {"hostProcess": value}}


@pytest.mark.parametrize("spec, expected", [
    ({"securityContext": hp(True), "hostNetwork": True, "containers": [ctr()]}, []),
    ({"containers": [ctr(securityContext=hp(True)), ctr(name="b")]},
     ['spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess '
      "containers",
      "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers"]),
    ({"securityContext": hp(True), "hostNetwork": True, "containers": [ctr(securityContext=hp(False))]},
     ["spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value "
      "must be identical if both are specified, was true"]),
    ({"securityContext": hp(False), "containers": [ctr(securityContext=hp(False))]}, []),
], ids=["a hostProcess pod with hostNetwork", "one hostProcess container of two, without hostNetwork",
        "a container that contradicts the pod", "hostProcess false everywhere"])
def test_windows_host_process_pods(spec, expected):
    """validation_test.go TestValidateWindowsHostProcessPod; the texts as the v1.35 oracle printed them."""
    assert messages(make_pod(**spec)) == expected
