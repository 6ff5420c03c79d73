"""The node lifecycle controller: a node whose kubelet stops posting status goes Unknown after
``node-monitor-grace-period``, its pods are marked not ready, and the node is tainted to match
its Ready condition (the taint eviction controller, ``tainteviction``, evicts as it does for
every NoExecute taint).

Upstream: pkg/controller/nodelifecycle/node_lifecycle_controller.go (tryUpdateNodeHealth: the
Ready, MemoryPressure, DiskPressure and PIDPressure conditions become ``Unknown``, reason
``NodeStatusUnknown``, message ``Kubelet stopped posting node status.``, lastHeartbeatTime kept,
lastTransitionTime then; the event ``NodeNotReady`` ``Node node01 status is now: NodeNotReady``;
doNoScheduleTaintingPass and doNoExecuteTaintingPass: the ``node.kubernetes.io/unreachable``
taints for Unknown, ``not-ready`` for False, with ``timeAdded``) and pkg/controller/util/node
(MarkPodsNotReady: every pod's Ready condition turns False, with the Warning event
``NodeNotReady`` ``Node is not ready``). TaintNodesByCondition's ``unschedulable`` taint for a
cordoned node is ``no_schedule_taints``.

The controller sees a stopped kubelet through ``kubesim.api.nodes.stopped_since`` (its last
heartbeat). The deleted pods stay Terminating (no kubelet runs them down) until the node
returns; their controllers create replacements elsewhere. When the kubelet starts again it posts
Ready and the controller lifts the taints.

Defaults: node-monitor-grace-period 50 s (raised from 40 s in v1.32), node-monitor-period 5 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesim.api.nodes import KUBELET_STOPPED_ANNOTATION, ready_condition
from kubesim.clock import format_time, parse_timestamp

UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NODE_CONTROLLER = "node-controller"
UNKNOWN_CONDITION_TYPES = ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")


@dataclass(frozen=True)
class NodeLifecycleConfig:
    node_monitor_grace_period: float = 50.0
    node_monitor_period: float = 5.0


@dataclass
class Plan:
    """What the controller did (objects were changed in place): the control plane stores
    ``nodes`` and ``pods``, records ``events`` and comes back at ``next_wake``."""
    nodes: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)   # (obj, type, reason, message, component, at)
    next_wake: float | None = None


def stopped_since(node: dict) -> float | None:
    """The node's last heartbeat when its kubelet has stopped, None while it runs."""
    return parse_timestamp(((node.get("metadata") or {}).get("annotations") or {}).get(KUBELET_STOPPED_ANNOTATION))


def pending(nodes: list[dict]) -> bool:
    """Whether there is anything to follow: a stopped kubelet, a managed NoExecute taint, or a
    Ready condition gone Unknown (a function of the Nodes alone)."""
    from kubesim.api.nodes import kubelet_stopped

    managed = (UNREACHABLE_TAINT, NOT_READY_TAINT)
    return any(kubelet_stopped(n) or any(t.get("key") in managed and t.get("effect") == "NoExecute"
                                         for t in (n.get("spec") or {}).get("taints") or ())
               or (ready_condition(n) or {}).get("status") == "Unknown" for n in nodes)


def wanted_taints(node: dict, at: float) -> list[dict]:
    """The NoSchedule and NoExecute taints the node lifecycle controller keeps in step with the
    Ready condition (doNoScheduleTaintingPass + doNoExecuteTaintingPass): ``not-ready`` for
    False, ``unreachable`` for Unknown."""
    ready = ready_condition(node)
    status = (ready or {}).get("status", "Unknown")
    if status == "True":
        return []
    key = UNREACHABLE_TAINT if status == "Unknown" else NOT_READY_TAINT
    return [{"effect": "NoSchedule", "key": key, "timeAdded": format_time(at)},
            {"effect": "NoExecute", "key": key, "timeAdded": format_time(at)}]


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


def node_lifecycle(nodes: list[dict], pods: list[dict], now: float,
                   config: NodeLifecycleConfig = NodeLifecycleConfig()) -> Plan:
    """One pass of the node lifecycle controller at ``now``."""
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
            ready = ready_condition(node)
            if now + 1e-9 < unknown_at:
                wakes.append(unknown_at)
            elif ready is None or ready.get("status") != "Unknown":
                for c in (node.get("status") or {}).get("conditions") or []:
                    if c.get("type") in UNKNOWN_CONDITION_TYPES:
                        c.update(status="Unknown", reason="NodeStatusUnknown",
                                 message="Kubelet stopped posting node status.",
                                 lastHeartbeatTime=c.get("lastHeartbeatTime") or format_time(since),
                                 lastTransitionTime=format_time(unknown_at))
                changed = True
                plan.events.append((node, "Normal", "NodeNotReady", f"Node {name} status is now: NodeNotReady",
                                    NODE_CONTROLLER, unknown_at))
                for pod in by_node.get(name, []):
                    if _mark_pod_not_ready(pod, unknown_at):
                        plan.pods.append(pod)
                        plan.events.append((pod, "Warning", "NodeNotReady", "Node is not ready", NODE_CONTROLLER, unknown_at))
        ready = ready_condition(node)
        transition = parse_timestamp((ready or {}).get("lastTransitionTime")) or now
        if _sync_taints(node, transition):
            changed = True
        if changed:
            plan.nodes.append(node)
    plan.next_wake = min(wakes) if wakes else None
    return plan


def _mark_pod_not_ready(pod: dict, at: float) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            if c.get("status") == "False":
                return False
            c["status"] = "False"
            c["lastTransitionTime"] = format_time(at)
            return True
    return False


def no_schedule_taints(node: dict, now: str) -> list[dict] | None:
    """TaintNodesByCondition (doNoScheduleTaintingPass): the NoSchedule taints that mirror the
    node's state — ``node.kubernetes.io/unschedulable`` for a cordoned node,
    ``node.kubernetes.io/not-ready`` while Ready is False (the NodeTaint admission plugin puts
    that one on every new node). The node's new taints, None when they stay as they are."""
    spec = node.get("spec") or {}
    taints = list(spec.get("taints") or [])
    cond = ready_condition(node)
    ready = "False" if cond is None else (cond.get("status") or "Unknown")  # not reported yet: not ready
    want = {UNSCHEDULABLE_TAINT: bool(spec.get("unschedulable")), NOT_READY_TAINT: ready == "False"}
    new = [t for t in taints if not (t.get("key") in want and t.get("effect") == "NoSchedule"
                                     and not want[t["key"]])]
    for key, on in want.items():
        if on and not any(t.get("key") == key and t.get("effect") == "NoSchedule" for t in new):
            new.append({"effect": "NoSchedule", "key": key, "timeAdded": now})
    return None if new == taints else new
