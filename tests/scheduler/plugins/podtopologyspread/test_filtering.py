"""PodTopologySpread's hard constraints: mirrors upstream filtering_test.go (TestPreFilterState,
TestPreFilterStateAddPod, TestPreFilterStateRemovePod, TestSingleConstraint,
TestMultipleConstraints, TestPreFilterDisabled) in v1.35's shape: state indexed by constraint,
NodeInclusionPolicy and matchLabelKeys always on (the "feature gate disabled" cases are left
out). Upstream's TpKeyToCriticalPaths/TpPairToMatchNum expectations are rewritten per
constraint; critical paths compare as upstream's cmp option does (equal counts in any order)."""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, MAX_INT32,
    PRE_FILTER_STATE_KEY, CriticalPaths, critical_paths_of)

from .builders import (BAR, FOO, HARD, HONOR, IGNORE, NODE, SOFT, ZONE, node, placed, pod, service,
                       zn)
from .harness import C, FOUR_ZONE_NODES, LIST, PODS_2_1_0_3, TAINT, pre_filter, setup


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


def assert_state(got, constraints, counts, critical):
    assert got.constraints == constraints
    assert got.tp_value_to_match_num == counts
    assert [_sorted(cp.paths) for cp in got.critical_paths] == [_sorted(p) for p in critical]


# -- TestPreFilterState --------------------------------------------------------------------------
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


def test_critical_paths_keep_the_two_smallest_counts():
    p = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2), ("d", 0)]:
        p.update(value, num)
    assert p.paths == [("d", 0), ("b", 1)]
    p.update("d", 2)  # the minimum domain grows: the other path becomes the minimum
    assert p.paths == [("b", 1), ("d", 2)]
    assert p.min_match == 1


@pytest.mark.parametrize("counts", [
    pytest.param({}, id="no domain leaves both paths unset"),
    pytest.param({"a": 2}, id="one domain fills only the first path"),
    pytest.param({"a": 3, "b": 1, "c": 2, "d": 0}, id="the two smallest counts"),
    pytest.param({"a": 1, "b": 1, "c": 1}, id="ties go to the first domains seen"),
    pytest.param({"a": 2, "b": 1, "c": 1}, id="the second path is the first tie after the first"),
    pytest.param({"": 3, "a": 1}, id="an empty topology value is a domain like any other"),
    pytest.param({"a": 1, "": 1}, id="an empty value tying the minimum comes second"),
    pytest.param({"a": 2, "b": 1, "": 0}, id="an empty value can be the minimum"),
])
def test_critical_paths_of_counts_is_what_update_leaves(counts):
    p = CriticalPaths()
    for value, num in counts.items():
        p.update(value, num)
    assert critical_paths_of(counts).paths == p.paths


def test_critical_paths_of_random_counts_is_what_update_leaves():
    import random

    rng = random.Random(7)
    for _ in range(500):
        values = rng.sample(["", "a", "b", "c", "d", "e", "f", "g"], rng.randint(0, 8))
        counts = {v: rng.randint(0, 3) for v in values}
        p = CriticalPaths()
        for value, num in counts.items():
            p.update(value, num)
        assert critical_paths_of(counts).paths == p.paths, counts
