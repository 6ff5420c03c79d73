"""Simulated time stays where the API can hold it: Go's time.ParseDuration bounds a duration
(about 2562047h) and Time.MarshalJSON refuses a year outside [0, 9999], so neither ``advance`` nor
``KUBESIM_NOW`` may take the clock past 9999-12-31T23:59:59Z (or before year 1, Python's first):
each is refused with a clear error, exit 1, nothing written, and every later command still works."""

from __future__ import annotations

import pytest

from kubesim.clock import MAX_TIME, format_micro_time, format_time, parse_time
from kubesim.testing.cli import Harness, snapshot

RANGE = ("Time.MarshalJSON: year outside of range [0,9999]")


@pytest.mark.parametrize("t, text", [
    (0, "1970-01-01T00:00:00Z"),
    (MAX_TIME, "9999-12-31T23:59:59Z"),
    (parse_time("0001-01-01T00:00:00Z"), "0001-01-01T00:00:00Z"),  # four digits, as Go writes it
    (parse_time("0999-06-01T12:30:00Z"), "0999-06-01T12:30:00Z"),
])
def test_format_time_writes_a_four_digit_year(t, text):
    assert format_time(t) == text
    assert format_micro_time(t) == text[:-1] + ".000000Z"


@pytest.mark.parametrize("now, message", [
    ("garbage", "error: KUBESIM_NOW='garbage' is not an RFC 3339 time (e.g. 2026-11-22T10:00:00Z)\n"),
    ("2026-13-01T00:00:00Z", "error: KUBESIM_NOW='2026-13-01T00:00:00Z' is not an RFC 3339 time "
                             "(e.g. 2026-11-22T10:00:00Z)\n"),
    ("0000-01-01T00:00:00Z", "error: KUBESIM_NOW='0000-01-01T00:00:00Z' (with this state's advances) is "
                             "outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z, the times the API can "
                             f"store ({RANGE})\n"),
])
def test_a_bad_pinned_time_is_refused_without_a_state(tmp_path, now, message):
    h = Harness(tmp_path / "state", now=now)
    for command in ("get pods", "cluster info", "advance 1s"):
        r = h(command)
        assert (r.code, r.out, r.err) == (1, "", message)
    assert snapshot(h.state_dir) == []
    assert "node01" in Harness(tmp_path / "state").ok("get nodes")  # the state is usable as it was


@pytest.mark.parametrize("duration, message", [
    ("1m", f"error: the clock cannot pass 9999-12-31T23:59:59Z, the last time the API can store ({RANGE}): "
           "it is 9999-12-31T23:59:30Z, 1m later is not\n"),
    ("2562047h", f"error: the clock cannot pass 9999-12-31T23:59:59Z, the last time the API can store "
                 f"({RANGE}): it is 9999-12-31T23:59:30Z, 2562047h later is not\n"),
    ("2562048h", 'error: time: invalid duration "2562048h"\n'),  # past Go's int64 nanoseconds
    ("3000000d", 'error: time: invalid duration "3000000d"\n'),
])
def test_advance_past_the_last_storable_instant_is_refused(tmp_path, duration, message):
    h = Harness(tmp_path / "state", now="9999-12-31T23:59:30Z")
    h.ok("get nodes")
    before = snapshot(h.state_dir)
    r = h(f"advance {duration}")
    assert (r.code, r.err) == (1, message)
    assert snapshot(h.state_dir) == before
    assert h.ok("advance 29s") == "clock advanced 29s to 9999-12-31T23:59:59Z\n"  # up to the last second
    assert "node01" in h.ok("describe node node01")
    # kubeadm's 4 static pods, 2 CoreDNS pods and a kube-proxy pod per node
    assert h.ok("get pods -A").count("Running") == 9
