"""How the engine applies controller changes: the contract, as one reference function.

Controllers never touch the store (STYLE convention 5); the engine calls ``sync(view)`` and then
``apply_changes`` with its own store operations, so this module imports nothing of the engine::

    from kubesim.controllers import apply, deployment
    from kubesim.controllers.base import View

    def deployment_step(cluster) -> bool:
        view = View.from_store(cluster.store, cluster.now(), cluster.rng)
        return apply.apply_changes(deployment.sync(view), get=..., create=..., put=..., delete=...,
                                   record=..., wake_at=cluster.wake_at, now=cluster.now())

``create`` is the API server's create (defaulting and admission, which a new pod needs: the
service-account token volume, priority, default tolerations); ``put`` stores an object as given
(the store assigns the resourceVersion); ``delete(kind, namespace, name, propagation,
grace_seconds)`` is the API server's delete with that propagation policy (``Background``: the
object goes, or, for a pod, its graceful deletion starts; ``Foreground``/``Orphan``: it is marked
with the policy's finalizer and the garbage collector finishes) and grace period (None: the
pod's own; 0: at once); ``record`` records an Event from ``component``; ``failed(owner,
error, event message)``, when given, hears of each create the API server refused that was
reported to its owner (the caller requeues the owner with back-off, as a controller's
workqueue does).

Creates marked ``slow_start`` with their owner's uid go in upstream's slowStartBatch batches
(pkg/controller/replicaset/replica_set.go slowStartBatch, job_controller.go manageJob,
daemon_controller.go syncNodes): 1, then twice the last batch, all of a batch attempted; after a
batch in which one failed, the rest are skipped (the controller lowers its expectations).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubesim.api.objcopy import deep_copy
from kubesim.controllers.base import Change
from kubesim.errors import StatusError

# what an update through the status subresource may change (the strategies' PrepareForUpdate
# keeps spec and labels; the Deployment controller writes its revision annotation this way)
_STATUS_SUBRESOURCE_METADATA = ("annotations",)


def apply_changes(changes: Iterable[Change], *, get: Callable[[str, str, str], dict | None],
                  create: Callable[[dict], object], put: Callable[[dict], object],
                  delete: Callable[[str, str, str, str, int | None], object],
                  record: Callable[[dict, str, str, str, str], object],
                  wake_at: Callable[[float], object], now: float,
                  failed: Callable[[dict, str], object] | None = None) -> bool:
    """Apply ``changes`` in order; True when the store changed. Changes to objects that are gone
    (or, for create, already there) are skipped, as the API server's NotFound/AlreadyExists
    would make a controller drop them."""
    changes = list(changes)
    batches = _SlowStart(changes)
    refused: dict[tuple[str, str, str], str] = {}  # key -> the API server's refusal
    changed = False
    for ch in changes:
        refused_key = next((k for k in ch.needs if k in refused), None)
        if refused_key is not None:
            instead = ch.otherwise(refused_key, refused[refused_key]) if callable(ch.otherwise) else ch.otherwise
            if instead is None:
                continue
            ch = instead
        if ch.op == "wake":
            if ch.at is not None:
                wake_at(ch.at)
            continue
        kind, ns, name = ch.key
        applied = True
        if ch.op == "create":
            if not batches.attempt(ch):
                continue
            if get(kind, ns, name) is None:
                try:
                    create(deep_copy(ch.obj))
                except StatusError as e:
                    if not _creation_failed(ch, e, get, record, wake_at, now, failed):
                        raise
                    batches.failed(ch)
                    refused[ch.key] = e.message
                    changed = True
                    continue
            else:
                applied = False
        elif ch.op == "update":
            stored = get(kind, ns, name)
            if stored is None:
                applied = False
            else:
                new = deep_copy(ch.obj)
                _keep_server_fields(new, stored)
                put(new)
        elif ch.op == "update_status":
            stored = get(kind, ns, name)
            if stored is None:
                applied = False
            else:
                new = deep_copy(stored)
                new["status"] = deep_copy(ch.obj.get("status") or {})
                for f in _STATUS_SUBRESOURCE_METADATA:
                    if f in (ch.obj.get("metadata") or {}):
                        new["metadata"][f] = deep_copy(ch.obj["metadata"][f])
                put(new)
        elif ch.op == "delete":
            stored = get(kind, ns, name)
            if stored is None:
                applied = False
            else:
                delete(kind, ns, name, ch.propagation or "Background", ch.grace_seconds)
        changed = changed or applied
        if applied or ch.op == "event":
            for ev in ch.events:
                record(ev.obj, ev.type, ev.reason, ev.message, ev.component, action=ev.action, related=ev.related,
                       count=ev.count, at=ev.at)
                changed = True
    return changed


# kubesim: how long a caller that keeps no back-off waits before a refused create is tried
# again (controllers run by the control plane requeue with their workqueue's back-off instead)
CREATE_RETRY_SECONDS = 10.0


class _SlowStart:
    """slowStartBatch's bookkeeping per owner: which of its creates are attempted."""

    def __init__(self, changes: list[Change]):
        self.left: dict[str, int] = {}
        for ch in changes:
            if ch.op == "create" and ch.slow_start is not None:
                self.left[ch.slow_start] = self.left.get(ch.slow_start, 0) + 1
        self.size: dict[str, int] = {}
        self.batch_left: dict[str, int] = {}
        self.failing: set[str] = set()
        self.skipping: set[str] = set()

    def attempt(self, ch: Change) -> bool:
        g = ch.slow_start
        if g is None:
            return True
        if g in self.skipping:
            return False
        if not self.batch_left.get(g):
            if g in self.failing:
                self.skipping.add(g)  # the batch before failed: the rest are skipped
                return False
            self.size[g] = min(self.left[g], 2 * self.size[g] if g in self.size else 1)
            self.batch_left[g] = self.size[g]
        self.batch_left[g] -= 1
        self.left[g] -= 1
        return True

    def failed(self, ch: Change) -> None:
        if ch.slow_start is not None:
            self.failing.add(ch.slow_start)


def _creation_failed(ch: Change, err, get, record, wake_at, now: float, failed=None) -> bool:
    """A controller's create refused by the API server (admission: a missing service account,
    ...): upstream's controllers record ``FailedCreate`` ``Error creating: <error>`` on the owner
    (controller_utils.go RealPodControl.createPods; other creates carry their controller's
    words in ``failure``) and try again later. False when the object has no owner to tell, or
    is neither a pod nor given ``failure`` (the error is then the caller's: the ephemeral volume
    controller reports its claims' on the pod)."""
    template = ch.failure or ("Error creating: {error}" if (ch.obj or {}).get("kind") == "Pod" else None)
    if template is None:
        return False
    md = (ch.obj or {}).get("metadata") or {}
    owner = ch.failure_owner
    if owner is None:
        ref = next((r for r in md.get("ownerReferences") or () if r.get("controller")), None)
        owner = get(ref.get("kind", ""), md.get("namespace", ""), ref.get("name", "")) if ref else None
    if owner is None:
        return False
    component = ch.events[0].component if ch.events else ""
    message = template.format(error=err.message)
    record(owner, "Warning", ch.failure_reason, message, component)
    if failed is not None:
        failed(owner, err.message, message)
    else:
        wake_at(now + CREATE_RETRY_SECONDS)
    return True


def _keep_server_fields(new: dict, stored: dict) -> None:
    md, smd = new.setdefault("metadata", {}), stored.get("metadata") or {}
    for f in ("uid", "creationTimestamp"):
        if f in smd:
            md[f] = smd[f]
