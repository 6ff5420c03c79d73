"""DefaultBinder: binds the pod to the chosen node.

Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go (logs V(3) "Attempting to
bind pod to node" and POSTs a Binding). In kubesim the scheduler cannot write the store: Bind
records the target node in the cycle state and the engine applies ``spec.nodeName`` when the
ScheduleResult says Scheduled.
"""

from __future__ import annotations

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import BindPlugin
from kubesim.scheduler.framework.status import Status
from kubesim.scheduler.framework.types import PodInfo

NAME = "DefaultBinder"
BOUND_NODE_STATE_KEY = "Bind" + NAME
LOG_SITE = "default_binder.go:69"


class DefaultBinder(BindPlugin):
    name = NAME

    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        log = getattr(self.handle, "log", None)
        if log is not None:
            log(3, LOG_SITE, "Attempting to bind pod to node",
                {"pod": pod.full_name, "node": node_name})
        state.write(BOUND_NODE_STATE_KEY, node_name)
        return None
