"""PodGC (kubesim.controllers.podgc), with upstream's tables from
pkg/controller/podgc/gc_controller_test.go: TestGCTerminated, TestGCOrphaned,
TestGCUnscheduledTerminating, TestGCTerminating and TestGCInspectingPatchedPodBeforeDeletion.

The controller's changes are the fake client's actions: an ``update_status`` is the patch to
Failed, a ``delete`` the delete (always with grace period 0).
"""

from __future__ import annotations

import pytest

from kubesim.clock import format_time
from kubesim.controllers import podgc as GC
from kubesim.testing.kubelet import T0

EPOCH = 0.0


def make_pod(name: str, node: str = "", phase: str = "", *, created: float | None = None, deleting: bool = False,
             reason: str = "") -> dict:
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
         "spec": {"nodeName": node} if node else {}, "status": {}}
    if phase:
        p["status"]["phase"] = phase
    if reason:
        p["status"]["reason"] = reason
    if created is not None:
        p["metadata"]["creationTimestamp"] = format_time(created)
    if deleting:
        p["metadata"]["deletionTimestamp"] = format_time(EPOCH)  # &metav1.Time{}: set, its value unused
    return p


def make_node(name: str, ready: str = "True", taints=None) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {},
         "status": {"conditions": [{"type": "Ready", "status": ready}]}}
    if taints:
        n["spec"]["taints"] = taints
    return n


class Fake:
    def __init__(self, nodes=(), pods=()):
        self.nodes = {n["metadata"]["name"]: n for n in nodes}
        self.pods = list(pods)
        self.state = GC.State()
        self.changes = []

    def gc(self, at: float, threshold: int = GC.TERMINATED_POD_GC_THRESHOLD) -> None:
        self.changes += GC.gc(self.pods, self.nodes.get, self.state, at, threshold)

    def deleted(self) -> set[str]:
        assert all(c.grace_seconds == 0 for c in self.changes if c.op == "delete")
        return {c.obj["metadata"]["name"] for c in self.changes if c.op == "delete"}

    def patched(self) -> set[str]:
        return {c.obj["metadata"]["name"] for c in self.changes if c.op == "update_status"}


def hours(pods):
    """Creation times an hour apart, in order (the tables' creationTime.Add(1 * time.Hour))."""
    return [dict(p, metadata=dict(p["metadata"], creationTimestamp=format_time(EPOCH + 3600 * (i + 1))))
            for i, p in enumerate(pods)]


GC_TERMINATED = [
    ("delete pod a which is PodFailed and pod b which is PodSucceeded",
     [("a", "Failed", ""), ("b", "Succeeded", ""), ("c", "Failed", "")], 1, {"a", "b"}),
    ("threshold = 0, disables terminated pod deletion", [("a", "Failed", ""), ("b", "Succeeded", "")], 0, set()),
    ("threshold = 1, delete pod a which is PodFailed and pod b which is PodSucceeded",
     [("a", "Failed", ""), ("b", "Succeeded", ""), ("c", "Failed", "")], 1, {"a", "b"}),
    ("threshold = 1, delete pod b which is PodSucceeded",
     [("a", "Running", ""), ("b", "Succeeded", ""), ("c", "Failed", "")], 1, {"b"}),
    ("threshold = 1, delete pod a which is PodFailed", [("a", "Failed", ""), ("b", "Succeeded", "")], 1, {"a"}),
    ("threshold = 5, don't delete pod", [("a", "Failed", ""), ("b", "Succeeded", "")], 5, set()),
    ("an evicted pod goes first", [("a", "Failed", ""), ("b", "Succeeded", ""), ("c", "Failed", "Evicted")], 1,
     {"c", "a"}),
    ("an evicted pod goes first, a running one never",
     [("a", "Running", ""), ("b", "Succeeded", ""), ("c", "Failed", "Evicted")], 1, {"c"}),
]


@pytest.mark.parametrize("pods,threshold,deleted", [c[1:] for c in GC_TERMINATED], ids=[c[0] for c in GC_TERMINATED])
def test_gc_terminated(pods, threshold, deleted):
    f = Fake([make_node("node")], hours([make_pod(n, "node", phase, reason=r) for n, phase, r in pods]))
    f.gc(T0, threshold)
    assert (f.deleted(), f.patched()) == (deleted, set())


Q = GC.QUARANTINE_TIME

# Upstream's table tells the node informer from the API (a node only one of them has); kubesim
# has one store, so "present in lister" and "present in client" are the same case, and a node
# deleted after the first pass is quarantined from the second (test_a_node_deleted_later_...).
GC_ORPHANED = [
    ("nodes present in lister", ["existing1", "existing2"], 2 * Q, [], [],
     [("a", "existing1", "Running"), ("b", "existing2", "Failed"), ("c", "existing2", "Succeeded")], set(), set()),
    ("nodes present in client", ["existing1", "existing2"], 2 * Q, [], [],
     [("a", "existing1", "Running"), ("b", "existing2", "Failed"), ("c", "existing2", "Succeeded")], set(), set()),
    ("no nodes", [], 2 * Q, [], [], [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded")], {"a", "b"}, set()),
    ("no nodes, one running pod", [], 2 * Q, [], [],
     [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded"), ("c", "deleted", "Running")], {"a", "b", "c"}, {"c"}),
    ("quarantine not finished", [], Q / 2, [], [], [("a", "deleted", "Failed")], set(), set()),
    ("wrong nodes", ["existing"], 2 * Q, [], [], [("a", "deleted", "Running")], {"a"}, {"a"}),
    ("some nodes missing", ["existing"], 2 * Q, [], [],
     [("a", "deleted", "Failed"), ("b", "existing", "Failed"), ("c", "deleted", "Succeeded"),
      ("d", "deleted", "Running")], {"a", "c", "d"}, {"d"}),
    ("node added to client after quarantine", [], 2 * Q, ["node"], [], [("a", "node", "Running")], set(), set()),
    ("node added to informer after quarantine", [], 2 * Q, ["node"], [], [("a", "node", "Failed")], set(), set()),
    ("node deleted from informer after quarantine", ["node"], 2 * Q, [], ["node"], [("a", "node", "Succeeded")],
     set(), set()),
]


@pytest.mark.parametrize("nodes,delay,added,deleted_nodes,pods,deleted,patched", [c[1:] for c in GC_ORPHANED],
                         ids=[c[0] for c in GC_ORPHANED])
def test_gc_orphaned(nodes, delay, added, deleted_nodes, pods, deleted, patched):
    f = Fake([make_node(n) for n in nodes], [make_pod(n, node, phase) for n, node, phase in pods])
    f.gc(T0, threshold=-1)
    assert f.deleted() == set(), "no pods should be deleted at this point"
    for n in added:
        f.nodes[n] = make_node(n)
    for n in deleted_nodes:
        del f.nodes[n]
    f.gc(T0 + delay, threshold=-1)
    assert (f.deleted(), f.patched()) == (deleted, patched)


def test_a_node_deleted_later_gets_a_quarantine_of_its_own():
    f = Fake([make_node("node")], [make_pod("a", "node", "Running")])
    f.gc(T0)
    del f.nodes["node"]
    f.gc(T0 + 20)
    assert f.state.quarantine == {"node": T0 + 60} and f.state.due == T0 + 60
    f.gc(T0 + 40)
    assert f.deleted() == set()
    f.gc(T0 + 60)
    assert (f.deleted(), f.patched()) == ({"a"}, {"a"})


def test_the_quarantine_is_taken_from_the_first_pass_that_saw_the_node_missing():
    """AddAfter keeps the earlier time; the entry whose time came is taken, and (the pods still
    naming the node) put back for another quarantine, which finds nothing left to delete."""
    f = Fake([], [make_pod("a", "gone", "Running")])
    f.gc(T0)
    f.gc(T0 + 20)
    assert f.state.quarantine == {"gone": T0 + 40} and f.deleted() == set()
    f.gc(T0 + 40)
    assert f.deleted() == {"a"}
    assert f.state.quarantine == {"gone": T0 + 80} and f.state.due == T0 + 80
    f.pods = []
    f.gc(T0 + 80)
    assert f.state == GC.State()


GC_UNSCHEDULED_TERMINATING = [
    ("Unscheduled pod in any phase must be deleted",
     [("a", "Failed", True, ""), ("b", "Succeeded", True, ""), ("c", "Running", True, "")], {"a", "b", "c"}, {"c"}),
    ("Scheduled pod in any phase must not be deleted",
     [("a", "Failed", False, ""), ("b", "Succeeded", False, "node"), ("c", "Running", True, "node")], set(), set()),
]


@pytest.mark.parametrize("pods,deleted,patched", [c[1:] for c in GC_UNSCHEDULED_TERMINATING],
                         ids=[c[0] for c in GC_UNSCHEDULED_TERMINATING])
def test_gc_unscheduled_terminating(pods, deleted, patched):
    ps = hours([make_pod(n, node, phase, deleting=d) for n, phase, d, node in pods])
    changes = []
    for p in GC.gc_unscheduled_terminating(ps):
        changes += GC.mark_failed_and_delete(p, T0)
    assert {c.obj["metadata"]["name"] for c in changes if c.op == "delete"} == deleted
    assert {c.obj["metadata"]["name"] for c in changes if c.op == "update_status"} == patched


OOS = GC.OUT_OF_SERVICE_TAINT
GC_TERMINATING = [
    ("pods have deletion timestamp set and the corresponding nodes are not ready",
     [("worker-0", "False", []), ("worker-1", "False", [])],
     [("a", "", True, "worker-0"), ("b", "", True, "worker-1")], set(), set()),
    ("some pods have deletion timestamp and/or phase set and some of the corresponding nodes have an "
     + "outofservice taint that are not ready",
     [("worker-0", "False", [{"key": OOS, "effect": "NoExecute"}]), ("worker-1", "False", []),
      ("worker-2", "True", []), ("worker-3", "False", [{"key": OOS, "effect": "NoSchedule"}]),
      ("worker-4", "False", [{"key": OOS, "effect": "PreferNoSchedule"}]),
      ("worker-5", "False", [{"key": OOS, "value": "any-value", "effect": "NoExecute"}])],
     [p for i, node in ((1, "worker-0"), (2, "worker-1"), (3, "worker-2"), (4, "worker-3"), (5, "worker-4"),
                        (6, "worker-5"))
      for p in ((f"a{i}", "", False, node if i != 5 else "worker-3"), (f"b{i}", "", True, node),
                (f"c{i}", "Pending", False, node), (f"d{i}", "Running", False, node),
                (f"e{i}", "Unknown", False, node))],
     {"b1", "b4", "b5", "b6"}, {"b1", "b4", "b5", "b6"}),
    ("pods deleted from node tainted out-of-service",
     [("worker", "False", [{"key": OOS, "effect": "NoExecute"}])],
     [("a", "Running", True, "worker"), ("b", "Failed", True, "worker"), ("c", "Succeeded", True, "worker")],
     {"a", "b", "c"}, {"a"}),
]


@pytest.mark.parametrize("nodes,pods,deleted,patched", [c[1:] for c in GC_TERMINATING], ids=[c[0] for c in GC_TERMINATING])
def test_gc_terminating(nodes, pods, deleted, patched):
    f = Fake([make_node(n, ready, taints) for n, ready, taints in nodes],
             hours([make_pod(n, node, phase, deleting=d) for n, phase, d, node in pods]))
    f.gc(T0, threshold=-1)
    assert (f.deleted(), f.patched()) == (deleted, patched)


def test_gc_inspecting_patched_pod_before_deletion():
    """An orphaned pod gets the DisruptionTarget condition with Failed before its deletion."""
    pod = make_pod("testPod", "deletedNode", "Running")
    pod["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    f = Fake([], [pod])
    f.gc(T0 - Q, threshold=-1)  # upstream sets a negative quarantine: one pass does it
    f.gc(T0, threshold=-1)
    patch, delete = [c for c in f.changes]
    assert patch.op == "update_status" and patch.obj["status"] == {
        "phase": "Failed",
        "conditions": [{"type": "Ready", "status": "True"},
                       {"lastProbeTime": None, "lastTransitionTime": "2026-11-22T10:00:00Z",
                        "message": "PodGC: node no longer exists", "reason": "DeletionByPodGC", "status": "True",
                        "type": "DisruptionTarget"}]}
    assert (delete.op, delete.key, delete.grace_seconds) == ("delete", ("Pod", "default", "testPod"), 0)


def test_the_pod_status_observes_its_generation():
    pod = make_pod("p", "", "Running", deleting=True)
    pod["metadata"]["generation"] = 3
    patch, _ = GC.mark_failed_and_delete(pod, T0)
    assert patch.obj["status"] == {"phase": "Failed", "observedGeneration": 3}


@pytest.mark.parametrize("t,tick", [(T0, T0), (T0 + 0.5, T0 + 20), (T0 + 19.999, T0 + 20), (T0 + 20, T0 + 20)],
                         ids=["on a tick", "just after one", "just before the next", "on the next"])
def test_next_tick(t, tick):
    assert GC.next_tick(t) == tick  # T0 (10:00:00) is a multiple of 20 s


@pytest.mark.parametrize("pod,nodes,many,expected", [
    (make_pod("a", "gone", "Running"), {}, False, True),
    (make_pod("a", "node", "Running"), {"node": make_node("node")}, False, False),
    (make_pod("a", "", "Pending", deleting=True), {}, False, True),
    (make_pod("a", "node", "Running", deleting=True), {"node": make_node("node", "False")}, False, False),
    (make_pod("a", "node", "Running", deleting=True),
     {"node": make_node("node", "False", [{"key": OOS, "effect": "NoExecute"}])}, False, True),
    (make_pod("a", "node", "Succeeded"), {"node": make_node("node")}, False, False),
    (make_pod("a", "node", "Succeeded"), {"node": make_node("node")}, True, True),
], ids=["bound to a missing node", "bound to a node that exists", "being deleted, never scheduled",
        "being deleted on a not-ready node", "being deleted on a not-ready node tainted out-of-service",
        "finished, with few pods", "finished, with more pods than the threshold"])
def test_may_collect_says_which_pods_a_pass_could_pick_up(pod, nodes, many, expected):
    assert GC.may_collect(pod, nodes.get, many) is expected
