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
