"""The simulated clock's Go time formats (kubesim.clock): time.Duration's String and ParseDuration."""

from __future__ import annotations

import pytest

from kubesim.clock import format_duration, parse_duration


@pytest.mark.parametrize("seconds, text", [
    (0, "0s"), (10, "10s"), (80, "1m20s"), (300, "5m0s"), (0.5, "500ms"), (1.5, "1.5s"), (3700, "1h1m40s"),
    (90.5, "1m30.5s"), (3723.25, "1h2m3.25s"), (0.0015, "1.5ms"), (1e-6, "1µs"), (1e-9, "1ns"), (-5, "-5s"),
    (-90, "-1m30s"), (86400, "24h0m0s"),
], ids=str)
def test_durations_print_as_go_prints_them(seconds, text):
    assert format_duration(seconds) == text


# time_test.go's parseDurationTests and parseDurationErrorTests, with the full texts
@pytest.mark.parametrize("text, seconds", [
    ("0", 0), ("5s", 5), ("30s", 30), ("1478s", 1478), ("-5s", -5), ("+5s", 5), ("-0", 0), ("+0", 0),
    ("5.0s", 5), ("5.6s", 5.6), ("5.s", 5), (".5s", 0.5), ("1.0s", 1), ("1.00s", 1), ("1.004s", 1.004),
    ("100.00100s", 100.001), ("10ns", 1e-8), ("11us", 11e-6), ("12µs", 12e-6), ("12μs", 12e-6), ("13ms", 0.013),
    ("14s", 14), ("15m", 900), ("16h", 57600), ("3h30m", 12600), ("10.5s4m", 250.5), ("-2m3.4s", -123.4),
    ("1h2m3s4ms5us6ns", 3723.004005006), ("39h9m14.425s", 140_954.425), ("1m20s", 80), ("1.5h", 5400),
], ids=str)
def test_durations_parse_as_go_parses_them(text, seconds):
    assert parse_duration(text, days=False) == pytest.approx(seconds)


def test_kubesims_own_day_unit():
    assert parse_duration("2d") == 172800
    assert parse_duration("1d12h") == 129600


@pytest.mark.parametrize("text, error", [
    ("", 'time: invalid duration ""'), ("3", 'time: missing unit in duration "3"'),
    ("-", 'time: invalid duration "-"'), ("s", 'time: invalid duration "s"'), (".", 'time: invalid duration "."'),
    ("-.", 'time: invalid duration "-."'), (".s", 'time: invalid duration ".s"'),
    ("+.s", 'time: invalid duration "+.s"'), ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("1x", 'time: unknown unit "x" in duration "1x"'), ("1h 2m", 'time: unknown unit "h " in duration "1h 2m"'),
    ("9223372036854775810ns", 'time: invalid duration "9223372036854775810ns"'),
], ids=str)
def test_a_malformed_duration_is_refused_with_gos_text(text, error):
    with pytest.raises(ValueError) as e:
        parse_duration(text, days=False)
    assert str(e.value) == error


def test_times_format_the_same_once_remembered_and_after_the_memory_is_cleared():
    import time as _time

    from kubesim.clock import _format_second, format_time

    _FORMATTED_MAX = _format_second.cache_info().maxsize
    base = 1_795_766_400
    for t in [base + 0.9, base, base + 86_399.5, *range(base, base + 2 * _FORMATTED_MAX + 7, 3), base]:
        assert format_time(t) == _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(int(t)))
    assert format_time(-62_135_596_800) == "0001-01-01T00:00:00Z"  # (four digits, as Go writes it)
