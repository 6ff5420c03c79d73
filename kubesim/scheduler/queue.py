"""The scheduling queue: activeQ, backoffQ and the unschedulable pod pool, with queueing hints.

Upstream (v1.35): pkg/scheduler/backend/queue/scheduling_queue.go (``PriorityQueue``: ``Add``,
``Update``, ``Delete``, ``Activate``, ``AddUnschedulableIfNotPresent``,
``MoveAllToActiveOrBackoffQueue``, ``movePodsToActiveOrBackoffQueue``, ``isEventOfInterest``,
``isPodWorthRequeuing``, ``requeuePodWithQueueingStrategy``, ``moveToActiveQ`` /
``moveToBackoffQ`` running the PreEnqueue plugins, ``determineSchedulingHintForInFlightPod``,
``flushBackoffQCompleted``, ``flushUnschedulablePodsLeftover``, ``newQueuedPodInfo``),
active_queue.go (``unlockedPop``: the activeQ head, or with SchedulerPopFromBackoffQ the
backoffQ head whatever its remaining backoff when activeQ is empty; attempts counted; the
in-flight pods and the events received while they are in flight), backoff_queue.go (two heaps:
pods rejected by plugins, ordered by backoff expiry then QueueSort, and pods that hit an
error, by expiry only — only the first is popped early; backoff = podInitialBackoff doubled per
failure, capped at podMaxBackoff, counted from the failure and aligned down to the 1-second
ordering window; a pod is backing off while that expiry is not before the current window) and
unschedulable_pods.go. Feature gates as v1.35 has them: SchedulerQueueingHints (GA, locked on)
and SchedulerPopFromBackoffQ (beta, on).

How a pod moves. New pending pods enter activeQ unless a PreEnqueue plugin gates them (they
then wait in the unschedulable pool, marked with the gating plugin). A failed attempt comes back
through ``add_unschedulable_if_not_present``: with the plugins that rejected it (Unschedulable
or Pending) it counts a failure and waits in the unschedulable pool, unless an event received
while it was in flight already makes it worth another try; without any (an error) it goes to the
error backoff heap. A cluster event moves an unschedulable pod only when a plugin that rejected
it registered that event and that plugin's QueueingHintFn answers Queue (a Pending plugin's
Queue skips the backoff); it goes to backoffQ while its backoff lasts, else to activeQ. A pod
in the pool longer than podMaxInUnschedulablePodsDuration (5 minutes) is moved by the
UnschedulableTimeout wildcard event.

kubesim specifics: time is the caller's ``now`` (seconds); ties in QueueSort fall back to
arrival order; the leftover flush moves a pod at exactly 5 minutes (upstream checks every 30 s,
so up to 30 s later); the state round-trips through ``to_dict``/``from_dict`` so the control
plane keeps it between commands (no pod is in flight between two calls). Each pod remembers the
last move (event, queue and the plugin whose hint answered Queue) so explain-schedule can say
what sent it to its attempt. Log lines are upstream's at their verbosities.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.events import ClusterEvent
from kubesim.scheduler.framework.types import pod_key, pod_priority

# Queue names (scheduling_queue.go), and kubesim's name for a pod being scheduled.
ACTIVE_Q = "Active"
BACKOFF_Q = "Backoff"
UNSCHEDULABLE_Q = "Unschedulable"
IN_FLIGHT = "InFlight"

DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1.0
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
BACKOFF_Q_ORDERING_WINDOW = 1.0

# queueingStrategy
QUEUE_SKIP = 0
QUEUE_AFTER_BACKOFF = 1
QUEUE_IMMEDIATELY = 2

# klog call sites (v1.35.4).
SITE_NOT_INTERESTED = "scheduling_queue.go:443"
SITE_WORTH_NO_PLUGINS = "scheduling_queue.go:459"
SITE_WILDCARD_OTHER_POD = "scheduling_queue.go:471"
SITE_WORTH_WILDCARD = "scheduling_queue.go:479"
SITE_MOVED_GATED = "scheduling_queue.go:662"
SITE_MOVED_GATED_BACKOFF = "scheduling_queue.go:694"
SITE_CHECKING_EVENT = "scheduling_queue.go:800"
SITE_MOVED_AFTER_FAILURE = "scheduling_queue.go:915"
SITE_UPDATE_IN_FLIGHT = "scheduling_queue.go:1036"
SITE_MOVED_UPDATED = "scheduling_queue.go:1075"
SITE_NOT_MAKING_SCHEDULABLE = "scheduling_queue.go:1234"
SITE_IN_FLIGHT_EVENT = "scheduling_queue.go:1252"
SITE_MOVED_ACTIVE = "active_queue.go:110"
SITE_CHECKING_IN_FLIGHT = "active_queue.go:387"
SITE_MOVED_ERROR_BACKOFF = "backoff_queue.go:310"
SITE_MOVED_BACKOFF = "backoff_queue.go:321"

LogFn = Callable[[int, str, str, dict], None]
# pre_enqueue(pod) -> None (admitted) or (plugin, message) of the plugin that gates it
PreEnqueueFn = Callable[[dict], "tuple[str, str] | None"]
# profile -> [(registered event, [(plugin, hint fn or None)])]
QueueingHintMap = dict[str, list[tuple[ClusterEvent, list[tuple[str, Callable | None]]]]]


class GoMap:
    """Renders as Go's ``%+v`` of a ``sets.Set[string]`` (klog prints such values unquoted)."""

    __slots__ = ("names",)

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(names)

    def __str__(self) -> str:
        return "map[" + " ".join(f"{n}:{{}}" for n in self.names) + "]"


class _PodRef:
    """Enough of a PodInfo for QueueSort plugins (priority and the pod)."""

    __slots__ = ("key", "pod", "priority")

    def __init__(self, pod: dict) -> None:
        self.pod = pod
        self.key = pod_key(pod)
        self.priority = pod_priority(pod)


class QueuedPodInfo:
    """``framework.QueuedPodInfo``: a pod plus its queueing history. QueueSort plugins read
    ``pod_info.priority`` and ``timestamp`` from it."""

    __slots__ = ("attempts", "backoff_expiration", "consecutive_errors_count", "gating_plugin",
                 "gating_plugin_events", "initial_attempt_timestamp", "last_move",
                 "pending_plugins", "pod_info", "popped_from", "queue", "seq", "timestamp",
                 "unschedulable_count", "unschedulable_plugins")

    def __init__(self, pod: dict, timestamp: float, seq: int = 0) -> None:
        self.pod_info = _PodRef(pod)
        self.timestamp = timestamp
        self.attempts = 0
        self.unschedulable_count = 0
        self.consecutive_errors_count = 0
        self.initial_attempt_timestamp: float | None = None
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.gating_plugin = ""
        self.gating_plugin_events: list[ClusterEvent] = []
        self.backoff_expiration: float | None = None  # cached; None: not computed
        self.queue = ""
        self.seq = seq
        # kubesim: the last move {"event", "queue", "plugin"?} and where the pod was popped from
        self.last_move: dict = {}
        self.popped_from = ""

    @property
    def pod(self) -> dict:
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod_info.key

    def gated(self) -> bool:
        return bool(self.gating_plugin)

    def update(self, pod: dict) -> None:
        self.pod_info = _PodRef(pod)

    def full_name(self) -> str:
        md = self.pod.get("metadata") or {}
        return f"{md.get('namespace') or ''}/{md.get('name', '')}"


class _Item:
    __slots__ = ("dead", "entry", "less")

    def __init__(self, entry: QueuedPodInfo, less) -> None:
        self.entry = entry
        self.less = less
        self.dead = False

    def __lt__(self, other: _Item) -> bool:
        a, b = self.entry, other.entry
        if self.less(a, b):
            return True
        if self.less(b, a):
            return False
        return a.seq < b.seq


class _PriorityItem(_Item):
    """An ``_Item`` of a queue sorted by PrioritySort's Less (or ``_default_less``: higher
    priority first, then the earlier timestamp), inlined: the same comparisons of the same
    fields, read at each comparison, without four calls a comparison (a bulk apply's pods tie
    on both: ``less`` both ways, then the sequence number)."""

    __slots__ = ()

    def __lt__(self, other: _Item) -> bool:
        a, b = self.entry, other.entry
        pa, pb = a.pod_info.priority, b.pod_info.priority
        if pa != pb:
            return pa > pb
        ta, tb = a.timestamp, b.timestamp
        if ta < tb:
            return True
        if tb < ta:
            return False
        return a.seq < b.seq


def _item_class(less) -> type[_Item]:
    """``_PriorityItem`` for a Less marked ``priority_then_timestamp``, else ``_Item``."""
    fn = getattr(less, "__func__", less)
    return _PriorityItem if getattr(fn, "priority_then_timestamp", False) else _Item


class _Heap:
    """``heap.Heap`` keyed by pod: add-or-update, delete, peek and pop in ``less`` order."""

    __slots__ = ("_heap", "_item", "_items", "_less")

    def __init__(self, less) -> None:
        self._heap: list[_Item] = []
        self._items: dict[str, _Item] = {}
        self._less = less
        self._item = _item_class(less)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def get(self, key: str) -> QueuedPodInfo | None:
        it = self._items.get(key)
        return it.entry if it is not None else None

    def add_or_update(self, entry: QueuedPodInfo) -> None:
        old = self._items.get(entry.key)
        if old is not None:
            old.dead = True
        it = self._item(entry, self._less)
        self._items[entry.key] = it
        heapq.heappush(self._heap, it)

    def delete(self, key: str) -> bool:
        it = self._items.pop(key, None)
        if it is None:
            return False
        it.dead = True
        return True

    def peek(self) -> QueuedPodInfo | None:
        h = self._heap
        while h and h[0].dead:
            heapq.heappop(h)
        return h[0].entry if h else None

    def pop(self) -> QueuedPodInfo | None:
        e = self.peek()
        if e is not None:
            heapq.heappop(self._heap)
            del self._items[e.key]
        return e

    def entries(self) -> list[QueuedPodInfo]:
        return [it.entry for it in self._items.values()]


def backoff_duration(initial: float, maximum: float, count: int) -> float:
    """``calculateBackoffDuration``: initial * 2^(count-1), capped at maximum; 0 before any
    failure."""
    if count <= 0:
        return 0.0
    d = float(initial)
    for _ in range(1, count):
        if d > maximum - d:
            return float(maximum)
        d += d
    return min(d, float(maximum))


def _default_less(a, b) -> bool:
    pa, pb = a.pod_info.priority, b.pod_info.priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


_default_less.priority_then_timestamp = True  # type: ignore[attr-defined]  # (_PriorityItem)


class PriorityQueue:
    """``PriorityQueue`` of one scheduler (all its profiles)."""

    def __init__(self, less: Callable | None = None, pre_enqueue: PreEnqueueFn | None = None,
                 queueing_hint_map: QueueingHintMap | None = None,
                 pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
                 pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
                 pod_max_in_unschedulable_pods_duration: float =
                 DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
                 log: LogFn | None = None, verbosity: int | None = None,
                 default_profile: str = "default-scheduler") -> None:
        self.less = less or _default_less
        self.pre_enqueue = pre_enqueue
        self.queueing_hint_map: QueueingHintMap = queueing_hint_map or {}
        self.plugin_to_events = build_event_map(self.queueing_hint_map)
        self.initial_backoff = float(pod_initial_backoff_seconds)
        self.max_backoff = float(pod_max_backoff_seconds)
        self.max_in_unschedulable = float(pod_max_in_unschedulable_pods_duration)
        self.default_profile = default_profile
        self._log = log
        self._verbosity = verbosity
        self.active_q = _Heap(self.less)
        self.pod_backoff_q = _Heap(self._less_backoff_completed_with_priority)
        self.pod_error_backoff_q = _Heap(self._less_backoff_completed)
        self.unschedulable_pods: dict[str, QueuedPodInfo] = {}
        self.in_flight_pods: dict[str, tuple[int, QueuedPodInfo]] = {}  # key -> (mark, pod)
        self.in_flight_events: list[tuple[int, ClusterEvent, object, object]] = []
        self._mark = 0
        self._seq = 0
        self.sched_cycle = 0
        self._interest: dict[ClusterEvent, bool] = {}

    # -- logging ---------------------------------------------------------------------------
    def _v(self, level: int) -> bool:
        return self._log is not None and (self._verbosity is None or level <= self._verbosity)

    def _emit(self, level: int, site: str, msg: str, kv: dict) -> None:
        if self._v(level):
            self._log(level, site, msg, kv)  # type: ignore[misc]

    # -- membership ------------------------------------------------------------------------
    def get(self, key: str) -> QueuedPodInfo | None:
        for q in (self.active_q, self.pod_backoff_q, self.pod_error_backoff_q):
            e = q.get(key)
            if e is not None:
                return e
        e = self.unschedulable_pods.get(key)
        if e is not None:
            return e
        f = self.in_flight_pods.get(key)
        return f[1] if f is not None else None

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return (len(self.active_q) + len(self.pod_backoff_q) + len(self.pod_error_backoff_q)
                + len(self.unschedulable_pods) + len(self.in_flight_pods))

    def entries(self) -> list[QueuedPodInfo]:
        out = self.active_q.entries() + self.pod_backoff_q.entries() + \
            self.pod_error_backoff_q.entries() + list(self.unschedulable_pods.values())
        out += [p for _, p in self.in_flight_pods.values()]
        return out

    def keys(self, queue: str | None = None) -> list[str]:
        return [e.key for e in self.entries() if queue is None or e.queue == queue]

    def _in_backoff(self, key: str) -> bool:
        return key in self.pod_backoff_q or key in self.pod_error_backoff_q

    def _delete_backoff(self, key: str) -> bool:
        return self.pod_backoff_q.delete(key) or self.pod_error_backoff_q.delete(key)

    def _new_queued_pod_info(self, pod: dict, now: float) -> QueuedPodInfo:
        self._seq += 1
        return QueuedPodInfo(pod, now, self._seq)

    # -- backoff (backoff_queue.go) ----------------------------------------------------------
    def _align(self, t: float) -> float:
        return math.floor(t / BACKOFF_Q_ORDERING_WINDOW) * BACKOFF_Q_ORDERING_WINDOW

    def backoff_time(self, p: QueuedPodInfo) -> float | None:
        """``getBackoffTime``: the aligned expiry, None for Go's zero time (never backing off)."""
        if self.max_backoff == 0:
            return None
        count = p.consecutive_errors_count if p.consecutive_errors_count > 0 \
            else p.unschedulable_count
        if count == 0:
            return None
        if p.backoff_expiration is None:
            p.backoff_expiration = self._align(
                p.timestamp + backoff_duration(self.initial_backoff, self.max_backoff, count))
        return p.backoff_expiration

    def is_pod_backingoff(self, p: QueuedPodInfo, now: float) -> bool:
        bo = self.backoff_time(p)
        return bo is not None and bo >= self._align(now)

    def _less_backoff_completed(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        x, y = self.backoff_time(a), self.backoff_time(b)
        return (x if x is not None else -math.inf) < (y if y is not None else -math.inf)

    def _less_backoff_completed_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        x, y = self.backoff_time(a), self.backoff_time(b)
        x = x if x is not None else -math.inf
        y = y if y is not None else -math.inf
        if x != y:
            return x < y
        return self.less(a, b)

    def _backoff_q_add(self, p: QueuedPodInfo, event: str) -> None:
        if not p.unschedulable_plugins and not p.pending_plugins:
            self.pod_error_backoff_q.add_or_update(p)
            self.pod_backoff_q.delete(p.key)
            site = SITE_MOVED_ERROR_BACKOFF
        else:
            self.pod_backoff_q.add_or_update(p)
            self.pod_error_backoff_q.delete(p.key)
            site = SITE_MOVED_BACKOFF
        p.queue = BACKOFF_Q
        self._emit(5, site, "Pod moved to an internal scheduling queue",
                   {"pod": p.full_name(), "event": event, "queue": BACKOFF_Q})

    # -- PreEnqueue ------------------------------------------------------------------------
    def _run_pre_enqueue_plugins(self, p: QueuedPodInfo) -> None:
        res = self.pre_enqueue(p.pod) if self.pre_enqueue is not None else None
        if res is None:
            p.gating_plugin = ""
            p.gating_plugin_events = []
            return
        plugin = res[0]
        p.unschedulable_plugins.add(plugin)
        p.gating_plugin = plugin
        p.gating_plugin_events = self.plugin_to_events.get(plugin, [])

    # -- moves -----------------------------------------------------------------------------
    def _note(self, p: QueuedPodInfo, event: str, queue: str, plugin: str = "") -> None:
        p.last_move = {"event": event, "queue": queue, **({"plugin": plugin} if plugin else {})}

    def _add_unschedulable(self, p: QueuedPodInfo) -> None:
        self.unschedulable_pods[p.key] = p
        p.queue = UNSCHEDULABLE_Q

    def move_to_active_q(self, p: QueuedPodInfo, event: str, now: float,
                         moves_from_backoff_q: bool = False, plugin: str = "") -> bool:
        """``moveToActiveQ``: PreEnqueue (unless straight from backoffQ), then activeQ, or the
        unschedulable pool for a gated pod."""
        if not moves_from_backoff_q:
            self._run_pre_enqueue_plugins(p)
        key = p.key
        if p.gated():
            if key in self.active_q or self._in_backoff(key) or key in self.unschedulable_pods:
                return False
            self._add_unschedulable(p)
            self._note(p, event, UNSCHEDULABLE_Q)
            self._emit(5, SITE_MOVED_GATED,
                       "Pod moved to an internal scheduling queue, because the pod is gated",
                       {"pod": p.full_name(), "event": event, "queue": UNSCHEDULABLE_Q})
            return False
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = now
        self.unschedulable_pods.pop(key, None)
        self._delete_backoff(key)
        self.active_q.add_or_update(p)
        p.queue = ACTIVE_Q
        self._note(p, event, ACTIVE_Q, plugin)
        self._emit(5, SITE_MOVED_ACTIVE, "Pod moved to an internal scheduling queue",
                   {"pod": p.full_name(), "event": event, "queue": ACTIVE_Q})
        return True

    def move_to_backoff_q(self, p: QueuedPodInfo, event: str, plugin: str = "") -> bool:
        """``moveToBackoffQ``: PreEnqueue runs on the way in (SchedulerPopFromBackoffQ)."""
        self._run_pre_enqueue_plugins(p)
        if p.gated():
            if p.key not in self.unschedulable_pods:
                self._add_unschedulable(p)
                self._note(p, event, UNSCHEDULABLE_Q)
                self._emit(5, SITE_MOVED_GATED_BACKOFF, "Pod moved to an internal scheduling queue",
                           {"pod": p.full_name(), "event": event, "queue": UNSCHEDULABLE_Q})
            return False
        self.unschedulable_pods.pop(p.key, None)
        self._backoff_q_add(p, event)
        self._note(p, event, BACKOFF_Q, plugin)
        return True

    def requeue_pod_with_queueing_strategy(self, p: QueuedPodInfo, strategy: int, event: str,
                                           now: float, plugin: str = "") -> str:
        """``requeuePodWithQueueingStrategy``: the queue the pod went to."""
        if strategy == QUEUE_SKIP:
            self._add_unschedulable(p)
            return UNSCHEDULABLE_Q
        if strategy == QUEUE_AFTER_BACKOFF and self.is_pod_backingoff(p, now):
            return BACKOFF_Q if self.move_to_backoff_q(p, event, plugin) else UNSCHEDULABLE_Q
        return ACTIVE_Q if self.move_to_active_q(p, event, now, plugin=plugin) \
            else UNSCHEDULABLE_Q

    # -- the informer's calls --------------------------------------------------------------
    def add(self, pod: dict, now: float) -> QueuedPodInfo:
        """``Add``: a new pending pod."""
        p = self._new_queued_pod_info(pod, now)
        self.move_to_active_q(p, ev.EVENT_UNSCHEDULED_POD_ADD.label(), now)
        return p

    def update(self, old: dict, new: dict, now: float) -> None:
        """``Update``: a pending pod changed."""
        events = ev.pod_scheduling_properties_change(new, old)
        key = pod_key(new)
        if key in self.in_flight_pods:
            self._mark += 1
            for e in events:
                self.in_flight_events.append((self._mark, e, old, new))
            self._emit(6, SITE_UPDATE_IN_FLIGHT, "The pod doesn't need to be queued for now "
                       "because it's being scheduled and will be queued back if necessary",
                       {"pod": _full_name(new)})
            return
        for heap in (self.active_q, self.pod_backoff_q, self.pod_error_backoff_q):
            p = heap.get(key)
            if p is not None:
                p.update(new)
                heap.add_or_update(p)
                return
        p = self.unschedulable_pods.get(key)
        if p is not None:
            p.update(new)
            for e in events:
                hint, plugin = self.is_pod_worth_requeuing(p, e, old, new)
                queue = self.requeue_pod_with_queueing_strategy(p, hint, e.label(), now, plugin)
                if queue != UNSCHEDULABLE_Q:
                    self._emit(5, SITE_MOVED_UPDATED, "Pod moved to an internal scheduling queue "
                               "because the Pod is updated",
                               {"pod": _full_name(new), "event": e.label(), "queue": queue})
                if queue in (ACTIVE_Q, BACKOFF_Q):
                    break
            return
        p = self._new_queued_pod_info(new, now)
        self.move_to_active_q(p, ev.EVENT_UNSCHEDULED_POD_UPDATE.label(), now)

    def delete(self, pod_or_key) -> None:
        """``Delete``."""
        key = pod_or_key if isinstance(pod_or_key, str) else pod_key(pod_or_key)
        if self.active_q.delete(key):
            return
        if self._delete_backoff(key):
            return
        self.unschedulable_pods.pop(key, None)

    def activate(self, pods: Iterable[dict], now: float) -> None:
        """``Activate``: straight to activeQ from the pool or backoffQ."""
        for pod in pods:
            key = pod_key(pod)
            p = self.unschedulable_pods.get(key)
            from_backoff = False
            if p is None:
                p = self.pod_backoff_q.get(key) or self.pod_error_backoff_q.get(key)
                if p is None:
                    if key in self.in_flight_pods:
                        self._mark += 1
                        self.in_flight_events.append((self._mark, ev.EVENT_FORCE_ACTIVATE,
                                                      None, pod))
                    continue
                self._delete_backoff(key)
                from_backoff = True
            self.move_to_active_q(p, ev.FORCE_ACTIVATE, now, from_backoff)

    # -- events ----------------------------------------------------------------------------
    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        if ev.cluster_event_is_wildcard(event):
            return True
        hit = self._interest.get(event)
        if hit is None:
            hit = any(ev.match_cluster_events(registered, event)
                      for hint_map in self.queueing_hint_map.values()
                      for registered, _ in hint_map)
            self._interest[event] = hit
        if not hit:
            self._emit(6, SITE_NOT_INTERESTED,
                       "receive an event that isn't interested by any enabled plugins",
                       {"event": _GoEvent(event)})
        return hit

    def is_pod_worth_requeuing(self, p: QueuedPodInfo, event: ClusterEvent, old, new
                               ) -> tuple[int, str]:
        """``isPodWorthRequeuing``: the strategy, and the plugin whose hint answered Queue."""
        rejectors = p.unschedulable_plugins | p.pending_plugins
        if not rejectors:
            self._emit(6, SITE_WORTH_NO_PLUGINS, "Worth requeuing because no failed plugins",
                       {"pod": p.full_name()})
            return QUEUE_AFTER_BACKOFF, ""
        if ev.cluster_event_is_wildcard(event):
            if new is not None and (not isinstance(new, dict) or pod_key(new) != p.key):
                if isinstance(new, dict):
                    self._emit(6, SITE_WILDCARD_OTHER_POD, "Not worth requeuing because the "
                               "event is wildcard, but for another pod",
                               {"pod": p.full_name(), "event": event.label(),
                                "newObj": _full_name(new)})
                return QUEUE_SKIP, ""
            self._emit(6, SITE_WORTH_WILDCARD, "Worth requeuing because the event is wildcard",
                       {"pod": p.full_name(), "event": event.label()})
            return QUEUE_AFTER_BACKOFF, ""
        profile = (p.pod.get("spec") or {}).get("schedulerName") or self.default_profile
        hint_map = self.queueing_hint_map.get(profile)
        if hint_map is None:
            return QUEUE_AFTER_BACKOFF, ""
        strategy, by = QUEUE_SKIP, ""
        for registered, fns in hint_map:
            if not ev.match_cluster_events(registered, event):
                continue
            for plugin, fn in fns:
                if plugin not in rejectors:
                    continue
                if fn is None:
                    hint = ev.QUEUE
                else:
                    try:
                        hint = fn(p.pod, old, new)
                    except Exception:  # noqa: BLE001 - an error in a hint means Queue
                        hint = ev.QUEUE
                if hint == ev.QUEUE_SKIP:
                    continue
                if plugin in p.pending_plugins:
                    return QUEUE_IMMEDIATELY, plugin
                if not p.pending_plugins:
                    return QUEUE_AFTER_BACKOFF, plugin
                if strategy == QUEUE_SKIP:
                    strategy, by = QUEUE_AFTER_BACKOFF, plugin
        return strategy, by

    def move_all_to_active_or_backoff_queue(self, event: ClusterEvent, old, new, now: float,
                                            pre_check: Callable[[dict], bool] | None = None
                                            ) -> None:
        """``MoveAllToActiveOrBackoffQueue``."""
        if not self.is_event_of_interest(event):
            return
        pods = [p for p in self.unschedulable_pods.values()
                if pre_check is None or pre_check(p.pod)]
        self.move_pods_to_active_or_backoff_queue(pods, event, old, new, now)

    def move_pods_to_active_or_backoff_queue(self, pods: list[QueuedPodInfo],
                                             event: ClusterEvent, old, new, now: float) -> None:
        """``movePodsToActiveOrBackoffQueue``."""
        if not self.is_event_of_interest(event):
            return
        label = event.label()
        for p in pods:
            if p.gated() and not ev.match_any_cluster_event(event, p.gating_plugin_events):
                continue
            hint, plugin = self.is_pod_worth_requeuing(p, event, old, new)
            if hint == QUEUE_SKIP:
                self._emit(5, SITE_NOT_MAKING_SCHEDULABLE, "Event is not making pod schedulable",
                           {"pod": p.full_name(), "event": label})
                continue
            self.unschedulable_pods.pop(p.key, None)
            self.requeue_pod_with_queueing_strategy(p, hint, label, now, plugin)
        if self.in_flight_pods:
            self._mark += 1
            self.in_flight_events.append((self._mark, event, old, new))
            self._emit(5, SITE_IN_FLIGHT_EVENT, "Event received while pods are in flight",
                       {"event": label})

    # -- scheduling ------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """``Pop`` (non-blocking): activeQ's head, else backoffQ's (SchedulerPopFromBackoffQ)."""
        p = self.active_q.pop()
        popped_from = ACTIVE_Q
        if p is None:
            p = self.pod_backoff_q.pop()
            popped_from = BACKOFF_Q
            if p is None:
                return None
        p.attempts += 1
        self._mark += 1
        self.in_flight_pods[p.key] = (self._mark, p)
        self.sched_cycle += 1
        p.unschedulable_plugins = set()
        p.pending_plugins = set()
        p.gating_plugin = ""
        p.gating_plugin_events = []
        p.queue = IN_FLIGHT
        p.popped_from = popped_from
        return p

    def done(self, key: str) -> None:
        """``Done``: the pod's cycle is over; forget the events only it was waiting on."""
        if self.in_flight_pods.pop(key, None) is None:
            return
        if not self.in_flight_pods:
            self.in_flight_events.clear()
            return
        oldest = min(m for m, _ in self.in_flight_pods.values())
        self.in_flight_events = [e for e in self.in_flight_events if e[0] > oldest]

    def cluster_events_for_pod(self, p: QueuedPodInfo) -> list[tuple[ClusterEvent, object, object]]:
        mark = self.in_flight_pods[p.key][0]
        self._emit(5, SITE_CHECKING_IN_FLIGHT, "Checking events for in-flight pod",
                   {"pod": p.full_name(), "unschedulablePlugins": GoMap(p.unschedulable_plugins),
                    "inFlightEventsSize": len(self.in_flight_events) + len(self.in_flight_pods),
                    "inFlightPodsSize": len(self.in_flight_pods)})
        return [(e, o, n) for m, e, o, n in self.in_flight_events if m > mark]

    def determine_scheduling_hint_for_in_flight_pod(self, p: QueuedPodInfo) -> tuple[int, str]:
        if not p.unschedulable_plugins and not p.pending_plugins:
            return QUEUE_AFTER_BACKOFF, ""
        strategy, by = QUEUE_SKIP, ""
        for event, old, new in self.cluster_events_for_pod(p):
            self._emit(5, SITE_CHECKING_EVENT, "Checking event for in-flight pod",
                       {"pod": p.full_name(), "event": event.label()})
            hint, plugin = self.is_pod_worth_requeuing(p, event, old, new)
            if hint == QUEUE_SKIP:
                continue
            if hint == QUEUE_IMMEDIATELY:
                return QUEUE_IMMEDIATELY, plugin
            strategy, by = QUEUE_AFTER_BACKOFF, plugin
            if not p.pending_plugins:
                return strategy, by
        return strategy, by

    def add_unschedulable_if_not_present(self, p: QueuedPodInfo, now: float) -> str:
        """``AddUnschedulableIfNotPresent``: the pod came back from a failed attempt with
        ``unschedulable_plugins`` / ``pending_plugins`` set (none: an error). Returns the queue
        it went to."""
        key = p.key
        try:
            if key in self.unschedulable_pods or key in self.active_q or self._in_backoff(key):
                return p.queue
            if not p.unschedulable_plugins and not p.pending_plugins:
                p.consecutive_errors_count += 1
            else:
                p.unschedulable_count += 1
                p.consecutive_errors_count = 0
            p.timestamp = now
            p.backoff_expiration = None
            hint, plugin = self.determine_scheduling_hint_for_in_flight_pod(p)
            queue = self.requeue_pod_with_queueing_strategy(p, hint, ev.SCHEDULE_ATTEMPT_FAILURE,
                                                            now, plugin)
            if queue == UNSCHEDULABLE_Q and not p.gated():
                self._note(p, ev.SCHEDULE_ATTEMPT_FAILURE, UNSCHEDULABLE_Q)
            self._emit(3, SITE_MOVED_AFTER_FAILURE, "Pod moved to an internal scheduling queue",
                       {"pod": p.full_name(), "event": ev.SCHEDULE_ATTEMPT_FAILURE,
                        "queue": queue, "schedulingCycle": self.sched_cycle, "hint": hint,
                        "unschedulable plugins": GoMap(p.unschedulable_plugins
                                                       | p.pending_plugins)})
            return queue
        finally:
            self.done(key)

    # -- timers ----------------------------------------------------------------------------
    def flush_backoff_q_completed(self, now: float) -> None:
        """``flushBackoffQCompleted``: pods whose backoff ended go to activeQ."""
        done: list[QueuedPodInfo] = []
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            while True:
                p = heap.peek()
                if p is None or self.is_pod_backingoff(p, now):
                    break
                heap.pop()
                done.append(p)
        for p in done:
            self.move_to_active_q(p, ev.BACKOFF_COMPLETE, now, moves_from_backoff_q=True)

    def flush_unschedulable_pods_leftover(self, now: float) -> None:
        """``flushUnschedulablePodsLeftover``."""
        leftover = [p for p in self.unschedulable_pods.values()
                    if now - p.timestamp >= self.max_in_unschedulable]
        if leftover:
            self.move_pods_to_active_or_backoff_queue(leftover, ev.EVENT_UNSCHEDULABLE_TIMEOUT,
                                                      None, None, now)

    def flush(self, now: float) -> None:
        self.flush_backoff_q_completed(now)
        self.flush_unschedulable_pods_leftover(now)

    def next_event_time(self) -> float | None:
        """When a backoff ends (on the 1-second window) or an unschedulable pod is flushed."""
        times = []
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            p = heap.peek()
            if p is not None:
                bo = self.backoff_time(p)
                times.append(bo + BACKOFF_Q_ORDERING_WINDOW if bo is not None else 0.0)
        times += [p.timestamp + self.max_in_unschedulable
                  for p in self.unschedulable_pods.values() if not p.gated()]
        return min(times) if times else None

    # -- persistence -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        entries = []
        for p in self.entries():
            entries.append({
                "pod": p.pod, "queue": p.queue, "timestamp": p.timestamp,
                "attempts": p.attempts, "unschedulableCount": p.unschedulable_count,
                "consecutiveErrors": p.consecutive_errors_count,
                **({"initialAttemptTimestamp": p.initial_attempt_timestamp}
                   if p.initial_attempt_timestamp is not None else {}),
                "unschedulablePlugins": sorted(p.unschedulable_plugins),
                **({"pendingPlugins": sorted(p.pending_plugins)} if p.pending_plugins else {}),
                "gatingPlugin": p.gating_plugin, "seq": p.seq,
                **({"errorBackoff": True} if p.key in self.pod_error_backoff_q else {}),
                **({"lastMove": p.last_move} if p.last_move else {}),
            })
        return {"podInitialBackoffSeconds": self.initial_backoff,
                "podMaxBackoffSeconds": self.max_backoff, "seq": self._seq,
                "schedulingCycle": self.sched_cycle, "entries": entries}

    def load(self, d: dict, pods: dict[str, dict] | None = None) -> None:
        """Fill from ``to_dict``'s output; with ``pods`` (key -> current pod) entries get the
        current objects and entries whose pod is gone are dropped."""
        self._seq = int(d.get("seq", 0))
        self.sched_cycle = int(d.get("schedulingCycle", 0))
        for x in d.get("entries") or []:
            pod = x["pod"]
            key = pod_key(pod)
            if pods is not None:
                if key not in pods:
                    continue
                pod = pods[key]
            p = QueuedPodInfo(pod, float(x.get("timestamp", 0.0)), int(x.get("seq", 0)))
            p.attempts = int(x.get("attempts", 0))
            p.unschedulable_count = int(x.get("unschedulableCount", 0))
            p.consecutive_errors_count = int(x.get("consecutiveErrors", 0))
            t = x.get("initialAttemptTimestamp")
            p.initial_attempt_timestamp = float(t) if t is not None else None
            p.unschedulable_plugins = set(x.get("unschedulablePlugins") or ())
            p.pending_plugins = set(x.get("pendingPlugins") or ())
            p.gating_plugin = x.get("gatingPlugin") or ""
            if p.gating_plugin:
                p.gating_plugin_events = self.plugin_to_events.get(p.gating_plugin, [])
            p.last_move = dict(x.get("lastMove") or {})
            queue = _OLD_QUEUE_NAMES.get(x.get("queue", ""), x.get("queue", ""))
            if queue == BACKOFF_Q:
                rejected = bool(p.unschedulable_plugins or p.pending_plugins)
                if x.get("errorBackoff") or not rejected:
                    self.pod_error_backoff_q.add_or_update(p)
                else:
                    self.pod_backoff_q.add_or_update(p)
                p.queue = BACKOFF_Q
            elif queue == UNSCHEDULABLE_Q:
                self._add_unschedulable(p)
            else:  # active, or in flight when the state was written
                self.active_q.add_or_update(p)
                p.queue = ACTIVE_Q

    @classmethod
    def from_dict(cls, d: dict, pods: dict[str, dict] | None = None, **kw) -> PriorityQueue:
        kw.setdefault("pod_initial_backoff_seconds",
                      d.get("podInitialBackoffSeconds", DEFAULT_POD_INITIAL_BACKOFF_SECONDS))
        kw.setdefault("pod_max_backoff_seconds",
                      d.get("podMaxBackoffSeconds", DEFAULT_POD_MAX_BACKOFF_SECONDS))
        q = cls(**kw)
        q.load(d, pods)
        return q


# Queue names kubesim wrote before queueing hints (old states).
_OLD_QUEUE_NAMES = {"active": ACTIVE_Q, "backoff": BACKOFF_Q, "unschedulable": UNSCHEDULABLE_Q,
                    "gated": UNSCHEDULABLE_Q, "inFlight": ACTIVE_Q, IN_FLIGHT: ACTIVE_Q}


class _GoEvent:
    """klog's ``%+v`` of a ClusterEvent struct."""

    __slots__ = ("event",)

    def __init__(self, event: ClusterEvent) -> None:
        self.event = event

    def __str__(self) -> str:
        e = self.event
        return f"{{Resource:{e.resource} ActionType:{ev.action_type_string(e.action_type)} " \
               f"CustomLabel:{e.custom_label}}}"


def _full_name(pod: dict) -> str:
    md = pod.get("metadata") or {}
    return f"{md.get('namespace') or ''}/{md.get('name', '')}"


def build_event_map(hint_map: QueueingHintMap) -> dict[str, list[ClusterEvent]]:
    """``buildEventMap``: plugin -> the events it registered (any profile)."""
    out: dict[str, list[ClusterEvent]] = {}
    for entries in hint_map.values():
        for event, fns in entries:
            for plugin, _ in fns:
                out.setdefault(plugin, []).append(event)
    return out
