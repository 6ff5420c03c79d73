"""explain-schedule --trace's record of one attempt: the extension points in the order
schedule_one.go drives framework.go through them, each plugin's status, the steps that did not
run and why (kubesim/scheduler/framework/trace.py)."""

import random

import pytest

from kubesim.scheduler.framework.interface import BindPlugin, PermitPlugin, ReservePlugin
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.scheduler import Scheduler
from kubesim.testing.wrappers import make_node, make_pod

CP_TAINT = "node-role.kubernetes.io/control-plane"
BINDING = ["Reserve", "Permit", "PreBind", "Bind", "PostBind"]
SCHEDULING = ["PreEnqueue", "QueueSort", "PreFilter", "Filter", "PreScore", "Score",
              "NormalizeScore"]


def cluster():
    return [make_node("controlplane").capacity(cpu="4", memory="8Gi").taint(CP_TAINT).obj(),
            make_node("node01").capacity(cpu="4", memory="8Gi").obj(),
            make_node("node02").capacity(cpu="4", memory="8Gi").obj()]


class Refuse(ReservePlugin):
    name = "Refuse"

    def reserve(self, state, pod, node_name):
        return Status(Code.Unschedulable, "volume went away")

    def unreserve(self, state, pod, node_name):
        return None


class WaitLong(PermitPlugin):
    name = "WaitLong"

    def permit(self, state, pod, node_name):
        return Status(Code.Wait), 30


class Deny(PermitPlugin):
    name = "Deny"

    def permit(self, state, pod, node_name):
        return Status(Code.Unschedulable, "quota exceeded"), 0


class BrokenBinder(BindPlugin):
    name = "BrokenBinder"

    def bind(self, state, pod, node_name):
        return Status(Code.Error, "apiserver down")


def attempt(pod, extra=None, commit=True):
    s = Scheduler(None, random.Random(0))
    s.set_cluster(cluster(), [])
    fwk = s.profiles["default-scheduler"]
    for point, plugin in extra or ():
        getattr(fwk, point).insert(0, plugin)
    r = s.schedule_one(pod, 0.0) if commit else None
    expl = r.explanation if r is not None else s.explain(pod, 0.0)
    return {step["extensionPoint"]: step for step in expl["trace"]}, [
        step["extensionPoint"] for step in expl["trace"]]


def plugins(step):
    return [(p["name"], p["code"]) for p in step["plugins"]]


def test_a_scheduled_pod_goes_through_every_extension_point_in_order():
    steps, order = attempt(make_pod("web").req(cpu="500m").obj())
    assert order == SCHEDULING + BINDING
    assert plugins(steps["QueueSort"]) == [("PrioritySort", "Success")]
    assert ("NodeResourcesFit", "Success") in plugins(steps["PreFilter"])
    assert ("NodeAffinity", "Skip") in plugins(steps["PreFilter"])  # no affinity: nothing to check
    taint = next(p for p in steps["Filter"]["plugins"] if p["name"] == "TaintToleration")
    assert (taint["passedNodes"], taint["rejectedNodes"], taint["rejectedFirstNodes"],
            taint["reasons"]) == (2, 1, 1, {"node(s) had untolerated taint(s)": 1})
    assert steps["Filter"]["feasibleNodes"] == ["node01", "node02"]
    assert ("NodeAffinity", "Skip") in plugins(steps["Score"])
    assert plugins(steps["Bind"]) == [("DefaultBinder", "Success")]
    assert steps["Bind"]["node"] in ("node01", "node02")


@pytest.mark.parametrize("extra, tail", [
    pytest.param([("reserve", Refuse())],
                 ["Reserve", "Unreserve"], id="a Reserve rejection stops there and Unreserve runs"),
    pytest.param([("permit", Deny())],
                 ["Reserve", "Permit", "Unreserve"], id="a Permit denial is undone by Unreserve"),
    pytest.param([("permit", WaitLong())],
                 ["Reserve", "Permit", "WaitOnPermit", "Unreserve"],
                 id="a Permit wait times out in WaitOnPermit and Unreserve runs"),
    pytest.param([("bind", BrokenBinder())],
                 ["Reserve", "Permit", "PreBind", "Bind", "Unreserve"],
                 id="a failing Bind plugin stops Bind and Unreserve runs"),
])
def test_a_failure_in_the_binding_path_ends_with_unreserve(extra, tail):
    steps, order = attempt(make_pod("web").obj(), extra)
    assert order == SCHEDULING + tail
    # Unreserve runs every Reserve plugin of the profile, in reverse order
    reserve = (["Refuse"] if tail == ["Reserve", "Unreserve"] else []) + ["VolumeBinding",
                                                                          "DynamicResources"]
    assert [n for n, _ in plugins(steps["Unreserve"])] == reserve[::-1]


def test_each_failing_plugin_says_what_it_returned():
    steps, _ = attempt(make_pod("web").obj(), [("reserve", Refuse())])
    assert steps["Reserve"]["plugins"] == [{"name": "Refuse", "code": "Unschedulable",
                                            "message": "volume went away"}]
    # the first rejection stops Reserve; Unreserve still runs all of them, last first
    assert [n for n, _ in plugins(steps["Unreserve"])] == ["DynamicResources", "VolumeBinding",
                                                           "Refuse"]
    steps, _ = attempt(make_pod("web").obj(), [("permit", WaitLong())])
    assert steps["Permit"]["plugins"] == [{"name": "WaitLong", "code": "Wait",
                                           "timeoutSeconds": 30.0}]
    assert steps["WaitOnPermit"]["plugins"] == [{
        "name": "WaitLong", "code": "Unschedulable",
        "message": "rejected due to timeout after waiting 30s at plugin WaitLong"}]
    steps, _ = attempt(make_pod("web").obj(), [("bind", BrokenBinder())])
    assert steps["Bind"]["plugins"] == [{"name": "BrokenBinder", "code": "Error",
                                         "message": "apiserver down"}]


def test_a_pod_that_fits_nowhere_skips_scoring_and_runs_post_filter():
    steps, order = attempt(make_pod("big").req(cpu="5").obj())
    # explain runs every filter on every node; kube-scheduler stopped at the first failure:
    # the control plane's taint, and NodeResourcesFit on the two workers
    counts = {p["name"]: (p.get("rejectedNodes"), p.get("rejectedFirstNodes"))
              for p in steps["Filter"]["plugins"]}
    assert counts["TaintToleration"] == (1, 1) and counts["NodeResourcesFit"] == (3, 2)
    assert order == ["PreEnqueue", "QueueSort", "PreFilter", "Filter", "PreScore", "Score",
                     "NormalizeScore", "PostFilter"]
    assert steps["Score"]["note"] == "not run: no feasible node"
    assert steps["Filter"]["feasibleNodes"] == []
    assert ("DefaultPreemption", "Unschedulable") in plugins(steps["PostFilter"])


def test_one_feasible_node_is_picked_without_scoring():
    steps, _ = attempt(make_pod("one").node_affinity_in("kubernetes.io/hostname", ["node01"]).obj())
    assert steps["PreScore"]["note"] == ("not run: only one feasible node, which kube-scheduler "
                                         "picks without scoring")


def test_a_pre_filter_node_subset_is_shown_with_the_plugin_that_returned_it():
    pod = make_pod("pinned").required_terms({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node02"]}]}).obj()
    steps, _ = attempt(pod)
    affinity = next(p for p in steps["PreFilter"]["plugins"] if p["name"] == "NodeAffinity")
    assert affinity == {"name": "NodeAffinity", "code": "Success", "nodeNames": ["node02"]}
    assert (steps["PreFilter"]["code"], steps["PreFilter"]["nodeNames"]) == ("Success", ["node02"])
    assert steps["Filter"]["feasibleNodes"] == ["node02"]


def test_a_pre_filter_rejection_leaves_filter_unrun():
    pod = make_pod("claims").obj()
    pod["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": "missing"}}]
    steps, order = attempt(pod)
    assert order[:4] == ["PreEnqueue", "QueueSort", "PreFilter", "Filter"]
    assert steps["PreFilter"]["code"] == "UnschedulableAndUnresolvable"
    assert steps["Filter"]["note"] == "not run: PreFilter rejected the pod"


def test_a_gated_pod_stops_at_pre_enqueue():
    steps, order = attempt(make_pod("gated").gates("example.com/wait").obj())
    assert order == ["PreEnqueue"]  # never admitted to activeQ, so never sorted
    assert plugins(steps["PreEnqueue"]) == [("SchedulingGates", "UnschedulableAndUnresolvable")]


def test_a_what_if_binds_nothing_and_says_so():
    steps, order = attempt(make_pod("web").obj(), commit=False)
    assert order == SCHEDULING + BINDING
    assert steps["Bind"]["note"] == "not run: explain-schedule evaluates, it binds nothing"
