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


@pytest.mark.parametrize("text, seconds", [
    ("10s", 10), ("1m20s", 80), ("1.5h", 5400), ("500ms", 0.5), ("1h1m40s", 3700), ("0", 0), ("-5s", -5),
    ("2d", 172800),
], ids=str)
def test_durations_parse_as_go_parses_them(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "10", "1x", "s", "1h 2m"])
def test_a_malformed_duration_is_refused_with_gos_text(text):
    with pytest.raises(ValueError, match="time: invalid duration"):
        parse_duration(text)
