"""VolumeBinding: mirrors upstream volume_binding_test.go (TestVolumeBinding: PreFilter and
Filter statuses per node) and binder_test.go (FindPodVolumes: bound claims' node affinity,
unbound WaitForFirstConsumer claims matching or provisioning, allowedTopologies; AssumePodVolumes
/ RevertAssumedPodVolumes / bindAPIUpdate), with kubesim's Handle.request for the API updates."""

import pytest

from kubesim.api import volumes as V
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.status import Code
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.volumebinding import (ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT,
                                                     ERR_REASON_PV_NOT_EXIST, ERR_UNBOUND_IMMEDIATE,
                                                     VolumeBinding)

from kubesim.testing.wrappers import make_node, make_pod
from .volume_builders import Store, claim_volume, pv, pvc, sc

IMMEDIATE = sc("immediate-sc", mode="Immediate")
WAIT = sc("wait-sc")
PROVISION = sc("wait-provisioned-sc", provisioner="ebs.csi.aws.com")
TOPOLOGY = sc("wait-topology-sc", provisioner="ebs.csi.aws.com", topologies=[
    {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-a"]}]}])
CLASSES = (IMMEDIATE, WAIT, PROVISION, TOPOLOGY)

NODES = [make_node("node-a").zone("zone-a").obj(), make_node("node-b").zone("zone-b").obj()]


def run(pod_claims, objs):
    """PreFilter, then Filter on each node: (prefilter status, {node: filter status})."""
    store = Store(*CLASSES, *objs)
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), *pod_claims))
    state = CycleState()
    _, s = plugin.pre_filter(state, pod, [NodeInfo(n) for n in NODES])
    if s is not None:
        return (s.code.name, s.message()), None
    return None, {n["metadata"]["name"]: (lambda st: None if st is None else (st.code.name, st.reasons))(
        plugin.filter(state, pod, NodeInfo(n))) for n in NODES}


CASES = [
    pytest.param([], [], ("Skip", ""), None, id="pod has no claims: skip"),
    pytest.param(["pvc-a"], [pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a", hostnames=["node-a"])],
                 None, {"node-a": None, "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_NODE_CONFLICT])},
                 id="all bound: only the node the bound volume admits fits"),
    pytest.param(["pvc-a"], [pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a")],
                 None, {"node-a": None, "node-b": None},
                 id="all bound to a volume without node affinity: every node fits"),
    pytest.param(["pvc-a"], [],
                 ("UnschedulableAndUnresolvable", 'persistentvolumeclaim "pvc-a" not found'), None,
                 id="a claim that does not exist"),
    pytest.param(["pvc-a", "pvc-b"], [pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a")],
                 ("UnschedulableAndUnresolvable", 'persistentvolumeclaim "pvc-b" not found'), None,
                 id="part of the claims do not exist"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="immediate-sc")],
                 ("UnschedulableAndUnresolvable", ERR_UNBOUND_IMMEDIATE), None,
                 id="an immediate claim not bound yet"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-sc", volume_name="pv-a")],
                 ("UnschedulableAndUnresolvable", ERR_UNBOUND_IMMEDIATE), None,
                 id="a claim pre-bound by name but not bound is treated as immediate"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-sc")],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])},
                 id="unbound claim with no matching volume and no provisioner"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-sc"), pv("pv-a", cls="wait-sc", hostnames=["node-b"])],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]), "node-b": None},
                 id="unbound claim matches a local volume on one node"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-sc", size="10Gi"), pv("pv-a", cls="wait-sc", size="5Gi")],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])},
                 id="unbound claim larger than every volume"),
    pytest.param(["pvc-a", "pvc-b"],
                 [pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a", hostnames=["node-a"]),
                  pvc("pvc-b", cls="wait-sc"), pv("pv-b", cls="wait-sc", hostnames=["node-b"])],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_NODE_CONFLICT])},
                 id="bound and unbound claims each rule out a node"),
    pytest.param(["pvc-a", "pvc-b"],
                 [pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a", hostnames=["node-a"]),
                  pvc("pvc-b", cls="wait-sc")],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_NODE_CONFLICT,
                                                                     ERR_REASON_BIND_CONFLICT])},
                 id="bound and unbound claims both unsatisfied give both reasons"),
    pytest.param(["pvc-a", "pvc-b"],
                 [pvc("pvc-a", cls="wait-sc"), pvc("pvc-b", cls="wait-sc"),
                  pv("pv-a", cls="wait-sc", hostnames=["node-a"])],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])},
                 id="two claims cannot share one volume"),
    pytest.param(["pvc-a"], [pvc("pvc-a", volume_name="pv-a", bound=True)],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_PV_NOT_EXIST]),
                        "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_PV_NOT_EXIST])},
                 id="a claim bound to a volume that does not exist"),
    pytest.param(["pvc-a"], [pvc("pvc-a", volume_name="pv-a", bound=True, phase="Lost")],
                 ("UnschedulableAndUnresolvable",
                  'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'), None,
                 id="a lost claim"),
    pytest.param(["pvc-a"], [pvc("pvc-a", volume_name="pv-a", bound=True, deleting=True), pv("pv-a")],
                 ("UnschedulableAndUnresolvable", 'persistentvolumeclaim "pvc-a" is being deleted'), None,
                 id="a claim being deleted"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-provisioned-sc")],
                 None, {"node-a": None, "node-b": None},
                 id="an unbound claim of a class with a provisioner can be provisioned anywhere"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-topology-sc")],
                 None, {"node-a": None, "node-b": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])},
                 id="provisioning is limited to the class's allowed topologies"),
    pytest.param(["pvc-a"], [pvc("pvc-a", cls="wait-provisioned-sc", annotations={V.ANN_SELECTED_NODE: "node-b"})],
                 None, {"node-a": ("UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT]), "node-b": None},
                 id="a claim already being provisioned for a node fits only that node"),
]


@pytest.mark.parametrize("claims, objs, want_pre, want_filter", CASES)
def test_volume_binding(claims, objs, want_pre, want_filter):
    pre, filt = run(claims, objs)
    assert pre == want_pre
    assert filt == want_filter


def test_prescore_skips_without_storage_capacity_scoring():
    store = Store(*CLASSES, pvc("pvc-a", cls="wait-provisioned-sc"))
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    assert plugin.pre_score(CycleState(), pod, []).code == Code.Skip


def cycle(plugin, pod, node_name):
    state = CycleState()
    _, s = plugin.pre_filter(state, pod, [NodeInfo(n) for n in NODES])
    assert s is None
    node = next(n for n in NODES if n["metadata"]["name"] == node_name)
    assert plugin.filter(state, pod, NodeInfo(node)) is None
    assert plugin.reserve(state, pod, node_name) is None
    return state


def test_reserve_assumes_the_volume_so_the_next_pod_cannot_take_it_and_prebind_asks_for_the_update():
    store = Store(*CLASSES, pvc("pvc-a", cls="wait-sc"), pvc("pvc-b", cls="wait-sc"),
                  pv("pv-1", cls="wait-sc", hostnames=["node-a"]))
    plugin = VolumeBinding(handle=store.handle(NODES))
    first = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    state = cycle(plugin, first, "node-a")
    assert plugin.assumed_pvs["pv-1"]["spec"]["claimRef"]["name"] == "pvc-a"
    # the second pod's claim finds no volume any more
    second = PodInfo(claim_volume(make_pod("pod-b").obj(), "pvc-b"))
    st2 = CycleState()
    plugin.pre_filter(st2, second, [])
    s = plugin.filter(st2, second, NodeInfo(NODES[0]))
    assert (s.code, s.reasons) == (Code.UnschedulableAndUnresolvable, [ERR_REASON_BIND_CONFLICT])
    # PreBind: the PV update with claimRef and bound-by-controller
    assert plugin.pre_bind(state, first, "node-a") is None
    [w] = plugin.handle.writes
    assert w["op"] == "update" and w["obj"]["metadata"]["name"] == "pv-1"
    assert w["obj"]["spec"]["claimRef"]["uid"] == "uid-pvc-a"
    assert w["obj"]["metadata"]["annotations"] == {V.ANN_BOUND_BY_CONTROLLER: "yes"}


def test_unreserve_gives_the_assumed_volume_back():
    store = Store(*CLASSES, pvc("pvc-a", cls="wait-sc"), pv("pv-1", cls="wait-sc"))
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    state = cycle(plugin, pod, "node-a")
    plugin.unreserve(state, pod, "node-a")
    assert plugin.assumed_pvs == {}


def test_provisioning_sets_the_selected_node_on_the_claim():
    store = Store(*CLASSES, pvc("pvc-a", cls="wait-provisioned-sc"))
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    state = cycle(plugin, pod, "node-b")
    assert plugin.pre_bind(state, pod, "node-b") is None
    [w] = plugin.handle.writes
    assert w["obj"]["kind"] == "PersistentVolumeClaim"
    assert w["obj"]["metadata"]["annotations"] == {V.ANN_SELECTED_NODE: "node-b"}


def test_all_bound_claims_need_no_prebind():
    store = Store(*CLASSES, pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a"))
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    state = cycle(plugin, pod, "node-a")
    assert plugin.pre_bind(state, pod, "node-a") is None
    assert plugin.handle.writes == []


@pytest.mark.parametrize("objs", [
    pytest.param([pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a", hostnames=["node-b"])],
                 id="a bound local volume"),
    pytest.param([pvc("pvc-a", volume_name="pv-a", bound=True), pv("pv-a")],
                 id="a bound volume without node affinity"),
    pytest.param([pvc("pvc-a", cls="wait-sc"), pv("pv-a", cls="wait-sc", hostnames=["node-b"])],
                 id="an unbound claim"),
])
def test_pre_filter_never_narrows_the_nodes(objs):
    # v1.35's PreFilter returns no PreFilterResult (there is no GetEligibleNodes any more): the
    # node a local volume is pinned to is Filter's verdict, a volume node affinity conflict
    store = Store(*CLASSES, *objs)
    plugin = VolumeBinding(handle=store.handle(NODES))
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    res, s = plugin.pre_filter(CycleState(), pod, [NodeInfo(n) for n in NODES])
    assert (res, s) == (None, None)


def _owned_by(claim, uid, controller=True):
    claim["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "pod-a", "uid": uid,
                                             "controller": controller}]
    return claim


EPHEMERAL_CASES = [
    pytest.param(None, ("UnschedulableAndUnresolvable",
                        'waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-scratch"'),
                 id="the ephemeral volume controller has not created the claim yet"),
    pytest.param(_owned_by(pvc("pod-a-scratch", cls="wait-provisioned-sc"), "uid-pod-a"), None,
                 id="the claim the pod controls is used"),
    pytest.param(pvc("pod-a-scratch", cls="wait-provisioned-sc"),
                 ("UnschedulableAndUnresolvable", "PVC default/pod-a-scratch was not created for pod default/pod-a "
                                                  "(pod is not owner)"),
                 id="a claim of that name made by someone else is refused"),
    pytest.param(_owned_by(pvc("pod-a-scratch", cls="wait-provisioned-sc"), "uid-pod-a", controller=False),
                 ("UnschedulableAndUnresolvable", "PVC default/pod-a-scratch was not created for pod default/pod-a "
                                                  "(pod is not owner)"),
                 id="an owner reference that is not the controller does not count"),
]


@pytest.mark.parametrize("claim, want", EPHEMERAL_CASES)
def test_a_generic_ephemeral_volume_needs_the_claim_its_pod_controls(claim, want):
    """volume_binding.go podHasPVCs with ephemeral.VolumeIsForPod."""
    store = Store(*CLASSES, *([claim] if claim else []))
    plugin = VolumeBinding(handle=store.handle(NODES))
    raw = make_pod("pod-a").uid("uid-pod-a").obj()
    raw["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]
    _, s = plugin.pre_filter(CycleState(), PodInfo(raw), [NodeInfo(n) for n in NODES])
    assert (None if s is None else (s.code.name, s.message())) == want


# -- queueing hints (volume_binding_test.go TestIsSchedulableAfterCSINodeChange,
#    TestIsSchedulableAfterPersistentVolumeClaimChange, TestIsSchedulableAfterStorageClassChange,
#    TestIsSchedulableAfterCSIStorageCapacityChange, TestIsSchedulableAfterCSIDriverChange) ---
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402
from kubesim.scheduler.plugins.volumebinding import (  # noqa: E402
    MIGRATED_PLUGINS_ANNOTATION,
)
from kubesim.scheduler.plugins.volumebinding import VolumeBinding as _VB  # noqa: E402


def _csinode(migrated=None):
    md = {"name": "csinode-a"}
    if migrated is not None:
        md["annotations"] = {MIGRATED_PLUGINS_ANNOTATION: migrated}
    return {"kind": "CSINode", "metadata": md}


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, _csinode(), QUEUE, id="CSINode is newly created"),
    pytest.param(_csinode("test1"), _csinode("test1, test2"), QUEUE,
                 id="CSINode's migrated-plugins annotations is added"),
    pytest.param(_csinode("test1"), _csinode("test2"), QUEUE,
                 id="CSINode's migrated-plugins annotation is updated"),
    pytest.param(_csinode("test1"), _csinode("test1"), QUEUE_SKIP,
                 id="CSINode is updated but migrated-plugins annotation gets unchanged"),
])
def test_is_schedulable_after_csi_node_change(old, new, want):
    assert _VB().is_schedulable_after_csi_node_change(make_pod("pod-a").obj(), old, new) == want


def _vb_pod(*volumes, namespace="default"):
    p = make_pod("pod-a", namespace).obj()
    p["spec"]["volumes"] = list(volumes)
    return p


def _pvc_vol(claim):
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def _eph(name):
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


@pytest.mark.parametrize("pod, new, want", [
    pytest.param(_vb_pod({"name": "e", "emptyDir": {}}), pvc("pvc-b", "sc-a"), QUEUE_SKIP,
                 id="pod has no pvc or ephemeral volumes"),
    pytest.param(_vb_pod(_pvc_vol("pvc-a"), _pvc_vol("pvc-b"), namespace="ns-a"), pvc("pvc-b"),
                 QUEUE_SKIP, id="pvc with the same name in a different namespace is modified"),
    pytest.param(_vb_pod(_pvc_vol("pvc-a"), _pvc_vol("pvc-c")), pvc("pvc-b"), QUEUE_SKIP,
                 id="pod has no pvc that is being modified"),
    pytest.param(_vb_pod(_eph("ephemeral-a"), _eph("ephemeral-c")), pvc("pod-a-ephemeral-b"),
                 QUEUE_SKIP, id="pod has no generic ephemeral volume that is being modified"),
    pytest.param(_vb_pod(_pvc_vol("pvc-a"), _pvc_vol("pvc-b")), pvc("pvc-b"), QUEUE,
                 id="pod has the pvc that is being modified"),
    pytest.param(_vb_pod(_eph("ephemeral-a"), _eph("ephemeral-b")), pvc("pod-a-ephemeral-b"),
                 QUEUE, id="pod has the generic ephemeral volume that is being modified"),
])
def test_is_schedulable_after_persistent_volume_claim_change(pod, new, want):
    assert _VB().is_schedulable_after_persistent_volume_claim_change(pod, new, new) == want


_TOPOLOGY = [{"matchLabelExpressions": [{"key": "kubernetes.io/hostname",
                                         "values": ["node-a"]}]}]


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, sc("sc-a"), QUEUE, id="When a new StorageClass is created, it returns Queue"),
    pytest.param(sc("sc-a"), sc("sc-a", topologies=_TOPOLOGY), QUEUE,
                 id="When the AllowedTopologies are changed, it returns Queue"),
    pytest.param(sc("sc-a"), sc("sc-a"), QUEUE_SKIP,
                 id="When there are no changes to the StorageClass, it returns QueueSkip"),
])
def test_is_schedulable_after_storage_class_change(old, new, want):
    assert _VB().is_schedulable_after_storage_class_change(make_pod().obj(), old, new) == want


def _cap(capacity=None, maximum=None):
    c = {"kind": "CSIStorageCapacity", "metadata": {"name": "cap-a"}}
    if capacity is not None:
        c["capacity"] = str(capacity)
    if maximum is not None:
        c["maximumVolumeSize"] = str(maximum)
    return c


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, _cap(), QUEUE, id="When a new CSIStorageCapacity is created"),
    pytest.param(_cap(), _cap(100), QUEUE, id="the volume limit is increase(Capacity set)"),
    pytest.param(_cap(), _cap(maximum=100), QUEUE,
                 id="the volume limit is increase(MaximumVolumeSize set)"),
    pytest.param(_cap(50), _cap(100), QUEUE, id="the volume limit is increase(Capacity increase)"),
    pytest.param(_cap(100, 50), _cap(100), QUEUE,
                 id="the volume limit is increase(MaximumVolumeSize unset)"),
    pytest.param(_cap(100, 50), _cap(100, 60), QUEUE,
                 id="the volume limit is increase(MaximumVolumeSize increase)"),
    pytest.param(_cap(100, 50), _cap(100, 50), QUEUE_SKIP,
                 id="no changes to the CSIStorageCapacity"),
    pytest.param(_cap(100), _cap(100), QUEUE_SKIP, id="the volume limit is equal(Capacity)"),
    pytest.param(_cap(100, 50), _cap(50), QUEUE_SKIP,
                 id="the volume limit is equal(MaximumVolumeSize unset)"),
    pytest.param(_cap(100), _cap(90), QUEUE_SKIP, id="the volume limit is decrease(Capacity)"),
])
def test_is_schedulable_after_csi_storage_capacity_change(old, new, want):
    got = _VB().is_schedulable_after_csi_storage_capacity_change(make_pod().obj(), old, new)
    assert got == want


def _driver(name, capacity=None):
    d = {"kind": "CSIDriver", "metadata": {"name": name}, "spec": {}}
    if capacity is not None:
        d["spec"]["storageCapacity"] = capacity
    return d


def _csi_pod(driver=None):
    p = make_pod("pod-a").obj()
    if driver:
        p["spec"]["volumes"] = [{"name": "v", "csi": {"driver": driver}}]
    return p


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(_csi_pod(), _driver("test1"), _driver("test1", True), QUEUE_SKIP,
                 id="pod has no CSIDriver"),
    pytest.param(_csi_pod("test1"), _driver("test2", True), _driver("test2", False), QUEUE_SKIP,
                 id="driver name in pod and csidriver name are different"),
    pytest.param(_csi_pod("test1"), _driver("test1"), _driver("test1"), QUEUE_SKIP,
                 id="original StorageCapacity is nil"),
    pytest.param(_csi_pod("test1"), _driver("test1", False), _driver("test1", False), QUEUE_SKIP,
                 id="original StorageCapacity is false"),
    pytest.param(_csi_pod("test1"), _driver("test1", True), _driver("test1", False), QUEUE,
                 id="StorageCapacity changes from true to false"),
])
def test_is_schedulable_after_csi_driver_change(pod, old, new, want):
    assert _VB().is_schedulable_after_csi_driver_change(pod, old, new) == want


def test_prebind_logs_binder_gos_lines_for_each_volume_it_binds():
    store = Store(*CLASSES, pvc("pvc-a", cls="wait-sc"), pv("pv-1", cls="wait-sc"))
    lines = []
    plugin = VolumeBinding(handle=store.handle(NODES))
    plugin.handle.log = lambda *a: lines.append(a)
    pod = PodInfo(claim_volume(make_pod("pod-a").obj(), "pvc-a"))
    state = cycle(plugin, pod, "node-a")
    lines.clear()
    assert plugin.pre_bind(state, pod, "node-a") is None
    kv = {"pod": "default/pod-a", "PV": "pv-1", "PVC": "default/pvc-a"}
    assert lines == [
        (5, "volume_binding.go:591", "Trying to bind volumes for pod", {"pod": "default/pod-a"}),
        (5, "binder.go:550", "Updating PersistentVolume: binding to claim", kv),
        (2, "binder.go:557", "Updated PersistentVolume with claim. Waiting for binding to complete", kv),
        (5, "volume_binding.go:597", "Success binding volumes for pod", {"pod": "default/pod-a"})]
