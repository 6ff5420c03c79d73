"""The RequestedToCapacityRatio scoring strategy: a user-shaped function of utilization.

Upstream: pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go and
helper/shape_score.go. Shape points (utilization 0..100, score 0..10) are scaled to 0..100
(score * MaxNodeScore / MaxCustomPriorityScore); per resource the broken-linear function is
applied to ``requested * 100 / capacity`` (100 when capacity is 0 or exceeded); resources whose
score is 0 do not count; the result is ``round(sum(score_i * weight_i) / sum(weight_i))``.
Legacy name: RequestedToCapacityRatioPriority.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.scheduler.framework.interface import MAX_NODE_SCORE
from kubesim.scheduler.plugins.helper import build_broken_linear_function

MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero."""
    import math
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def scaled_shape(shape: Sequence[dict]) -> list[tuple[int, int]]:
    return [(int(p.get("utilization", 0)),
             int(p.get("score", 0)) * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE))
            for p in shape]


def requested_to_capacity_ratio_scorer(weights: Sequence[int], shape: Sequence[tuple[int, int]]):
    raw = build_broken_linear_function(shape)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            s = resource_score(requested[i], alloc)
            if s > 0:
                node_score += s * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return go_round(node_score / weight_sum)

    return scorer
