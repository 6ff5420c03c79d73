"""ImageLocality: favour nodes that already have the pod's container images.

Upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go. For each init and app
container whose (normalized: ``:latest`` appended when untagged) image the node reports, add
``int(size * numNodesWithImage / totalNodes)``; clamp the sum to [23 MiB, 1000 MiB × number of
containers] and map it linearly onto 0..100. No NormalizeScore. The node's images come from
``status.images`` (names and sizeBytes), as the kubelet reports them.
Legacy name: ImageLocalityPriority.
"""

from __future__ import annotations

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import MAX_NODE_SCORE, ScorePlugin
from kubesim.scheduler.framework.status import Status
from kubesim.scheduler.framework.types import ImageStateSummary, NodeInfo, PodInfo

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Append ``:latest`` when the image has no tag after its last path segment."""
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def sum_image_scores(image_states: dict[str, ImageStateSummary], pod: dict,
                     total_num_nodes: int) -> int:
    spec = pod.get("spec") or {}
    total = 0
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or ():
            st = image_states.get(normalized_image_name(c.get("image") or ""))
            if st is not None:
                total += scaled_image_score(st, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(ScorePlugin):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        total_nodes = self.handle.snapshot.num_nodes()
        spec = pod.pod.get("spec") or {}
        n = len(spec.get("initContainers") or ()) + len(spec.get("containers") or ())
        s = sum_image_scores(node.image_states, pod.pod, total_nodes) if node.image_states else 0
        return calculate_priority(s, n), None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        total_nodes = self.handle.snapshot.num_nodes()
        spec = pod.pod.get("spec") or {}
        images = [normalized_image_name(c.get("image") or "")
                  for key in ("initContainers", "containers") for c in spec.get(key) or ()]
        n = len(images)
        base = calculate_priority(0, n)

        # A node's score depends only on which of the pod's images it has, and their states
        # (ImageStateSummary: one per image name, shared by the nodes that have it): worked
        # out once per combination of states, not once per node.
        memo: dict[tuple, int] = {}
        out = []
        for node in nodes:
            states = node.image_states
            if not states:
                out.append(base)  # nodes reporting no images all score the base (sum 0)
                continue
            key = tuple(map(states.get, images))
            score = memo.get(key)
            if score is None:
                s = 0
                for st in key:
                    if st is not None:
                        s += scaled_image_score(st, total_nodes)
                score = memo[key] = calculate_priority(s, n)
            out.append(score)
        return out
