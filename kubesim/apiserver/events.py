"""Recording Events: core/v1's recorder with its correlator, and events.k8s.io's with its series.

Upstream: staging/src/k8s.io/client-go/tools/record/event.go (makeEvent: name
``<object>.<hex unix nanos>``; recordToSink, recordEvent) and events_cache.go (EventCorrelator)
— what the kubelet and the controllers use. The correlator's two stages, in order:

- EventAggregator (EventAggregatorByReasonFunc): events of one source about one object with one
  type and reason but different messages are similar. Each group remembers the distinct messages
  seen (its local keys) and when it last saw one; a group quiet for more than 10 minutes starts
  again. Once a group holds 10 distinct messages the event is replaced by the group's aggregate:
  message ``(combined from similar events): <this message>``, no reporting controller or
  instance, and one arbitrary local key is forgotten (Go's ``PopAny``: kubesim draws it from the
  command's seeded random source), so the next new message aggregates again while a repeat of a
  remembered one is an ordinary event.
- eventLogger (eventObserve): an event seen before under the same key (the full key: source,
  object, type, reason, message; for an aggregate, the group's key) updates the Event recorded
  then — ``count`` + 1, ``lastTimestamp`` and ``message`` — instead of creating one.

The spam filter that follows them (EventSourceObjectSpamFilter: 25 events per source and object,
then one per 5 minutes) is not modelled.

The scheduler records through client-go/tools/events (event_broadcaster.go, event_recorder.go):
an events.k8s.io Event, seen through core/v1 with ``action``, ``eventTime``, an empty
``source``, no timestamps or count, ``reportingInstance`` ``<controller>-<hostname>``. An
isomorphic event (same action, reason, controller, regarding, related and note) becomes a
series: the second occurrence writes ``series.count: 2``; later ones only count in the
broadcaster's cache, which is written every 30 minutes (refreshExistingEventSeries) and when the
series ends — no occurrence for 6 minutes, checked every 6 minutes (finishSeries). kubesim
applies those ticks when the series is next touched.

Events do not stay: kube-apiserver stores each with a TTL of ``--event-ttl`` (1 hour by default,
pkg/registry/core/event/storage/storage.go), renewed by every write of it, and etcd removes it
when the lease runs out. kubesim removes them in the settle of a writing command
(:func:`expire`) and leaves expired ones out of every LIST in between (:func:`live`).
"""

from __future__ import annotations

import json

from kubesim.apiserver.context import Cluster
from kubesim.clock import format_micro_time, format_time

EVENT_TTL_SECONDS = 3600  # kube-apiserver --event-ttl's default


def _cutoff(now: float) -> str:
    return format_time(now - EVENT_TTL_SECONDS)[:19]


def live(cluster: Cluster, events: list[dict]) -> list[dict]:
    """The events whose TTL has not run out."""
    from kubesim.store import event_written

    cutoff = _cutoff(cluster.now())
    return [ev for ev in events if event_written(ev) >= cutoff]


def expire(cluster: Cluster) -> bool:
    """Delete the Events last written an ``--event-ttl`` ago or more; True when some went."""
    from kubesim.store import event_written

    store = cluster.store
    now = cluster.now()
    _forget_quiet_groups(store, now)
    cutoff = _cutoff(now)
    gone: list[str] = []
    for k in store.events_written_before(cutoff):
        if store.delete_unread(*k):
            gone.append(k[2])
            continue
        ev = store.get(*k)  # read or written by this command: as it is now
        if ev is not None and event_written(ev) < cutoff:
            store.delete(*k)
            gone.append(k[2])
    series = store.meta(_SERIES_META) if gone else None
    if series and any(name in series for name in gone):
        # the broadcaster's cache of a series whose Event is gone: the next occurrence makes
        # an Event of a new name, so the entry would never be read again
        for name in gone:
            series.pop(name, None)
        store.touch_meta(_SERIES_META)
    return bool(gone)


def _forget_quiet_groups(store, now: float) -> None:
    """Drop the aggregator's groups that no later event can find: ``_aggregate`` starts a group
    quiet for more than AGGREGATE_INTERVAL again as if it were absent, so such groups only
    took space (one per pod and reason ever seen; upstream's cache is an LRU of 4096). Looked
    for once an interval; quiet as of the previous look, because a settle may record events
    dated between the commands (the kubelet catching up), never before the previous one."""
    last = store.meta(_AGGREGATOR_PRUNED_META)
    # (the first look: an interval after the components started, so a new cluster has no mark)
    if now - float(store.meta(STARTED_META, 0) if last is None else last) < AGGREGATE_INTERVAL:
        return
    store.set_meta(_AGGREGATOR_PRUNED_META, now)
    if last is not None:
        # (a row of groups goes once every group in it is quiet: its "last" is their latest)
        quiet = store.meta_keys_below(_AGGREGATOR_META, "last", float(last) - AGGREGATE_INTERVAL)
        if store.meta_held_under(_AGGREGATOR_GROUP_META):
            quiet += store.meta_keys_below(_AGGREGATOR_GROUP_META, "last", float(last) - AGGREGATE_INTERVAL)
        if quiet:
            store.replace_meta(dict.fromkeys(quiet))


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
    """Record an event about ``obj`` from ``component`` (e.g. "default-scheduler", "kubelet"):
    EventCorrelate (aggregation, then counting), then the create or the patch.

    ``at`` is when it (last) happened, ``first`` when it first did and ``count`` how many times,
    for components that catch up on simulated time in one step (the kubelet after ``advance``)."""
    store = cluster.store
    now = cluster.now() if at is None else at
    ref = involved_ref(obj)
    if field_path:
        ref["fieldPath"] = field_path
    ns = ref.get("namespace") or "default"
    migrate_keys(store)
    key = logger_key(component, host, ref["kind"], ns, ref["name"], ref.get("uid", ""), field_path, type_, reason,
                     message)
    group = aggregate_key(component, host, ref, type_, reason)
    reporting = (component, host)
    row = _aggregator_row(component, host, ref)
    made_here = store.drew_uid(ref.get("uid"))
    if made_here:
        # an object this transaction made (a pod applied and scheduled in one command) has no
        # event recorded before: its keys are not looked up, one read each
        store.known_absent([row], [key, _AGGREGATE_PREFIX + group])
    older = None if made_here else _older_groups(component, host, ref)
    if _aggregate(cluster, row, type_ + _KEY_SEP + reason, message, now, older):
        if store.event_name(key) is None:
            # the message counts as recorded (``recorded``) though no Event of its own has it
            store.set_event_name(key, "")
        key, message, reporting = _AGGREGATE_PREFIX + group, AGGREGATED_MESSAGE_PREFIX + message, ("", "")
    existing_name = store.event_name(key)
    if existing_name:
        ev = store.get("Event", ns, existing_name)
        if ev is not None:
            # eventObserve's patch: count, lastTimestamp and message
            ev["count"] = int(ev.get("count", 1)) + count
            ev["lastTimestamp"] = format_time(now)
            ev["message"] = message
            store.put(ev)
            return ev
    name = _event_name(store, ns, ref["name"], now)
    stamp = format_time(now)
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
        "firstTimestamp": format_time(first) if first is not None and first != now else stamp,
        "lastTimestamp": stamp,
        "count": count,
        "type": type_,
        "eventTime": None,
        "reportingComponent": reporting[0],
        "reportingInstance": reporting[1],
    }
    store.create(ev, stamp)
    store.set_event_name(key, name)
    return ev


def _event_name(store, namespace: str, object_name: str, now: float) -> str:
    """makeEvent's ``<object>.<unix nanos in hex>``; a per-state sequence stands in for the
    nanoseconds, so events recorded at one (pinned) instant keep the order they happened in and
    never share a name. The database holds no Event of the name (the store is told so: the
    field manager of its create need not look): no earlier one was given it, and a client
    would have had to name its own Event by a number the sequence had not reached."""
    seq = int(store.meta("events.seq", 0)) + 1
    store.set_meta("events.seq", seq)
    name = f"{object_name}.{int(now) * 1_000_000_000 + seq % 1_000_000_000:x}"
    store.known_absent(objects=[("Event", namespace, name)])
    return name


AGGREGATE_MAX_EVENTS = 10    # defaultAggregateMaxEvents: distinct messages before a group aggregates
AGGREGATE_INTERVAL = 600     # defaultAggregateIntervalInSeconds: a group quiet longer starts again
AGGREGATED_MESSAGE_PREFIX = "(combined from similar events): "  # EventAggregatorByReasonMessageFunc
_AGGREGATE_PREFIX = "aggregate|"  # the eventLogger's key of a group's aggregate Event
# The aggregator's groups, one row per source and involved object (an object's events from
# one component touch one row): {"groups": {"<type>|<reason>": {"keys": [messages, in order
# seen], "last": time}}, "last": the latest of theirs}. Keyed by the object first (kind,
# namespace, name, uid, apiVersion, then component and host): the objects one command records
# events about often have neighbouring names (a bulk file's, a ReplicaSet's pods), so their rows
# share B-tree pages; led by the node, as the groups' keys are, they would spread over the table.
_AGGREGATOR_META = "events.aggregator/"
_AGGREGATOR_GROUP_META = "events.aggregator|"  # older states': + aggregate_key, one group a row
_AGGREGATOR_PRUNED_META = "events.aggregatorPruned"  # when quiet groups were last dropped


def aggregate_key(component: str, host: str, ref: dict, type_: str, reason: str) -> str:
    """EventAggregatorByReasonFunc's aggregate key: source, involved object (not its field path),
    type, reason, reporting controller and instance (the recorder's source, for core/v1)."""
    return _KEY_SEP.join([component, host, ref.get("kind", ""), ref.get("namespace", ""), ref.get("name", ""),
                          ref.get("uid", ""), ref.get("apiVersion", ""), type_, reason, component, host])


def _aggregator_row(component: str, host: str, ref: dict) -> str:
    """The metadata key of the aggregator's groups of ``component`` on ``host`` about ``ref``:
    the aggregate keys that differ only by type and reason (the reporting controller and
    instance are the source, for core/v1)."""
    return _AGGREGATOR_META + _KEY_SEP.join([ref.get("kind", ""), ref.get("namespace", ""), ref.get("name", ""),
                                             ref.get("uid", ""), ref.get("apiVersion", ""), component, host])


def _older_groups(component: str, host: str, ref: dict) -> str:
    """The prefix of the keys an older state's aggregator kept the groups of ``_aggregator_row``
    under: ``_AGGREGATOR_GROUP_META`` + an ``aggregate_key`` up to its type."""
    return _AGGREGATOR_GROUP_META + _KEY_SEP.join([component, host, ref.get("kind", ""), ref.get("namespace", ""),
                                                   ref.get("name", ""), ref.get("uid", ""), ref.get("apiVersion", ""), ""])


def _aggregate(cluster: Cluster, row_key: str, group: str, message: str, now: float,
               older: str | None) -> bool:
    """EventAggregate: note ``message`` in its group (``group``, "<type>|<reason>", of the row
    ``row_key``); True when the event becomes the group's aggregate (the group holds
    AGGREGATE_MAX_EVENTS distinct messages), after which one of them, drawn at random, is
    forgotten. ``older``: the prefix of the object's groups in an older state's form, one row
    each (None: the object is this transaction's, it has none); those move into the row."""
    store = cluster.store
    row = store.meta(row_key)
    groups = dict(row["groups"]) if row is not None else {}
    last = now if row is None else max(float(row["last"]), now)
    if older is not None and store.meta_held_under(_AGGREGATOR_GROUP_META):
        moved = store.meta_items_under(older)
        for key, value in moved:
            name = key[len(older):].rsplit(_KEY_SEP, 2)[0]  # (<type>|<reason>|<component>|<host>)
            if name not in groups or float(groups[name]["last"]) < float(value["last"]):
                groups[name] = value
            last = max(last, float(value["last"]))
        store.replace_meta(dict.fromkeys(key for key, _ in moved))
    stored = groups.get(group)
    if stored is None or now - float(stored["last"]) > AGGREGATE_INTERVAL:
        keys: list[str] = []
    else:
        keys = list(stored["keys"])
    if message not in keys:
        keys.append(message)
    aggregate = len(keys) >= AGGREGATE_MAX_EVENTS
    if aggregate:
        keys.pop(cluster.rng.randrange(len(keys)))
    groups[group] = {"keys": keys, "last": now}
    store.set_meta(row_key, {"groups": groups, "last": last})
    return aggregate


_KEY_SEP = "|"

# The index keeps the eventLogger's key of a core/v1 event (source, object, fieldPath, type,
# reason, message) with the involved object first: the keys a command adds for its objects
# (a bulk apply's pods, named in order) sit together in the index, a few pages written, not one
# page each (a key led by the kubelet's node name lands anywhere). ``@`` starts no namespace, no
# component and no other key of the index (``aggregate|``, ``events.k8s.io|``).
_LOGGER_MARK = "@"
KEY_LAYOUT_META = "events.keyLayout"  # 2: logger keys object first (older states: source first)
KEY_LAYOUT = 2


def logger_key(component: str, host: str, kind: str, namespace: str, name: str, uid: str, field_path: str,
               type_: str, reason: str, message: str) -> str:
    """The index's key of a core/v1 event (see above)."""
    return _LOGGER_MARK + _KEY_SEP.join([namespace, name, uid, kind, component, host, field_path, type_, reason,
                                         message])


def parse_logger_key(key: str) -> tuple[str, ...] | None:
    """(component, host, kind, namespace, name, uid, fieldPath, type, reason, message) of a
    ``logger_key``; None for the index's other keys (aggregates, events.k8s.io series)."""
    if not key.startswith(_LOGGER_MARK):
        return None
    parts = key[1:].split(_KEY_SEP, 9)
    if len(parts) != 10:
        return None
    ns, name, uid, kind, component, host = parts[:6]
    return (component, host, kind, ns, name, uid, *parts[6:])


def migrate_keys(store) -> None:
    """Move an older state's logger keys (source first) to this layout, once: the correlator
    goes on counting the events it recorded before."""
    if store.meta(KEY_LAYOUT_META) == KEY_LAYOUT:
        return

    def moved(key: str) -> str:
        if key.startswith((_LOGGER_MARK, _AGGREGATE_PREFIX, "events.k8s.io" + _KEY_SEP)):
            return key
        parts = key.split(_KEY_SEP, 9)  # (the older key's fields are logger_key's, in its order)
        return logger_key(*parts) if len(parts) == 10 else key

    store.rekey_events(moved)
    store.set_meta(KEY_LAYOUT_META, KEY_LAYOUT)

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
    if store.drew_uid(ref.get("uid")):  # (as in ``record``)
        store.known_absent(event_keys=[key])
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
    name = _event_name(store, ns, ref["name"], now)
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
    migrate_keys(cluster.store)
    for key in cluster.store.event_keys():
        parts = parse_logger_key(key)
        if parts is not None and parts[0] == component and parts[2] == kind:
            out.add((parts[3], parts[4], parts[5], parts[9]))
    return out


__all__ = ["eventf", "format_micro_time", "involved_ref", "record"]
