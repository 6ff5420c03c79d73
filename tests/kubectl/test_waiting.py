"""The one waiting loop (kubesim.kubectl.waiting): which moments a wait checks its condition at,
where the clock ends, and how it ends — on a fake client whose cluster has wake-ups at given
times (a watch checks after each, a poll at its own instants, as wait.PollUntilContextTimeout)."""

from __future__ import annotations

import pytest

from kubesim.kubectl import waiting


class FakeClient:
    """A cluster that wakes at ``dues`` (seconds); ``settle`` and ``wait_until`` as the local
    client's: the clock moves to the target, through every due moment on the way."""

    def __init__(self, dues: list[float], every: float | None = None):
        self.t = 0.0
        self.dues = sorted(dues)
        self.every = every  # a component waking forever, every so many seconds
        self.settled = 0

    def now(self) -> float:
        return self.t

    def settle(self) -> bool:
        self.settled += 1
        return False

    def next_due(self) -> float | None:
        later = [d for d in self.dues if d > self.t + 1e-9]
        if self.every:
            later.append((self.t // self.every + 1) * self.every)
        return min(later) if later else None

    def wait_until(self, t: float) -> bool:
        self.t = max(self.t, t)
        return True


def run(client, timeout, holds_from, poll=None):
    """Wait until the clock reaches ``holds_from`` (None: never); the moments checked."""
    checked = []

    def condition() -> bool:
        checked.append(client.now())
        return holds_from is not None and client.now() >= holds_from

    outcome = waiting.Waiter(client, timeout).until(condition, poll=poll)
    return outcome, checked


@pytest.mark.parametrize("dues, timeout, holds_from, poll, outcome, checked, ends", [
    pytest.param([], 30, 0, None, waiting.DONE, [0], 0, id="a condition that holds at once ends the wait at once"),
    pytest.param([5, 12, 40], 30, 12, None, waiting.DONE, [0, 5, 12], 12,
                 id="a watch checks after every wake-up, in order, until it holds"),
    pytest.param([5, 12], 30, None, None, waiting.TIMEOUT, [0, 5, 12], 30,
                 id="when nothing more is due before the deadline, the clock goes to it and the wait times out"),
    pytest.param([5, 30, 31], 30, 30, None, waiting.TIMEOUT, [0, 5], 30,
                 id="a wake-up at the deadline comes too late"),
    pytest.param([5], None, None, None, waiting.STUCK, [0, 5], 5,
                 id="without a deadline, a wait ends where nothing more is due"),
    pytest.param([2.3, 7.1], 300, 7.1, 1.0, waiting.DONE, [0, 3, 8], 8,
                 id="a poll sees a change at its next instant (start + k x interval)"),
    pytest.param([2.3], 5, None, 1.0, waiting.TIMEOUT, [0, 3], 5, id="a poll times out at its deadline too"),
    pytest.param([], 0, None, None, waiting.TIMEOUT, [0], 0, id="a zero timeout looks once"),
])
def test_the_wait_checks_at_each_change_and_ends_as_kubectl_would(dues, timeout, holds_from, poll, outcome,
                                                                    checked, ends):
    client = FakeClient(dues)
    got, seen = run(client, timeout, holds_from, poll)
    assert (got, seen, client.now()) == (outcome, checked, ends)
    assert client.settled == 1  # the cluster reacts to the command's own writes before anything


def test_an_unbounded_wait_stops_after_an_hour_of_simulated_time_when_something_always_wakes():
    client = FakeClient([], every=300)  # a container in CrashLoopBackOff, say
    outcome, seen = run(client, None, None)
    assert outcome == waiting.LIMIT
    assert seen[-1] == 3600 and client.now() == 3600


def test_a_wait_with_a_deadline_runs_to_it_even_when_something_always_wakes():
    client = FakeClient([], every=300)
    assert run(client, 7200, None)[0] == waiting.TIMEOUT and client.now() == 7200


def test_no_wait_goes_through_more_than_max_stops(monkeypatch):
    monkeypatch.setattr(waiting, "MAX_STOPS", 5)
    client = FakeClient([], every=1)
    outcome, seen = run(client, 100, None)
    assert outcome == waiting.LIMIT and len(seen) == 6


def test_successive_waits_share_one_deadline():
    client = FakeClient([10, 20, 50])
    waiter = waiting.Waiter(client, 30)
    assert waiter.until(lambda: client.now() >= 10) == waiting.DONE
    assert waiter.until(lambda: client.now() >= 50) == waiting.TIMEOUT and client.now() == 30


@pytest.mark.parametrize("outcome, text", [
    (waiting.STUCK, "nothing in the cluster will change that (kubectl would keep watching; kubesim stops)"),
    (waiting.LIMIT, "kubesim waits at most 1h0m0s of simulated time, through at most 1000 wake-ups (kubectl would "
                    "keep watching; set --timeout)"),
])
def test_giving_up_says_why_and_what_kubectl_would_do(outcome, text):
    assert waiting.gave_up(outcome, "keep watching") == text


@pytest.mark.parametrize("start, t, at", [(0, 0, 0), (0, 0.2, 1), (0, 1, 1), (0.5, 2.3, 2.5), (10, 3, 10)])
def test_poll_instants(start, t, at):
    assert waiting.grid_at_or_after(start, 1.0, t) == at


def test_a_poll_that_acts_each_time_visits_every_instant():
    """logs -f prints why it cannot read the container yet at every try (consumeWithRetry)."""
    client = FakeClient([2.3])
    checked = []

    def condition() -> bool:
        checked.append(client.now())
        return client.now() >= 2.3

    assert waiting.Waiter(client, 20).until(condition, poll=1.0, every_poll=True) == waiting.DONE
    assert checked == [0, 1, 2, 3]


def test_a_poll_that_acts_each_time_still_ends_at_its_deadline():
    client = FakeClient([])
    checked = []
    assert waiting.Waiter(client, 3).until(lambda: checked.append(client.now()), poll=1.0,
                                           every_poll=True) == waiting.TIMEOUT
    assert checked == [0, 1, 2] and client.now() == 3
