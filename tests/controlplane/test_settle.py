"""The settle loop and ``advance``: time moves through every moment a component asked to be woken,
in order, settling at each (so a kubelet removing a victim at its deadline acts before a retry
due later), and a long advance past MAX_STOPS finishes in one jump."""

from __future__ import annotations

import pytest

from kubesim.clock import parse_time
from kubesim.controlplane import settle as S
from kubesim.apiserver.context import Cluster
from kubesim.store import Store

NOW = "2026-11-22T10:00:00Z"
T0 = parse_time(NOW)


@pytest.fixture
def cluster(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": NOW, "KUBESIM_SEED": "1"})
    yield c
    store.rollback()


def recorder(wakes):
    """A step that asks to be woken at each of ``wakes`` (seconds after T0) and notes when it ran."""
    ran: list[float] = []

    def step(cluster):
        now = cluster.now()
        if not ran or ran[-1] != now:
            ran.append(now)
        later = [T0 + w for w in wakes if T0 + w > now]
        if later:
            cluster.wake_at(min(later))
        return False

    return step, ran


@pytest.mark.parametrize("wakes, seconds, stops", [
    pytest.param([], 60, [0, 60], id="nothing due: settle now, then at the end"),
    pytest.param([10, 25], 60, [0, 10, 25, 60], id="every due moment is visited in order"),
    pytest.param([10, 60, 90], 60, [0, 10, 60], id="a wake at the end or after it is not a stop of its own"),
])
def test_advance_stops_at_every_due_moment(cluster, wakes, seconds, stops):
    step, ran = recorder(wakes)
    S.advance(cluster, seconds, steps=[step])
    assert [round(t - T0, 6) for t in ran] == stops
    assert round(cluster.now() - T0, 6) == seconds


def test_a_long_advance_jumps_after_max_stops(cluster, monkeypatch):
    monkeypatch.setattr(S, "MAX_STOPS", 3)
    step, ran = recorder(list(range(1, 100)))
    assert S.advance(cluster, 50, steps=[step]) == 3
    assert [round(t - T0, 6) for t in ran] == [0, 1, 2, 3, 50]


@pytest.mark.parametrize("env, moves", [
    pytest.param({}, True, id="the wall clock: it stands still within a settle, moves between"),
    pytest.param({"KUBESIM_NOW": NOW}, False, id="KUBESIM_NOW: pinned throughout"),
])
def test_a_settle_runs_at_one_instant(tmp_path, monkeypatch, env, moves):
    """Every step of every round of a settle sees the moment it began, whatever the wall clock
    does meanwhile; the clock is as it was after the settle (following the wall clock again)."""
    import time

    wall = iter(T0 + 0.5 * i for i in range(1000))
    monkeypatch.setattr(time, "time", lambda: next(wall))
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, env)
    seen: list[float] = []

    def step(cluster):
        seen.append(cluster.now())
        return len(seen) < 3  # three rounds: two that change something, one at rest

    try:
        assert S.settle(c, steps=[step], force=True) == 2
        assert len(seen) == 3 and len(set(seen)) == 1
        assert (c.now() > seen[0]) is moves  # (the wall clock again after it, unless pinned)
        assert c.clock.pinned == (T0 if not moves else None)
    finally:
        store.rollback()


# -- the static pod directories' fingerprint (settle.static_pod_signature) ------------------

def _nodes(tmp_path):
    root = tmp_path / "nodes"
    for n in ("node01", "node02", "node03"):
        (root / n / "manifests").mkdir(parents=True)
    (root / ".kubesim-generation").write_text("c0")  # (a file beside the nodes' directories)
    (root / "node01" / "manifests" / "web.yaml").write_text("kind: Pod\n")
    return root


def _bump(path):
    import os

    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


SIGNATURE_CHANGES = [
    pytest.param(lambda r: (r / "node02" / "manifests" / "db.yaml").write_text("x"),
                 id="a manifest written into an empty directory"),
    pytest.param(lambda r: (r / "node01" / "manifests" / "db.yaml").write_text("x"),
                 id="a manifest written beside another"),
    pytest.param(lambda r: _bump(r / "node01" / "manifests" / "web.yaml"),
                 id="a manifest edited in place (same size, new mtime)"),
    pytest.param(lambda r: (r / "node01" / "manifests" / "web.yaml").rename(r / "node01" / "manifests" / "w.yaml"),
                 id="a manifest renamed"),
    pytest.param(lambda r: (r / "node01" / "manifests" / "web.yaml").unlink(), id="a manifest removed"),
    pytest.param(lambda r: (r / "node03" / "manifests" / "web.yaml").write_bytes(b""),
                 id="an empty file written"),
    pytest.param(lambda r: (r / "node04" / "manifests").mkdir(parents=True), id="a node's directory added"),
]


@pytest.mark.parametrize("change", SIGNATURE_CHANGES)
def test_the_static_pod_fingerprint_changes_with_every_manifest_change(tmp_path, change):
    from kubesim.controlplane.settle import static_pod_signature

    root = _nodes(tmp_path)
    listed: set[str] = set()
    before = static_pod_signature(root, listed)
    assert listed == {"node01"}
    assert static_pod_signature(root, listed=listed) == before
    _bump(root / "node02" / "manifests")  # (every directory's mtime moves on a change; this one's too)
    before = static_pod_signature(root, set())
    change(root)
    assert static_pod_signature(root, listed=listed) != before
    assert static_pod_signature(root) != before


def test_no_nodes_directory_has_no_fingerprint(tmp_path):
    from kubesim.controlplane.settle import static_pod_signature

    assert static_pod_signature(tmp_path / "nodes") == ""
