"""The equivalence cache (kubesim/scheduler/framework/equivalence.py) decides as a fresh
computation does.

Upstream's equivalence cache had its tests in pkg/scheduler/core/equivalence/eqivalence_test.go
(``TestRunPredicate``, ``TestInvalidateCachedPredicateItem``: a cached result is served until the
node is invalidated); here, as in tests/scheduler/framework/test_cache.py, random clusters take
random histories — pods of a few shapes scheduled one after another (each landing changes its
node), nodes relabelled, tainted, cordoned, resized, pods removed — and at every step the
scheduler with the cache must decide exactly as the one without it and as the one explaining
every plugin (which never uses it): the same outcome, node, message, evaluated and feasible
counts and rejecting plugins, whether the class indexes follow the change journal or, once it
was cleared, every node's generation.
"""

from __future__ import annotations

import copy
import random
from decimal import Decimal

import pytest

from kubesim.scheduler.framework import equivalence, types
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.scheduler import Scheduler
from tests.scheduler.test_fast_paths import random_node, random_pod


def _result(r) -> tuple:
    return (r.outcome, r.node, r.message, r.evaluated_nodes, r.feasible_nodes,
            sorted(r.unschedulable_plugins))


def _change_node(rng: random.Random, node: dict) -> dict:
    node = copy.deepcopy(node)
    md, spec, status = node["metadata"], node.setdefault("spec", {}), node["status"]
    what = rng.choice(["label", "taint", "cordon", "resize", "image"])
    if what == "label":
        md.setdefault("labels", {})["disk"] = rng.choice(["ssd", "hdd"])
    elif what == "taint":
        spec["taints"] = [] if spec.get("taints") else [
            {"key": "dedicated", "value": rng.choice(["a", "b"]),
             "effect": rng.choice(["NoSchedule", "PreferNoSchedule"])}]
    elif what == "cordon":
        spec["unschedulable"] = not spec.get("unschedulable")
    elif what == "resize":
        for k in ("capacity", "allocatable"):
            status[k]["cpu"] = rng.choice(["1", "2", "4", "8"])
            status[k]["pods"] = rng.choice(["3", "5", "110"])
    else:
        status["images"] = [{"names": [rng.choice(["nginx:latest", "redis:7"])],
                             "sizeBytes": rng.choice([10, 300]) * 1024 * 1024}]
    return node


def _history(seed: int):
    rng = random.Random(seed)
    many = seed % 4 == 0  # more nodes than a cycle visits (at least 100 feasible are looked for)
    nodes = [random_node(rng, i) for i in range(rng.randint(120, 260) if many else rng.randint(1, 12))]
    pods = [random_pod(rng, f"e{i}", rng.choice(nodes)["metadata"]["name"])
            for i in range(rng.randint(0, 15))]
    shapes = [random_pod(rng, "shape") for _ in range(rng.randint(1, 3))]
    initial = copy.deepcopy(nodes)
    steps = []
    for i in range(40):
        r = rng.random()
        if r < 0.15:
            at = rng.randrange(len(nodes))
            nodes[at] = _change_node(rng, nodes[at])
            steps.append(("node", copy.deepcopy(nodes[at])))
        elif r < 0.2:
            steps.append(("remove", rng.randrange(1 << 30)))
        else:
            pod = copy.deepcopy(rng.choice(shapes))
            pod["metadata"]["name"] = f"p{i}"
            pod["metadata"]["uid"] = f"uid-{i}"
            # the token volume is named afresh for each pod: not part of its class
            pod["spec"]["volumes"] = [{"name": f"kube-api-access-{i}", "emptyDir": {}}]
            steps.append(("pod", pod))
    return initial, pods, steps


def _run(seed: int, enabled: bool, explain: bool) -> list[tuple]:
    nodes, pods, steps = _history(seed)
    s = Scheduler(None, random.Random(seed), explain=explain)
    s.set_cluster(nodes, pods)
    out = []
    saved = equivalence.ENABLED
    equivalence.ENABLED = enabled
    try:
        for kind, arg in steps:
            if kind == "node":
                s.snapshot.get(arg["metadata"]["name"]).set_node(arg)
            elif kind == "remove":
                placed = [(ni, pi) for ni in s.snapshot.node_info_list for pi in ni.pods]
                if placed:
                    ni, pi = placed[arg % len(placed)]
                    ni.remove_pod(pi.key)
            else:
                out.append(_result(s.schedule_one(arg, 0.0)))
    finally:
        equivalence.ENABLED = saved
    return out


@pytest.mark.parametrize("seed", range(30))
def test_cached_decisions_equal_fresh_ones_on_random_histories(seed, monkeypatch):
    cached = _run(seed, enabled=True, explain=False)
    assert cached == _run(seed, enabled=False, explain=False)
    assert cached == _run(seed, enabled=True, explain=True)
    # the class indexes from a class's first cycle on (as from its ninth, above)
    monkeypatch.setattr(equivalence, "INDEX_AFTER", 0)
    assert _run(seed, enabled=True, explain=False) == cached
    # the change journal cleared every few changes: the class indexes compare every node's
    # generation instead (_NodeIndex._changed)
    monkeypatch.setattr(types, "_CHANGED_LIMIT", 3)
    assert _run(seed, enabled=True, explain=False) == cached


def _pod(**spec) -> PodInfo:
    return PodInfo({"metadata": {"name": "p"}, "spec": spec, "status": {}})


@pytest.mark.parametrize("a, b, same", [
    pytest.param(_pod(containers=[{"name": "c", "image": "nginx"}]),
                 _pod(containers=[{"name": "c", "image": "nginx"}]), True,
                 id="pods with one spec are one class"),
    pytest.param(_pod(containers=[{"name": "c", "image": "nginx",
                                   "volumeMounts": [{"name": "kube-api-access-x", "mountPath": "/a"}]}],
                      volumes=[{"name": "kube-api-access-x"}]),
                 _pod(containers=[{"name": "c", "image": "nginx",
                                   "volumeMounts": [{"name": "kube-api-access-y", "mountPath": "/a"}]}],
                      volumes=[{"name": "kube-api-access-y"}]), True,
                 id="the token volume's name does not make another class"),
    pytest.param(_pod(containers=[{"name": "c", "image": "nginx"}]),
                 _pod(containers=[{"name": "c", "image": "redis"}]), False,
                 id="another image is another class"),
    pytest.param(_pod(containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}]),
                 _pod(containers=[{"name": "c", "resources": {"requests": {"cpu": "2"}}}]), False,
                 id="other requests are another class"),
    pytest.param(_pod(containers=[{"name": "c"}]),
                 _pod(containers=[{"name": "c"}], tolerations=[{"operator": "Exists"}]), False,
                 id="a toleration makes another class"),
    pytest.param(_pod(containers=[{"name": "c", "image": "nginx"}], dnsPolicy="ClusterFirst"),
                 _pod(dnsPolicy="ClusterFirst", containers=[{"name": "c", "image": "nginx"}]), False,
                 id="the same spec with its keys in another order is another class (a miss, "
                    "never a wrong share)"),
    pytest.param(_pod(containers=[{"name": "c", "image": "nginx"}], x=Decimal("1")),
                 _pod(containers=[{"name": "c", "image": "nginx"}], x=Decimal("1")), True,
                 id="what marshal does not take is told apart as JSON"),
])
def test_pod_class(a, b, same):
    assert (equivalence.pod_class(a) == equivalence.pod_class(b)) is same
