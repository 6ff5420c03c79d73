"""PodTopologySpread's constraints and the counting both halves of the plugin share.

Upstream (v1.35): pkg/scheduler/framework/plugins/podtopologyspread/common.go (the internal
``topologySpreadConstraint`` with its parsed selector, ``filterTopologySpreadConstraints`` with
matchLabelKeys merged into the selector, minDomains defaulting to 1, nodeAffinityPolicy
defaulting to Honor and nodeTaintsPolicy to Ignore, ``matchNodeInclusionPolicies``,
``nodeLabelsMatchSpreadConstraints``, ``countPodsMatchSelector`` skipping terminating pods and
other namespaces and returning 0 for an empty selector), staging/src/k8s.io/component-helpers/
scheduling/corev1/nodeaffinity (``GetRequiredNodeAffinity``: nodeSelector AND required node
affinity) and .../corev1/helpers.go (``FindMatchingUntoleratedTaint`` with NoSchedule/NoExecute
taints). The plugin's name and the policy values are here because every other module of the
package uses them.

kubesim specifics, for speed at 5,000 nodes: selectors are compiled once, constraints sharing a
selector count a node's pods once (``selector_groups``), and each existing pod's verdict (not
terminating and matching) is cached in ``PodInfo.scratch`` under the compiled selector, which
assumes a PodInfo stands for one version of its pod (the snapshot replaces it on update).
Over the snapshot's nodes, PreFilter and PreScore count from the snapshot's pods grouped by
(namespace, labels, terminating) per topology value (kubesim/scheduler/framework/pod_groups.py,
``group_matcher`` / ``add_matching``), the nodes an inclusion policy leaves out decided once per
policy and pod inclusion key (``NodeInclusion.node_filter``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable

from kubesim.api.record import FrozenRecord
from kubesim.api.selectors import (
    OP_DOUBLE_EQUALS,
    OP_EQUALS,
    OP_EXISTS,
    OP_IN,
    LabelSelector,
    from_label_selector,
    node_selector_matches,
    selector_from_set,
)
from kubesim.scheduler.framework.pod_groups import Domains
from kubesim.scheduler.framework.types import NodeInfo, PodInfo, census_entry
from kubesim.scheduler.plugins.helper import (
    do_not_schedule_taints,
    find_matching_untolerated_taint,
)

NAME = "PodTopologySpread"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"


class Constraint(FrozenRecord):
    """``topologySpreadConstraint``: a pod's constraint with its selector parsed."""

    __slots__ = ("max_skew", "min_domains", "node_affinity_policy", "node_taints_policy", "selector", "topology_key")

    def __init__(self, max_skew: int, topology_key: str, selector: LabelSelector, min_domains: int = 1,
                 node_affinity_policy: str = HONOR, node_taints_policy: str = IGNORE):
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy


def merge_label_set_with_selector(match_labels: dict, selector: LabelSelector) -> LabelSelector:
    """``mergeLabelSetWithSelector``: ``k=v`` for matchLabelKeys ANDed with the selector; a
    selector that matches nothing (a nil labelSelector) stays as it is."""
    if selector.matches_nothing:
        return selector
    return LabelSelector(list(selector_from_set(match_labels).requirements)
                         + list(selector.requirements))


def filter_constraints(constraints: Iterable[dict], pod_labels: dict,
                       action: str) -> list[Constraint]:
    """``filterTopologySpreadConstraints``: the constraints with whenUnsatisfiable == action.

    Raises ValueError (upstream's text) when a labelSelector does not parse.
    """
    out: list[Constraint] = []
    for c in constraints:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = from_label_selector(c.get("labelSelector"))
        keys = c.get("matchLabelKeys") or ()
        if keys:
            match_labels = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        min_domains = c.get("minDomains")
        out.append(Constraint(
            max_skew=int(c.get("maxSkew") or 0),
            topology_key=c.get("topologyKey") or "",
            selector=selector,
            min_domains=1 if min_domains is None else int(min_domains),
            node_affinity_policy=c.get("nodeAffinityPolicy") or HONOR,
            node_taints_policy=c.get("nodeTaintsPolicy") or IGNORE))
    return out


def node_labels_match_spread_constraints(labels: dict, constraints: Iterable[Constraint]) -> bool:
    """Every constraint's topology key is a label of the node."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


@functools.lru_cache(maxsize=1024)
def _matcher(selector: LabelSelector) -> Callable[[dict], bool]:
    """``selector.matches`` compiled: a closure for the usual ``k=v`` / ``k`` (Exists) shapes."""
    eq: list[tuple[str, str]] = []
    exists: list[str] = []
    for r in selector.requirements:
        if r.operator in (OP_EQUALS, OP_DOUBLE_EQUALS) or (r.operator == OP_IN
                                                           and len(r.values) == 1):
            eq.append((r.key, r.values[0]))
        elif r.operator == OP_EXISTS:
            exists.append(r.key)
        else:
            return selector.matches
    if len(eq) == 1 and not exists:
        k, v = eq[0]
        return lambda labels: labels.get(k) == v
    if len(exists) == 1 and not eq:
        key = exists[0]
        return lambda labels: key in labels
    eq_t, exists_t = tuple(eq), tuple(exists)

    def match(labels: dict) -> bool:
        for k, v in eq_t:
            if labels.get(k) != v:
                return False
        for k in exists_t:
            if k not in labels:
                return False
        return True

    return match


def pod_counter(selector: LabelSelector) -> Callable[[Iterable[PodInfo], str], int]:
    """``countPodsMatchSelector`` specialised to one selector (``count_on_node`` applies it
    to a node)."""
    if selector.empty or selector.matches_nothing:
        def none(pods: Iterable[PodInfo], ns: str) -> int:
            return 0

        none.census = lambda census, ns: 0
        return none
    match = _matcher(selector)
    verdicts: dict[str, bool] = {}  # census key -> not terminating and matching

    def count_census(census: dict[str, int], ns: str) -> int:
        n = 0
        for key, k in census.items():
            hit = verdicts.get(key)
            if hit is None:
                c_ns, labels, terminating = census_entry(key)
                hit = verdicts[key] = (c_ns, not terminating and match(labels))
            if hit[1] and hit[0] == ns:
                n += k
        return n

    def count(pods: Iterable[PodInfo], ns: str) -> int:
        n = 0
        for p in pods:
            if p.namespace != ns:
                continue
            # The verdict (not terminating and matching) is cached on the PodInfo, which stands
            # for one version of the pod, under the compiled matcher.
            scratch = p.scratch
            hit = scratch.get(match)
            if hit is None:
                hit = scratch[match] = not p.terminating and match(p.labels)
            if hit:
                n += 1
        return n

    count.census = count_census
    return count


def count_on_node(counter, node: NodeInfo, ns: str) -> int:
    """``counter`` (a ``pod_counter``) over the node's pods, or over its census while its pods
    are not read (a node of the scheduler's cache)."""
    census = node.census()
    if census is None:
        return counter(node.pods, ns)
    return counter.census(census, ns)


def count_pods_match_selector(pods: Iterable[PodInfo], selector: LabelSelector, ns: str) -> int:
    """Pods in ``ns``, not terminating, whose labels the selector matches.

    As in v1.35, an empty selector (``labelSelector: {}``) counts 0.
    """
    return pod_counter(selector)(pods, ns)


def selector_groups(constraints: list[Constraint]) -> tuple[list[int], list]:
    """Constraints sharing a selector count a node's pods once: each constraint's group index
    and one counter per distinct selector."""
    uniq: list[LabelSelector] = []
    index: list[int] = []
    for c in constraints:
        for j, sel in enumerate(uniq):
            if sel == c.selector:
                break
        else:
            j = len(uniq)
            uniq.append(c.selector)
        index.append(j)
    return index, [pod_counter(sel) for sel in uniq]


def group_matcher(selector: LabelSelector, ns: str) -> Callable[[object], bool] | None:
    """``countPodsMatchSelector``'s verdict on a ``MatchGroup`` (pods of one namespace, label
    set and terminating state); None when the selector counts no pod at all."""
    if selector.empty or selector.matches_nothing:
        return None
    match = _matcher(selector)
    return lambda g: g.namespace == ns and not g.terminating and match(g.labels)


def add_matching(m: dict[str, int], domains: Domains, matches: Callable[[object], bool],
                 known_only: bool = False) -> None:
    """Add to ``m`` (topology value -> pods) the pods of the groups ``matches`` accepts;
    ``known_only``: only at the values already in ``m``."""
    for g, per_value in domains.counts.items():
        if matches(g):
            for v, n in per_value.items():
                if v in m:
                    m[v] += n
                elif not known_only:
                    m[v] = n


def required_keys(constraints: Iterable[Constraint]) -> tuple[str, ...]:
    """The topology keys a node must carry to count for these constraints, once each."""
    return tuple(dict.fromkeys(c.topology_key for c in constraints))


class RequiredNodeAffinity:
    """``nodeaffinity.GetRequiredNodeAffinity``: spec.nodeSelector AND the required NodeSelector
    (an invalid requirement makes its term match nothing; parse errors are ignored)."""

    __slots__ = ("node_selector", "required")

    def __init__(self, pod: dict) -> None:
        spec = pod.get("spec") or {}
        self.node_selector: dict = spec.get("nodeSelector") or {}
        na = ((spec.get("affinity") or {}).get("nodeAffinity")) or {}
        self.required: dict | None = na.get("requiredDuringSchedulingIgnoredDuringExecution")

    @property
    def trivial(self) -> bool:
        """Neither a nodeSelector nor required node affinity: every node matches."""
        return not self.node_selector and self.required is None

    def match(self, labels: dict, name: str = "") -> bool:
        """Whether a node with these labels and this name matches."""
        for k, v in self.node_selector.items():
            if labels.get(k) != v:
                return False
        if self.required is None:
            return True
        return node_selector_matches(self.required, labels,
                                     {"metadata.name": name} if name else {})


class NodeInclusion:
    """``matchNodeInclusionPolicies`` split in two: the node's verdicts (affinity matched, no
    untolerated NoSchedule/NoExecute taint) computed once per node, then
    ``match_node_inclusion_policies`` applies a constraint's Honor/Ignore policies to them."""

    __slots__ = ("need_affinity", "need_taints", "required", "tolerations")

    def __init__(self, pod: dict, constraints: Iterable[Constraint]) -> None:
        self.required = RequiredNodeAffinity(pod)
        self.tolerations = (pod.get("spec") or {}).get("tolerations") or []
        cs = list(constraints)
        self.need_affinity = (not self.required.trivial
                              and any(c.node_affinity_policy == HONOR for c in cs))
        self.need_taints = any(c.node_taints_policy == HONOR for c in cs)

    def key(self) -> str:
        """What the verdicts depend on besides the node: pods with equal keys get the same
        verdicts (``PodGroups.domains``' filter key)."""
        return json.dumps([self.required.node_selector if self.need_affinity else None,
                           self.required.required if self.need_affinity else None,
                           self.tolerations if self.need_taints else None],
                          sort_keys=True, separators=(",", ":"))

    def node_filter(self, c: Constraint) -> tuple[Callable[[NodeInfo], bool] | None, str]:
        """(whether a node counts for ``c`` under its inclusion policies, its filter key);
        (None, "") when every node counts."""
        honor_aff = c.node_affinity_policy == HONOR and self.need_affinity
        honor_taints = c.node_taints_policy == HONOR and self.need_taints
        if not honor_aff and not honor_taints:
            return None, ""

        def counts(node: NodeInfo) -> bool:
            aff, tol = self.verdicts(node)
            return (aff or not honor_aff) and (tol or not honor_taints)

        return counts, f"{int(honor_aff)}{int(honor_taints)}{self.key()}"

    def verdicts(self, node: NodeInfo) -> tuple[bool, bool]:
        """(node matches the required affinity, node has no untolerated NoSchedule taint)."""
        aff = self.required.match(node.labels, node.name) if self.need_affinity else True
        tol = True
        if self.need_taints and node.taints:
            tol = find_matching_untolerated_taint(node.taints, self.tolerations,
                                                  do_not_schedule_taints) is None
        return aff, tol


def match_node_inclusion_policies(c: Constraint, verdicts: tuple[bool, bool]) -> bool:
    """Whether a node with these ``NodeInclusion.verdicts`` counts for the constraint."""
    if c.node_affinity_policy == HONOR and not verdicts[0]:
        return False
    return not (c.node_taints_policy == HONOR and not verdicts[1])
