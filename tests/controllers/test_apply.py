"""The reference applier: each change maps onto store operations."""

import pytest

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


def _pods(n, owner="a"):
    ref = [{"kind": "ReplicaSet", "name": owner, "uid": "u-" + owner, "controller": True}]
    return [Change("create", {"kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default", "ownerReferences": ref}},
                   slow_start="u-" + owner) for i in range(n)]


# replica_set_test.go TestSlowStartBatch: count creates, the first call_limit succeed
SLOW_START = [
    ("callLimit = 0 (all fail)", 10, 0, 0, 1),                 # 1 (first batch): 1 fail
    ("callLimit = count (all succeed)", 10, 10, 10, 10),       # 1+2+4+3
    ("callLimit < count (some succeed)", 10, 5, 5, 7),         # 1+2+4 (1 fail)
    ("a quota of two, five replicas", 5, 2, 2, 3),             # 1+2 (1 fail), as the oracle's ReplicaSet did
]


@pytest.mark.parametrize("count,limit,successes,calls", [c[1:] for c in SLOW_START], ids=[c[0] for c in SLOW_START])
def test_slow_start_batches_stop_after_a_batch_with_a_failure(count, limit, successes, calls):
    from kubesim.errors import StatusError

    s = FakeStore(obj("a"))
    attempts, refused = [], []

    def create(o):
        attempts.append(o["metadata"]["name"])
        if len(attempts) > limit:
            raise StatusError("exceeded quota")
        s._put(o)

    kw = s.kw() | {"create": create}
    apply_changes(_pods(count), **kw, failed=lambda owner, error, message: refused.append((owner["metadata"]["name"], error)))
    assert len(attempts) == calls
    assert sum(1 for k in s.objs if k[0] == "Pod") == successes
    assert refused == [("a", "exceeded quota")] * (calls - successes)
    assert s.events == ["Error creating: exceeded quota"] * (calls - successes)
    assert s.wakes == []  # the caller requeues with back-off


def test_creates_of_other_owners_are_batched_apart():
    from kubesim.errors import StatusError

    s = FakeStore(obj("a"), obj("b"))

    def create(o):
        if o["metadata"]["ownerReferences"][0]["name"] == "a":
            raise StatusError("no")
        s._put(o)

    apply_changes([*_pods(4, "a"), *[Change("create", {**c.obj, "metadata": {**c.obj["metadata"], "name": "b" + c.key[2]}},
                                             slow_start=c.slow_start) for c in _pods(4, "b")]], **(s.kw() | {"create": create}))
    assert sorted(k[2] for k in s.objs if k[0] == "Pod") == ["bp0", "bp1", "bp2", "bp3"]


def test_a_change_that_needs_a_refused_create_gives_way_to_its_otherwise():
    """A CronJob's status names the Job it creates; when the create is refused, the status
    written is the one without it, and the refusal is told to the owner in its own words."""
    from kubesim.errors import StatusError

    cj = {"kind": "CronJob", "metadata": {"name": "c", "namespace": "default", "uid": "u-c"}}
    job = {"kind": "Job", "metadata": {"name": "c-1", "namespace": "default",
                                       "ownerReferences": [{"kind": "CronJob", "name": "c", "uid": "u-c",
                                                            "controller": True}]}}
    s = FakeStore(cj)

    def create(o):
        raise StatusError("exceeded quota")

    with_job = Change("update_status", {**cj, "status": {"active": [{"name": "c-1"}]}},
                      [Event(cj, "Normal", "SuccessfulCreate", "Created job c-1", "cronjob-controller")],
                      needs=(("Job", "default", "c-1"),), otherwise=Change("update_status", {**cj, "status": {"x": 1}}))
    apply_changes([Change("create", job, failure="Error creating job: {error}"), with_job], **(s.kw() | {"create": create}))
    assert s.objs[("CronJob", "default", "c")]["status"] == {"x": 1}
    assert s.events == ["Error creating job: exceeded quota"]


def test_an_unowned_or_unworded_refusal_is_the_caller_s_error():
    from kubesim.errors import StatusError

    def create(o):
        raise StatusError("no")

    s = FakeStore()
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "default",
                                                           "ownerReferences": [{"kind": "Pod", "name": "p",
                                                                                "controller": True}]}}
    with pytest.raises(StatusError):
        apply_changes([Change("create", claim)], **(s.kw() | {"create": create}))
