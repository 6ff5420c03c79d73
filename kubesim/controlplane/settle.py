"""The settle loop (DESIGN principle 4): run controllers, scheduler and kubelets until nothing
more changes at the current simulated time.

A settle runs at one instant, the moment it starts: the clock, which otherwise follows the wall
clock, stands still while the components work (as it does for a whole ``cluster init``). What
they make of a command is then the same on a fast machine and a slow one, and the seconds a
machine spends computing a 1,000-pod apply are not seconds in which the cluster moves on (its
image pulls ending, its pods synced again within the same command).

Each step is a function ``step(cluster) -> bool`` (True when it changed something). A command
that wrote nothing, with nothing due, skips the loop entirely: ``settle.due`` in the state holds
the earliest simulated time at which some component has work (a grace period ending, a back-off
expiring), so read-only commands stay fast and rewrite nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kubesim.apiserver.context import Cluster

MAX_ROUNDS = 1000

Step = Callable[[Cluster], bool]


def default_steps() -> list[Step]:
    from kubesim.controlplane import components

    return components.STEPS


def static_pod_signature(nodes_dir, with_files: set[str] | None = None,
                         listed: set[str] | None = None) -> str:
    """A cheap fingerprint of every node's static pod directory (its mtime; the names, sizes
    and mtimes of its files), so a read-only command notices a manifest the user wrote there,
    as a kubelet would. The names of the nodes whose directory holds anything are added to
    ``with_files`` when given. ``listed``: the nodes whose directories held files when the
    fingerprint was last taken; the others are only stat'ed (a file added to one changes its
    mtime, so the fingerprint still differs), which at 5,000 nodes costs a tenth of listing."""
    import os

    try:
        # hashlib's own BLAKE2, without hashlib loading OpenSSL (~2 ms of every command)
        from _blake2 import blake2b
    except ImportError:  # (a Python built without it)
        from hashlib import blake2b

    root = str(nodes_dir)
    try:
        # (each node's directory is stat'ed relative to the open nodes directory: the kernel walks
        # two path components a node, not the state's whole path; only the directories listed
        # below, a few, are opened by their full path)
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return ""
    parts = []  # (one line a node, hashed at the end: at 5,000 nodes the stat calls are the cost)
    try:
        stat = os.stat
        for n in sorted(os.listdir(fd)):
            try:
                mtime = stat(n + "/manifests", dir_fd=fd).st_mtime_ns
                if listed is not None and n not in listed:
                    parts.append(f"{n}\0{mtime}")
                    continue
                with os.scandir(f"{root}/{n}/manifests") as it:
                    entries = sorted((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in it)
            except OSError:
                continue
            parts.append(f"{n}\0{mtime}\0{entries!r}" if entries else f"{n}\0{mtime}")
            if entries and with_files is not None:
                with_files.add(n)
    except OSError:  # (the nodes directory itself unreadable)
        return ""
    finally:
        os.close(fd)
    return blake2b("\n".join(parts).encode(), digest_size=20).hexdigest()


def record_static_pod_signature(store) -> None:
    """Record every node's static pod directory as settle does when it finds one changed (for
    a new cluster built a slice at a time, whose later slices took the first one's check as
    the command's: kubesim.controlplane.session)."""
    with_files: set[str] = set()
    signature = static_pod_signature(store.nodes_dir, with_files)
    store.set_meta("settle.staticPods", [signature, sorted(with_files)])


def _recorded_signature(store) -> tuple[str | None, set[str] | None]:
    """The fingerprint the last command recorded and the nodes whose directories held files."""
    v = store.meta("settle.staticPods")
    if isinstance(v, list) and len(v) == 2:
        return v[0], set(v[1])
    return v, None


def settle_pending(cluster: Cluster) -> bool:
    """Whether :func:`settle` would have anything to do now (writes pending, a component due,
    or a static pod manifest written since the last command), without changing anything."""
    store = cluster.store
    if store.dirty:
        return True
    due = store.meta("settle.due")
    if due is not None and float(due) <= cluster.now():
        return True
    recorded, listed = _recorded_signature(store)
    return recorded is None or static_pod_signature(store.nodes_dir, listed=listed) != recorded


# the field manager of each step's writes that is not the controller manager's
STEP_MANAGERS = {"register_nodes": "kubelet", "static_pod_directories": "kubelet", "node_leases": "kubelet",
                 "sync_pods": "kubelet", "static_pods": "kubelet", "schedule": "kube-scheduler",
                 "kubernetes_service": "kube-apiserver"}


def settle(cluster: Cluster, steps: list[Step] | None = None, force: bool = False) -> int:
    """Run the control loop to a fixed point; returns the number of rounds that changed things."""
    store = cluster.store
    due = store.meta("settle.due")
    if not getattr(cluster, "_static_pods_checked", False):
        # once per command (it settles before and after its work; only the user, between
        # commands, writes to these directories)
        cluster._static_pods_checked = True
        with_files: set[str] = set()
        recorded, listed = _recorded_signature(store)
        signature = static_pod_signature(store.nodes_dir, with_files, listed) if listed is not None else None
        if signature is None or signature != recorded:
            with_files = set()  # something changed: every directory is listed again
            signature = static_pod_signature(store.nodes_dir, with_files)
        # the kubelets need list only these directories this command (components.static_pods;
        # kubesim's own writes there, bootstrap's, drop the hint)
        cluster._static_pod_dirs = with_files
        if signature != recorded:
            store.set_meta("settle.staticPods", [signature, sorted(with_files)])
            force = True  # a manifest was written, edited or removed: the kubelets must look
    if not force and not store.dirty and (due is None or float(due) > cluster.now()):
        return 0
    clock = cluster.clock
    instant = clock.pinned is None  # (else KUBESIM_NOW, or an init, holds it already)
    if instant:
        clock.pinned = time.time()
    try:
        return _settle(cluster, steps, store)
    finally:
        if instant:
            clock.pinned = None


def _settle(cluster: Cluster, steps: list[Step] | None, store) -> int:
    from kubesim.apiserver import events

    events.expire(cluster)  # etcd's leases run out whatever the control loop does
    default = default_steps()
    steps = default if steps is None else steps
    cluster.next_due = None
    rounds = 0
    fixed_point = False
    requester = cluster.field_manager
    try:
        for _ in range(MAX_ROUNDS):
            changed = False
            for step in steps:
                # managedFields name the component that writes
                cluster.field_manager = STEP_MANAGERS.get(getattr(step, "__name__", ""), "kube-controller-manager")
                if step(cluster):
                    changed = True
            if not changed:
                fixed_point = True
                break
            rounds += 1
    finally:
        cluster.field_manager = requester
    store.set_meta("settle.due", cluster.next_due)
    from kubesim.controlplane.components import SETTLED_RV_META

    # every controller is at rest in this state: the next command's need look only at what
    # is written after it (components._controller_due)
    at_rest = fixed_point and steps is default
    store.set_meta(SETTLED_RV_META, store.resource_version() if at_rest else None)
    cluster.settled_here = at_rest  # the mark above is this command's (components.settled_baseline)
    return rounds


MAX_STOPS = 1000


def advance(cluster: Cluster, seconds: float, steps: list[Step] | None = None) -> int:
    """``kubesim advance``: move the simulated clock forward by ``seconds`` the way time flows,
    stopping at every moment some component asked to be woken (a grace period ending, a back-off
    expiring, a probe's next period) and settling there, so components act in time order — the
    kubelet removes a preempted victim at its deadline before the preemptor's retry at a later
    one. After ``MAX_STOPS`` stops the rest of the way is one jump. Returns the stops made."""
    target = cluster.now() + seconds
    settle(cluster, steps)
    stops = 0
    while stops < MAX_STOPS:
        due = cluster.store.meta("settle.due")
        if due is None or float(due) >= target:
            break
        _move_to(cluster, float(due))
        settle(cluster, steps, force=True)
        stops += 1
    _move_to(cluster, target)
    settle(cluster, steps, force=True)
    return stops


def _move_to(cluster: Cluster, t: float) -> None:
    now = cluster.now()
    if t > now:
        cluster.advance(t - now)
        if cluster.now() < t:  # the offset's float arithmetic fell an ulp short
            cluster.advance(t - cluster.now() + 1e-6)


def wait_until(cluster: Cluster, t: float) -> bool:
    """What a waiting client lets happen until ``t``: the clock moves there the way time flows
    (as ``advance`` does), settling at every due moment on the way. True when anything changed."""
    changed, last = False, None
    while True:
        due = cluster.store.meta("settle.due")
        if due is None or float(due) > t + _EPS or (last is not None and float(due) <= last + _EPS):
            break
        last = float(due)
        _move_to(cluster, last)
        if settle(cluster, force=True):
            changed = True
    _move_to(cluster, t)
    return changed


_EPS = 1e-6
