"""PrioritySort: mirrors upstream priority_sort_test.go (TestLess)."""

import pytest

from kubesim.scheduler.framework.interface import QueuedPodInfo
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.prioritysort import PrioritySort

from kubesim.testing.wrappers import make_pod


def qpi(priority, ts):
    return QueuedPodInfo(pod_info=PodInfo(make_pod("p").priority(priority).obj()), timestamp=ts)


@pytest.mark.parametrize("a, b, expected", [
    pytest.param(qpi(100, 2.0), qpi(0, 1.0), True, id="p1 has higher priority"),
    pytest.param(qpi(0, 1.0), qpi(100, 0.0), False, id="p2 has higher priority"),
    pytest.param(qpi(5, 1.0), qpi(5, 2.0), True, id="equal priority, p1 added to the queue earlier"),
    pytest.param(qpi(5, 2.0), qpi(5, 1.0), False, id="equal priority, p2 added earlier"),
    pytest.param(qpi(5, 1.0), qpi(5, 1.0), False, id="equal priority and time"),
])
def test_less(a, b, expected):
    assert PrioritySort().less(a, b) is expected
