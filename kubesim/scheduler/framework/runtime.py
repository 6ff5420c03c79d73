"""The framework runtime: builds a profile's plugin lists and runs each extension point.

Upstream: pkg/scheduler/framework/runtime/framework.go (``NewFramework``: ``updatePluginList``,
``expandMultiPointPlugins`` with its override/multiPoint/rest ordering, ``getScoreWeights`` with
weight 0 meaning 1 and the overflow check, the "only one queue sort plugin" and "at least one
bind plugin" checks; ``RunPreFilterPlugins`` (Skip collects the plugin into the skip set,
Unschedulable keeps running the rest, UnschedulableAndUnresolvable stops, PreFilterResults are
intersected), ``RunFilterPlugins`` (stop at the first rejection, non-rejections become errors),
``RunFilterPluginsWithNominatedPods`` (two passes when higher-or-equal priority pods are
nominated to the node), ``RunPostFilterPlugins``, ``RunPreScorePlugins``, ``RunScorePlugins``
(score, NormalizeScore, range check [0, 100], weight), ``RunReservePluginsReserve`` /
``Unreserve`` in reverse order, ``RunPermitPlugins``, ``RunPreBindPlugins``, ``RunBindPlugins``
stopping at the first non-Skip, ``RunPostBindPlugins``, ``fillEnqueueExtensions``: each
PreEnqueue, PreFilter, Filter, Reserve or Permit plugin's EventsToRegister, or every event for
one without EnqueueExtensions) and pkg/scheduler/framework/types.go (``NodeToStatus`` with its
absent-nodes status).

Error texts are upstream's, with Go's ``%q`` rendered as a double-quoted string.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import add, mul

from kubesim.api.record import Record
from kubesim.scheduler.framework import equivalence
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.events import (
    ClusterEventWithHint,
    unroll_wildcard_resource,
)
from kubesim.scheduler.framework.interface import (
    EXTENSION_POINTS,
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeScore,
    NodeToStatusReader,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    merge_pre_filter_results,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.trace import Trace
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

# Permit plugins may not ask for more (framework.go maxTimeout).
MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60


class FrameworkError(Exception):
    """A profile that cannot be turned into a framework (upstream returns these from NewFramework)."""


def q(s: str) -> str:
    """Go's ``%q`` for plain strings."""
    return json.dumps(s, ensure_ascii=False)


def go_list(items: Iterable[str]) -> str:
    """Go's ``%v`` of a []string: ``[a b]``."""
    return "[" + " ".join(items) + "]"


class NodeToStatus(NodeToStatusReader):
    """Statuses of rejected nodes plus one status for the nodes not listed (``NodeToStatus``)."""

    __slots__ = ("absent", "statuses")

    def __init__(self) -> None:
        self.statuses: dict[str, Status] = {}
        self.absent = Status(Code.UnschedulableAndUnresolvable)

    def get(self, node_name: str) -> Status:
        return self.statuses.get(node_name, self.absent)

    def set(self, node_name: str, status: Status) -> None:
        self.statuses[node_name] = status

    def set_absent_nodes_status(self, status: Status) -> None:
        self.absent = status

    def __len__(self) -> int:
        return len(self.statuses)


class ScoreTable(Record):
    """Every score plugin's raw and normalized scores per node, the weights and the totals
    (``node_names`` None: a table of totals alone, ``score_totals``')."""

    __slots__ = ("node_names", "normalized", "plugins", "raw", "skipped", "totals", "weights")

    def __init__(self, node_names: list[str] | None, plugins: list[str], weights: dict[str, int],
                 raw: dict[str, list[int]] | None = None, normalized: dict[str, list[int]] | None = None,
                 totals: list[int] | None = None, skipped: list[str] | None = None):
        self.node_names = node_names
        self.plugins = plugins
        self.weights = weights
        self.raw = {} if raw is None else raw
        self.normalized = {} if normalized is None else normalized
        self.totals = [] if totals is None else totals
        self.skipped = [] if skipped is None else skipped

    def weighted(self, plugin: str, i: int) -> int:
        return self.normalized[plugin][i] * self.weights[plugin]


def _names(pset: dict | None, key: str) -> list[dict]:
    if not pset:
        return []
    return [p for p in (pset.get(key) or []) if p]


class Framework:
    """A profile's plugins, sorted into extension points, and the code that runs them."""

    def __init__(self, profile: dict, registry: dict[str, Callable[..., Plugin]],
                 handle: Handle | None = None, known_plugins: Iterable[str] = ()) -> None:
        self.profile_name: str = profile.get("schedulerName") or ""
        self.percentage_of_nodes_to_score: int | None = profile.get("percentageOfNodesToScore")
        self.handle = handle if handle is not None else Handle()
        self.plugins: dict[str, Plugin] = {}
        self.unimplemented: list[str] = []
        known = set(known_plugins)
        cfg = profile.get("plugins") or {}

        self.pre_enqueue: list[PreEnqueuePlugin] = []
        self.queue_sort: list[QueueSortPlugin] = []
        self.pre_filter: list[PreFilterPlugin] = []
        self.filter: list[FilterPlugin] = []
        self.post_filter: list[PostFilterPlugin] = []
        self.pre_score: list[PreScorePlugin] = []
        self.score: list[ScorePlugin] = []
        self.reserve: list[ReservePlugin] = []
        self.permit: list[PermitPlugin] = []
        self.pre_bind: list[PreBindPlugin] = []
        self.bind: list[BindPlugin] = []
        self.post_bind: list[PostBindPlugin] = []
        self.weights: dict[str, int] = {}
        # explain-schedule --trace: each extension point's plugins and statuses as they run
        self.trace: Trace | None = None

        # Plugins needed by any extension point, and their args.
        needed: list[str] = []
        for key in ["multiPoint"] + [e[0] for e in EXTENSION_POINTS]:
            for p in _names(cfg.get(key), "enabled"):
                if p.get("name") not in needed:
                    needed.append(p["name"])
        plugin_args: dict[str, dict] = {}
        for pc in profile.get("pluginConfig") or []:
            name = pc.get("name", "")
            if name in plugin_args:
                raise FrameworkError(f"repeated config for plugin {name}")
            plugin_args[name] = pc.get("args") or {}
        for name in needed:
            factory = registry.get(name)
            if factory is None:
                continue
            try:
                self.plugins[name] = factory(plugin_args.get(name), self.handle)
            except (ValueError, TypeError) as e:
                raise FrameworkError(f"initializing plugin {q(name)}: {e}") from None

        def note_unimplemented(name: str, type_name: str) -> None:
            if name not in known:
                raise FrameworkError(f"{type_name} {q(name)} does not exist")
            if name not in self.unimplemented:
                self.unimplemented.append(name)

        lists: dict[str, list] = {
            "preFilter": self.pre_filter, "filter": self.filter, "postFilter": self.post_filter,
            "reserve": self.reserve, "preScore": self.pre_score, "score": self.score,
            "preBind": self.pre_bind, "bind": self.bind, "postBind": self.post_bind,
            "permit": self.permit, "preEnqueue": self.pre_enqueue, "queueSort": self.queue_sort,
        }
        # updatePluginList: the explicitly enabled plugins of each extension point.
        for key, type_name, iface in EXTENSION_POINTS:
            seen: set[str] = set()
            for p in _names(cfg.get(key), "enabled"):
                name = p["name"]
                pl = self.plugins.get(name)
                if pl is None:
                    note_unimplemented(name, type_name)
                    continue
                if not isinstance(pl, iface):
                    raise FrameworkError(f"plugin {q(name)} does not extend {type_name} plugin")
                if name in seen:
                    raise FrameworkError(f"plugin {q(name)} already registered as {q(type_name)}")
                seen.add(name)
                lists[key].append(pl)

        # expandMultiPointPlugins.
        multi = _names(cfg.get("multiPoint"), "enabled")
        if multi:
            for key, type_name, iface in EXTENSION_POINTS:
                enabled_names = [p["name"] for p in _names(cfg.get(key), "enabled")]
                disabled = {p.get("name") for p in _names(cfg.get(key), "disabled")}
                if "*" in disabled:
                    continue
                multi_enabled: list[str] = []
                overrides: list[str] = []
                for p in multi:
                    name = p["name"]
                    pl = self.plugins.get(name)
                    if pl is None:
                        note_unimplemented(name, type_name)
                        continue
                    if not isinstance(pl, iface):
                        continue
                    if name in disabled:
                        continue
                    if name in enabled_names:
                        if name not in overrides:
                            overrides.append(name)
                        continue
                    if name in multi_enabled:
                        raise FrameworkError(
                            f"plugin {q(name)} already registered as {q(type_name)}")
                    multi_enabled.append(name)
                ordered = [n for n in enabled_names if n in overrides]
                ordered += multi_enabled
                ordered += [n for n in enabled_names if n not in overrides]
                lists[key][:] = [self.plugins[n] for n in ordered if n in self.plugins]

        if len(self.queue_sort) != 1:
            raise FrameworkError(
                "only one queue sort plugin required for profile with scheduler name "
                f"{q(self.profile_name)}, but got {len(self.queue_sort)}")
        if not self.bind:
            raise FrameworkError(
                f"at least one bind plugin is needed for profile with scheduler name "
                f"{q(self.profile_name)}")

        # getScoreWeights: an explicit Score entry wins over the multiPoint one.
        total = 0
        for p in _names(cfg.get("score"), "enabled") + multi:
            name = p["name"]
            pl = self.plugins.get(name)
            if pl is None or not isinstance(pl, ScorePlugin) or name in self.weights:
                continue
            w = int(p.get("weight") or 0) or 1
            self.weights[name] = w
            if w * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                raise FrameworkError("total score of Score plugins could overflow")
            total += w * MAX_NODE_SCORE
        for pl in self.score:
            if not self.weights.get(pl.name):
                raise FrameworkError(f"score plugin {q(pl.name)} is not configured with weight")

        # fillEnqueueExtensions, for every plugin the profile needs.
        self.enqueue_extensions: list[tuple[str, list[ClusterEventWithHint]]] = []
        for name, pl in self.plugins.items():
            if not isinstance(pl, (PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, ReservePlugin,
                                   PermitPlugin)):
                continue
            events = pl.events_to_register() if isinstance(pl, EnqueueExtensions) \
                else unroll_wildcard_resource()
            self.enqueue_extensions.append((name, list(events)))

        # Plugins that run the profile's own extension points (upstream's Handle embeds the
        # framework; DefaultPreemption runs the filters on nodes without their victims).
        for pl in self.plugins.values():
            bind = getattr(pl, "bind_framework", None)
            if bind is not None:
                bind(self)

    # -- queueing --------------------------------------------------------------------------
    def queue_sort_less(self):
        return self.queue_sort[0].less

    def run_pre_enqueue_plugins(self, pod: PodInfo) -> Status | None:
        tr = self.trace
        step = tr.step("PreEnqueue") if tr is not None else None
        for pl in self.pre_enqueue:
            s = pl.pre_enqueue(pod)
            if step is not None:
                Trace.plugin(step, pl.name, s)
            if s is None or s.is_success():
                continue
            return s.clone().with_plugin(pl.name) if s.is_rejected() else Status(
                Code.Error, err=f"running PreEnqueue plugin {q(pl.name)}: {s.as_error()}",
                plugin=pl.name)
        return None

    # -- filtering -------------------------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter)

    def has_score_plugins(self) -> bool:
        return bool(self.score)

    def run_pre_filter_plugins(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                               record: dict | None = None
                               ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Returns (node restriction, status, plugins that restricted nodes); ``record``
        receives every plugin's (result, status) that ran."""
        skip: set[str] = set()
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        returned: Status | None = None
        tr = self.trace
        step = tr.step("PreFilter") if tr is not None else None
        try:
            h = self.handle
            named = h.v(4)  # (only then does Handle.scope name the plugin's logger)
            success = Code.Success
            for pl in self.pre_filter:
                r, s = h.call_scoped("PreFilter", pl.name, pl.pre_filter, state, pod, nodes) if named \
                    else pl.pre_filter(state, pod, nodes)
                if record is not None:
                    record[pl.name] = (r, s)
                if step is not None:
                    extra = {"nodeNames": sorted(r.node_names or ())} \
                        if r is not None and not r.all_nodes() else {}
                    Trace.plugin(step, pl.name, s, **extra)
                if s is not None and s.code != success:
                    if s.code == Code.Skip:
                        skip.add(pl.name)
                        continue
                    s.plugin = pl.name
                    if s.code == Code.UnschedulableAndUnresolvable:
                        return None, s, set()
                    if s.code == Code.Unschedulable:
                        returned = s
                        continue
                    return None, Status(
                        Code.Error, err=f"running PreFilter plugin {q(pl.name)}: {s.as_error()}",
                        plugin=pl.name), set()
                if r is None and result is None:
                    continue  # (all nodes, merged with all nodes)
                if r is not None and not r.all_nodes():
                    with_nodes.add(pl.name)
                result = merge_pre_filter_results(result, r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) {go_list(names)} simultaneously"
                    return result, Status(Code.UnschedulableAndUnresolvable, msg), with_nodes
            return result, returned, with_nodes
        finally:
            state.skip_filter_plugins = frozenset(skip)

    def run_remaining_pre_filter_plugins(self, state: CycleState, pod: PodInfo,
                                         nodes: list[NodeInfo], record: dict) -> CycleState:
        """For an explanation after PreFilter stopped early: the PreFilter plugins that did not
        run (not in ``record``) run on a copy of the cycle state, which is returned, and add
        their (result, status) to ``record``. The cycle's own state stays as upstream leaves
        it: PostFilter plugins must not see state written by PreFilters that never ran."""
        out = state.clone()
        for pl in self.pre_filter:
            if pl.name not in record:
                record[pl.name] = pl.pre_filter(out, pod, nodes)
        return out

    def _pre_filter_extensions(self) -> list[tuple[str, PreFilterExtensions]]:
        """(name, extensions) of the PreFilter plugins that have AddPod/RemovePod, in order
        (a plugin's ``pre_filter_extensions`` is fixed; asked once per plugin list)."""
        c = getattr(self, "_pf_extensions", None)
        if c is None or c[0] is not self.pre_filter or c[1] != len(self.pre_filter):
            c = self._pf_extensions = (self.pre_filter, len(self.pre_filter), [
                (pl.name, ext) for pl in self.pre_filter
                if (ext := pl.pre_filter_extensions()) is not None])
        return c[2]

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: PodInfo,
                                         to_add: PodInfo, node: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_extensions():
            if name in skip:
                continue
            s = ext.add_pod(state, pod, to_add, node)
            if s is not None and not s.is_success():
                return Status(Code.Error, err=f"running AddPod on PreFilter plugin {q(name)}: "
                                              f"{s.as_error()}")
        return None

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: PodInfo,
                                            to_remove: PodInfo, node: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_extensions():
            if name in skip:
                continue
            s = ext.remove_pod(state, pod, to_remove, node)
            if s is not None and not s.is_success():
                return Status(Code.Error, err=f"running RemovePod on PreFilter plugin "
                                              f"{q(name)}: {s.as_error()}")
        return None

    def _verbose(self) -> bool:
        h = self.handle
        return h.log is not None and h.v(4)

    def run_filter_plugins(self, state: CycleState, pod: PodInfo, node: NodeInfo
                           ) -> Status | None:
        skip = state.skip_filter_plugins
        named = self._verbose()
        for pl in self.filter:
            if pl.name in skip:
                continue
            s = self.handle.call_scoped("Filter", pl.name, pl.filter, state, pod, node) if named \
                else pl.filter(state, pod, node)
            if s is not None and s.code != Code.Success:
                if not s.is_rejected():
                    s = Status(Code.Error,
                               err=f"running {q(pl.name)} filter plugin: {s.as_error()}")
                s.plugin = pl.name
                return s
        return None

    def compile_filters(self, state: CycleState, pod: PodInfo
                        ) -> list[tuple[str, Callable[[NodeInfo], Status | None]]]:
        """This cycle's filters as (name, fn) for the fast path; plugins that pass every node
        (and those PreFilter skipped) are left out."""
        out = []
        skip = state.skip_filter_plugins
        named = self._verbose()
        for pl in self.filter:
            if pl.name in skip:
                continue
            fn = pl.filter_fn(state, pod)
            if fn is not None:
                if named:
                    fn = self._scoped_fn(pl.name, fn)
                out.append((pl.name, fn))
        return out

    def _scoped_fn(self, name: str, fn: Callable[[NodeInfo], Status | None]
                   ) -> Callable[[NodeInfo], Status | None]:
        h = self.handle

        def scoped(node: NodeInfo) -> Status | None:
            saved = h.scope("Filter", name)
            try:
                return fn(node)
            finally:
                h.unscope(saved)
        return scoped

    @staticmethod
    def run_compiled_filters(fns: list[tuple[str, Callable[[NodeInfo], Status | None]]],
                             node: NodeInfo) -> Status | None:
        """``run_filter_plugins`` over compiled filters."""
        for name, fn in fns:
            s = fn(node)
            if s is not None and s.code != Code.Success:
                if not s.is_rejected():
                    s = Status(Code.Error, err=f"running {q(name)} filter plugin: {s.as_error()}")
                s.plugin = name
                return s
        return None

    def run_all_filter_plugins(self, state: CycleState, pod: PodInfo, node: NodeInfo
                               ) -> list[tuple[str, Status | None | str]]:
        """Every filter's verdict on the node: a status, None (passed) or "skipped"."""
        out: list[tuple[str, Status | None | str]] = []
        skip = state.skip_filter_plugins
        named = self._verbose()
        for pl in self.filter:
            if pl.name in skip:
                out.append((pl.name, "skipped"))
                continue
            s = self.handle.call_scoped("Filter", pl.name, pl.filter, state, pod, node) if named \
                else pl.filter(state, pod, node)
            if s is not None and s.code != Code.Success:
                if not s.is_rejected():
                    s = Status(Code.Error,
                               err=f"running {q(pl.name)} filter plugin: {s.as_error()}")
                s.plugin = pl.name
                out.append((pl.name, s))
            else:
                out.append((pl.name, None))
        return out

    def add_nominated_pods(self, state: CycleState, pod: PodInfo, node: NodeInfo,
                           nominated: list[PodInfo] | None
                           ) -> tuple[CycleState, NodeInfo, Status | None] | None:
        """``addGENominatedPods``: copies of the state and node with the nominated pods of
        equal or higher priority added, or None when there are none."""
        if not nominated:
            return None
        eligible = [p for p in nominated if p.priority >= pod.priority and p.key != pod.key]
        if not eligible:
            return None
        node_out = node.clone()
        state_out = state.clone()
        for p in eligible:
            node_out.add_pod(p)
            s = self.run_pre_filter_extension_add_pod(state_out, pod, p, node_out)
            if s is not None:
                return state, node, s
        return state_out, node_out, None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo,
                                               node: NodeInfo,
                                               nominated: list[PodInfo] | None) -> Status | None:
        added = False
        state_to_use, node_to_use = state, node
        aug = self.add_nominated_pods(state, pod, node, nominated)
        if aug is not None:
            state_to_use, node_to_use, err = aug
            if err is not None:
                return err
            added = True
        status = self.run_filter_plugins(state_to_use, pod, node_to_use)
        if not added or status is not None:
            return status
        return self.run_filter_plugins(state, pod, node)

    def run_post_filter_plugins(self, state: CycleState, pod: PodInfo,
                                node_to_status: NodeToStatusReader, record: dict | None = None
                                ) -> tuple[PostFilterResult | None, Status | None]:
        """Until the first Success, Error or UnschedulableAndUnresolvable; otherwise every plugin
        runs and their reasons are joined. ``record`` receives each plugin's status that ran."""
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        step = self.trace.step("PostFilter") if self.trace is not None else None
        h = self.handle
        for pl in self.post_filter:
            saved = h.scope("PostFilter", pl.name)
            try:
                r, s = pl.post_filter(state, pod, node_to_status)
            finally:
                h.unscope(saved)
            if record is not None:
                record[pl.name] = s
            if step is not None:
                Trace.plugin(step, pl.name, s, **({"nominatedNodeName": r.nominated_node_name}
                                                  if r is not None and r.nominated_node_name
                                                  else {}))
            if s is None or s.is_success():
                return r, s
            if s.code == Code.UnschedulableAndUnresolvable:
                return r, s.with_plugin(pl.name)
            if not s.is_rejected():
                return None, Status(Code.Error, err=s.as_error(), plugin=pl.name)
            if r is not None and r.mode_override:
                result = r
            reasons.extend(s.all_reasons())
            if not rejector:
                rejector = pl.name
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # -- scoring ---------------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                              record: dict | None = None) -> Status | None:
        skip: set[str] = set()
        step = self.trace.step("PreScore") if self.trace is not None else None
        try:
            h = self.handle
            named = h.v(4)  # (only then does Handle.scope name the plugin's logger)
            for pl in self.pre_score:
                s = h.call_scoped("PreScore", pl.name, pl.pre_score, state, pod, nodes) if named \
                    else pl.pre_score(state, pod, nodes)
                if record is not None:
                    record[pl.name] = s
                if step is not None:
                    Trace.plugin(step, pl.name, s)
                if s is not None and s.code == Code.Skip:
                    skip.add(pl.name)
                    continue
                if s is not None and not s.is_success():
                    return Status(Code.Error, err=f"running PreScore plugin {q(pl.name)}: "
                                                  f"{s.as_error()}")
            return None
        finally:
            state.skip_score_plugins = frozenset(skip)

    def run_score_plugins(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                          ) -> tuple[ScoreTable | None, Status | None]:
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.score if pl.name not in skip]
        table = ScoreTable(node_names=[n.name for n in nodes], plugins=[p.name for p in plugins],
                           weights=dict(self.weights),
                           skipped=[p.name for p in self.score if p.name in skip])
        h = self.handle
        lines: list | None = None
        if h.log is not None and h.v(10):
            # upstream scores node by node, each plugin in turn: plugins' lines in that order
            lines = []
            log, h.log = h.log, lambda *args: lines.append((h.log_name, args))  # type: ignore[union-attr]
        names = table.node_names
        try:
            out, s = self._score(state, pod, nodes, plugins, table)
        finally:
            if lines is not None:
                h.log = log
                order = {n: i for i, n in enumerate(names)}
                lines.sort(key=lambda line: order.get(line[1][3].get("node"), -1))
                for name, args in lines:
                    saved = h.log_name
                    h.log_name = name
                    log(*args)
                    h.log_name = saved
        return out, s

    def score_totals(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                     ranges: tuple[list[NodeInfo], list[tuple[int, int]]] | None = None
                     ) -> list[int] | None:
        """``run_score_plugins``' totals alone, the node-local plugins' weighted sum taken from
        each node's memo for the pod's class (framework/equivalence.py) — or, with
        ``ranges`` = (the node list, the (start, end) slices of it ``nodes`` is made of), from
        the class's index of them —, the other plugins scored and normalized as there. None
        when the cache does not apply or something failed: the caller then runs
        ``run_score_plugins``, which reports it."""
        got = self.shifted_score_totals(state, pod, nodes, ranges)
        if got is None:
            return None
        totals, shift = got
        return [t + shift for t in totals] if shift else totals

    def shifted_score_totals(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                             ranges: tuple[list[NodeInfo], list[tuple[int, int]]] | None = None
                             ) -> tuple[list[int], int] | None:
        """``score_totals`` as (the totals less a number every node's total has in it, that
        number): a plugin that scores every node alike (TaintToleration where no node has a
        PreferNoSchedule taint) adds to the number instead of to each total. The nodes' order
        by total, all that selecting the host reads, is the same."""
        h = self.handle
        if not equivalence.ENABLED or (h.log is not None and h.v(10)):
            return None
        local, raw, rest = self._score_split(state.skip_score_plugins)
        if not local and not raw:
            return None

        named = h.v(4)  # (only at V(4) does Handle.scope name the plugin's logger)

        def score_nodes(pl, sub: list[NodeInfo]):
            return h.call_scoped("Score", pl.name, pl.score_nodes, state, pod, sub) if named \
                else pl.score_nodes(state, pod, sub)

        if ranges is not None:
            got = equivalence.ranged_local_totals(self, state, pod, ranges[0], ranges[1], local,
                                                  score_nodes, raw)
        else:
            values = equivalence.local_totals(self, state, pod, nodes, local, score_nodes, raw)
            got = None if values is None else equivalence.columns(values, raw)
        if got is None:
            return None
        totals, raw_scores = got
        shift = 0
        if raw:
            added = self._add_normalized(state, pod, nodes, raw, totals, raw_scores)
            if added is None:
                return None
            totals, shift = added
        if not rest:
            return totals, shift
        # (the names only if a NormalizeScore without normalize_list asks for them)
        table = ScoreTable(node_names=None, plugins=[p.name for p in rest],
                           weights=dict(self.weights), skipped=[])
        out, s = self._score(state, pod, nodes, rest, table)
        if s is not None or out is None:
            return None
        # (the other plugins mostly add nothing: DynamicResources for a pod without claims)
        return (list(map(add, totals, out.totals)) if any(out.totals) else totals), shift

    def _score_split(self, skip: frozenset[str]) -> tuple[list, list, list]:
        """``equivalence.split_scores`` of the Score plugins not in ``skip`` (read-only lists),
        kept per ``skip`` for this plugin list (what it reads of a plugin is its class's)."""
        c = getattr(self, "_score_splits", None)
        if c is None or c[0] is not self.score or c[1] != len(self.score):
            c = self._score_splits = (self.score, len(self.score), {})
        got = c[2].get(skip)
        if got is None:
            got = c[2][skip] = equivalence.split_scores(
                [pl for pl in self.score if pl.name not in skip])
        return got

    def _add_normalized(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                        raw: list, totals: list[int], raw_scores: list[list[int]]
                        ) -> tuple[list[int], int] | None:
        """``totals`` (the other plugins' weighted sums) plus ``_score``'s NormalizeScore, range
        check and weights for the ``raw`` plugins, of raw scores ``raw_scores``: the totals
        and the weighted score of those plugins that score every node alike, not added to
        them (``shifted_score_totals``), or None when a normalization fails or leaves a score
        out of range (``run_score_plugins`` then reports it)."""
        shift = 0
        for pl, scores in zip(raw, raw_scores):
            if pl.normalize_list is not None:
                norm = pl.normalize_list(state, pod, scores)
                if isinstance(norm, Status):
                    if not norm.is_success():
                        return None
                    norm = scores
            else:
                node_scores = [NodeScore(n.name, v) for n, v in zip(nodes, scores)]
                s = pl.normalize_score(state, pod, node_scores)
                if s is not None and not s.is_success():
                    return None
                norm = [x.score for x in node_scores]
            if not norm:
                continue
            first = norm[0]
            if first == norm[-1] and norm.count(first) == len(norm):
                hi = lo = first  # (every node alike: TaintToleration where no node has a taint)
            else:
                hi, lo = max(norm), min(norm)
            if hi > MAX_NODE_SCORE or lo < MIN_NODE_SCORE:
                return None
            if hi == 0 and lo == 0:
                continue
            w = self.weights[pl.name]
            if hi == lo:
                shift += hi * w
            elif w == 1:
                totals = list(map(add, totals, norm))
            else:
                totals = list(map(add, totals, map(mul, norm, repeat(w))))
        return totals, shift

    def _score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo], plugins: list,
               table: ScoreTable) -> tuple[ScoreTable | None, Status | None]:
        h = self.handle
        named = h.v(4)  # (only then does Handle.scope name the plugin's logger)
        for pl in plugins:
            raw = h.call_scoped("Score", pl.name, pl.score_nodes, state, pod, nodes) if named \
                else pl.score_nodes(state, pod, nodes)
            if isinstance(raw, Status):
                return None, Status(Code.Error, err=f"running Score plugins: plugin "
                                                    f"{q(pl.name)} failed with: {raw.as_error()}")
            table.raw[pl.name] = list(raw)
            if pl.has_normalize and pl.normalize_list is not None:
                res = pl.normalize_list(state, pod, table.raw[pl.name])
                if isinstance(res, Status):
                    if res.is_success():
                        res = table.raw[pl.name]
                    else:
                        return None, Status(Code.Error, err=f"running Normalize on Score plugins: "
                                                            f"plugin {q(pl.name)} failed with: "
                                                            f"{res.as_error()}")
                table.normalized[pl.name] = list(res)
            elif pl.has_normalize:
                names = table.node_names if table.node_names is not None else [n.name for n in nodes]
                scores = [NodeScore(n, v) for n, v in zip(names, raw)]
                s = pl.normalize_score(state, pod, scores)
                if s is not None and not s.is_success():
                    return None, Status(Code.Error, err=f"running Normalize on Score plugins: "
                                                        f"plugin {q(pl.name)} failed with: "
                                                        f"{s.as_error()}")
                table.normalized[pl.name] = [x.score for x in scores]
            else:
                table.normalized[pl.name] = table.raw[pl.name]
        # Weights, with upstream's range check (reporting the first node, then plugin, at fault).
        totals = [0] * len(nodes)
        for pl in plugins:
            norm = table.normalized[pl.name]
            if not norm or not any(norm):
                continue  # (all zeros: in range, adding nothing)
            hi, lo = max(norm), min(norm)
            if hi > MAX_NODE_SCORE or lo < MIN_NODE_SCORE:
                for i, v in enumerate(norm):
                    bad = [(p.name, table.normalized[p.name][i]) for p in plugins
                           if not MIN_NODE_SCORE <= table.normalized[p.name][i] <= MAX_NODE_SCORE]
                    if bad:
                        name, v = bad[0]
                        return None, Status(Code.Error, err=(
                            "applying score defaultWeights on Score plugins: plugin "
                            f"{q(name)} returns an invalid score {v}, it should in the range "
                            f"of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"))
            w = self.weights[pl.name]
            if w == 1:
                totals = list(map(add, totals, norm))
            else:
                totals = list(map(add, totals, map(mul, norm, repeat(w))))
        table.totals = totals
        return table, None

    # -- reserve, permit, bind --------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: PodInfo, node_name: str
                                    ) -> Status | None:
        h = self.handle
        step = self.trace.step("Reserve", node=node_name) if self.trace is not None else None
        for pl in self.reserve:
            saved = h.scope("Reserve", pl.name, node=node_name)
            try:
                s = pl.reserve(state, pod, node_name)
            finally:
                h.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, s)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status(Code.Error,
                              err=f"running Reserve plugin {q(pl.name)}: {s.as_error()}")
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: PodInfo,
                                      node_name: str) -> None:
        h = self.handle
        step = self.trace.step("Unreserve", node=node_name) if self.trace is not None else None
        for pl in reversed(self.reserve):
            saved = h.scope("Unreserve", pl.name, node=node_name)
            try:
                pl.unreserve(state, pod, node_name)
            finally:
                h.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, None)

    def run_permit_plugins(self, state: CycleState, pod: PodInfo, node_name: str
                           ) -> tuple[Status | None, dict[str, float]]:
        waits: dict[str, float] = {}
        h = self.handle
        step = self.trace.step("Permit", node=node_name) if self.trace is not None else None
        for pl in self.permit:
            saved = h.scope("Permit", pl.name, node=node_name)
            try:
                s, timeout = pl.permit(state, pod, node_name)
            finally:
                h.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, s, **({"timeoutSeconds": min(
                    float(timeout), MAX_PERMIT_TIMEOUT_SECONDS)} if s is not None and s.is_wait()
                    else {}))
            if s is None or s.is_success():
                continue
            if s.is_rejected():
                return s.with_plugin(pl.name), {}
            if s.is_wait():
                waits[pl.name] = min(float(timeout), MAX_PERMIT_TIMEOUT_SECONDS)
                continue
            return Status(Code.Error, err=f"running Permit plugin {q(pl.name)}: {s.as_error()}",
                          plugin=pl.name), {}
        if waits:
            return Status(Code.Wait, "one or more plugins asked to wait and no plugin rejected "
                                     f"pod {q(pod.name)}"), waits
        return None, {}

    def run_pre_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str
                             ) -> Status | None:
        step = self.trace.step("PreBind", node=node_name) if self.trace is not None else None
        for pl in self.pre_bind:
            if pl.name in state.skip_pre_bind_plugins:
                if step is not None:
                    Trace.plugin(step, pl.name, SKIP)
                continue
            saved = self.handle.scope("PreBind", pl.name, node=node_name)
            try:
                s = pl.pre_bind(state, pod, node_name)
            finally:
                self.handle.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, s)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status(Code.Error,
                              err=f"running PreBind plugin {q(pl.name)}: {s.as_error()}")
        return None

    def run_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str
                         ) -> Status | None:
        if not self.bind:
            return Status(Code.Skip, "")
        status: Status | None = None
        h = self.handle
        step = self.trace.step("Bind", node=node_name) if self.trace is not None else None
        for pl in self.bind:
            saved = h.scope("Bind", pl.name)
            try:
                status = pl.bind(state, pod, node_name)
            finally:
                h.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, status)
            if status is not None and status.is_skip():
                continue
            if status is not None and not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name)
                return Status(Code.Error,
                              err=f"running Bind plugin {q(pl.name)}: {status.as_error()}")
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        h = self.handle
        step = self.trace.step("PostBind", node=node_name) if self.trace is not None else None
        for pl in self.post_bind:
            saved = h.scope("PostBind", pl.name)
            try:
                pl.post_bind(state, pod, node_name)
            finally:
                h.unscope(saved)
            if step is not None:
                Trace.plugin(step, pl.name, None)

    def list_plugins(self) -> dict[str, list[str]]:
        """Enabled plugins per extension point (``ListPlugins``), for logs and explanations."""
        out: dict[str, list[str]] = {}
        for key, attr in (("preEnqueue", "pre_enqueue"), ("queueSort", "queue_sort"),
                          ("preFilter", "pre_filter"), ("filter", "filter"),
                          ("postFilter", "post_filter"), ("preScore", "pre_score"),
                          ("score", "score"), ("reserve", "reserve"), ("permit", "permit"),
                          ("preBind", "pre_bind"), ("bind", "bind"), ("postBind", "post_bind")):
            names = [p.name for p in getattr(self, attr)]
            if names:
                out[key] = names
        return out
