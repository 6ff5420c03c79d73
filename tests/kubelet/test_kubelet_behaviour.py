"""Container behaviour read from what a container runs (kubesim.kubelet.behaviour)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.behaviour import behaviour
from kubesim.kubelet.images import image_repository
from kubesim.kubelet.logs import log_lines
from kubesim.kubelet.overrides import override_for, parse_duration, pod_overrides
from kubesim.kubelet.shell import FOREVER, parse_sleep
from .builders import T0

CASES = [
    # id, container, exits_after, exit_code, ports (None = answers every probe), sigterm
    ("busybox with no command exits 0 at once (sh reads end-of-file)",
     {"image": "busybox"}, 0.0, 0, frozenset(), None),
    ("busybox kept on a terminal runs until stopped",
     {"image": "busybox", "stdin": True, "tty": True}, None, 0, frozenset(), "ignore"),
    ("alpine, ubuntu and python with no command exit at once",
     {"image": "python:3.12"}, 0.0, 0, frozenset(), None),
    ("nginx with no command serves port 80 and exits on SIGTERM",
     {"image": "nginx:1.27"}, None, 0, frozenset({80}), "exit"),
    ("redis serves 6379", {"image": "redis:7"}, None, 0, frozenset({6379}), "exit"),
    ("args replace the image CMD: busybox sleep 3600",
     {"image": "busybox", "args": ["sleep", "3600"]}, 3600.0, 0, frozenset(), "ignore"),
    ("command replaces the entrypoint: nginx running sleep 10",
     {"image": "nginx", "command": ["sleep", "10"]}, 10.0, 0, frozenset(), "ignore"),
    ("sleep accepts busybox suffixes", {"image": "busybox", "command": ["sleep", "2m"]}, 120.0, 0, frozenset(), "ignore"),
    ("sleep infinity never exits", {"image": "busybox", "command": ["sleep", "infinity"]}, None, 0, frozenset(), "ignore"),
    ("true exits 0", {"image": "busybox", "command": ["true"]}, 0.0, 0, frozenset(), None),
    ("false exits 1", {"image": "busybox", "command": ["false"]}, 0.0, 1, frozenset(), None),
    ("sh -c with && and ; runs the chain and exits with exit N",
     {"image": "busybox", "command": ["sh", "-c", "echo hello && sleep 30; exit 3"]}, 30.0, 3, frozenset(), None),
    ("a failing step short-circuits &&",
     {"image": "busybox", "command": ["sh", "-c", "false && sleep 30"]}, 0.0, 1, frozenset(), None),
    ("an endless loop with a sleep runs forever",
     {"image": "busybox", "command": ["sh", "-c", "while true; do echo hi; sleep 10; done"]}, None, 0, frozenset(), "ignore"),
    ("a trap on TERM makes the script exit on SIGTERM",
     {"image": "busybox", "command": ["sh", "-c", "trap 'exit 0' TERM; sleep 3600"]}, 3600.0, 0, frozenset(), "exit"),
    ("an unknown application runs and answers every probe",
     {"image": "myorg/api:2.1"}, None, 0, None, "exit"),
    ("postgres without POSTGRES_PASSWORD exits 1",
     {"image": "postgres:16"}, 0.0, 1, frozenset(), None),
    ("postgres with a password serves 5432",
     {"image": "postgres:16", "env": [{"name": "POSTGRES_PASSWORD", "value": "x"}]}, None, 0, frozenset({5432}), "exit"),
    ("python -m http.server serves its port",
     {"image": "python:3.12", "command": ["python", "-m", "http.server", "8080"]}, None, 0, frozenset({8080}), "ignore"),
]


@pytest.mark.parametrize("container,exits_after,exit_code,ports,sigterm", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_behaviour_from_what_the_container_runs(container, exits_after, exit_code, ports, sigterm):
    b = behaviour({"name": "c", **container}, pod_name="p")
    assert b.exits_after == exits_after
    assert b.exit_code == exit_code
    assert b.ports == ports
    if sigterm is not None:
        assert b.sigterm == sigterm


def test_stress_above_its_memory_limit_is_oomkilled():
    b = behaviour({"name": "c", "image": "polinux/stress", "command": ["stress"],
                   "args": ["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"],
                   "resources": {"limits": {"memory": "100Mi"}}})
    assert (b.exits_after, b.exit_code, b.reason, b.terminated_reason()) == (1.0, 137, "OOMKilled", "OOMKilled")


def test_stress_within_its_memory_limit_keeps_running():
    b = behaviour({"name": "c", "image": "polinux/stress", "command": ["stress"],
                   "args": ["--vm", "1", "--vm-bytes", "150M", "--vm-hang", "1"],
                   "resources": {"limits": {"memory": "200Mi"}}})
    assert b.exits_after is None


def test_files_a_script_touches_and_removes_are_tracked_for_exec_probes():
    b = behaviour({"name": "c", "image": "busybox",
                   "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]})
    assert b.files == (("/tmp/healthy", 0.0, 30.0),)
    assert b.file_exists("/tmp/healthy", 29.9) and not b.file_exists("/tmp/healthy", 30.0)
    assert b.exits_after == 630.0


def test_agnhost_liveness_answers_for_ten_seconds_then_fails():
    b = behaviour({"name": "c", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40", "args": ["liveness"]})
    assert (b.ports, b.http_fail_after, b.exits_after) == (frozenset({8080}), 10.0, None)


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


OVERRIDES = [
    ("exitCode and after make the container exit", '{"app": {"exitCode": 1, "after": "30s"}}', "app",
     {"exits_after": 30.0, "exit_code": 1}),
    ("forever keeps a short command running", '{"app": {"forever": true}}', "app", {"exits_after": None}),
    ("oomKilled terminates with OOMKilled and 137", '{"app": {"oomKilled": true, "after": "5s"}}', "app",
     {"exits_after": 5.0, "exit_code": 137, "reason": "OOMKilled"}),
    ("the star entry applies to every container", '{"*": {"sigterm": "ignore"}}', "other",
     {"sigterm": "ignore", "sigterm_exit_code": 137}),
    ("ports say what the container listens on", '{"app": {"ports": [9090]}}', "app", {"ports": frozenset({9090})}),
    ("image notfound makes the pull fail", '{"app": {"image": "notfound"}}', "app", {"pull_error": "notfound"}),
]


@pytest.mark.parametrize("annotation,name,expected", [c[1:] for c in OVERRIDES], ids=[c[0] for c in OVERRIDES])
def test_behaviour_annotation(annotation, name, expected):
    pod = {"metadata": {"annotations": {"kubesim.io/behaviour": annotation}}}
    b = behaviour({"name": name, "image": "busybox", "command": ["sleep", "10"]}, override=override_for(pod, name))
    for k, v in expected.items():
        assert getattr(b, k) == v, k


PROBE_FAILURES = [
    ("a bare probe kind applies to every container", "liveness", {"*": {"liveness": {"failAfter": "0s"}}}),
    ("container:probe targets one container", "web:readiness", {"web": {"readiness": {"failAfter": "0s"}}}),
    ("@delay fails after the delay", "liveness@30s", {"*": {"liveness": {"failAfter": "30s"}}}),
    ("all breaks every probe", "db:all", {"db": {k: {"failAfter": "0s"} for k in ("liveness", "readiness", "startup")}}),
]


@pytest.mark.parametrize("value,expected", [c[1:] for c in PROBE_FAILURES], ids=[c[0] for c in PROBE_FAILURES])
def test_probe_failure_annotation(value, expected):
    assert pod_overrides({"metadata": {"annotations": {"kubesim.io/probe-failure": value}}}) == expected


@pytest.mark.parametrize("text,seconds", [("10", 10.0), ("1.5", 1.5), ("2m", 120.0), ("1h", 3600.0), ("1d", 86400.0),
                                          ("infinity", FOREVER), ("x", None)],
                         ids=lambda v: str(v))
def test_sleep_operands(text, seconds):
    assert parse_sleep(text) == seconds


@pytest.mark.parametrize("text,seconds", [("30s", 30.0), ("1m30s", 90.0), ("2h", 7200.0), (45, 45.0)], ids=str)
def test_annotation_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("image,repo", [("nginx", "nginx"), ("docker.io/library/nginx:1.27", "nginx"),
                                        ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause"),
                                        ("localhost:5000/app:1", "localhost:5000/app"),
                                        ("busybox@sha256:" + "a" * 64, "busybox")], ids=str)
def test_image_repository(image, repo):
    assert image_repository(image) == repo
