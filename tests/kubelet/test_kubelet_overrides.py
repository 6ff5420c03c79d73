"""The kubesim.io/behaviour and kubesim.io/probe-failure annotations (kubesim.kubelet.overrides)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.behaviour import behaviour
from kubesim.kubelet.overrides import override_for, parse_duration, pod_overrides


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


@pytest.mark.parametrize("text,seconds", [("30s", 30.0), ("1m30s", 90.0), ("2h", 7200.0), (45, 45.0)], ids=str)
def test_annotation_durations(text, seconds):
    assert parse_duration(text) == seconds
