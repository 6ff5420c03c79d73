"""kubectl's human durations: the AGE column, "(5m ago)", "x3 over 10m".

Mirrors kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go``
(``HumanDuration``, ``ShortHumanDuration``) and ``translateTimestampSince`` as both
``pkg/printers/internalversion/printers.go`` and ``staging/src/k8s.io/kubectl/pkg/describe/describe.go``
define it: a missing timestamp prints ``<unknown>``, anything else is ``HumanDuration(now - ts)``.

Go measures a ``time.Duration`` in whole nanoseconds and truncates toward zero when it converts
to seconds, minutes or hours; this module does the same arithmetic on integer nanoseconds so
the boundaries (119s → "119s", 120s → "2m", -1.9s → "0s", -2s → "<invalid>") match exactly.
"""

from __future__ import annotations

_NS = 1_000_000_000
_MINUTE = 60 * _NS
_HOUR = 60 * _MINUTE


def _nanos(seconds: float) -> int:
    return round(seconds * _NS)


def _trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``int(d.Seconds())`` does."""
    q = abs(a) // b
    return q if a >= 0 else -q


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``: a succinct duration with about 2-3 significant figures."""
    d = _nanos(seconds)
    secs = _trunc_div(d, _NS)
    # Allow a deviation of up to 2 seconds (excluded) for clock skew: that is "now".
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 60 * 2:
        return f"{secs}s"
    minutes = d // _MINUTE
    if minutes < 10:
        s = (d // _NS) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = d // _HOUR
    if hours < 8:
        m = (d // _MINUTE) % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if dy == 0 else f"{years}y{dy}d"
    return f"{hours // 24 // 365}y"


def short_human_duration(seconds: float) -> str:
    """``duration.ShortHumanDuration``: one unit only (``45s``, ``3m``, ``5h``, ``12d``, ``2y``)."""
    d = _nanos(seconds)
    secs = _trunc_div(d, _NS)
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 60:
        return f"{secs}s"
    minutes = d // _MINUTE
    if minutes < 60:
        return f"{minutes}m"
    hours = d // _HOUR
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


_PARSED: dict[str, float | None] = {}  # timestamp -> epoch seconds: a table repeats them


def parse_timestamp(ts: str | None) -> float | None:
    """kubesim.clock.parse_timestamp (imported when first needed: the printers load without the
    clock's datetime and random)."""
    t = _PARSED.get(ts) if type(ts) is str else None
    if t is None:
        from kubesim import clock

        t = clock.parse_timestamp(ts)
        if type(ts) is str and len(_PARSED) < 4096:
            _PARSED[ts] = t
    return t


def translate_timestamp_since(ts: str | None, now: float) -> str:
    """kubectl's ``translateTimestampSince``: ``<unknown>`` for a missing timestamp."""
    t = parse_timestamp(ts)
    if t is None:
        return "<unknown>"
    return human_duration(now - t)
