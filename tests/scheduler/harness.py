"""Small drivers that run one plugin the way the framework would (PreFilter/PreScore first)."""

from __future__ import annotations

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (FilterPlugin, Handle, NodeScore,
                                                   PreFilterPlugin, PreScorePlugin)
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo


def snapshot(nodes: list[dict], pods: list[dict] = ()) -> Snapshot:
    return Snapshot.build(nodes, pods)


def node_info(node: dict, pods: list[dict] = ()) -> NodeInfo:
    return NodeInfo(node, [PodInfo(p) for p in pods])


def run_filter(plugin, pod: dict, node: dict, existing: list[dict] = ()) -> Status | None:
    """PreFilter (a Skip means the filter would not run: returns "skipped"), then Filter."""
    state = CycleState()
    pi = PodInfo(pod)
    ni = node_info(node, [p for p in existing if (p.get("spec") or {}).get("nodeName")])
    if isinstance(plugin, PreFilterPlugin):
        _, s = plugin.pre_filter(state, pi, [ni])
        if s is not None and s.code == Code.Skip:
            return "skipped"  # type: ignore[return-value]
        if s is not None and not s.is_success():
            return s
    assert isinstance(plugin, FilterPlugin)
    got = plugin.filter(state, pi, ni)
    # The runtime's compiled filter agrees, also when asked again (verdicts some plugins
    # remember per node) and for another pod like this one (not when the test reads the log
    # lines Filter writes).
    for p in () if getattr(plugin.handle, "log", None) is not None else (pi, pi, PodInfo(pod)):
        fn = plugin.filter_fn(state, p)
        assert (None if fn is None else fn(ni)) == got
    return got


def run_scores(plugin, pod: dict, nodes: list[dict], existing: list[dict] = (),
               normalize: bool = True) -> list[int] | str:
    """PreScore, Score on every node, NormalizeScore; "skipped" when PreScore skips."""
    snap = snapshot(nodes, existing)
    plugin.handle = Handle(snap)
    state = CycleState()
    pi = PodInfo(pod)
    infos = snap.list()
    by_name = {ni.name: ni for ni in infos}
    if isinstance(plugin, PreScorePlugin):
        s = plugin.pre_score(state, pi, infos)
        if s is not None and s.code == Code.Skip:
            return "skipped"
        assert s is None or s.is_success(), s
    scores = []
    for n in nodes:
        name = n["metadata"]["name"]
        v, s = plugin.score(state, pi, by_name[name])
        assert s is None or s.is_success(), s
        scores.append(NodeScore(name, v))
    if normalize and plugin.has_normalize:
        s = plugin.normalize_score(state, pi, scores)
        assert s is None or s.is_success(), s
    # The runtime's batch path (score_nodes, then normalize_list when the plugin has one)
    # must give the same numbers.
    batch = plugin.score_nodes(state, pi, [by_name[n["metadata"]["name"]] for n in nodes])
    assert not isinstance(batch, Status), batch
    if normalize and plugin.has_normalize and plugin.normalize_list is not None:
        res = plugin.normalize_list(state, pi, list(batch))
        if isinstance(res, Status):
            assert res.is_success(), res
        else:
            batch = res
    elif normalize and plugin.has_normalize:
        batch = [x.score for x in scores]
    assert list(batch) == [x.score for x in scores]
    return [x.score for x in scores]
