"""The events one pod sync records, handed to the engine in time order.

A sync can cover hours of simulated time at once, so an event repeated every sync period (a
probe failing, a back-off) is added once with a count and the times of its first and last
occurrence. Before they leave, identical events of one pod are folded into one record with the
earliest first time, the latest last time and the summed count, as client-go's EventCorrelator
folds them (k8s.io/client-go/tools/record/events_cache.go: same source, object, type, reason,
message; the count grows and lastTimestamp moves).
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType

from kubesim.api.record import Record


class RecordedEvent(Record):
    __slots__ = ("count", "field_path", "first", "last", "message", "reason", "seq", "type")

    def __init__(self, first: float, seq: int, type: str, reason: str, message: str, field_path: str,
                 last: float, count: int):
        self.first = first              # when it first happened
        self.seq = seq                  # order of recording, breaks ties between equal times
        self.type = type                # Normal | Warning
        self.reason = reason
        self.message = message
        self.field_path = field_path    # the container it is about, e.g. spec.containers{app}; "" for the pod
        self.last = last                # when it last happened
        self.count = count


class EventRecorder:
    """Events recorded during one sync, flushed in time order; repeated identical events in
    one stream are folded into one record with a count (the event correlator's job)."""

    def __init__(self):
        self.items: list[RecordedEvent] = []
        self.seq = 0

    def add(self, at: float, type_: str, reason: str, message: str, field_path: str = "",
            count: int = 1, first: float | None = None):
        if count <= 0:
            return
        self.seq += 1
        self.items.append(RecordedEvent(first if first is not None else at, self.seq, type_, reason, message,
                                        field_path, at, count))

    def merged(self) -> list[RecordedEvent]:
        """One record per distinct event (what the event correlator would make of them):
        earliest first time, latest last time, summed count; in order of first occurrence."""
        if len(self.items) < 2:  # (most syncs: nothing to fold)
            return list(self.items)
        out: dict[tuple, RecordedEvent] = {}
        copied = set()  # the keys whose record is a copy, which folding changes
        for event in sorted(self.items, key=lambda e: (e.first, e.seq)):
            key = (event.type, event.reason, event.message, event.field_path)
            folded = out.get(key)
            if folded is None:
                out[key] = event
                continue
            if key not in copied:
                copied.add(key)
                folded = out[key] = folded._replace()
            folded.last = max(folded.last, event.last)
            folded.count += event.count
        return list(out.values())

    def flush(self, pod: dict, record, host: str):
        """Hand the folded events to ``record`` (the engine's recorder; None drops them)."""
        if record is None or not self.items:
            return
        if _accepted(record) == _ALL:  # (the engine's recorder: each event handed over as it is)
            for event in self.merged():
                record(pod, event.type, event.reason, event.message, "kubelet", host, event.field_path,
                       at=event.last, first=event.first, count=event.count)
            return
        call = _adapt_recorder(record)
        for event in self.merged():
            call(pod, event.type, event.reason, event.message, host, event.field_path, event.first, event.last,
                 event.count)


_ACCEPTED: dict[object, frozenset[str]] = {}  # a recorder's function -> the keywords it takes
_ALL = frozenset(("at", "first", "count"))


def _accepted(record) -> frozenset[str]:
    """Which of ``at``, ``first`` and ``count`` ``record`` accepts, worked out once per
    function (a bound method's, ``__func__``, for all its bindings: one per pod sync)."""
    fn = getattr(record, "__func__", record)
    try:
        hit = _ACCEPTED.get(fn)
    except TypeError:  # (an unhashable callable)
        hit, fn = None, None
    if hit is not None:
        return hit
    params, takes_keywords = _parameters(record)
    accepted = frozenset(n for n in ("at", "first", "count") if n in params or takes_keywords)
    if fn is not None:
        if len(_ACCEPTED) >= 64:
            _ACCEPTED.clear()
        _ACCEPTED[fn] = accepted
    return accepted


def _parameters(record) -> tuple[tuple[str, ...], bool]:
    """``record``'s parameter names and whether it takes ``**kwargs``: read from a plain
    function's code (what ``inspect.signature`` reads there; importing inspect, with ast and
    dis, costs every command ~4 ms), else from ``inspect.signature``."""
    fn = getattr(record, "__func__", record)
    if type(fn) is FunctionType and not hasattr(fn, "__wrapped__") and not hasattr(fn, "__signature__"):
        code = fn.__code__
        star, stars = bool(code.co_flags & _VARARGS), bool(code.co_flags & _VARKEYWORDS)
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + star + stars]
        bound = fn is not record and code.co_argcount > 0  # (a bound method: its self is given)
        return (names[1:] if bound else names), stars
    import inspect

    try:
        params = inspect.signature(record).parameters
    except (TypeError, ValueError):
        return (), False
    return tuple(params), any(p.kind == p.VAR_KEYWORD for p in params.values())


_VARARGS, _VARKEYWORDS = 0x04, 0x08  # CO_VARARGS, CO_VARKEYWORDS (Include/cpython/code.h)


def _adapt_recorder(record) -> Callable:
    """Call ``record`` the engine's way (obj, type, reason, message, component, host,
    field_path), passing ``at``/``first``/``count`` when it accepts them."""
    accepted = _accepted(record)

    def call(pod, type_, reason, message, host, path, first, last, count):
        extra = {}
        if "at" in accepted:
            extra["at"] = last
        if "first" in accepted:
            extra["first"] = first
        if "count" in accepted:
            extra["count"] = count
            record(pod, type_, reason, message, "kubelet", host, path, **extra)
            return
        # a recorder without counts gets the repeats one by one (bounded)
        for _ in range(min(count, 1000)):
            record(pod, type_, reason, message, "kubelet", host, path, **extra)
    return call
