"""The simulated clock and the seeded random source (DESIGN §3.4, principle 6).

Simulated time is ``base + offset``: ``base`` is the wall clock, or ``KUBESIM_NOW`` (RFC 3339)
when pinned; ``offset`` is what ``kubesim advance`` has added, kept in the state. Times in
objects are RFC 3339 with second precision in UTC, as the API server writes ``metav1.Time``.

Randomness (generated names, tie-breaks) comes from one ``random.Random`` per command; with
``KUBESIM_SEED`` it is seeded from the seed and a per-state counter, so a sequence of commands
repeats exactly.
"""

from __future__ import annotations

import functools
import os
import random
import time
from datetime import UTC, datetime

# The instants the API can hold: Go's Time.MarshalJSON (metav1.Time on the wire) refuses a year
# outside [0, 9999]; Python's datetime starts at year 1, so kubesim's range starts there.
MIN_TIME = -62135596800.0  # 0001-01-01T00:00:00Z
MAX_TIME = 253402300799.0  # 9999-12-31T23:59:59Z


class TimeRangeError(ValueError):
    """A simulated instant the API could not store (``Time.MarshalJSON``'s year range)."""


def parse_time(s: str) -> float:
    """RFC 3339 (``2026-11-22T10:00:00Z``, fractional seconds and offsets allowed) → epoch seconds."""
    s = s.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    dt = datetime.fromisoformat(s)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def parse_timestamp(s: str | None) -> float | None:
    """A metav1.Time field read with :func:`parse_time`; None when it is missing or empty (Go's
    zero time)."""
    return parse_time(s) if s else None


def format_time(t: float) -> str:
    """Epoch seconds → ``2026-11-22T10:00:00Z`` (metav1.Time's wire form; the year always has
    four digits, as Go writes it, where C's strftime would drop the leading zeros)."""
    return _format_second(int(t))


# (kept per second: a command stamps thousands of writes and Events within a few seconds, a
# 1,000-pod apply 14,000, each formatted once)
@functools.lru_cache(maxsize=1024)
def _format_second(sec: int) -> str:
    g = time.gmtime(sec)
    return (f"{g.tm_year:04d}-{g.tm_mon:02d}-{g.tm_mday:02d}"
            f"T{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}Z")


def format_micro_time(t: float) -> str:
    """Epoch seconds → ``2026-11-22T10:00:00.123456Z`` (metav1.MicroTime, used by events)."""
    sec = int(t)
    micro = round((t - sec) * 1_000_000)
    if micro >= 1_000_000:
        sec, micro = sec + 1, micro - 1_000_000
    return format_time(sec)[:-1] + f".{micro:06d}Z"


class Clock:
    """Simulated time: ``now()`` is base + offset; ``advance`` grows the offset."""

    def __init__(self, offset: float = 0.0, pinned: float | None = None):
        self.offset = offset
        self.pinned = pinned

    @classmethod
    def from_env(cls, offset: float = 0.0, env: dict | None = None) -> Clock:
        env = os.environ if env is None else env
        pinned = env.get("KUBESIM_NOW")
        if not pinned:
            return cls(offset, None)
        out_of_range = TimeRangeError(
            f"KUBESIM_NOW={pinned!r} (with this state's advances) is outside 0001-01-01T00:00:00Z.."
            "9999-12-31T23:59:59Z, the times the API can store (Time.MarshalJSON: year outside of "
            "range [0,9999])")
        try:
            at = parse_time(pinned)
        except (ValueError, OverflowError) as e:
            if "range" in str(e):
                raise out_of_range from None
            raise TimeRangeError(f"KUBESIM_NOW={pinned!r} is not an RFC 3339 time "
                                 "(e.g. 2026-11-22T10:00:00Z)") from None
        if not MIN_TIME <= at + offset <= MAX_TIME:
            raise out_of_range
        return cls(offset, at)

    def now(self) -> float:
        base = self.pinned if self.pinned is not None else time.time()
        return base + self.offset

    def advance(self, seconds: float) -> None:
        """Move simulated time forward; refused (nothing moves) where the new instant would be
        past the last one the API can store."""
        if self.now() + seconds > MAX_TIME:
            raise TimeRangeError(self.range_message())
        self.offset += seconds

    @staticmethod
    def range_message() -> str:
        return ("the clock cannot pass 9999-12-31T23:59:59Z, the last time the API can store "
                "(Time.MarshalJSON: year outside of range [0,9999])")

    def stamp(self) -> str:
        return format_time(self.now())


def make_random(counter: int, env: dict | None = None) -> random.Random:
    """The command's random source: seeded from KUBESIM_SEED and the state's command counter."""
    env = os.environ if env is None else env
    seed = env.get("KUBESIM_SEED")
    if seed is None:
        return random.Random()
    return random.Random(f"{seed}:{counter}")


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
                   "h": 3600.0}


def parse_duration(s: str, days: bool = True) -> float:
    """Go's ``time.ParseDuration`` (``1h30m``, ``90s``, ``1.5h``, ``-2m``) → seconds, with its error
    texts (``time: invalid duration "x"``, ``time: missing unit in duration "5"``, ``time: unknown
    unit "d" in duration "1d"``) as ValueError. ``days``: kubesim's own ``d`` unit too (for
    ``advance`` and the kubelet overrides); kubectl's duration flags pass False."""
    orig, text = s, s
    neg = False
    if text[:1] in ("+", "-"):
        neg, text = text[0] == "-", text[1:]
    if text == "0":
        return 0.0
    if text == "":
        raise ValueError(f"time: invalid duration {_go_quote(orig)}")
    total = 0.0
    while text:
        i = 0
        while i < len(text) and text[i].isascii() and text[i].isdigit():
            i += 1
        whole, text = text[:i], text[i:]
        frac = ""
        if text[:1] == ".":
            j = 1
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            frac, text = text[1:j], text[j:]
        if not whole and not frac:
            raise ValueError(f"time: invalid duration {_go_quote(orig)}")
        j = 0
        while j < len(text) and text[j] != "." and not (text[j].isascii() and text[j].isdigit()):
            j += 1
        if j == 0:
            raise ValueError(f"time: missing unit in duration {_go_quote(orig)}")
        unit, text = text[:j], text[j:]
        size = 86400.0 if days and unit == "d" else _DURATION_UNITS.get(unit)
        if size is None:
            raise ValueError(f"time: unknown unit {_go_quote(unit)} in duration {_go_quote(orig)}")
        total += float(f"{whole or 0}.{frac or 0}") * size
    if total * 1e9 > 2**63 - 1:
        raise ValueError(f"time: invalid duration {_go_quote(orig)}")
    return -total if neg else total


def _go_quote(s: str) -> str:
    """time's quote(): double quotes, with backslash escapes for quotes and backslashes."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_duration(seconds: float) -> str:
    """Go's ``time.Duration.String()``: ``0s``, ``500ms``, ``1.5s``, ``5m0s``, ``1h2m3.25s``
    (nanosecond precision, as a Duration is an int64 count of nanoseconds)."""
    ns = round(seconds * 1e9)
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns == 0:
        return "0s"
    if ns < 1_000_000_000:  # under a second: the largest unit that keeps a whole leading digit
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size or unit == "ns":
                whole, frac = divmod(ns, size)
                digits = len(str(size)) - 1
                tail = f".{frac:0{digits}d}".rstrip("0").rstrip(".") if digits else ""
                return f"{sign}{whole}{tail}{unit}"
    secs, frac = divmod(ns, 1_000_000_000)
    h, rem = divmod(secs, 3600)
    m, s_ = divmod(rem, 60)
    tail = f".{frac:09d}".rstrip("0").rstrip(".")
    out = f"{s_}{tail}s"
    if h:
        return f"{sign}{h}h{m}m{out}"
    if m:
        return f"{sign}{m}m{out}"
    return sign + out
