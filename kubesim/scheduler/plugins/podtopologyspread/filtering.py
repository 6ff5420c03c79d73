"""PodTopologySpread's hard constraints: PreFilter, its AddPod/RemovePod, and Filter.

Upstream (v1.35): pkg/scheduler/framework/plugins/podtopologyspread/filtering.go
(``preFilterState`` indexed by constraint: ``TpValueToMatchNum`` and the two ``criticalPaths``;
``minMatchNum`` treating the global minimum as 0 while fewer domains than minDomains exist;
``calPreFilterState``; ``updateWithPod`` for AddPod/RemovePod; Filter's ``matchNum + selfMatch -
minMatchNum > maxSkew``) and plugin.go (the reasons, in upstream's words).

kubesim specifics: PreFilter finds the critical paths with min() over the counts (the paths
``CriticalPaths.update`` leaves, see ``critical_paths_of``), and the compiled Filter of a single
constraint reads the counts directly and shares one Status per reason in its cycle.
"""

from __future__ import annotations

from kubesim.scheduler.framework.pod_groups import PodGroups
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.podtopologyspread.common import (
    HONOR,
    NAME,
    Constraint,
    NodeInclusion,
    add_matching,
    count_on_node,
    group_matcher,
    match_node_inclusion_policies,
    node_labels_match_spread_constraints,
    required_keys,
    selector_groups,
)

PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

MAX_INT32 = (1 << 31) - 1
_CONSTRAINTS_NOT_MATCH = Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
_LABEL_NOT_MATCH = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)


class CriticalPaths:
    """The two (topology value, match count) pairs with the smallest counts seen so far.

    ``paths[0]`` always holds the minimum; ``paths[1]`` is >= it but, after AddPod/RemovePod,
    not necessarily the second smallest (enough, since one cycle only moves pods on one node).
    """

    __slots__ = ("paths",)

    def __init__(self, paths: list[tuple[str, int]] | None = None) -> None:
        self.paths: list[tuple[str, int]] = paths or [("", MAX_INT32), ("", MAX_INT32)]

    def update(self, value: str, num: int) -> None:
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i] = (value, num)
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = (value, num)
        elif num < p[1][1]:
            p[1] = (value, num)

    @property
    def min_match(self) -> int:
        return self.paths[0][1]

    def clone(self) -> CriticalPaths:
        return CriticalPaths(list(self.paths))

    def __repr__(self) -> str:
        return f"CriticalPaths({self.paths!r})"


class PreFilterState:
    """``preFilterState``: per hard constraint, matching pods per topology value and the two
    critical paths. ``self_match`` (kubesim) caches whether the incoming pod matches each one."""

    __slots__ = ("constraints", "critical_paths", "self_match", "tp_value_to_match_num")

    def __init__(self, constraints: list[Constraint] | None = None,
                 critical_paths: list[CriticalPaths] | None = None,
                 tp_value_to_match_num: list[dict[str, int]] | None = None,
                 self_match: list[bool] | None = None) -> None:
        self.constraints: list[Constraint] = constraints or []
        self.critical_paths: list[CriticalPaths] = critical_paths or []
        self.tp_value_to_match_num: list[dict[str, int]] = tp_value_to_match_num or []
        self.self_match: list[bool] = self_match or []

    def min_match_num(self, i: int, min_domains: int) -> int:
        """The global minimum for constraint i; 0 while fewer than minDomains domains exist."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].min_match

    def clone(self) -> PreFilterState:
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num], self.self_match)


def cal_pre_filter_state(constraints: list[Constraint], pod: PodInfo,
                         nodes: list[NodeInfo], groups: PodGroups | None = None
                         ) -> PreFilterState:
    """``calPreFilterState``: matching pods per topology value over every eligible node, for
    the pod's hard ``constraints``. ``groups``: the pods of ``nodes`` counted by
    ``match_group``, from which the counts are summed per topology value (the same counts, the
    values in the same order; the nodes an inclusion policy leaves out are remembered per
    policy and pod inclusion key, so they are decided once until a node changes)."""
    if not constraints:
        return PreFilterState()
    ns = pod.namespace
    pod_labels = (pod.pod.get("metadata") or {}).get("labels") or {}
    inclusion = NodeInclusion(pod.pod, constraints)
    if groups is not None:
        required = required_keys(constraints)
        counts = []
        for c in constraints:
            domains = groups.domains(required, c.topology_key, *inclusion.node_filter(c))
            m = dict.fromkeys(domains.nodes, 0)
            matches = group_matcher(c.selector, ns)
            if matches is not None:
                add_matching(m, domains, matches)
            counts.append(m)
        return _with_critical_paths(constraints, counts, pod_labels)
    group, counters = selector_groups(constraints)
    counts: list[dict[str, int]] = [{} for _ in constraints]
    keys = [c.topology_key for c in constraints]
    specs = [(c.topology_key, c.node_affinity_policy == HONOR, c.node_taints_policy == HONOR,
              group[i], counts[i]) for i, c in enumerate(constraints)]
    check = inclusion.need_affinity or inclusion.need_taints
    aff = tol = True
    n_groups = len(counters)
    for ni in nodes:
        labels = ni.labels
        for k in keys:
            if k not in labels:
                break
        else:
            if check:
                aff, tol = inclusion.verdicts(ni)
            per_group: list = [None] * n_groups
            for key, honor_aff, honor_taints, g, m in specs:
                if (honor_aff and not aff) or (honor_taints and not tol):
                    continue
                cnt = per_group[g]
                if cnt is None:
                    cnt = per_group[g] = count_on_node(counters[g], ni, ns)
                v = labels[key]
                m[v] = m.get(v, 0) + cnt
    return _with_critical_paths(constraints, counts, pod_labels)


def critical_paths_of(m: dict[str, int]) -> CriticalPaths:
    """The CriticalPaths ``update`` leaves after every (value, count) of ``m`` in order: the
    first value with the smallest count, then the first value with the smallest count among
    the others (``("", MAX_INT32)`` where there is none) — found with min() over the counts."""
    p = CriticalPaths()
    if not m:
        return p
    nums = list(m.values())
    lo = min(nums)
    i = nums.index(lo)
    values = list(m)
    p.paths[0] = (values[i], lo)
    if len(nums) > 1:
        rest = nums[:i] + nums[i + 1:]
        lo2 = min(rest)
        j = rest.index(lo2)
        p.paths[1] = (values[j if j < i else j + 1], lo2)
    return p


def _with_critical_paths(constraints: list[Constraint], counts: list[dict[str, int]],
                         pod_labels: dict) -> PreFilterState:
    paths = [critical_paths_of(m) for m in counts]
    return PreFilterState(constraints, paths, counts,
                          [c.selector.matches(pod_labels) for c in constraints])


def fits(s: PreFilterState, node_labels: dict) -> Status | None:
    """Filter's verdict: a missing topology key is unresolvable; otherwise each constraint needs
    ``matchNum + selfMatch - minMatchNum <= maxSkew``."""
    counts = s.tp_value_to_match_num
    for i, c in enumerate(s.constraints):
        value = node_labels.get(c.topology_key)
        if value is None:
            return _LABEL_NOT_MATCH.clone()
        min_match = s.min_match_num(i, c.min_domains)
        if counts[i].get(value, 0) + s.self_match[i] - min_match > c.max_skew:
            return _CONSTRAINTS_NOT_MATCH.clone()
    return None


def fits_fn(s: PreFilterState):
    """``fits`` bound to one state, specialised to a single constraint (the usual case). The
    counts and critical paths are read at each call (AddPod/RemovePod change them in place);
    the nodes it rejects share one Status per reason."""
    if len(s.constraints) != 1:
        return lambda node: fits(s, node.labels)
    c = s.constraints[0]
    key, min_domains = c.topology_key, c.min_domains
    limit = c.max_skew - s.self_match[0]
    m = s.tp_value_to_match_num[0]
    paths = s.critical_paths[0].paths
    get = m.get
    label_not_match, not_match = _LABEL_NOT_MATCH.clone(), _CONSTRAINTS_NOT_MATCH.clone()

    def fn(node: NodeInfo) -> Status | None:
        value = node.labels.get(key)
        if value is None:
            return label_not_match
        if get(value, 0) - (0 if len(m) < min_domains else paths[0][1]) > limit:
            return not_match
        return None

    return fn


def update_with_pod(s: PreFilterState, updated: PodInfo, preemptor: PodInfo, node: NodeInfo,
                    delta: int) -> None:
    """``updateWithPod``: move one pod in or out of the counts (AddPod/RemovePod)."""
    if not s.constraints or updated.namespace != preemptor.namespace or not node.node:
        return
    labels = node.labels
    if not node_labels_match_spread_constraints(labels, s.constraints):
        return
    pod_labels = (updated.pod.get("metadata") or {}).get("labels") or {}
    verdicts = None
    for i, c in enumerate(s.constraints):
        if not c.selector.matches(pod_labels):
            continue
        if verdicts is None:
            verdicts = NodeInclusion(preemptor.pod, s.constraints).verdicts(node)
        if not match_node_inclusion_policies(c, verdicts):
            continue
        v = labels[c.topology_key]
        m = s.tp_value_to_match_num[i]
        m[v] = m.get(v, 0) + delta
        s.critical_paths[i].update(v, m[v])
