"""DynamicResources: mirrors upstream dynamicresources_test.go (TestPlugin's "empty" and
"missing-claim" cases, the PreEnqueue statuses) for what kubesim can meet — pods without claims,
and pods whose claims do not exist because kubesim serves no ResourceClaim — and the framework
around it (runtime/framework.go RunPostFilterPlugins, schedule_one.go): its PostFilter's reason
joined before DefaultPreemption's, and the "not found" of a PostFilter whose PreFilter never ran."""

import random

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import NodeScore
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.dynamicresources import (NO_NEW_CLAIMS_TO_DEALLOCATE,
                                                        STATE_KEY, DynamicResources,
                                                        claim_name, missing_claim)
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter

CP_TAINT = "node-role.kubernetes.io/control-plane"
NOT_FOUND = Status(Code.Error, err="not found")


def unresolvable(msg):
    return Status(Code.UnschedulableAndUnresolvable, msg)


# upstream's fixtures: podName "my-pod", resourceName "my-resource", generated claim
# "my-pod-my-resource", template "my-template" (dynamicresources_test.go).
def pod_without_claims():
    return make_pod("foo").obj()


def pod_with_claim_name():
    return make_pod("my-pod").resource_claim("my-resource", claim="my-pod-my-resource").obj()


def pod_with_claim_template():
    return make_pod("my-pod").resource_claim("my-resource", template="my-template").obj()


def pod_with_claim_template_in_status():
    return (make_pod("my-pod").resource_claim("my-resource", template="my-template")
            .resource_claim_status("my-resource", "my-pod-my-resource").obj())


def pod_with_template_and_no_claim_needed():
    return (make_pod("my-pod").resource_claim("my-resource", template="my-template")
            .resource_claim_status("my-resource", None).obj())


def pod_with_claim_of_no_kind():
    return make_pod("my-pod").resource_claim("my-resource").obj()


NOT_CREATED = 'pod "default/my-pod": ResourceClaim not created yet'
NOT_IN_CACHE = 'could not find ResourceClaim "default/my-pod-my-resource"'

PRE_ENQUEUE_CASES = [
    pytest.param(pod_without_claims(), None, id="empty: a pod without claims is enqueued"),
    pytest.param(pod_with_claim_template(), unresolvable(NOT_CREATED),
                 id="missing-claim: a template whose claim the controller has not created "
                    "waits"),
    pytest.param(pod_with_claim_template_in_status(), unresolvable(NOT_IN_CACHE),
                 id="a generated claim kubesim cannot hold is not found"),
    pytest.param(pod_with_claim_name(), unresolvable(NOT_IN_CACHE),
                 id="a claim named by resourceClaimName that does not exist is not found"),
    pytest.param(pod_with_template_and_no_claim_needed(), None,
                 id="a template whose claim was intentionally not generated is ignored"),
    pytest.param(pod_with_claim_of_no_kind(), unresolvable(
        'pod "default/my-pod", spec.resourceClaim "my-resource": none of the supported fields '
        "are set"), id="a claim naming neither a claim nor a template is refused"),
]


@pytest.mark.parametrize("pod, want", PRE_ENQUEUE_CASES)
def test_pre_enqueue(pod, want):
    assert DynamicResources().pre_enqueue(PodInfo(pod)) == want


def test_claim_name_follows_resourceclaim_name():
    pod = pod_with_claim_template_in_status()
    entry = pod["spec"]["resourceClaims"][0]
    assert claim_name(pod, "default", entry) == ("my-pod-my-resource", None)
    assert missing_claim(pod_without_claims(), "default") is None


# -- PreFilter, Filter, Score ---------------------------------------------------------------------
def test_empty_pre_filter_skips_and_records_that_there_are_no_claims():
    state = CycleState()
    res, s = DynamicResources().pre_filter(state, PodInfo(pod_without_claims()), [])
    assert (res, s) == (None, Status(Code.Skip))
    assert STATE_KEY in state


@pytest.mark.parametrize("pod, message", [
    pytest.param(pod_with_claim_template(), NOT_CREATED, id="a claim not created yet"),
    pytest.param(pod_with_claim_name(), NOT_IN_CACHE, id="a claim that does not exist"),
])
def test_pre_filter_refuses_a_pod_whose_claims_are_missing(pod, message):
    state = CycleState()
    _, s = DynamicResources().pre_filter(state, PodInfo(pod), [])
    assert s == unresolvable(message)
    # the state is written before the claims are looked up, so PostFilter still answers
    _, post = DynamicResources().post_filter(state, PodInfo(pod), None)
    assert post == Status(Code.Unschedulable, NO_NEW_CLAIMS_TO_DEALLOCATE)


def test_filter_of_a_pod_without_claims_is_skipped():
    assert run_filter(DynamicResources(), pod_without_claims(),
                      make_node("worker").capacity(cpu="4").obj()) == "skipped"


def test_filter_without_its_pre_filter_state_is_an_error():
    node = NodeInfo(make_node("worker").obj())
    assert DynamicResources().filter(CycleState(), PodInfo(pod_without_claims()), node) == NOT_FOUND


def test_every_node_scores_zero_for_a_pod_without_claims():
    pl, state, pod = DynamicResources(), CycleState(), PodInfo(pod_without_claims())
    pl.pre_filter(state, pod, [])
    infos = [NodeInfo(make_node(n).capacity(cpu="4").obj()) for n in ("a", "b", "c")]
    scores = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in infos]
    # raw [0, 0, 0]: DefaultNormalizeScore with max 0 and no reverse leaves them at 0
    assert pl.normalize_score(state, pod, scores) is None
    assert [x.score for x in scores] == [0, 0, 0]
    assert pl.score_nodes(state, pod, infos) == [0, 0, 0]
    assert pl.normalize_list(state, pod, [0, 0, 0]) == [0, 0, 0]


def test_score_without_its_pre_filter_state_is_an_error():
    ni = NodeInfo(make_node("a").obj())
    assert DynamicResources().score(CycleState(), PodInfo(pod_without_claims()), ni) == (
        0, NOT_FOUND)


# -- PostFilter, Reserve, PreBind -----------------------------------------------------------------
def test_empty_post_filter_has_no_new_claims_to_deallocate():
    pl, state = DynamicResources(), CycleState()
    pl.pre_filter(state, PodInfo(pod_without_claims()), [])
    assert pl.post_filter(state, PodInfo(pod_without_claims()), None) == (
        None, Status(Code.Unschedulable, "no new claims to deallocate"))


def test_post_filter_without_its_pre_filter_state_fails_with_not_found():
    assert DynamicResources().post_filter(CycleState(), PodInfo(pod_without_claims()), None) == (
        None, NOT_FOUND)


def test_reserve_unreserve_and_pre_bind_do_nothing_for_a_pod_without_claims():
    pl, state, pod = DynamicResources(), CycleState(), PodInfo(pod_without_claims())
    pl.pre_filter(state, pod, [])
    assert pl.reserve(state, pod, "worker") is None
    assert pl.unreserve(state, pod, "worker") is None
    assert pl.pre_bind(state, pod, "worker") is None


# -- in the default profile -----------------------------------------------------------------------
def four_nodes():
    return [make_node("controlplane").capacity(cpu="4", memory="8Gi").taint(CP_TAINT).obj()] + [
        make_node(f"node0{i}").capacity(cpu="4", memory="8Gi").obj() for i in (1, 2, 3)]


def scheduler(pods=(), config=None, log=None):
    s = Scheduler(config, random.Random(0), log=log)
    s.set_cluster(four_nodes(), list(pods))
    s.handle.list_objects = lambda kind, ns: []
    s.handle.get_object = lambda kind, ns, name: None
    return s


def busy(node, priority=0):
    return make_pod(f"busy-{node}").node(node).req(cpu="3").priority(priority).obj()


def test_the_default_profile_runs_it_before_default_preemption():
    fwk = scheduler().framework_for(pod_without_claims())
    assert [p.name for p in fwk.post_filter] == ["DynamicResources", "DefaultPreemption"]
    assert "DynamicResources" in [p.name for p in fwk.pre_enqueue]
    assert fwk.weights["DynamicResources"] == 1
    assert "DynamicResources" not in fwk.unimplemented


def test_its_reason_is_joined_before_preemptions_in_the_failed_scheduling_message():
    r = scheduler(pods=[busy("node01"), busy("node02"), busy("node03")]).schedule_one(
        make_pod("p").req(cpu="2").obj(), 0.0)
    # what a v1.35 cluster prints for a pod without resource claims
    assert r.message == (
        "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/4 nodes are available: 1 Preemption is not "
        "helpful for scheduling, 3 No preemption victims found for incoming pod.")
    assert r.explanation["preemption"]["postFilter"] == {
        "DynamicResources": {"code": "Unschedulable", "message": "no new claims to deallocate"},
        "DefaultPreemption": {"code": "Unschedulable", "message": (
            "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, "
            "3 No preemption victims found for incoming pod.")}}


def test_preemption_still_runs_and_nominates_after_its_unschedulable():
    existing = [busy("node01", 0), busy("node02", 100), busy("node03", 100)]
    r = scheduler(pods=existing).schedule_one(
        make_pod("p").req(cpu="2").priority(1000).obj(), 1767225600.0)
    assert r.nominated_node == "node01"
    # DefaultPreemption's Success ends the PostFilters and drops the reasons gathered so far
    assert r.message == ("0/4 nodes are available: 1 node(s) had untolerated taint(s), "
                         "3 Insufficient cpu.")
    assert [w["op"] for w in r.writes] == ["update_status", "delete"]


def test_without_default_preemption_its_reason_is_the_whole_tail():
    config = {"profiles": [{"plugins": {"multiPoint": {"disabled": [
        {"name": "DefaultPreemption"}]}}}]}
    r = scheduler(pods=[busy("node01"), busy("node02"), busy("node03")],
                  config=config).schedule_one(make_pod("p").req(cpu="2").obj(), 0.0)
    assert r.message == ("0/4 nodes are available: 1 node(s) had untolerated taint(s), "
                         "3 Insufficient cpu. no new claims to deallocate")


def test_an_earlier_unresolvable_pre_filter_leaves_its_post_filter_not_found():
    # NodeAffinity's PreFilter (before DynamicResources) rejects the pod outright, so
    # DynamicResources' PreFilter never runs: its PostFilter cannot read its state, the
    # Error stops the PostFilters and DefaultPreemption never runs, even with victims around.
    lines = []
    s = scheduler(pods=[busy("node01"), busy("node02"), busy("node03")],
                  log=lambda *a: lines.append(a))
    pod = make_pod("p").req(cpu="2").priority(1000).required_terms({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node01"]},
        {"key": "metadata.name", "operator": "In", "values": ["node02"]}]}).obj()
    r = s.schedule_one(pod, 0.0)
    assert r.message == "0/4 nodes are available: pod affinity terms conflict. not found"
    assert r.nominated_node is None and r.writes == []
    assert r.explanation["preemption"]["postFilter"] == {
        "DynamicResources": {"code": "Error", "message": "not found"}}
    # the explanation still shows every filter, DynamicResources' as skipped
    assert r.explanation["nodes"]["node01"]["filter"]["DynamicResources"] == "skipped"
    assert [(lvl, kv["status"]) for lvl, _, m, kv in lines
            if m == "Status after running PostFilter plugins for pod"] == [(0, "not found")]


def test_explaining_predicts_the_same_message():
    s = scheduler(pods=[busy("node01"), busy("node02"), busy("node03")])
    pod = make_pod("p").req(cpu="2").required_terms({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node01"]},
        {"key": "metadata.name", "operator": "In", "values": ["node02"]}]}).obj()
    assert s.explain(pod, 0.0)["message"] == s.schedule_one(pod, 0.0).message


def test_explain_shows_its_filter_skipped_and_its_score_zero():
    r = scheduler().schedule_one(make_pod("web").req(cpu="500m").obj(), 0.0)
    node = r.explanation["nodes"][r.node]
    assert node["filter"]["DynamicResources"] == "skipped"
    assert node["score"]["DynamicResources"] == {"raw": 0, "normalized": 0, "weight": 1,
                                                 "final": 0}


def test_a_pod_whose_claim_is_missing_is_held_back_before_the_queue():
    s = scheduler()
    assert s.pre_enqueue(pod_with_claim_name()) == ("DynamicResources", NOT_IN_CACHE)
    assert s.pre_enqueue(pod_without_claims()) is None


# -- queueing hints (dynamicresources_test.go Test_isSchedulableAfterPodChange and
#    Test_isSchedulableAfterClaimChange, read against kubesim's claim cache, which holds none)
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _templated(*names):
    w = make_pod("my-pod").uid("pod-uid")
    for n in names:
        w.resource_claim(n, template="my-template")
    return w


@pytest.mark.parametrize("pod, new, want", [
    pytest.param(_templated("my-claim").obj(),
                 _templated("my-claim").resource_claim_status("my-claim", "my-pod-my-claim").obj(),
                 QUEUE_SKIP, id="missing-claim (the generated claim is not in the cache)"),
    pytest.param(_templated("my-claim").uid("other-uid").obj(),
                 _templated("my-claim").resource_claim_status("my-claim", None).obj(),
                 QUEUE_SKIP, id="wrong-pod"),
    pytest.param(_templated("a", "b").obj(),
                 _templated("a", "b").resource_claim_status("a", None).obj(), QUEUE_SKIP,
                 id="incomplete (only one of two claims accounted for)"),
    pytest.param(_templated("a", "b").obj(),
                 _templated("a", "b").resource_claim_status("a", None).resource_claim_status(
                     "b", None).obj(), QUEUE,
                 id="complete (every template needed no claim)"),
])
def test_is_schedulable_after_pod_change(pod, new, want):
    assert DynamicResources().is_schedulable_after_pod_change(pod, None, new) == want


def _claim(allocated):
    c = {"kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default", "uid": "c"},
         "status": {}}
    if allocated:
        c["status"]["allocation"] = {"devices": {"results": []}}
    return c


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(_templated("my-claim").obj(), None, _claim(False), QUEUE_SKIP,
                 id="skip-wrong-claim (the pod's own claim cannot be found)"),
    pytest.param(make_pod("p").obj(), _claim(True), _claim(False), QUEUE,
                 id="structured-claim-deallocate"),
    pytest.param(make_pod("p").obj(), None, _claim(False), QUEUE_SKIP,
                 id="skip-unrelated-claim"),
])
def test_is_schedulable_after_claim_change(pod, old, new, want):
    assert DynamicResources().is_schedulable_after_claim_change(pod, old, new) == want
