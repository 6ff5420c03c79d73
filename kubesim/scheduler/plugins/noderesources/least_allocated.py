"""The LeastAllocated scoring strategy (NodeResourcesFit's default): favour emptier nodes.

Upstream: pkg/scheduler/framework/plugins/noderesources/least_allocated.go:
per resource ``(capacity - requested) * 100 / capacity`` (0 when over capacity), combined as
``sum(score_i * weight_i) / sum(weight_i)`` over resources with non-zero allocatable, all in
integer arithmetic. Legacy name: LeastRequestedPriority.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.scheduler.framework.interface import MAX_NODE_SCORE


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(weights: Sequence[int]):
    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            node_score += least_requested_score(requested[i], alloc) * weights[i]
            weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    scorer.kind = "least"  # type: ignore[attr-defined]
    scorer.weights = list(weights)  # type: ignore[attr-defined]
    return scorer
