"""SchedulingGates: mirrors upstream scheduling_gates_test.go (TestPreEnqueue)."""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.schedulinggates import SchedulingGates

from kubesim.testing.wrappers import make_pod


@pytest.mark.parametrize("pod, expected", [
    pytest.param(make_pod("p").obj(), None, id="a pod without gates is admitted"),
    pytest.param(make_pod("p").gates("foo").obj(),
                 Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates: [foo]"),
                 id="one gate"),
    pytest.param(make_pod("p").gates("example.com/a", "example.com/b").obj(),
                 Status(Code.UnschedulableAndUnresolvable,
                        "waiting for scheduling gates: [example.com/a example.com/b]"),
                 id="several gates print as a Go slice"),
])
def test_pre_enqueue(pod, expected):
    assert SchedulingGates().pre_enqueue(PodInfo(pod)) == expected


# -- queueing hints (scheduling_gates_test.go Test_isSchedulableAfterPodChange) ------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(make_pod("p").gates("foo", "bar").uid("uid0").obj(),
                 make_pod("p1").gates("foo", "bar").uid("uid1").obj(),
                 make_pod("p1").gates("foo").uid("uid1").obj(), QUEUE_SKIP,
                 id="skip-queue-on-other-pod-updated"),
    pytest.param(make_pod("p").gates("foo").uid("uid0").obj(),
                 make_pod("p").gates("foo").uid("uid0").obj(),
                 make_pod("p").gates().uid("uid0").obj(), QUEUE,
                 id="queue-on-the-unsched-pod-updated"),
])
def test_is_schedulable_after_update_pod_scheduling_gates_eliminated(pod, old, new, want):
    got = SchedulingGates().is_schedulable_after_update_pod_scheduling_gates_eliminated(pod, old, new)
    assert got == want
