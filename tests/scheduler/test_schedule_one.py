"""The engine-facing Scheduler: outcomes, FailedScheduling texts, explanations, logs, tie-breaks,
node sampling and the rotating start index (after upstream schedule_one_test.go)."""

import random

import pytest

from kubesim.scheduler.framework.interface import ReservePlugin
from kubesim.scheduler.framework.runtime import NodeToStatus
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.schedule_one import (Diagnosis, fit_error_message,
                                            num_feasible_nodes_to_find, select_host,
                                            truncate_message)
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_node, make_pod

CP_TAINT = "node-role.kubernetes.io/control-plane"


def cluster(cpu="4", memory="8Gi"):
    return [make_node("controlplane").capacity(cpu=cpu, memory=memory).taint(CP_TAINT).obj(),
            make_node("node01").capacity(cpu=cpu, memory=memory).obj(),
            make_node("node02").capacity(cpu=cpu, memory=memory).obj()]


def scheduler(nodes=None, pods=(), config=None, seed=0, **kw):
    s = Scheduler(config, random.Random(seed), **kw)
    s.set_cluster(cluster() if nodes is None else nodes, list(pods))
    return s


def test_a_pod_is_scheduled_and_explained():
    s = scheduler(pods=[make_pod("a").node("node01").req(cpu="1", memory="1Gi").obj()])
    r = s.schedule_one(make_pod("web").req(cpu="500m", memory="512Mi").obj(), 0.0)
    assert (r.outcome, r.node, r.message) == ("Scheduled", "node02", "")
    assert r.events == [{"type": "Normal", "reason": "Scheduled", "action": "Binding",
                         "message": "Successfully assigned default/web to node02"}]
    e = r.explanation
    # DESIGN 3.5's keys, and the trace the CLI prints only for --trace
    assert set(e) == {"kind", "apiVersion", "pod", "profile", "outcome", "node", "message",
                      "nodes", "preemption", "trace"}
    assert (e["kind"], e["apiVersion"], e["pod"], e["profile"], e["outcome"], e["node"]) == (
        "ScheduleExplanation", "kubesim.io/v1alpha1", {"namespace": "default", "name": "web"},
        "default-scheduler", "Scheduled", "node02")
    cp = e["nodes"]["controlplane"]
    assert cp == {"filter": {"NodeUnschedulable": "passed", "NodeName": "passed",
                             "TaintToleration": "node(s) had untolerated taint(s)",
                             "NodeAffinity": "skipped", "NodePorts": "skipped",
                             "NodeResourcesFit": "passed", "VolumeRestrictions": "skipped",
                             "NodeVolumeLimits": "skipped", "VolumeBinding": "skipped",
                             "VolumeZone": "skipped", "PodTopologySpread": "skipped",
                             "InterPodAffinity": "skipped", "DynamicResources": "skipped"},
                  "feasible": False, "rejectedBy": "TaintToleration"}
    n1 = e["nodes"]["node01"]
    # NodeResourcesFit (LeastAllocated): cpu (4000-1500)*100/4000 = 62, memory
    # (8Gi-1.5Gi)*100/8Gi = 81 -> 71; BalancedAllocation: |0.375-0.1875|/2 -> 90;
    # TaintToleration 100 x 3; NodeAffinity skipped; DynamicResources (no claims) 0;
    # ImageLocality 0 -> total 461
    assert n1["score"]["NodeResourcesFit"] == {"raw": 71, "normalized": 71, "weight": 1, "final": 71}
    assert n1["score"]["TaintToleration"] == {"raw": 0, "normalized": 100, "weight": 3,
                                              "final": 300}
    assert n1["score"]["NodeAffinity"] == {"skipped": True, "raw": 0, "normalized": 0,
                                           "weight": 2, "final": 0}
    assert n1["score"]["DynamicResources"] == {"raw": 0, "normalized": 0, "weight": 1,
                                               "final": 0}
    assert n1["total"] == 461 and e["nodes"]["node02"]["total"] == 486
    assert e["preemption"] is None


def test_the_scheduled_pod_is_assumed_into_the_cache():
    s = scheduler(nodes=cluster(cpu="1"))
    first = s.schedule_one(make_pod("a").req(cpu="800m").obj(), 0.0)
    second = s.schedule_one(make_pod("b").req(cpu="800m").obj(), 0.0)
    assert first.outcome == "Scheduled" and second.outcome == "Scheduled"
    assert first.node != second.node
    third = s.schedule_one(make_pod("c").req(cpu="800m").obj(), 0.0)
    assert third.outcome == "Unschedulable"


FULL = [make_pod("busy1").node("node01").req(cpu="3").obj(),
        make_pod("busy2").node("node02").req(cpu="3").obj()]

MESSAGES = [
    pytest.param(
        make_pod("p").req(cpu="2").obj(), FULL,
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not "
        "helpful for scheduling, 2 No preemption victims found for incoming pod.",
        id="insufficient cpu with nothing to preempt"),
    pytest.param(
        make_pod("p").req(cpu="8").obj(), [],
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not "
        "helpful for scheduling.",
        id="a request larger than any node"),
    pytest.param(
        make_pod("p").node_selector({"disktype": "ssd"}).obj(), [],
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match "
        "Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are "
        "available: 3 Preemption is not helpful for scheduling.",
        id="nodeSelector matching no worker"),
    pytest.param(
        make_pod("p").req(cpu="2").preemption_policy("Never").obj(), FULL,
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
        id="preemptionPolicy Never"),
    pytest.param(
        make_pod("p").required_terms({"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node01"]},
            {"key": "metadata.name", "operator": "In", "values": ["node02"]}]}).obj(), [],
        # NodeAffinity's PreFilter stops the PreFilters before DynamicResources' runs; its
        # PostFilter then fails reading its state ("not found"), which ends the PostFilters.
        "0/3 nodes are available: pod affinity terms conflict. not found",
        id="a PreFilter rejection prints its own message"),
    pytest.param(
        make_pod("p").req(cpu="2").required_terms({"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node01"]}]}).obj(), FULL,
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
        "[NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for "
        "scheduling.",
        id="nodes left out by a PreFilterResult count as not satisfying the plugin"),
    pytest.param(
        make_pod("p").host_port(80).obj(),
        [make_pod("h1").node("node01").host_port(80).obj(),
         make_pod("h2").node("node02").host_port(80).obj()],
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't have free "
        "ports for the requested pod ports. no new claims to deallocate, preemption: 0/3 nodes "
        "are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims "
        "found for incoming pod.",
        id="host ports taken everywhere"),
]


@pytest.mark.parametrize("pod, existing, message", MESSAGES)
def test_failed_scheduling_messages(pod, existing, message):
    r = scheduler(pods=existing).schedule_one(pod, 0.0)
    assert (r.outcome, r.reason, r.node) == ("Unschedulable", "Unschedulable", None)
    assert r.message == message
    assert r.events == [{"type": "Warning", "reason": "FailedScheduling", "action": "Scheduling", "message": message}]
    assert r.explanation["message"] == message


@pytest.mark.parametrize("pod,rejected_by", [
    pytest.param(make_pod("p").req(cpu="64").obj(),
                 {"controlplane": "TaintToleration", "node01": "NodeResourcesFit",
                  "node02": "NodeResourcesFit"},
                 id="the first failing filter in the profile's order is the one kube-scheduler keeps"),
    pytest.param(make_pod("p").required_terms({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node01"]},
        {"key": "metadata.name", "operator": "In", "values": ["node02"]}]}).obj(),
                 {"controlplane": "NodeAffinity", "node01": "NodeAffinity", "node02": "NodeAffinity"},
                 id="a PreFilter rejection is every node's, even where an earlier filter fails too"),
    pytest.param(make_pod("p").required_terms({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node01"]}]}).obj(),
                 {"controlplane": "NodeAffinity", "node02": "NodeAffinity"},
                 id="a node outside PreFilter's node set fails before any filter runs"),
])
def test_an_infeasible_node_names_the_plugin_that_rejected_it(pod, rejected_by):
    nodes = scheduler().explain(pod, 0.0)["nodes"]
    assert {n: d["rejectedBy"] for n, d in nodes.items() if "rejectedBy" in d} == rejected_by
    assert all(d["feasible"] != ("rejectedBy" in d) for d in nodes.values())


def test_preemption_that_helps_prints_no_tail_and_nominates_a_candidate():
    existing = [make_pod("low1").node("node01").req(cpu="3").priority(0).obj(),
                make_pod("low2").node("node02").req(cpu="3").priority(0).obj()]
    r = scheduler(pods=existing).schedule_one(
        make_pod("p").req(cpu="2").priority(1000).obj(), 0.0)
    assert r.message == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                         "2 Insufficient cpu.")
    assert sorted(c["node"] for c in r.explanation["preemption"]["candidates"]) == [
        "node01", "node02"]
    assert r.nominated_node in ("node01", "node02")


def test_without_post_filter_plugins_there_is_no_tail():
    config = {"profiles": [{"plugins": {"multiPoint": {"disabled": [
        {"name": "DefaultPreemption"}, {"name": "DynamicResources"}]}}}]}
    lines = []
    r = scheduler(pods=FULL, config=config, log=lambda *a: lines.append(a)).schedule_one(
        make_pod("p").req(cpu="2").obj(), 0.0)
    assert r.message == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                         "2 Insufficient cpu.")
    assert any(m == "No PostFilter plugins are registered, so no preemption will be performed"
               for _, _, m, _ in lines)


def test_unschedulable_plugins_are_reported():
    r = scheduler(pods=FULL).schedule_one(make_pod("p").req(cpu="2").obj(), 0.0)
    assert r.unschedulable_plugins == ["NodeResourcesFit", "TaintToleration"]


def test_no_nodes():
    r = scheduler(nodes=[]).schedule_one(make_pod("p").obj(), 0.0)
    assert (r.outcome, r.message) == ("Unschedulable", "no nodes available to schedule pods")


@pytest.mark.parametrize("pod, outcome, node, events", [
    pytest.param(make_pod("p").node("node01").obj(), "Bypassed", "node01", [],
                 id="a pod naming its node bypasses the scheduler"),
    pytest.param(make_pod("p").scheduler_name("my-scheduler").obj(), "NotResponsible", None, [],
                 id="a pod for another scheduler is not ours"),
    pytest.param(make_pod("p").terminating().obj(), "Bypassed", None,
                 [{"type": "Warning", "reason": "FailedScheduling", "action": "Scheduling",
                   "message": "skip schedule deleting pod: default/p"}],
                 id="a deleting pod is skipped with an event"),
])
def test_pods_the_scheduler_does_not_place(pod, outcome, node, events):
    r = scheduler().schedule_one(pod, 0.0)
    assert (r.outcome, r.node, r.events) == (outcome, node, events)
    assert r.explanation["outcome"] == outcome


def test_a_gated_pod_is_unschedulable_without_events():
    r = scheduler().schedule_one(make_pod("p").gates("example.com/hold").obj(), 0.0)
    assert (r.outcome, r.reason, r.events) == ("Unschedulable", "SchedulingGated", [])
    assert r.message == "waiting for scheduling gates: [example.com/hold]"


def test_single_feasible_node_is_chosen_without_scoring():
    s = scheduler()
    r = s.schedule_one(make_pod("p").node_selector({"kubernetes.io/hostname": "node02"}).obj(), 0)
    assert r.node == "node02" and (r.evaluated_nodes, r.feasible_nodes) == (3, 1)
    assert "score" not in r.explanation["nodes"]["node02"]


# -- tie-breaks ------------------------------------------------------------------------------
def identical_nodes(n):
    return [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj() for i in range(n)]


def test_ties_are_broken_by_the_seeded_rng_reproducibly():
    picks = [scheduler(nodes=identical_nodes(4), seed=seed).schedule_one(
        make_pod("p").req(cpu="1").obj(), 0).node for seed in range(40)]
    again = [scheduler(nodes=identical_nodes(4), seed=seed).schedule_one(
        make_pod("p").req(cpu="1").obj(), 0).node for seed in range(40)]
    assert picks == again
    assert set(picks) == {"n0", "n1", "n2", "n3"}


def test_explain_predicts_schedule_one_without_consuming_randomness():
    s = scheduler(nodes=identical_nodes(5), seed=7)
    state = s.rng.getstate()
    predicted = s.explain(make_pod("p").req(cpu="1").obj(), 0)
    assert s.rng.getstate() == state and s.next_start_node_index == 0
    assert all(not ni.pods for ni in s.snapshot.list())
    assert s.schedule_one(make_pod("p").req(cpu="1").obj(), 0).node == predicted["node"]


@pytest.mark.parametrize("totals, draws, expected", [
    pytest.param([5, 9, 3], [], "b", id="the best total wins without randomness"),
    pytest.param([9, 9, 9], [2], "c", id="one draw picks among the tied nodes"),
    pytest.param([9, 3, 9], [1], "c", id="only tied nodes are candidates"),
])
def test_select_host(totals, draws, expected):
    class FakeRng:
        def __init__(self):
            self.draws = list(draws)

        def randrange(self, n):
            return self.draws.pop(0)

    assert select_host(["a", "b", "c"], totals, FakeRng()) == expected


@pytest.mark.parametrize("n", [2, 3, 100, 500])
def test_select_host_draws_alike_when_every_node_ties(n):
    """Every node tied: the tied places are the nodes' own, so one draw over all of them picks
    what the draw over the list of tied places picks, consuming the same randomness."""
    names = [f"n{i}" for i in range(n)]
    for seed in range(20):
        rng, ref = random.Random(seed), random.Random(seed)
        assert select_host(names, [7] * n, rng) == names[list(range(n))[ref.randrange(n)]]
        assert rng.getstate() == ref.getstate()


def test_select_host_is_uniform_among_ties():
    rng = random.Random(1)
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(3000):
        counts[select_host(["a", "b", "c", "d"], [5, 5, 5, 1], rng)] += 1
    assert all(900 < c < 1100 for c in counts.values())


# -- how many nodes are evaluated ----------------------------------------------------------------
@pytest.mark.parametrize("percentage, nodes, expected", [
    (0, 50, 50), (0, 99, 99), (0, 100, 100), (0, 1000, 420), (0, 5000, 500), (0, 6000, 300),
    (0, 10000, 500), (30, 5000, 1500), (50, 150, 100), (100, 150, 150),
])
def test_num_feasible_nodes_to_find(percentage, nodes, expected):
    # adaptive: 50% - nodes/125, at least 5%, and never fewer than 100 nodes
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def test_sampling_stops_early_and_the_start_index_rotates():
    s = scheduler(nodes=identical_nodes(200), config={"percentageOfNodesToScore": 50})
    r1 = s.schedule_one(make_pod("a").req(cpu="1").obj(), 0)
    assert (r1.evaluated_nodes, r1.feasible_nodes) == (100, 100)
    assert s.next_start_node_index == 100
    assert int(r1.node[1:]) < 100
    r2 = s.schedule_one(make_pod("b").req(cpu="1").obj(), 0)
    assert int(r2.node[1:]) >= 100 and s.next_start_node_index == 0


def test_profile_percentage_overrides_the_global_one():
    config = {"percentageOfNodesToScore": 50, "profiles": [{"percentageOfNodesToScore": 100}]}
    s = scheduler(nodes=identical_nodes(150), config=config)
    assert s.schedule_one(make_pod("a").obj(), 0).evaluated_nodes == 150


# -- messages ------------------------------------------------------------------------------------
def test_fit_error_histogram_is_sorted_as_strings():
    d = Diagnosis()
    for i in range(10):
        d.node_to_status.set(f"a{i}", Status(Code.Unschedulable, "Insufficient cpu"))
    d.node_to_status.set("b", Status(Code.Unschedulable, "Insufficient memory", "Too many pods"))
    d.node_to_status.set("c", Status(Code.Unschedulable, "Insufficient memory"))
    # Go's sort.Strings: "1 Too..." < "10 Insufficient..." < "2 Insufficient..."
    assert fit_error_message(12, d) == ("0/12 nodes are available: 1 Too many pods, "
                                        "10 Insufficient cpu, 2 Insufficient memory.")


def test_fit_error_counts_absent_nodes_with_the_absent_status():
    nts = NodeToStatus()
    nts.set_absent_nodes_status(Status(Code.UnschedulableAndUnresolvable, "absent reason"))
    nts.set("x", Status(Code.Unschedulable, "present reason"))
    assert fit_error_message(4, Diagnosis(node_to_status=nts)) == (
        "0/4 nodes are available: 1 present reason, 3 absent reason.")


def test_event_messages_are_truncated_to_1024_characters():
    msg = "x" * 2000
    assert len(truncate_message(msg)) == 1024 and truncate_message(msg).endswith(" ...")
    assert truncate_message("short") == "short"


# -- logs ----------------------------------------------------------------------------------------
def test_verbose_logs_carry_weighted_plugin_scores_and_totals():
    lines = []
    s = scheduler(log=lambda *a: lines.append(a))
    r = s.schedule_one(make_pod("web").req(cpu="500m", memory="512Mi").obj(), 0.0)
    msgs = [(lvl, m) for lvl, _, m, _ in lines]
    assert msgs[:2] == [(4, "About to try and schedule pod"), (3, "Attempting to schedule pod")]
    scored = [kv for lvl, _, m, kv in lines if m == "Plugin scored node for pod"]
    assert {"pod": "default/web", "plugin": "TaintToleration", "node": "node01",
            "score": 300} in scored
    # NodeAffinity, PodTopologySpread and InterPodAffinity skip at PreScore; DynamicResources
    # has no PreScore and scores 0 (weight 1) for a pod without claims.
    assert [kv["plugin"] for kv in scored[:5]] == [
        "TaintToleration", "NodeResourcesFit", "DynamicResources",
        "NodeResourcesBalancedAllocation", "ImageLocality"]
    assert {"pod": "default/web", "plugin": "DynamicResources", "node": "node01",
            "score": 0} in scored
    finals = [kv for lvl, _, m, kv in lines if m == "Calculated node's final score for pod"]
    assert [kv["node"] for kv in finals] == ["node01", "node02"]
    bound = [kv for lvl, site, m, kv in lines if m == "Successfully bound pod to node"]
    assert bound == [{"pod": "default/web", "node": r.node, "evaluatedNodes": 3,
                      "feasibleNodes": 2}]
    assert ("Attempting to bind pod to node" in [m for _, _, m, _ in lines])


def test_verbosity_filters_lines():
    lines = []
    s = scheduler(log=lambda *a: lines.append(a), verbosity=2)
    s.schedule_one(make_pod("web").obj(), 0.0)
    assert {lvl for lvl, *_ in lines} == {2}


def test_unschedulable_logs():
    lines = []
    s = scheduler(pods=FULL, log=lambda *a: lines.append(a))
    r = s.schedule_one(make_pod("p").req(cpu="2").obj(), 0.0)
    unable = [kv for lvl, site, m, kv in lines if m == "Unable to schedule pod; no fit; waiting"]
    assert unable == [{"pod": "default/p", "err": r.message}]


# -- reserve failures, nominated pods --------------------------------------------------------------
def test_a_reserve_rejection_is_reported_against_one_node():
    class Refuse(ReservePlugin):
        name = "Refuse"
        undone = []

        def reserve(self, state, pod, node_name):
            return Status(Code.Unschedulable, "volume went away")

        def unreserve(self, state, pod, node_name):
            Refuse.undone.append(node_name)

    s = scheduler()
    s.profiles["default-scheduler"].reserve.append(Refuse())
    r = s.schedule_one(make_pod("p").obj(), 0.0)
    assert (r.outcome, r.message) == ("Unschedulable",
                                      "0/1 nodes are available: 1 volume went away.")
    assert len(Refuse.undone) == 1  # Unreserve ran for the chosen node
    assert all(not ni.pods for ni in s.snapshot.list())  # the assumed pod was forgotten


def test_nominated_pods_of_higher_priority_hold_their_room():
    nominated = make_pod("big").req(cpu="3").priority(100).nominated("node01").obj()
    s = scheduler(pods=[nominated, make_pod("x").node("node02").req(cpu="3").obj()])
    r = s.schedule_one(make_pod("p").req(cpu="2").priority(0).obj(), 0.0)
    assert r.outcome == "Unschedulable"
    assert r.explanation["nodes"]["node01"]["filter"]["NodeResourcesFit"] == "Insufficient cpu"
    # the same pod with a higher priority than the nominated one may take node01
    r = s.schedule_one(make_pod("q").req(cpu="2").priority(1000).obj(), 0.0)
    assert r.node == "node01"


def test_a_pod_with_a_nominated_node_tries_it_first():
    s = scheduler()
    r = s.schedule_one(make_pod("p").nominated("node02").obj(), 0.0)
    assert r.node == "node02" and (r.evaluated_nodes, r.feasible_nodes) == (1, 1)
