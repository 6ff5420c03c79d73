"""NodeUnschedulable: filters out cordoned nodes (spec.unschedulable) unless the pod tolerates them.

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (Filter:
a node with spec.unschedulable fails with UnschedulableAndUnresolvable "node(s) were
unschedulable" unless the pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule).
Legacy predicate: CheckNodeUnschedulable.
"""

from __future__ import annotations

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import FilterPlugin
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


class NodeUnschedulable(FilterPlugin):
    name = NAME

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
