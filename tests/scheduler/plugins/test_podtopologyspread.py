"""PodTopologySpread: mirrors upstream filtering_test.go (TestPreFilterState,
TestPreFilterStateAddPod, TestPreFilterStateRemovePod, TestSingleConstraint,
TestMultipleConstraints, TestPreFilterDisabled) and scoring_test.go (TestPreScoreSkip,
TestPreScoreStateEmptyNodes, TestPodTopologySpreadScore), in v1.35's shape: state indexed by
constraint, NodeInclusionPolicy and matchLabelKeys always on (the "feature gate disabled" cases
are left out). Upstream's TpKeyToCriticalPaths/TpPairToMatchNum expectations are rewritten per
constraint; critical paths compare as upstream's cmp option does (equal counts in any order)."""

import math

import pytest

from kubesim.api.selectors import LabelSelector, from_label_selector
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle, NodeScore
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, MAX_INT32,
    PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY, SYSTEM_DEFAULT_CONSTRAINTS, Constraint,
    CriticalPaths, PodTopologySpread, count_pods_match_selector, default_selector, go_round,
    normalize_scores, score_for_count, topology_normalizing_weight, validate_args)

from .pts_builders import (BAR, FOO, HARD, HONOR, HOSTNAME, IGNORE, NODE, SOFT, TOPOLOGY_ZONE,
                           UNSCHEDULABLE_TAINT, ZONE, hn, lister, node, placed, pod,
                           replica_set, replication_controller, service, zn)

LIST = {"defaultingType": "List"}
SYSTEM = {"defaultingType": "System"}
TAINT = UNSCHEDULABLE_TAINT


def C(max_skew, key, selector, min_domains=1, affinity=HONOR, taints=IGNORE):
    """An expected internal constraint, its selector given as a manifest labelSelector."""
    return Constraint(max_skew, key, from_label_selector(selector), min_domains, affinity, taints)


def paths(*pairs):
    """Expected critical paths; missing entries are upstream's {"", MaxInt32}."""
    pairs = list(pairs) + [("", MAX_INT32)] * (2 - len(pairs))
    return pairs


def _sorted(p):
    """Upstream's criticalPaths comparer: equal counts compare regardless of order."""
    (v0, n0), (v1, n1) = p
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    return [(v0, n0), (v1, n1)]


def setup(nodes, existing=(), args=LIST, objs=()):
    snap = Snapshot.build(nodes, existing)
    pl = PodTopologySpread(dict(args), Handle(snap), list_objects=lister(objs))
    return pl, snap


def pre_filter(pl, snap, p):
    state = CycleState()
    pi = PodInfo(p)
    _, status = pl.pre_filter(state, pi, snap.list())
    return status, state, pi


def assert_state(got, constraints, counts, critical):
    assert got.constraints == constraints
    assert got.tp_value_to_match_num == counts
    assert [_sorted(cp.paths) for cp in got.critical_paths] == [_sorted(p) for p in critical]


# -- TestPreFilterState --------------------------------------------------------------------------
FOUR_ZONE_NODES = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"),
                   zn("node-y", "zone2")]
THREE_NODES = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")]
PODS_2_1_0_2 = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", foo=""),
                placed("p-y2", "node-y", foo="")]
PODS_2_1_0_4 = PODS_2_1_0_2 + [placed("p-y3", "node-y", foo=""), placed("p-y4", "node-y", foo="")]
FOO_A = [placed(n, "node-a" if n[2] == "a" else "node-b" if n[2] == "b" else "node-y", foo="a")
         for n in ("p-a1", "p-a2", "p-b1", "p-y1", "p-y2")]
INCLUSION_NODES = [node("node-a", {NODE: "node-a", "foo": ""}),
                   node("node-b", {NODE: "node-b", "foo": ""}),
                   node("node-c", {NODE: "node-c", "bar": ""})]
INCLUSION_PODS = [placed("p-a", "node-a", bar=""), placed("p-b", "node-b", bar=""),
                  placed("p-c", "node-b", bar=""), placed("p-d", "node-c")]
TAINT_NODES = [node("node-a", {NODE: "node-a"}), node("node-b", {NODE: "node-b"}),
               node("node-c", {NODE: "node-c", "bar": ""}, TAINT)]

PRE_FILTER_CASES = [
    pytest.param(
        pod(foo="").spread(5, ZONE, HARD, {"matchLabels": {"foo": "bar"}}).obj(),
        FOUR_ZONE_NODES, [], LIST, [],
        ([C(5, ZONE, {"matchLabels": {"foo": "bar"}})], [{"zone1": 0, "zone2": 0}],
         [paths(("zone1", 0), ("zone2", 0))]),
        id="clean cluster with one spreadConstraint"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_2, LIST, [],
        ([C(1, ZONE, FOO)], [{"zone1": 3, "zone2": 2}], [paths(("zone2", 2), ("zone1", 3))]),
        id="normal case with one spreadConstraint"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, None).obj(), FOUR_ZONE_NODES, PODS_2_1_0_2, LIST, [],
        ([C(1, ZONE, None)], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="normal case with null label selector"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO).obj(),
        FOUR_ZONE_NODES + [zn("node-o", "zone3"), zn("node-p", "zone3")], PODS_2_1_0_2, LIST, [],
        ([C(1, ZONE, FOO)], [{"zone1": 3, "zone2": 2, "zone3": 0}],
         [paths(("zone3", 0), ("zone2", 2))]),
        id="normal case with one spreadConstraint on a 3-zone cluster"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES,
        [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", "ns1", foo=""),
         placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", "ns2", foo=""),
         placed("p-y2", "node-y", foo="")], LIST, [],
        ([C(1, ZONE, FOO)], [{"zone1": 2, "zone2": 1}], [paths(("zone2", 1), ("zone1", 2))]),
        id="pods in another namespace do not count"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, FOO).obj(),
        FOUR_ZONE_NODES, PODS_2_1_0_4, LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-x", 0), ("node-b", 1))]),
        id="normal case with two spreadConstraints"),
    pytest.param(
        pod(foo="").spread(1, ZONE, SOFT, FOO).spread(1, ZONE, HARD, FOO)
        .spread(1, NODE, SOFT, FOO).spread(1, NODE, HARD, FOO).obj(),
        THREE_NODES, PODS_2_1_0_4, LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 1), ("node-a", 2))]),
        id="soft spreadConstraints are bypassed"),
    pytest.param(
        pod(foo="", bar="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, BAR).obj(),
        THREE_NODES, [placed("p-a", "node-a", foo=""), placed("p-b", "node-b", bar="")], LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, BAR)],
         [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}],
         [paths(("zone2", 0), ("zone1", 1)), paths(("node-a", 0), ("node-y", 0))]),
        id="different labelSelectors, simple version"),
    pytest.param(
        pod(foo="", bar="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, BAR).obj(),
        THREE_NODES,
        [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo="", bar=""),
         placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", foo=""),
         placed("p-y2", "node-y", foo="", bar=""), placed("p-y3", "node-y", foo=""),
         placed("p-y4", "node-y", foo="", bar="")], LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, BAR)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 0), ("node-a", 1))]),
        id="different labelSelectors, complex pods"),
    pytest.param(
        pod(foo="").node_affinity_not_in(NODE, ["node-x"])
        .spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, FOO).obj(),
        FOUR_ZONE_NODES, PODS_2_1_0_4, LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, FOO)],
         [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
         [paths(("zone1", 3), ("zone2", 4)), paths(("node-b", 1), ("node-a", 2))]),
        id="two spreadConstraints and node affinity excluding node-x"),
    pytest.param(
        pod(foo="bar", baz="kar").obj(), [], [],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 3, "topologyKey": NODE, "whenUnsatisfiable": HARD},
            {"maxSkew": 2, "topologyKey": NODE, "whenUnsatisfiable": SOFT},
            {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": HARD}]},
        [service({"foo": "bar"})],
        ([C(3, NODE, {"matchLabels": {"foo": "bar"}}),
          C(5, "rack", {"matchLabels": {"foo": "bar"}})],
         [{}, {}], [paths(), paths()]),
        id="default constraints take the selector of the service selecting the pod"),
    pytest.param(
        pod(foo="bar").obj(), [], [],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 3, "topologyKey": NODE, "whenUnsatisfiable": HARD}]},
        [service({"baz": "kep"})], None,
        id="default constraints and a service that doesn't match skip"),
    pytest.param(
        pod(foo="bar", baz="tar")
        .spread(1, ZONE, HARD, {"matchLabels": {"baz": "tar"}})
        .spread(2, "planet", SOFT, {"matchLabels": {"fot": "rok"}}).obj(), [], [],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 2, "topologyKey": NODE, "whenUnsatisfiable": HARD}]},
        [service({"foo": "bar"})],
        ([C(1, ZONE, {"matchLabels": {"baz": "tar"}})], [{}], [paths()]),
        id="the pod's own constraints replace the default ones"),
    pytest.param(
        pod(foo="bar").obj(), [], [],
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 2, "topologyKey": NODE, "whenUnsatisfiable": SOFT}]},
        [service({"foo": "bar"})], None,
        id="only soft default constraints skip PreFilter"),
    pytest.param(
        pod(foo="").node_selector({"foo": ""}).spread(1, NODE, HARD, BAR).obj(),
        INCLUSION_NODES, INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR)], [{"node-a": 1, "node-b": 2}], [paths(("node-a", 1), ("node-b", 2))]),
        id="NodeAffinityPolicy Honor leaves out nodes the nodeSelector rejects"),
    pytest.param(
        pod(foo="").node_selector({"foo": ""}).spread(1, NODE, HARD, BAR, None, IGNORE).obj(),
        INCLUSION_NODES, INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR, affinity=IGNORE)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="NodeAffinityPolicy Ignore counts nodes the nodeSelector rejects"),
    pytest.param(
        pod(foo="").node_affinity_in("foo", [""]).spread(1, NODE, HARD, BAR).obj(),
        INCLUSION_NODES, INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR)], [{"node-a": 1, "node-b": 2}], [paths(("node-a", 1), ("node-b", 2))]),
        id="NodeAffinityPolicy Honor leaves out nodes the required node affinity rejects"),
    pytest.param(
        pod(foo="").node_affinity_in("foo", [""]).spread(1, NODE, HARD, BAR, None, IGNORE).obj(),
        INCLUSION_NODES, INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR, affinity=IGNORE)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="NodeAffinityPolicy Ignore counts nodes the required node affinity rejects"),
    pytest.param(
        pod(foo="").spread(1, NODE, HARD, BAR).obj(), TAINT_NODES, INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="NodeTaintsPolicy Ignore (the default) counts tainted nodes"),
    pytest.param(
        pod(foo="").spread(1, NODE, HARD, BAR, None, None, HONOR).obj(), TAINT_NODES,
        INCLUSION_PODS, LIST, [],
        ([C(1, NODE, BAR, taints=HONOR)], [{"node-a": 1, "node-b": 2}],
         [paths(("node-a", 1), ("node-b", 2))]),
        id="NodeTaintsPolicy Honor leaves out nodes with untolerated taints"),
    pytest.param(
        pod(foo="").toleration("node.kubernetes.io/unschedulable", "Exists")
        .spread(1, NODE, HARD, BAR, None, None, HONOR).obj(), TAINT_NODES, INCLUSION_PODS,
        LIST, [],
        ([C(1, NODE, BAR, taints=HONOR)], [{"node-a": 1, "node-b": 2, "node-c": 0}],
         [paths(("node-c", 0), ("node-a", 1))]),
        id="NodeTaintsPolicy Honor counts nodes whose taints the pod tolerates"),
    pytest.param(
        pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, HARD, FOO)
        .spread(1, NODE, HARD, FOO, None, IGNORE).obj(),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
        [placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
         placed("p-x1", "node-x", foo="")], LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, FOO, affinity=IGNORE)],
         [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-a", 0), ("node-x", 1))]),
        id="two constraints: zone Honor/Ignore, node Ignore/Ignore"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO, None, None, HONOR).spread(1, NODE, HARD, FOO).obj(),
        [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", TAINT),
         zn("node-x", "zone2", foo="")],
        [placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
         placed("p-x1", "node-x", foo="")], LIST, [],
        ([C(1, ZONE, FOO, taints=HONOR), C(1, NODE, FOO)],
         [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-a", 0), ("node-x", 1))]),
        id="two constraints: zone Honor/Honor, node Honor/Ignore"),
    pytest.param(
        pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, HARD, FOO)
        .spread(1, NODE, HARD, FOO).obj(),
        [zn("node-a", "zone1"), zn("node-b", "zone1", TAINT, foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2")],
        [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
         placed("p-x1", "node-x", foo=""), placed("p-y1", "node-y", foo="")], LIST, [],
        ([C(1, ZONE, FOO), C(1, NODE, FOO)],
         [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
         [paths(("zone1", 0), ("zone2", 1)), paths(("node-b", 0), ("node-x", 1))]),
        id="two constraints: zone Honor/Ignore, node Honor/Ignore"),
    pytest.param(
        pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, HARD, FOO, None, IGNORE)
        .spread(1, NODE, HARD, FOO, None, None, HONOR).obj(),
        [zn("node-a", "zone1"), zn("node-b", "zone1", TAINT, foo=""),
         zn("node-x", "zone2", foo=""), zn("node-y", "zone2", foo="")],
        [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
         placed("p-x1", "node-x", foo=""), placed("p-x2", "node-x", foo=""),
         placed("p-y1", "node-y", foo="")], LIST, [],
        ([C(1, ZONE, FOO, affinity=IGNORE), C(1, NODE, FOO, taints=HONOR)],
         [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
         [paths(("zone1", 2), ("zone2", 3)), paths(("node-y", 1), ("node-x", 2))]),
        id="two constraints: zone Ignore/Ignore, node Honor/Honor"),
    pytest.param(
        pod(foo="", bar="a").spread(1, ZONE, HARD, FOO, match_label_keys=["bar"]).obj(),
        FOUR_ZONE_NODES,
        [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo="", bar="a"),
         placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", foo="", bar="a"),
         placed("p-y2", "node-y", bar="")], LIST, [],
        ([C(1, ZONE, {"matchLabels": {"bar": "a"}, **FOO})], [{"zone1": 1, "zone2": 1}],
         [paths(("zone2", 1), ("zone1", 1))]),
        id="matchLabelKeys are ANDed with a non-empty labelSelector"),
    pytest.param(
        pod(foo="a").spread(1, ZONE, HARD, {}, match_label_keys=["foo"]).obj(),
        FOUR_ZONE_NODES, FOO_A, LIST, [],
        ([C(1, ZONE, {"matchLabels": {"foo": "a"}})], [{"zone1": 3, "zone2": 2}],
         [paths(("zone2", 2), ("zone1", 3))]),
        id="matchLabelKeys are ANDed with an empty labelSelector"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, None, match_label_keys=["bar"]).obj(),
        FOUR_ZONE_NODES, FOO_A, LIST, [],
        ([C(1, ZONE, None)], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="matchLabelKeys are ignored when the labelSelector is nil"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, FOO, match_label_keys=["bar"]).obj(),
        FOUR_ZONE_NODES, FOO_A, LIST, [],
        ([C(1, ZONE, FOO)], [{"zone1": 3, "zone2": 2}], [paths(("zone2", 2), ("zone1", 3))]),
        id="a matchLabelKeys key missing from the pod's labels is ignored"),
    pytest.param(
        pod(foo="").spread(1, ZONE, HARD, {}).obj(), FOUR_ZONE_NODES, FOO_A, LIST, [],
        ([C(1, ZONE, {})], [{"zone1": 0, "zone2": 0}], [paths(("zone2", 0), ("zone1", 0))]),
        id="an empty labelSelector counts no pod (v1.35 countPodsMatchSelector)"),
    pytest.param(pod(foo="").obj(), [zn("node-a", "zone1")], [], LIST, [], None,
                 id="a pod without constraints skips PreFilter"),
]


@pytest.mark.parametrize("p, nodes, existing, args, objs, want", PRE_FILTER_CASES)
def test_pre_filter_state(p, nodes, existing, args, objs, want):
    pl, snap = setup(nodes, existing, args, objs)
    status, state, _ = pre_filter(pl, snap, p)
    if want is None:
        assert status == Status(Code.Skip)
        assert PRE_FILTER_STATE_KEY not in state
        return
    assert status is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), *want)


# -- TestPreFilterStateAddPod / RemovePod --------------------------------------------------------
NODE_C = C(1, NODE, FOO)
ZONE_C = C(1, ZONE, FOO)
ONE_NODE = pod(foo="").spread(1, NODE, HARD, FOO).obj()
ONE_ZONE = pod(foo="").spread(1, ZONE, HARD, FOO).obj()
ZONE_NODE = pod(foo="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, FOO).obj()
FOO_BAR = pod(foo="", bar="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, BAR).obj()
NOT_BAR = pod(foo="").node_affinity_not_in("foo", ["bar"]).spread(1, ZONE, HARD, FOO).obj()
AB_NODES = [zn("node-a", "zone1"), zn("node-b", "zone1")]
AX_NODES = [zn("node-a", "zone1"), zn("node-x", "zone2")]
ABX_NODES = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")]
AFF_NODES = [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")]

ADD_POD_CASES = [
    pytest.param(ONE_NODE, placed("p-a1", "node-a", foo=""), [], 0, AB_NODES,
                 ([NODE_C], [{"node-a": 1, "node-b": 0}], [paths(("node-b", 0), ("node-a", 1))]),
                 id="node a and b both impact the current min match"),
    pytest.param(ONE_NODE, placed("p-a1", "node-a", foo=""), [placed("p-b1", "node-b", foo="")],
                 0, AB_NODES,
                 ([NODE_C], [{"node-a": 1, "node-b": 1}], [paths(("node-a", 1), ("node-b", 1))]),
                 id="only node a impacts the current min match"),
    pytest.param(ONE_NODE, placed("p-a1", "node-a", "ns1", foo=""),
                 [placed("p-b1", "node-b", foo="")], 0, AB_NODES,
                 ([NODE_C], [{"node-a": 0, "node-b": 1}], [paths(("node-a", 0), ("node-b", 1))]),
                 id="adding a pod of another namespace changes nothing"),
    pytest.param(ONE_NODE, placed("p-b2", "node-b", foo=""), [placed("p-b1", "node-b", foo="")],
                 1, AB_NODES,
                 ([NODE_C], [{"node-a": 0, "node-b": 2}], [paths(("node-a", 0), ("node-b", 2))]),
                 id="adding a pod on a non-critical node keeps the minimum"),
    pytest.param(ZONE_NODE, placed("p-a1", "node-a", foo=""), [], 0, AX_NODES,
                 ([ZONE_C, NODE_C], [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
                  [paths(("zone2", 0), ("zone1", 1)), paths(("node-x", 0), ("node-a", 1))]),
                 id="node a and x both impact the minimum on zone and node"),
    pytest.param(ZONE_NODE, placed("p-a1", "node-a", foo=""), [placed("p-x1", "node-x", foo="")],
                 0, AX_NODES,
                 ([ZONE_C, NODE_C], [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}],
                  [paths(("zone1", 1), ("zone2", 1)), paths(("node-a", 1), ("node-x", 1))]),
                 id="only node a impacts the minimum on zone and node"),
    pytest.param(ZONE_NODE, placed("p-a1", "node-a", foo=""),
                 [placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
                  placed("p-x1", "node-x", foo="")], 0, ABX_NODES,
                 ([ZONE_C, NODE_C], [{"zone1": 3, "zone2": 1},
                                     {"node-a": 1, "node-b": 2, "node-x": 1}],
                  [paths(("zone2", 1), ("zone1", 3)), paths(("node-a", 1), ("node-x", 1))]),
                 id="node a impacts the minimum on node, node x the one on zone"),
    pytest.param(FOO_BAR, placed("p-a1", "node-a", foo=""),
                 [placed("p-b1", "node-b", foo="", bar=""),
                  placed("p-x1", "node-x", foo="", bar=""), placed("p-x2", "node-x", bar="")],
                 0, ABX_NODES,
                 ([ZONE_C, C(1, NODE, BAR)], [{"zone1": 2, "zone2": 1},
                                              {"node-a": 0, "node-b": 1, "node-x": 2}],
                  [paths(("zone2", 1), ("zone1", 2)), paths(("node-a", 0), ("node-b", 1))]),
                 id="constraints with different selectors: node a impacts the zone minimum"),
    pytest.param(FOO_BAR, placed("p-a1", "node-a", foo="", bar=""),
                 [placed("p-b1", "node-b", bar=""), placed("p-x1", "node-x", foo="", bar=""),
                  placed("p-x2", "node-x", bar="")], 0, ABX_NODES,
                 ([ZONE_C, C(1, NODE, BAR)], [{"zone1": 1, "zone2": 1},
                                              {"node-a": 1, "node-b": 1, "node-x": 2}],
                  [paths(("zone1", 1), ("zone2", 1)), paths(("node-a", 1), ("node-b", 1))]),
                 id="constraints with different selectors: node a impacts both minimums"),
    pytest.param(NOT_BAR, placed("p-a1", "node-a", foo="", zone="zone1"),
                 [placed("p-a2", "node-a", foo="", zone="zone1"),
                  placed("p-b1", "node-b", foo="", zone="zone2")], 0, AFF_NODES,
                 ([ZONE_C], [{"zone2": 1}], [paths(("zone2", 1))]),
                 id="adding a pod on a node the preemptor's node affinity rejects changes nothing"),
    pytest.param(ONE_ZONE, placed("p-b1", "node-b", foo="", zone="zone2"),
                 [placed("p-a1", "node-a", foo="", zone="zone1"),
                  placed("p-b2", "node-b", foo="", zone="zone2")], 1, AFF_NODES,
                 ([ZONE_C], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
                 id="adding a pod on a node the preemptor's node affinity accepts counts it"),
    pytest.param(ONE_ZONE, placed("p-b1", "node-b", zone="zone2"),
                 [placed("p-a1", "node-a", foo="", zone="zone1"),
                  placed("p-b2", "node-b", foo="", zone="zone2")], 1, AFF_NODES,
                 ([ZONE_C], [{"zone1": 1, "zone2": 1}], [paths(("zone1", 1), ("zone2", 1))]),
                 id="adding a pod the selector does not match changes nothing"),
    pytest.param(pod(foo="").toleration("node.kubernetes.io/unschedulable", "Exists")
                 .spread(1, ZONE, HARD, FOO).obj(),
                 placed("p-b1", "node-b", foo="", zone="zone2"),
                 [placed("p-a1", "node-a", foo="", zone="zone1"),
                  placed("p-b2", "node-b", foo="", zone="zone2")], 1,
                 [zn("node-a", "zone1", TAINT), zn("node-b", "zone2")],
                 ([ZONE_C], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
                 id="adding a pod when the preemptor tolerates the tainted node's taint"),
]


@pytest.mark.parametrize("preemptor, added, existing, node_idx, nodes, want", ADD_POD_CASES)
def test_pre_filter_state_add_pod(preemptor, added, existing, node_idx, nodes, want):
    pl, snap = setup(nodes, existing)
    status, state, pi = pre_filter(pl, snap, preemptor)
    assert status is None
    ni = snap.get(nodes[node_idx]["metadata"]["name"])
    assert pl.pre_filter_extensions().add_pod(state, pi, PodInfo(added), ni) is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), *want)


PODS_A_B_X = [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
              placed("p-x1", "node-x", foo="")]
PODS_A_B_X_Y = PODS_A_B_X + [placed("p-y1", "node-y", foo="")]

REMOVE_POD_CASES = [
    pytest.param(ONE_ZONE, ABX_NODES, PODS_A_B_X, 0, None, 0,
                 ([ZONE_C], [{"zone1": 1, "zone2": 1}], [paths(("zone1", 1), ("zone2", 1))]),
                 id="one constraint on zone, the minimum stays"),
    pytest.param(ONE_ZONE, FOUR_ZONE_NODES, PODS_A_B_X_Y, 0, None, 0,
                 ([ZONE_C], [{"zone1": 1, "zone2": 2}], [paths(("zone1", 1), ("zone2", 2))]),
                 id="one constraint on zone, the minimum changes"),
    pytest.param(ONE_ZONE, FOUR_ZONE_NODES, [placed("p-a0", "node-a", bar="")] + PODS_A_B_X_Y,
                 0, None, 0,
                 ([ZONE_C], [{"zone1": 2, "zone2": 2}], [paths(("zone1", 2), ("zone2", 2))]),
                 id="deleting a pod the selector does not match won't help"),
    pytest.param(ONE_ZONE, FOUR_ZONE_NODES, PODS_A_B_X_Y, -1,
                 placed("p-a0", "node-a", bar=""), 0,
                 ([ZONE_C], [{"zone1": 2, "zone2": 2}], [paths(("zone1", 2), ("zone2", 2))]),
                 id="deleting a pod that does not exist won't help"),
    pytest.param(ZONE_NODE, ABX_NODES,
                 [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                  placed("p-b1", "node-b", foo=""), placed("p-x1", "node-x", foo=""),
                  placed("p-x2", "node-x", foo="")], 3, None, 2,
                 ([ZONE_C, NODE_C], [{"zone1": 3, "zone2": 1},
                                     {"node-a": 2, "node-b": 1, "node-x": 1}],
                  [paths(("zone2", 1), ("zone1", 3)), paths(("node-b", 1), ("node-x", 1))]),
                 id="two spreadConstraints"),
    pytest.param(NOT_BAR, AFF_NODES,
                 [placed("p-a2", "node-a", foo="", zone="zone1"),
                  placed("p-b1", "node-b", foo="", zone="zone2")], -1,
                 placed("p-a1", "node-a", foo="", zone="zone1"), 0,
                 ([ZONE_C], [{"zone2": 1}], [paths(("zone2", 1))]),
                 id="removing a pod from a node the preemptor's node affinity rejects"),
    pytest.param(ONE_ZONE, AFF_NODES,
                 [placed("p-a1", "node-a", foo="", zone="zone1"),
                  placed("p-b2", "node-b", foo="", zone="zone2")], -1,
                 placed("p-b1", "node-b", foo="", zone="zone2"), 1,
                 ([ZONE_C], [{"zone1": 1, "zone2": 0}], [paths(("zone2", 0), ("zone1", 1))]),
                 id="removing a pod from a node the preemptor's node affinity accepts"),
]


@pytest.mark.parametrize("preemptor, nodes, existing, deleted_idx, deleted, node_idx, want",
                         REMOVE_POD_CASES)
def test_pre_filter_state_remove_pod(preemptor, nodes, existing, deleted_idx, deleted, node_idx,
                                     want):
    pl, snap = setup(nodes, existing)
    status, state, pi = pre_filter(pl, snap, preemptor)
    assert status is None
    if 0 <= deleted_idx < len(existing):
        deleted = existing[deleted_idx]
    ni = snap.get(nodes[node_idx]["metadata"]["name"])
    assert pl.pre_filter_extensions().remove_pod(state, pi, PodInfo(deleted), ni) is None
    assert_state(state.read(PRE_FILTER_STATE_KEY), *want)


def test_a_cloned_state_is_updated_independently():
    pl, snap = setup(AB_NODES, [placed("p-b1", "node-b", foo="")])
    _, state, pi = pre_filter(pl, snap, ONE_NODE)
    copy = state.clone()
    pl.add_pod(copy, pi, PodInfo(placed("p-a1", "node-a", foo="")), snap.get("node-a"))
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 0, "node-b": 1}]
    assert copy.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 1, "node-b": 1}]
    assert state.read(PRE_FILTER_STATE_KEY).critical_paths[0].min_match == 0
    assert copy.read(PRE_FILTER_STATE_KEY).critical_paths[0].min_match == 1


# -- TestSingleConstraint / TestMultipleConstraints ----------------------------------------------
OK = None
SKEW = Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
LABEL = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
ABC = [node("node-a", {NODE: "node-a"}), node("node-b", {NODE: "node-b"}),
       node("node-c", {NODE: "node-c"})]
PODS_2_2_1 = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
              placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
              placed("p-c1", "node-c", foo="")]
PODS_2_1_0_3 = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                placed("p-b1", "node-b", foo=""), placed("p-y1", "node-y", foo=""),
                placed("p-y2", "node-y", foo=""), placed("p-y3", "node-y", foo="")]
ZONES_2_1 = [placed("p-b1", "node-a", foo=""), placed("p-b2", "node-b", foo=""),
             placed("p-y1", "node-y", foo="")]
FOO_NODES = [node("node-a", {NODE: "node-a", "foo": ""}),
             node("node-b", {NODE: "node-b", "foo": ""}),
             node("node-x", {NODE: "node-x", "foo": ""}), node("node-y", {NODE: "node-y"})]
TAINTED_Y = [node("node-a", {NODE: "node-a", "foo": ""}),
             node("node-b", {NODE: "node-b", "foo": ""}),
             node("node-x", {NODE: "node-x", "foo": ""}), node("node-y", {NODE: "node-y"}, TAINT)]
PODS_1_1_0_1 = [placed("p-b1", "node-a", foo=""), placed("p-b2", "node-b", foo=""),
                placed("p-y1", "node-y", foo="")]

SINGLE_CONSTRAINT_CASES = [
    pytest.param(pod(foo="").spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES, [],
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
                 id="no existing pods"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, BAR).obj(), FOUR_ZONE_NODES, [],
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
                 id="no existing pods and the incoming pod doesn't match itself"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES,
                 [placed("p-a1", "node-a", "ns1", foo=""), placed("p-b1", "node-a", "ns2", foo=""),
                  placed("p-x1", "node-x", foo=""), placed("p-y1", "node-y", foo="")],
                 {"node-a": OK, "node-b": OK, "node-x": SKEW, "node-y": SKEW},
                 id="existing pods in a different namespace do not count"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, None).obj(), FOUR_ZONE_NODES,
                 [placed("p-x1", "node-x", foo=""), placed("p-y1", "node-y", foo="")],
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
                 id="existing pods do not match a null selector"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_3,
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
                 id="pods spread across zones as 3/3, all nodes fit"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, FOO).obj(),
                 [zn("node-a", "zone1"), node("node-b", {"zon": "zone1", NODE: "node-b"}),
                  zn("node-x", "zone2"), zn("node-y", "zone2")],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
                  placed("p-x1", "node-x", foo=""), placed("p-y1", "node-y", foo="")],
                 {"node-a": OK, "node-b": LABEL, "node-x": SKEW, "node-y": SKEW},
                 id="pods spread across zones as 1/2 since node-b lacks the zone label"),
    pytest.param(pod(foo="").spread(1, "rack", HARD, FOO).obj(),
                 [zn("node-a", "zone1"), zn("node-x", "zone2")], [],
                 {"node-a": LABEL, "node-x": LABEL},
                 id="no node can take the pod when none has the label rack"),
    pytest.param(pod(foo="").spread(1, NODE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_3,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="pods spread across nodes as 2/1/0/3, only node-x fits"),
    pytest.param(pod(foo="").spread(2, NODE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_3,
                 {"node-a": SKEW, "node-b": OK, "node-x": OK, "node-y": SKEW},
                 id="pods spread across nodes as 2/1/0/3 with maxSkew 2, node-b and node-x fit"),
    pytest.param(pod(bar="").spread(1, NODE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_3,
                 {"node-a": SKEW, "node-b": OK, "node-x": OK, "node-y": SKEW},
                 id="pods spread across nodes as 2/1/0/3 but the pod doesn't match itself"),
    pytest.param(pod(foo="").node_affinity_in(NODE, ["node-a", "node-y"])
                 .spread(1, NODE, HARD, FOO).obj(), FOUR_ZONE_NODES, PODS_2_1_0_3,
                 # only node-a and node-y are domains (2/~1~/~0~/3); NodeAffinity itself would
                 # reject node-b and node-x
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": SKEW},
                 id="incoming pod has node affinity, pods spread as 2/~1~/~0~/3, node-a fits"),
    pytest.param(pod(foo="").spread(1, NODE, HARD, FOO).obj(),
                 [node("node-a", {NODE: "node-a"}), node("node-b", {NODE: "node-b"})],
                 [placed("p-a", "node-a", terminating=True, foo=""),
                  placed("p-b", "node-b", foo="")],
                 {"node-a": OK, "node-b": SKEW},
                 id="terminating pods are not counted"),
    pytest.param(pod(foo="").node_affinity_not_in(NODE, ["node-b"])
                 .spread(1, ZONE, HARD, FOO).obj(), FOUR_ZONE_NODES,
                 [placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
                  placed("p-y1", "node-y", foo="")],
                 {"node-a": OK, "node-b": OK, "node-x": SKEW, "node-y": SKEW},
                 id="incoming pod has node affinity, pods spread as 0/~2~/0/1, node-a fits"),
    pytest.param(pod(foo="").spread(2, NODE, HARD, FOO, 4).obj(), ABC, PODS_2_2_1,
                 # 3 domains < minDomains 4: the global minimum counts as 0
                 {"node-a": SKEW, "node-b": SKEW, "node-c": OK},
                 id="pods spread as 2/2/1 with maxSkew 2 and fewer domains than minDomains, "
                    "only the third node fits"),
    pytest.param(pod(foo="").spread(2, NODE, HARD, FOO, 2).obj(), ABC, PODS_2_2_1,
                 {"node-a": OK, "node-b": OK, "node-c": OK},
                 id="pods spread as 2/2/1 with maxSkew 2 and more domains than minDomains, "
                    "all nodes fit"),
    pytest.param(pod(foo="").spread(2, ZONE, HARD, FOO, 3).obj(), FOUR_ZONE_NODES, ZONES_2_1,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": OK},
                 id="pods spread across zones as 2/1 with maxSkew 2 and fewer domains than "
                    "minDomains, zone2 fits"),
    pytest.param(pod(foo="").spread(2, ZONE, HARD, FOO, 1).obj(), FOUR_ZONE_NODES, ZONES_2_1,
                 {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
                 id="pods spread across zones as 2/1 with maxSkew 2 and more domains than "
                    "minDomains, all nodes fit"),
    pytest.param(pod(foo="").node_selector({"foo": ""}).spread(1, NODE, HARD, FOO).obj(),
                 FOO_NODES, PODS_1_1_0_1,
                 # 1/1/0/~0~: node-y is no domain; NodeAffinity itself would reject it
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": OK},
                 id="NodeAffinityPolicy Honor with a nodeSelector"),
    pytest.param(pod(foo="").node_selector({"foo": ""})
                 .spread(1, NODE, HARD, FOO, None, IGNORE).obj(), FOO_NODES, PODS_1_1_0_1,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="NodeAffinityPolicy Ignore with a nodeSelector"),
    pytest.param(pod(foo="").node_affinity_in("foo", [""]).spread(1, NODE, HARD, FOO).obj(),
                 FOO_NODES, PODS_1_1_0_1,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": OK},
                 id="NodeAffinityPolicy Honor with required node affinity"),
    pytest.param(pod(foo="").node_affinity_in("foo", [""])
                 .spread(1, NODE, HARD, FOO, None, IGNORE).obj(), FOO_NODES, PODS_1_1_0_1,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="NodeAffinityPolicy Ignore with required node affinity"),
    pytest.param(pod(foo="").spread(1, NODE, HARD, FOO, None, None, HONOR).obj(), TAINTED_Y,
                 PODS_1_1_0_1,
                 # 1/1/0/~1~: TaintToleration itself would reject node-y
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": OK},
                 id="NodeTaintsPolicy Honor"),
    pytest.param(pod(foo="").spread(1, NODE, HARD, FOO).obj(), TAINTED_Y, PODS_1_1_0_1,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="NodeTaintsPolicy Ignore"),
]

MULTIPLE_CONSTRAINTS_CASES = [
    pytest.param(ZONE_NODE, FOUR_ZONE_NODES, PODS_2_1_0_3,
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="zone and node constraints with spreads 3/3 and 2/1/0/3: node-x fits both"),
    pytest.param(ZONE_NODE, FOUR_ZONE_NODES, PODS_2_1_0_3 + [placed("p-y4", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": SKEW, "node-y": SKEW},
                 id="zone and node constraints with spreads 3/4 and 2/1/0/4: no node fits both"),
    pytest.param(FOO_BAR, FOUR_ZONE_NODES,
                 [placed("p-a1", "node-a", foo=""), placed("p-y1", "node-y", bar="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="different selectors with spreads 1/0 and 1/0/0/1: node-x fits"),
    pytest.param(FOO_BAR, FOUR_ZONE_NODES,
                 [placed("p-a1", "node-a", foo=""), placed("p-x1", "node-x", bar=""),
                  placed("p-y1", "node-y", bar="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": SKEW, "node-y": SKEW},
                 id="different selectors with spreads 1/0 and 0/0/1/1: no node fits"),
    pytest.param(FOO_BAR, FOUR_ZONE_NODES,
                 [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo="", bar=""),
                  placed("p-y1", "node-y", foo=""), placed("p-y2", "node-y", foo="", bar=""),
                  placed("p-y3", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": OK, "node-x": SKEW, "node-y": SKEW},
                 id="different selectors with spreads 2/3 and 1/0/0/1: node-b fits"),
    pytest.param(pod(bar="").spread(1, ZONE, HARD, FOO).spread(1, NODE, HARD, BAR).obj(),
                 FOUR_ZONE_NODES,
                 [placed("p-a1", "node-a", foo=""), placed("p-x1", "node-x", bar=""),
                  placed("p-y1", "node-y", bar="")],
                 {"node-a": OK, "node-b": OK, "node-x": SKEW, "node-y": SKEW},
                 id="different selectors and the pod doesn't match the zone one"),
    pytest.param(ZONE_NODE,
                 [zn("node-a", "zone1"), zn("node-b", "zone1"), node("node-x", {ZONE: "zone2"}),
                  zn("node-y", "zone2")],
                 [placed("p-a1", "node-a", foo=""), placed("p-y3", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": OK, "node-x": LABEL, "node-y": SKEW},
                 id="zone and node constraints where node-x lacks the label node"),
    pytest.param(pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, HARD, FOO)
                 .spread(1, NODE, HARD, FOO, None, IGNORE).obj(),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""),
                  zn("node-x", "zone2", foo=""), zn("node-y", "zone2")],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
                  placed("p-y1", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="two constraints: zone Honor/Ignore (2/~0~), node Ignore/Ignore (1/1/0/1)"),
    pytest.param(pod(foo="").spread(1, ZONE, HARD, FOO, None, None, HONOR)
                 .spread(1, NODE, HARD, FOO).obj(),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""),
                  zn("node-x", "zone2", foo=""), zn("node-y", "zone2", TAINT)],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
                  placed("p-y1", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="two constraints: zone Honor/Honor (2/0), node Honor/Ignore (1/1/0/1)"),
    pytest.param(pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, HARD, FOO)
                 .spread(1, NODE, HARD, FOO).obj(),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"),
                  zn("node-x", "zone2", foo=""), zn("node-y", "zone2", TAINT, foo="")],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
                  placed("p-y1", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": OK, "node-x": OK, "node-y": SKEW},
                 id="two constraints: zone Honor/Ignore (1/1), node Honor/Ignore (1/~1~/0/1)"),
    pytest.param(pod(foo="").node_selector({"foo": ""})
                 .spread(1, ZONE, HARD, FOO, None, None, HONOR)
                 .spread(1, NODE, HARD, FOO, None, IGNORE).obj(),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"),
                  zn("node-x", "zone2", foo=""), zn("node-y", "zone2", TAINT, foo="")],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
                  placed("p-y1", "node-y", foo="")],
                 {"node-a": SKEW, "node-b": SKEW, "node-x": OK, "node-y": SKEW},
                 id="two constraints: zone Honor/Honor (1/0), node Ignore/Ignore (1/1/0/1)"),
]


@pytest.mark.parametrize("p, nodes, existing, want",
                         SINGLE_CONSTRAINT_CASES + MULTIPLE_CONSTRAINTS_CASES)
def test_filter(p, nodes, existing, want):
    pl, snap = setup(nodes, existing)
    status, state, pi = pre_filter(pl, snap, p)
    assert status is None
    got = {n["metadata"]["name"]: pl.filter(state, pi, snap.get(n["metadata"]["name"]))
           for n in nodes}
    assert got == want
    compiled = pl.filter_fn(state, pi)  # the runtime's fast path agrees with Filter
    assert {name: compiled(snap.get(name)) for name in want} == want


def test_filter_without_pre_filter_state_is_an_error():
    pl, snap = setup([node("n", {})])
    want = Status(Code.Error, err='reading "PreFilterPodTopologySpread" from cycleState: not found')
    assert pl.filter(CycleState(), PodInfo(pod().obj()), snap.get("n")) == want
    assert pl.filter_fn(CycleState(), PodInfo(pod().obj()))(snap.get("n")) == want


def test_an_invalid_label_selector_is_a_pre_filter_error():
    bad = {"matchExpressions": [{"key": "foo", "operator": "Bogus"}]}
    pl, snap = setup([zn("node-a", "zone1")])
    status, _, _ = pre_filter(pl, snap, pod(foo="").spread(1, ZONE, HARD, bad).obj())
    assert status == Status(Code.Error, err='get constraints from pod: obtaining pod\'s hard '
                                            'topology spread constraints: "Bogus" is not a '
                                            'valid pod selector operator')


# -- TestPreScoreSkip / TestPreScoreStateEmptyNodes ----------------------------------------------
def pre_score(pl, snap, p, filtered):
    state = CycleState()
    pi = PodInfo(p)
    status = pl.pre_score(state, pi, [snap.get(n["metadata"]["name"]) for n in filtered])
    return status, state, pi


PRE_SCORE_SKIP_CASES = [
    pytest.param(pod().obj(), [hn("node-a"), hn("node-b")], LIST, [],
                 id="the pod has no soft topology spread constraints"),
    pytest.param(pod(foo="bar", baz="sup").owner("ReplicaSet", "rs2").obj(),
                 [node("node-a", {"planet": "mars"})],
                 {"defaultingType": "List", "defaultConstraints": [
                     {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SOFT}]},
                 [replica_set("rs1", {"matchExpressions": [{"key": "tar",
                                                            "operator": "Exists"}]})],
                 id="default constraints and a replicaset that isn't the pod's owner"),
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, FOO).obj(), [], LIST, [],
                 id="a cluster without nodes"),
]


@pytest.mark.parametrize("p, nodes, args, objs", PRE_SCORE_SKIP_CASES)
def test_pre_score_skip(p, nodes, args, objs):
    pl, snap = setup(nodes, [], args, objs)
    status, state, _ = pre_score(pl, snap, p, nodes)
    assert status == Status(Code.Skip)
    assert PRE_SCORE_STATE_KEY not in state


W = topology_normalizing_weight
HAB = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2")]
FOO_ZONES = [hn("node-a", "zone1", foo=""), hn("node-b", "zone1", foo=""), hn("node-x", "zone2")]
RS1 = replica_set("rs1", FOO)

PRE_SCORE_STATE_CASES = [
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, FOO).spread(1, HOSTNAME, SOFT, FOO).obj(),
                 HAB, LIST, [],
                 [C(1, ZONE, FOO), C(1, HOSTNAME, FOO)], set(),
                 [{"zone1": 0, "zone2": 0}, {}], [W(2), W(3)],
                 id="zone and hostname constraints"),
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, None).obj(), HAB, LIST, [],
                 [C(1, ZONE, None)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
                 id="null selector"),
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, FOO).spread(1, HOSTNAME, SOFT, BAR).obj(),
                 [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x")], LIST, [],
                 [C(1, ZONE, FOO), C(1, HOSTNAME, BAR)], {"node-x"},
                 [{"zone1": 0}, {}], [W(1), W(2)],
                 id="a node without the zone label is ignored"),
    pytest.param(pod(foo="tar", baz="sup").owner("ReplicaSet", "rs1").obj(),
                 [node("node-a", {HOSTNAME: "node-a", TOPOLOGY_ZONE: "mars"}),
                  node("node-b", {HOSTNAME: "node-b", TOPOLOGY_ZONE: "mars"}),
                  node("node-c", {HOSTNAME: "node-c"}), node("node-d", {HOSTNAME: "node-d"})],
                 SYSTEM, [RS1],
                 # nodes without a zone are not ignored: they form the zone ""
                 [C(3, HOSTNAME, FOO), C(5, TOPOLOGY_ZONE, FOO)], set(),
                 [{}, {"mars": 0, "": 0}], [W(4), W(2)],
                 id="system default constraints and a replicaset"),
    pytest.param(pod(foo="tar", baz="sup").owner("ReplicaSet", "rs1").obj(),
                 [node("node-a", {"rack": "rack1", HOSTNAME: "node-a", "planet": "mars"})],
                 {"defaultingType": "List", "defaultConstraints": [
                     {"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": SOFT},
                     {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": HARD},
                     {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SOFT}]},
                 [RS1],
                 [C(1, HOSTNAME, FOO), C(2, "planet", FOO)], set(), [{}, {"mars": 0}],
                 [W(1), W(1)],
                 id="listed default constraints and a replicaset"),
    pytest.param(pod(foo="bar", baz="sup").owner("ReplicaSet", "rs1")
                 .spread(1, ZONE, HARD, BAR)
                 .spread(2, "planet", SOFT, {"matchLabels": {"baz": "sup"}}).obj(),
                 [node("node-a", {"planet": "mars", "galaxy": "andromeda"})],
                 {"defaultingType": "List", "defaultConstraints": [
                     {"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": SOFT}]},
                 [RS1],
                 [C(2, "planet", {"matchLabels": {"baz": "sup"}})], set(), [{"mars": 0}], [W(1)],
                 id="the pod's own constraints replace the default ones"),
    pytest.param(pod(foo="").node_selector({"foo": ""}).spread(1, ZONE, SOFT, BAR).obj(),
                 FOO_ZONES, LIST, [],
                 [C(1, ZONE, BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
                 id="NodeAffinityPolicy Honor with a nodeSelector"),
    pytest.param(pod(foo="").node_selector({"foo": ""})
                 .spread(1, ZONE, SOFT, BAR, None, IGNORE).obj(), FOO_ZONES, LIST, [],
                 [C(1, ZONE, BAR, affinity=IGNORE)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
                 id="NodeAffinityPolicy Ignore with a nodeSelector"),
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, BAR, None, None, HONOR).obj(),
                 [hn("node-a", "zone1", foo=""), hn("node-b", "zone1", foo=""),
                  node("node-x", {ZONE: "zone2", HOSTNAME: "node-x"}, TAINT)], LIST, [],
                 [C(1, ZONE, BAR, taints=HONOR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
                 id="NodeTaintsPolicy Honor"),
]


@pytest.mark.parametrize("p, nodes, args, objs, constraints, ignored, counts, weights",
                         PRE_SCORE_STATE_CASES)
def test_pre_score_state(p, nodes, args, objs, constraints, ignored, counts, weights):
    pl, snap = setup(nodes, [], args, objs)
    status, state, _ = pre_score(pl, snap, p, nodes)
    assert status is None
    got = state.read(PRE_SCORE_STATE_KEY)
    assert got.constraints == constraints
    assert got.ignored_nodes == ignored
    assert got.topology_value_to_pod_counts == counts
    assert got.topology_normalizing_weight == weights


# -- TestPodTopologySpreadScore ------------------------------------------------------------------
# Score = round(sum over constraints of count * ln(domains + 2) + maxSkew - 1); hostname
# constraints count the node's own pods and have as many domains as scored nodes.
# NormalizeScore = 100 * (max + min - s) // max over the nodes not ignored (ignored: 0).
def spread(counts: dict) -> list[dict]:
    """Existing pods labelled foo="": counts maps node name -> how many."""
    return [placed(f"p-{n[-1]}{i}", n, foo="") for n, k in counts.items() for i in range(k)]


HABCD = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
HOST_1 = pod(foo="").spread(1, HOSTNAME, SOFT, FOO).obj()
ZONES_ABXY = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2"),
              hn("node-y", "zone2")]
ZONE_HOST_FOO_BAR = pod(foo="", bar="").spread(1, ZONE, SOFT, FOO).spread(1, HOSTNAME, SOFT,
                                                                           BAR).obj()
PODS_4_2_1_3 = spread({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3})
NODE_ABC = [node("node-a", {NODE: "node-a", "foo": ""}),
            node("node-b", {NODE: "node-b", "foo": ""}), node("node-c", {NODE: "node-c"})]
NODE_ABC_TAINT = [node("node-a", {NODE: "node-a"}), node("node-b", {NODE: "node-b"}),
                  node("node-c", {NODE: "node-c"}, TAINT)]
PODS_2_1_1 = spread({"node-a": 2, "node-b": 1, "node-c": 1})
MLK_PODS = [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo="", bar=""),
            placed("p-y1", "node-c", foo=""), placed("p-y2", "node-c", bar="")]
ZONES_ABCD = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-c", "zone2"),
              hn("node-d", "zone2")]

SCORE_CASES = [
    # w = ln(2+2); raw [0, 0]; max 0 -> every node 100
    pytest.param(HOST_1, HABCD[:2], [], [], [], [100, 100],
                 id="one constraint on node, no existing pods"),
    # hostname domains 1: w = ln 3 = 1.10; raw [2*1.10=2.20 -> 2]; 100*(2+2-2)//2 = 100
    pytest.param(HOST_1, HABCD[:1], HABCD[1:2], spread({"node-a": 2, "node-b": 1}), [], [100],
                 id="a single candidate node scores 100"),
    # w = ln 4 = 1.39; raw [1, 1]; 100*(1+1-1)//1 = 100 each
    pytest.param(HOST_1, HABCD[:2], [], spread({"node-a": 1, "node-b": 1}), [], [100, 100],
                 id="nodes with the same number of matching pods score the same"),
    # w = ln 6 = 1.79; raw [3.58->4, 1.79->2, 0, 5.38->5]; 100*(5+0-s)//5 = [20, 60, 100, 0]
    pytest.param(HOST_1, HABCD, [], spread({"node-a": 2, "node-b": 1, "node-d": 3}), [],
                 [20, 60, 100, 0],
                 id="one constraint on node, pods spread 2/1/0/3 over 4 candidates"),
    # a null selector matches nothing: raw [0, 0, 0, 0] -> all 100
    pytest.param(pod(foo="").spread(1, HOSTNAME, SOFT, None).obj(), HABCD, [],
                 spread({"node-a": 2, "node-b": 1, "node-d": 3}), [], [100, 100, 100, 100],
                 id="one constraint on node with a null selector"),
    # w = 1.79, +1 for maxSkew 2: raw [4.58->5, 2.79->3, 1, 6.38->6];
    # 100*(6+1-s)//6 = [33, 66, 100, 16]
    pytest.param(pod(foo="").spread(2, HOSTNAME, SOFT, FOO).obj(), HABCD, [],
                 spread({"node-a": 2, "node-b": 1, "node-d": 3}), [], [33, 66, 100, 16],
                 id="maxSkew 2 narrows the differences of pods spread 2/1/0/3"),
    # w = 1.79, +2: raw [9.17->9, 7.38->7, 5.58->6, 3.79->4]; 100*(9+4-s)//9 = [44, 66, 77, 100]
    pytest.param(pod(foo="").spread(3, HOSTNAME, SOFT, FOO).obj(), HABCD, [],
                 spread({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}), [],
                 [44, 66, 77, 100],
                 id="maxSkew 3 narrows the differences of pods spread 4/3/2/1"),
    # service selects foo: hostname maxSkew 3 as above, raw [9, 7, 6, 4]; the zone constraint only
    # forms the domain "" (no node has the label), so it adds nothing -> [44, 66, 77, 100]
    pytest.param(pod(foo="").obj(), HABCD, [],
                 spread({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
                 [service({"foo": ""})], [44, 66, 77, 100],
                 id="system defaulting on nodes without zones scores as the hostname constraint"),
    # w = ln 5 = 1.61; 4/2/1 -> raw [6.44->6, 3.22->3, 1.61->2]; 100*(6+2-s)//6 = [33, 83, 100]
    pytest.param(HOST_1, [hn("node-a"), hn("node-b"), hn("node-x")], [hn("node-y")],
                 PODS_4_2_1_3, [], [33, 83, 100],
                 id="one constraint on node, 3 of 4 nodes are candidates"),
    # node-b ignored; w = ln(3-1+2) = 1.39; raw a 5.55->6, x 1.39->1; 100*(6+1-s)//6 = [16, 0, 100]
    pytest.param(HOST_1, [hn("node-a"), node("node-b", {"n": "node-b"}), hn("node-x")],
                 [hn("node-y")], PODS_4_2_1_3, [], [16, 0, 100],
                 id="a candidate without the topology key scores 0"),
    # w = ln 4 = 1.39; zone1 4+2 = 6, zone2 1+3 = 4 (node-y counts though not a candidate);
    # raw [8.32->8, 8, 5.55->6]; 100*(8+6-s)//8 = [75, 75, 100]
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, FOO).obj(), ZONES_ABXY[:3], ZONES_ABXY[3:],
                 PODS_4_2_1_3, [], [75, 75, 100],
                 id="one constraint on zone, 3 of 4 nodes are candidates"),
    # zone w = ln 4 (zone1 3, zone2 6), hostname w = ln(2+2) = 1.39: a 3*1.39 + 2*1.39 = 6.93->7,
    # x 6*1.39 + 2*1.39 = 11.09->11; 100*(11+7-s)//11 = [100, 63]
    pytest.param(pod(foo="").spread(1, ZONE, SOFT, FOO).spread(1, HOSTNAME, SOFT, FOO).obj(),
                 [ZONES_ABXY[0], ZONES_ABXY[2]], [ZONES_ABXY[1], ZONES_ABXY[3]],
                 spread({"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}), [], [100, 63],
                 id="zone and node constraints, 2 of 4 nodes are candidates"),
    # zone (foo) 2/1, w 1.39; hostname (bar) 0/1/0/1, w ln 6 = 1.79: raw [2.77->3, 4.56->5,
    # 1.39->1, 3.18->3]; 100*(5+1-s)//5 = [60, 20, 100, 60]
    pytest.param(ZONE_HOST_FOO_BAR, ZONES_ABXY, [],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo="", bar=""),
                  placed("p-y1", "node-y", foo=""), placed("p-y2", "node-y", bar="")], [],
                 [60, 20, 100, 60],
                 id="zone and node constraints with different selectors"),
    # zone (foo) 0/2, hostname (bar) 0/1/0/1: raw [0, 1.79->2, 2.77->3, 4.56->5];
    # 100*(5+0-s)//5 = [100, 60, 40, 0]
    pytest.param(ZONE_HOST_FOO_BAR, ZONES_ABXY, [],
                 [placed("p-b1", "node-b", bar=""), placed("p-x1", "node-x", foo=""),
                  placed("p-y1", "node-y", foo="", bar="")], [],
                 [100, 60, 40, 0],
                 id="zone and node constraints with different selectors, some nodes empty"),
    # zone (foo) 2/1, w 1.39; hostname (bar) w ln 5 = 1.61: raw [2.77->3, 4.38->4, 1.39->1];
    # 100*(4+1-s)//4 = [50, 25, 100]
    pytest.param(ZONE_HOST_FOO_BAR, ZONES_ABXY[:3], ZONES_ABXY[3:],
                 [placed("p-a1", "node-a", foo=""), placed("p-b1", "node-b", foo="", bar=""),
                  placed("p-y1", "node-y", foo=""), placed("p-y2", "node-y", bar="")], [],
                 [50, 25, 100],
                 id="zone and node constraints with different selectors, 3 of 4 candidates"),
    # w = 1.39; counts 1/2: raw [1, 2.77->3]; 100*(3+1-s)//3 = [100, 33]
    pytest.param(HOST_1, HABCD[:2], [],
                 [placed("p-a1", "node-a", "ns1", foo=""), placed("p-a2", "node-a", foo=""),
                  placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo="")], [],
                 [100, 33],
                 id="existing pods in a different namespace do not count"),
    # counts 0/1: raw [0, 1.39->1]; 100*(1+0-s)//1 = [100, 0]
    pytest.param(HOST_1, HABCD[:2], [],
                 [placed("p-a", "node-a", terminating=True, foo=""),
                  placed("p-b", "node-b", foo="")], [], [100, 0],
                 id="terminating pods are not counted"),
    # 3 domains: w = ln 5 = 1.61, +1: raw [4.22->4, 4, 2.61->3]; 100*(4+3-s)//4 = [75, 75, 100]
    pytest.param(pod(foo="").spread(2, NODE, SOFT, FOO, 10).obj(),
                 [node("node-a", {NODE: "node-a"}), node("node-b", {NODE: "node-b"}),
                  node("node-c", {NODE: "node-c"})], [],
                 spread({"node-a": 2, "node-b": 2, "node-c": 1}), [], [75, 75, 100],
                 id="minDomains has no effect on ScheduleAnyway"),
    # node-c is no counted domain: counts 2/1/0, w ln 5: raw [3.22->3, 1.61->2, 0];
    # 100*(3+0-s)//3 = [0, 33, 100]
    pytest.param(pod(foo="").node_selector({"foo": ""}).spread(1, NODE, SOFT, FOO).obj(),
                 NODE_ABC, [], PODS_2_1_1, [], [0, 33, 100],
                 id="NodeAffinityPolicy Honor with a nodeSelector"),
    # counts 2/1/1: raw [3, 2, 2]; 100*(3+2-s)//3 = [66, 100, 100]
    pytest.param(pod(foo="").node_selector({"foo": ""})
                 .spread(1, NODE, SOFT, FOO, None, IGNORE).obj(),
                 NODE_ABC, [], PODS_2_1_1, [], [66, 100, 100],
                 id="NodeAffinityPolicy Ignore with a nodeSelector"),
    # as with the nodeSelector: raw [3, 2, 0] -> [0, 33, 100]
    pytest.param(pod(foo="").node_affinity_in("foo", [""]).spread(1, NODE, SOFT, FOO).obj(),
                 NODE_ABC, [], PODS_2_1_1, [], [0, 33, 100],
                 id="NodeAffinityPolicy Honor with required node affinity"),
    # raw [3, 2, 2] -> [66, 100, 100]
    pytest.param(pod(foo="").node_affinity_in("foo", [""])
                 .spread(1, NODE, SOFT, FOO, None, IGNORE).obj(),
                 NODE_ABC, [], PODS_2_1_1, [], [66, 100, 100],
                 id="NodeAffinityPolicy Ignore with required node affinity"),
    # tainted node-c is no counted domain: raw [3, 2, 0] -> [0, 33, 100]
    pytest.param(pod(foo="").spread(1, NODE, SOFT, FOO, None, None, HONOR).obj(),
                 NODE_ABC_TAINT, [], PODS_2_1_1, [], [0, 33, 100],
                 id="NodeTaintsPolicy Honor"),
    # raw [3, 2, 2] -> [66, 100, 100]
    pytest.param(pod(foo="").spread(1, NODE, SOFT, FOO).obj(),
                 NODE_ABC_TAINT, [], PODS_2_1_1, [], [66, 100, 100],
                 id="NodeTaintsPolicy Ignore"),
    # zone foo="" 2/1 (w 1.39), hostname bar="" 0/1/1/0 (w 1.79): raw [2.77->3, 4.56->5,
    # 3.18->3, 1.39->1]; 100*(5+1-s)//5 = [60, 20, 60, 100]
    pytest.param(pod(foo="", bar="").spread(1, ZONE, SOFT, {}, match_label_keys=["foo"])
                 .spread(1, HOSTNAME, SOFT, {}, match_label_keys=["bar"]).obj(),
                 ZONES_ABCD, [], MLK_PODS, [], [60, 20, 60, 100],
                 id="matchLabelKeys are ANDed with an empty labelSelector"),
    # zone foo 2/1, hostname bar,baz="" 0/1/1/0: the same raw [3, 5, 3, 1] -> [60, 20, 60, 100]
    pytest.param(pod(foo="", bar="", baz="").spread(1, ZONE, SOFT, FOO)
                 .spread(1, HOSTNAME, SOFT, BAR, match_label_keys=["baz"]).obj(),
                 ZONES_ABCD, [],
                 [placed("p-a1", "node-a", foo=""),
                  placed("p-b1", "node-b", foo="", bar="", baz=""),
                  placed("p-c1", "node-c", foo=""), placed("p-c2", "node-c", bar=""),
                  placed("p-d3", "node-c", bar="", baz="")], [],
                 [60, 20, 60, 100],
                 id="matchLabelKeys are ANDed with a non-empty labelSelector"),
]


def run_scores(p, nodes, failed, existing, objs, args=SYSTEM):
    pl, snap = setup(nodes + failed, existing, args, objs)
    status, state, pi = pre_score(pl, snap, p, nodes)
    assert status is None
    scores = []
    for n in nodes:
        v, s = pl.score(state, pi, snap.get(n["metadata"]["name"]))
        assert s is None
        scores.append(NodeScore(n["metadata"]["name"], v))
    assert pl.score_nodes(state, pi, [snap.get(s.name) for s in scores]) == \
        [s.score for s in scores]
    assert pl.normalize_score(state, pi, scores) is None
    return [s.score for s in scores]


@pytest.mark.parametrize("p, nodes, failed, existing, objs, want", SCORE_CASES)
def test_score(p, nodes, failed, existing, objs, want):
    assert run_scores(p, nodes, failed, existing, objs) == want


def test_pre_score_without_state_is_an_error():
    pl, snap = setup([hn("node-a")])
    want = Status(Code.Error,
                  err='error reading "PreScorePodTopologySpread" from cycleState: not found')
    assert pl.score(CycleState(), PodInfo(pod().obj()), snap.get("node-a")) == (0, want)
    assert pl.normalize_score(CycleState(), PodInfo(pod().obj()), []) == want


# -- pure arithmetic (scoring.go) ----------------------------------------------------------------
@pytest.mark.parametrize("x, want", [
    pytest.param(2.5, 3, id="a half rounds away from zero, not to even"),
    pytest.param(3.5, 4, id="three and a half rounds up"),
    pytest.param(2.4999, 2, id="below a half rounds down"),
    pytest.param(0.0, 0, id="zero stays zero"),
])
def test_go_round(x, want):
    assert go_round(x) == want


def test_score_for_count_and_weight():
    # 3 domains: ln 5; 2 pods with maxSkew 3: 2 * ln 5 + 2
    assert topology_normalizing_weight(3) == math.log(5)
    assert score_for_count(2, 3, math.log(5)) == 2 * math.log(5) + 2


@pytest.mark.parametrize("raw, ignored, want", [
    # min 2, max 8: 100*(10-s)//8
    pytest.param([2, 5, 8], set(), [100, 62, 25], id="fewer matching pods score higher"),
    pytest.param([0, 0], set(), [100, 100], id="a zero maximum scores every node 100"),
    # node b ignored: min and max over a and c only (3 and 6): 100*(9-s)//6
    pytest.param([3, 0, 6], {"b"}, [100, 0, 50], id="ignored nodes score 0 and set no bound"),
    pytest.param([4], {"a"}, [0], id="all nodes ignored"),
])
def test_normalize_scores(raw, ignored, want):
    scores = [NodeScore(n, v) for n, v in zip("abc", raw)]
    normalize_scores(scores, ignored)
    assert [s.score for s in scores] == want


def test_critical_paths_keep_the_two_smallest_counts():
    p = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2), ("d", 0)]:
        p.update(value, num)
    assert p.paths == [("d", 0), ("b", 1)]
    p.update("d", 2)  # the minimum domain grows: the other path becomes the minimum
    assert p.paths == [("b", 1), ("d", 2)]
    assert p.min_match == 1


# -- DefaultSelector (helper/spread.go) ----------------------------------------------------------
RS_FOO = replica_set("rs1", {"matchLabels": {"foo": "bar"}})

DEFAULT_SELECTOR_CASES = [
    pytest.param(pod(foo="bar").obj(), [service({"foo": "bar"}), service({"baz": "x"})],
                 "foo=bar", id="services selecting the pod give their selectors"),
    pytest.param(pod(foo="bar", a="1").obj(),
                 [service({"foo": "bar"}), service({"a": "1"}, name="s2")],
                 "a=1,foo=bar", id="the selectors of several services are merged"),
    pytest.param(pod(foo="bar").obj(), [service(None), service({})], "",
                 id="a service without selector selects nothing, an empty one adds nothing"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1").obj(), [RS_FOO], "foo=bar",
                 id="the controlling replicaset's selector"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1", controller=False).obj(), [RS_FOO],
                 "", id="an owner that is not the controller is ignored"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs2").obj(), [RS_FOO], "",
                 id="a controller that does not exist adds nothing"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1", "extensions/v1beta1").obj(),
                 [RS_FOO], "", id="a controller of another API version is not supported"),
    pytest.param(pod(foo="bar", x="y").owner("StatefulSet", "ss").obj(),
                 [service({"x": "y"}),
                  replica_set("ss", {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                              kind="StatefulSet")],
                 "foo,x=y", id="a statefulset's selector is added to the services'"),
    pytest.param(pod(foo="bar").owner("ReplicationController", "rc", "v1").obj(),
                 [replication_controller("rc", {"foo": "bar"})], "foo=bar",
                 id="the controlling replicationcontroller's selector"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1").obj(),
                 [replica_set("rs1", None)], "",
                 id="a replicaset with a null selector adds nothing"),
]


@pytest.mark.parametrize("p, objs, want", DEFAULT_SELECTOR_CASES)
def test_default_selector(p, objs, want):
    by_kind = {k: [o for o in objs if o["kind"] == k]
               for k in ("Service", "ReplicationController", "ReplicaSet", "StatefulSet")}
    got = default_selector(p, by_kind["Service"], by_kind["ReplicationController"],
                           by_kind["ReplicaSet"], by_kind["StatefulSet"])
    assert str(got) == want


def test_system_default_constraints_need_a_selector_from_the_pods_owners():
    nodes = [node("node-a", {HOSTNAME: "node-a", TOPOLOGY_ZONE: "z1"})]
    bare = pod(foo="bar").obj()
    owned = pod(foo="bar").owner("ReplicaSet", "rs1").obj()
    pl, snap = setup(nodes, [], SYSTEM, [RS_FOO])
    assert pre_score(pl, snap, bare, nodes)[0] == Status(Code.Skip)
    status, state, _ = pre_score(pl, snap, owned, nodes)
    assert status is None
    assert [(c.topology_key, c.max_skew) for c in state.read(PRE_SCORE_STATE_KEY).constraints] \
        == [(HOSTNAME, 3), (TOPOLOGY_ZONE, 5)]
    # system defaults are all ScheduleAnyway: nothing to filter
    assert pre_filter(pl, snap, owned)[0] == Status(Code.Skip)


def test_a_default_selector_callable_replaces_the_listers():
    nodes = [node("node-a", {HOSTNAME: "node-a"})]
    snap = Snapshot.build(nodes, [])
    pl = PodTopologySpread({}, Handle(snap),
                           default_selector=lambda p: from_label_selector({"matchLabels": {
                               "app": "web"}}))
    status, state, _ = pre_score(pl, snap, pod(app="web").obj(), nodes)
    assert status is None
    assert str(state.read(PRE_SCORE_STATE_KEY).constraints[0].selector) == "app=web"


def test_without_listers_no_default_constraints_apply():
    nodes = [node("node-a", {HOSTNAME: "node-a"})]
    snap = Snapshot.build(nodes, [])
    pl = PodTopologySpread({}, Handle(snap))
    owned = pod(foo="bar").owner("ReplicaSet", "rs1").obj()
    assert pre_score(pl, snap, owned, nodes)[0] == Status(Code.Skip)


def test_count_pods_match_selector_skips_terminating_pods_and_other_namespaces():
    pods = [PodInfo(placed("a", "n", foo="")), PodInfo(placed("b", "n", "other", foo="")),
            PodInfo(placed("c", "n", terminating=True, foo="")), PodInfo(placed("d", "n"))]
    assert count_pods_match_selector(pods, from_label_selector(FOO), "default") == 1
    assert count_pods_match_selector(pods, LabelSelector.everything(), "default") == 0


# -- PodTopologySpreadArgs -----------------------------------------------------------------------
ARGS_CASES = [
    pytest.param({}, [], id="empty args default to System"),
    pytest.param({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]}, [],
        id="listed default constraints"),
    pytest.param({"defaultingType": "Foo"},
                 ['defaultingType: Unsupported value: "Foo": supported values: "System", "List"'],
                 id="an unknown defaulting type"),
    pytest.param({"defaultingType": "System", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]},
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="System defaulting with listed constraints"),
    pytest.param({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Maybe",
         "labelSelector": {}},
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT},
        {"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]},
        ["defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
         "defaultConstraints[0].topologyKey: Required value: can not be empty",
         'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported '
         'values: "DoNotSchedule", "ScheduleAnyway"',
         "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
         "selector, as they deduced for each pod",
         'defaultConstraints[2]: Duplicate value: "{zone, ScheduleAnyway}"'],
        id="invalid listed constraints"),
]


@pytest.mark.parametrize("args, want", ARGS_CASES)
def test_validate_args(args, want):
    from kubesim.scheduler.plugins.podtopologyspread import default_args
    assert validate_args(default_args(args)) == want


def test_invalid_args_refuse_the_plugin():
    with pytest.raises(ValueError, match=r"^\[defaultConstraints\[0\]\.maxSkew"):
        PodTopologySpread({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": SOFT}]})


def test_system_default_constraints():
    assert SYSTEM_DEFAULT_CONSTRAINTS == (
        {"topologyKey": HOSTNAME, "whenUnsatisfiable": SOFT, "maxSkew": 3},
        {"topologyKey": TOPOLOGY_ZONE, "whenUnsatisfiable": SOFT, "maxSkew": 5})


# -- through the framework runtime ---------------------------------------------------------------
def test_the_runtime_runs_every_extension_point():
    from kubesim.scheduler.framework.runtime import Framework
    from kubesim.scheduler.plugins.defaultbinder import DefaultBinder
    from kubesim.scheduler.plugins.prioritysort import PrioritySort

    nodes = FOUR_ZONE_NODES
    snap = Snapshot.build(nodes, PODS_2_1_0_3)
    registry = {"PrioritySort": PrioritySort, "DefaultBinder": DefaultBinder,
                "PodTopologySpread": PodTopologySpread}
    fw = Framework({"schedulerName": "s", "plugins": {"multiPoint": {"enabled": [
        {"name": "PrioritySort"}, {"name": "DefaultBinder"},
        {"name": "PodTopologySpread", "weight": 2}]}}}, registry, Handle(snap))
    p = PodInfo(pod(foo="").spread(1, NODE, HARD, FOO).spread(1, ZONE, SOFT, FOO).obj())
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, p, snap.list())
    assert status is None
    feasible = [ni for ni in snap.list() if fw.run_filter_plugins(state, p, ni) is None]
    assert [ni.name for ni in feasible] == ["node-x"]
    assert fw.run_pre_score_plugins(state, p, snap.list()) is None
    table, status = fw.run_score_plugins(state, p, snap.list())
    assert status is None
    # zone1 3, zone2 3 (w ln 4 = 1.39): raw 4.16 -> 4 everywhere -> normalized 100, weight 2
    assert table.normalized["PodTopologySpread"] == [100, 100, 100, 100]
    assert table.totals == [200, 200, 200, 200]
