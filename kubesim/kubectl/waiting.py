"""Waiting on the simulated clock: the one loop every waiting verb runs (DESIGN §3.4).

Where kubectl blocks — a watch until a condition holds (``wait``, ``delete``, ``rollout
status``, ``get -w``, ``logs -f``, ``run -i``), or a poll every so often (``replace --force``,
``wait --for=create``) — kubesim moves the simulated clock instead: the cluster first reacts to
the command's own writes at the current instant, then the clock goes from one moment some
component asked to be woken (``Client.next_due``: a grace period ending, a container exiting,
a back-off expiring) to the next, the cluster settling at each, and the condition is checked
after each. Nothing happens between two such moments, so this sees every state a real watch
would see, in order, in no wall time. A poll is checked at its own instants (start + k ×
interval) instead, each seeing the state as it is by then.

The loop ends when:

- the condition holds (:data:`DONE`);
- the deadline passes (:data:`TIMEOUT`; the clock is then at the deadline, as after a real
  wait that timed out);
- nothing is due any more, so nothing will ever change (:data:`STUCK`): a wait with a deadline
  lets the clock run to it and times out as kubectl would (the answer cannot change on the way);
  a wait without one (kubectl would wait forever, or for a week) stops at once;
- a wait without a deadline would go past :data:`UNBOUNDED_WAIT` of simulated time (the next
  wake-up is later than that), or any wait has stopped :data:`MAX_STOPS` times
  (:data:`LIMIT`): something keeps waking up (a container in CrashLoopBackOff) yet the
  condition does not come, or nothing happens for more than an hour.

Upstream: the waits this stands in for are client-go's tools/watch ``UntilWithSync`` /
``UntilWithoutRetry`` (a condition on each watch event, ``wait.ErrorInterrupted`` at the
deadline: "timed out waiting for the condition") and apimachinery's
``wait.PollUntilContextTimeout`` (staging/src/k8s.io/apimachinery/pkg/util/wait/loop.go: an
immediate check, then one per interval, ``context deadline exceeded`` at the deadline).
``kubesim.kubectl.drain`` runs its own schedule of evictions and polls on the same client calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable

DONE, TIMEOUT, STUCK, LIMIT = "done", "timeout", "stuck", "limit"

UNBOUNDED_WAIT = 3600.0  # simulated seconds a wait without a deadline goes on at most
MAX_STOPS = 1000  # wake-ups one wait goes through at most
WEEK = 168 * 3600.0  # what kubectl waits when told to wait "forever" (delete, wait --timeout<0)
_EPS = 1e-6


def grid_at_or_after(start: float, interval: float, t: float) -> float:
    """The first poll instant (``start`` + k × ``interval``) at or after ``t``."""
    return start + max(math.ceil((t - start) / interval - _EPS), 0) * interval


class Waiter:
    """One wait on the simulated clock. ``timeout`` is the deadline's distance from the start
    (None: none). ``started`` is when the wait began (the clock, after the cluster has reacted
    to the command's writes)."""

    def __init__(self, client, timeout: float | None):
        self.client = client
        client.settle()  # the cluster reacts to the command's own writes at this instant
        self.started = client.now()
        self.deadline = None if timeout is None else self.started + max(timeout, 0.0)
        self.stops = 0

    def until(self, condition: Callable[[], bool], poll: float | None = None, every_poll: bool = False) -> str:
        """Check ``condition`` now, then after each moment the cluster changes (``poll``: at each
        poll instant instead, skipping those that would see what the last one saw, unless
        ``every_poll``: the condition does something each time, as printing why it is not yet
        met) until it holds, or the wait ends: DONE, TIMEOUT, STUCK or LIMIT."""
        client = self.client
        if condition():
            return DONE
        poll_start = client.now()
        while True:
            due = client.next_due()
            now = client.now()
            if poll and every_poll and (due is not None or self.deadline is not None):
                due = poll_start + (math.floor((now - poll_start) / poll + _EPS) + 1) * poll  # the next poll
            elif due is not None and poll:
                due = grid_at_or_after(poll_start, poll, max(due, now + _EPS))
            if self.deadline is not None:
                if due is None or due >= self.deadline - _EPS:
                    # the condition is what it is until the deadline: the wait times out there
                    client.wait_until(self.deadline)
                    return TIMEOUT
                if self.stops >= MAX_STOPS:
                    return LIMIT
            else:
                if due is None:
                    return STUCK
                if due - self.started > UNBOUNDED_WAIT + _EPS or self.stops >= MAX_STOPS:
                    return LIMIT
            client.wait_until(max(due, now))
            self.stops += 1
            if condition():
                return DONE

    def remaining(self) -> float | None:
        """What is left of the deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        return max(self.deadline - self.client.now(), 0.0)


def gave_up(outcome: str, kubectl_would: str) -> str:
    """The end of kubesim's error (or note) for a wait it ends where kubectl would go on:
    ``kubectl_would`` says what kubectl would do (``wait up to 168h0m0s``, ``keep watching``)."""
    if outcome == STUCK:
        return f"nothing in the cluster will change that (kubectl would {kubectl_would}; kubesim stops)"
    from kubesim.clock import format_duration

    return (f"kubesim waits at most {format_duration(UNBOUNDED_WAIT)} of simulated time, through at most "
            f"{MAX_STOPS} wake-ups (kubectl would {kubectl_would}; set --timeout)")
