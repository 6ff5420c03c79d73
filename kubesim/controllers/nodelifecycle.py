"""The node lifecycle controller: a node whose kubelet is no longer heard from goes Unknown
after ``node-monitor-grace-period``, its pods are marked not ready, and the node is tainted to
match its Ready condition (the taint eviction controller, ``tainteviction``, evicts as it does
for every NoExecute taint).

Upstream: pkg/controller/nodelifecycle/node_lifecycle_controller.go (tryUpdateNodeHealth: the
node was last heard from when its Ready condition's ``lastHeartbeatTime`` changed or its Lease
in ``kube-node-lease`` was renewed, whichever came last — a kubelet that keeps renewing its
Lease keeps its node healthy however old its status; a node that never posted a Ready condition
counts from its creation, with ``node-startup-grace-period``; past the grace period the Ready,
MemoryPressure, DiskPressure and PIDPressure conditions become ``Unknown``, reason
``NodeStatusUnknown``, message ``Kubelet stopped posting node status.``, lastHeartbeatTime
kept, lastTransitionTime then (a condition never posted is added, reason
``NodeStatusNeverUpdated``, message ``Kubelet never posted node status.``, heartbeat the node's
creation); the event ``NodeNotReady`` ``Node node01 status is now: NodeNotReady`` when Ready was
True; doNoScheduleTaintingPass and doNoExecuteTaintingPass: the ``node.kubernetes.io/unreachable``
taints for Unknown, ``not-ready`` for False, with ``timeAdded``) and pkg/controller/util/node
(MarkPodsNotReady: every pod's Ready condition turns False, with the Warning event
``NodeNotReady`` ``Node is not ready``). TaintNodesByCondition's ``unschedulable`` taint for a
cordoned node is ``no_schedule_taints``.

Upstream's controller notes when it observes a new heartbeat or renewal and checks every
``node-monitor-period`` (5 s); kubesim takes the heartbeat and renewal times themselves and
acts at the moment the grace period runs out. A node whose kubelet runs renews its Lease every
10 s (kubesim.kubelet.nodelease), well within the grace period: the controller asks to be woken
only for nodes whose kubelet has stopped (``kubesim.api.nodes.kubelet_stopped``). So a stopped
kubelet's node goes NotReady 40 to 50 s after it stopped (its last renewal + 50 s). The deleted
pods stay Terminating (no kubelet runs them down) until the node returns; their controllers
create replacements elsewhere. When the kubelet starts again it posts Ready and the controller
lifts the taints.

Defaults: node-monitor-grace-period 50 s (raised from 40 s in v1.32), node-startup-grace-period
60 s, node-monitor-period 5 s.
"""

from __future__ import annotations

from kubesim.api.nodes import kubelet_stopped, ready_condition
from kubesim.api.record import FrozenRecord, Record
from kubesim.clock import format_time, parse_timestamp

UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NODE_CONTROLLER = "node-controller"
UNKNOWN_CONDITION_TYPES = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")  # nodeConditionTypes


class NodeLifecycleConfig(FrozenRecord):
    __slots__ = ("node_monitor_grace_period", "node_monitor_period", "node_startup_grace_period")

    def __init__(self, node_monitor_grace_period: float = 50.0, node_startup_grace_period: float = 60.0,
                 node_monitor_period: float = 5.0):
        self.node_monitor_grace_period = node_monitor_grace_period
        self.node_startup_grace_period = node_startup_grace_period
        self.node_monitor_period = node_monitor_period


DEFAULT_CONFIG = NodeLifecycleConfig()


class Plan(Record):
    """What the controller did (objects were changed in place): the control plane stores
    ``nodes`` and ``pods``, records ``events`` and comes back at ``next_wake``."""
    __slots__ = ("events", "next_wake", "nodes", "pods")

    def __init__(self, nodes: list[dict] | None = None, pods: list[dict] | None = None,
                 events: list[tuple] | None = None, next_wake: float | None = None):
        self.nodes = [] if nodes is None else nodes
        self.pods = [] if pods is None else pods
        self.events = [] if events is None else events   # (obj, type, reason, message, component, at)
        self.next_wake = next_wake


def pending(nodes: list[dict]) -> bool:
    """Whether there is anything to follow: a stopped kubelet, a managed NoExecute taint, or a
    Ready condition gone Unknown (a function of the Nodes alone)."""
    managed = (UNREACHABLE_TAINT, NOT_READY_TAINT)
    return any(kubelet_stopped(n) or any(t.get("key") in managed and t.get("effect") == "NoExecute"
                                         for t in (n.get("spec") or {}).get("taints") or ())
               or (ready_condition(n) or {}).get("status") == "Unknown" for n in nodes)


def last_heard(node: dict, lease: dict | None, config: NodeLifecycleConfig = DEFAULT_CONFIG
               ) -> tuple[float, float]:
    """(when the node's kubelet was last heard from, the grace period that applies): the later
    of its Ready condition's heartbeat (the node's creation, with the startup grace period, when
    it never posted one) and its Lease's renewTime (tryUpdateNodeHealth's probeTimestamp)."""
    ready = ready_condition(node)
    if ready is None:
        heard = parse_timestamp((node.get("metadata") or {}).get("creationTimestamp")) or 0.0
        grace = config.node_startup_grace_period
    else:
        heard = parse_timestamp(ready.get("lastHeartbeatTime")) or 0.0
        grace = config.node_monitor_grace_period
    renewed = parse_timestamp(((lease or {}).get("spec") or {}).get("renewTime"))
    if renewed is not None and renewed > heard:
        heard = renewed
    return heard, grace


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
    if ready_condition(node) is None:
        return False  # monitorNodeHealth taints only a node with a Ready condition
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
                   config: NodeLifecycleConfig = DEFAULT_CONFIG, leases: dict | None = None) -> Plan:
    """One pass of the node lifecycle controller at ``now``. ``leases`` maps
    a node's name to its Lease in kube-node-lease as read now (its last renewal), when it has
    one."""
    plan = Plan()
    leases = leases or {}
    by_node: dict[str, list[dict]] = {}
    for p in pods:
        nn = (p.get("spec") or {}).get("nodeName")
        if nn:
            by_node.setdefault(nn, []).append(p)
    wakes = []
    for node in nodes:
        name = (node.get("metadata") or {}).get("name", "")
        changed = False
        heard, grace = last_heard(node, leases.get(name), config)
        unknown_at = heard + grace
        if now + 1e-9 < unknown_at:
            if kubelet_stopped(node):  # nothing will be heard from it: come back when it is late
                wakes.append(unknown_at)
        else:
            changed, was_ready = _mark_unknown(node, unknown_at)
            if was_ready:
                plan.events.append((node, "Normal", "NodeNotReady", f"Node {name} status is now: NodeNotReady",
                                    NODE_CONTROLLER, unknown_at))
            for pod in by_node.get(name, []) if was_ready else ():
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


def _mark_unknown(node: dict, at: float) -> tuple[bool, bool]:
    """The node's conditions turn Unknown at ``at`` (those it never posted are added): (whether
    anything changed, whether Ready was True: the controller then reports NodeNotReady and
    marks the pods not ready)."""
    conditions = node.setdefault("status", {}).setdefault("conditions", [])
    before = (ready_condition(node) or {}).get("status")
    if before == "Unknown":
        return False, False
    created = (node.get("metadata") or {}).get("creationTimestamp")
    for type_ in UNKNOWN_CONDITION_TYPES:
        c = next((c for c in conditions if c.get("type") == type_), None)
        if c is None:
            conditions.append({"lastHeartbeatTime": created, "lastTransitionTime": format_time(at),
                               "message": "Kubelet never posted node status.", "reason": "NodeStatusNeverUpdated",
                               "status": "Unknown", "type": type_})
        elif c.get("status") != "Unknown":
            c.update(status="Unknown", reason="NodeStatusUnknown", message="Kubelet stopped posting node status.",
                     lastTransitionTime=format_time(at))
    return True, before == "True"


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
