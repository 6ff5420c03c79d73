"""What a container printed (kubesim.kubelet.logs): log lines in simulated time."""

from __future__ import annotations

import pytest

from kubesim.kubelet.behaviour import behaviour
from kubesim.kubelet.logs import log_lines
from kubesim.testing.kubelet import T0


LOGS = [
    ("echo prints its arguments", {"image": "busybox", "command": ["sh", "-c", "echo hello world; echo bye"]}, 5,
     ["hello world", "bye"]),
    ("output appears as time passes in a loop",
     {"image": "busybox", "command": ["sh", "-c", 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 10; done']}, 25,
     ["tick 0", "tick 1", "tick 2"]),
    ("date prints the simulated time", {"image": "busybox", "command": ["sh", "-c", "sleep 5; date"]}, 10,
     ["Sun Nov 22 10:00:05 UTC 2026"]),
    ("hostname is the pod name", {"image": "busybox", "command": ["hostname"]}, 1, ["web-1"]),
    ("an init container waiting for a service says so",
     {"image": "busybox", "command": ["sh", "-c", "until nslookup mydb; do echo waiting for mydb; sleep 2; done"]}, 3,
     ["nslookup: can't resolve 'mydb'", "waiting for mydb", "nslookup: can't resolve 'mydb'", "waiting for mydb"]),
    ("nginx prints its entrypoint banner", {"image": "nginx"}, 1, None),
]


@pytest.mark.parametrize("container,elapsed,expected", [c[1:] for c in LOGS], ids=[c[0] for c in LOGS])
def test_log_lines(container, elapsed, expected):
    b = behaviour({"name": "c", **container}, pod_name="web-1")
    lines = log_lines(b, T0, T0 + elapsed)
    if expected is None:
        assert lines[0].startswith("/docker-entrypoint.sh:") and "start worker processes" in lines[-1]
    else:
        assert lines == expected
