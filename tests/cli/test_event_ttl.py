"""Events expire an hour after their last write, as kube-apiserver's ``--event-ttl`` (default
1h, pkg/registry/core/event/storage/storage.go) has etcd remove them: gone from LISTs at once,
deleted from the state by the next writing command (kubesim.apiserver.events expire/live)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kubesim.testing.cli import PINNED_NOW, Harness

POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: nginx}]
"""


def stored_events(h: Harness) -> int:
    conn = sqlite3.connect(str(Path(h.state_dir) / "kubesim.db"))
    try:
        return conn.execute("SELECT COUNT(*) FROM objects WHERE kind='Event'").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def h(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --nodes 1")
    h.apply(POD)
    h.ok("advance 5s")  # nginx pulled: the pod runs
    return h


def reasons(h: Harness, name: str) -> list[str]:
    return h.ok(f"get events --field-selector involvedObject.name={name} "
                "-o custom-columns=R:.reason --no-headers").split()


@pytest.mark.parametrize("advance,kept", [("59m", True), ("61m", False)])
def test_a_pods_events_last_an_hour(h, advance, kept):
    first = reasons(h, "web")
    assert first[0] == "Scheduled" and first[-1] == "Started"
    h.ok(f"advance {advance}")
    assert reasons(h, "web") == (first if kept else [])
    described = h.ok("describe pod web")
    assert described.rstrip().endswith("Events:                      <none>") == (not kept)


def test_the_next_command_after_an_hour_deletes_them(h):
    before = stored_events(h)
    assert before > 0
    later = Harness(h.state_dir, now="2026-11-22T11:30:00Z")
    assert later("get events").err == "No resources found in default namespace.\n"
    assert later("get events -A").out == ""
    assert stored_events(h) < before


def test_a_list_leaves_out_expired_events_not_yet_deleted(tmp_path):
    """Between an expiry and the next settle (a reader), LIST does not show them."""
    from kubesim.api import kinds
    from kubesim.apiserver import events
    from kubesim.apiserver.context import Cluster
    from kubesim.apiserver.objects import list_objects
    from kubesim.clock import parse_time
    from kubesim.store import Store

    store = Store(str(tmp_path / "state")).open()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u1"}}
    for at, reason in [("2026-11-22T08:59:59Z", "Old"), ("2026-11-22T09:00:00Z", "Edge"),
                       ("2026-11-22T09:30:00Z", "New")]:
        events.record(Cluster(store, {"KUBESIM_NOW": at}), node, "Normal", reason, reason, "kubelet",
                      at=parse_time(at))
    cluster = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z"})
    got = [e["reason"] for e in list_objects(cluster, kinds.by_kind("Event"), "default")]
    assert sorted(got) == ["Edge", "New"]
    assert len(store.list("Event")) == 3


def test_an_event_written_again_lives_an_hour_from_then(h):
    """A repeated event (count + 1, new lastTimestamp) renews its TTL, as each write does."""
    h.apply(POD.replace("web", "bad").replace("image: nginx}", "image: nginx, command: [\"false\"]}"))
    h.ok("advance 50m")  # the back-off restarts keep writing BackOff
    assert "BackOff" in reasons(h, "bad")
    h.ok("advance 20m")
    got = reasons(h, "bad")
    assert "BackOff" in got and "Scheduled" not in got


def test_a_state_written_before_the_index_is_indexed_once(h):
    """States written before events had their write-time index: it is filled from the stored
    Events the first time it is needed."""
    conn = sqlite3.connect(str(Path(h.state_dir) / "kubesim.db"))
    conn.execute("DELETE FROM event_written")
    conn.execute("DELETE FROM meta WHERE key='events.writtenIndexed'")
    conn.commit()
    conn.close()
    assert PINNED_NOW.startswith("2026-11-22T10:00")
    Harness(h.state_dir, now="2026-11-22T11:30:00Z").ok("label pod web x=y")
    assert stored_events(h) == 0
