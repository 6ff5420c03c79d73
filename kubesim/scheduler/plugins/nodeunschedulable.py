"""NodeUnschedulable: filters out cordoned nodes (spec.unschedulable) unless the pod tolerates them.

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (Filter:
a node with spec.unschedulable fails with UnschedulableAndUnresolvable "node(s) were
unschedulable" unless the pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule).
EventsToRegister (queueing hints on): Node Add|UpdateNodeTaint, Queue when the node is added
schedulable or stops being unschedulable; Pod UpdatePodToleration, Queue when the pod itself now
tolerates the unschedulable taint.
Legacy predicate: CheckNodeUnschedulable.
"""

from __future__ import annotations

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import EnqueueExtensions, FilterPlugin
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import tolerations_tolerate_taint

NAME = "NodeUnschedulable"
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"

_UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"}


def fits(pod: dict, node: dict) -> bool:
    """Whether the pod may land on the node as far as spec.unschedulable goes."""
    if not (node.get("spec") or {}).get("unschedulable"):
        return True
    tolerations = (pod.get("spec") or {}).get("tolerations") or ()
    return tolerations_tolerate_taint(tolerations, _UNSCHEDULABLE_TAINT)


class NodeUnschedulable(FilterPlugin, EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT),
                                    self.is_schedulable_after_node_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION),
                                    self.is_schedulable_after_pod_toleration_change),
        ]

    def is_schedulable_after_pod_toleration_change(self, pod: dict, old: dict | None,
                                                   new: dict) -> int:
        if (pod.get("metadata") or {}).get("uid") != (new.get("metadata") or {}).get("uid"):
            return ev.QUEUE_SKIP
        tolerations = (new.get("spec") or {}).get("tolerations") or ()
        return ev.QUEUE if tolerations_tolerate_taint(tolerations, _UNSCHEDULABLE_TAINT) \
            else ev.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None, new: dict) -> int:
        now_unschedulable = bool((new.get("spec") or {}).get("unschedulable"))
        if old is None:
            return ev.QUEUE_SKIP if now_unschedulable else ev.QUEUE
        was_unschedulable = bool((old.get("spec") or {}).get("unschedulable"))
        return ev.QUEUE if was_unschedulable and not now_unschedulable else ev.QUEUE_SKIP

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if fits(pod.pod, node.node):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        tolerations = (pod.pod.get("spec") or {}).get("tolerations") or ()
        if tolerations_tolerate_taint(tolerations, _UNSCHEDULABLE_TAINT):
            return None
        return lambda node: (Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)
                             if node.unschedulable else None)
