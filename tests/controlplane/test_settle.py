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
