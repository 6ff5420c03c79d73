"""The taint eviction controller (kubesim.controllers.tainteviction), with upstream's tables:
pkg/controller/tainteviction/taint_eviction_test.go (TestFilterNoExecuteTaints, TestCreatePod,
TestDeletePod, TestUpdatePod, TestCreateNode, TestDeleteNode, TestUpdateNode,
TestUpdateNodeWithMultipleTaints, TestUpdateNodeWithMultiplePods, TestGetMinTolerationTime,
TestEventualConsistency, TestPodDeletionEvent) and timed_workers_test.go (TestExecute,
TestExecuteDelayed, TestCancel, TestCancelAndRead).

Upstream's tests wait on a real clock and poll the fake client's actions; here the controller
runs at explicit simulated times and its changes are the actions: an ``update_status`` is the
DisruptionTarget patch, a ``delete`` the delete.
"""

from __future__ import annotations

import copy

import pytest

from kubesim.controllers import tainteviction as TE
from kubesim.testing.kubelet import T0


def new_pod(name: str, host: str) -> dict:
    """testutil.NewPod: in ``default``, bound to ``host``, Ready."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": host} if host else {},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


def add_toleration(pod: dict, index: int, duration: int) -> dict:
    """addToleration: tolerate testTaint<index>=test<index>:NoExecute for ``duration`` seconds
    (negative: for ever)."""
    t = {"key": f"testTaint{index}", "value": f"test{index}", "effect": "NoExecute"}
    if duration >= 0:
        t["tolerationSeconds"] = duration
    pod["spec"]["tolerations"] = [t]
    return pod


def no_execute_taint(index: int) -> dict:
    """createNoExecuteTaint (upstream's carries a timeAdded; the controller does not read it)."""
    return {"key": f"testTaint{index}", "value": f"test{index}", "effect": "NoExecute",
            "timeAdded": "2026-11-22T09:00:00Z"}


def new_node(name: str, taints: list[int] = ()) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {}}
    if taints:
        n["spec"]["taints"] = [no_execute_taint(i) for i in taints]
    return n


class Fake:
    """A controller over a few pods (the fake clientset) and what it did at each pass."""

    def __init__(self, pods=(), tainted_nodes=None):
        self.pods = {f"default/{p['metadata']['name']}": copy.deepcopy(p) for p in pods}
        self.state = TE.State(tainted_nodes={k: list(v) for k, v in (tainted_nodes or {}).items()})
        self.actions: list[tuple[str, str]] = []
        self.events: list[tuple[str, str]] = []

    def controller(self, at: float) -> TE.Controller:
        return TE.Controller(
            self.state, at,
            lambda node: [p for _, p in sorted(self.pods.items()) if p["spec"].get("nodeName") == node],
            lambda ns, name: self.pods.get(f"{ns}/{name}"))

    def run(self, at: float, handle) -> None:
        ctl = self.controller(at)
        handle(ctl)
        ctl.fire()
        self.apply(ctl.changes)

    def advance_to(self, at: float) -> None:
        self.run(at, lambda ctl: None)

    def apply(self, changes) -> None:
        for ch in changes:
            name = ch.obj["metadata"]["name"]
            for ev in ch.events:
                self.events.append((ev.reason, ev.message))
            if ch.op == "update_status":
                self.actions.append(("patch", name))
                self.pods[f"default/{name}"]["status"] = copy.deepcopy(ch.obj["status"])
            elif ch.op == "delete":
                self.actions.append(("delete", name))

    def patched(self) -> bool:
        return any(a[0] == "patch" for a in self.actions)

    def deleted(self) -> set[str]:
        return {a[1] for a in self.actions if a[0] == "delete"}


def test_filter_no_execute_taints():
    taints = [{"key": "one", "value": "one", "effect": "NoExecute"},
              {"key": "two", "value": "two", "effect": "NoSchedule"}]
    assert [t["key"] for t in TE.no_execute_taints(taints)] == ["one"]


CREATE_POD = [
    ("not scheduled - ignore", new_pod("pod1", ""), {}, False, False),
    ("scheduled on untainted Node", new_pod("pod1", "node1"), {}, False, False),
    ("schedule on tainted Node", new_pod("pod1", "node1"), {"node1": [no_execute_taint(1)]}, True, True),
    ("schedule on tainted Node with finite toleration", add_toleration(new_pod("pod1", "node1"), 1, 100),
     {"node1": [no_execute_taint(1)]}, False, False),
    ("schedule on tainted Node with infinite toleration", add_toleration(new_pod("pod1", "node1"), 1, -1),
     {"node1": [no_execute_taint(1)]}, False, False),
    ("schedule on tainted Node with infinite invalid toleration", add_toleration(new_pod("pod1", "node1"), 2, -1),
     {"node1": [no_execute_taint(1)]}, True, True),
]


@pytest.mark.parametrize("pod,tainted,expect_patch,expect_delete", [c[1:] for c in CREATE_POD],
                         ids=[c[0] for c in CREATE_POD])
def test_create_pod(pod, tainted, expect_patch, expect_delete):
    f = Fake([pod], tainted)
    f.run(T0, lambda ctl: ctl.pod_updated(None, pod))
    f.advance_to(T0 + 5)  # upstream's verifyPodActions polls for up to 5 s
    assert (f.patched(), bool(f.deleted())) == (expect_patch, expect_delete)


def test_delete_pod():
    f = Fake([], {"node1": [no_execute_taint(1)]})
    f.run(T0, lambda ctl: ctl.pod_updated(new_pod("pod1", "node1"), None))
    assert f.actions == [] and f.events == []


UPDATE_POD = [
    ("scheduling onto tainted Node", new_pod("pod1", ""), False, new_pod("pod1", "node1"),
     {"node1": [no_execute_taint(1)]}, True, True),
    ("scheduling onto tainted Node with toleration", add_toleration(new_pod("pod1", ""), 1, -1), False,
     add_toleration(new_pod("pod1", "node1"), 1, -1), {"node1": [no_execute_taint(1)]}, False, False),
    ("removing toleration", add_toleration(new_pod("pod1", "node1"), 1, 100), True, new_pod("pod1", "node1"),
     {"node1": [no_execute_taint(1)]}, True, True),
    ("lengthening toleration shouldn't work", add_toleration(new_pod("pod1", "node1"), 1, 1), True,
     add_toleration(new_pod("pod1", "node1"), 1, 100), {"node1": [no_execute_taint(1)]}, True, True),
]


@pytest.mark.parametrize("prev,await_scheduled,new,tainted,expect_patch,expect_delete",
                         [c[1:] for c in UPDATE_POD], ids=[c[0] for c in UPDATE_POD])
def test_update_pod(prev, await_scheduled, new, tainted, expect_patch, expect_delete):
    f = Fake([prev], tainted)
    f.run(T0, lambda ctl: ctl.pod_updated(None, prev))
    assert (f.state.workers.get("default/pod1") is not None) == await_scheduled
    f.pods["default/pod1"] = copy.deepcopy(new)
    f.run(T0 + 0.5, lambda ctl: ctl.pod_updated(prev, new))
    f.advance_to(T0 + 5)
    assert (f.patched(), bool(f.deleted())) == (expect_patch, expect_delete)


CREATE_NODE = [
    ("Creating Node matching already assigned Pod", [new_pod("pod1", "node1")], new_node("node1"), False, False),
    ("Creating tainted Node matching already assigned Pod", [new_pod("pod1", "node1")], new_node("node1", [1]),
     True, True),
    ("Creating tainted Node matching already assigned tolerating Pod",
     [add_toleration(new_pod("pod1", "node1"), 1, -1)], new_node("node1", [1]), False, False),
]


@pytest.mark.parametrize("pods,node,expect_patch,expect_delete", [c[1:] for c in CREATE_NODE],
                         ids=[c[0] for c in CREATE_NODE])
def test_create_node(pods, node, expect_patch, expect_delete):
    f = Fake(pods)
    f.run(T0, lambda ctl: ctl.node_updated("node1", node))
    f.advance_to(T0 + 5)
    assert (f.patched(), bool(f.deleted())) == (expect_patch, expect_delete)


def test_delete_node():
    f = Fake([], {"node1": [no_execute_taint(1)]})
    f.run(T0, lambda ctl: ctl.node_updated("node1", None))
    assert f.state.tainted_nodes == {}


TWO_TOLERATIONS = new_pod("pod1", "node1")
TWO_TOLERATIONS["spec"]["tolerations"] = [
    {"key": "testTaint1", "value": "test1", "effect": "NoExecute", "tolerationSeconds": 1},
    {"key": "testTaint2", "value": "test2", "effect": "NoExecute", "tolerationSeconds": 100}]

UPDATE_NODE = [
    ("Added taint, expect node patched and deleted", [new_pod("pod1", "node1")], new_node("node1"),
     new_node("node1", [1]), True, True, 0),
    ("Added tolerated taint", [add_toleration(new_pod("pod1", "node1"), 1, 100)], new_node("node1"),
     new_node("node1", [1]), False, False, 0),
    ("Only one added taint tolerated", [add_toleration(new_pod("pod1", "node1"), 1, 100)], new_node("node1"),
     new_node("node1", [1, 2]), True, True, 0),
    ("Taint removed", [add_toleration(new_pod("pod1", "node1"), 1, 1)], new_node("node1", [1]), new_node("node1"),
     False, False, 1.5),
    ("Pod with multiple tolerations are evicted when first one runs out", [TWO_TOLERATIONS], new_node("node1"),
     new_node("node1", [1, 2]), True, True, 0),
]


@pytest.mark.parametrize("pods,old,new,expect_patch,expect_delete,additional_sleep", [c[1:] for c in UPDATE_NODE],
                         ids=[c[0] for c in UPDATE_NODE])
def test_update_node(pods, old, new, expect_patch, expect_delete, additional_sleep):
    f = Fake(pods)
    # the controller knew the old node (upstream's Taint removed case: its eviction was queued)
    f.run(T0 - 0.1, lambda ctl: ctl.node_updated("node1", old))
    f.actions.clear()
    f.run(T0, lambda ctl: ctl.node_updated("node1", new))
    f.advance_to(T0 + additional_sleep + 5)
    assert (f.patched(), bool(f.deleted())) == (expect_patch, expect_delete)


def test_update_node_with_multiple_taints():
    taint1, taint2 = no_execute_taint(1), no_execute_taint(2)
    pod = new_pod("pod1", "node1")
    pod["spec"]["tolerations"] = [
        {"key": taint1["key"], "operator": "Exists", "effect": "NoExecute"},
        {"key": taint2["key"], "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]
    untainted, single, double = new_node("node1"), new_node("node1"), new_node("node1")
    single["spec"]["taints"] = [taint1]
    double["spec"]["taints"] = [taint1, taint2]
    f = Fake([pod])
    steps = [(untainted, False, "pod queued for deletion with no taints"),
             (single, False, "pod queued for deletion with permanently tolerated taint"),
             (double, True, "pod not queued for deletion after addition of temporarily tolerated taint"),
             (single, False, "pod queued for deletion after removal of temporarily tolerated taint")]
    for i, (node, queued, why) in enumerate(steps):
        f.run(T0 + i, lambda ctl, node=node: ctl.node_updated("node1", node))
        assert (f.state.workers.get("default/pod1") is not None) == queued, why
    f.advance_to(T0 + 3600)
    assert f.deleted() == set(), "Unexpected deletion"
    assert f.events == [("TaintManagerEviction", "Cancelling deletion of Pod default/pod1")]


UPDATE_NODE_WITH_MULTIPLE_PODS = [
    ("Pods with different toleration times are evicted appropriately",
     [new_pod("pod1", "node1"), add_toleration(new_pod("pod2", "node1"), 1, 1),
      add_toleration(new_pod("pod3", "node1"), 1, -1)],
     new_node("node1", [1]), [(["pod1"], 0), (["pod2"], 1)]),
    ("Evict all pods not matching all taints instantly",
     [new_pod("pod1", "node1"), add_toleration(new_pod("pod2", "node1"), 1, 1),
      add_toleration(new_pod("pod3", "node1"), 1, -1)],
     new_node("node1", [1, 2]), [(["pod1", "pod2", "pod3"], 0)]),
]


@pytest.mark.parametrize("pods,new,expected_delete_times", [c[1:] for c in UPDATE_NODE_WITH_MULTIPLE_PODS],
                         ids=[c[0] for c in UPDATE_NODE_WITH_MULTIPLE_PODS])
def test_update_node_with_multiple_pods(pods, new, expected_delete_times):
    f = Fake(pods)
    f.run(T0, lambda ctl: ctl.node_updated("node1", new))
    seen = set()
    for names, at in expected_delete_times:
        # just before the time, nothing more; at it, exactly these
        if at:
            f.advance_to(T0 + at - 0.5)
            assert f.deleted() == seen
        f.advance_to(T0 + at)
        assert f.deleted() - seen == set(names)
        seen = f.deleted()
    f.advance_to(T0 + 3600)
    assert f.deleted() == seen


@pytest.mark.parametrize("tolerations,expected", [
    ([], 0.0),
    ([{"tolerationSeconds": None}], None),
    ([{"tolerationSeconds": 1}, {"tolerationSeconds": 2}], 1.0),
    ([{"tolerationSeconds": 1}, {"tolerationSeconds": None}], 1.0),
    ([{"tolerationSeconds": None}, {"tolerationSeconds": 1}], 1.0),
], ids=["no tolerations: at once", "no seconds: for ever (upstream's -1)", "the smallest of two",
        "seconds before a tolerate-for-ever", "seconds after a tolerate-for-ever"])
def test_get_min_toleration_time(tolerations, expected):
    assert TE.min_toleration_time(tolerations) == expected


EVENTUAL_CONSISTENCY = [
    ("existing pod2 scheduled onto tainted Node", new_pod("pod2", ""), new_pod("pod2", "node1")),
    ("existing pod2 with taint toleration scheduled onto tainted Node",
     add_toleration(new_pod("pod2", ""), 1, 100), add_toleration(new_pod("pod2", "node1"), 1, 100)),
    ("new pod2 created on tainted Node", None, new_pod("pod2", "node1")),
    ("new pod2 with tait toleration created on tainted Node", None, add_toleration(new_pod("pod2", "node1"), 1, 100)),
]


@pytest.mark.parametrize("prev,new", [c[1:] for c in EVENTUAL_CONSISTENCY], ids=[c[0] for c in EVENTUAL_CONSISTENCY])
def test_eventual_consistency(prev, new):
    """The node update sees only pod1 (pod2's update is late); the late update brings pod2 in."""
    f = Fake([new_pod("pod1", "node1")] + ([prev] if prev else []))
    if prev is not None:
        f.run(T0, lambda ctl: ctl.pod_updated(None, prev))
    f.run(T0, lambda ctl: ctl.node_updated("node1", new_node("node1", [1])))
    assert (f.patched(), f.deleted()) == (True, {"pod1"})
    f.pods["default/pod2"] = copy.deepcopy(new)
    f.run(T0 + 1, lambda ctl: ctl.pod_updated(prev, new))
    f.advance_to(T0 + 101)
    assert f.deleted() == {"pod1", "pod2"}


def test_pod_deletion_event():
    f = Fake([new_pod("test", "node1")], {"node1": [no_execute_taint(1)]})
    ctl = f.controller(T0)
    ctl.pod_updated(None, f.pods["default/test"])
    event_change = ctl.changes[0]
    assert event_change.op == "event"
    ev = event_change.events[0]
    assert (ev.obj, ev.type, ev.reason, ev.message, ev.component) == (
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "test", "namespace": "default"}},
        "Normal", "TaintManagerEviction", "Marking for deletion Pod default/test", "taint-eviction-controller")


def test_the_evicted_pod_gets_the_disruption_target_condition_then_a_graceful_delete():
    pod = new_pod("web", "node1")
    pod["metadata"]["generation"] = 1
    f = Fake([pod], {"node1": [no_execute_taint(1)]})
    ctl = f.controller(T0)
    ctl.pod_updated(None, pod)
    assert [c.op for c in ctl.changes] == ["event", "update_status", "delete"]
    assert ctl.changes[1].obj["status"]["conditions"][-1] == {
        "lastProbeTime": None, "lastTransitionTime": "2026-11-22T10:00:00Z", "message": TE.DISRUPTION_MESSAGE,
        "observedGeneration": 1, "reason": "DeletionByTaintManager", "status": "True", "type": "DisruptionTarget"}
    assert ctl.changes[2].propagation == "Background"


def test_a_toleration_is_counted_from_when_the_controller_saw_the_taint_not_its_time_added():
    f = Fake([add_toleration(new_pod("pod1", "node1"), 1, 60)])
    f.run(T0, lambda ctl: ctl.node_updated("node1", new_node("node1", [1])))  # timeAdded an hour earlier
    assert f.state.workers == {"default/pod1": {"createdAt": T0, "fireAt": T0 + 60}}
    f.advance_to(T0 + 59)
    assert f.deleted() == set()
    f.advance_to(T0 + 60)
    assert f.deleted() == {"pod1"}
    assert f.state.workers == {}


def test_the_state_survives_a_round_trip_through_the_store():
    state = TE.State({"node1": [no_execute_taint(1)]}, {"default/pod1": {"createdAt": T0, "fireAt": T0 + 60}})
    assert TE.State.from_dict(state.to_dict()) == state
    assert TE.State.from_dict(None) == TE.State()


# -- timed_workers_test.go ----------------------------------------------------------------------------

def _queue():
    ran: list[str] = []
    return TE.TimedWorkerQueue({}, ran.append), ran


def test_execute():
    q, ran = _queue()
    for i in "12345":
        q.add_work(f"{i}/{i}", T0, T0)
    assert ran == ["1/1", "2/2", "3/3", "4/4", "5/5"] and q.workers == {}


def test_execute_delayed():
    q, ran = _queue()
    for _ in range(2):
        for i in "12345":
            q.add_work(f"{i}/{i}", T0, T0 + 10)
    q.fire(T0 + 11)
    assert sorted(ran) == ["1/1", "2/2", "3/3", "4/4", "5/5"]


def test_cancel():
    q, ran = _queue()
    for _ in range(2):
        for i in "12345":
            q.add_work(f"{i}/{i}", T0, T0 + 10)
    assert q.cancel_work("2/2") and q.cancel_work("4/4")
    q.fire(T0 + 11)
    assert sorted(ran) == ["1/1", "3/3", "5/5"]


def test_cancel_and_read():
    q, ran = _queue()
    for _ in range(2):
        for i in "12345":
            q.add_work(f"{i}/{i}", T0, T0 + 10)
    q.cancel_work("2/2")
    q.cancel_work("4/4")
    q.add_work("2/2", T0, T0 + 10)
    q.fire(T0 + 11)
    assert sorted(ran) == ["1/1", "2/2", "3/3", "5/5"]
