"""The reference applier: each change maps onto store operations."""

from kubesim.controllers.apply import apply_changes
from kubesim.controllers.base import Change, Event


class FakeStore:
    def __init__(self, *objs):
        self.objs = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in objs}
        self.events, self.wakes, self.deletes = [], [], []

    def kw(self):
        return dict(get=lambda k, n, m: self.objs.get((k, n, m)), create=self._put, put=self._put,
                    delete=self._delete,
                    record=lambda *a: self.events.append(a[3]), wake_at=self.wakes.append, now=100.0)

    def _delete(self, k, n, m, propagation, grace_seconds):
        self.deletes.append((k, n, m, propagation, grace_seconds))
        self.objs.pop((k, n, m))

    def _put(self, o):
        self.objs[(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])] = o


def obj(name, **extra):
    return {"kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default", "uid": "u-" + name}, **extra}


def test_status_updates_touch_only_status_and_annotations():
    s = FakeStore(obj("a", spec={"replicas": 1}))
    changed = apply_changes([Change("update_status", obj("a", spec={"replicas": 9}, status={"replicas": 1}))], **s.kw())
    assert changed and s.objs[("ReplicaSet", "default", "a")]["spec"] == {"replicas": 1}
    assert s.objs[("ReplicaSet", "default", "a")]["status"] == {"replicas": 1}


def test_changes_to_vanished_objects_are_dropped_with_their_events():
    s = FakeStore()
    ev = Event(obj("a"), "Normal", "X", "msg", "c")
    assert not apply_changes([Change("update", obj("a"), [ev]), Change("delete", obj("a"))], **s.kw())
    assert s.events == []


def test_a_delete_carries_its_propagation_and_grace_period_and_wakes_are_passed_on():
    # what a Foreground delete stores is the API server's (tests/apiserver/test_objects.py)
    s = FakeStore(obj("a"), obj("b"))
    apply_changes([Change("delete", obj("a"), propagation="Foreground"), Change("wake", obj("a"), at=5.0),
                   Change("delete", obj("b"), grace_seconds=0)], **s.kw())
    assert s.deletes == [("ReplicaSet", "default", "a", "Foreground", None), ("ReplicaSet", "default", "b", "Background", 0)]
    assert s.wakes == [5.0]
