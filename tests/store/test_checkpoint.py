"""``Store.checkpoint``: a transaction's writes go to the database as ``commit`` writes them,
uncommitted, and the transaction goes on as a new one on that database would (what lets
``cluster init`` build a large cluster a slice at a time: kubesim.controlplane.session).

A checkpoint changes no read and no row: the same writes made with checkpoints between them
commit exactly the rows (every table: objects, object_index, derived rows and sums,
projections, event index, metadata) that they commit without; and a rollback after
checkpoints leaves the state as it was."""

from __future__ import annotations

import random
import sqlite3

import pytest

from kubesim.store import Store


def _pod(name, ns="default", node="", labels=None, owner=None):
    md = {"name": name, "namespace": ns, "labels": labels or {"app": name[:1]}}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": owner,
                                  "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": {"nodeName": node} if node else {}}


def _event(name, involved):
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": involved, "namespace": "default"}, "reason": "Created",
            "lastTimestamp": "2026-01-01T00:00:00Z"}


def _derive(pod):  # a digest and its per-node fold, as the scheduler's cache keeps them
    return {"n": len(pod["metadata"]["name"])}


def _fold(acc, key, digest, sign):
    total = (acc or 0) + sign * digest["n"]
    return total or None


def _open(path) -> Store:
    s = Store(path).open()
    s.rng = random.Random(7)  # (the same uids either way)
    s.derive("Pod", _derive, _fold)
    s.project("Pod", lambda o: {"name": o["metadata"]["name"], "node": o["spec"].get("nodeName", "")}, "1")
    return s


NOW = "2026-01-01T00:00:00Z"


def _history(s: Store, checkpoint_every: int | None) -> None:
    """Creates, in-place updates, deletes, Events and their index, metadata: as a command's."""
    s.wipe()
    step = 0

    def tick():
        nonlocal step
        step += 1
        if checkpoint_every and step % checkpoint_every == 0:
            s.checkpoint()

    for i in range(12):
        s.create(_pod(f"p{i:02d}", node=f"n{i % 3}", owner="u1" if i % 2 else None), NOW)
        tick()
        s.create(_event(f"e{i:02d}", f"p{i:02d}"), NOW)
        s.set_event_name(f"key{i}", f"e{i:02d}")
        tick()
    for i in range(0, 12, 3):
        p = s.get("Pod", "default", f"p{i:02d}")
        p["metadata"]["labels"] = {"moved": "yes"}
        p["spec"]["nodeName"] = "n9"
        s.put(p)
        tick()
    for i in range(1, 12, 4):
        s.delete("Pod", "default", f"p{i:02d}")
        tick()
    s.set_meta("some.key", {"step": step})


def _rows(path) -> dict:
    conn = sqlite3.connect(str(path / "kubesim.db"))
    try:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}")))
                for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


@pytest.mark.parametrize("every", [1, 3, 17], ids=lambda n: f"a checkpoint every {n} writes")
def test_checkpoints_commit_the_rows_one_commit_does(tmp_path, every):
    plain, sliced = tmp_path / "plain", tmp_path / "sliced"
    for path, n in ((plain, None), (sliced, every)):
        s = _open(path)
        _history(s, n)
        s.commit()
    assert _rows(sliced) == _rows(plain)


def _reads(s) -> dict:
    """What the store's read paths answer, each from its own index or cache."""
    return {
        "list": [o["metadata"]["name"] for o in s.list("Pod")],
        "count": s.count("Pod"),
        "on n9": s.pod_keys_on_node("n9"),
        "labelled": s.keys_labelled("Pod", "moved", "yes"),
        "owned": s.keys_owned_by("Pod", "u1"),
        "events": s.keys_of_events_involving(name="p02"),
        "event name": s.event_name("key4"),
        "sums": s.derived_sums("Pod"),
        "meta": s.meta("some.key"),
    }


def test_reads_after_a_checkpoint_see_what_was_written(tmp_path):
    s = _open(tmp_path)
    _history(s, None)
    expected = _reads(s)
    s.checkpoint()
    got = _reads(s)
    assert got == expected
    # as a new transaction on what was written: the checkpointed objects are committed ones
    assert s.committed("Pod", "default", "p00") is not None
    assert not s.wiped and not s.dirty
    s.rollback()


def test_a_rollback_after_checkpoints_leaves_the_state_as_it_was(tmp_path):
    s = _open(tmp_path)
    s.create(_pod("kept"), NOW)
    s.commit()
    before = _rows(tmp_path)
    s = _open(tmp_path)
    _history(s, 2)
    s.checkpoint()
    s.rollback()
    assert _rows(tmp_path) == before


@pytest.mark.parametrize("omit", [(), ("metadata.managedFields",), ("metadata.labels", "spec")],
                         ids=["whole", "without managedFields", "without labels and spec"])
def test_an_object_read_changed_and_checkpointed_is_read_as_written(tmp_path, omit):
    """Reads keep what they read while the tables do not change (``get``'s cache, the texts
    ``objects`` read without some paths, what ``committed`` and ``meta`` found absent): a
    checkpoint changes the tables, and the reads after it see what it wrote."""
    s = _open(tmp_path)
    s.create(_pod("p", node="n1"), NOW)
    s.commit()
    s = _open(tmp_path)
    key = ("Pod", "default", "p")
    assert [o["metadata"]["name"] for o in s.objects([key], omit)] == ["p"]  # (read before)
    assert s.get("Pod", "default", "q") is None and s.meta("absent.key") is None
    p = s.get(*key)
    p["metadata"]["labels"] = {"app": "changed"}
    s.put(p)
    s.create(_pod("q"), NOW)
    s.set_meta("absent.key", 1)
    s.checkpoint()
    (got,) = s.objects([key], omit)
    if "metadata.labels" in omit:
        assert "labels" not in got["metadata"] and "spec" not in got
    else:
        assert got["metadata"]["labels"] == {"app": "changed"}
    assert s.get("Pod", "default", "q") is not None and s.committed("Pod", "default", "q") is not None
    assert s.meta("absent.key") == 1
    assert s.committed(*key)["metadata"]["labels"] == {"app": "changed"}
    s.rollback()
