"""Every plugin's fast paths (``filter_fn``, ``score_nodes``) agree with Filter and Score, and the
scheduler decides the same with and without explanations, on randomly generated clusters."""

import random

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (FilterPlugin, Handle, PreFilterPlugin,
                                                   PreScorePlugin, ScorePlugin)
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.status import Code
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.registry import REGISTRY
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_node, make_pod

ZONES = ["a", "b", "c"]
IMAGES = ["nginx", "redis:7", "busybox"]


def random_node(rng, i):
    w = make_node(f"n{i}").capacity({"example.com/gpu": str(rng.choice([0, 1, 2]))},
                                    cpu=rng.choice(["1", "2", "4"]),
                                    memory=rng.choice(["2Gi", "4Gi"]), pods=rng.choice(["3", "110"]))
    w.zone(rng.choice(ZONES), "r1").label("disk", rng.choice(["ssd", "hdd"]))
    if rng.random() < 0.3:
        w.taint("dedicated", rng.choice(["a", "b"]), rng.choice(["NoSchedule", "PreferNoSchedule"]))
    if rng.random() < 0.1:
        w.unschedulable()
    if rng.random() < 0.5:
        w.image(rng.choice([10, 100, 500]) * 1024 * 1024, rng.choice(IMAGES) + (
            "" if rng.random() < 0.5 else ":latest"))
    return w.obj()


def random_pod(rng, name, node=None):
    w = make_pod(name)
    reqs = {}
    if rng.random() < 0.8:
        reqs["cpu"] = rng.choice(["100m", "500m", "1", "3"])
    if rng.random() < 0.7:
        reqs["memory"] = rng.choice(["128Mi", "1Gi", "3Gi"])
    if rng.random() < 0.15:
        reqs["example.com/gpu"] = "1"
    w.container(image=rng.choice(IMAGES), requests=reqs or None)
    if rng.random() < 0.2:
        w.host_port(rng.choice([80, 443]))
    if rng.random() < 0.3:
        w.toleration("dedicated", "Equal", rng.choice(["a", "b"]), rng.choice(["", "NoSchedule"]))
    if rng.random() < 0.2:
        w.node_selector({"disk": "ssd"})
    if rng.random() < 0.2:
        w.preferred(rng.choice([1, 50]), {"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [rng.choice(ZONES)]}]})
    if rng.random() < 0.1:
        w.toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
    if node:
        w.node(node)
    return w.obj()


def random_cluster(seed):
    rng = random.Random(seed)
    nodes = [random_node(rng, i) for i in range(rng.randint(1, 12))]
    pods = [random_pod(rng, f"e{i}", rng.choice(nodes)["metadata"]["name"])
            for i in range(rng.randint(0, 15))]
    return rng, nodes, pods


@pytest.mark.parametrize("seed", range(40))
def test_fast_paths_agree_with_filter_and_score(seed):
    rng, nodes, pods = random_cluster(seed)
    snap = Snapshot.build(nodes, pods)
    handle = Handle(snap)
    for _ in range(5):
        pod = PodInfo(random_pod(rng, "incoming"))
        for name, cls in REGISTRY.items():
            pl = cls(None, handle)
            state = CycleState()
            if isinstance(pl, PreFilterPlugin):
                _, s = pl.pre_filter(state, pod, snap.list())
                if s is not None and s.code == Code.Skip:
                    continue
            if isinstance(pl, FilterPlugin):
                fn = pl.filter_fn(state, pod)
                for ni in snap.list():
                    want = pl.filter(state, pod, ni)
                    got = None if fn is None else fn(ni)
                    assert got == want, (name, ni.name)
            if isinstance(pl, ScorePlugin):
                if isinstance(pl, PreScorePlugin):
                    s = pl.pre_score(state, pod, snap.list())
                    if s is not None and s.code == Code.Skip:
                        continue
                want = [pl.score(state, pod, ni)[0] for ni in snap.list()]
                assert pl.score_nodes(state, pod, snap.list()) == want, name


@pytest.mark.parametrize("seed", range(25))
def test_decisions_do_not_depend_on_explanations(seed):
    rng, nodes, pods = random_cluster(seed)
    incoming = [random_pod(rng, f"p{i}") for i in range(6)]
    results = []
    for explain in (True, False):
        s = Scheduler(None, random.Random(seed), explain=explain)
        s.set_cluster(nodes, pods)
        results.append([(r.outcome, r.node, r.message) for r in
                         (s.schedule_one(p, 0.0) for p in incoming)])
    assert results[0] == results[1]
