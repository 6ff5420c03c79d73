"""InterPodAffinity: required pod (anti-)affinity filters, preferred pod (anti-)affinity scores.

Upstream (v1.35): pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (PreFilter,
AddPod/RemovePod, Filter and the reasons), scoring.go (PreScore, Score, NormalizeScore), plugin.go
(``New``, ``mergeAffinityTermNamespacesIfNotEmpty``, ``GetNamespaceLabelsSnapshot``),
pkg/scheduler/framework/types.go and staging/src/k8s.io/kube-scheduler/framework/types.go
(``AffinityTerm`` and ``Matches``, ``WeightedAffinityTerm``, ``PodInfo.Update`` parsing the
Required/Preferred(Anti)AffinityTerms, ``getNamespacesFromPodAffinityTerm``), and
pkg/scheduler/apis/config/validation/validation_pluginargs.go (``ValidateInterPodAffinityArgs``).

Terms. A PodAffinityTerm becomes (namespaces, selector, topologyKey, namespaceSelector): a nil
labelSelector selects nothing; the namespaces are the listed ones, or the pod's own namespace
when the list is empty and namespaceSelector is null; a null namespaceSelector selects no
namespace and ``{}`` selects every namespace. A pod matches a term when its namespace is listed
or its namespace's labels match namespaceSelector, and its labels match the selector.
matchLabelKeys / mismatchLabelKeys are not read here: since v1.33 (GA) the API server merges them
into labelSelector when the pod is created (kubesim.api.defaults does the same).
For the incoming pod, a namespaceSelector other than ``{}`` is unrolled once per cycle into the
names of the namespaces it selects (and then selects nothing itself); existing pods' selectors
are evaluated against the incoming pod's namespace labels.

PreFilter counts, per (topologyKey, value) of the nodes: existing pods whose required
anti-affinity terms match the incoming pod (one per matching term), existing pods matching ALL of
the incoming pod's required affinity terms (one per term), and existing pods matching each of its
required anti-affinity terms. It returns Skip when the first count is empty and the pod has no
required (anti-)affinity terms, and UnschedulableAndUnresolvable "parsing pod: ..." when a selector
does not parse. AddPod/RemovePod adjust the counts (preemption, nominated pods).

Filter, in this order: every affinity term's topologyKey must be a node label and some matching
pod must share its value — except for the first pod of a series: when no pod in the cluster
matches and the pod matches all its own terms, any node carrying the keys passes —
UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules"; then Unschedulable
"node(s) didn't match pod anti-affinity rules" when a pod matching an anti-affinity term shares
the node's topology value; then Unschedulable "node(s) didn't satisfy existing pods anti-affinity
rules" when any of the node's label pairs carries an existing pod's matching anti-affinity term.

PreScore builds topologyKey -> value -> score: for each existing pod (on every node of the
snapshot, not only the feasible ones), +weight per preferred affinity term and -weight per
preferred anti-affinity term of the incoming pod the existing pod matches; +hardPodAffinityWeight
per required affinity term of the existing pod the incoming pod matches; +weight / -weight per
preferred affinity / anti-affinity term of the existing pod the incoming pod matches — each at the
existing pod's node's value of the term's topologyKey. Without preferred terms on the incoming pod
only pods with affinity are visited, and with ignorePreferredTermsOfExistingPods PreScore skips
outright; it also skips when nothing was recorded. Score sums the node's entries; NormalizeScore
maps [min, max] onto [0, 100] as ``int(100.0 * (s - min) / (max - min))`` (all 0 when max == min).
EventsToRegister (queueing hints on, plugin.go): Pod Add|UpdatePodLabel|Delete, Queue for a
scheduled pod added matching all the pod's affinity terms, updated to match them or to stop
matching all its anti-affinity terms, or deleted while matching all its anti-affinity terms
(``isSchedulableAfterPodChange``); Node Add|UpdateNodeLabel, Queue for a node added or given an
affinity term's topology key (or a new value of it), and for any node added, or losing or
changing an anti-affinity term's key, when the pod has anti-affinity terms
(``isSchedulableAfterNodeChange``). A term's namespaceSelector is matched against no labels
there, as upstream's hints do.
Legacy names: MatchInterPodAffinity / InterPodAffinityPriority.

kubesim specifics, for speed at 5,000 nodes: over the snapshot's nodes, PreFilter's incoming
counts and PreScore visit groups of pods rather than pods (kubesim/scheduler/framework/
pod_groups.py): the existing pods by (namespace, labels) for the incoming pod's terms, and the
pods with affinity by the terms they hold (``affinity_terms_group``) for theirs; each term is
decided once per group and the group's pods are added per topology value — the sums upstream
makes pod by pod. PreScore keeps those sums only at the topology values of the nodes it is
given (the nodes Score then scores), so a hostname term costs the scored nodes, not the
cluster's; it still skips exactly when upstream's map would be empty. Score and NormalizeScore
also run over all the scored nodes at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kubesim.api.record import FrozenRecord, IdentityRecord
from kubesim.api.selectors import LabelSelector, from_label_selector
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeScore,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.pod_groups import MatchGroup, PodGroups, match_group
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "InterPodAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = \
    "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
# Older releases put this generic reason before the specific one; v1.35 no longer has it.
ERR_REASON_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100

_NOTHING = LabelSelector.nothing()

TopologyPair = tuple[str, str]
NamespaceLabels = Mapping[str, Mapping[str, str]]


# -- terms (types.go) ---------------------------------------------------------------------------
class AffinityTerm(IdentityRecord):
    """A parsed PodAffinityTerm. Compared by identity: equal terms of existing pods are interned
    to one object, so a cycle can remember a term's verdict on the incoming pod."""

    __slots__ = ("namespace_selector", "namespaces", "selector", "topology_key")

    def __init__(self, namespaces: frozenset[str], selector: LabelSelector, topology_key: str,
                 namespace_selector: LabelSelector):
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector

    def matches(self, namespace: str, labels: Mapping[str, str],
                ns_labels: Mapping[str, str] | None) -> bool:
        """``AffinityTerm.Matches``: namespace listed or selected, then the labels selected."""
        if namespace in self.namespaces or self.namespace_selector.matches(ns_labels):
            return self.selector.matches(labels)
        return False


class WeightedAffinityTerm(IdentityRecord):
    __slots__ = ("term", "weight")

    def __init__(self, term: AffinityTerm, weight: int):
        self.term = term
        self.weight = weight


_INTERNED: dict[tuple, AffinityTerm] = {}
_MATCH_KEYS: dict[tuple, tuple] = {}
_INTERN_LIMIT = 1 << 16


def _intern(term: AffinityTerm) -> AffinityTerm:
    key = (term.namespaces, term.selector, term.topology_key, term.namespace_selector)
    hit = _INTERNED.get(key)
    if hit is not None:
        return hit
    if len(_INTERNED) >= _INTERN_LIMIT:
        _INTERNED.clear()
    _INTERNED[key] = term
    return term


def term_namespaces(pod_namespace: str, term: dict) -> frozenset[str]:
    """``getNamespacesFromPodAffinityTerm``: the listed names, or the pod's own namespace when
    none are listed and namespaceSelector is null."""
    names = term.get("namespaces") or ()
    if not names and term.get("namespaceSelector") is None:
        return frozenset((pod_namespace,))
    return frozenset(names)


def new_affinity_term(pod_namespace: str, term: dict) -> AffinityTerm:
    """``newAffinityTerm``; raises ValueError (upstream's text) for a selector that won't parse."""
    selector = from_label_selector(term.get("labelSelector"))
    namespaces = term_namespaces(pod_namespace, term)
    ns_selector = from_label_selector(term.get("namespaceSelector"))
    return _intern(AffinityTerm(namespaces, selector, term.get("topologyKey") or "", ns_selector))


def get_affinity_terms(pod_namespace: str, terms: Iterable[dict] | None
                       ) -> tuple[AffinityTerm, ...]:
    """``GetAffinityTerms``: all terms, or ValueError at the first one that does not parse."""
    return tuple(new_affinity_term(pod_namespace, t) for t in terms or ())


def get_weighted_affinity_terms(pod_namespace: str, terms: Iterable[dict] | None
                                ) -> tuple[WeightedAffinityTerm, ...]:
    return tuple(WeightedAffinityTerm(new_affinity_term(pod_namespace,
                                                        t.get("podAffinityTerm") or {}),
                                      int(t.get("weight") or 0))
                 for t in terms or ())


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message alone, several (deduplicated) in []."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


class PodAffinityInfo:
    """What ``PodInfo.Update`` precomputes about a pod's pod (anti-)affinity.

    A group whose selector does not parse is left empty and its error recorded (as upstream,
    which keeps the pod in the cache with the other groups).
    """

    __slots__ = (
        "error",
        "labels",
        "match_key",
        "namespace",
        "pod",
        "preferred_affinity",
        "preferred_anti_affinity",
        "required_affinity",
        "required_anti_affinity",
        "scores_incoming",
    )

    def __init__(self, pod: dict, namespace: str) -> None:
        meta = pod.get("metadata") or {}
        affinity = (pod.get("spec") or {}).get("affinity") or {}
        aff = affinity.get("podAffinity") or {}
        anti = affinity.get("podAntiAffinity") or {}
        self.pod = pod
        self.namespace = namespace
        self.labels: Mapping[str, str] = meta.get("labels") or {}
        # What a term can look at: pods with equal keys match the same terms. Interned, so the
        # per-cycle verdict lookups mostly compare by identity.
        key = (namespace, frozenset(self.labels.items()))
        hit = _MATCH_KEYS.get(key)
        if hit is None:
            if len(_MATCH_KEYS) >= _INTERN_LIMIT:
                _MATCH_KEYS.clear()
            hit = _MATCH_KEYS[key] = key
        self.match_key = hit
        if not aff and not anti:  # (no term to parse: most pods)
            self.required_affinity = self.required_anti_affinity = ()
            self.preferred_affinity = self.preferred_anti_affinity = ()
            self.error = None
            self.scores_incoming = False
            return
        errors: list[str] = []

        def parse(what: str, fn, terms):
            try:
                return fn(namespace, terms)
            except ValueError as e:
                errors.append(f"{what}: {e}")
                return ()

        self.required_affinity: tuple[AffinityTerm, ...] = parse(
            "requiredAffinityTerms", get_affinity_terms,
            aff.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.required_anti_affinity: tuple[AffinityTerm, ...] = parse(
            "requiredAntiAffinityTerms", get_affinity_terms,
            anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.preferred_affinity: tuple[WeightedAffinityTerm, ...] = parse(
            "preferredAffinityTerms", get_weighted_affinity_terms,
            aff.get("preferredDuringSchedulingIgnoredDuringExecution"))
        self.preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = parse(
            "preferredAntiAffinityTerms", get_weighted_affinity_terms,
            anti.get("preferredDuringSchedulingIgnoredDuringExecution"))
        self.error: str | None = _aggregate(errors) if errors else None
        # As an existing pod, does it hold any term an incoming pod can score against?
        self.scores_incoming = bool(self.required_affinity or self.preferred_affinity
                                    or self.preferred_anti_affinity)


def pod_affinity_info(pi: PodInfo) -> PodAffinityInfo:
    """The parsed terms of a pod, cached on its PodInfo (parsed once per pod version)."""
    info = pi.scratch.get(NAME)
    if info is None or info.pod is not pi.pod:
        info = PodAffinityInfo(pi.pod, pi.namespace)
        pi.scratch[NAME] = info
    return info


def _has_preferred(pod: dict, kind: str) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    return bool((affinity.get(kind) or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))


# -- namespaces (plugin.go) -------------------------------------------------------------------
def merge_term_namespaces(term: AffinityTerm, namespace_labels: NamespaceLabels) -> AffinityTerm:
    """``mergeAffinityTermNamespacesIfNotEmpty`` on a copy: unless namespaceSelector is ``{}``,
    add the namespaces it selects to the names and make it select nothing."""
    sel = term.namespace_selector
    if sel.empty or sel.matches_nothing:  # a null selector lists no namespace: nothing to add
        return term
    selected = [name for name, labels in namespace_labels.items() if sel.matches(labels)]
    return term._replace(namespaces=term.namespaces.union(selected), namespace_selector=_NOTHING)


def _merged(terms: tuple[AffinityTerm, ...], ns: NamespaceLabels) -> tuple[AffinityTerm, ...]:
    return tuple(merge_term_namespaces(t, ns) for t in terms)


def _merged_weighted(terms: tuple[WeightedAffinityTerm, ...], ns: NamespaceLabels
                     ) -> tuple[WeightedAffinityTerm, ...]:
    return tuple(WeightedAffinityTerm(merge_term_namespaces(w.term, ns), w.weight) for w in terms)


def pod_matches_all_terms(terms: tuple[AffinityTerm, ...], namespace: str,
                          labels: Mapping[str, str]) -> bool:
    """``podMatchesAllAffinityTerms`` for the incoming pod's (merged) terms; no terms: False."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(namespace, labels, None):
            return False
    return True


# -- PreFilter state (filtering.go) -----------------------------------------------------------
def _update(counts: dict[TopologyPair, int], node_labels: Mapping[str, str], key: str,
            value: int) -> None:
    tv = node_labels.get(key)
    if tv is not None:
        pair = (key, tv)
        n = counts.get(pair, 0) + value
        if n == 0:
            counts.pop(pair, None)
        else:
            counts[pair] = n


class _PreFilterState(FrozenRecord):
    __slots__ = ("affinity_counts", "anti_affinity_counts", "existing_anti_affinity_counts", "existing_keys",
                 "labels", "namespace", "namespace_labels", "required_affinity", "required_anti_affinity")

    def __init__(self, existing_anti_affinity_counts: dict[TopologyPair, int],
                 affinity_counts: dict[TopologyPair, int], anti_affinity_counts: dict[TopologyPair, int],
                 required_affinity: tuple[AffinityTerm, ...], required_anti_affinity: tuple[AffinityTerm, ...],
                 namespace: str, labels: Mapping[str, str], namespace_labels: Mapping[str, str] | None,
                 existing_keys: set[str]):
        self.existing_anti_affinity_counts = existing_anti_affinity_counts
        self.affinity_counts = affinity_counts
        self.anti_affinity_counts = anti_affinity_counts
        # The incoming pod: its merged required terms, namespace, labels and namespace labels.
        self.required_affinity = required_affinity
        self.required_anti_affinity = required_anti_affinity
        self.namespace = namespace
        self.labels = labels
        self.namespace_labels = namespace_labels
        # Topology keys seen in existing_anti_affinity_counts (a superset after RemovePod).
        self.existing_keys = existing_keys

    def clone(self) -> _PreFilterState:
        return self._replace(existing_anti_affinity_counts=dict(self.existing_anti_affinity_counts),
                             affinity_counts=dict(self.affinity_counts),
                             anti_affinity_counts=dict(self.anti_affinity_counts),
                             existing_keys=set(self.existing_keys))

    def update_with_pod(self, pi: PodInfo, node_labels: Mapping[str, str], multiplier: int
                        ) -> None:
        """``preFilterState.updateWithPod``: count (multiplier 1) or uncount (-1) a pod."""
        info = pod_affinity_info(pi)
        for t in info.required_anti_affinity:
            if t.matches(self.namespace, self.labels, self.namespace_labels):
                _update(self.existing_anti_affinity_counts, node_labels, t.topology_key,
                        multiplier)
                self.existing_keys.add(t.topology_key)
        if pod_matches_all_terms(self.required_affinity, pi.namespace, info.labels):
            for t in self.required_affinity:
                _update(self.affinity_counts, node_labels, t.topology_key, multiplier)
        for t in self.required_anti_affinity:
            if t.matches(pi.namespace, info.labels, None):
                _update(self.anti_affinity_counts, node_labels, t.topology_key, multiplier)


def existing_anti_affinity_counts(namespace: str, labels: Mapping[str, str],
                                  ns_labels: Mapping[str, str] | None,
                                  nodes: Iterable[NodeInfo]) -> dict[TopologyPair, int]:
    """``getExistingAntiAffinityCounts``: per topology pair, the existing pods' required
    anti-affinity terms that match the incoming pod (each distinct term is tried once)."""
    counts: dict[TopologyPair, int] = {}
    verdicts: dict[AffinityTerm, bool] = {}
    for ni in nodes:
        holders = ni.pods_with_required_anti_affinity
        if not holders:
            continue
        node_labels = ni.labels
        for ep in holders:
            info = ep.scratch.get(NAME)
            if info is None or info.pod is not ep.pod:
                info = pod_affinity_info(ep)
            for t in info.required_anti_affinity:
                hit = verdicts.get(t)
                if hit is None:
                    hit = verdicts[t] = t.matches(namespace, labels, ns_labels)
                if hit:
                    tv = node_labels.get(t.topology_key)
                    if tv is not None:
                        pair = (t.topology_key, tv)
                        counts[pair] = counts.get(pair, 0) + 1
    return counts


def existing_anti_affinity_counts_by_group(namespace: str, labels: Mapping[str, str],
                                           ns_labels: Mapping[str, str] | None,
                                           groups: PodGroups) -> dict[TopologyPair, int]:
    """``existing_anti_affinity_counts`` over every node of the snapshot, from its pods with
    affinity counted by their required anti-affinity terms (``anti_affinity_terms_group``) per
    topology value: each distinct term decided once, then its holders added per (topologyKey,
    value) — the same sums."""
    counts: dict[TopologyPair, int] = {}
    for _, key, per_value in matched_term_domains(groups, _with_none, namespace, labels, ns_labels):
        if counts:
            get = counts.get
            for tv, n in per_value.items():
                pair = (key, tv)
                counts[pair] = get(pair, 0) + n
        else:
            counts = {(key, tv): n for tv, n in per_value.items()}
    return counts


def _with_none(sig: tuple[AffinityTerm, ...]) -> Iterable[tuple[AffinityTerm, None]]:
    return ((t, None) for t in sig)


def matched_term_domains(groups: PodGroups, terms_of: Callable, namespace: str, labels: Mapping[str, str],
                         ns_labels: Mapping[str, str] | None) -> Iterable[tuple[object, str, dict[str, int]]]:
    """For the existing pods grouped by their terms (``groups``; ``terms_of(signature)`` gives
    each group's (term, extra) pairs), every term the incoming pod matches, as (extra,
    topologyKey, that group's pods per topology value): each distinct term decided once."""
    verdicts: dict[AffinityTerm, bool] = {}
    for sig in groups.totals():
        for term, extra in terms_of(sig):
            hit = verdicts.get(term)
            if hit is None:
                hit = verdicts[term] = term.matches(namespace, labels, ns_labels)
            if hit:
                key = term.topology_key
                per_value = groups.domains((key,), key).counts.get(sig)
                if per_value:
                    yield extra, key, per_value


def anti_affinity_terms_group(pi: PodInfo) -> tuple[AffinityTerm, ...] | None:
    """An existing pod's required anti-affinity terms (``PodGroups`` key); None without."""
    info = pi.scratch.get(NAME)
    if info is None or info.pod is not pi.pod:
        info = pod_affinity_info(pi)
    return info.required_anti_affinity or None


def incoming_affinity_anti_affinity_counts(
        required_affinity: tuple[AffinityTerm, ...],
        required_anti_affinity: tuple[AffinityTerm, ...],
        nodes: Iterable[NodeInfo]) -> tuple[dict[TopologyPair, int], dict[TopologyPair, int]]:
    """``getIncomingAffinityAntiAffinityCounts``: per topology pair, the existing pods matching
    all the affinity terms (once per term) and each anti-affinity term.

    Pods with the same namespace and labels get the same verdicts, so those are computed once
    per distinct (namespace, labels) and reused.
    """
    affinity: dict[TopologyPair, int] = {}
    anti: dict[TopologyPair, int] = {}
    if not required_affinity and not required_anti_affinity:
        return affinity, anti
    verdicts: dict[tuple, tuple[bool, tuple[AffinityTerm, ...]]] = {}
    for ni in nodes:
        pods = ni.pods
        if not pods:
            continue
        node_labels = None
        for ep in pods:
            info = ep.scratch.get(NAME)
            if info is None or info.pod is not ep.pod:
                info = pod_affinity_info(ep)
            key = info.match_key
            verdict = verdicts.get(key)
            if verdict is None:
                ns, labels = ep.namespace, info.labels
                verdict = verdicts[key] = (
                    pod_matches_all_terms(required_affinity, ns, labels),
                    tuple(t for t in required_anti_affinity if t.matches(ns, labels, None)))
            matches_all, anti_hits = verdict
            if not matches_all and not anti_hits:
                continue
            if node_labels is None:
                node_labels = ni.labels
            if matches_all:
                for t in required_affinity:
                    tv = node_labels.get(t.topology_key)
                    if tv is not None:
                        pair = (t.topology_key, tv)
                        affinity[pair] = affinity.get(pair, 0) + 1
            for t in anti_hits:
                tv = node_labels.get(t.topology_key)
                if tv is not None:
                    pair = (t.topology_key, tv)
                    anti[pair] = anti.get(pair, 0) + 1
    return affinity, anti


def incoming_affinity_anti_affinity_counts_by_group(
        required_affinity: tuple[AffinityTerm, ...],
        required_anti_affinity: tuple[AffinityTerm, ...],
        groups: PodGroups | None) -> tuple[dict[TopologyPair, int], dict[TopologyPair, int]]:
    """``incoming_affinity_anti_affinity_counts`` over every node of the snapshot, from its pods
    counted by namespace and labels (``match_group``) per topology value: each term decided once
    per group, then the group's pods added per (topologyKey, value) — the same sums."""
    affinity: dict[TopologyPair, int] = {}
    anti: dict[TopologyPair, int] = {}
    if groups is None or (not required_affinity and not required_anti_affinity):
        return affinity, anti
    matches_all: dict[MatchGroup, bool] = {}
    for t in required_affinity:
        key = t.topology_key
        for g, per_value in groups.domains((key,), key).counts.items():
            hit = matches_all.get(g)
            if hit is None:
                hit = matches_all[g] = pod_matches_all_terms(required_affinity, g.namespace,
                                                             g.labels)
            if hit:
                for tv, n in per_value.items():
                    pair = (key, tv)
                    affinity[pair] = affinity.get(pair, 0) + n
    for t in required_anti_affinity:
        key = t.topology_key
        for g, per_value in groups.domains((key,), key).counts.items():
            if t.matches(g.namespace, g.labels, None):
                for tv, n in per_value.items():
                    pair = (key, tv)
                    anti[pair] = anti.get(pair, 0) + n
    return affinity, anti


# -- Filter (filtering.go) --------------------------------------------------------------------
def satisfy_existing_pods_anti_affinity(s: _PreFilterState, node_labels: Mapping[str, str]
                                        ) -> bool:
    """No label pair of the node carries an existing pod's anti-affinity term matching the pod."""
    counts = s.existing_anti_affinity_counts
    if counts:
        for key in s.existing_keys:
            tv = node_labels.get(key)
            if tv is not None and counts.get((key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(s: _PreFilterState, node_labels: Mapping[str, str]) -> bool:
    counts = s.anti_affinity_counts
    if counts:
        for t in s.required_anti_affinity:
            tv = node_labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(s: _PreFilterState, node_labels: Mapping[str, str]) -> bool:
    pods_exist = True
    counts = s.affinity_counts
    for t in s.required_affinity:
        tv = node_labels.get(t.topology_key)
        if tv is None:
            return False  # every topology key must be a label of the node
        if counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # The first pod of a series with affinity to itself: nothing in the cluster matches yet.
    return not counts and pod_matches_all_terms(s.required_affinity, s.namespace, s.labels)


def filter_status(s: _PreFilterState, node_labels: Mapping[str, str]) -> Status | None:
    """The Filter decision on one node's labels."""
    if s.required_affinity and not satisfy_pod_affinity(s, node_labels):
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
    if s.anti_affinity_counts and not satisfy_pod_anti_affinity(s, node_labels):
        return Status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
    if s.existing_anti_affinity_counts and not satisfy_existing_pods_anti_affinity(s,
                                                                                   node_labels):
        return Status(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
    return None


# -- scoring (scoring.go) ---------------------------------------------------------------------
ScoreMap = dict[str, dict[str, int]]


class _PreScoreState(FrozenRecord):
    __slots__ = ("topology_score",)

    def __init__(self, topology_score: ScoreMap):
        self.topology_score = topology_score


def _add(score: ScoreMap, key: str, value: str, amount: int) -> None:
    values = score.get(key)
    if values is None:
        values = score[key] = {}
    values[value] = values.get(value, 0) + amount


def node_score(topology_score: ScoreMap, node_labels: Mapping[str, str]) -> int:
    """Score: the sum of the node's (topologyKey, value) entries."""
    total = 0
    for key, values in topology_score.items():
        tv = node_labels.get(key)
        if tv is not None:
            total += values.get(tv, 0)
    return total


def normalize(scores: list[int]) -> list[int]:
    """NormalizeScore's arithmetic: [min, max] onto [0, MaxNodeScore] in float64, truncated."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    diff = hi - lo
    if diff <= 0:
        return [0] * len(scores)
    return [int(float(MAX_NODE_SCORE) * (float(s - lo) / float(diff))) for s in scores]


# -- args -------------------------------------------------------------------------------------
def validate_args(args: dict, path: str = "") -> list[str]:
    """``ValidateInterPodAffinityArgs``: hardPodAffinityWeight within [0, 100]."""
    prefix = f"{path}." if path else ""
    w = args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if (not isinstance(w, int) or isinstance(w, bool) or w < MIN_HARD_POD_AFFINITY_WEIGHT
            or w > MAX_HARD_POD_AFFINITY_WEIGHT):
        return [(f"{prefix}hardPodAffinityWeight: Invalid value: {w}: not in valid range "
                 f"[{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]")]
    return []


# -- the plugin -------------------------------------------------------------------------------
class InterPodAffinity(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin,
                       ScorePlugin, EnqueueExtensions):
    """Args: ``hardPodAffinityWeight`` (default 1) and ``ignorePreferredTermsOfExistingPods``.

    Namespace labels (for namespaceSelector) come from, in order: the ``namespace_labels``
    argument (a mapping name -> labels, or a callable returning one), ``handle.namespace_labels``,
    ``handle.snapshot.namespace_labels``; none of them means no namespace has labels.
    """

    name = NAME

    def __init__(self, args: dict | None = None, handle: Handle | None = None, *,
                 namespace_labels: NamespaceLabels | Callable[[], NamespaceLabels] | None = None
                 ) -> None:
        super().__init__(args, handle)
        errs = validate_args(self.args)
        if errs:
            raise ValueError(errs[0])
        self.hard_pod_affinity_weight: int = self.args.get("hardPodAffinityWeight",
                                                           DEFAULT_HARD_POD_AFFINITY_WEIGHT)
        self.ignore_preferred_terms_of_existing_pods: bool = bool(
            self.args.get("ignorePreferredTermsOfExistingPods", False))
        self._namespace_labels = namespace_labels

    def namespace_labels(self) -> NamespaceLabels:
        """Every namespace's labels, as the namespace lister would list them now."""
        src = self._namespace_labels
        if src is None:
            src = getattr(self.handle, "namespace_labels", None)
        if src is None:
            src = getattr(self.handle.snapshot, "namespace_labels", None)
        if callable(src):
            src = src()
        return src or {}

    # -- EnqueueExtensions (plugin.go) -----------------------------------------------------
    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE),
                self.is_schedulable_after_pod_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL),
                                    self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: dict, old: dict | None,
                                        new: dict | None) -> int:
        if (new is not None and not (new.get("spec") or {}).get("nodeName")) or \
                (old is not None and not (old.get("spec") or {}).get("nodeName")):
            return ev.QUEUE_SKIP
        terms, anti_terms = _required_terms(pod)

        def matches_all(ts, p: dict) -> bool:
            md = p.get("metadata") or {}
            return pod_matches_all_terms(ts, md.get("namespace") or "", md.get("labels") or {})

        if new is not None and old is not None:
            if not matches_all(terms, old) and matches_all(terms, new):
                return ev.QUEUE
            if matches_all(anti_terms, old) and not matches_all(anti_terms, new):
                return ev.QUEUE
            return ev.QUEUE_SKIP
        if new is not None:
            return ev.QUEUE if matches_all(terms, new) else ev.QUEUE_SKIP
        assert old is not None
        return ev.QUEUE if matches_all(anti_terms, old) else ev.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None, new: dict) -> int:
        terms, anti_terms = _required_terms(pod)
        new_labels = (new.get("metadata") or {}).get("labels") or {}
        old_labels = (old.get("metadata") or {}).get("labels") or {} if old is not None else None
        for t in terms:
            key = t.topology_key
            if old_labels is None:
                if key in new_labels:
                    return ev.QUEUE
                continue
            if key in new_labels and (key not in old_labels or old_labels[key] != new_labels[key]):
                return ev.QUEUE
        for t in anti_terms:
            if old_labels is None:
                return ev.QUEUE
            key = t.topology_key
            if key in old_labels and (key not in new_labels
                                      or old_labels[key] != new_labels[key]):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    # -- PreFilter -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        info = pod_affinity_info(pod)
        if info.error is not None:
            return None, Status(Code.UnschedulableAndUnresolvable, f"parsing pod: {info.error}")
        all_ns = self.namespace_labels()
        required_affinity = _merged(info.required_affinity, all_ns)
        required_anti_affinity = _merged(info.required_anti_affinity, all_ns)
        ns_labels = all_ns.get(pod.namespace)
        snapshot = self.handle.snapshot
        # Only nodes holding pods with required anti-affinity contribute; for the snapshot's own
        # list, those pods are counted by their terms per topology value between cycles.
        if nodes is snapshot.node_info_list:
            existing = existing_anti_affinity_counts_by_group(
                pod.namespace, info.labels, ns_labels,
                snapshot.pod_groups(anti_affinity_terms_group, affinity_only=True))
        else:
            existing = existing_anti_affinity_counts(pod.namespace, info.labels, ns_labels, nodes)
        if nodes is snapshot.node_info_list:
            affinity, anti = incoming_affinity_anti_affinity_counts_by_group(
                required_affinity, required_anti_affinity, snapshot.pod_groups(match_group)
                if required_affinity or required_anti_affinity else None)
        else:
            affinity, anti = incoming_affinity_anti_affinity_counts(
                required_affinity, required_anti_affinity, nodes)
        if not existing and not required_affinity and not required_anti_affinity:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(
            existing_anti_affinity_counts=existing, affinity_counts=affinity,
            anti_affinity_counts=anti, required_affinity=required_affinity,
            required_anti_affinity=required_anti_affinity, namespace=pod.namespace,
            labels=info.labels, namespace_labels=ns_labels,
            existing_keys={k for k, _ in existing}))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY, "error reading")
        s.update_with_pod(pod_to_add, node_info.labels, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY, "error reading")
        s.update_with_pod(pod_to_remove, node_info.labels, -1)
        return None

    # -- Filter --------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY, "error reading")
        return filter_status(s, node.labels)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        """``filter`` bound to this cycle's state object (its counts are read at each call, so
        AddPod/RemovePod on the same state still count)."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return super().filter_fn(state, pod)
        # filter_status with satisfy_pod_anti_affinity inlined (the dicts are the state's own).
        required_affinity = s.required_affinity
        anti_counts = s.anti_affinity_counts
        anti_keys = tuple(t.topology_key for t in s.required_anti_affinity)
        existing = s.existing_anti_affinity_counts

        existing_keys = s.existing_keys
        # the nodes it rejects share one Status per reason
        affinity_rejected = Status(Code.UnschedulableAndUnresolvable,
                                   ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        anti_rejected = Status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        existing_rejected = Status(Code.Unschedulable,
                                   ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

        def fn(node: NodeInfo) -> Status | None:
            labels = node.labels
            if required_affinity and not satisfy_pod_affinity(s, labels):
                return affinity_rejected
            if anti_counts:
                for key in anti_keys:
                    tv = labels.get(key)
                    if tv is not None and anti_counts.get((key, tv), 0) > 0:
                        return anti_rejected
            if existing:  # satisfy_existing_pods_anti_affinity, inlined
                for key in existing_keys:
                    tv = labels.get(key)
                    if tv is not None and existing.get((key, tv), 0) > 0:
                        return existing_rejected
            return None
        return fn

    # -- PreScore / Score ----------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        has_constraints = (_has_preferred(pod.pod, "podAffinity")
                           or _has_preferred(pod.pod, "podAntiAffinity"))
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        # Every node of the cluster, not only the feasible ones (counted by group, see below);
        # without preferred terms on the incoming pod only the pods with affinity can contribute.
        snapshot = self.handle.snapshot
        info = pod_affinity_info(pod)
        if info.error is not None:
            return Status(Code.Error, err=f"failed to parse pod: {info.error}")
        all_ns = self.namespace_labels()
        preferred_affinity = _merged_weighted(info.preferred_affinity, all_ns)
        preferred_anti_affinity = _merged_weighted(info.preferred_anti_affinity, all_ns)
        ns_labels = all_ns.get(pod.namespace)
        hard_weight = self.hard_pod_affinity_weight
        namespace, labels = pod.namespace, info.labels

        own_terms = bool(preferred_affinity or preferred_anti_affinity)
        score: ScoreMap = {}
        # Score reads the map only at the scored nodes' values: each key's entries are summed
        # for those values (per topology domain, not per node of the cluster); ``recorded``
        # says whether upstream's full map would hold any entry (else PreScore skips).
        wanted: dict[str, set[str]] = {}
        recorded = False

        def add(key: str, per_value: dict[str, int], amount: int) -> None:
            nonlocal recorded
            recorded = True
            want = wanted.get(key)
            if want is None:
                want = wanted[key] = {tv for ni in nodes
                                      if (tv := ni.labels.get(key)) is not None}
            values = score.get(key)
            if values is None:
                values = score[key] = {}
            get = values.get
            if len(per_value) <= len(want):
                for tv, n in per_value.items():
                    if tv in want:
                        values[tv] = get(tv, 0) + amount * n
            else:
                pv = per_value.get
                for tv in want:
                    n = pv(tv)
                    if n is not None:
                        values[tv] = get(tv, 0) + amount * n

        if own_terms:
            # The incoming pod's preferred terms against every existing pod: decided once per
            # (namespace, labels) group, added per topology value.
            by_labels = snapshot.pod_groups(match_group)
            for weighted, sign in ((preferred_affinity, 1), (preferred_anti_affinity, -1)):
                for w in weighted:
                    term, key, amount = w.term, w.term.topology_key, sign * w.weight
                    for g, per_value in by_labels.domains((key,), key).counts.items():
                        if per_value and term.matches(g.namespace, g.labels, None):
                            add(key, per_value, amount)
        # The existing pods' terms against the incoming pod: decided once per term, added per
        # topology value for the pods holding the same terms.
        by_terms = snapshot.pod_groups(affinity_terms_group, affinity_only=True)
        for amount, key, per_value in matched_term_domains(
                by_terms, lambda sig: _existing_terms(sig, hard_weight), namespace, labels, ns_labels):
            add(key, per_value, amount)
        if not recorded:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(score))
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, _not_found(PRE_SCORE_STATE_KEY, "failed to read")
        return node_score(s.topology_score, node.labels), None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> list[int] | Status:
        """``score`` of every node (the runtime's batch path)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _not_found(PRE_SCORE_STATE_KEY, "failed to read")
        ts = s.topology_score
        if len(ts) == 1:
            ((key, values),) = ts.items()
            get = values.get
            return [get(ni.labels.get(key), 0) for ni in nodes]
        return [node_score(ts, ni.labels) for ni in nodes]

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _not_found(PRE_SCORE_STATE_KEY, "failed to read")
        if not s.topology_score:
            return None
        for ns, v in zip(scores, normalize([x.score for x in scores])):
            ns.score = v
        return None

    def normalize_list(self, state: CycleState, pod: PodInfo, scores: list[int]
                       ) -> list[int] | Status:
        """``normalize_score`` over plain numbers (the runtime's batch path)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _not_found(PRE_SCORE_STATE_KEY, "failed to read")
        return normalize(scores) if s.topology_score else scores


def affinity_terms_group(pi: PodInfo) -> tuple | None:
    """The terms an existing pod scores incoming pods with (``PodGroups`` key): its required
    affinity terms, and its preferred affinity and anti-affinity terms with their weights;
    None without any."""
    info = pi.scratch.get(NAME)
    if info is None or info.pod is not pi.pod:
        info = pod_affinity_info(pi)
    if not info.scores_incoming:
        return None
    return (info.required_affinity,
            tuple((w.term, w.weight) for w in info.preferred_affinity),
            tuple((w.term, w.weight) for w in info.preferred_anti_affinity))


def _existing_terms(sig: tuple, hard_weight: int) -> list[tuple[AffinityTerm, int]]:
    """(term, amount) of an ``affinity_terms_group``, in ``processExistingPod``'s order."""
    required, preferred, preferred_anti = sig
    out = [(t, hard_weight) for t in required] if hard_weight > 0 else []
    out.extend(preferred)
    out.extend((t, -w) for t, w in preferred_anti)
    return out


def _required_terms(pod: dict) -> tuple[tuple[AffinityTerm, ...], tuple[AffinityTerm, ...]]:
    """The pod's required affinity and anti-affinity terms (``GetAffinityTerms``); a selector
    that does not parse is upstream's error, which the queue takes as Queue."""
    ns = (pod.get("metadata") or {}).get("namespace") or ""
    aff = (pod.get("spec") or {}).get("affinity") or {}
    req = "requiredDuringSchedulingIgnoredDuringExecution"
    return (get_affinity_terms(ns, (aff.get("podAffinity") or {}).get(req)),
            get_affinity_terms(ns, (aff.get("podAntiAffinity") or {}).get(req)))


def _process_term(score: ScoreMap, term: AffinityTerm, amount: int, namespace: str,
                  labels: Mapping[str, str], ns_labels: Mapping[str, str] | None,
                  node_labels: Mapping[str, str]) -> None:
    """``scoreMap.processTerm``: a matching pod adds ``amount`` at the node's topology value."""
    if term.matches(namespace, labels, ns_labels):
        tv = node_labels.get(term.topology_key)
        if tv is not None:
            _add(score, term.topology_key, tv, amount)


def _not_found(key: str, verb: str) -> Status:
    return Status(Code.Error, err=f'{verb} "{key}" from cycleState: not found')
