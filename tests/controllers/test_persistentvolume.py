"""The PV controller and the protection controllers, driven through ``sync(view)``: binding
(pv_controller_test.go / binder_test.go's controller side), WaitForFirstConsumer, the simulated
external provisioner, reclaim policies, and pvc/pv protection."""

import copy

import pytest

from kubesim.api import volumes as V
from kubesim.clock import parse_time
from kubesim.controllers import persistentvolume, volumeprotection
from kubesim.controllers.base import View

T0 = parse_time("2026-11-22T10:00:00Z")
KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "Pod", "Node")


def sc(name, provisioner="kubernetes.io/no-provisioner", mode="Immediate", reclaim="Delete", topologies=None):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
           "provisioner": provisioner, "volumeBindingMode": mode, "reclaimPolicy": reclaim}
    if topologies:
        obj["allowedTopologies"] = topologies
    return obj


def pv(name, size="5Gi", cls="", reclaim="Retain", claim=None, phase="Available", hostnames=None,
       annotations=None, finalizers=None):
    obj = {"apiVersion": "v1", "kind": "PersistentVolume",
           "metadata": {"name": name, "uid": f"uid-{name}", "annotations": dict(annotations or {})},
           "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                    "persistentVolumeReclaimPolicy": reclaim, "local": {"path": "/mnt"}},
           "status": {"phase": phase}}
    if cls:
        obj["spec"]["storageClassName"] = cls
    if claim is not None:
        obj["spec"]["claimRef"] = claim
    if hostnames:
        obj["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": hostnames}]}]}}
    if finalizers:
        obj["metadata"]["finalizers"] = list(finalizers)
    return obj


def pvc(name="data", size="1Gi", cls=None, volume_name=None, annotations=None, uid=None, finalizers=None):
    obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": "default", "uid": uid or f"uid-{name}",
                        "resourceVersion": "7", "annotations": dict(annotations or {})},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}},
                    "volumeMode": "Filesystem"},
           "status": {"phase": "Pending"}}
    if cls is not None:
        obj["spec"]["storageClassName"] = cls
    if volume_name:
        obj["spec"]["volumeName"] = volume_name
    if finalizers:
        obj["metadata"]["finalizers"] = list(finalizers)
    return obj


def node(name, **labels):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}}}


class World:
    """Applies controller changes to a dict store, as the engine does, and records events."""

    def __init__(self, *objs):
        self.objs = {}
        self.events = []
        for o in objs:
            self.objs[self.key(o)] = copy.deepcopy(o)

    @staticmethod
    def key(o):
        return (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])

    def get(self, kind, name, ns=""):
        return self.objs.get((kind, ns, name))

    def view(self, recorded=None):
        v = View({k: [o for kk, o in sorted(self.objs.items()) if kk[0] == k] for k in KINDS}, T0)
        v.recorded_events = set(recorded or ())
        return v

    def run(self, sync=persistentvolume.sync, recorded=None):
        changes = sync(self.view(recorded))
        for ch in changes:
            k = ch.key
            if ch.op == "create":
                obj = copy.deepcopy(ch.obj)
                obj["metadata"].setdefault("uid", "uid-" + obj["metadata"]["name"])
                obj.pop("status", None)
                self.objs[k] = obj
            elif ch.op == "update":
                self.objs[k] = copy.deepcopy(ch.obj)
            elif ch.op == "update_status":
                self.objs[k]["status"] = copy.deepcopy(ch.obj["status"])
            elif ch.op == "delete":
                if self.objs[k]["metadata"].get("finalizers"):
                    self.objs[k]["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
                else:
                    del self.objs[k]
            self.events += [(e.obj["metadata"]["name"], e.type, e.reason, e.message, e.component)
                            for e in ch.events]
        return changes

    def settle(self, sync=persistentvolume.sync):
        for _ in range(10):
            recorded = {(k, "", n, r, m) for n, _, r, m, _ in self.events for k in ("PersistentVolume",)}
            recorded |= {("PersistentVolumeClaim", "default", n, r, m) for n, _, r, m, _ in self.events}
            if not self.run(sync, recorded):
                return


def phase(obj):
    return (obj.get("status") or {}).get("phase")


def test_an_immediate_claim_binds_the_smallest_available_volume_both_ways():
    w = World(pvc(size="3Gi"), pv("big", "10Gi"), pv("small", "5Gi"), pv("tiny", "1Gi"))
    w.settle()
    claim, vol = w.get("PersistentVolumeClaim", "data", "default"), w.get("PersistentVolume", "small")
    assert claim["spec"]["volumeName"] == "small"
    assert claim["metadata"]["annotations"] == {V.ANN_BIND_COMPLETED: "yes", V.ANN_BOUND_BY_CONTROLLER: "yes"}
    assert claim["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"}}
    assert vol["spec"]["claimRef"] == {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": "data",
                                       "namespace": "default", "resourceVersion": "7", "uid": "uid-data"}
    assert vol["metadata"]["annotations"] == {V.ANN_BOUND_BY_CONTROLLER: "yes"}
    assert phase(vol) == "Bound" and vol["status"]["lastPhaseTransitionTime"] == "2026-11-22T10:00:00Z"
    assert phase(w.get("PersistentVolume", "big")) == "Available"
    assert w.events == []


def test_a_claim_pre_bound_by_name_binds_without_bound_by_controller():
    w = World(pvc(volume_name="chosen"), pv("chosen", "5Gi"), pv("other", "1Gi"))
    w.settle()
    claim = w.get("PersistentVolumeClaim", "data", "default")
    assert claim["spec"]["volumeName"] == "chosen" and phase(claim) == "Bound"
    assert claim["metadata"]["annotations"] == {V.ANN_BIND_COMPLETED: "yes"}


def test_a_claim_pre_bound_to_a_volume_of_another_claim_fails_binding():
    w = World(pvc(volume_name="taken"),
              pv("taken", claim={"name": "x", "namespace": "default", "uid": "uid-x"}, phase="Bound"))
    w.settle()
    assert ("data", "Warning", "FailedBinding", 'volume "taken" already bound to a different claim.',
            "persistentvolume-controller") in w.events
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Pending"


def test_a_pre_bound_claim_too_big_for_its_volume_is_a_mismatch():
    w = World(pvc(size="10Gi", volume_name="small"), pv("small", "5Gi"))
    w.settle()
    assert ("data", "Warning", "VolumeMismatch", 'Cannot bind to requested volume "small": requested PV is too small',
            "persistentvolume-controller") in w.events


def _marked(obj, **spec):
    obj["spec"].update(spec)
    return obj


def _deleting(obj):
    obj["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    return obj


# pv_controller.go checkVolumeSatisfyClaim, in its order
SATISFY_CASES = [
    pytest.param(pvc(volume_name="vol"), _deleting(pv("vol")), 'the volume is marked for deletion "vol"',
                 id="a volume being deleted"),
    pytest.param(pvc(size="10Gi", volume_name="vol"), pv("vol", "5Gi"), "requested PV is too small",
                 id="a volume too small"),
    pytest.param(pvc(cls="fast", volume_name="vol"), pv("vol"), "storageClassName does not match",
                 id="another storage class"),
    pytest.param(_marked(pvc(volume_name="vol"), volumeAttributesClassName="gold"), pv("vol"),
                 "volumeAttributesClassName does not match", id="another volume attributes class"),
    pytest.param(_marked(pvc(volume_name="vol"), volumeMode="Block"), pv("vol"), "incompatible volumeMode",
                 id="another volume mode"),
    pytest.param(_marked(pvc(volume_name="vol"), accessModes=["ReadWriteMany"]), pv("vol"),
                 "incompatible accessMode", id="an access mode the volume lacks"),
]


@pytest.mark.parametrize("claim, volume, problem", SATISFY_CASES)
def test_a_pre_bound_claim_that_its_volume_cannot_satisfy(claim, volume, problem):
    w = World(claim, volume)
    w.settle()
    assert ("data", "Warning", "VolumeMismatch", f'Cannot bind to requested volume "vol": {problem}',
            "persistentvolume-controller") in w.events
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Pending"


def test_a_claim_without_class_or_volume_fails_binding_once():
    w = World(pvc())
    w.settle()
    assert w.events == [("data", "Normal", "FailedBinding",
                         "no persistent volumes available for this claim and no storage class is set",
                         "persistentvolume-controller")]
    assert not w.run(recorded={("PersistentVolumeClaim", "default", "data", "FailedBinding",
                                "no persistent volumes available for this claim and no storage class is set")})


def test_a_wait_for_first_consumer_claim_waits_even_with_a_matching_volume():
    w = World(sc("local", mode="WaitForFirstConsumer"), pvc(cls="local"), pv("local-1", cls="local"))
    w.settle()
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Pending"
    assert phase(w.get("PersistentVolume", "local-1")) == "Available"
    assert w.events == [("data", "Normal", "WaitForFirstConsumer",
                         "waiting for first consumer to be created before binding", "persistentvolume-controller")]


def test_a_wait_for_first_consumer_claim_binds_the_volume_the_scheduler_pre_bound():
    claim = pvc(cls="local")
    vol, _ = V.bind_volume_to_claim(pv("local-1", cls="local", hostnames=["node02"]), claim)
    w = World(sc("local", mode="WaitForFirstConsumer"), claim, vol)
    w.settle()
    assert w.get("PersistentVolumeClaim", "data", "default")["spec"]["volumeName"] == "local-1"
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Bound"
    assert phase(w.get("PersistentVolume", "local-1")) == "Bound"
    assert w.events == []


PROVISIONING_CASES = [
    pytest.param(sc("standard", "rancher.io/local-path", "WaitForFirstConsumer"),
                 {V.ANN_SELECTED_NODE: "node02"},
                 [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node02"]}]}],
                 {"hostPath": {"path": "/var/lib/kubesim/volumes/pvc-uid-data", "type": "DirectoryOrCreate"}},
                 id="a WaitForFirstConsumer claim is provisioned on the node the scheduler selected"),
    pytest.param(sc("zonal", "ebs.csi.aws.com", "Immediate", topologies=[{"matchLabelExpressions": [
        {"key": "topology.kubernetes.io/zone", "values": ["us-east-1a", "us-east-1b"]}]}]), {},
                 [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                         "values": ["us-east-1a", "us-east-1b"]}]}],
                 {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "pvc-uid-data"}},
                 id="an Immediate claim is provisioned at once with the class's allowed topologies"),
    pytest.param(sc("zonal", "ebs.csi.aws.com", "WaitForFirstConsumer", topologies=[{"matchLabelExpressions": [
        {"key": "topology.kubernetes.io/zone", "values": ["us-east-1a", "us-east-1b"]}]}]),
                 {V.ANN_SELECTED_NODE: "node02"},
                 [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                         "values": ["us-east-1b"]}]}],
                 {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "pvc-uid-data"}},
                 id="allowed topologies are narrowed to the selected node's zone"),
    pytest.param(sc("net", "nfs.csi.k8s.io", "Immediate"), {}, None,
                 {"csi": {"driver": "nfs.csi.k8s.io", "volumeHandle": "pvc-uid-data"}},
                 id="an Immediate claim without topologies gets a volume without node affinity"),
]


@pytest.mark.parametrize("cls, annotations, terms, source", PROVISIONING_CASES)
def test_the_simulated_provisioner(cls, annotations, terms, source):
    name = cls["metadata"]["name"]
    w = World(cls, pvc(size="2Gi", cls=name, annotations=annotations), node("node01"),
              node("node02", **{"topology.kubernetes.io/zone": "us-east-1b"}))
    w.settle()
    vol = w.get("PersistentVolume", "pvc-uid-data")
    claim = w.get("PersistentVolumeClaim", "data", "default")
    assert claim["spec"]["volumeName"] == "pvc-uid-data" and phase(claim) == "Bound"
    assert claim["metadata"]["annotations"][V.ANN_STORAGE_PROVISIONER] == cls["provisioner"]
    assert phase(vol) == "Bound"
    assert vol["metadata"]["annotations"] == {V.ANN_DYNAMICALLY_PROVISIONED: cls["provisioner"]}
    assert vol["spec"]["capacity"] == {"storage": "2Gi"}
    assert vol["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert vol["spec"]["claimRef"]["uid"] == "uid-data"
    assert vol["spec"].get("nodeAffinity") == ({"required": {"nodeSelectorTerms": terms}} if terms else None)
    assert {k: vol["spec"][k] for k in source} == source
    ident = cls["provisioner"] + "_kubesim"
    assert [e[2:] for e in w.events] == [
        ("ExternalProvisioning", persistentvolume.EXTERNAL_PROVISIONING.format(cls["provisioner"]),
         "persistentvolume-controller"),
        ("Provisioning", 'External provisioner is provisioning volume for claim "default/data"', ident),
        ("ProvisioningSucceeded", "Successfully provisioned volume pvc-uid-data", ident)]


def test_no_provisioner_cannot_provision_an_immediate_claim():
    w = World(sc("local"), pvc(cls="local"))
    w.settle()
    assert w.events == [("data", "Warning", "ProvisioningFailed",
                         "no volume plugin matched name: kubernetes.io/no-provisioner", "persistentvolume-controller")]


def test_a_class_that_does_not_exist_cannot_provision():
    w = World(pvc(cls="missing"))
    w.settle()
    assert w.events[0][2:4] == ("ProvisioningFailed", 'storageclass.storage.k8s.io "missing" not found')


def bound_pair(reclaim, provisioned=False, host_path=None):
    ann = {V.ANN_BOUND_BY_CONTROLLER: "yes"}
    if provisioned:
        ann[V.ANN_DYNAMICALLY_PROVISIONED] = "ebs.csi.aws.com"
    vol = pv("vol", reclaim=reclaim, phase="Bound", annotations=ann,
             claim={"kind": "PersistentVolumeClaim", "name": "data", "namespace": "default", "uid": "uid-data"})
    if host_path is not None:
        del vol["spec"]["local"]
        vol["spec"]["hostPath"] = {"path": host_path}
    return vol


RECLAIM_CASES = [
    pytest.param("Retain", False, "Released", [], id="Retain keeps a released volume"),
    pytest.param("Delete", True, None, [], id="Delete removes a provisioned volume"),
    pytest.param("Delete", False, "Failed",
                 [("vol", "Warning", "VolumeFailedDelete",
                   'error getting deleter volume plugin for volume "vol": no deletable volume plugin matched',
                   "persistentvolume-controller")],
                 id="Delete fails for a static volume without a deleter"),
]

# host_path.go hostPathDeleter.Delete: only paths matching /tmp/.+ (unanchored) are deleted
HOST_PATH_RECLAIM_CASES = [
    pytest.param("/tmp/data", None, None, [], id="Delete removes a hostPath volume under /tmp"),
    pytest.param("/srv/tmp/x", None, None, [], id="the /tmp/.+ pattern is not anchored"),
    pytest.param("/data/pv", "Failed", "host_path deleter only supports /tmp/.+ but received provided /data/pv",
                 [("vol", "Warning", "VolumeFailedDelete",
                   "host_path deleter only supports /tmp/.+ but received provided /data/pv",
                   "persistentvolume-controller")],
                 id="Delete fails for a hostPath volume elsewhere, with the deleter's message"),
]


@pytest.mark.parametrize("reclaim, provisioned, want_phase, events", RECLAIM_CASES)
def test_reclaim_when_the_claim_is_gone(reclaim, provisioned, want_phase, events):
    w = World(bound_pair(reclaim, provisioned))
    w.settle()
    vol = w.get("PersistentVolume", "vol")
    assert (phase(vol) if vol else None) == want_phase
    assert w.events == events


@pytest.mark.parametrize("path, want_phase, message, events", HOST_PATH_RECLAIM_CASES)
def test_reclaim_of_a_static_host_path_volume(path, want_phase, message, events):
    w = World(bound_pair("Delete", host_path=path))
    w.settle()
    vol = w.get("PersistentVolume", "vol")
    assert (phase(vol) if vol else None) == want_phase
    assert (vol["status"].get("message") if vol else None) == message
    assert w.events == events


def test_a_claim_recreated_with_the_same_name_does_not_inherit_the_released_volume():
    w = World(bound_pair("Retain"), pvc(uid="uid-new"))
    w.settle()
    assert phase(w.get("PersistentVolume", "vol")) == "Released"
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Pending"


def test_a_bound_claim_whose_volume_is_gone_is_lost():
    w = World(pvc(volume_name="gone", annotations={V.ANN_BIND_COMPLETED: "yes"}))
    w.settle()
    assert phase(w.get("PersistentVolumeClaim", "data", "default")) == "Lost"
    assert w.events == [("data", "Warning", "ClaimLost",
                         "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!",
                         "persistentvolume-controller")]


def test_a_new_volume_becomes_available():
    w = World(pv("fresh", phase="Pending"))
    w.settle()
    assert phase(w.get("PersistentVolume", "fresh")) == "Available"


def pod(name, claim, node_name="node01", phase_="Running"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "nginx"}],
                     "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": phase_}}


def terminating(obj):
    obj["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    return obj


PROTECTION_CASES = [
    pytest.param([pod("web", "data")], True, id="a claim a scheduled pod uses stays"),
    pytest.param([pod("web", "data", node_name="")], False, id="an unscheduled pod does not protect the claim"),
    pytest.param([pod("web", "other")], False, id="a pod using another claim does not protect it"),
    pytest.param([pod("web", "data", phase_="Succeeded")], True,
                 id="a finished pod still holds a persistentVolumeClaim volume"),
    pytest.param([], False, id="an unused claim goes"),
]


def ephemeral_pod(phase_="Running", owner_uid="uid-web", deleted_grace=None):
    """Pod web whose generic ephemeral volume v is claim web-v (podIsShutDown: deleted with a
    zero grace period)."""
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "web", "namespace": "default", "uid": "uid-web"},
         "spec": {"nodeName": "node01", "containers": [{"name": "c", "image": "nginx"}],
                  "volumes": [{"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]},
         "status": {"phase": phase_}}
    if deleted_grace is not None:
        p["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
        p["metadata"]["deletionGracePeriodSeconds"] = deleted_grace
    return p, owner_uid


EPHEMERAL_PROTECTION_CASES = [
    pytest.param(ephemeral_pod(), True, id="a running pod holds its ephemeral claim"),
    pytest.param(ephemeral_pod(phase_="Succeeded"), True,
                 id="a finished pod not yet deleted still holds its ephemeral claim"),
    pytest.param(ephemeral_pod(deleted_grace=30), True, id="a pod terminating gracefully still holds it"),
    pytest.param(ephemeral_pod(deleted_grace=0), False, id="a pod deleted with zero grace is shut down"),
    pytest.param(ephemeral_pod(owner_uid="uid-someone-else"), False,
                 id="a claim of that name the pod does not own is not its ephemeral claim"),
]


@pytest.mark.parametrize("pod_and_owner, stays", EPHEMERAL_PROTECTION_CASES)
def test_pvc_protection_of_a_generic_ephemeral_claim(pod_and_owner, stays):
    """pvc_protection_controller.go podUsesPVC with podIsShutDown and ephemeral.VolumeIsForPod."""
    p, owner = pod_and_owner
    claim = terminating(pvc("web-v", finalizers=[V.PVC_PROTECTION_FINALIZER]))
    claim["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": owner,
                                             "controller": True}]
    w = World(claim, p)
    w.run(volumeprotection.sync)
    assert (w.get("PersistentVolumeClaim", "web-v", "default") is not None) is stays


@pytest.mark.parametrize("pods, stays", PROTECTION_CASES)
def test_pvc_protection(pods, stays):
    w = World(terminating(pvc(finalizers=[V.PVC_PROTECTION_FINALIZER])), *pods)
    w.run(volumeprotection.sync)
    assert (w.get("PersistentVolumeClaim", "data", "default") is not None) is stays


@pytest.mark.parametrize("vol_phase, stays", [
    pytest.param("Bound", True, id="a bound volume stays"),
    pytest.param("Released", False, id="a released volume goes"),
    pytest.param("Available", False, id="an available volume goes"),
])
def test_pv_protection(vol_phase, stays):
    w = World(terminating(pv("vol", phase=vol_phase, finalizers=[V.PV_PROTECTION_FINALIZER, "other/keep"])))
    w.run(volumeprotection.sync)
    vol = w.get("PersistentVolume", "vol")
    assert vol["metadata"]["finalizers"] == ([V.PV_PROTECTION_FINALIZER, "other/keep"] if stays else ["other/keep"])
