"""NodeVolumeLimits: mirrors upstream nodevolumelimits/csi_test.go (TestCSILimits): per-driver
limits from the node's CSINode, volumes of pods already on the node, shared volumes counted
once, unbound claims counted by their class's provisioner."""

import pytest

from kubesim.scheduler.framework.status import Code
from kubesim.scheduler.plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter
from .volume_builders import Store, claim_volume, pv, pvc, sc

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"


def csinode(limits):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node"},
            "spec": {"drivers": [{"name": d, "nodeID": "node", "allocatable": {"count": n}} for d, n in limits.items()]}}


OBJS = [
    *(x for i in range(1, 5) for x in (pv(f"ebs-{i}", csi=(EBS, f"vol-ebs-{i}")),
                                       pvc(f"ebs-{i}", volume_name=f"ebs-{i}", bound=True))),
    pv("gce-1", csi=(GCE, "vol-gce-1")), pvc("gce-1", volume_name="gce-1", bound=True),
    pv("local-1"), pvc("local-1", volume_name="local-1", bound=True),
    sc("ebs-class", provisioner=EBS), pvc("unbound-ebs", cls="ebs-class"),
]


def pod_with(name, *claims, node_name=""):
    w = make_pod(name)
    if node_name:
        w.node(node_name)
    return claim_volume(w.obj(), *claims)


EXCEEDED = (Code.Unschedulable, [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED])

CASES = [
    pytest.param(make_pod("p").obj(), [], {EBS: 1}, "skipped", id="a pod without claims is skipped"),
    pytest.param(pod_with("p", "ebs-1"), [], {EBS: 1}, None, id="one volume within a limit of one"),
    pytest.param(pod_with("p", "ebs-1", "ebs-2"), [], {EBS: 1}, EXCEEDED, id="two new volumes over a limit of one"),
    pytest.param(pod_with("p", "ebs-2"), [pod_with("e", "ebs-1", node_name="node")], {EBS: 1}, EXCEEDED,
                 id="a volume already attached counts"),
    pytest.param(pod_with("p", "ebs-1"), [pod_with("e", "ebs-1", node_name="node")], {EBS: 1}, None,
                 id="a volume shared with a pod on the node counts once"),
    pytest.param(pod_with("p", "ebs-3"), [pod_with("e", "ebs-1", "ebs-2", node_name="node")], {EBS: 4}, None,
                 id="within a larger limit"),
    pytest.param(pod_with("p", "gce-1"), [pod_with("e", "ebs-1", node_name="node")], {EBS: 1, GCE: 1}, None,
                 id="limits are per driver"),
    pytest.param(pod_with("p", "ebs-1", "ebs-2"), [], {GCE: 1}, None, id="a driver without a limit is not limited"),
    pytest.param(pod_with("p", "ebs-1", "ebs-2"), [], {}, None, id="a node without limits takes any number"),
    pytest.param(pod_with("p", "local-1"), [], {EBS: 0}, None, id="a volume without a CSI source is not counted"),
    pytest.param(pod_with("p", "unbound-ebs"), [pod_with("e", "ebs-1", node_name="node")], {EBS: 1}, EXCEEDED,
                 id="an unbound claim counts for its class's provisioner"),
    pytest.param(pod_with("p", "missing"), [], {EBS: 1},
                 (Code.UnschedulableAndUnresolvable, ['persistentvolumeclaim "missing" not found']),
                 id="a claim that does not exist"),
]


@pytest.mark.parametrize("pod, existing, limits, want", CASES)
def test_csi_limits(pod, existing, limits, want):
    plugin = NodeVolumeLimits(handle=Store(*OBJS, csinode(limits)).handle())
    got = run_filter(plugin, pod, make_node("node").obj(), existing)
    if got not in (None, "skipped"):
        got = (got.code, got.reasons)
    assert got == want


# -- queueing hints (csi_test.go TestCSILimitsQHint, TestCSILimitsAddedPVCQHint,
#    TestCSILimitsAfterCSINodeUpdatedQHint) --------------------------------------------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _deleted(*volumes, scheduled=True):
    w = make_pod("deleted")
    if scheduled:
        w.node("csiNode")
    p = w.obj()
    if volumes:
        p["spec"]["volumes"] = list(volumes)
    return p


@pytest.mark.parametrize("deleted, want", [
    pytest.param(_deleted({"name": "v", "persistentVolumeClaim": {"claimName": "placeholder"}}),
                 QUEUE, id="return a Queue when a deleted pod has a PVC"),
    pytest.param(_deleted({"name": "v", "awsElasticBlockStore": {}}), QUEUE,
                 id="return a Queue when a deleted pod has a inline migratable volume"),
    pytest.param(_deleted(), QUEUE_SKIP,
                 id="return a QueueSkip when a deleted pod doesn't have any volume"),
    pytest.param(_deleted({"name": "v", "persistentVolumeClaim": {"claimName": "x"}},
                          scheduled=False), QUEUE_SKIP,
                 id="return a QueueSkip when a deleted pod is not scheduled."),
])
def test_is_schedulable_after_pod_deleted(deleted, want):
    pod = claim_volume(make_pod().obj(), "csi-ebs.csi.aws.com-2")
    assert NodeVolumeLimits().is_schedulable_after_pod_deleted(pod, deleted, None) == want


def _ns_pod(namespace, *volumes, name="pod"):
    p = make_pod(name, namespace).obj()
    if volumes:
        p["spec"]["volumes"] = list(volumes)
    return p


@pytest.mark.parametrize("pod, added, want", [
    pytest.param(_ns_pod("ns1"), pvc("pvc", namespace="ns2"), QUEUE_SKIP,
                 id="a pod isn't in the same namespace as an added PVC"),
    pytest.param(_ns_pod("ns1", {"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}),
                 pvc("pvc1", namespace="ns1"), QUEUE,
                 id="a pod is in the same namespace as an added PVC"),
    pytest.param(_ns_pod("ns1", {"name": "ephemeral", "ephemeral": {}}, name="pod1"),
                 pvc("pod1-ephemeral", namespace="ns1"), QUEUE,
                 id="a pod has an ephemeral volume related to an added PVC"),
    pytest.param(_ns_pod("ns1", {"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}),
                 pvc("pvc2", namespace="ns1"), QUEUE_SKIP,
                 id="a pod doesn't have the same PVC as an added PVC"),
    pytest.param(_ns_pod("ns1"), pvc("pvc2", namespace="ns1"), QUEUE_SKIP,
                 id="a pod doesn't have any PVC attached"),
])
def test_is_schedulable_after_pvc_added(pod, added, want):
    assert NodeVolumeLimits().is_schedulable_after_pvc_added(pod, None, added) == want


def _csinode(count):
    return {"kind": "CSINode", "metadata": {"name": "test-node"}, "spec": {"drivers": [
        {"name": "ebs.csi.aws.com", "nodeID": "test-node", "allocatable": {"count": count}}]}}


@pytest.mark.parametrize("old, new, want", [
    pytest.param(_csinode(1), _csinode(2), QUEUE, id="limit raised, queue"),
    pytest.param(_csinode(2), _csinode(1), QUEUE_SKIP, id="limit decreased, skip queueing"),
    pytest.param(_csinode(1), _csinode(1), QUEUE_SKIP, id="limit unchanged, skip queueing"),
])
def test_is_schedulable_after_csi_node_updated(old, new, want):
    assert NodeVolumeLimits().is_schedulable_after_csi_node_updated(make_pod().obj(), old,
                                                                    new) == want


def test_the_limit_it_checks_is_logged_at_v5_as_csi_go_logs_it():
    lines = []
    handle = Store(*OBJS, csinode({EBS: 4})).handle()
    handle.log = lambda *a: lines.append(a)
    run_filter(NodeVolumeLimits(handle=handle), pod_with("p", "ebs-3"), make_node("node").obj(),
               [pod_with("e", "ebs-1", "ebs-2", node_name="node")])
    assert lines == [(5, "csi.go:344", "Found plugin volume limits",
                      {"node": "node", "driverName": EBS, "maxLimits": 4, "currentVolumeCount": 2,
                       "newVolumeCount": 1, "pod": "default/p"})]
