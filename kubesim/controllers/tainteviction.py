"""The taint eviction controller: pods on a node with NoExecute taints they do not tolerate are
deleted at once; pods that tolerate them with ``tolerationSeconds`` after that long.

Upstream: pkg/controller/tainteviction/taint_eviction.go: the smallest ``tolerationSeconds`` of
the tolerations used (300 s from the DefaultTolerationSeconds admission plugin), none meaning
never; first the ``DisruptionTarget`` condition (reason ``DeletionByTaintManager``) and the
event ``TaintManagerEviction`` ``Marking for deletion Pod default/web-1``.
"""

from __future__ import annotations

from kubesim.api.pods import tolerates
from kubesim.clock import format_time, parse_timestamp

TAINT_EVICTION_CONTROLLER = "taint-eviction-controller"


def eviction_delay(pod: dict, taints: list[dict]) -> float | None:
    """taint_eviction.go: 0 (at once) when a NoExecute taint is not tolerated, the smallest
    tolerationSeconds of the tolerations used, None (never) when they all tolerate forever."""
    no_exec = [t for t in taints if t.get("effect") == "NoExecute"]
    if not no_exec:
        return None
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    used = []
    for taint in no_exec:
        matching = [t for t in tolerations if tolerates(t, taint)]
        if not matching:
            return 0.0
        used.extend(matching)
    best = None
    for t in used:
        secs = t.get("tolerationSeconds")
        if secs is None:
            continue
        if secs <= 0:
            return 0.0
        best = secs if best is None else min(best, secs)
    return None if best is None else float(best)


def process_pods(plan, taints: list[dict], pods: list[dict], now: float, wakes: list[float]) -> None:
    """Evict the node's pods that are due (into ``plan``); note when the others will be."""
    for pod in pods:
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            continue
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        delay = eviction_delay(pod, taints)
        if delay is None:
            continue
        added = max((parse_timestamp(t.get("timeAdded")) or now) for t in taints if t.get("effect") == "NoExecute")
        due = added + delay
        if due > now + 1e-9:
            wakes.append(due)
            continue
        _add_disruption_target(pod, due)
        md = pod.get("metadata") or {}
        plan.events.append((pod, "Normal", "TaintManagerEviction",
                            f"Marking for deletion Pod {md.get('namespace') or 'default'}/{md.get('name')}",
                            TAINT_EVICTION_CONTROLLER, due))
        plan.evict.append(pod)


def _add_disruption_target(pod: dict, at: float) -> None:
    conds = pod.setdefault("status", {}).setdefault("conditions", [])
    conds[:] = [c for c in conds if c.get("type") != "DisruptionTarget"]
    conds.insert(0, {"lastProbeTime": None, "lastTransitionTime": format_time(at),
                     "message": "Taint manager: deleting due to NoExecute taint",
                     "reason": "DeletionByTaintManager", "status": "True", "type": "DisruptionTarget"})
