"""What every controller shares: the view it reads, the changes it returns, and the helpers
upstream keeps in pkg/controller/controller_utils.go and pkg/api/v1/pod/util.go (metadata
accessors such as ``controller_ref`` and ``selector_of`` are ``kubesim.api.meta.helpers``').

A controller is a pure function ``sync(view) -> list[Change]``: it reads stored objects from the
``View`` (never mutating them), and says what the API server should be asked to do. The engine
applies the changes in order (``Change.op``):

- ``create``: store a new object (names are chosen by the controller from ``view.rng``);
- ``update``: replace the stored object with ``obj`` (spec/metadata changes; the controller has
  already bumped ``metadata.generation`` where the API server would);
- ``update_status``: replace only ``status`` of the stored object with ``obj["status"]``;
- ``delete``: delete the object, with ``propagation`` (``Background``, ``Foreground``, ``Orphan``)
  and, for a pod, ``grace_seconds`` (None: the pod's own grace period; 0: at once, as
  ``DeleteOptions{GracePeriodSeconds: 0}``);
- ``event``: only record ``events``;
- ``wake``: run the controllers again at simulated time ``at`` (an upstream requeue-after).

Every change may carry ``events`` to record (``Event``), in order, after the change is applied.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from kubesim.api import selectors
from kubesim.api.meta.helpers import (
    controller_ref,
    creation_time,
    labels_of,
    meta,
    name_of,
    new_controller_ref,
    uid_of,
)
from kubesim.api.names import MAX_NAME_LENGTH, random_string
from kubesim.api.objcopy import deep_copy
from kubesim.api.record import FrozenRecord, Record
from kubesim.clock import format_time, parse_time


class Event(FrozenRecord):
    """An Event about ``obj`` (core/v1: involvedObject, type, reason, message, source.component;
    with an ``action``, from an events.k8s.io recorder, ``related`` optionally naming a second
    object)."""

    __slots__ = ("action", "at", "component", "count", "message", "obj", "reason", "related", "type")

    def __init__(self, obj: dict, type: str, reason: str, message: str, component: str, action: str = "",
                 related: dict | None = None, count: int = 1, at: float | None = None):
        self.obj = obj
        self.type = type
        self.reason = reason
        self.message = message
        self.component = component
        self.action = action
        self.related = related
        self.count = count      # how many times it happened (a resync catching up on missed ticks)
        self.at = at            # when it (last) happened, when not now


class Change(Record):
    __slots__ = ("at", "events", "failure", "failure_owner", "failure_reason", "grace_seconds", "needs", "obj", "op",
                 "otherwise", "propagation", "slow_start")

    def __init__(self, op: str, obj: dict | None = None, events: list[Event] | None = None,
                 propagation: str | None = None, at: float | None = None, grace_seconds: int | None = None,
                 slow_start: str | None = None, failure: str | None = None, failure_reason: str = "FailedCreate",
                 failure_owner: dict | None = None, needs: tuple[tuple[str, str, str], ...] = (),
                 otherwise: Change | Callable[[tuple[str, str, str], str], Change | None] | None = None):
        self.op = op  # create | update | update_status | delete | event | wake
        self.obj = obj
        self.events = [] if events is None else events
        self.propagation = propagation
        self.at = at
        self.grace_seconds = grace_seconds
        # creates of one slowStartBatch call (controller_utils.go: batches of 1, 2, 4, ... and none
        # after a batch in which a create failed), named by their owner's uid
        self.slow_start = slow_start
        # a create's FailedCreate message, on its owner, when the API server refuses it ({error}:
        # its message); a pod's is RealPodControl's "Error creating: {error}"
        self.failure = failure
        self.failure_reason = failure_reason
        self.failure_owner = failure_owner  # who hears of it (default: the object's controller)
        # a change that holds only if the creates of these keys (in the same list) succeeded, and
        # what stands instead when one was refused (None: nothing; a callable: made from the refused
        # key and the refusal's text)
        self.needs = needs
        self.otherwise = otherwise

    @property
    def key(self) -> tuple[str, str, str]:
        md = (self.obj or {}).get("metadata") or {}
        return ((self.obj or {}).get("kind", ""), md.get("namespace", ""), md.get("name", ""))

    def __repr__(self) -> str:  # compact, for test failure messages
        k = self.key
        extra = f" at={self.at}" if self.op == "wake" else ""
        return f"Change({self.op} {k[0]} {k[1]}/{k[2]}{extra}, events={[e.message for e in self.events]})"


class View:
    """The stored objects a controller may read, the simulated time and the random source.

    ``objects`` maps a kind to its objects (as stored: JSON-shaped dicts). The view never
    changes during a sync; controllers deep-copy what they modify."""

    def __init__(self, objects: dict[str, list[dict]] | None = None, now: float = 0.0, rng=None):
        import random

        self.objects = {k: list(v) for k, v in (objects or {}).items()}
        self.now = now
        self.rng = rng if rng is not None else random.Random(0)
        self._index: dict[str, dict[tuple[str, str], dict]] = {}  # per kind, built on first get

    @classmethod
    def from_store(cls, store, now: float, rng, kinds=("Deployment", "ReplicaSet", "DaemonSet", "Pod", "Node",
                                                      "ControllerRevision")) -> View:
        """A view over a kubesim store (the engine's convenience; lists are sorted by namespace/name)."""
        return cls({k: store.list(k) for k in kinds}, now, rng)

    # What the engine knows changed since the controller last synced: None (sync everything),
    # or (uids, namespaces): sync only the objects with one of these uids or in one of these
    # namespaces (upstream's work queue holds the keys its event handlers enqueued).
    targets: tuple[set[str], set[str]] | None = None
    # The DaemonSet controller's: None (sync every node), or the nodes whose daemon pods may
    # have changed since it was last at rest, with what they were then
    # (kubesim.controllers.daemonset.DaemonNodes)
    daemon_nodes = None

    def wants(self, obj: dict) -> bool:
        """Whether a sync over every object of a kind should sync ``obj`` (``targets``)."""
        t = self.targets
        if t is None:
            return True
        md = obj.get("metadata") or {}
        return md.get("uid") in t[0] or (md.get("namespace") or "") in t[1]

    def list(self, kind: str, namespace: str | None = None) -> list[dict]:
        objs = self.objects.get(kind, [])
        if namespace is None:
            return objs
        return [o for o in objs if (o.get("metadata") or {}).get("namespace", "") == namespace]

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        by = self._index.get(kind)
        if by is None:
            by = self._index[kind] = {}
            for o in self.objects.get(kind, ()):
                md = o.get("metadata") or {}
                by[(md.get("namespace", ""), md.get("name", ""))] = o
        return by.get((namespace or "", name))

    def selected(self, kind: str, namespace: str, selector) -> list[dict]:
        """Objects of ``kind`` in ``namespace`` whose labels ``selector`` (an
        ``api.selectors.LabelSelector``) matches, in ``list``'s order: a lister's List with a
        selector."""
        return [o for o in self.list(kind, namespace) if selector.matches((o.get("metadata") or {}).get("labels") or {})]

    def owned_by(self, kind: str, owner_uid: str) -> list[dict]:
        """Objects of ``kind`` whose controller reference names ``owner_uid`` (indexed once)."""
        return self._owner_index(kind)[0].get(owner_uid, [])

    def orphans(self, kind: str, namespace: str) -> list[dict]:
        """Objects of ``kind`` in ``namespace`` without a controller reference."""
        return self._owner_index(kind)[1].get(namespace or "", [])

    def _owner_index(self, kind: str):
        cache = self.__dict__.setdefault("_owners", {})
        if kind not in cache:
            owned: dict[str, list[dict]] = {}
            orphans: dict[str, list[dict]] = {}
            for o in self.objects.get(kind, []):
                ref = controller_ref(o)
                if ref is None:
                    orphans.setdefault((o.get("metadata") or {}).get("namespace", ""), []).append(o)
                else:
                    owned.setdefault(ref.get("uid", ""), []).append(o)
            cache[kind] = (owned, orphans)
        return cache[kind]

    def stamp(self) -> str:
        return format_time(self.now)

    def random_suffix(self, n: int = 5) -> str:
        return random_string(self.rng, n)

    def generate_name(self, prefix: str, kind: str, namespace: str, taken: set[str] | None = None) -> str:
        """names.SimpleNameGenerator (base cut to 58 characters + 5 random characters), avoiding
        names already stored or already chosen in this sync (the API server would retry)."""
        taken = taken if taken is not None else set()
        while True:
            name = prefix[:MAX_NAME_LENGTH] + self.random_suffix()
            if name not in taken and self.get(kind, namespace, name) is None:
                taken.add(name)
                return name


class StoreView(View):
    """A ``View`` that reads a kind from the store when a controller first asks for it, and
    answers ``owned_by`` / ``orphans`` for pods from the store's ControllerRef index (an
    informer's indexer), and ``selected`` from its index of labels (a lister with a selector),
    so a sync that visits one ReplicaSet decodes that ReplicaSet's pods, not the cluster's. The
    answers are the objects of ``View``'s over every stored object of the kind, in the same
    order, but for their managedFields (``UNREAD``)."""

    INDEXED = ("Pod",)
    # What no controller reads (and what a write recomputes from the stored object: the API
    # server's field manager): the objects listed are decoded without it, as read-only copies
    # (a third of a pod's memory)
    UNREAD = ("metadata.managedFields",)

    def __init__(self, store, kinds, now: float, rng=None):
        super().__init__({}, now, rng)
        self._store = store
        self._kinds = tuple(kinds)

    def _ensure(self, kind: str) -> None:
        if kind not in self.objects and kind in self._kinds:
            self.objects[kind] = self._store.list(kind, None, self.UNREAD)

    def list(self, kind: str, namespace: str | None = None) -> list[dict]:
        if kind not in self.objects and kind in self._kinds and namespace is not None:
            return self._store.list(kind, namespace, self.UNREAD)
        self._ensure(kind)
        return super().list(kind, namespace)

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        if kind not in self.objects:
            return self._store.get(kind, namespace or "", name) if kind in self._kinds else None
        return super().get(kind, namespace, name)

    def selected(self, kind: str, namespace: str, selector) -> list[dict]:
        if kind in self.INDEXED and kind not in self.objects:
            keys = self._labelled(kind, namespace, selector)
            if keys is not None:
                return [o for o in self._store.objects(keys, self.UNREAD)
                        if selector.matches((o.get("metadata") or {}).get("labels") or {})]
        return super().selected(kind, namespace, selector)

    def _labelled(self, kind: str, namespace: str, selector) -> list | None:
        """The sorted keys of a superset of what ``selector`` selects, from the store's index
        of labels: those with the label of its first requirement that names values (None:
        no requirement narrows, or the index cannot answer)."""
        for r in selector.requirements:
            if r.operator not in (selectors.OP_EQUALS, selectors.OP_DOUBLE_EQUALS, selectors.OP_IN):
                continue
            keys: set = set()
            for v in r.values:
                found = self._store.keys_labelled(kind, r.key, v, namespace or "")
                if found is None:
                    return None
                keys.update(found)
            return sorted(keys)
        return None

    def owned_by(self, kind: str, owner_uid: str) -> list[dict]:
        if kind in self.INDEXED and kind not in self.objects:
            keys = self._store.keys_controlled_by(kind, owner_uid)
            if keys is not None:
                return self._store.objects(keys, self.UNREAD)
        self._ensure(kind)
        return super().owned_by(kind, owner_uid)

    def orphans(self, kind: str, namespace: str) -> list[dict]:
        if kind in self.INDEXED and kind not in self.objects:
            keys = self._store.keys_orphaned(kind, namespace or "")
            if keys is not None:
                return self._store.objects(keys, self.UNREAD)
        self._ensure(kind)
        return super().orphans(kind, namespace)


def remove_finalizer(obj: dict, finalizer: str) -> list[Change]:
    """Remove ``finalizer`` from an object marked for deletion; with none left the API server
    deletes it (the generic registry: a marked object goes when its last finalizer does)."""
    new = deepcopy(obj)
    fins = [f for f in new["metadata"].get("finalizers") or () if f != finalizer]
    if fins:
        new["metadata"]["finalizers"] = fins
        return [Change("update", new)]
    new["metadata"].pop("finalizers", None)
    return [Change("update", new), Change("delete", new, propagation="Background")]


def deepcopy(obj):
    return deep_copy(obj)


# ---------------------------------------------------------------------------------------------
# pods (pkg/api/v1/pod/util.go, controller_utils.go)

def pod_condition(pod: dict, type_: str) -> dict | None:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == type_:
            return c
    return None


def is_pod_ready(pod: dict) -> bool:
    c = pod_condition(pod, "Ready")
    return c is not None and c.get("status") == "True"


def pod_ready_time(pod: dict) -> float | None:
    c = pod_condition(pod, "Ready")
    if c is None or c.get("status") != "True" or not c.get("lastTransitionTime"):
        return None
    return parse_time(c["lastTransitionTime"])


def is_pod_available(pod: dict, min_ready_seconds: int, now: float) -> bool:
    """podutil.IsPodAvailable. Upstream requires lastTransitionTime + minReadySeconds to be
    strictly before now; stored times have one-second precision, so kubesim counts the pod
    available from that instant on (``kubesim advance 10s`` makes a minReadySeconds: 10 pod available)."""
    if not is_pod_ready(pod):
        return False
    if not min_ready_seconds:
        return True
    t = pod_ready_time(pod)
    return t is not None and t + min_ready_seconds <= now


def available_at(pod: dict, min_ready_seconds: int) -> float | None:
    """When a ready pod becomes available (for a requeue), or None."""
    t = pod_ready_time(pod)
    return None if t is None else t + min_ready_seconds


def update_pod_condition(pod: dict, type_: str, status: str, reason: str, message: str, now: float) -> bool:
    """podutil.UpdatePodCondition on ``pod`` (changed in place): the condition is appended, or
    replaces the one of its type (lastTransitionTime kept while the status stays the same);
    True when anything changed. It carries the pod's generation as observedGeneration
    (CalculatePodConditionObservedGeneration; PodObservedGenerationTracking is GA in v1.35)."""
    cond = {"lastProbeTime": None, "lastTransitionTime": format_time(now), "message": message, "reason": reason,
            "status": status, "type": type_}
    generation = meta(pod).get("generation") or 0
    if generation:
        cond["observedGeneration"] = generation
    conds = pod.setdefault("status", {}).setdefault("conditions", [])
    for i, old in enumerate(conds):
        if old.get("type") != type_:
            continue
        if old.get("status") == status:
            cond["lastTransitionTime"] = old.get("lastTransitionTime")
        same = all(old.get(k) == cond[k] for k in ("status", "reason", "message", "lastProbeTime",
                                                      "lastTransitionTime"))
        conds[i] = cond
        return not same
    conds.append(cond)
    return True


def is_pod_terminal(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def is_pod_active(pod: dict) -> bool:
    """controller.IsPodActive: not terminal and not being deleted."""
    return not is_pod_terminal(pod) and not meta(pod).get("deletionTimestamp")


def is_pod_terminating(pod: dict) -> bool:
    """controller.IsPodTerminating: being deleted and not yet terminal."""
    return not is_pod_terminal(pod) and bool(meta(pod).get("deletionTimestamp"))


_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def _max_restarts(pod: dict) -> int:
    return max([int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or ()],
               default=0)


def _deletion_cost(pod: dict) -> int:
    v = (meta(pod).get("annotations") or {}).get("controller.kubernetes.io/pod-deletion-cost")
    try:
        return int(v) if v is not None else 0
    except ValueError:
        return 0


def _log_rank(t: float, now: float) -> int:
    d = (now - t) * 1e9  # durations in nanoseconds, as time.Duration
    return int(math.log2(d)) if d > 0 else -1


def _after_or_zero(t1: float | None, t2: float | None) -> bool:
    if not t1 or not t2:
        return not t1
    return t1 > t2


def _time_less(t1: float | None, t2: float | None, uid1: str, uid2: str, now: float | None) -> bool:
    """Step 6/8 of ActivePodsWithRanks.Less with LogarithmicScaleDown (GA): compare on a log2
    scale of the age, then by UID."""
    if not now or not t1 or not t2:
        return _after_or_zero(t1, t2)
    diff = _log_rank(t1, now) - _log_rank(t2, now)
    if diff == 0:
        return uid1 < uid2
    return diff < 0


def active_pods_less(a: dict, b: dict, rank_a: int, rank_b: int, now: float | None) -> bool:
    """controller.ActivePodsWithRanks.Less: True when ``a`` should be deleted before ``b``.

    1. unassigned < assigned; 2. Pending < Unknown < Running; 3. not ready < ready;
    4. lower controller.kubernetes.io/pod-deletion-cost first; 5. more pods of the same owner on
    the node (rank) first; 6. ready for less time first (log scale); 7. more container restarts
    first; 8. newer first (log scale)."""
    na, nb = (a.get("spec") or {}).get("nodeName") or "", (b.get("spec") or {}).get("nodeName") or ""
    if na != nb and (not na or not nb):
        return not na
    pa = _PHASE_ORDINAL.get((a.get("status") or {}).get("phase"), 0)
    pb = _PHASE_ORDINAL.get((b.get("status") or {}).get("phase"), 0)
    if pa != pb:
        return pa < pb
    ra, rb = is_pod_ready(a), is_pod_ready(b)
    if ra != rb:
        return not ra
    ca, cb = _deletion_cost(a), _deletion_cost(b)
    if ca != cb:
        return ca < cb
    if rank_a != rank_b:
        return rank_a > rank_b
    if ra and rb:
        ta, tb = pod_ready_time(a), pod_ready_time(b)
        if ta != tb:
            return _time_less(ta, tb, uid_of(a), uid_of(b), now)
    xa, xb = _max_restarts(a), _max_restarts(b)
    if xa != xb:
        return xa > xb
    ta, tb = creation_time(a) or None, creation_time(b) or None
    if ta != tb:
        return _time_less(ta, tb, uid_of(a), uid_of(b), now)
    return False


def rank_pods_for_deletion(pods: list[dict], related: list[dict], now: float | None) -> list[dict]:
    """getPodsRankedByRelatedPodsOnSameNode + sort: the pods in deletion order (first = first
    to go). Rank = active related pods on the same node. Go's sort is not stable; kubesim's is,
    so equal pods keep their (name) order."""
    on_node: dict[str, int] = {}
    for p in related:
        if is_pod_active(p):
            n = (p.get("spec") or {}).get("nodeName") or ""
            on_node[n] = on_node.get(n, 0) + 1
    ranked = [(p, on_node.get((p.get("spec") or {}).get("nodeName") or "", 0)) for p in pods]

    def cmp(x, y) -> int:
        if active_pods_less(x[0], y[0], x[1], y[1], now):
            return -1
        if active_pods_less(y[0], x[0], y[1], x[1], now):
            return 1
        return 0

    return [p for p, _ in sorted(ranked, key=functools.cmp_to_key(cmp))]


def pod_from_template(template: dict, owner: dict, namespace: str, name: str) -> dict:
    """controller.GetPodFromTemplate: labels, annotations and finalizers of the template,
    generateName ``<owner>-``, the owner's controller reference, the template's spec."""
    tmeta = template.get("metadata") or {}
    md: dict = {"generateName": name_of(owner) + "-", "name": name, "namespace": namespace}
    if tmeta.get("labels"):
        md["labels"] = dict(tmeta["labels"])
    if tmeta.get("annotations"):
        md["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("finalizers"):
        md["finalizers"] = list(tmeta["finalizers"])
    md["ownerReferences"] = [new_controller_ref(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": deep_copy(template.get("spec") or {})}


# ---------------------------------------------------------------------------------------------
# claiming (controller_ref_manager.go): adopt orphans that match, release owned ones that don't

def claim(view: View, owner: dict, candidates: list[dict], selector: selectors.LabelSelector,
          changes: list[Change], can_adopt: bool = True) -> list[dict]:
    """BaseControllerRefManager.ClaimObject for each candidate. Returns the claimed objects (as
    they will be after adoption); appends the adoption/release patches to ``changes``."""
    claimed = []
    owner_deleting = bool(meta(owner).get("deletionTimestamp"))
    for obj in candidates:
        ref = controller_ref(obj)
        if ref is not None:
            if ref.get("uid") != uid_of(owner):
                continue  # owned by someone else
            if selector.matches(labels_of(obj)):
                claimed.append(obj)
                continue
            if owner_deleting:
                continue
            released = deepcopy(obj)
            released["metadata"]["ownerReferences"] = [
                r for r in released["metadata"].get("ownerReferences") or () if r.get("uid") != uid_of(owner)]
            if not released["metadata"]["ownerReferences"]:
                del released["metadata"]["ownerReferences"]
            changes.append(Change("update", released))
            continue
        if owner_deleting or not can_adopt or not selector.matches(labels_of(obj)):
            continue
        if meta(obj).get("deletionTimestamp"):
            continue
        adopted = deepcopy(obj)
        adopted["metadata"].setdefault("ownerReferences", []).append(new_controller_ref(owner))
        changes.append(Change("update", adopted))
        claimed.append(adopted)
    return claimed


# ---------------------------------------------------------------------------------------------
# intstr and rounding (apimachinery util/intstr, k8s.io/utils/integer)

class IntOrStringError(ValueError):
    pass


def value_from_int_or_percent(v, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if v is None:
        return 0
    if isinstance(v, bool):
        raise IntOrStringError("invalid type: neither int nor percentage")
    if isinstance(v, int):
        return v
    s = str(v)
    if not s.endswith("%"):
        raise IntOrStringError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:
        pct = int(s[:-1])
    except ValueError:
        raise IntOrStringError(f"invalid value {s!r}: {s[:-1]!r} is not an integer") from None
    x = pct * total / 100
    return math.ceil(x) if round_up else math.floor(x)


def round_to_int32(a: float) -> int:
    """integer.RoundToInt32: round half away from zero."""
    return int(a - 0.5) if a < 0 else int(a + 0.5)


def set_condition(conditions: list[dict], cond: dict, keep_transition_if_same_status: bool = True) -> list[dict]:
    """SetDeploymentCondition / SetCondition: unchanged when status and reason are the same;
    keeps lastTransitionTime when only the reason changes."""
    cur = next((c for c in conditions if c.get("type") == cond["type"]), None)
    if cur is not None and cur.get("status") == cond["status"] and cur.get("reason") == cond.get("reason"):
        return conditions
    if cur is not None and cur.get("status") == cond["status"] and keep_transition_if_same_status \
            and "lastTransitionTime" in cur:
        cond = dict(cond, lastTransitionTime=cur["lastTransitionTime"])
    return [c for c in conditions if c.get("type") != cond["type"]] + [cond]


def remove_condition(conditions: list[dict], type_: str) -> list[dict]:
    return [c for c in conditions if c.get("type") != type_]


def get_condition(conditions: list[dict] | None, type_: str) -> dict | None:
    return next((c for c in conditions or () if c.get("type") == type_), None)
