"""SchedulingGates: keeps a pod out of the active queue while spec.schedulingGates is non-empty.

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (``PreEnqueue``
returns UnschedulableAndUnresolvable "waiting for scheduling gates: %v" with the gate names as a
Go slice, e.g. ``[example.com/foo example.com/bar]``).
"""

from __future__ import annotations

from kubesim.scheduler.framework.interface import PreEnqueuePlugin
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo

NAME = "SchedulingGates"


def gate_names(pod: dict) -> list[str]:
    return [g.get("name", "") for g in ((pod.get("spec") or {}).get("schedulingGates") or [])]


def waiting_message(gates: list[str]) -> str:
    return "waiting for scheduling gates: [" + " ".join(gates) + "]"


class SchedulingGates(PreEnqueuePlugin):
    name = NAME

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        gates = gate_names(pod.pod)
        if not gates:
            return None
        return Status(Code.UnschedulableAndUnresolvable, waiting_message(gates))
