"""A node whose kubelet stops: the node lifecycle controller and the taint eviction controller.

kubesim marks a stopped kubelet with the node annotation ``kubesim.io/kubelet-stopped`` whose
value is the RFC 3339 time it stopped (``kubesim node stop NAME`` sets it, ``node start``
removes it). While it is set the kubelet does nothing (``lifecycle.sync_pod`` returns at once)
and, once ``node-monitor-grace-period`` has passed without a heartbeat:

- pkg/controller/nodelifecycle/node_lifecycle_controller.go (tryUpdateNodeHealth): the Ready,
  MemoryPressure, DiskPressure and PIDPressure conditions become ``Unknown``, reason
  ``NodeStatusUnknown``, message ``Kubelet stopped posting node status.``, lastHeartbeatTime
  kept, lastTransitionTime now; the event ``NodeNotReady`` ``Node node01 status is now:
  NodeNotReady``; pkg/controller/util/node MarkPodsNotReady: every pod's Ready condition turns
  False with the Warning event ``NodeNotReady`` ``Node is not ready``;
- doNoExecuteTaintingPass / doNoScheduleTaintingPass: the ``node.kubernetes.io/unreachable``
  taints (NoExecute, and NoSchedule for the scheduler) with ``timeAdded``;
- pkg/controller/tainteviction/taint_eviction.go: a pod that does not tolerate every NoExecute
  taint is deleted at once; one that does is deleted after the smallest ``tolerationSeconds``
  of the tolerations used (300 s from the DefaultTolerationSeconds admission plugin), none
  meaning never; first the ``DisruptionTarget`` condition (reason ``DeletionByTaintManager``)
  and the event ``TaintManagerEviction`` ``Marking for deletion Pod default/web-1``.

The deleted pods stay Terminating (no kubelet runs them down) until the node returns; their
controllers create replacements elsewhere. When the kubelet starts again (``start_kubelet``)
it posts Ready again and the controller lifts the taints.

Defaults: node-monitor-grace-period 50 s (raised from 40 s in v1.32), node-monitor-period 5 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesim.api.pods import tolerates

KUBELET_STOPPED_ANNOTATION = "kubesim.io/kubelet-stopped"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
NODE_CONTROLLER = "node-controller"
TAINT_EVICTION_CONTROLLER = "taint-eviction-controller"
UNKNOWN_CONDITION_TYPES = ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
READY_CONDITIONS = [
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
]


@dataclass(frozen=True)
class NodeLifecycleConfig:
    node_monitor_grace_period: float = 50.0
    node_monitor_period: float = 5.0


@dataclass
class Plan:
    """What the controllers did (objects were changed in place): the engine stores
    ``nodes`` and ``pods``, deletes ``evict`` (graceful delete with the pod's own grace period,
    i.e. ``lifecycle.start_termination(pod, None, now)``), records ``events`` and comes back at
    ``next_wake``."""
    nodes: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    evict: list[dict] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)   # (obj, type, reason, message, component, at)
    next_wake: float | None = None


def _fmt(t: float) -> str:
    from kubesim.kubelet.format import format_time

    return format_time(t)


def _parse(s):
    from kubesim.clock import parse_timestamp

    return parse_timestamp(s)


def kubelet_stopped(node: dict) -> bool:
    return bool(((node.get("metadata") or {}).get("annotations") or {}).get(KUBELET_STOPPED_ANNOTATION))


def stopped_since(node: dict) -> float | None:
    return _parse(((node.get("metadata") or {}).get("annotations") or {}).get(KUBELET_STOPPED_ANNOTATION))


def stop_kubelet(node: dict, now: float) -> bool:
    """``kubesim node stop``: the kubelet stops posting status (its last heartbeat is now)."""
    ann = node.setdefault("metadata", {}).setdefault("annotations", {})
    if ann.get(KUBELET_STOPPED_ANNOTATION):
        return False
    ann[KUBELET_STOPPED_ANNOTATION] = _fmt(now)
    for c in (node.get("status") or {}).get("conditions") or []:
        c["lastHeartbeatTime"] = _fmt(now)
    return True


def start_kubelet(node: dict, now: float) -> list[tuple]:
    """``kubesim node start``: the kubelet posts a fresh status; returns the events it records
    (obj, type, reason, message, component, at), as pkg/kubelet/kubelet_node_status.go does on
    start."""
    ann = (node.get("metadata") or {}).get("annotations") or {}
    if not ann.pop(KUBELET_STOPPED_ANNOTATION, None):
        return []
    name = node["metadata"]["name"]
    old = {c.get("type"): c for c in (node.get("status") or {}).get("conditions") or []}
    conds = []
    for type_, status, reason, msg in READY_CONDITIONS:
        prev = old.get(type_) or {}
        ltt = prev.get("lastTransitionTime") if prev.get("status") == status else _fmt(now)
        conds.append({"lastHeartbeatTime": _fmt(now), "lastTransitionTime": ltt or _fmt(now), "message": msg,
                      "reason": reason, "status": status, "type": type_})
    node.setdefault("status", {})["conditions"] = conds
    events = [(node, "Normal", "Starting", "Starting kubelet.", "kubelet", now)]
    for type_, _, reason, _ in READY_CONDITIONS[:3]:
        r = reason.replace("Kubelet", "Node")
        events.append((node, "Normal", r, f"Node {name} status is now: {r}", "kubelet", now))
    events.append((node, "Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods", "kubelet", now))
    events.append((node, "Normal", "NodeReady", f"Node {name} status is now: NodeReady", "kubelet", now))
    return events


def _ready(node: dict) -> dict | None:
    return next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None)


def wanted_taints(node: dict, at: float) -> list[dict]:
    """The NoSchedule and NoExecute taints the node lifecycle controller keeps in step with the
    Ready condition (doNoScheduleTaintingPass + doNoExecuteTaintingPass): ``not-ready`` for
    False, ``unreachable`` for Unknown."""
    ready = _ready(node)
    status = (ready or {}).get("status", "Unknown")
    if status == "True":
        return []
    key = UNREACHABLE_TAINT if status == "Unknown" else NOT_READY_TAINT
    return [{"effect": "NoSchedule", "key": key, "timeAdded": _fmt(at)},
            {"effect": "NoExecute", "key": key, "timeAdded": _fmt(at)}]


def _sync_taints(node: dict, at: float) -> bool:
    spec = node.setdefault("spec", {})
    taints = list(spec.get("taints") or [])
    want = wanted_taints(node, at)
    managed = (UNREACHABLE_TAINT, NOT_READY_TAINT)
    keep = [t for t in taints if t.get("key") not in managed or
            any(w["key"] == t.get("key") and w["effect"] == t.get("effect") for w in want)]
    for w in want:
        if not any(t.get("key") == w["key"] and t.get("effect") == w["effect"] for t in keep):
            keep.append(w)
    if keep == taints:
        return False
    if keep:
        spec["taints"] = keep
    else:
        spec.pop("taints", None)
    return True


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


def node_lifecycle(nodes: list[dict], pods: list[dict], now: float,
                   config: NodeLifecycleConfig = NodeLifecycleConfig()) -> Plan:
    """One pass of the node lifecycle and taint eviction controllers at ``now``."""
    plan = Plan()
    by_node: dict[str, list[dict]] = {}
    for p in pods:
        nn = (p.get("spec") or {}).get("nodeName")
        if nn:
            by_node.setdefault(nn, []).append(p)
    wakes = []
    for node in nodes:
        name = (node.get("metadata") or {}).get("name", "")
        changed = False
        since = stopped_since(node)
        if since is not None:
            unknown_at = since + config.node_monitor_grace_period
            ready = _ready(node)
            if now + 1e-9 < unknown_at:
                wakes.append(unknown_at)
            elif ready is None or ready.get("status") != "Unknown":
                for c in (node.get("status") or {}).get("conditions") or []:
                    if c.get("type") in UNKNOWN_CONDITION_TYPES:
                        c.update(status="Unknown", reason="NodeStatusUnknown",
                                 message="Kubelet stopped posting node status.",
                                 lastHeartbeatTime=c.get("lastHeartbeatTime") or _fmt(since),
                                 lastTransitionTime=_fmt(unknown_at))
                changed = True
                plan.events.append((node, "Normal", "NodeNotReady", f"Node {name} status is now: NodeNotReady",
                                    NODE_CONTROLLER, unknown_at))
                for pod in by_node.get(name, []):
                    if _mark_pod_not_ready(pod, unknown_at):
                        plan.pods.append(pod)
                        plan.events.append((pod, "Warning", "NodeNotReady", "Node is not ready", NODE_CONTROLLER, unknown_at))
        ready = _ready(node)
        transition = _parse((ready or {}).get("lastTransitionTime")) or now
        if _sync_taints(node, transition):
            changed = True
        if changed:
            plan.nodes.append(node)
        # taint eviction
        taints = (node.get("spec") or {}).get("taints") or []
        for pod in by_node.get(name, []):
            if (pod.get("metadata") or {}).get("deletionTimestamp"):
                continue
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            delay = eviction_delay(pod, taints)
            if delay is None:
                continue
            added = max((_parse(t.get("timeAdded")) or now) for t in taints if t.get("effect") == "NoExecute")
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
    plan.next_wake = min(wakes) if wakes else None
    return plan


def _mark_pod_not_ready(pod: dict, at: float) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            if c.get("status") == "False":
                return False
            c["status"] = "False"
            c["lastTransitionTime"] = _fmt(at)
            return True
    return False


def _add_disruption_target(pod: dict, at: float) -> None:
    conds = pod.setdefault("status", {}).setdefault("conditions", [])
    conds[:] = [c for c in conds if c.get("type") != "DisruptionTarget"]
    conds.insert(0, {"lastProbeTime": None, "lastTransitionTime": _fmt(at),
                     "message": "Taint manager: deleting due to NoExecute taint",
                     "reason": "DeletionByTaintManager", "status": "True", "type": "DisruptionTarget"})
