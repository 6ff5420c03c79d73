"""The settle loop (DESIGN principle 4): run controllers, scheduler and kubelets until nothing
more changes at the current simulated time.

Each step is a function ``step(cluster) -> bool`` (True when it changed something). A command
that wrote nothing, with nothing due, skips the loop entirely: ``settle.due`` in the state holds
the earliest simulated time at which some component has work (a grace period ending, a back-off
expiring), so read-only commands stay fast and rewrite nothing.
"""

from __future__ import annotations

from typing import Callable

from kubesim.engine.context import Cluster

MAX_ROUNDS = 1000

Step = Callable[[Cluster], bool]


def default_steps() -> list[Step]:
    from kubesim.engine import components

    return components.STEPS


def settle(cluster: Cluster, steps: list[Step] | None = None, force: bool = False) -> int:
    """Run the control loop to a fixed point; returns the number of rounds that changed things."""
    store = cluster.store
    due = store.meta("settle.due")
    if not force and not store.dirty and (due is None or float(due) > cluster.now()):
        return 0
    steps = default_steps() if steps is None else steps
    cluster.next_due = None
    rounds = 0
    for _ in range(MAX_ROUNDS):
        changed = False
        for step in steps:
            if step(cluster):
                changed = True
        if not changed:
            break
        rounds += 1
    store.set_meta("settle.due", cluster.next_due)
    return rounds
