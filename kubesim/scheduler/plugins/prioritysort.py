"""PrioritySort: the queue sort plugin — higher priority first, then earlier queue time.

Upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go (``Less``: p1 > p2, or equal
priorities and pInfo1.Timestamp before pInfo2.Timestamp).
"""

from __future__ import annotations

from kubesim.scheduler.framework.interface import QueuedPodInfo, QueueSortPlugin

NAME = "PrioritySort"


def less(priority1: int, timestamp1: float, priority2: int, timestamp2: float) -> bool:
    return priority1 > priority2 or (priority1 == priority2 and timestamp1 < timestamp2)


class PrioritySort(QueueSortPlugin):
    name = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return less(a.pod_info.priority, a.timestamp, b.pod_info.priority, b.timestamp)


# the queue's heap inlines this Less (kubesim/scheduler/queue.py ``_PriorityItem``)
PrioritySort.less.priority_then_timestamp = True  # type: ignore[attr-defined]
