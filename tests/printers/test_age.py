"""kubectl's human durations, case for case from upstream's
``staging/src/k8s.io/apimachinery/pkg/util/duration/duration_test.go``."""

from __future__ import annotations

import pytest

from kubesim.clock import parse_time
from kubesim.printers.age import human_duration, short_human_duration, translate_timestamp_since

S, MS, NS = 1.0, 1e-3, 1e-9
M = 60 * S
H = 60 * M
D = 24 * H
Y = 365 * D


@pytest.mark.parametrize("seconds, want", [
    pytest.param(S, "1s", id="one second"),
    pytest.param(70 * S, "70s", id="under two minutes stays in seconds"),
    pytest.param(190 * S, "3m10s", id="under ten minutes shows minutes and seconds"),
    pytest.param(70 * M, "70m", id="under three hours stays in minutes"),
    pytest.param(47 * H, "47h", id="under two days stays in hours"),
    pytest.param(49 * H, "2d1h", id="under eight days shows days and hours"),
    pytest.param(8 * D + 2 * H, "8d", id="from eight days on only days"),
    pytest.param(367 * D, "367d", id="under two years stays in days"),
    pytest.param(2 * Y + 25 * H, "2y1d", id="under eight years shows years and days"),
    pytest.param(8 * Y + 2 * H, "8y", id="from eight years on only years"),
])
def test_human_duration(seconds, want):
    assert human_duration(seconds) == want


@pytest.mark.parametrize("seconds, want", [
    pytest.param(-2 * S, "<invalid>", id="two seconds in the future is invalid"),
    pytest.param(-2 * S + NS, "0s", id="less than two seconds of skew counts as now"),
    pytest.param(0, "0s", id="zero"),
    pytest.param(S - MS, "0s", id="seconds truncate"),
    pytest.param(2 * M - MS, "119s", id="just under two minutes"),
    pytest.param(2 * M, "2m", id="two minutes"),
    pytest.param(2 * M + S, "2m1s", id="two minutes one second"),
    pytest.param(10 * M - MS, "9m59s", id="just under ten minutes"),
    pytest.param(10 * M, "10m", id="ten minutes"),
    pytest.param(10 * M + S, "10m", id="ten minutes drops the seconds"),
    pytest.param(3 * H - MS, "179m", id="just under three hours"),
    pytest.param(3 * H, "3h", id="three hours"),
    pytest.param(3 * H + M, "3h1m", id="three hours one minute"),
    pytest.param(8 * H - MS, "7h59m", id="just under eight hours"),
    pytest.param(8 * H, "8h", id="eight hours"),
    pytest.param(8 * H + 59 * M, "8h", id="eight hours drops the minutes"),
    pytest.param(2 * D - MS, "47h", id="just under two days"),
    pytest.param(2 * D, "2d", id="two days"),
    pytest.param(2 * D + H, "2d1h", id="two days one hour"),
    pytest.param(8 * D - MS, "7d23h", id="just under eight days"),
    pytest.param(8 * D, "8d", id="eight days"),
    pytest.param(8 * D + 23 * H, "8d", id="eight days drops the hours"),
    pytest.param(2 * Y - MS, "729d", id="just under two years"),
    pytest.param(2 * Y, "2y", id="two years"),
    pytest.param(2 * Y + 23 * H, "2y", id="two years and hours"),
    pytest.param(2 * Y + 23 * H + 59 * M, "2y", id="two years and almost a day"),
    pytest.param(2 * Y + D - MS, "2y", id="two years and just under a day"),
    pytest.param(2 * Y + D, "2y1d", id="two years one day"),
    pytest.param(3 * Y, "3y", id="three years"),
    pytest.param(4 * Y, "4y", id="four years"),
    pytest.param(5 * Y, "5y", id="five years"),
    pytest.param(6 * Y, "6y", id="six years"),
    pytest.param(7 * Y, "7y", id="seven years"),
    pytest.param(8 * Y - MS, "7y364d", id="just under eight years"),
    pytest.param(8 * Y, "8y", id="eight years"),
    pytest.param(8 * Y + 364 * D, "8y", id="eight years drops the days"),
    pytest.param(9 * Y, "9y", id="nine years"),
])
def test_human_duration_boundaries(seconds, want):
    assert human_duration(seconds) == want


@pytest.mark.parametrize("seconds, want", [
    pytest.param(-2 * S, "<invalid>", id="two seconds in the future is invalid"),
    pytest.param(-2 * S + NS, "0s", id="less than two seconds of skew counts as now"),
    pytest.param(0, "0s", id="zero"),
    pytest.param(S - MS, "0s", id="seconds truncate"),
    pytest.param(S, "1s", id="one second"),
    pytest.param(2 * S - MS, "1s", id="just under two seconds"),
    pytest.param(M - MS, "59s", id="just under a minute"),
    pytest.param(M, "1m", id="a minute"),
    pytest.param(2 * M - MS, "1m", id="just under two minutes"),
    pytest.param(H - MS, "59m", id="just under an hour"),
    pytest.param(H, "1h", id="an hour"),
    pytest.param(2 * H - MS, "1h", id="just under two hours"),
    pytest.param(D - MS, "23h", id="just under a day"),
    pytest.param(D, "1d", id="a day"),
    pytest.param(2 * D - MS, "1d", id="just under two days"),
    pytest.param(Y - MS, "364d", id="just under a year"),
    pytest.param(Y, "1y", id="a year"),
    pytest.param(2 * Y - MS, "1y", id="just under two years"),
    pytest.param(2 * Y, "2y", id="two years"),
])
def test_short_human_duration_boundaries(seconds, want):
    assert short_human_duration(seconds) == want


NOW = parse_time("2026-11-22T10:00:00Z")


@pytest.mark.parametrize("ts, now, want", [
    pytest.param(None, NOW, "<unknown>", id="a missing timestamp is unknown"),
    pytest.param("", NOW, "<unknown>", id="an empty timestamp is unknown"),
    pytest.param("2026-11-22T09:55:00Z", NOW, "5m", id="five minutes ago"),
    pytest.param("2026-11-22T09:58:30Z", NOW + 0.9, "90s", id="fractions of a second truncate"),
    pytest.param("2026-11-19T07:30:00Z", NOW, "3d2h", id="days and hours"),
    pytest.param("2026-11-22T10:00:05Z", NOW, "<invalid>", id="a timestamp in the future is invalid"),
    pytest.param("2026-11-22T09:59:59.500000Z", NOW, "0s", id="micro time is accepted"),
])
def test_translate_timestamp_since(ts, now, want):
    assert translate_timestamp_since(ts, now) == want
