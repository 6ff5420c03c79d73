"""Pods counted by group, per node and per topology domain, kept up to date between cycles.

Upstream: pkg/scheduler/backend/cache/cache.go (``UpdateSnapshot`` copies only the NodeInfos
whose generation moved since the last cycle) and snapshot.go (``HavePodsWithAffinityList``), as
used by pkg/scheduler/framework/plugins/interpodaffinity (``getIncomingAffinityAntiAffinityCounts``,
``processExistingPod``) and podtopologyspread (``calPreFilterState``, PreScore's counting), which
count, once per pod, the existing pods of every node by topology pair — in Go, in 16 goroutines.

kubesim's plugins ask the same questions of pods that mostly look alike (same namespace and
labels, or the same affinity terms), so they count groups instead of pods: a ``PodGroups`` keeps,
for every node of the snapshot, how many of its pods fall in each group (``key_fn(pod_info)``;
None leaves a pod out), and, per (required topology keys, topology key) asked for, how many pods
of each group sit in each topology value (``Domains``). A plugin then decides once per group and
adds the group's counts per domain — the same sums as visiting every pod, in the same node
order of first appearance for the domains.

Between cycles only what changed is recounted: the nodes of the list that NodeInfo's change
journal names (a pod assumed, forgotten, removed or added; ``set_node``; when the journal was
cleared meanwhile, the nodes whose ``generation`` moved or that were replaced); a node whose
labels changed drops the per-domain counts (rebuilt on the next request, so the domains keep
node order); a new node list (another list object or length) rebuilds everything; the list's
elements are not to be replaced in place. Groups must be hashable and stand for one version of
a pod (PodInfos are replaced, never mutated, when a pod changes).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from kubesim.scheduler.framework.types import (
    NodeInfo,
    PodInfo,
    census_entry,
    changed_places,
    changes_since,
)

KeyFn = Callable[[PodInfo], Hashable | None]


class Domains:
    """Per topology value (``labels.get(key, "")`` of the nodes carrying every required key):
    ``nodes`` — how many nodes, in node order of first appearance; ``counts`` — group ->
    value -> pods (only values with pods)."""

    __slots__ = ("counts", "eligible", "nodes")

    def __init__(self) -> None:
        self.nodes: dict[str, int] = {}
        self.counts: dict[Hashable, dict[str, int]] = {}
        # With a node filter: which nodes (by index) count.
        self.eligible: list[bool] | None = None


class PodGroups:
    """The pods of each node counted by ``key_fn``; ``affinity_only`` counts only the node's
    ``pods_with_affinity``."""

    __slots__ = ("_domains", "_epoch", "_gens", "_labels", "_nis", "_node_objs", "_nodes",
                 "_per_node", "_position", "_totals", "_where", "affinity_only", "key_fn")

    def __init__(self, key_fn: KeyFn, affinity_only: bool = False) -> None:
        self.key_fn = key_fn
        self.affinity_only = affinity_only
        self._nodes: list[NodeInfo] | None = None
        self._nis: list[NodeInfo] = []
        self._gens: list[int] = []
        self._labels: list[dict] = []
        self._node_objs: list[dict] = []
        self._per_node: list[dict[Hashable, int]] = []
        self._domains: dict[tuple[tuple[str, ...], str, Hashable], Domains] = {}
        self._totals: dict[Hashable, int] = {}
        self._where: dict[int, int] = {}  # id(NodeInfo) -> its index in the list
        self._epoch = self._position = 0  # where in types.py's change journal

    # -- per node ------------------------------------------------------------------------------
    def _count(self, ni: NodeInfo) -> dict[Hashable, int]:
        out: dict[Hashable, int] = {}
        key_fn = self.key_fn
        if key_fn is match_group and not self.affinity_only:
            census = ni.census()
            if census is not None:  # a node of the cache whose pods are not read: its census
                for key, n in census.items():
                    g = match_group_of(*census_entry(key))
                    out[g] = out.get(g, 0) + n
                return out
        for p in (ni.pods_with_affinity if self.affinity_only else ni.pods):
            k = key_fn(p)
            if k is not None:
                out[k] = out.get(k, 0) + 1
        return out

    def refresh(self, nodes: list[NodeInfo]) -> PodGroups:
        """Bring the counts up to date with ``nodes`` (the snapshot's node list)."""
        if nodes is not self._nodes or len(nodes) != len(self._nis):
            _, self._epoch, self._position = changes_since(-1, 0)
            self._where = {id(ni): i for i, ni in enumerate(nodes)}
            self._nodes = nodes
            self._nis = list(nodes)
            self._gens = [ni.generation for ni in nodes]
            self._labels = [ni.labels for ni in nodes]
            self._node_objs = [ni.node for ni in nodes]
            self._per_node = [self._count(ni) for ni in nodes]
            self._domains = {}
            totals: dict[Hashable, int] = {}
            for groups in self._per_node:
                for g, n in groups.items():
                    totals[g] = totals.get(g, 0) + n
            self._totals = totals
            return self
        gens, nis = self._gens, self._nis
        journal, self._epoch, self._position = changes_since(self._epoch, self._position)
        if journal is not None and not journal:
            return self
        changed = changed_places(journal, nodes, nis, gens, self._where)
        for i in changed:
            ni = nodes[i]
            old = self._per_node[i]
            new = self._count(ni)
            nis[i] = ni
            gens[i] = ni.generation
            self._per_node[i] = new
            if ni.labels is not self._labels[i] or ni.node is not self._node_objs[i]:
                self._labels[i] = ni.labels  # (set_node: labels or taints may differ)
                self._node_objs[i] = ni.node
                self._domains = {}
            if old == new:
                continue
            _add_totals(self._totals, old, -1)
            _add_totals(self._totals, new, 1)
            if not self._domains:
                continue
            labels = ni.labels
            for (required, key, _), d in self._domains.items():
                if d.eligible is not None:
                    if d.eligible[i]:
                        value = labels.get(key, "")
                        _add_counts(d.counts, old, value, -1)
                        _add_counts(d.counts, new, value, 1)
                    continue
                for k in required:
                    if k not in labels:
                        break
                else:
                    value = labels.get(key, "")
                    _add_counts(d.counts, old, value, -1)
                    _add_counts(d.counts, new, value, 1)
        return self

    def node_groups(self, i: int) -> dict[Hashable, int]:
        """Group -> pods of the i-th node (read-only)."""
        return self._per_node[i]

    def totals(self) -> dict[Hashable, int]:
        """Group -> pods over all nodes (only groups with pods; read-only)."""
        return self._totals

    # -- per topology domain -------------------------------------------------------------------
    def domains(self, required: tuple[str, ...], key: str,
                node_filter: Callable[[NodeInfo], bool] | None = None,
                filter_key: Hashable = None) -> Domains:
        """The counts per value of ``key`` over the nodes carrying every ``required`` key (a
        node without ``key`` itself counts under "" unless ``key`` is required) and, when
        given, accepted by ``node_filter`` — which must depend only on the node object and be
        the same for the same ``filter_key``."""
        ask = (required, key, filter_key if node_filter is not None else None)
        d = self._domains.get(ask)
        if d is None:
            if len(self._domains) >= _DOMAINS_LIMIT:
                self._domains = {}
            d = self._domains[ask] = Domains()
            nodes_per_value = d.nodes
            counts = d.counts
            eligible = d.eligible = [] if node_filter is not None else None
            for ni, labels, groups in zip(self._nis, self._labels, self._per_node):
                for k in required:
                    if k not in labels:
                        break
                else:
                    if eligible is not None:
                        if not node_filter(ni):
                            eligible.append(False)
                            continue
                        eligible.append(True)
                    value = labels.get(key, "")
                    nodes_per_value[value] = nodes_per_value.get(value, 0) + 1
                    if groups:
                        _add_counts(counts, groups, value, 1)
                    continue
                if eligible is not None:
                    eligible.append(False)
        return d


_DOMAINS_LIMIT = 256


def _add_counts(counts: dict[Hashable, dict[str, int]], groups: dict[Hashable, int], value: str,
                sign: int) -> None:
    for g, n in groups.items():
        per_value = counts.get(g)
        if per_value is None:
            per_value = counts[g] = {}
        c = per_value.get(value, 0) + sign * n
        if c:
            per_value[value] = c
        else:
            per_value.pop(value, None)
            if not per_value:
                del counts[g]


def _add_totals(totals: dict[Hashable, int], groups: dict[Hashable, int], sign: int) -> None:
    for g, n in groups.items():
        c = totals.get(g, 0) + sign * n
        if c:
            totals[g] = c
        else:
            del totals[g]


# -- the group most plugins ask about ---------------------------------------------------------
class MatchGroup:
    """Pods a selector cannot tell apart: one namespace, one label set, terminating or not.
    Interned, so compared and hashed by identity."""

    __slots__ = ("labels", "namespace", "terminating")

    def __init__(self, namespace: str, labels: dict, terminating: bool) -> None:
        self.namespace = namespace
        self.labels = labels
        self.terminating = terminating

    def __repr__(self) -> str:
        return f"MatchGroup({self.namespace}, {self.labels}, terminating={self.terminating})"


_MATCH_GROUPS: dict[tuple, MatchGroup] = {}
_MATCH_GROUPS_LIMIT = 1 << 16
_MATCH_SCRATCH = "pod_groups.match"


def match_group(pi: PodInfo) -> MatchGroup:
    """The pod's MatchGroup (cached on the PodInfo)."""
    g = pi.scratch.get(_MATCH_SCRATCH)
    if g is None:
        g = pi.scratch[_MATCH_SCRATCH] = match_group_of(pi.namespace, pi.labels, pi.terminating)
    return g


def match_group_of(namespace: str, labels: dict, terminating: bool) -> MatchGroup:
    """The MatchGroup of pods with this namespace, labels and termination."""
    key = (namespace, frozenset(labels.items()) if labels else frozenset(), bool(terminating))
    g = _MATCH_GROUPS.get(key)
    if g is None:
        if len(_MATCH_GROUPS) >= _MATCH_GROUPS_LIMIT:
            _MATCH_GROUPS.clear()
        g = _MATCH_GROUPS[key] = MatchGroup(namespace, dict(labels), bool(terminating))
    return g
