"""Defaulting, admission and validation of PriorityClass, PodDisruptionBudget, PersistentVolume,
PersistentVolumeClaim, StorageClass and CSINode (kubesim.api.scheduling, .policy, .storage), with
the API server's messages (upstream pkg/apis/{scheduling,policy,storage}/validation,
pkg/apis/core/validation, plugin/pkg/admission/{priority,storage/...})."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.defaults import apply_defaults, apply_update_defaults, check_delete, validating_admission
from kubesim.api.validation import validate_object
from kubesim.errors import Forbidden


def pc(name="high", **fields):
    obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": 1000}
    obj.update(fields)
    return obj


def pdb(spec=None, name="web"):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1} if spec is None else spec}


def pv(spec_update=None, drop=(), name="pv1"):
    spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    spec.update(spec_update or {})
    for k in drop:
        spec.pop(k, None)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def pvc(spec_update=None, drop=(), name="data"):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    spec.update(spec_update or {})
    for k in drop:
        spec.pop(k, None)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def sc(name="fast", **fields):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
           "provisioner": "ebs.csi.aws.com"}
    obj.update(fields)
    return obj


def errors_of(obj, old=None, lister=None):
    obj = copy.deepcopy(obj)
    if old is None:
        apply_defaults(obj, lister=lister or (lambda kind: []), now="2026-11-22T10:00:00Z")
    else:
        apply_update_defaults(obj, old)
    return [str(e) for e in validate_object(obj, old)]


def created(obj, lister=None):
    obj = copy.deepcopy(obj)
    apply_defaults(obj, lister=lister or (lambda kind: []), now="2026-11-22T10:00:00Z")
    assert validate_object(obj) == []
    return obj


# --- defaults and admission ---------------------------------------------------------------------

def test_priority_class_defaults():
    obj = created(pc())
    assert obj["preemptionPolicy"] == "PreemptLowerPriority" and obj["metadata"]["generation"] == 1
    assert "globalDefault" not in obj


def test_pdb_defaults_status_and_generation():
    obj = created(pdb())
    assert obj["status"] == {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}
    assert obj["metadata"]["generation"] == 1
    new = copy.deepcopy(obj)
    new["spec"]["minAvailable"] = 2
    apply_update_defaults(new, obj)
    assert new["metadata"]["generation"] == 2


def test_pv_defaults_and_protection_finalizer():
    obj = created(pv({"capacity": {"storage": "1024Mi"}}))
    assert obj["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert obj["spec"]["volumeMode"] == "Filesystem"
    assert obj["spec"]["hostPath"] == {"path": "/data", "type": ""}
    assert obj["spec"]["capacity"] == {"storage": "1Gi"}
    assert obj["status"] == {"phase": "Pending", "lastPhaseTransitionTime": "2026-11-22T10:00:00Z"}
    assert obj["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]


def test_storage_class_defaults():
    obj = created(sc())
    assert (obj["reclaimPolicy"], obj["volumeBindingMode"]) == ("Delete", "Immediate")


def _sc(name, created_at, default=True, beta=False):
    key = "storageclass.beta.kubernetes.io/is-default-class" if beta else "storageclass.kubernetes.io/is-default-class"
    return {"kind": "StorageClass", "metadata": {"name": name, "creationTimestamp": created_at,
                                                  "annotations": {key: "true" if default else "false"}}}


@pytest.mark.parametrize("claim, classes, expected", [
    (pvc(), [_sc("standard", "2026-01-01T00:00:00Z")], "standard"),
    (pvc(), [_sc("old", "2026-01-01T00:00:00Z"), _sc("new", "2026-02-01T00:00:00Z")], "new"),
    (pvc(), [_sc("b", "2026-01-01T00:00:00Z"), _sc("a", "2026-01-01T00:00:00Z")], "a"),
    (pvc(), [_sc("beta", "2026-01-01T00:00:00Z", beta=True)], "beta"),
    (pvc(), [_sc("standard", "2026-01-01T00:00:00Z", default=False)], None),
    (pvc(), [], None),
    (pvc({"storageClassName": ""}), [_sc("standard", "2026-01-01T00:00:00Z")], ""),
    (pvc({"storageClassName": "fast"}), [_sc("standard", "2026-01-01T00:00:00Z")], "fast"),
], ids=["a claim without a class gets the default one",
        "of several defaults the newest wins",
        "of defaults created together the first name wins",
        "the beta annotation marks a default too",
        "a class annotated false is no default",
        "without a default class the claim keeps none",
        "an empty class name asks for no class and is kept",
        "a named class is kept"])
def test_default_storage_class_admission(claim, classes, expected):
    obj = created(claim, lister=lambda kind: classes if kind == "StorageClass" else [])
    assert obj["spec"].get("storageClassName") == expected
    assert obj["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert obj["status"] == {"phase": "Pending"} and obj["spec"]["volumeMode"] == "Filesystem"


def _pod(**spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


STORED = [created(pc("high", value=1000)), created(pc("low", value=10, globalDefault=True, preemptionPolicy="Never"))]


@pytest.mark.parametrize("spec, expected", [
    ({}, ("low", 10, "Never")),
    ({"priorityClassName": "high"}, ("high", 1000, "PreemptLowerPriority")),
    ({"priorityClassName": "system-node-critical"}, ("system-node-critical", 2000001000, "PreemptLowerPriority")),
], ids=["a pod without a class gets the global default one",
        "a pod naming a stored class gets its value and policy",
        "a system class resolves without the store"])
def test_priority_admission_uses_stored_classes(spec, expected):
    calls = []

    def lister(kind):
        calls.append(kind)
        return STORED

    pod = _pod(**spec)
    apply_defaults(pod, lister=lister)
    assert (pod["spec"].get("priorityClassName"), pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == expected
    assert calls == ([] if spec.get("priorityClassName", "").startswith("system-") else ["PriorityClass"])


def test_priority_admission_refuses_an_unknown_class():
    with pytest.raises(Forbidden) as e:
        apply_defaults(_pod(priorityClassName="nope"), lister=lambda kind: STORED)
    assert str(e.value) == 'Error from server (Forbidden): pods "p" is forbidden: no PriorityClass with name nope was found'


@pytest.mark.parametrize("obj, old, stored, message", [
    (pc("b", globalDefault=True), None, [pc("a", globalDefault=True)],
     'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. '
     "Only one default can exist"),
    (pc("b", globalDefault=True), pc("b"), [pc("a", globalDefault=True), pc("b")],
     'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. '
     "Only one default can exist"),
    (pc("a", globalDefault=True, description="x"), pc("a", globalDefault=True), [pc("a", globalDefault=True)], None),
    (pc("b", globalDefault=True), None, [pc("a")], None),
    (pc("b"), None, [pc("a", globalDefault=True)], None),
], ids=["a second global default is refused on create",
        "marking another class default is refused on update",
        "the default class itself may be updated",
        "the first default is admitted",
        "a class that is not default is admitted"])
def test_only_one_global_default(obj, old, stored, message):
    if message is None:
        validating_admission(obj, old, lambda kind: stored)
        return
    with pytest.raises(Forbidden) as e:
        validating_admission(obj, old, lambda kind: stored)
    assert e.value.message == message


@pytest.mark.parametrize("kind, name, refused", [
    ("PriorityClass", "system-node-critical", True), ("PriorityClass", "system-cluster-critical", True),
    ("PriorityClass", "high", False), ("StorageClass", "system-node-critical", False),
], ids=["system-node-critical cannot be deleted", "system-cluster-critical cannot be deleted",
        "a user class can be deleted", "only priority classes are protected"])
def test_system_priority_classes_cannot_be_deleted(kind, name, refused):
    if not refused:
        check_delete(kind, name)
        return
    with pytest.raises(Forbidden) as e:
        check_delete(kind, name)
    assert e.value.message == (f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this is a system '
                               "priority class and cannot be deleted")


# --- validation on create -----------------------------------------------------------------------

CREATE = [
    # PriorityClass
    ("a user class above one billion", pc(value=1000000001),
     ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]),
    ("a user class of exactly one billion", pc(value=1000000000), []),
    ("an unknown system- name", pc("system-foo"),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: system-foo is not a known system priority class"]),
    ("a system class with another value", pc("system-node-critical", value=5),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: value of system-node-critical PriorityClass must be 2000001000"]),
    ("a system class marked global default", pc("system-cluster-critical", value=2000000000, globalDefault=True),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: globalDefault of system-cluster-critical PriorityClass must be false"]),
    ("the system class as upstream defines it", pc("system-cluster-critical", value=2000000000), []),
    ("an unknown preemption policy", pc(preemptionPolicy="Sometimes"),
     ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']),
    ("an empty preemption policy", pc(preemptionPolicy=""), ["preemptionPolicy: Required value"]),
    ("a priority class name that is no DNS subdomain", pc("High"),
     ['metadata.name: Invalid value: "High": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
      "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
      "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    # PodDisruptionBudget
    ("a budget with a percentage", pdb({"minAvailable": "50%", "selector": {}}), []),
    ("a budget with both bounds", pdb({"minAvailable": 1, "maxUnavailable": 1}),
     ["spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000a1c010), "
      "Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000a1c020), "
      "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: "
      "minAvailable and maxUnavailable cannot be both set"]),
    ("a negative min available", pdb({"minAvailable": -1}),
     ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]),
    ("a min available above 100%", pdb({"minAvailable": "101%"}),
     ['spec.minAvailable: Invalid value: "101%": must not be greater than 100%']),
    ("a max unavailable that is no percentage", pdb({"maxUnavailable": "half"}),
     ["spec.maxUnavailable: Invalid value: \"half\": must be an integer or percentage (e.g '5%')"]),
    ("a bad selector operator", pdb({"minAvailable": 1, "selector": {"matchExpressions": [
        {"key": "a", "operator": "Near"}]}}),
     ['spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']),
    ("an unknown unhealthy pod eviction policy", pdb({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"}),
     ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", '
      '"IfHealthyBudget"']),
    ("a budget name with a slash", pdb(name="a/b"), ['metadata.name: Invalid value: "a/b": may not contain \'/\'']),
    # PersistentVolume
    ("a host path volume", pv(), []),
    ("a volume without access modes", pv(drop=["accessModes"]), ["spec.accessModes: Required value"]),
    ("an unknown access mode", pv({"accessModes": ["ReadWriteSometimes"]}),
     ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", '
      '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']),
    ("ReadWriteOncePod with another mode", pv({"accessModes": ["ReadWriteOncePod", "ReadWriteOnce"]}),
     ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"]),
    ("a volume without capacity", pv(drop=["capacity"]),
     ["spec.capacity: Required value",
      'spec.capacity: Unsupported value: core.ResourceList{}: supported values: "storage"']),
    ("a capacity of another resource", pv({"capacity": {"storage": "1Gi", "cpu": "1"}}),
     ['spec.capacity: Unsupported value: core.ResourceList{"cpu":1, "storage":1Gi}: supported values: "storage"']),
    ("a zero capacity", pv({"capacity": {"storage": "0"}}),
     ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']),
    ("an unknown reclaim policy", pv({"persistentVolumeReclaimPolicy": "Keep"}),
     ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", '
      '"Retain"']),
    ("a volume without a source", pv(drop=["hostPath"]), ["spec: Required value: must specify a volume type"]),
    ("a volume with two sources", pv({"nfs": {"server": "s", "path": "/x"}}),
     ["spec.nfs: Forbidden: may not specify more than 1 volume type"]),
    ("a host path without a path", pv({"hostPath": {}}), ["spec.hostPath.path: Required value"]),
    ("a local volume without node affinity", pv({"local": {"path": "/mnt"}}, drop=["hostPath"]),
     ["spec.nodeAffinity: Required value: Local volume requires node affinity"]),
    ("a node affinity without required terms", pv({"nodeAffinity": {"required": {"nodeSelectorTerms": []}}}),
     ["spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term"]),
    ("a recycled host path of /", pv({"hostPath": {"path": "/"}, "persistentVolumeReclaimPolicy": "Recycle"}),
     ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]),
    ("a bad storage class name", pv({"storageClassName": "Fast"}),
     ['spec.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case '
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ("an unknown volume mode", pv({"volumeMode": "Raw"}),
     ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']),
    ("a csi volume without driver or handle", pv({"csi": {}}, drop=["hostPath"]),
     ["spec.csi.driver: Required value", "spec.csi.volumeHandle: Required value"]),
    # PersistentVolumeClaim
    ("a claim", pvc(), []),
    ("a claim without access modes", pvc(drop=["accessModes"]),
     ["spec.accessModes: Required value: at least 1 access mode is required"]),
    ("a claim without a storage request", pvc({"resources": {}}), ["spec.resources[storage]: Required value"]),
    ("a claim for zero bytes", pvc({"resources": {"requests": {"storage": "0"}}}),
     ['spec.resources[storage]: Invalid value: "0": must be greater than zero']),
    ("a claim with an unknown volume mode", pvc({"volumeMode": "Raw"}),
     ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']),
    ("a data source of a core kind other than a claim", pvc({"dataSource": {"kind": "Pod", "name": "x"}}),
     ['spec.dataSource: Invalid value: "Pod": must be \'PersistentVolumeClaim\' when referencing the default '
      "apiGroup"]),
    # StorageClass
    ("a storage class", sc(), []),
    ("a storage class without provisioner", sc(provisioner=""), ["provisioner: Required value"]),
    ("an unknown reclaim policy for a class", sc(reclaimPolicy="Recycle"),
     ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']),
    ("an unknown binding mode", sc(volumeBindingMode="Later"),
     ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']),
    ("an empty parameter key", sc(parameters={"": "x"}), ['parameters: Invalid value: "": field can not be empty.']),
    ("an allowed topology without values", sc(allowedTopologies=[{"matchLabelExpressions": [{"key": "zone"}]}]),
     ["allowedTopologies[0].matchLabelExpressions[0].values: Required value"]),
    ("an allowed topology without expressions", sc(allowedTopologies=[{}]),
     ["allowedTopologies[0].matchLabelExpressions: Required value: must have at least one label selector"]),
    ("the same allowed topology twice", sc(allowedTopologies=[
        {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
        {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]),
     ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']),
    # CSINode
    ("a csi node", {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node01"},
                    "spec": {"drivers": [{"name": "d", "nodeID": "n"}]}}, []),
    ("a csi node driver without node id", {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                                           "metadata": {"name": "node01"}, "spec": {"drivers": [{"name": "d"}]}},
     ["spec.drivers[0].nodeID: Required value"]),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


# --- validation on update -----------------------------------------------------------------------

def _update(obj, mutate):
    old = created(obj)
    old["metadata"].update({"uid": "u", "creationTimestamp": "2026-11-22T10:00:00Z", "resourceVersion": "1"})
    new = copy.deepcopy(old)
    mutate(new)
    return new, old


def _set(path, value):
    def mutate(o):
        target = o
        for k in path[:-1]:
            target = target.setdefault(k, {})
        target[path[-1]] = value
    return mutate


def _bound_and(mutate):
    def both(o):
        mutate(o)
        o["status"] = {"phase": "Bound", "capacity": {"storage": "1Gi"}}
    return both


UPDATE = [
    ("a priority class value change", pc(), _set(["value"], 5),
     ["value: Forbidden: may not be changed in an update."]),
    ("a priority class preemption policy change", pc(), _set(["preemptionPolicy"], "Never"),
     ['preemptionPolicy: Invalid value: "Never": field is immutable']),
    ("a priority class description change", pc(), _set(["description"], "new"), []),
    ("a storage class provisioner change", sc(), _set(["provisioner"], "other.io/x"),
     ["provisioner: Forbidden: updates to provisioner are forbidden."]),
    ("a storage class parameters change", sc(), _set(["parameters"], {"type": "gp3"}),
     ["parameters: Forbidden: updates to parameters are forbidden."]),
    ("a storage class reclaim policy change", sc(), _set(["reclaimPolicy"], "Retain"),
     ["reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."]),
    ("a storage class binding mode change", sc(), _set(["volumeBindingMode"], "WaitForFirstConsumer"),
     ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable']),
    ("a storage class expansion change", sc(), _set(["allowVolumeExpansion"], True), []),
    ("a pending claim's storage request cannot change", pvc(), _set(["spec", "resources", "requests", "storage"], "2Gi"),
     ["spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
      "for bound claims\n  core.PersistentVolumeClaimSpec{\n"
      '- \tresources.requests.storage: "1Gi"\n+ \tresources.requests.storage: "2Gi"\n  }\n']),
    ("a bound claim's storage request grows", pvc({"volumeName": "pv1"}), _bound_and(
        _set(["spec", "resources", "requests", "storage"], "2Gi")), []),
    ("a bound claim's storage request shrinks to its capacity", pvc({"volumeName": "pv1"}), _bound_and(
        _set(["spec", "resources", "requests", "storage"], "500Mi")),
     ["spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"]),
    ("a claim's access modes change", pvc(), _set(["spec", "accessModes"], ["ReadWriteMany"]),
     ["spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
      "for bound claims\n  core.PersistentVolumeClaimSpec{\n"
      '- \taccessModes[0]: "ReadWriteOnce"\n+ \taccessModes[0]: "ReadWriteMany"\n  }\n']),
    ("a claim's volume mode changes", pvc(), _set(["spec", "volumeMode"], "Block"),
     ["spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
      "for bound claims\n  core.PersistentVolumeClaimSpec{\n"
      '- \tvolumeMode: "Filesystem"\n+ \tvolumeMode: "Block"\n  }\n',
      'volumeMode: Invalid value: "Block": field is immutable']),
    ("a claim gets its volume name once", pvc(), _set(["spec", "volumeName"], "pv1"), []),
    ("a claim without a class gets one", pvc(), _set(["spec", "storageClassName"], "standard"), []),
    ("a volume's source changes", pv(), _set(["spec", "hostPath", "path"], "/other"),
     ["spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n"
      "  core.PersistentVolumeSource{\n"
      '- \thostPath.path: "/data"\n+ \thostPath.path: "/other"\n  }\n']),
    ("a volume's capacity grows", pv(), _set(["spec", "capacity", "storage"], "2Gi"), []),
    ("a volume's mode changes", pv(), _set(["spec", "volumeMode"], "Block"),
     ['volumeMode: Invalid value: "Block": field is immutable']),
    ("a budget's spec changes", pdb(), _set(["spec", "minAvailable"], 2), []),
    ("a budget's spec becomes invalid", pdb(), _set(["spec", "maxUnavailable"], "x"),
     ["spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000a1c010), "
      "Selector:(*v1.LabelSelector)(0xc000a1c030), MaxUnavailable:(*intstr.IntOrString)(0xc000a1c020), "
      "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: "
      "minAvailable and maxUnavailable cannot be both set",
      "spec.maxUnavailable: Invalid value: \"x\": must be an integer or percentage (e.g '5%')"]),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    new, old = _update(obj, mutate)
    if new.get("status", {}).get("phase") == "Bound":
        old["status"] = copy.deepcopy(new["status"])  # status is the status subresource's: set on both
    assert errors_of(new, old) == expected
