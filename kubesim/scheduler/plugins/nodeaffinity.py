"""NodeAffinity: spec.nodeSelector and required node affinity filter; preferred affinity scores.

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go and
staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go.
PreFilter returns Skip when the pod has neither a nodeSelector nor required node affinity (and the
plugin adds none); required terms whose matchFields pin ``metadata.name In [...]`` narrow the
nodes (AND within a term, OR across terms), and an empty result is "pod affinity terms conflict".
Filter: the scheduler-enforced affinity (NodeAffinityArgs.addedAffinity) first ("node(s) didn't
match scheduler-enforced node affinity"), then the pod's nodeSelector (every key present with an
equal value) and required terms (ORed; an empty term selects nothing) — "node(s) didn't match
Pod's node affinity/selector", both UnschedulableAndUnresolvable. PreScore returns Skip without
preferred terms; Score sums the weights of the matching preferred terms (weight 0 and empty
preferences ignored); NormalizeScore is DefaultNormalizeScore. EventsToRegister (queueing hints
on): Node Add|UpdateNodeLabel, Queue when the node (matching the scheduler-enforced affinity) is
added matching the pod's required affinity, or updated from not matching to matching
(``isSchedulableAfterNodeChange``). Legacy names: MatchNodeSelector /
NodeAffinityPriority.

kubesim specifics, for speed at 5,000 nodes: the runtime's compiled Filter remembers each node's
verdict (NodeInfo.memo) for its node object and the selectors' text, so pods selecting alike
evaluate the selectors once per node rather than once per node and pod.
"""

from __future__ import annotations

import json

from kubesim.api.selectors import node_selector_matches, node_selector_term_matches
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import (
    default_normalize_list,
    default_normalize_score,
    interned,
)

NAME = "NodeAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


def node_fields(node: dict) -> dict:
    name = (node.get("metadata") or {}).get("name") or ""
    return {"metadata.name": name} if name else {}


def _is_empty_term(term: dict | None) -> bool:
    return not term or (not term.get("matchExpressions") and not term.get("matchFields"))


def term_matches(term: dict, labels: dict, fields: dict) -> bool:
    """One NodeSelectorTerm (expressions AND fields; an empty term matches nothing)."""
    return node_selector_term_matches(term, labels, fields)


def selector_matches(node_selector: dict, labels: dict, fields: dict) -> bool:
    """A NodeSelector: its terms ORed; no usable term matches nothing."""
    return node_selector_matches(node_selector, labels, fields)


class RequiredNodeAffinity:
    """``nodeaffinity.RequiredNodeAffinity``: spec.nodeSelector AND the required NodeSelector."""

    __slots__ = ("label_selector", "node_selector")

    def __init__(self, label_selector: dict | None, node_selector: dict | None) -> None:
        self.label_selector = label_selector or None
        self.node_selector = node_selector

    @classmethod
    def of(cls, pod: dict) -> RequiredNodeAffinity:
        spec = pod.get("spec") or {}
        na = ((spec.get("affinity") or {}).get("nodeAffinity")) or {}
        return cls(spec.get("nodeSelector"), na.get("requiredDuringSchedulingIgnoredDuringExecution"))

    def match(self, node: dict) -> bool:
        meta = node.get("metadata") or {}
        return self.match_labels(meta.get("labels") or {}, meta.get("name") or "")

    def match_labels(self, labels: dict, name: str) -> bool:
        if self.label_selector:
            for k, v in self.label_selector.items():
                if k not in labels or labels[k] != v:
                    return False
        if self.node_selector is not None:
            return selector_matches(self.node_selector, labels,
                                    {"metadata.name": name} if name else {})
        return True

    def clone(self) -> RequiredNodeAffinity:
        return self


_SELECTORS_KEYS: dict[str, str] = {}


def _selectors_key(added: dict | None, req: RequiredNodeAffinity) -> str:
    """The selectors a Filter verdict depends on as one interned string."""
    text = json.dumps([added, req.label_selector, req.node_selector], sort_keys=True,
                      separators=(",", ":"))
    return interned(_SELECTORS_KEYS, text)


def preferred_terms(terms: list[dict] | None) -> list[tuple[int, dict]]:
    """(weight, preference) of the terms that count: non-zero weight, non-empty preference."""
    out: list[tuple[int, dict]] = []
    for t in terms or ():
        w = int(t.get("weight") or 0)
        pref = t.get("preference") or {}
        if w == 0 or _is_empty_term(pref):
            continue
        out.append((w, pref))
    return out


def preferred_score(terms: list[tuple[int, dict]], node: dict) -> int:
    """Sum of the weights of the preferred terms the node matches."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    fields = node_fields(node)
    return sum(w for w, pref in terms if term_matches(pref, labels, fields))


def required_node_names(terms: list[dict]) -> set[str] | None:
    """Nodes named by ``matchFields metadata.name In``; None when some term does not pin names."""
    names: set[str] | None = None
    for t in terms:
        term_names: set[str] | None = None
        for r in t.get("matchFields") or ():
            if r.get("key") == "metadata.name" and r.get("operator") == "In":
                s = set(r.get("values") or ())
                term_names = s if term_names is None else term_names & s
        if term_names is None:
            return None
        names = set(term_names) if names is None else names | term_names
    return names


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin,
                   EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        added = (self.args or {}).get("addedAffinity") or {}
        self.added_node_selector: dict | None = added.get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        pref = added.get("preferredDuringSchedulingIgnoredDuringExecution")
        self.added_pref_terms: list[tuple[int, dict]] | None = (
            preferred_terms(pref) if pref else None)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL),
                                        self.is_schedulable_after_node_change)]

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None, new: dict) -> int:
        if self.added_node_selector is not None and not selector_matches(
                self.added_node_selector, (new.get("metadata") or {}).get("labels") or {},
                node_fields(new)):
            return ev.QUEUE_SKIP
        required = RequiredNodeAffinity.of(pod)
        if not required.match(new):
            return ev.QUEUE_SKIP
        if old is None:
            return ev.QUEUE
        return ev.QUEUE_SKIP if required.match(old) else ev.QUEUE

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        spec = pod.pod.get("spec") or {}
        na = ((spec.get("affinity") or {}).get("nodeAffinity")) or {}
        required = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is None and self.added_node_selector is None and spec.get("nodeSelector") is None:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity.of(pod.pod))
        if required is None or not required.get("nodeSelectorTerms"):
            return None, None
        names = required_node_names(required["nodeSelectorTerms"])
        if names is not None and not names:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        if names:
            return PreFilterResult(names), None
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if self.added_node_selector is not None and not selector_matches(
                self.added_node_selector, node.labels, node_fields(node.node)):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED)
        req = state.get(PRE_FILTER_STATE_KEY)
        if req is None:
            req = RequiredNodeAffinity.of(pod.pod)
        if not req.match(node.node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return None

    def filter_fn(self, state: CycleState, pod: PodInfo):
        """``filter`` for one pod. The verdict depends only on the node object and the
        selectors, so a node remembers it (in ``memo``) for its node object and the selectors'
        text: pods selecting alike decide it once per node."""
        added = self.added_node_selector
        req = state.get(PRE_FILTER_STATE_KEY)
        if req is None:
            req = RequiredNodeAffinity.of(pod.pod)
        key = None
        rejections = (None, Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED),
                      Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD))

        def fn(node: NodeInfo) -> Status | None:
            nonlocal key
            if key is None:
                key = _selectors_key(added, req)
            obj = node.node
            e = node.memo.get(NAME)
            if e is not None and e[0] is obj and e[1] is key:
                return rejections[e[2]]
            if added is not None and not selector_matches(
                    added, node.labels, {"metadata.name": node.name} if node.name else {}):
                verdict = 1
            elif not req.match_labels(node.labels, node.name):
                verdict = 2
            else:
                verdict = 0
            node.memo[NAME] = (obj, key, verdict)
            return rejections[verdict]
        return fn

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        spec = pod.pod.get("spec") or {}
        na = ((spec.get("affinity") or {}).get("nodeAffinity")) or {}
        pref = na.get("preferredDuringSchedulingIgnoredDuringExecution")
        if pref is None and self.added_pref_terms is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, tuple(preferred_terms(pref)) if pref is not None else None)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        count = 0
        if self.added_pref_terms is not None:
            count += preferred_score(self.added_pref_terms, node.node)
        if PRE_SCORE_STATE_KEY in state:
            terms = state.get(PRE_SCORE_STATE_KEY)
        else:
            na = (((pod.pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity")) or {}
            pref = na.get("preferredDuringSchedulingIgnoredDuringExecution")
            terms = preferred_terms(pref) if pref is not None else None
        if terms:
            count += preferred_score(list(terms), node.node)
        return count, None

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    def normalize_list(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int]:
        return default_normalize_list(MAX_NODE_SCORE, False, scores)
