"""Recording core/v1 Events, with the event correlator's aggregation.

Upstream: staging/src/k8s.io/client-go/tools/record/event.go (makeEvent: name
``<object>.<hex unix nanos>``) and events_cache.go (EventCorrelator: an event with the same
source, involved object, type, reason and message as an earlier one increments ``count`` and
``lastTimestamp`` instead of creating a new object).
"""

from __future__ import annotations

from kubesim.clock import format_micro_time, format_time
from kubesim.apiserver.context import Cluster


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
    # makeEvent names events <object>.<unix nanos in hex>; a per-state sequence keeps events
    # recorded at one (pinned) instant in the order they happened
    seq = int(store.meta("events.seq", 0)) + 1
    store.set_meta("events.seq", seq)
    nanos = int(now) * 1_000_000_000 + seq % 1_000_000_000
    name = f"{ref['name']}.{nanos:x}"  # unique: the sequence never repeats within a state
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


_KEY_SEP = "|"  # the correlator's key: component, host, kind, namespace, name, uid, fieldPath, type, reason, message


def recorded(cluster: Cluster, component: str, kind: str) -> set[tuple[str, str, str, str]]:
    """(namespace, name, uid, message) of every event ``component`` has recorded about an
    object of ``kind`` (read from the correlator's index, no Event bodies loaded)."""
    out = set()
    for key in cluster.store.event_keys():
        parts = key.split(_KEY_SEP, 9)
        if len(parts) == 10 and parts[0] == component and parts[2] == kind:
            out.add((parts[3], parts[4], parts[5], parts[9]))
    return out


__all__ = ["record", "involved_ref", "format_micro_time"]
