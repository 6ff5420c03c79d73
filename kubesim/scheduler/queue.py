"""The scheduling queue as plain data: active, backoff, unschedulable and gated pods.

Upstream: pkg/scheduler/backend/queue/scheduling_queue.go and backoff_queue.go (v1.35):
new pods go through the PreEnqueue plugins (SchedulingGates) and wait, gated, until those pass;
pods enter activeQ ordered by the QueueSort plugin (PrioritySort: higher priority, then earlier
queue timestamp); Pop counts an attempt; a pod that failed as Unschedulable goes to the
unschedulable pool, and a cluster event moves it back — to backoffQ while its backoff lasts,
else to activeQ; a pod that failed with an Error goes straight to backoffQ; pods stuck in the
unschedulable pool longer than podMaxInUnschedulablePodsDuration (5 minutes) are flushed back.
Backoff: podInitialBackoffSeconds doubled per failed attempt (unschedulable count, or consecutive
error count after errors), capped at podMaxBackoffSeconds, counted from the failure time.

kubesim differences: time is the caller's ``now``; every cluster event requeues every waiting pod
(queueing hints are not modelled); ties in QueueSort fall back to arrival order. State round-trips
through ``to_dict``/``from_dict`` so the engine can keep it between commands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from kubesim.scheduler.framework.interface import QueuedPodInfo
from kubesim.scheduler.framework.types import pod_key, pod_priority

ACTIVE = "active"
BACKOFF = "backoff"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"
IN_FLIGHT = "inFlight"

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0


class _PodRef:
    """Enough of a PodInfo for QueueSort plugins (priority and the pod)."""

    __slots__ = ("key", "pod", "priority")

    def __init__(self, pod: dict) -> None:
        self.pod = pod
        self.key = pod_key(pod)
        self.priority = pod_priority(pod)


@dataclass
class QueueEntry:
    pod: dict
    queue: str = ACTIVE
    timestamp: float = 0.0
    attempts: int = 0
    unschedulable_count: int = 0
    consecutive_errors: int = 0
    backoff_expiry: float = 0.0
    gating_plugin: str = ""
    unschedulable_plugins: list[str] = field(default_factory=list)
    seq: int = 0
    # pod_update_digest of the pod when it entered the unschedulable pool
    digest: str = ""

    @property
    def key(self) -> str:
        return pod_key(self.pod)


def pod_update_digest(pod: dict) -> str:
    """What upstream's isPodUpdated (scheduling_queue.go) compares: the pod without its
    resourceVersion, generation, managedFields, finalizers and status. The scheduler's own
    status writes (the PodScheduled condition, nominatedNodeName) and the kubelet's do not make
    an unschedulable pod worth another attempt; a change to its spec, labels or annotations does."""
    import hashlib
    import json

    md = {k: v for k, v in (pod.get("metadata") or {}).items()
          if k not in ("resourceVersion", "generation", "managedFields", "finalizers")}
    text = json.dumps([md, pod.get("spec")], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def backoff_duration(initial: float, maximum: float, count: int) -> float:
    """initial * 2^(count-1), capped at maximum; 0 before any failure."""
    if count <= 0:
        return 0.0
    d = float(initial)
    for _ in range(1, count):
        if d > maximum - d:
            return float(maximum)
        d += d
    return min(d, float(maximum))


def _default_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod_info.priority, b.pod_info.priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class SchedulingQueue:
    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] | None = None,
                 pre_enqueue: Callable[[dict], tuple[str, str] | None] | None = None,
                 pod_initial_backoff_seconds: float = 1.0, pod_max_backoff_seconds: float = 10.0,
                 max_in_unschedulable_seconds: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
                 ) -> None:
        """``pre_enqueue(pod)`` returns None to admit, or (plugin, message) to gate the pod."""
        self.less = less or _default_less
        self.pre_enqueue = pre_enqueue
        self.initial_backoff = float(pod_initial_backoff_seconds)
        self.max_backoff = float(pod_max_backoff_seconds)
        self.max_in_unschedulable = float(max_in_unschedulable_seconds)
        self.entries: dict[str, QueueEntry] = {}
        self._seq = 0

    # -- membership ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def get(self, key: str) -> QueueEntry | None:
        return self.entries.get(key)

    def keys(self, queue: str | None = None) -> list[str]:
        return [k for k, e in self.entries.items() if queue is None or e.queue == queue]

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _gate(self, e: QueueEntry) -> bool:
        if self.pre_enqueue is None:
            return False
        res = self.pre_enqueue(e.pod)
        if res is None:
            e.gating_plugin = ""
            return False
        e.gating_plugin = res[0]
        e.queue = GATED
        return True

    def add(self, pod: dict, now: float) -> QueueEntry:
        """A new pending pod (or an update of a queued one)."""
        key = pod_key(pod)
        e = self.entries.get(key)
        if e is None:
            e = QueueEntry(pod=pod, timestamp=now, seq=self._next_seq())
            self.entries[key] = e
            if not self._gate(e):
                e.queue = ACTIVE
            return e
        e.pod = pod
        if e.queue == GATED:
            if not self._gate(e):
                e.timestamp = now
                self._requeue(e, now)
        elif e.queue == UNSCHEDULABLE and (not e.digest or pod_update_digest(pod) != e.digest):
            # An update of the pod itself may make it schedulable (upstream requeues it).
            self._requeue(e, now)
        return e

    def delete(self, key: str) -> None:
        self.entries.pop(key, None)

    def done(self, key: str) -> None:
        """The pod was scheduled (or is gone): forget it."""
        self.entries.pop(key, None)

    # -- failures --------------------------------------------------------------------------
    def add_unschedulable(self, pod: dict, now: float,
                          plugins: list[str] | None = None) -> QueueEntry:
        """After an Unschedulable attempt: wait in the unschedulable pool for a cluster event."""
        e = self._entry_for(pod, now)
        e.unschedulable_count += 1
        e.consecutive_errors = 0
        e.timestamp = now
        e.unschedulable_plugins = sorted(plugins or [])
        e.backoff_expiry = now + backoff_duration(self.initial_backoff, self.max_backoff,
                                                  e.unschedulable_count)
        e.queue = UNSCHEDULABLE
        e.digest = pod_update_digest(pod)
        return e

    def add_error(self, pod: dict, now: float) -> QueueEntry:
        """After a scheduler error: straight to backoff (error backoff)."""
        e = self._entry_for(pod, now)
        e.consecutive_errors += 1
        e.timestamp = now
        e.backoff_expiry = now + backoff_duration(self.initial_backoff, self.max_backoff,
                                                  e.consecutive_errors)
        e.queue = BACKOFF
        return e

    def _entry_for(self, pod: dict, now: float) -> QueueEntry:
        key = pod_key(pod)
        e = self.entries.get(key)
        if e is None:
            e = QueueEntry(pod=pod, timestamp=now, seq=self._next_seq())
            self.entries[key] = e
        else:
            e.pod = pod
        return e

    # -- moves -----------------------------------------------------------------------------
    def _requeue(self, e: QueueEntry, now: float) -> None:
        e.queue = BACKOFF if e.backoff_expiry > now else ACTIVE

    def move_all_to_active_or_backoff(self, now: float) -> int:
        """A cluster event: every unschedulable pod goes back (backoff if still backing off)."""
        n = 0
        for e in self.entries.values():
            if e.queue == UNSCHEDULABLE:
                self._requeue(e, now)
                n += 1
        return n

    def activate(self, keys: list[str], now: float) -> None:
        for k in keys:
            e = self.entries.get(k)
            if e is not None and e.queue in (UNSCHEDULABLE, BACKOFF):
                e.queue = ACTIVE

    def flush(self, now: float) -> None:
        """Backoff pods whose backoff ended, and pods unschedulable too long, become active."""
        for e in self.entries.values():
            if e.queue == BACKOFF and e.backoff_expiry <= now:
                e.queue = ACTIVE
            elif e.queue == UNSCHEDULABLE and now - e.timestamp >= self.max_in_unschedulable:
                self._requeue(e, now)

    def next_event_time(self) -> float | None:
        """When the next backoff ends or an unschedulable pod is flushed (None: nothing waits)."""
        times = [e.backoff_expiry for e in self.entries.values() if e.queue == BACKOFF]
        times += [e.timestamp + self.max_in_unschedulable for e in self.entries.values()
                  if e.queue == UNSCHEDULABLE]
        return min(times) if times else None

    def pop_all_ready(self, now: float) -> list[dict]:
        """Flush, then take every active pod in QueueSort order (each counts an attempt)."""
        self.flush(now)
        active = [e for e in self.entries.values() if e.queue == ACTIVE]
        if not active:
            return []
        infos = {id(e): QueuedPodInfo(pod_info=_PodRef(e.pod), timestamp=e.timestamp,  # type: ignore[arg-type]
                                      attempts=e.attempts, seq=e.seq) for e in active}

        def cmp(a: QueueEntry, b: QueueEntry) -> int:
            qa, qb = infos[id(a)], infos[id(b)]
            if self.less(qa, qb):
                return -1
            if self.less(qb, qa):
                return 1
            return (a.seq > b.seq) - (a.seq < b.seq)

        active.sort(key=functools.cmp_to_key(cmp))
        out = []
        for e in active:
            e.attempts += 1
            e.queue = IN_FLIGHT
            out.append(e.pod)
        return out

    # -- persistence -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "podInitialBackoffSeconds": self.initial_backoff,
            "podMaxBackoffSeconds": self.max_backoff,
            "seq": self._seq,
            "entries": [{
                "pod": e.pod, "queue": e.queue, "timestamp": e.timestamp, "attempts": e.attempts,
                "unschedulableCount": e.unschedulable_count,
                "consecutiveErrors": e.consecutive_errors, "backoffExpiry": e.backoff_expiry,
                "gatingPlugin": e.gating_plugin,
                "unschedulablePlugins": list(e.unschedulable_plugins), "seq": e.seq,
                **({"podDigest": e.digest} if e.digest else {}),
            } for e in self.entries.values()],
        }

    @classmethod
    def from_dict(cls, d: dict, less=None, pre_enqueue=None,
                  pods: dict[str, dict] | None = None) -> SchedulingQueue:
        """Rebuild; with ``pods`` (key -> current pod) entries get fresh pod objects and
        entries whose pod is gone are dropped."""
        q = cls(less=less, pre_enqueue=pre_enqueue,
                pod_initial_backoff_seconds=d.get("podInitialBackoffSeconds", 1.0),
                pod_max_backoff_seconds=d.get("podMaxBackoffSeconds", 10.0))
        q._seq = int(d.get("seq", 0))
        for x in d.get("entries") or []:
            pod = x["pod"]
            key = pod_key(pod)
            if pods is not None:
                if key not in pods:
                    continue
                pod = pods[key]
            e = QueueEntry(pod=pod, queue=x.get("queue", ACTIVE),
                           timestamp=float(x.get("timestamp", 0.0)),
                           attempts=int(x.get("attempts", 0)),
                           unschedulable_count=int(x.get("unschedulableCount", 0)),
                           consecutive_errors=int(x.get("consecutiveErrors", 0)),
                           backoff_expiry=float(x.get("backoffExpiry", 0.0)),
                           gating_plugin=x.get("gatingPlugin", ""),
                           unschedulable_plugins=list(x.get("unschedulablePlugins") or []),
                           seq=int(x.get("seq", 0)), digest=x.get("podDigest", ""))
            if e.queue == IN_FLIGHT:
                e.queue = ACTIVE
            q.entries[key] = e
        return q
