"""What the PodTopologySpread test modules share: expected constraints, a plugin over a snapshot,
PreFilter / PreScore runs, and the nodes and pods several tables use."""

from kubesim.api.selectors import from_label_selector
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread.common import Constraint
from kubesim.scheduler.plugins.podtopologyspread.plugin import PodTopologySpread

from .builders import HONOR, IGNORE, UNSCHEDULABLE_TAINT, lister, placed, replica_set, zn

LIST = {"defaultingType": "List"}
SYSTEM = {"defaultingType": "System"}
TAINT = UNSCHEDULABLE_TAINT


def C(max_skew, key, selector, min_domains=1, affinity=HONOR, taints=IGNORE):
    """An expected internal constraint, its selector given as a manifest labelSelector."""
    return Constraint(max_skew, key, from_label_selector(selector), min_domains, affinity, taints)


def setup(nodes, existing=(), args=LIST, objs=()):
    snap = Snapshot.build(nodes, existing)
    pl = PodTopologySpread(dict(args), Handle(snap), list_objects=lister(objs))
    return pl, snap


def pre_filter(pl, snap, p):
    state = CycleState()
    pi = PodInfo(p)
    _, status = pl.pre_filter(state, pi, snap.list())
    return status, state, pi


FOUR_ZONE_NODES = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"),
                   zn("node-y", "zone2")]
PODS_2_1_0_3 = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", foo=""),
                placed("p-y2", "node-y", foo=""), placed("p-y3", "node-y", foo="")]
RS_FOO = replica_set("rs1", {"matchLabels": {"foo": "bar"}})


def pre_score(pl, snap, p, filtered):
    state = CycleState()
    pi = PodInfo(p)
    status = pl.pre_score(state, pi, [snap.get(n["metadata"]["name"]) for n in filtered])
    return status, state, pi
