"""PodTopologySpread's soft constraints: PreScore, Score and NormalizeScore.

Upstream (v1.35): pkg/scheduler/framework/plugins/podtopologyspread/scoring.go
(``preScoreState``, ``initPreScoreState``, PreScore counting the matching pods of all nodes,
``topologyNormalizingWeight`` = ln(size + 2), ``scoreForCount`` = count * weight + maxSkew - 1,
Score rounding half away from zero, NormalizeScore's ``100 * (max + min - s) / max`` with ignored
nodes scoring 0). Hostname constraints are counted per node at Score.
"""

from __future__ import annotations

import math

from kubesim.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore
from kubesim.scheduler.framework.pod_groups import PodGroups
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    NAME,
    Constraint,
    NodeInclusion,
    add_matching,
    count_on_node,
    group_matcher,
    match_node_inclusion_policies,
    node_labels_match_spread_constraints,
    pod_counter,
    required_keys,
    selector_groups,
)

PRE_SCORE_STATE_KEY = "PreScore" + NAME

_INVALID_SCORE = -1


class PreScoreState:
    """``preScoreState``: soft constraints, nodes lacking a topology key, pods per topology value
    (hostname constraints are counted per node at Score) and each constraint's weight."""

    __slots__ = (
        "constraints",
        "counters",
        "ignored_nodes",
        "scored_ignored",
        "topology_normalizing_weight",
        "topology_value_to_pod_counts",
    )

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored_nodes: set[str] = set()
        # kubesim: positions of the ignored nodes in the list the last batch Score scored
        self.scored_ignored: list[int] | None = None
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []
        self.counters: list = []  # kubesim: each constraint's compiled countPodsMatchSelector

    def clone(self) -> PreScoreState:
        return self


def topology_normalizing_weight(size: int) -> float:
    """ln(size + 2): smaller topologies weigh less, so their counts are not watered down."""
    return math.log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """count * weight + (maxSkew - 1): a larger maxSkew tolerates bigger differences."""
    return float(cnt) * tp_weight + float(max_skew - 1)


def go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


def normalize_scores(scores: list[NodeScore], ignored: set[str] | frozenset[str] = frozenset()
                     ) -> None:
    """NormalizeScore in place: ``100 * (max + min - s) // max`` over the nodes not ignored
    (fewer matching pods scores higher); all 100 when the maximum is 0; ignored nodes 0."""
    min_score = None
    max_score = 0
    for s in scores:
        if s.name in ignored:
            s.score = _INVALID_SCORE
            continue
        if min_score is None or s.score < min_score:
            min_score = s.score
        max_score = max(max_score, s.score)
    for s in scores:
        if s.score == _INVALID_SCORE:
            s.score = 0
            continue
        if max_score == 0:
            s.score = MAX_NODE_SCORE
            continue
        s.score = MAX_NODE_SCORE * (max_score + min_score - s.score) // max_score


def normalize_score_list(scores: list[int], ignored: list[int]) -> list[int]:
    """``normalize_scores`` on plain numbers, the nodes at positions ``ignored`` scoring 0."""
    if ignored:
        skip = set(ignored)
        counted = [v for i, v in enumerate(scores) if i not in skip]
    else:
        counted = scores
    if not counted:
        return [0] * len(scores)
    min_score = min(counted)
    max_score = max(0, max(counted))
    if max_score == 0:
        out = [MAX_NODE_SCORE] * len(scores)
    else:
        total = max_score + min_score
        out = [MAX_NODE_SCORE * (total - v) // max_score for v in scores]
    for i in ignored:
        out[i] = 0
    return out


def init_pre_score_state(constraints: list[Constraint], filtered: list[NodeInfo],
                         require_all: bool) -> PreScoreState:
    """``initPreScoreState`` for the pod's soft ``constraints``: ignored nodes, domains and
    weights."""
    s = PreScoreState()
    s.constraints = constraints
    if not s.constraints:
        return s
    s.topology_value_to_pod_counts = [{} for _ in s.constraints]
    s.counters = [pod_counter(c.selector) for c in s.constraints]
    if len(constraints) == 1:
        # the usual single constraint: the same sets, built with comprehensions
        c = constraints[0]
        key = c.topology_key
        if require_all:
            s.ignored_nodes = {ni.name for ni in filtered if key not in ni.labels}
        if key == LABEL_HOSTNAME:
            size = len(filtered) - len(s.ignored_nodes)
        else:
            values = s.topology_value_to_pod_counts[0] = dict.fromkeys(
                [ni.labels.get(key, "") for ni in filtered
                 if not require_all or key in ni.labels], 0)
            size = len(values)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))
        return s
    topo_size = [0] * len(s.constraints)
    for ni in filtered:
        labels = ni.labels
        if require_all and not node_labels_match_spread_constraints(labels, s.constraints):
            s.ignored_nodes.add(ni.name)
            continue
        for i, c in enumerate(s.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue  # per-node counts are computed at Score
            value = labels.get(c.topology_key, "")
            m = s.topology_value_to_pod_counts[i]
            if value not in m:
                m[value] = 0
                topo_size[i] += 1
    for i, c in enumerate(s.constraints):
        size = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            size = len(filtered) - len(s.ignored_nodes)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))
    return s


def count_existing_pods(s: PreScoreState, pod: PodInfo, all_nodes: list[NodeInfo],
                        require_all: bool, groups: PodGroups | None = None) -> None:
    """PreScore's count: the matching pods of every node (not only the filtered ones) added to
    the domains ``init_pre_score_state`` found, per the constraints' inclusion policies.
    ``groups``: the pods of ``all_nodes`` counted by ``match_group``, from which the counts are
    summed per topology value (the nodes an inclusion policy leaves out remembered per policy
    and pod inclusion key)."""
    ns = pod.namespace
    inclusion = NodeInclusion(pod.pod, s.constraints)
    check = inclusion.need_affinity or inclusion.need_taints
    counts = s.topology_value_to_pod_counts
    active = [i for i in range(len(s.constraints)) if counts[i]]
    if groups is not None:
        required = required_keys(s.constraints) if require_all else ()
        for i in active:
            c = s.constraints[i]
            matches = group_matcher(c.selector, ns)
            if matches is not None:
                add_matching(counts[i], groups.domains(required, c.topology_key,
                                                       *inclusion.node_filter(c)),
                             matches, known_only=True)
        return
    group, counters = selector_groups(s.constraints)
    if active:
        for ni in all_nodes:
            labels = ni.labels
            if require_all and not node_labels_match_spread_constraints(labels, s.constraints):
                continue
            verdicts = None
            per_group: list[int | None] = [None] * len(counters)
            for i in active:
                c = s.constraints[i]
                m = counts[i]
                value = labels.get(c.topology_key, "")
                if value not in m:
                    continue
                if check:
                    if verdicts is None:
                        verdicts = inclusion.verdicts(ni)
                    if not match_node_inclusion_policies(c, verdicts):
                        continue
                g = group[i]
                cnt = per_group[g]
                if cnt is None:
                    cnt = per_group[g] = count_on_node(counters[g], ni, ns)
                m[value] += cnt


def node_score(s: PreScoreState, node: NodeInfo, ns: str) -> int:
    """Score: the weighted matching counts of the node's domains (hostname: its own pods)."""
    if node.name in s.ignored_nodes:
        return 0
    labels = node.labels
    score = 0.0
    for i, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = count_on_node(s.counters[i], node, ns)
        else:
            cnt = s.topology_value_to_pod_counts[i].get(value, 0)
        score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
    return go_round(score)


def node_scores(s: PreScoreState, nodes: list[NodeInfo], ns: str) -> list[int]:
    """``node_score`` of every node; without hostname constraints a node's score depends only
    on its topology values, so it is computed once per distinct tuple of values."""
    constraints = s.constraints
    if any(c.topology_key == LABEL_HOSTNAME for c in constraints):
        return [node_score(s, ni, ns) for ni in nodes]
    keys = [c.topology_key for c in constraints]
    ignored = s.ignored_nodes
    if len(keys) == 1 and not ignored:
        key = keys[0]
        by_value: dict = {}
        out = []
        append = out.append
        for ni in nodes:
            value = ni.labels.get(key)
            v = by_value.get(value)
            if v is None:
                v = by_value[value] = node_score(s, ni, ns)
            append(v)
        return out
    memo: dict[tuple, int] = {}
    out = []
    for ni in nodes:
        if ni.name in ignored:
            out.append(0)
            continue
        labels = ni.labels
        values = tuple([labels.get(k) for k in keys])
        v = memo.get(values)
        if v is None:
            v = memo[values] = node_score(s, ni, ns)
        out.append(v)
    return out
