"""DefaultPreemption, after upstream's default_preemption_test.go (TestPostFilter,
TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers,
TestCalculateNumCandidates) and validation_pluginargs_test.go (DefaultPreemptionArgs).

The framework is the default profile (upstream's tests register NodeResourcesFit alone; the other
default filters pass on these plain nodes). Resources are upstream's: small 100m/100,
medium 200m/200, large 300m/300, very large 500m/500 (cpu/memory); start times are seconds
after the epoch (upstream: nanoseconds, the same order).
"""

import random

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.runtime import NodeToStatus
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.defaultpreemption import (DefaultPreemption,
                                                         calculate_num_candidates, validate_args)
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_node, make_pod

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}
VIOLATING_KEY = "test.kubernetes.io/is-violating-pdb"


def pod(name, priority=None, node=None, req=None, start=None, labels=None, uid=None):
    w = make_pod(name).uid(uid or name)
    if priority is not None:
        w.priority(priority)
    if req is not None:
        w.req(req)
    for k, v in (labels or {}).items():
        w.label(k, v)
    if node:
        w.node(node)
    p = w.obj()
    if start is not None:
        p["status"]["startTime"] = f"1970-01-01T00:00:{start:02d}Z"
    return p


def node(name, capacity):
    return make_node(name).capacity(capacity).obj()


def pdb(name, match, allowed=0, disrupted=None):
    out = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": name, "namespace": "default"},
           "spec": {"selector": {"matchLabels": match}},
           "status": {"disruptionsAllowed": allowed}}
    if disrupted:
        out["status"]["disruptedPods"] = {n: "2026-01-01T00:00:00Z" for n in disrupted}
    return out


def setup(nodes, pods, pdbs=(), seed=4, args=None):
    config = None
    if args is not None:
        config = {"profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
            {"name": "DefaultPreemption", "args": args}]}]}
    s = Scheduler(config, random.Random(seed))
    s.set_cluster(nodes, pods)
    s.handle.list_objects = lambda kind, ns: list(pdbs) if kind == "PodDisruptionBudget" else []
    s.handle.rng = s.rng
    s.handle.commit = True
    s.handle.writes = []
    fwk = s.profiles["default-scheduler"]
    return s, fwk, fwk.plugins["DefaultPreemption"]


def prefiltered(fwk, s, p):
    state = CycleState()
    pi = PodInfo(p)
    fwk.run_pre_filter_plugins(state, pi, s.snapshot.node_info_list)
    return state, pi


def statuses(mapping, absent=Code.UnschedulableAndUnresolvable):
    m = NodeToStatus()
    m.set_absent_nodes_status(Status(absent))
    for n, c in mapping.items():
        m.set(n, Status(c))
    return m


U, UU = Code.Unschedulable, Code.UnschedulableAndUnresolvable

POST_FILTER = [
    pytest.param(pod("p", HIGH), [pod("p1", node="node1")], [node("node1", ONE_POD)], [],
                 {"node1": U}, "node1", Code.Success, "",
                 id="pod with higher priority can be made schedulable"),
    pytest.param(pod("p"), [pod("p1", node="node1")], [node("node1", ONE_POD)], [],
                 {"node1": U}, "", Code.Unschedulable,
                 "preemption: 0/1 nodes are available: 1 No preemption victims found for "
                 "incoming pod.", id="pod with tied priority is still unschedulable"),
    pytest.param(pod("p", HIGH), [pod("p1", node="node1")], [node("node1", ONE_POD)], [],
                 {"node1": UU}, "", Code.Unschedulable,
                 "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                 "scheduling.", id="preemption should respect filteredNodesStatuses"),
    pytest.param(pod("p", HIGH), [pod("p1", node="node1")], [node("node1", ONE_POD)], [],
                 {}, "", Code.Unschedulable,
                 "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                 "scheduling.",
                 id="an absent NodeToStatus entry means UnschedulableAndUnresolvable"),
    pytest.param(pod("p", MID), [pod("p1", HIGH, "node1"), pod("p2", LOW, "node2")],
                 [node("node1", ONE_POD), node("node2", ONE_POD)], [],
                 {"node1": U, "node2": U}, "node2", Code.Success, "",
                 id="pod can be made schedulable on one node"),
    pytest.param(pod("p", VERY_HIGH),
                 [pod("p1", HIGH, "node1", labels={VIOLATING_KEY: "non-violating"}),
                  pod("p2", LOW, "node1", labels={VIOLATING_KEY: "violating"}),
                  pod("p3", MID, "node2", labels={VIOLATING_KEY: "violating"})],
                 [node("node1", ONE_POD), node("node2", ONE_POD)],
                 [pdb("violating-pdb", {VIOLATING_KEY: "violating"}),
                  pdb("non-violating-pdb", {VIOLATING_KEY: "non-violating"}, 2**31 - 1)],
                 {"node1": U, "node2": U}, "node2", Code.Success, "",
                 id="pod can be made schedulable on minHighestPriority node"),
    pytest.param(pod("p", HIGH, req=LARGE), [pod("p1", node="node1"), pod("p2", node="node2")],
                 [node("node1", NODE_RES), node("node2", NODE_RES)], [],
                 {"node1": U, "node2": U}, "", Code.Unschedulable,
                 "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
                 id="no candidate nodes found, no enough resource after removing low priority pods"),
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1", HIGH, "node1"), pod("p2", node="node2"), pod("p3", HIGH, "node3")],
                 [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)], [],
                 {"node1": U, "node2": U, "node3": U}, "", Code.Unschedulable,
                 "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption "
                 "victims found for incoming pod.",
                 id="no candidate nodes found with mixed reasons, no lower priority pod and no "
                    "enough CPU resource"),
    pytest.param(pod("p", HIGH, req=LARGE), [pod("p1", node="node1"), pod("p2", node="node2")],
                 [node(f"node{i}", NODE_RES) for i in (1, 2, 3, 4)], [],
                 {"node1": U, "node2": U, "node4": UU}, "", Code.Unschedulable,
                 "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not "
                 "helpful for scheduling.",
                 id="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable "
                    "nodes and 2 nodes don't have enough CPU resource"),
]


@pytest.mark.parametrize("p, pods, nodes, pdbs, node_statuses, want_node, want_code, want_msg",
                         POST_FILTER)
def test_post_filter(p, pods, nodes, pdbs, node_statuses, want_node, want_code, want_msg):
    s, fwk, pl = setup(nodes, pods, pdbs)
    state, pi = prefiltered(fwk, s, p)
    result, status = pl.post_filter(state, pi, statuses(node_statuses))
    assert status.code == want_code
    assert status.message() == want_msg
    assert result is not None and result.nominated_node_name == want_node
    assert result.mode_override


SELECT_BEST = [
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1", MID, "node1", LARGE, 0), pod("p2", MID, "node2", LARGE, 0)],
                 ["node1", "node2"],
                 id="a pod that fits on both nodes when lower priority pods are preempted"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, 0), pod("p1.2", MID, "node1", LARGE, 0),
                  pod("p2.1", MID, "node2", MEDIUM, 0), pod("p2.2", LOW, "node2", MEDIUM, 0),
                  pod("p3.1", LOW, "node3", MEDIUM, 0), pod("p3.2", LOW, "node3", MEDIUM, 0)],
                 ["node3"], id="node with min highest priority pod is picked"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, 0), pod("p1.2", MID, "node1", LARGE, 0),
                  pod("p2.1", MID, "node2", LARGE, 0), pod("p2.2", LOW, "node2", MEDIUM, 0),
                  pod("p3.1", MID, "node3", MEDIUM, 0), pod("p3.2", MID, "node3", MEDIUM, 0)],
                 ["node2"], id="when highest priorities are the same, minimum sum of priorities "
                               "is picked"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", SMALL, 0), pod("p1.2", NEG, "node1", SMALL, 0),
                  pod("p1.3", MID, "node1", SMALL, 0), pod("p1.4", NEG, "node1", SMALL, 0),
                  pod("p2.1", MID, "node2", LARGE, 0), pod("p2.2", NEG, "node2", MEDIUM, 0),
                  pod("p3.1", MID, "node3", MEDIUM, 0), pod("p3.2", NEG, "node3", SMALL, 0),
                  pod("p3.3", LOW, "node3", SMALL, 0)],
                 ["node2"], id="when highest priority and sum are the same, minimum number of "
                               "pods is picked"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", SMALL, 0), pod("p1.2", NEG, "node1", SMALL, 0),
                  pod("p1.3", NEG, "node1", SMALL, 0),
                  pod("p2.1", MID, "node2", LARGE, 0), pod("p2.2", NEG, "node2", MEDIUM, 0),
                  pod("p3.1", MID, "node3", MEDIUM, 0), pod("p3.2", NEG, "node3", SMALL, 0),
                  pod("p3.3", LOW, "node3", SMALL, 0)],
                 ["node2"], id="sum of adjusted priorities is considered"),
    pytest.param(pod("p", VERY_HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", SMALL, 0), pod("p1.2", LOW, "node1", SMALL, 0),
                  pod("p1.3", LOW, "node1", SMALL, 0),
                  pod("p2.1", HIGH, "node2", LARGE, 0),
                  pod("p3.1", MID, "node3", MEDIUM, 0), pod("p3.2", LOW, "node3", SMALL, 0),
                  pod("p3.3", LOW, "node3", SMALL, 0), pod("p3.4", LOW, "node3", MEDIUM, 0),
                  pod("p4.1", MID, "node4", MEDIUM, 0), pod("p4.2", MID, "node4", SMALL, 0),
                  pod("p4.3", MID, "node4", SMALL, 0), pod("p4.4", NEG, "node4", SMALL, 0)],
                 ["node1"], id="non-overlapping lowest high priority, sum priorities, and number "
                               "of pods"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, 2), pod("p1.2", MID, "node1", MEDIUM, 2),
                  pod("p2.1", MID, "node2", MEDIUM, 3), pod("p2.2", MID, "node2", MEDIUM, 3),
                  pod("p3.1", MID, "node3", MEDIUM, 1), pod("p3.2", MID, "node3", MEDIUM, 1)],
                 ["node2"], id="same priority, same number of victims, different start time for "
                               "each node's pod"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, 4), pod("p1.2", MID, "node1", MEDIUM, 2),
                  pod("p2.1", MID, "node2", MEDIUM, 5), pod("p2.2", MID, "node2", MEDIUM, 1),
                  pod("p3.1", MID, "node3", MEDIUM, 3), pod("p3.2", MID, "node3", MEDIUM, 6)],
                 ["node3"], id="same priority, same number of victims, different start time for "
                               "all pods"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", LOW, "node1", MEDIUM, 4), pod("p1.2", MID, "node1", MEDIUM, 2),
                  pod("p2.1", MID, "node2", MEDIUM, 6), pod("p2.2", LOW, "node2", MEDIUM, 1),
                  pod("p3.1", LOW, "node3", MEDIUM, 3), pod("p3.2", MID, "node3", MEDIUM, 5)],
                 ["node2"], id="different priority, same number of victims, different start time "
                               "for all pods"),
]


def _node_names_of(pods):
    return sorted({p["spec"]["nodeName"] for p in pods})


@pytest.mark.parametrize("p, pods, expected", SELECT_BEST)
def test_select_best_candidate(p, pods, expected):
    nodes = [node(n, VERY_LARGE) for n in _node_names_of(pods)]
    s, fwk, pl = setup(nodes, pods)
    state, pi = prefiltered(fwk, s, p)
    infos = s.snapshot.node_info_list
    offset, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, err = pl.evaluator.dry_run_preemption(fwk, state, pi, infos, [], offset, num)
    assert err is None
    best, _rule = pl.evaluator.select_candidate(cands)
    assert best is not None and best.name in expected


DRY_RUN = [
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1", MID, "node1", LARGE), pod("p2", MID, "node2", LARGE)],
                 ["node1", "node2"], [],
                 {"node1": (["p1"], 0), "node2": (["p2"], 0)},
                 id="a pod that fits on both nodes when lower priority pods are preempted"),
    pytest.param(pod("p", LOW, req=LARGE),
                 [pod("p1", MID, "node1", LARGE), pod("p2", MID, "node2", LARGE)],
                 ["node1", "node2"], [], {},
                 id="a pod that would fit on the nodes, but other pods running are higher "
                    "priority, no preemption would happen"),
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1.1", LOW, "node1", SMALL), pod("p1.2", MID, "node1", LARGE),
                  pod("p2", MID, "node2", LARGE)],
                 ["node1", "node2"], [],
                 {"node1": (["p1.2"], 0), "node2": (["p2"], 0)},
                 id="medium priority pod is preempted, but lower priority one stays as it is "
                    "small"),
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1.1", MID, "node1", SMALL), pod("p1.2", LOW, "node1", SMALL),
                  pod("p1.3", MID, "node1", MEDIUM), pod("p1.4", HIGH, "node1", SMALL),
                  pod("p2", HIGH, "node2", LARGE)],
                 ["node1", "node2"], [],
                 {"node1": (["p1.2", "p1.3"], 0)},
                 id="mixed priority pods are preempted"),
    pytest.param(pod("p", HIGH, req=LARGE),
                 [pod("p1.1", LOW, "node1", SMALL, 5), pod("p1.2", LOW, "node1", SMALL, 4),
                  pod("p1.3", MID, "node1", MEDIUM, 3), pod("p1.4", HIGH, "node1", SMALL, 2),
                  pod("p2", HIGH, "node2", LARGE, 1)],
                 ["node1", "node2"], [],
                 {"node1": (["p1.1", "p1.3"], 0)},
                 id="mixed priority pods are preempted, pick later StartTime one when priorities "
                    "are equal"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, labels={"app": "foo"}),
                  pod("p1.2", MID, "node1", MEDIUM, labels={"app": "foo"})],
                 ["node1"], [pdb("pdb", {"app": "foo"}, 1)],
                 {"node1": (["p1.1", "p1.2"], 1)},
                 id="preemption with violation of same pdb"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, labels={"app": "foo"}),
                  pod("p1.2", MID, "node1", MEDIUM, labels={"app": "foo"})],
                 ["node1"], [pdb("pdb", {"app": "foo"}, 1, ["p2"])],
                 {"node1": (["p1.1", "p1.2"], 1)},
                 id="preemption with violation of the pdb with pod whose eviction was processed, "
                    "the victim doesn't belong to DisruptedPods"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, labels={"app": "foo"}),
                  pod("p1.2", MID, "node1", MEDIUM, labels={"app": "foo"})],
                 ["node1"], [pdb("pdb", {"app": "foo"}, 1, ["p1.2"])],
                 {"node1": (["p1.1", "p1.2"], 0)},
                 id="preemption with violation of the pdb with pod whose eviction was processed, "
                    "the victim belongs to DisruptedPods"),
    pytest.param(pod("p", HIGH, req=VERY_LARGE),
                 [pod("p1.1", MID, "node1", MEDIUM, labels={"app": "foo"}),
                  pod("p1.2", MID, "node1", MEDIUM, labels={"app": "foo"}),
                  pod("p1.3", MID, "node1", MEDIUM, labels={"app": "foo"})],
                 ["node1"], [pdb("pdb", {"app": "foo"}, 1, ["p1.3"])],
                 {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
                 id="preemption with violation of the pdb with pod whose eviction was processed, "
                    "the victim which belongs to DisruptedPods is treated as 'nonViolating'"),
]


@pytest.mark.parametrize("p, pods, names, pdbs, expected", DRY_RUN)
def test_dry_run_preemption(p, pods, names, pdbs, expected):
    nodes = [node(n, VERY_LARGE) for n in names]
    s, fwk, pl = setup(nodes, pods, pdbs)
    state, pi = prefiltered(fwk, s, p)
    infos = s.snapshot.node_info_list
    cands, _, err = pl.evaluator.dry_run_preemption(fwk, state, pi, infos, pdbs, 0, len(infos))
    assert err is None
    got = {c.name: (sorted(v.name for v in c.victims), c.num_pdb_violations) for c in cands}
    assert got == expected


def test_dry_run_stops_once_it_has_enough_candidates():
    # minCandidateNodesAbsolute 1: the first node with victims (from the offset) is enough.
    names = ["node1", "node2", "node3"]
    pods = [pod(f"v{i}", LOW, n, LARGE) for i, n in enumerate(names)]
    s, fwk, pl = setup([node(n, VERY_LARGE) for n in names], pods,
                       args={"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1})
    state, pi = prefiltered(fwk, s, pod("p", HIGH, req=LARGE))
    infos = s.snapshot.node_info_list
    cands, statuses, _ = pl.evaluator.dry_run_preemption(fwk, state, pi, infos, [], 1, 1)
    assert [c.name for c in cands] == ["node2"] and statuses == {}


def test_select_victims_reports_a_failing_pre_filter_extension():
    class Failing:
        def remove_pod(self, *a):
            return Status(Code.Error, err="failed to remove pod: p")

        def add_pod(self, *a):
            return None

    s, fwk, pl = setup([node("node1", LARGE)], [pod("p1", node="node1")])
    state, pi = prefiltered(fwk, s, pod("p", HIGH, req=LARGE))
    fit = fwk.plugins["NodeResourcesFit"]
    fit.pre_filter_extensions = lambda: Failing()
    victims, _, st = pl.select_victims_on_node(fwk, state, pi, s.snapshot.node_info_list[0].clone(),
                                               [])
    assert victims == [] and st.code == Code.Error
    assert st.message() == ('running RemovePod on PreFilter plugin "NodeResourcesFit": '
                            "failed to remove pod: p")


def _terminating_victim(name, node_name, priority, by_scheduler=True):
    p = pod(name, priority, node_name)
    p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    if by_scheduler:
        p["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                      "reason": "PreemptionByScheduler"}]
    return p


ELIGIBLE = [
    pytest.param(pod("p", HIGH), [pod("p1", LOW, "node1")], None, True, "",
                 id="Pod with nominated node"),
    pytest.param(make_pod("p").uid("p").priority(HIGH).preemption_policy("Never").obj(),
                 [pod("p1", LOW, "node1")], None, False,
                 "not eligible due to preemptionPolicy=Never.",
                 id="Pod with PreemptNever preemption policy"),
    pytest.param(make_pod("p").uid("p").priority(HIGH).nominated("node1").obj(),
                 [_terminating_victim("p1", "node1", LOW)], None, False,
                 "not eligible due to a terminating pod on the nominated node.",
                 id="victim Pods terminating, preemptor is not eligible"),
    pytest.param(make_pod("p").uid("p").priority(HIGH).nominated("node1").obj(),
                 [_terminating_victim("p1", "node1", LOW, by_scheduler=False)], None, True, "",
                 id="a terminating pod not preempted by the scheduler does not block"),
    pytest.param(make_pod("p").uid("p").priority(HIGH).nominated("node1").obj(),
                 [_terminating_victim("p1", "node1", HIGH)], None, True, "",
                 id="a terminating pod of equal priority does not block"),
    pytest.param(make_pod("p").uid("p").priority(HIGH).nominated("node1").obj(),
                 [_terminating_victim("p1", "node1", LOW)], Code.UnschedulableAndUnresolvable,
                 True, "",
                 id="victim Pods terminating but the nominated node is unresolvable, preemptor is "
                    "eligible"),
]


@pytest.mark.parametrize("p, pods, nominated_status, want, reason", ELIGIBLE)
def test_pod_eligible_to_preempt_others(p, pods, nominated_status, want, reason):
    s, fwk, pl = setup([node("node1", VERY_LARGE)], pods)
    st = Status(nominated_status) if nominated_status is not None else Status(Code.Unschedulable)
    assert pl.pod_eligible_to_preempt_others(PodInfo(p), st) == (want, reason)


@pytest.mark.parametrize("num_nodes, pct, absolute, want", [
    pytest.param(10, 10, 100, 10, id="normal"),
    pytest.param(1000, 10, 100, 100, id="one percent is less than the absolute minimum"),
    pytest.param(1000, 40, 100, 400, id="forty percent of a thousand nodes"),
    pytest.param(100, 10, 0, 10, id="absolute zero: the percentage decides"),
    pytest.param(50, 0, 10, 10, id="percentage zero: the absolute minimum decides"),
    pytest.param(5, 50, 1, 2, id="never more than the nodes and rounded down"),
])
def test_calculate_num_candidates(num_nodes, pct, absolute, want):
    assert calculate_num_candidates(num_nodes, pct, absolute) == want


@pytest.mark.parametrize("args, errs", [
    pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}, [],
                 id="the defaults are valid"),
    pytest.param({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
                 ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"],
                 id="negative percentage"),
    pytest.param({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": -1},
                 ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
                 id="negative absolute"),
    pytest.param({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
                 ["minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time "
                  "as minCandidateNodesAbsolute",
                  "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time "
                  "as minCandidateNodesPercentage"], id="both zero"),
])
def test_validate_args(args, errs):
    assert validate_args(args) == errs


def test_invalid_args_fail_the_profile():
    with pytest.raises(ValueError):
        DefaultPreemption({"minCandidateNodesPercentage": 200})


class _FailingOnLabelledNodes:
    """upstream's TestPlugin: AddPod/RemovePod fail on nodes labelled error=true."""

    def add_pod(self, state, pod, to_add, node):
        if node.labels.get("error") == "true":
            return Status(Code.Error, err=f"failed to add pod: {pod.name}")
        return None

    def remove_pod(self, state, pod, to_remove, node):
        if node.labels.get("error") == "true":
            return Status(Code.Error, err=f"failed to remove pod: {pod.name}")
        return None


@pytest.mark.parametrize("nodes, pods, want_node, want_code, want_msg", [
    pytest.param([make_node("node1").capacity(LARGE).label("error", "true").obj()],
                 [pod("p1", node="node1")], None, Code.Error,
                 'preemption: running RemovePod on PreFilter plugin "NodeResourcesFit": '
                 "failed to remove pod: p", id="only one node but failed with TestPlugin"),
    pytest.param([make_node("node1").capacity(LARGE).label("error", "true").obj(),
                  make_node("node2").capacity(LARGE).obj()],
                 [pod("p1", node="node1"), pod("p2", node="node2", req=MEDIUM)], "node2",
                 Code.Success, "", id="one failed with TestPlugin and the other pass"),
])
def test_post_filter_with_failing_pre_filter_extensions(nodes, pods, want_node, want_code,
                                                        want_msg):
    s, fwk, pl = setup(nodes, pods)
    fwk.plugins["NodeResourcesFit"].pre_filter_extensions = lambda: _FailingOnLabelledNodes()
    state, pi = prefiltered(fwk, s, pod("p", HIGH, req=LARGE))
    result, status = pl.post_filter(state, pi, statuses({n["metadata"]["name"]: U
                                                         for n in nodes}))
    assert (status.code, status.message()) == (want_code, want_msg)
    assert (result.nominated_node_name if result else None) == want_node


def _host(name, capacity, zone=None):
    w = make_node(name).capacity(capacity).label("kubernetes.io/hostname", name)
    if zone:
        w.label("zone", zone)
    return w.obj()


def _anti_affine(p):
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
         "topologyKey": "kubernetes.io/hostname"}]}}
    return p


def _spread(p):
    p["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}}]
    return p


TWO_PODS = {"pods": "2", "cpu": "1", "memory": "1Gi"}


@pytest.mark.parametrize("p, pods, nodes, expected, not_helpful", [
    pytest.param(pod("p", HIGH, labels={"foo": ""}),
                 [_anti_affine(pod("p1.1", LOW, "node1", SMALL, labels={"foo": ""})),
                  pod("p1.2", MID, "node1", SMALL), pod("p2", HIGH, "node2", SMALL)],
                 [_host("node1", VERY_LARGE), _host("node2", VERY_LARGE)],
                 {"node1": ["p1.1"]},
                 {"node2": "No preemption victims found for incoming pod"},
                 id="pod with anti-affinity is preempted"),
    pytest.param(_spread(pod("p", HIGH, labels={"foo": ""})),
                 [pod("pod-a1", MID, "node-a", SMALL, labels={"foo": ""}),
                  pod("pod-a2", LOW, "node-a", SMALL, labels={"foo": ""}),
                  pod("pod-b1", LOW, "node-b", SMALL, labels={"foo": ""}),
                  pod("pod-x1", HIGH, "node-x", LARGE, labels={"foo": ""}),
                  pod("pod-x2", HIGH, "node-x", LARGE, labels={"foo": ""})],
                 [_host("node-a", TWO_PODS, "zone1"), _host("node-b", TWO_PODS, "zone1"),
                  _host("node-x", TWO_PODS, "zone2")],
                 {"node-a": ["pod-a2"], "node-b": ["pod-b1"]},
                 {"node-x": "No preemption victims found for incoming pod"},
                 id="preemption to resolve pod topology spread filter failure"),
])
def test_select_victims_through_the_pre_filter_extensions(p, pods, nodes, expected, not_helpful):
    # upstream TestSelectNodesForPreemption: removing and reprieving victims goes through
    # InterPodAffinity's and PodTopologySpread's AddPod/RemovePod, so their filters see it.
    s, fwk, pl = setup(nodes, pods)
    state, pi = prefiltered(fwk, s, p)
    infos = s.snapshot.node_info_list
    cands, statuses_, err = pl.evaluator.dry_run_preemption(fwk, state, pi, infos, [], 0,
                                                            len(infos))
    assert err is None
    assert {c.name: [v.name for v in c.victims] for c in cands} == expected
    assert {n: st.message() for n, st in statuses_.items()} == not_helpful
