"""The preemption Evaluator (after upstream preemption_test.go and executor_test.go):
pickOneNodeForPreemption's ordered rules, filterPodsWithPDBViolation, the nodes where
preemption might help, and a whole scheduling cycle that preempts: the API requests (the
DisruptionTarget condition, the graceful delete with its Preempted event, cleared nominations),
the nominated node, the pod nominator, the explanation, and explain() writing nothing."""

import random

import pytest

from kubesim.scheduler.framework.preemption import (
    RULE_FIRST, RULE_HIGHEST_PRIORITY, RULE_NUM_PODS, RULE_PDB, RULE_START_TIME,
    RULE_SUM_PRIORITIES, Candidate, filter_pods_with_pdb_violation, more_important_pod,
    pick_one_node_for_preemption)
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_node, make_pod

CP_TAINT = "node-role.kubernetes.io/control-plane"


def victim(name, priority=0, start=None, labels=None, namespace="default"):
    w = make_pod(name, namespace).uid(name).priority(priority)
    for k, v in (labels or {}).items():
        w.label(k, v)
    p = w.obj()
    if start is not None:
        p["status"]["startTime"] = f"2026-01-01T00:00:{start:02d}Z"
    return PodInfo(p)


def cand(name, *victims, pdb=0):
    return Candidate(name, list(victims), pdb)


PICK = [
    pytest.param([cand("node1", victim("a", 10), pdb=1), cand("node2", victim("b", 100))],
                 "node2", RULE_PDB, id="the node with fewer PDB violations wins"),
    pytest.param([cand("node1", victim("a", 100)), cand("node2", victim("b", 10), victim("c", 5))],
                 "node2", RULE_HIGHEST_PRIORITY,
                 id="then the node whose most important victim has the lowest priority"),
    pytest.param([cand("node1", victim("a", 10), victim("b", 5)),
                  cand("node2", victim("c", 10), victim("d", 1))],
                 "node2", RULE_SUM_PRIORITIES, id="then the lowest sum of victim priorities"),
    pytest.param([cand("node1", victim("a", 10), victim("b", -100), victim("c", -100)),
                  cand("node2", victim("d", 10), victim("e", -100))],
                 "node2", RULE_SUM_PRIORITIES,
                 id="negative priorities are shifted by MaxInt32+1, so more victims cost more"),
    pytest.param([cand("node1", victim("a", 10, 1)), cand("node2", victim("b", 10, 3)),
                  cand("node3", victim("c", 10, 2))],
                 "node2", RULE_START_TIME,
                 id="then the latest start of the highest-priority victims"),
    pytest.param([cand("node1", victim("a", 10, 1)), cand("node2", victim("b", 10, 1))],
                 "node1", RULE_FIRST, id="every rule tied: the first candidate"),
]


@pytest.mark.parametrize("candidates, node, rule", PICK)
def test_pick_one_node_for_preemption(candidates, node, rule):
    assert pick_one_node_for_preemption(candidates) == (node, rule)


def test_fewest_victims_decides_when_sums_tie():
    # MinInt32 victims add 0 to the shifted sum: node1 (2 victims) and node2 (1) tie on sum.
    lowest = -(2**31)
    candidates = [cand("node1", victim("a", 10), victim("b", lowest)),
                  cand("node2", victim("c", 10), victim("d", lowest), victim("e", lowest))]
    assert pick_one_node_for_preemption(candidates) == ("node1", RULE_NUM_PODS)


def test_more_important_pod():
    assert more_important_pod(victim("a", 10), victim("b", 5))
    assert more_important_pod(victim("a", 5, 1), victim("b", 5, 2))
    assert not more_important_pod(victim("a", 5, 2), victim("b", 5, 1))
    # without a start time a pod counts as started now: later than any recorded start
    assert more_important_pod(victim("a", 5, 1), victim("b", 5))


def _pdb(name, selector, allowed, namespace="default", disrupted=()):
    return {"kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": selector},
            "status": {"disruptionsAllowed": allowed,
                       "disruptedPods": {d: "2026-01-01T00:00:00Z" for d in disrupted}}}


FOO = {"matchLabels": {"app": "foo"}}

PDB_VIOLATION = [
    pytest.param([victim("a", labels={"app": "foo"}), victim("b", labels={"app": "foo"})],
                 [_pdb("p", FOO, 1)], ["b"], ["a"],
                 id="the budget is used up in order: the second pod violates"),
    pytest.param([victim("a", labels={"app": "foo"})], [_pdb("p", FOO, 0, "other")], [], ["a"],
                 id="a PDB in another namespace does not match"),
    pytest.param([victim("a")], [_pdb("p", FOO, 0)], [], ["a"],
                 id="a pod without labels matches no PDB"),
    pytest.param([victim("a", labels={"app": "foo"})], [_pdb("p", {}, 0)], [], ["a"],
                 id="an empty selector matches nothing"),
    pytest.param([victim("a", labels={"app": "foo"})], [_pdb("p", None, 0)], [], ["a"],
                 id="a missing selector matches nothing"),
    pytest.param([victim("a", labels={"app": "foo"})],
                 [_pdb("p", {"matchExpressions": [{"key": "app", "operator": "Bad"}]}, 0)],
                 [], ["a"], id="an invalid selector matches nothing"),
    pytest.param([victim("a", labels={"app": "foo"}), victim("b", labels={"app": "foo"})],
                 [_pdb("p", FOO, 0, disrupted=["a"])], ["b"], ["a"],
                 id="a pod already in disruptedPods does not use the budget"),
    pytest.param([victim("a", labels={"app": "foo", "tier": "x"})],
                 [_pdb("p", FOO, 5), _pdb("q", {"matchLabels": {"tier": "x"}}, 0)], ["a"], [],
                 id="one exhausted PDB among several makes the pod violating"),
]


@pytest.mark.parametrize("pods, pdbs, violating, non_violating", PDB_VIOLATION)
def test_filter_pods_with_pdb_violation(pods, pdbs, violating, non_violating):
    v, nv = filter_pods_with_pdb_violation(pods, pdbs)
    assert ([p.name for p in v], [p.name for p in nv]) == (violating, non_violating)


# -- a whole cycle ---------------------------------------------------------------------------
def cluster():
    return [make_node("controlplane").capacity(cpu="4", memory="8Gi").taint(CP_TAINT).obj(),
            make_node("node01").capacity(cpu="4", memory="8Gi").obj(),
            make_node("node02").capacity(cpu="4", memory="8Gi").obj()]


def running(name, node, priority, cpu="3", start=0, labels=None):
    w = make_pod(name).uid(f"uid-{name}").node(node).req(cpu=cpu).priority(priority)
    for k, v in (labels or {}).items():
        w.label(k, v)
    p = w.obj()
    p["status"]["startTime"] = f"2026-01-01T00:00:{start:02d}Z"
    return p


def scheduler(pods, pdbs=(), seed=0, log=None):
    s = Scheduler(None, random.Random(seed), log=log)
    s.set_cluster(cluster(), list(pods))
    s.handle.list_objects = lambda kind, ns: list(pdbs) if kind == "PodDisruptionBudget" else []
    s.handle.get_object = lambda kind, ns, name: None
    return s


def preemptor(priority=1000, cpu="2", name="high"):
    return make_pod(name).uid(f"uid-{name}").req(cpu=cpu).priority(priority).obj()


def test_a_preempting_cycle_asks_for_the_victims_deletion_and_nominates_the_node():
    # node01's victim has priority 100, node02's 10: the lowest highest-victim priority wins.
    s = scheduler([running("mid", "node01", 100), running("low", "node02", 10)])
    r = s.schedule_one(preemptor(), 1767225600.0)  # 2026-01-01T00:00:00Z
    assert (r.outcome, r.nominated_node) == ("Unschedulable", "node02")
    assert r.message == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                         "2 Insufficient cpu.")
    ops = [(w["op"], w["obj"]["metadata"]["name"]) for w in r.writes]
    assert ops == [("update_status", "low"), ("delete", "low")]
    cond = r.writes[0]["obj"]["status"]["conditions"][-1]
    assert cond == {"lastProbeTime": None, "lastTransitionTime": "2026-01-01T00:00:00Z",
                    "message": "default-scheduler: preempting to accommodate a higher priority pod",
                    "reason": "PreemptionByScheduler", "status": "True",
                    "type": "DisruptionTarget"}
    # Eventf(victim, preemptor, Normal, "Preempted", "Preempting", note)
    [(type_, reason, action, note, related)] = r.writes[1]["events"]
    assert (type_, reason, action, note) == ("Normal", "Preempted", "Preempting",
                                             "Preempted by pod uid-high on node node02")
    assert related["metadata"]["name"] == "high"
    pre = r.explanation["preemption"]
    assert pre["eligible"] is True
    assert pre["chosen"] == "node02" and pre["decidedBy"] == RULE_HIGHEST_PRIORITY
    assert sorted((c["node"], [v["name"] for v in c["victims"]], c["numPDBViolations"])
                  for c in pre["candidates"]) == [("node01", ["mid"], 0), ("node02", ["low"], 0)]
    assert pre["notHelpful"] == {"controlplane": "Preemption is not helpful for scheduling "
                                                 "(node(s) had untolerated taint(s))"}
    assert pre["message"] == "" and pre["nominatedNode"] == "node02"


def test_a_pdb_protecting_the_cheapest_victim_shifts_the_choice():
    pdbs = [{"kind": "PodDisruptionBudget", "metadata": {"name": "keep", "namespace": "default"},
             "spec": {"selector": {"matchLabels": {"app": "keep"}}},
             "status": {"disruptionsAllowed": 0}}]
    s = scheduler([running("mid", "node01", 100),
                   running("low", "node02", 10, labels={"app": "keep"})], pdbs)
    r = s.schedule_one(preemptor(), 0.0)
    assert r.nominated_node == "node01"
    pre = r.explanation["preemption"]
    assert pre["decidedBy"] == RULE_PDB
    by_node = {c["node"]: c["numPDBViolations"] for c in pre["candidates"]}
    assert by_node == {"node01": 0, "node02": 1}
    # PDB-respecting candidates are listed first
    assert [c["node"] for c in pre["candidates"]] == ["node01", "node02"]


def test_the_nominated_pod_keeps_its_room_from_lower_priority_pods():
    s = scheduler([running("low1", "node01", 0), running("low2", "node02", 0)])
    r = s.schedule_one(preemptor(), 0.0)
    node = r.nominated_node
    assert node in ("node01", "node02")
    # the victims are still there (terminating); a freed node would still be reserved:
    # a lower-priority pod that would fit next to the victims is kept off the nominated node
    ni = s.snapshot.get(node)
    for p in list(ni.pods):
        ni.remove_pod(p.key)
    r2 = s.schedule_one(make_pod("small").uid("uid-small").req(cpu="3").priority(0).obj(), 0.0)
    assert r2.outcome == "Unschedulable"
    assert r2.explanation["nodes"][node]["filter"]["NodeResourcesFit"] == "Insufficient cpu"


def test_a_preemption_clears_lower_priority_nominations_on_the_node():
    nominated = make_pod("waiting").uid("uid-waiting").req(cpu="1").priority(5).nominated(
        "node02").obj()
    s = scheduler([running("mid", "node01", 100), running("low", "node02", 10), nominated])
    r = s.schedule_one(preemptor(), 0.0)
    assert r.nominated_node == "node02"
    cleared = [w for w in r.writes if w["obj"]["metadata"]["name"] == "waiting"]
    assert len(cleared) == 1 and cleared[0]["op"] == "update_status"
    assert "nominatedNodeName" not in cleared[0]["obj"]["status"]
    assert [p.name for p in s.nominated["node02"]] == ["high"]


def test_preemption_policy_never_stays_pending_with_the_never_message():
    s = scheduler([running("low1", "node01", 0), running("low2", "node02", 0)])
    p = preemptor()
    p["spec"]["preemptionPolicy"] = "Never"
    r = s.schedule_one(p, 0.0)
    assert r.message.endswith("preemption: not eligible due to preemptionPolicy=Never.")
    assert r.writes == [] and r.nominated_node is None
    assert r.explanation["preemption"] == {
        "eligible": False, "reason": "not eligible due to preemptionPolicy=Never.",
        "message": "no new claims to deallocate, preemption: not eligible due to "
                   "preemptionPolicy=Never.",
        "nominatedNode": None,
        "postFilter": {
            "DynamicResources": {"code": "Unschedulable",
                                 "message": "no new claims to deallocate"},
            "DefaultPreemption": {"code": "Unschedulable",
                                  "message": "preemption: not eligible due to "
                                             "preemptionPolicy=Never."}}}


def test_explain_predicts_the_preemption_without_asking_for_anything():
    s = scheduler([running("low1", "node01", 0), running("low2", "node02", 0)], seed=7)
    state = s.rng.getstate()
    e = s.explain(preemptor(), 0.0)
    assert s.rng.getstate() == state and s.nominated == {}
    assert s.handle.writes == []
    r = s.schedule_one(preemptor(), 0.0)
    assert e["preemption"]["chosen"] == r.nominated_node


def test_the_preemption_logs_at_upstreams_levels():
    lines = []
    s = scheduler([running("mid", "node01", 100), running("low", "node02", 10)],
                  log=lambda level, site, msg, kv: lines.append((level, msg)))
    s.schedule_one(preemptor(), 0.0)
    got = [x for x in lines if x[1] in (
        "Dry run the preemption", "Check the potential node for preemption",
        "Pod is a potential preemption victim on node",
        "the target node for the preemption is determined",
        "Start the preemption asynchronously", "Preemptor Pod preempted victim Pod",
        "Async Preemption finished completely")]
    assert got[0] == (5, "Dry run the preemption")
    assert (2, "the target node for the preemption is determined") in got
    assert (2, "Preemptor Pod preempted victim Pod") in got
    assert sum(1 for x in got if x[1] == "Check the potential node for preemption") == 2


def test_a_victim_already_being_deleted_gets_no_second_api_call():
    gone = running("low", "node02", 10)
    gone["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    s = scheduler([running("mid", "node01", 100), gone])
    r = s.schedule_one(preemptor(), 0.0)
    assert r.nominated_node == "node02" and r.writes == []


@pytest.mark.parametrize("generation, old_conditions, want_extra, want_transition", [
    pytest.param(None, [], {}, "2026-01-01T00:00:00Z",
                 id="a victim without a generation gets no observedGeneration"),
    pytest.param(3, [], {"observedGeneration": 3}, "2026-01-01T00:00:00Z",
                 id="the condition observes the victim's generation (PodObservedGenerationTracking "
                    "is GA)"),
    pytest.param(2, [{"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                      "lastTransitionTime": "2025-12-31T00:00:00Z"}],
                 {"observedGeneration": 2}, "2025-12-31T00:00:00Z",
                 id="an existing DisruptionTarget of the same status keeps its transition time"),
])
def test_the_disruption_target_condition_on_the_victim(generation, old_conditions, want_extra,
                                                       want_transition):
    low = running("low", "node02", 10)
    if generation is not None:
        low["metadata"]["generation"] = generation
    low["status"]["conditions"] = [dict(c) for c in old_conditions]
    s = scheduler([running("mid", "node01", 100), low])
    r = s.schedule_one(preemptor(), 1767225600.0)  # 2026-01-01T00:00:00Z
    conds = [c for c in r.writes[0]["obj"]["status"]["conditions"]
             if c["type"] == "DisruptionTarget"]
    assert conds == [{"lastProbeTime": None, "lastTransitionTime": want_transition,
                      "message": "default-scheduler: preempting to accommodate a higher priority "
                                 "pod", "reason": "PreemptionByScheduler", "status": "True",
                      "type": "DisruptionTarget", **want_extra}]
