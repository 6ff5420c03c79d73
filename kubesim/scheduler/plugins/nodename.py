"""NodeName: a pod that names a node in spec.nodeName fits only that node.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go (``Fits``: empty nodeName or equal
to the node's name; otherwise UnschedulableAndUnresolvable "node(s) didn't match the requested
node name"). EventsToRegister (queueing hints on): Node Add, without a QueueingHintFn (always
Queue). Legacy predicate: HostName (PodFitsHost).
"""

from __future__ import annotations

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import EnqueueExtensions, FilterPlugin
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: dict, node_name: str) -> bool:
    wanted = (pod.get("spec") or {}).get("nodeName") or ""
    return not wanted or wanted == node_name


class NodeName(FilterPlugin, EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD))]

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if fits(pod.pod, node.name):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        wanted = (pod.pod.get("spec") or {}).get("nodeName") or ""
        if not wanted:
            return None
        return lambda node: (None if node.name == wanted
                             else Status(Code.UnschedulableAndUnresolvable, ERR_REASON))
