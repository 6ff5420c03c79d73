"""DefaultBinder: records the target node in the cycle state and logs like upstream."""

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.defaultbinder import BOUND_NODE_STATE_KEY, DefaultBinder

from kubesim.testing.wrappers import make_pod


def test_bind_records_the_node_and_logs():
    lines = []
    binder = DefaultBinder(None, Handle(log=lambda *a: lines.append(a)))
    state = CycleState()
    assert binder.bind(state, PodInfo(make_pod("web").obj()), "node01") is None
    assert state.read(BOUND_NODE_STATE_KEY) == "node01"
    assert lines == [(3, "default_binder.go:69", "Attempting to bind pod to node",
                      {"pod": "default/web", "node": "node01"})]
