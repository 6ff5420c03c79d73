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
