"""Recording Events: core/v1's recorder with its correlator, and events.k8s.io's with its series.

Upstream: staging/src/k8s.io/client-go/tools/record/event.go (makeEvent: name
``<object>.<hex unix nanos>``) and events_cache.go (EventCorrelator: an event with the same
source, involved object, type, reason and message as an earlier one increments ``count`` and
``lastTimestamp`` instead of creating a new object) — what the kubelet and the controllers use.

The scheduler records through client-go/tools/events (event_broadcaster.go, event_recorder.go):
an events.k8s.io Event, seen through core/v1 with ``action``, ``eventTime``, an empty
``source``, no timestamps or count, ``reportingInstance`` ``<controller>-<hostname>``. An
isomorphic event (same action, reason, controller, regarding, related and note) becomes a
series: the second occurrence writes ``series.count: 2``; later ones only count in the
broadcaster's cache, which is written every 30 minutes (refreshExistingEventSeries) and when the
series ends — no occurrence for 6 minutes, checked every 6 minutes (finishSeries). kubesim
applies those ticks when the series is next touched.
"""

from __future__ import annotations

import json

from kubesim.apiserver.context import Cluster
from kubesim.clock import format_micro_time, format_time


def involved_ref(obj: dict) -> dict:
    md = obj.get("metadata", {})
    ref = {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind", ""), "name": md.get("name", "")}
    if md.get("namespace"):
        ref["namespace"] = md["namespace"]
    if md.get("uid"):
        ref["uid"] = md["uid"]
    if md.get("resourceVersion"):
        ref["resourceVersion"] = md["resourceVersion"]
    return ref


def record(cluster: Cluster, obj: dict, type_: str, reason: str, message: str, component: str,
           host: str = "", field_path: str = "", at: float | None = None, first: float | None = None,
           count: int = 1) -> dict:
    """Record an event about ``obj`` from ``component`` (e.g. "default-scheduler", "kubelet").

    ``at`` is when it (last) happened, ``first`` when it first did and ``count`` how many times,
    for components that catch up on simulated time in one step (the kubelet after ``advance``)."""
    store = cluster.store
    now = cluster.now() if at is None else at
    ref = involved_ref(obj)
    if field_path:
        ref["fieldPath"] = field_path
    ns = ref.get("namespace") or "default"
    key = _KEY_SEP.join([component, host, ref["kind"], ns, ref["name"], ref.get("uid", ""), field_path, type_,
                         reason, message])
    existing_name = store.event_name(key)
    if existing_name:
        ev = store.get("Event", ns, existing_name)
        if ev is not None:
            ev["count"] = int(ev.get("count", 1)) + count
            ev["lastTimestamp"] = format_time(now)
            store.put(ev)
            return ev
    name = _event_name(store, ref["name"], now)
    source = {"component": component}
    if host:
        source["host"] = host
    ev = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": ns},
        "involvedObject": ref,
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": format_time(first if first is not None else now),
        "lastTimestamp": format_time(now),
        "count": count,
        "type": type_,
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host,
    }
    store.create(ev, format_time(now))
    store.set_event_name(key, name)
    return ev


def _event_name(store, object_name: str, now: float) -> str:
    """makeEvent's ``<object>.<unix nanos in hex>``; a per-state sequence stands in for the
    nanoseconds, so events recorded at one (pinned) instant keep the order they happened in and
    never share a name."""
    seq = int(store.meta("events.seq", 0)) + 1
    store.set_meta("events.seq", seq)
    return f"{object_name}.{int(now) * 1_000_000_000 + seq % 1_000_000_000:x}"


_KEY_SEP = "|"  # the correlator's key: component, host, kind, namespace, name, uid, fieldPath, type, reason, message

STARTED_META = "cluster.started"  # when the components (and their broadcasters' tickers) started
_SERIES_META = "events.series"    # the broadcaster's cache: event name -> [count, lastObserved, written]
FINISH_TIME = 6 * 60              # finishTime: a series with no occurrence this long has ended
REFRESH_TIME = 30 * 60            # refreshTime: how often running series are written


def _next_tick(origin: float, period: float, after: float) -> float:
    """The first tick of a ticker started at ``origin`` strictly after ``after``."""
    return origin + (int((after - origin) // period) + 1) * period


def eventf(cluster: Cluster, regarding: dict, related: dict | None, type_: str, reason: str, action: str,
           note: str, controller: str, at: float | None = None) -> dict:
    """events.k8s.io's ``Eventf(regarding, related, type, reason, action, note)`` from
    ``controller`` (the scheduler's profile name), as the core/v1 API then serves it."""
    from kubesim.api.nodes import CONTROL_PLANE_NODE
    from kubesim.clock import parse_time

    store = cluster.store
    now = cluster.now() if at is None else at
    ref = involved_ref(regarding)
    rel = involved_ref(related) if related else None
    ns = ref.get("namespace") or "default"
    key = _KEY_SEP.join(["events.k8s.io", controller, action, reason, ref["kind"], ns, ref["name"],
                         ref.get("uid", ""), json.dumps(rel, sort_keys=True) if rel else "", note])
    cache = store.meta(_SERIES_META, {})
    name = store.event_name(key)
    ev = store.get("Event", ns, name) if name else None
    if ev is not None:
        state = cache.get(name)
        last = state[1] if state else parse_time(ev.get("eventTime"))
        origin = float(store.meta(STARTED_META, 0))
        ended_at = _next_tick(origin, FINISH_TIME, last + FINISH_TIME)
        if state is not None:
            # the cache's count reaches the object at a refresh tick, or when the series ends
            refreshed = _next_tick(origin, REFRESH_TIME, state[2])
            if min(refreshed, ended_at) <= now and ev["series"]["count"] != state[0]:
                ev["series"] = {"count": state[0], "lastObservedTime": format_micro_time(state[1])}
                store.put(ev)
                state[2] = min(refreshed, ended_at)
        if ended_at > now:
            if state is None:
                ev["series"] = {"count": 2, "lastObservedTime": format_micro_time(now)}
                store.put(ev)
                cache[name] = [2, now, now]
            else:
                state[0], state[1] = state[0] + 1, now
            store.touch_meta(_SERIES_META)
            return ev
        if cache.pop(name, None) is not None:
            store.touch_meta(_SERIES_META)
    name = _event_name(store, ref["name"], now)
    ev = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": ns},
        "involvedObject": ref,
        "reason": reason,
        "message": note,
        "source": {},
        "firstTimestamp": None,
        "lastTimestamp": None,
        "type": type_,
        "eventTime": format_micro_time(now),
        "action": action,
        "reportingComponent": controller,
        "reportingInstance": f"{controller}-{CONTROL_PLANE_NODE}",
    }
    if rel:
        ev["related"] = rel
    store.create(ev, format_time(now))
    store.set_event_name(key, name)
    return ev


def recorded(cluster: Cluster, component: str, kind: str) -> set[tuple[str, str, str, str]]:
    """(namespace, name, uid, message) of every event ``component`` has recorded about an
    object of ``kind`` (read from the correlator's index, no Event bodies loaded)."""
    out = set()
    for key in cluster.store.event_keys():
        parts = key.split(_KEY_SEP, 9)
        if len(parts) == 10 and parts[0] == component and parts[2] == kind:
            out.add((parts[3], parts[4], parts[5], parts[9]))
    return out


__all__ = ["eventf", "format_micro_time", "involved_ref", "record"]
