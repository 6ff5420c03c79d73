"""PodTopologySpread: spread matching pods evenly over topology domains (hard filter, soft score).

Upstream (v1.35): pkg/scheduler/framework/plugins/podtopologyspread/common.go (the internal
constraint with its parsed selector, ``filterTopologySpreadConstraints`` with matchLabelKeys
merged into the selector, minDomains defaulting to 1, nodeAffinityPolicy defaulting to Honor and
nodeTaintsPolicy to Ignore, ``matchNodeInclusionPolicies``, ``buildDefaultConstraints``,
``nodeLabelsMatchSpreadConstraints``, ``countPodsMatchSelector`` skipping terminating pods and
other namespaces and returning 0 for an empty selector), filtering.go (``preFilterState`` indexed
by constraint: ``TpValueToMatchNum`` and the two ``criticalPaths``; ``minMatchNum`` treating the
global minimum as 0 while fewer domains than minDomains exist; AddPod/RemovePod; Filter's
``matchNum + selfMatch - minMatchNum > maxSkew``), scoring.go (``preScoreState``,
``topologyNormalizingWeight`` = ln(size + 2), ``scoreForCount`` = count * weight + maxSkew - 1,
Score rounding half away from zero, NormalizeScore's ``100 * (max + min - s) / max`` with ignored
nodes scoring 0), plugin.go (the reasons, the system default constraints — hostname maxSkew 3 and
zone maxSkew 5, both ScheduleAnyway — and ``New``), pkg/scheduler/framework/plugins/helper/
spread.go (``DefaultSelector`` from the Services, ReplicationControllers, ReplicaSets and
StatefulSets selecting the pod), pkg/scheduler/apis/config/v1/defaults.go
(``SetDefaults_PodTopologySpreadArgs``: defaultingType System) and
pkg/scheduler/apis/config/validation/validation_pluginargs.go (``ValidatePodTopologySpreadArgs``),
staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity (``GetRequiredNodeAffinity``:
nodeSelector AND required node affinity) and .../corev1/helpers.go
(``FindMatchingUntoleratedTaint`` with NoSchedule/NoExecute taints).

v1.35 has NodeInclusionPolicyInPodTopologySpread (GA) and MatchLabelKeysInPodTopologySpread on,
so the policies and matchLabelKeys always apply. A constraint whose labelSelector is ``{}`` counts
no existing pod (``countPodsMatchSelector`` returns 0 for an empty selector), while AddPod/RemovePod
and the self-match still see it match everything: that is v1.35 behaviour, reproduced on purpose.
Legacy names: EvenPodsSpread / EvenPodsSpreadPriority.

kubesim specifics: default constraints get the pod's Services and controllers through a
``default_selector`` callable or an informer-like ``list_objects(kind, namespace)`` (the
framework's Handle has no informers yet); for speed at 5,000 nodes selectors are compiled once,
constraints sharing a selector count a node's pods once, and each existing pod's verdict
(not terminating and matching) is cached in ``PodInfo.scratch`` under the compiled selector, which
assumes a PodInfo stands for one version of its pod (the snapshot replaces it on update).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterable

from kubesim.api.selectors import (OP_DOUBLE_EQUALS, OP_EQUALS, OP_EXISTS, OP_IN, LabelSelector,
                                   from_label_selector, label_key_errors, node_selector_matches,
                                   selector_from_set)
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (MAX_NODE_SCORE, FilterPlugin, Handle,
                                                   NodeScore, PreFilterExtensions,
                                                   PreFilterPlugin, PreScorePlugin, ScorePlugin)
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import (do_not_schedule_taints,
                                              find_matching_untolerated_taint)

NAME = "PodTopologySpread"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
_DEFAULT_SELECTOR_KEY = "DefaultSelector" + NAME  # kubesim: the cycle's DefaultSelector, memoized

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict, ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)

MAX_INT32 = (1 << 31) - 1
_INVALID_SCORE = -1
_SKIP = Status(Code.Skip)
_CONSTRAINTS_NOT_MATCH = Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
_LABEL_NOT_MATCH = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)

# (kind, namespace) -> the stored objects of that kind in the namespace (an informer lister).
ObjectLister = Callable[[str, str], Iterable[dict]]
# pod -> the selector default constraints use (None or empty: no default constraints).
DefaultSelectorFunc = Callable[[dict], "LabelSelector | None"]


# -- constraints (common.go) ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Constraint:
    """``topologySpreadConstraint``: a pod's constraint with its selector parsed."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE


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


def _counter(selector: LabelSelector) -> Callable[[Iterable[PodInfo], str], int]:
    """``countPodsMatchSelector`` specialised to one selector."""
    if selector.empty or selector.matches_nothing:
        return lambda pods, ns: 0
    match = _matcher(selector)

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
                meta = p.pod.get("metadata") or {}
                hit = scratch[match] = (not meta.get("deletionTimestamp")
                                        and match(meta.get("labels") or {}))
            if hit:
                n += 1
        return n

    return count


def count_pods_match_selector(pods: Iterable[PodInfo], selector: LabelSelector, ns: str) -> int:
    """Pods in ``ns``, not terminating, whose labels the selector matches.

    As in v1.35, an empty selector (``labelSelector: {}``) counts 0.
    """
    return _counter(selector)(pods, ns)


def _selector_groups(constraints: list[Constraint]) -> tuple[list[int], list]:
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
    return index, [_counter(sel) for sel in uniq]


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


class _NodeInclusion:
    """``matchNodeInclusionPolicies`` split in two: the node's verdicts (affinity matched, no
    untolerated NoSchedule/NoExecute taint) computed once per node, then ``_included`` applies a
    constraint's Honor/Ignore policies to them."""

    __slots__ = ("required", "tolerations", "need_affinity", "need_taints")

    def __init__(self, pod: dict, constraints: Iterable[Constraint]) -> None:
        self.required = RequiredNodeAffinity(pod)
        self.tolerations = (pod.get("spec") or {}).get("tolerations") or []
        cs = list(constraints)
        self.need_affinity = (not self.required.trivial
                              and any(c.node_affinity_policy == HONOR for c in cs))
        self.need_taints = any(c.node_taints_policy == HONOR for c in cs)

    def verdicts(self, node: NodeInfo) -> tuple[bool, bool]:
        """(node matches the required affinity, node has no untolerated NoSchedule taint)."""
        aff = self.required.match(node.labels, node.name) if self.need_affinity else True
        tol = True
        if self.need_taints and node.taints:
            tol = find_matching_untolerated_taint(node.taints, self.tolerations,
                                                  do_not_schedule_taints) is None
        return aff, tol


def _included(c: Constraint, verdicts: tuple[bool, bool]) -> bool:
    if c.node_affinity_policy == HONOR and not verdicts[0]:
        return False
    if c.node_taints_policy == HONOR and not verdicts[1]:
        return False
    return True


# -- DefaultSelector (helper/spread.go) --------------------------------------------------------
def _controller_of(pod: dict) -> dict | None:
    """``metav1.GetControllerOf``: the first ownerReference with controller: true."""
    for ref in ((pod.get("metadata") or {}).get("ownerReferences") or ()):
        if ref.get("controller"):
            return ref
    return None


def _named(objs: Iterable[dict], name: str) -> dict | None:
    for o in objs:
        if (o.get("metadata") or {}).get("name") == name:
            return o
    return None


def default_selector(pod: dict, services: Iterable[dict] = (),
                     replication_controllers: Iterable[dict] = (),
                     replica_sets: Iterable[dict] = (),
                     stateful_sets: Iterable[dict] = ()) -> LabelSelector:
    """``helper.DefaultSelector``: the selectors of the pod's Services (those whose non-nil
    selector matches the pod) merged, plus its controlling ReplicationController's selector, or
    the requirements of its controlling ReplicaSet's / StatefulSet's selector. The objects are
    those of the pod's namespace. Nothing found: the empty selector."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    label_set: dict = {}
    for svc in services:
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:  # services with nil selectors match nothing, not everything
            continue
        if all(labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    selector = selector_from_set(label_set)
    owner = _controller_of(pod)
    if owner is None:
        return selector
    api_version, kind, name = owner.get("apiVersion") or "", owner.get("kind"), owner.get("name")
    if api_version == "v1" and kind == "ReplicationController":
        rc = _named(replication_controllers, name)
        if rc is not None:
            label_set.update((rc.get("spec") or {}).get("selector") or {})
            selector = selector_from_set(label_set)
    elif api_version == "apps/v1" and kind in ("ReplicaSet", "StatefulSet"):
        owners = replica_sets if kind == "ReplicaSet" else stateful_sets
        o = _named(owners, name)
        if o is not None:
            try:
                other = from_label_selector((o.get("spec") or {}).get("selector"))
            except ValueError:
                other = None
            if other is not None and not other.matches_nothing:
                selector = LabelSelector(list(selector.requirements) + list(other.requirements))
    return selector


# -- PreFilter state (filtering.go) ------------------------------------------------------------
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

    def clone(self) -> "CriticalPaths":
        return CriticalPaths(list(self.paths))

    def __repr__(self) -> str:
        return f"CriticalPaths({self.paths!r})"


class PreFilterState:
    """``preFilterState``: per hard constraint, matching pods per topology value and the two
    critical paths. ``self_match`` (kubesim) caches whether the incoming pod matches each one."""

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num", "self_match")

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

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num], self.self_match)


# -- PreScore state and arithmetic (scoring.go) ------------------------------------------------
class PreScoreState:
    """``preScoreState``: soft constraints, nodes lacking a topology key, pods per topology value
    (hostname constraints are counted per node at Score) and each constraint's weight."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts",
                 "topology_normalizing_weight", "counters")

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []
        self.counters: list = []  # kubesim: each constraint's compiled countPodsMatchSelector

    def clone(self) -> "PreScoreState":
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
        if s.score > max_score:
            max_score = s.score
    for s in scores:
        if s.score == _INVALID_SCORE:
            s.score = 0
            continue
        if max_score == 0:
            s.score = MAX_NODE_SCORE
            continue
        s.score = MAX_NODE_SCORE * (max_score + min_score - s.score) // max_score


# -- the decisions, as free functions ----------------------------------------------------------
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
            verdicts = _NodeInclusion(preemptor.pod, s.constraints).verdicts(node)
        if not _included(c, verdicts):
            continue
        v = labels[c.topology_key]
        m = s.tp_value_to_match_num[i]
        m[v] = m.get(v, 0) + delta
        s.critical_paths[i].update(v, m[v])


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
            cnt = s.counters[i](node.pods, ns)
        else:
            cnt = s.topology_value_to_pod_counts[i].get(value, 0)
        score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
    return go_round(score)


def _not_found(key: str) -> Status:
    return Status(Code.Error, err=f'reading "{key}" from cycleState: not found')


def _pre_score_not_found() -> Status:
    return Status(Code.Error, err=f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: '
                                  "not found")


# -- PodTopologySpreadArgs (apis/config: defaults.go, validation_pluginargs.go) ----------------
def default_args(args: dict | None) -> dict:
    """``SetDefaults_PodTopologySpreadArgs`` on a copy: defaultingType System."""
    out = dict(args or {})
    if not out.get("defaultingType"):
        out["defaultingType"] = SYSTEM_DEFAULTING
    return out


def _q(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(v)


def validate_args(args: dict, path: str = "") -> list[str]:
    """``ValidatePodTopologySpreadArgs``, in its words (field paths under ``path``)."""
    prefix = f"{path}." if path else ""
    errs: list[str] = []
    dtype = args.get("defaultingType", "")
    constraints = args.get("defaultConstraints") or []
    if dtype not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(f'{prefix}defaultingType: Unsupported value: {_q(dtype)}: supported values: '
                    f'"{SYSTEM_DEFAULTING}", "{LIST_DEFAULTING}"')
    elif dtype == SYSTEM_DEFAULTING and constraints:
        errs.append(f"{prefix}defaultingType: Invalid value: {_q(dtype)}: when "
                    ".defaultConstraints are not empty")
    cpath = f"{prefix}defaultConstraints"
    for i, c in enumerate(constraints):
        p = f"{cpath}[{i}]"
        skew = c.get("maxSkew", 0)
        if not isinstance(skew, int) or skew <= 0:
            errs.append(f"{p}.maxSkew: Invalid value: {_q(skew)}: not in valid range (0, inf)")
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(f"{p}.topologyKey: Required value: can not be empty")
        else:
            errs += [f"{p}.topologyKey: Invalid value: {_q(key)}: {m}"
                     for m in label_key_errors(key)]
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(f"{p}.whenUnsatisfiable: Required value: can not be empty")
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(f"{p}.whenUnsatisfiable: Unsupported value: {_q(when)}: supported "
                        f'values: "{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"')
        if c.get("labelSelector") is not None:
            errs.append(f"{p}.labelSelector: Forbidden: constraint must not define a selector, "
                        "as they deduced for each pod")
        for other in constraints[:i]:
            if (other.get("topologyKey") == c.get("topologyKey")
                    and other.get("whenUnsatisfiable") == c.get("whenUnsatisfiable")):
                errs.append(f'{p}: Duplicate value: "{{{key}, {when}}}"')
                break
    return errs


def _aggregate(errs: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``."""
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


# -- the plugin --------------------------------------------------------------------------------
class PodTopologySpread(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin,
                        ScorePlugin):
    """The plugin. Default constraints need the pod's owners and services: pass
    ``default_selector(pod) -> LabelSelector`` or ``list_objects(kind, namespace)``; without
    either, ``handle.list_objects`` is used when the handle has it, else no default constraints
    apply (upstream would refuse to start without its informers)."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Handle | None = None, *,
                 default_selector: DefaultSelectorFunc | None = None,
                 list_objects: ObjectLister | None = None) -> None:
        super().__init__(args, handle)
        a = default_args(self.args)
        errs = validate_args(a)
        if errs:
            raise ValueError(_aggregate(errs))
        self.defaulting_type: str = a["defaultingType"]
        self.system_defaulted = self.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[dict, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted
            else tuple(a.get("defaultConstraints") or ()))
        self._default_selector_fn = default_selector
        self._list_objects = list_objects

    # -- constraints of a pod --------------------------------------------------------------
    def _default_selector(self, state: CycleState | None, pod: PodInfo) -> LabelSelector:
        if state is not None:
            cached = state.get(_DEFAULT_SELECTOR_KEY)
            if cached is not None:
                return cached
        if self._default_selector_fn is not None:
            sel = self._default_selector_fn(pod.pod) or LabelSelector.everything()
        else:
            lister = self._list_objects or getattr(self.handle, "list_objects", None)
            if lister is None:
                sel = LabelSelector.everything()
            else:
                ns = pod.namespace
                sel = default_selector(pod.pod, lister("Service", ns),
                                       lister("ReplicationController", ns),
                                       lister("ReplicaSet", ns), lister("StatefulSet", ns))
        if state is not None:
            state.write(_DEFAULT_SELECTOR_KEY, sel)
        return sel

    def build_default_constraints(self, state: CycleState | None, pod: PodInfo,
                                  action: str) -> list[Constraint]:
        """``buildDefaultConstraints``: the default constraints for ``action`` with the pod's
        DefaultSelector; none when that selector is empty."""
        labels = (pod.pod.get("metadata") or {}).get("labels") or {}
        constraints = filter_constraints(self.default_constraints, labels, action)
        if not constraints:
            return []
        selector = self._default_selector(state, pod)
        if selector.empty:
            return []
        return [Constraint(c.max_skew, c.topology_key, selector, c.min_domains,
                           c.node_affinity_policy, c.node_taints_policy) for c in constraints]

    def constraints(self, state: CycleState | None, pod: PodInfo, action: str
                    ) -> list[Constraint]:
        """The pod's own constraints for ``action``, or the default ones when it has none.

        Raises ValueError worded as upstream's ``getConstraints`` / ``initPreScoreState``.
        """
        spec_constraints = (pod.pod.get("spec") or {}).get("topologySpreadConstraints")
        hard = action == DO_NOT_SCHEDULE
        if spec_constraints:
            labels = (pod.pod.get("metadata") or {}).get("labels") or {}
            try:
                return filter_constraints(spec_constraints, labels, action)
            except ValueError as e:
                kind = "hard" if hard else "soft"
                raise ValueError(
                    f"obtaining pod's {kind} topology spread constraints: {e}") from None
        try:
            return self.build_default_constraints(state, pod, action)
        except ValueError as e:
            kind = "hard" if hard else "soft"
            raise ValueError(f"setting default {kind} topology spread constraints: {e}") from None

    # -- PreFilter ---------------------------------------------------------------------------
    def cal_pre_filter_state(self, state: CycleState | None, pod: PodInfo,
                             nodes: list[NodeInfo]) -> PreFilterState:
        """``calPreFilterState``: matching pods per topology value over every eligible node."""
        constraints = self.constraints(state, pod, DO_NOT_SCHEDULE)
        if not constraints:
            return PreFilterState()
        ns = pod.namespace
        pod_labels = (pod.pod.get("metadata") or {}).get("labels") or {}
        inclusion = _NodeInclusion(pod.pod, constraints)
        group, counters = _selector_groups(constraints)
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
                        cnt = per_group[g] = counters[g](ni.pods, ns)
                    v = labels[key]
                    m[v] = m.get(v, 0) + cnt
        paths = []
        for m in counts:
            p = CriticalPaths()
            for v, n in m.items():
                p.update(v, n)
            paths.append(p)
        return PreFilterState(constraints, paths, counts,
                              [c.selector.matches(pod_labels) for c in constraints])

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        try:
            s = self.cal_pre_filter_state(state, pod, nodes)
        except ValueError as e:
            return None, Status(Code.Error, err=f"get constraints from pod: {e}")
        if not s.constraints:
            return None, _SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        update_with_pod(s, pod_to_add, pod_to_schedule, node_info, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        update_with_pod(s, pod_to_remove, pod_to_schedule, node_info, -1)
        return None

    # -- Filter ------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        return fits(s, node.labels)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        """Filter bound to this cycle's state (read at each call, so AddPod/RemovePod on the
        same state still count); None when the pod has no hard constraints."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return lambda node: _not_found(PRE_FILTER_STATE_KEY)
        if not s.constraints:
            return None
        return lambda node: fits(s, node.labels)

    # -- PreScore ----------------------------------------------------------------------------
    def init_pre_score_state(self, state: CycleState | None, pod: PodInfo,
                             filtered: list[NodeInfo], require_all: bool) -> PreScoreState:
        """``initPreScoreState``: soft constraints, ignored nodes, domains and weights."""
        s = PreScoreState()
        s.constraints = self.constraints(state, pod, SCHEDULE_ANYWAY)
        if not s.constraints:
            return s
        s.topology_value_to_pod_counts = [{} for _ in s.constraints]
        s.counters = [_counter(c.selector) for c in s.constraints]
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

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return _SKIP
        # Only non-system-default spreading requires nodes to carry every topology key, so nodes
        # without a zone label still get hostname spreading.
        require_all = bool((pod.pod.get("spec") or {}).get("topologySpreadConstraints")) \
            or not self.system_defaulted
        try:
            s = self.init_pre_score_state(state, pod, nodes, require_all)
        except ValueError as e:
            return Status(Code.Error, err=f"calculating preScoreState: {e}")
        if not s.constraints:
            return _SKIP
        ns = pod.namespace
        inclusion = _NodeInclusion(pod.pod, s.constraints)
        check = inclusion.need_affinity or inclusion.need_taints
        group, counters = _selector_groups(s.constraints)
        counts = s.topology_value_to_pod_counts
        active = [i for i in range(len(s.constraints)) if counts[i]]
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
                        if not _included(c, verdicts):
                            continue
                    g = group[i]
                    cnt = per_group[g]
                    if cnt is None:
                        cnt = per_group[g] = counters[g](ni.pods, ns)
                    m[value] += cnt
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    # -- Score -------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo
              ) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, _pre_score_not_found()
        return node_score(s, node, pod.namespace), None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> list[int] | Status:
        """Score for every node at once (the runtime's batch path)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _pre_score_not_found()
        ns = pod.namespace
        return [node_score(s, ni, ns) for ni in nodes]

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _pre_score_not_found()
        normalize_scores(scores, s.ignored_nodes)
        return None
