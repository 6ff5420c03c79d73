"""The MostAllocated scoring strategy: favour fuller nodes (bin packing).

Upstream: pkg/scheduler/framework/plugins/noderesources/most_allocated.go:
per resource ``requested * 100 / capacity`` with requested capped at capacity, combined as
``sum(score_i * weight_i) / sum(weight_i)`` over resources with non-zero allocatable.
Legacy name: MostRequestedPriority.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.scheduler.framework.interface import MAX_NODE_SCORE


def most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return requested * MAX_NODE_SCORE // capacity


def most_resource_scorer(weights: Sequence[int]):
    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            node_score += most_requested_score(requested[i], alloc) * weights[i]
            weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    scorer.kind = "most"  # type: ignore[attr-defined]
    scorer.weights = list(weights)  # type: ignore[attr-defined]
    return scorer
