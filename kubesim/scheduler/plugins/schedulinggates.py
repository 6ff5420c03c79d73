"""SchedulingGates: keeps a pod out of the active queue while spec.schedulingGates is non-empty.

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (``PreEnqueue``
returns UnschedulableAndUnresolvable "waiting for scheduling gates: %v" with the gate names as a
Go slice, e.g. ``[example.com/foo example.com/bar]``). EventsToRegister (queueing hints on): Pod
UpdatePodSchedulingGatesEliminated, Queue for the pod's own update that removed its last gate.
"""

from __future__ import annotations

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.interface import EnqueueExtensions, PreEnqueuePlugin
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo

NAME = "SchedulingGates"


def gate_names(pod: dict) -> list[str]:
    return [g.get("name", "") for g in ((pod.get("spec") or {}).get("schedulingGates") or [])]


def waiting_message(gates: list[str]) -> str:
    return "waiting for scheduling gates: [" + " ".join(gates) + "]"


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    name = NAME

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [ev.ClusterEventWithHint(
            ev.ClusterEvent(ev.POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
            self.is_schedulable_after_update_pod_scheduling_gates_eliminated)]

    def is_schedulable_after_update_pod_scheduling_gates_eliminated(
            self, pod: dict, old: dict | None, new: dict) -> int:
        if (new.get("metadata") or {}).get("uid") != (pod.get("metadata") or {}).get("uid"):
            return ev.QUEUE_SKIP
        return ev.QUEUE

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        gates = gate_names(pod.pod)
        if not gates:
            return None
        return Status(Code.UnschedulableAndUnresolvable, waiting_message(gates))
