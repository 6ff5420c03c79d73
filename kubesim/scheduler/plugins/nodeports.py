"""NodePorts: a node must have the pod's host ports free.

Upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go (PreFilter collects the pod's
host ports with util.GetHostPorts — containers and restartable init containers, hostPort > 0 —
and returns Skip when there are none; Filter fails with Unschedulable "node(s) didn't have free
ports for the requested pod ports" when any conflicts with the node's used ports) and
HostPortInfo.CheckConflict (0.0.0.0 conflicts with every IP; an empty protocol is TCP).
EventsToRegister (queueing hints on): Pod Delete, Queue when the deleted pod was scheduled (or
nominated) and held one of the pod's host ports (``isSchedulableAfterPodDeleted``); Node Add,
without a QueueingHintFn.
Legacy predicate: PodFitsHostPorts.
"""

from __future__ import annotations

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import (
    HostPortInfo,
    NodeInfo,
    PodInfo,
    host_ports,
)

NAME = "NodePorts"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(want: list[tuple[str, str, int]], used: HostPortInfo) -> bool:
    """No wanted (hostIP, protocol, hostPort) conflicts with the node's used ports."""
    for ip, proto, port in want:
        if used.check_conflict(ip, proto, port):
            return False
    return True


def fits(pod: dict, node: NodeInfo) -> bool:
    return fits_ports(host_ports(pod), node.used_ports)


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            # spec.containers[*].ports is immutable: pod updates are not registered
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.DELETE),
                                    self.is_schedulable_after_pod_deleted),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD)),
        ]

    def is_schedulable_after_pod_deleted(self, pod: dict, old: dict, new: None) -> int:
        if not (old.get("spec") or {}).get("nodeName") and \
                not (old.get("status") or {}).get("nominatedNodeName"):
            return ev.QUEUE_SKIP
        ports = host_ports(old)
        if not ports:
            return ev.QUEUE_SKIP
        in_use = HostPortInfo()
        for ip, proto, port in ports:
            in_use.add(ip, proto, port)
        return ev.QUEUE_SKIP if fits_ports(host_ports(pod), in_use) else ev.QUEUE

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        if not pod.host_ports:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, tuple(pod.host_ports))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            return Status(Code.Error, err=f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                          "cycleState: not found")
        if fits_ports(want, node.used_ports):
            return None
        return Status(Code.Unschedulable, ERR_REASON)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            return super().filter_fn(state, pod)

        def fn(node: NodeInfo) -> Status | None:
            used = node.used_ports
            if not used or fits_ports(want, used):
                return None
            return Status(Code.Unschedulable, ERR_REASON)
        return fn
