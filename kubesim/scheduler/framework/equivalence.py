"""Equivalence classes: what the node-local plugins said of a pod of the same shape, remembered
per node until the node changes.

Upstream: kube-scheduler up to v1.13 kept an equivalence cache (pkg/scheduler/core/
equivalence/eqivalence.go, ``Cache`` / ``NodeCache`` / ``GetEquivalenceClassHash``: per node, the
predicate results of an equivalence class of pods, invalidated when the node or its pods
changed); it was removed in v1.14 (kubernetes/kubernetes#71123) to simplify maintenance, not
because its results differed. v1.35 computes every Filter and Score afresh; these helpers
return exactly what that computation returns, only computed once per (class, node, node
generation).

A plugin opts in with ``node_local = True``: its Filter, and its Score if it has no
NormalizeScore, depend only on the pod, the plugin's arguments, the node's NodeInfo (so they
stay valid while its ``generation`` does) and the snapshot's image states and size
(ImageLocality's spread), and they read no volume of the pod. The pod's class is its spec and
status (``pod_class``): the same class, the same inputs for every such plugin. A cycle uses the cache only when every
filter it runs (and, for scores, at least one score plugin) is node-local, nothing is logged
at the verbosities that name plugins and no explanation is recorded: then the per-plugin
verdicts and scores are not needed, only the first rejection and the weighted sum.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable, Iterable, Sequence

from kubesim.scheduler.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubesim.scheduler.framework.status import Status
from kubesim.scheduler.framework.types import (
    NodeInfo,
    PodInfo,
    changed_places,
    changes_since,
)

ENABLED = True  # tests turn it off to compare with the computation afresh

# class key -> (token, what the key names by id, kept alive so that no id is reused while
# the token is handed out); a token is a short string: hashed once, looked up in each
# NodeInfo's memo
_TOKENS: dict[tuple, tuple[str, object]] = {}
_TOKENS_MAX = 4096
_SERIAL = [0]


def _framework_serial(fwk) -> int:
    """A number for the framework (a profile as one command built it), never reused: keys hold
    it, not the framework, which would keep its snapshot alive in a long-running process."""
    serial = getattr(fwk, "_equivalence_serial", None)
    if serial is None:
        _SERIAL[0] += 1
        serial = fwk._equivalence_serial = _SERIAL[0]
    return serial


def _token(key: tuple, keep: object = None) -> str:
    got = _TOKENS.get(key)
    if got is None:
        if len(_TOKENS) >= _TOKENS_MAX:
            _TOKENS.clear()  # (NodeInfos holding old tokens only miss: serials are not reused)
        _SERIAL[0] += 1
        got = _TOKENS[key] = (f"equivalence:{_SERIAL[0]}", keep)
    return got[0]


_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_CLASS_SCRATCH = "equivalence.class"  # the PodInfo's (made once per cycle) scratch key


def pod_class(pod: PodInfo) -> bytes | str:
    """The pod's equivalence class: its spec without its volumes and the containers' volume
    mounts (the service account token's volume is named afresh for every pod; no node-local
    plugin reads volumes), and its status without the conditions (what the scheduler writes of
    a pod it retries), marshalled (format 2: no back-references, so equal bytes are equal
    values; pods decoded alike, as a file's or a template's, have their keys in one order) —
    canonical JSON for what marshal does not take."""
    got = pod.scratch.get(_CLASS_SCRATCH)
    if got is not None:
        return got
    p = pod.pod
    spec = p.get("spec") or {}
    if "volumes" in spec:
        spec = {k: v for k, v in spec.items() if k != "volumes"}
        for key in _CONTAINER_LISTS:
            cs = spec.get(key)
            if cs:
                spec[key] = [{k: v for k, v in c.items() if k != "volumeMounts"}
                             if isinstance(c, dict) else c for c in cs]
    status = p.get("status") or {}
    if "conditions" in status:
        status = {k: v for k, v in status.items() if k != "conditions"}
    try:
        got = marshal.dumps((spec, status), 2)
    except ValueError:
        got = json.dumps([spec, status], sort_keys=True, separators=(",", ":"), default=str)
    pod.scratch[_CLASS_SCRATCH] = got
    return got


def filter_token(fwk, pod: PodInfo, fns: Sequence[tuple[str, Callable]]) -> str | None:
    """The memo key of this cycle's compiled filters ``fns`` (name, fn) for the pod's class, or
    None when the cache may not serve them."""
    if not ENABLED or not fns:
        return None
    plugins = fwk.plugins
    for name, _fn in fns:
        pl = plugins.get(name)
        if pl is None or not getattr(pl, "node_local", False):
            return None
    return _token(("filter", _framework_serial(fwk), tuple(name for name, _ in fns), pod_class(pod)))


def cached_filter(tok: str, fns: list, ni: NodeInfo, run) -> tuple[Status | None, str]:
    """The first rejection (status, plugin) of the filters on ``ni`` (None, "" when all pass),
    ``run(ni)`` computing it when the node's memo has none for this generation. Errors are not
    remembered."""
    e = ni.memo.get(tok)
    if e is not None and e[0] == ni.generation:
        return e[1], e[2]
    st, name = run(ni)
    if st is None or st.is_rejected():
        ni.memo[tok] = (ni.generation, st, name)
    return st, name


def score_token(fwk, pod: PodInfo, plugins: Sequence, raw: Sequence = ()) -> str:
    snap = fwk.handle.snapshot
    states = snap.image_states  # (a new dict whenever the snapshot's images are counted again)
    return _token(("score", _framework_serial(fwk), tuple(p.name for p in plugins),
                   tuple(p.name for p in raw), pod_class(pod), id(states), snap.num_nodes()),
                  states)


def split_scores(plugins: Sequence) -> tuple[list, list, list]:
    """(the node-local plugins without NormalizeScore, the node-local ones with it — whose raw
    scores are node-local, normalized over the cycle's nodes —, the others), each in profile
    order."""
    local, raw, rest = [], [], []
    for pl in plugins:
        if not getattr(pl, "node_local", False):
            rest.append(pl)
        else:
            (raw if pl.has_normalize else local).append(pl)
    return local, raw, rest


def local_totals(fwk, state, pod: PodInfo, nodes: list[NodeInfo], local: Sequence,
                 score_nodes, raw: Sequence = (), tok: str | None = None) -> list | None:
    """Each node's weighted sum of the ``local`` plugins' scores (each in [0, 100]: they have
    no NormalizeScore) — with ``raw`` plugins, a tuple of it and each one's raw score —,
    remembered per node; ``score_nodes(plugin, nodes)`` scores the nodes whose memo has none
    for their generation. None when a plugin fails or scores out of range (the caller then
    scores afresh, which reports it as upstream does). ``tok``: ``score_token``'s, when the
    caller has it."""
    if tok is None:
        tok = score_token(fwk, pod, local, raw)
    out: list = [e[1] if (e := n.memo.get(tok)) is not None and e[0] == n.generation else None
                 for n in nodes]
    if None not in out:
        return out
    missing = [i for i, v in enumerate(out) if v is None]
    sub = [nodes[i] for i in missing]
    sums = _weighted_sums(sub, local, fwk.weights, score_nodes, raw)
    if sums is None:
        return None
    for i, n, v in zip(missing, sub, sums):
        n.memo[tok] = (n.generation, v)
        out[i] = v
    return out


def _weighted_sums(nodes: list[NodeInfo], local: Sequence, weights: dict[str, int],
                   score_nodes, raw: Sequence = ()) -> list | None:
    """Each node's weighted sum of the ``local`` plugins' scores (with ``raw`` plugins: a
    tuple of it and their raw scores); None when one fails or a ``local`` one scores out of
    [0, 100]."""
    sums = [0] * len(nodes)
    for pl in local:
        got = score_nodes(pl, nodes)
        if isinstance(got, Status):
            return None
        got = list(got)
        if len(got) != len(nodes) or (got and (min(got) < MIN_NODE_SCORE
                                               or max(got) > MAX_NODE_SCORE)):
            return None
        w = weights[pl.name]
        sums = [a + v * w for a, v in zip(sums, got)]
    if not raw:
        return sums
    columns = [sums]
    for pl in raw:
        got = score_nodes(pl, nodes)
        if isinstance(got, Status):
            return None
        got = list(got)
        if len(got) != len(nodes):
            return None
        columns.append(got)
    return list(zip(*columns))


class _NodeIndex:
    """Something known of every node for one class (a token), in the order of the node list
    it was built for, kept up to date from the NodeInfo change journal as PodGroups
    (framework/pod_groups.py) keeps its counts: only the nodes that changed are looked at
    again (every node's generation is compared once the journal was cleared)."""

    __slots__ = ("_epoch", "_gens", "_nis", "_nodes", "_position", "_where")

    def __init__(self) -> None:
        self._nodes: list | None = None
        self._nis: list[NodeInfo] = []
        self._gens: list[int] = []
        self._where: dict[int, int] = {}
        self._epoch = self._position = 0

    def _changed(self, nodes: list[NodeInfo]) -> Iterable[int]:
        """The places in ``nodes`` to look at again (all of them for another list), noted as
        looked at."""
        if nodes is not self._nodes or len(nodes) != len(self._nis):
            _, self._epoch, self._position = changes_since(-1, 0)
            self._nodes = nodes
            self._nis = list(nodes)
            self._gens = [ni.generation for ni in nodes]
            self._where = {id(ni): i for i, ni in enumerate(nodes)}
            self._reset(len(nodes))
            return range(len(nodes))
        journal, self._epoch, self._position = changes_since(self._epoch, self._position)
        if journal is not None and not journal:
            return ()
        gens, nis = self._gens, self._nis
        changed = changed_places(journal, nodes, nis, gens, self._where)
        for i in changed:
            ni = nodes[i]
            nis[i] = ni
            gens[i] = ni.generation
        return changed

    def _reset(self, n: int) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class FilterIndex(_NodeIndex):
    """Every node's first rejection (status, plugin) for one filter token: a cycle takes its
    feasible nodes as runs of the list between the rejected ones, not node by node.
    ``errors``: nodes whose verdict is an Error (not remembered: the cycle scans node by
    node)."""

    __slots__ = ("_bad", "_bad_sorted", "errors", "verdicts")

    def _reset(self, n: int) -> None:
        self.verdicts: list[tuple[Status | None, str]] = [(None, "")] * n
        self._bad: set[int] = set()  # places of the rejected nodes
        self._bad_sorted: list[int] | None = []
        self.errors: set[int] = set()

    def refresh(self, nodes: list[NodeInfo], run) -> FilterIndex:
        """Bring the verdicts up to date with ``nodes`` (the snapshot's node list), ``run(ni)``
        giving a node's (status, plugin)."""
        for i in self._changed(nodes):
            v = run(nodes[i])
            self.verdicts[i] = v
            st = v[0]
            was = i in self._bad
            self.errors.discard(i)
            if st is not None and st.is_rejected():
                if not was:
                    self._bad.add(i)
                    self._bad_sorted = None
                continue
            if was:
                self._bad.discard(i)
                self._bad_sorted = None
            if st is not None:
                self.errors.add(i)
        return self

    def rejected(self) -> list[int]:
        """The places of the rejected nodes, in order."""
        if self._bad_sorted is None:
            self._bad_sorted = sorted(self._bad)
        return self._bad_sorted


class ScoreIndex(_NodeIndex):
    """Every node's weighted sum of the node-local plugins' scores for one score token
    (``local_totals``' sums), and each raw score of its node-local plugins with a
    NormalizeScore (``raws``, a list a plugin): a cycle whose feasible nodes are runs of the
    list takes theirs as slices. ``failed``: a plugin failed or scored out of range somewhere
    (the cycle scores afresh)."""

    __slots__ = ("failed", "raws", "sums")

    def _reset(self, n: int) -> None:
        self.sums: list[int] = [0] * n
        self.raws: list[list[int]] = []  # (one list a plugin with NormalizeScore, once scored)
        self.failed = False

    def refresh(self, nodes: list[NodeInfo], sums_of) -> ScoreIndex:
        """Bring the sums up to date with ``nodes``, ``sums_of(some nodes)`` giving theirs (None
        on a failure; with plugins whose raw scores are kept, a tuple a node: the sum, then
        each raw score)."""
        changed = list(self._changed(nodes))
        if changed:
            got = sums_of([nodes[i] for i in changed])
            if got is None:
                self.failed = True
                self._nodes = None  # (built again when next asked)
                return self
            sums = self.sums
            if got and isinstance(got[0], tuple):
                columns = list(zip(*got))
                raws = self.raws
                if not raws:
                    raws.extend([0] * len(sums) for _ in columns[1:])
                for column, values in zip(columns, [sums, *raws]):
                    for i, v in zip(changed, column):
                        values[i] = v
            else:
                for i, v in zip(changed, got):
                    sums[i] = v
        return self


_INDEXES: dict[str, _NodeIndex] = {}
_INDEXES_MAX = 8  # (each holds the last node list it was refreshed with)


def forget_indexes() -> None:
    """Drop every class's indexes (each holds the node list it was last refreshed with): for
    a caller that drops every snapshot (kubesim.controlplane.session, between the slices of a
    new cluster)."""
    _INDEXES.clear()


def _index(tok: str, cls):
    idx = _INDEXES.get(tok)
    if idx is None:
        if len(_INDEXES) >= _INDEXES_MAX:
            _INDEXES.clear()
        idx = _INDEXES[tok] = cls()
    return idx


INDEX_AFTER = 8  # cycles of a class that go node by node before its indexes are built
_CYCLES: dict[str, int] = {}


def indexed(tok: str) -> bool:
    """Whether a cycle of the class of filter token ``tok`` uses the class's indexes: not for
    its first ``INDEX_AFTER`` cycles in this process (an index is built for every node: a
    class scheduled once, as one pod applied, visits a tenth of them at 5,000 nodes; by then
    the nodes' memos hold most of what the index needs)."""
    n = _CYCLES.get(tok, 0)
    if n >= INDEX_AFTER:
        return True
    if len(_CYCLES) >= _TOKENS_MAX:
        _CYCLES.clear()
    _CYCLES[tok] = n + 1
    return False


def filter_index(tok: str) -> FilterIndex:
    return _index(tok, FilterIndex)


def ranged_local_totals(fwk, state, pod: PodInfo, nodes: list[NodeInfo],
                        ranges: Sequence[tuple[int, int]], local: Sequence,
                        score_nodes, raw: Sequence = ()) -> tuple[list[int], list[list[int]]] | None:
    """``local_totals`` of the nodes ``nodes[a:b]`` for each (a, b) of ``ranges``, in that
    order (``nodes``: the snapshot's node list), from the class's ScoreIndex (whose nodes to
    score again are scored by ``local_totals``, from their memos where they hold them), as
    ``columns`` gives them."""
    tok = score_token(fwk, pod, local, raw)
    idx = _index("ranges:" + tok, ScoreIndex)
    idx.refresh(nodes, lambda some: local_totals(fwk, state, pod, some, local, score_nodes, raw,
                                                 tok))
    if idx.failed:
        idx.failed = False
        return None
    if len(idx.raws) < len(raw):  # (no node scored yet)
        return None
    out: list[list[int]] = []
    for values in [idx.sums, *idx.raws[:len(raw)]]:
        if len(ranges) == 1:
            a, b = ranges[0]
            out.append(values[a:b])
        else:
            column: list[int] = []
            for a, b in ranges:
                column.extend(values[a:b])
            out.append(column)
    return out[0], out[1:]


def columns(values: list, raw: Sequence) -> tuple[list[int], list[list[int]]]:
    """``local_totals``' values as (the weighted sums, each ``raw`` plugin's raw scores)."""
    if not raw:
        return values, []
    cols = [list(c) for c in zip(*values)] if values else [[] for _ in range(len(raw) + 1)]
    return cols[0], cols[1:]
