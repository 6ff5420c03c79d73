"""PodTopologySpread's soft constraints: mirrors upstream scoring_test.go (TestPreScoreSkip,
TestPreScoreStateEmptyNodes, TestPodTopologySpreadScore) in v1.35's shape, and the scoring
arithmetic."""

import math

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import NodeScore
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread.scoring import (PRE_SCORE_STATE_KEY, go_round,
                                                                 normalize_score_list,
                                                                 normalize_scores, score_for_count,
                                                                 topology_normalizing_weight)

from .builders import (BAR, FOO, HARD, HONOR, HOSTNAME, IGNORE, NODE, SOFT, TOPOLOGY_ZONE, ZONE,
                       hn, node, placed, pod, replica_set, service)
from .harness import C, LIST, SYSTEM, TAINT, pre_score, setup


# -- TestPreScoreSkip / TestPreScoreStateEmptyNodes ----------------------------------------------
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
    # the batch path: the same numbers from the ignored nodes' positions
    positions = [i for i, n in enumerate("abc"[:len(raw)]) if n in ignored]
    assert normalize_score_list(raw, positions) == want


def test_normalize_score_list_agrees_with_normalize_scores_on_random_scores():
    import random

    rng = random.Random(3)
    for _ in range(300):
        raw = [rng.randint(0, 20) for _ in range(rng.randint(0, 8))]
        names = [f"n{i}" for i in range(len(raw))]
        ignored = {n for n in names if rng.random() < 0.3}
        scores = [NodeScore(n, v) for n, v in zip(names, raw)]
        normalize_scores(scores, ignored)
        positions = [i for i, n in enumerate(names) if n in ignored]
        assert normalize_score_list(raw, positions) == [x.score for x in scores], (raw, ignored)
