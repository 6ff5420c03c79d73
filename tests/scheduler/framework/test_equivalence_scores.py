"""The equivalence cache's totals (``Framework.score_totals``) equal ``run_score_plugins``' totals,
the node-local plugins with NormalizeScore (TaintToleration, NodeAffinity) included: their raw
scores are remembered per node like the others' sums and normalized over the cycle's nodes.

Upstream: pkg/scheduler/framework/runtime/framework.go ``RunScorePlugins`` (Score, then
NormalizeScore over the nodes, then the range check and the weights);
plugins/tainttoleration/taint_toleration.go and plugins/nodeaffinity/node_affinity.go
(``NormalizeScore``: helper.DefaultNormalizeScore, reversed for TaintToleration).
"""

from __future__ import annotations

import random

import pytest

from kubesim.scheduler.framework import equivalence
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.scheduler import Scheduler
from kubesim.testing.wrappers import make_node, make_pod


def _node(name: str, taint: str = "", disk: str = "") -> dict:
    w = make_node(name).capacity(cpu="4", memory="8Gi", pods="110")
    if taint:
        w.taint("dedicated", taint, "PreferNoSchedule")
    if disk:
        w.label("disk", disk)
    return w.obj()


PLAIN = make_pod("p").req(cpu="100m").obj()
TOLERATES_A = make_pod("p").req(cpu="100m").toleration("dedicated", "Equal", "a",
                                                        "PreferNoSchedule").obj()
PREFERS_SSD = make_pod("p").req(cpu="100m").preferred(
    5, {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}).obj()


@pytest.mark.parametrize("nodes, pod, raw", [
    # TaintToleration: no node has a PreferNoSchedule taint, so every raw score is 0 and
    # reverse-normalizes to 100 (weight 3: 300 on every node)
    pytest.param([_node("n1"), _node("n2"), _node("n3")], PLAIN, ["TaintToleration"],
                 id="no node tainted: every node alike"),
    # raw 0, 1, 1: max 1, so 100 - 100*0/1 = 100 and 100 - 100*1/1 = 0 (times 3)
    pytest.param([_node("n1"), _node("n2", "a"), _node("n3", "b")], PLAIN, ["TaintToleration"],
                 id="the more intolerable taints a node has, the lower its score"),
    pytest.param([_node("n1"), _node("n2", "a"), _node("n3", "b")], TOLERATES_A,
                 ["TaintToleration"], id="a tolerated taint does not count"),
    # NodeAffinity: raw 5 on the ssd node, 0 elsewhere; max 5, so 100 and 0 (times 2)
    pytest.param([_node("n1", disk="ssd"), _node("n2", disk="hdd"), _node("n3")], PREFERS_SSD,
                 ["TaintToleration", "NodeAffinity"], id="preferred node affinity, normalized"),
])
def test_cached_totals_equal_the_score_plugins_totals(nodes, pod, raw):
    s = Scheduler(None, random.Random(1))
    s.set_cluster(nodes, [])
    fwk = s.framework_for(pod)
    pi = PodInfo(pod)
    state = CycleState()
    infos = s.snapshot.node_info_list
    fwk.run_pre_filter_plugins(state, pi, infos)
    assert fwk.run_pre_score_plugins(state, pi, infos) is None
    _local, got_raw, _rest = equivalence.split_scores(
        [pl for pl in fwk.score if pl.name not in state.skip_score_plugins])
    assert [pl.name for pl in got_raw] == raw
    table, status = fwk.run_score_plugins(state, pi, infos)
    assert status is None
    assert fwk.score_totals(state, pi, infos) == table.totals
    # again from the nodes' memos, and from the class's index over slices of the list
    assert fwk.score_totals(state, pi, infos) == table.totals
    assert fwk.score_totals(state, pi, infos, (infos, [(0, len(infos))])) == table.totals
    assert fwk.score_totals(state, pi, infos[1:], (infos, [(1, len(infos))])) == \
        fwk.run_score_plugins(state, pi, infos[1:])[0].totals
    # what the cycle reads: the totals less what every node has alike (then the same host)
    shifted, shift = fwk.shifted_score_totals(state, pi, infos, (infos, [(0, len(infos))]))
    assert [t + shift for t in shifted] == table.totals
    assert shift == (300 if len(set(table.normalized["TaintToleration"])) == 1 else 0)


def test_pods_whose_cycles_skip_other_score_plugins_in_turn():
    # the split of the Score plugins (node-local, with NormalizeScore, others) is kept per set
    # of plugins PreScore skipped: pods that skip others, one after another, each get theirs
    s = Scheduler(None, random.Random(1))
    s.set_cluster([_node("n1", disk="ssd"), _node("n2", "a"), _node("n3")], [])
    infos = s.snapshot.node_info_list
    skipped = set()
    for pod in (PLAIN, PREFERS_SSD, PLAIN, TOLERATES_A, PREFERS_SSD):
        fwk = s.framework_for(pod)
        pi = PodInfo(pod)
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pi, infos)
        assert fwk.run_pre_score_plugins(state, pi, infos) is None
        skipped.add(state.skip_score_plugins)
        assert fwk.score_totals(state, pi, infos) == fwk.run_score_plugins(state, pi, infos)[0].totals
    assert len(skipped) == 2
