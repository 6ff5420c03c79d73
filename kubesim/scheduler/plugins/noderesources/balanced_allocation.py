"""NodeResourcesBalancedAllocation: favour nodes whose resource fractions stay close together.

Upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go (v1.35): PreScore
computes the pod's plain requests (no non-zero defaults) and returns Skip for a pod requesting
none of the configured resources (kubernetes#129138); Score uses the node's Requested (not
NonZeroRequested); ``balancedResourceScorer``: fraction_i = requested/allocatable capped at 1 over
resources with allocatable > 0, std = |f1 - f2| / 2 for two resources, the population standard
deviation for more, 0 for fewer; score = int((1 - std) * 100). No NormalizeScore.
Legacy name: BalancedResourceAllocation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    Handle,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.status import SKIP, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    resource_specs,
    v10_log,
)

NAME = "NodeResourcesBalancedAllocation"
PRE_SCORE_STATE_KEY = "PreScore" + NAME


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    fractions: list[float] = []
    total = 0.0
    for i, alloc in enumerate(allocatable):
        if alloc == 0:
            continue
        f = float(requested[i]) / float(alloc)
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


balanced_resource_score.kind = "balanced"  # type: ignore[attr-defined]


def validate_args(args: dict, path: str = "") -> list[str]:
    errs: list[str] = []
    seen: set[str] = set()
    prefix = f"{path}." if path else ""
    for i, r in enumerate(args.get("resources") or []):
        name = r.get("name", "")
        if name in seen:
            errs.append(f'{prefix}resources[{i}].name: Duplicate value: "{name}"')
        seen.add(name)
        w = r.get("weight")
        if w is not None and int(w) != 1:
            errs.append(f"{prefix}resources[{i}].weight: Invalid value: {w}: must be 1")
    return errs


class BalancedAllocation(PreScorePlugin, ScorePlugin):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        errs = validate_args(self.args)
        if errs:
            raise ValueError(", ".join(errs))
        self.scorer = ResourceAllocationScorer(NAME, balanced_resource_score,
                                               resource_specs(self.args.get("resources")),
                                               use_requested=True)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        reqs = self.scorer.pod_info_requests(pod)
        if ResourceAllocationScorer.is_best_effort(reqs):
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, tuple(reqs))
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            return super().score_nodes(state, pod, nodes)
        return self.scorer.score_many(nodes, reqs, *v10_log(self.handle, pod))

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = self.scorer.pod_requests(pod.pod)
            if ResourceAllocationScorer.is_best_effort(reqs):
                return 0, None
        return self.scorer.score(node, reqs)
