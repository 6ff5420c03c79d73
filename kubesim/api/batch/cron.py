"""The cron schedules of CronJobs: robfig/cron v3's standard parser and its ``Next``.

Upstream: github.com/robfig/cron/v3 v3.0.1 (parser.go: ``ParseStandard`` — five fields minute,
hour, day of month, month, day of week, or a descriptor ``@yearly``/``@annually``,
``@monthly``, ``@weekly``, ``@daily``/``@midnight``, ``@hourly``, ``@every <duration>``; an
optional ``TZ=``/``CRON_TZ=`` prefix; ``getRange``/``mustParseInt`` and their error texts;
spec.go ``SpecSchedule.Next`` and ``dayMatches``; constantdelay.go ``Every``), which
k8s.io/kubernetes pkg/util/parsers.ParseCronScheduleWithPanicRecovery calls for validation and
the CronJob controller for its schedule. Times are POSIX seconds; a schedule without a zone runs
in the zone it is given (the controller passes the CronJob's ``timeZone``, else UTC, kubesim's
"local" zone).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

STAR_BIT = 1 << 63

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
           "nov": 11, "dec": 12}
_DOW = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}


@dataclass(frozen=True)
class _Bounds:
    min: int
    max: int
    names: dict | None = None


MINUTES = _Bounds(0, 59)
HOURS = _Bounds(0, 23)
DOM = _Bounds(1, 31)
MONTHS = _Bounds(1, 12, _MONTHS)
DOW = _Bounds(0, 6, _DOW)


class CronError(ValueError):
    """A schedule that does not parse, with robfig/cron's message."""


def _go_fields(fields: list[str]) -> str:
    return "[" + " ".join(fields) + "]"


def _must_parse_int(expr: str) -> int:
    import re

    if not re.fullmatch(r"[+-]?[0-9]+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    num = int(expr)
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _parse_int_or_name(expr: str, names: dict | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _must_parse_int(expr)


def _bits(lo: int, hi: int, step: int) -> int:
    out = 0
    for i in range(lo, hi + 1, step):
        out |= 1 << i
    return out


def _get_range(expr: str, r: _Bounds) -> int:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = r.min, r.max, STAR_BIT
    else:
        start = _parse_int_or_name(low_and_high[0], r.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], r.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if single:
            end = r.max
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < r.min:
        raise CronError(f"beginning of range ({start}) below minimum ({r.min}): {expr}")
    if end > r.max:
        raise CronError(f"end of range ({end}) above maximum ({r.max}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _get_field(field: str, r: _Bounds) -> int:
    bits = 0
    for expr in (e for e in field.split(",") if e):
        bits |= _get_range(expr, r)
    return bits


@dataclass(frozen=True)
class SpecSchedule:
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    zone: str | None = None  # TZ= in the schedule

    def next(self, t: float, zone: str | None = None) -> float | None:
        """SpecSchedule.Next: the first activation strictly after ``t`` (None: none within five
        years)."""
        tz = _zone(self.zone or zone)
        d = _dt.datetime.fromtimestamp(int(t) + 1, tz)  # the next whole second
        added = False
        year_limit = d.year + 5

        def day_matches(x: _dt.datetime) -> bool:
            dom_match = bool((1 << x.day) & self.dom)
            dow_match = bool((1 << ((x.weekday() + 1) % 7)) & self.dow)
            if self.dom & STAR_BIT or self.dow & STAR_BIT:
                return dom_match and dow_match
            return dom_match or dow_match

        while True:
            if d.year > year_limit:
                return None
            wrapped = False
            while not (1 << d.month) & self.month:
                if not added:
                    added = True
                    d = d.replace(day=1, hour=0, minute=0, second=0)
                d = _add_months(d, 1)
                if d.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not day_matches(d):
                if not added:
                    added = True
                    d = d.replace(hour=0, minute=0, second=0)
                d = _normalize(d.replace(tzinfo=None) + _dt.timedelta(days=1), tz)
                if d.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << d.hour) & self.hour:
                if not added:
                    added = True
                    d = d.replace(minute=0, second=0)
                d = _dt.datetime.fromtimestamp(d.timestamp() + 3600, tz)
                if d.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << d.minute) & self.minute:
                if not added:
                    added = True
                    d = d.replace(second=0)
                d = _dt.datetime.fromtimestamp(d.timestamp() + 60, tz)
                if d.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            if d.second != 0:  # the standard parser's seconds field is 0: on to the next minute
                added = True
                d = _dt.datetime.fromtimestamp(d.timestamp() + (60 - d.second), tz)
                continue
            return d.timestamp()


def _normalize(naive: _dt.datetime, tz) -> _dt.datetime:
    return naive.replace(tzinfo=tz)


def _add_months(d: _dt.datetime, n: int) -> _dt.datetime:
    month = d.month - 1 + n
    return d.replace(year=d.year + month // 12, month=month % 12 + 1)


@dataclass(frozen=True)
class ConstantDelaySchedule:
    """``@every <duration>``: whole seconds, at least one."""

    delay: float

    def next(self, t: float, zone: str | None = None) -> float | None:
        return float(int(t)) + self.delay


_DESCRIPTORS = {
    "@yearly": ("0", "0", "1", "1", "*"), "@annually": ("0", "0", "1", "1", "*"),
    "@monthly": ("0", "0", "1", "*", "*"), "@weekly": ("0", "0", "*", "*", "0"),
    "@daily": ("0", "0", "*", "*", "*"), "@midnight": ("0", "0", "*", "*", "*"),
    "@hourly": ("0", "*", "*", "*", "*"),
}


def _zone(name: str | None):
    if not name or name == "UTC":
        return _dt.UTC
    import zoneinfo

    return zoneinfo.ZoneInfo(name)


def load_location(name: str) -> None:
    """time.LoadLocation's verdict: raises CronError(``unknown time zone X``)."""
    if name in ("", "UTC", "Local"):
        return
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, IsADirectoryError, OSError):
        raise CronError(f"unknown time zone {name}") from None


_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _parse_duration(spec: str, text: str) -> float:
    """time.ParseDuration (``1h30m``, ``90s``, ``1.5h``), for ``@every``."""
    import re

    body = text[1:] if text[:1] in "+-" else text
    parts = re.findall(r"([0-9]*\.?[0-9]*)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)", body)
    if not body or "".join(a + b for a, b in parts) != body or any(a in ("", ".") for a, _ in parts):
        raise CronError(f'failed to parse duration {spec}: time: invalid duration "{text}"')
    total = sum(float(a) * _UNITS[b] for a, b in parts)
    return -total if text.startswith("-") else total


def parse_standard(spec: str):
    """cron.ParseStandard: a SpecSchedule or ConstantDelaySchedule, or CronError."""
    if not spec:
        raise CronError("empty spec string")
    zone = None
    if spec.startswith(("TZ=", "CRON_TZ=")):
        i = spec.find(" ")
        eq = spec.find("=")
        if i < 0:
            # Go slices spec[eq+1:-1]: a panic, which ParseCronScheduleWithPanicRecovery reports
            raise CronError(f"invalid schedule format: runtime error: slice bounds out of range [{eq + 1}:-1]")
        zone = spec[eq + 1:i]
        try:
            load_location(zone)
        except CronError as e:
            raise CronError(f"provided bad location {zone}: {e}") from None
        spec = spec[i:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            fields = list(_DESCRIPTORS[spec])
        elif spec.startswith("@every "):
            seconds = _parse_duration(spec, spec[len("@every "):])
            return ConstantDelaySchedule(max(1.0, float(int(seconds))))
        else:
            raise CronError(f"unrecognized descriptor: {spec}")
    else:
        fields = spec.split()
        if len(fields) != 5:
            raise CronError(f"expected exactly 5 fields, found {len(fields)}: {_go_fields(fields)}")
    return SpecSchedule(_get_field(fields[0], MINUTES), _get_field(fields[1], HOURS), _get_field(fields[2], DOM),
                        _get_field(fields[3], MONTHS), _get_field(fields[4], DOW), zone)
