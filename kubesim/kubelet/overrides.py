"""Two pod annotations that let a manifest say what kubesim cannot guess about its containers
(kubesim's own; upstream has nothing like them, since its containers really run).

``kubesim.io/behaviour`` (JSON: container name, or ``"*"`` for all, to an override)::

    {"app": {"exitCode": 1, "after": "30s"}}    # exits with 1 thirty seconds after each start
    {"app": {"forever": true}}                  # runs until stopped
    {"app": {"oomKilled": true, "after": "5s"}} # terminated reason OOMKilled, exit code 137
    {"app": {"logs": ["ready", "serving"]}}     # printed at start (kubesim logs)
    {"app": {"sigterm": "ignore"}}              # "exit" (default for servers) or "ignore"
    {"app": {"ports": [8080]}}                  # what it listens on
    {"app": {"image": "notfound"}}              # ErrImagePull / ImagePullBackOff
    {"app": {"liveness": "fail"}}               # probe results: "fail", "pass",
    {"app": {"readiness": {"failAfter": "1m"}}} #   {"failAfter": d} or {"passAfter": d}
    {"app": {"cpu": "250m", "memory": "64Mi"}}  # usage (kubectl top; kubesim.kubelet.metrics)
    {"app": {"load": [{"after": "2m", "cpu": "900m"}]}}  # usage from 2 min after each start

``kubesim.io/probe-failure`` (troubleshooting drills), a comma-separated list of
``[container:]probe[@delay]`` where probe is ``liveness``, ``readiness``, ``startup`` or
``all``: ``"liveness"``, ``"web:readiness"``, ``"liveness@30s"`` (passes for 30 s after each
container start, then fails). It is the same as the ``failAfter`` override above.

Durations are relative to each container start, so a restarted container repeats its behaviour.
An override that does not parse is ignored.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from kubesim.api.record import FrozenRecord

if TYPE_CHECKING:
    from kubesim.kubelet.behaviour import Behaviour

BEHAVIOUR_ANNOTATION = "kubesim.io/behaviour"
PROBE_FAILURE_ANNOTATION = "kubesim.io/probe-failure"


class ProbeOverride(FrozenRecord):
    """A forced probe result: fail (or pass) from ``after`` seconds after the container start."""
    __slots__ = ("after", "fail")

    def __init__(self, fail: bool, after: float = 0.0):
        self.fail = fail
        self.after = after


def parse_duration(v) -> float:
    """An annotation's duration: a number of seconds (``30``, ``"30"``) or a Go duration
    (``"30s"``, ``"1m30s"``, ``"2h"``, kubesim's ``"1d"``: ``kubesim.clock.parse_duration``)."""
    from kubesim.clock import parse_duration as go_parse_duration

    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return float(s)
    try:
        seconds = go_parse_duration(s)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise ValueError(f"invalid duration {v!r}")
    return seconds


def pod_overrides(pod: dict) -> dict[str, dict]:
    """The per-container overrides of a pod's ``kubesim.io/behaviour`` and
    ``kubesim.io/probe-failure`` annotations, merged: container name (or ``*``) -> override."""
    ann = ((pod.get("metadata") or {}).get("annotations") or {})
    out: dict[str, dict] = {}
    raw = ann.get(BEHAVIOUR_ANNOTATION)
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for k, v in data.items():
                if isinstance(v, dict):
                    out[str(k)] = dict(v)
    pf = ann.get(PROBE_FAILURE_ANNOTATION)
    if pf:
        for item in str(pf).split(","):
            item = item.strip()
            if not item:
                continue
            name = "*"
            if ":" in item:
                name, item = item.split(":", 1)
            delay = "0s"
            if "@" in item:
                item, delay = item.split("@", 1)
            kinds = ("liveness", "readiness", "startup") if item == "all" else (item,)
            for k in kinds:
                if k in ("liveness", "readiness", "startup"):
                    out.setdefault(name, {})[k] = {"failAfter": delay}
    return out


def override_for(pod: dict, container_name: str) -> dict:
    """The override for one container: the ``*`` entry, updated by the container's own."""
    ov = pod_overrides(pod)
    merged = dict(ov.get("*") or {})
    merged.update(ov.get(container_name) or {})
    return merged


def apply_override(behaviour: Behaviour, ov: dict) -> Behaviour:
    """``behaviour`` with the override ``ov`` applied (unchanged when ``ov`` does not parse)."""
    changes: dict = {}
    try:
        if ov.get("forever"):
            changes["exits_after"] = None
        if "exitCode" in ov or "after" in ov or ov.get("oomKilled"):
            changes["exit_code"] = int(ov.get("exitCode", 137 if ov.get("oomKilled") else 0))
            changes["exits_after"] = parse_duration(ov.get("after", 0))
            changes["reason"] = "OOMKilled" if ov.get("oomKilled") else ""
        if "logs" in ov and isinstance(ov["logs"], list):
            changes["output"] = tuple((0.0, str(x)) for x in ov["logs"])
            changes["program"] = None
        if ov.get("sigterm") in ("exit", "ignore"):
            changes["sigterm"] = ov["sigterm"]
            changes["sigterm_exit_code"] = 0 if ov["sigterm"] == "exit" else 137
        if isinstance(ov.get("ports"), list):
            changes["ports"] = frozenset(int(p) for p in ov["ports"])
        if ov.get("image") in ("notfound", "pullError", "ErrImagePull"):
            changes["pull_error"] = "notfound"
        probes = dict(behaviour.probes)
        for kind in ("liveness", "readiness", "startup"):
            v = ov.get(kind)
            if v is None:
                continue
            if v in ("fail", False):
                probes[kind] = ProbeOverride(True, 0.0)
            elif v in ("pass", True):
                probes[kind] = ProbeOverride(False, 0.0)
            elif isinstance(v, dict) and "failAfter" in v:
                probes[kind] = ProbeOverride(True, parse_duration(v["failAfter"]))
            elif isinstance(v, dict) and "passAfter" in v:
                probes[kind] = ProbeOverride(False, parse_duration(v["passAfter"]))
        changes["probes"] = probes
    except (ValueError, TypeError):
        return behaviour
    return behaviour._replace(**changes)
