"""The scheduler's cache in the state (kubesim/scheduler/framework/cache.py) equals a rebuild.

Upstream keeps the same check in pkg/scheduler/backend/cache/debugger/comparer.go (the cache's
nodes and pods compared with the informers' listers) and cache_test.go's
``TestSnapshot``-style tables; here random clusters take random write sequences (pods created,
bound, resized, labelled, terminated, deleted; nodes added, removed, labelled, tainted,
cordoned, resized), some of them by a writer that does not keep the cache, and after each
step — inside the transaction and after its commit — the snapshot built from the digests must
equal ``Snapshot.build`` from every stored Node and Pod, and the scheduler must explain a pod
the same way from either.
"""

from __future__ import annotations

import json
import random

import pytest

from kubesim.scheduler.framework.cache import (
    _PodsOnDemand,
    census_entry,
    node_digest,
    node_infos_equal,
    pod_digest,
    pod_fold,
    snapshot_from_digests,
    snapshot_from_sums,
)
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.scheduler import Scheduler
from kubesim.store import Store
from kubesim.testing.wrappers import make_node, make_pod

NOW = "2026-01-01T00:00:00Z"
LABELS = [("app", "web"), ("app", "db"), ("tier", "front"), ("team", "a")]
ZONES = ["z1", "z2", "z3"]


def _keep(store: Store) -> Store:
    """A writer as kubesim's commands are: the digests and sums kept, and the node digests kept
    again at commit (``keep_node_digests``)."""
    from kubesim.controlplane.scheduling import keep_node_digests

    store.derive("Pod", pod_digest, pod_fold)
    store.derive("Node", node_digest)
    store.before_commit(keep_node_digests)
    return store


def _keep_without_node_digests(store: Store) -> Store:
    """A writer that keeps the derived rows but leaves the kept node digests behind (the next
    reader must bring them up to date)."""
    store.derive("Pod", pod_digest, pod_fold)
    store.derive("Node", node_digest)
    return store


def _keep_digests_only(store: Store) -> Store:
    """A writer that keeps the digests but not the per-node sums (they must be dropped and
    rebuilt, not left wrong)."""
    store.derive("Pod", pod_digest)
    store.derive("Node", node_digest)
    return store


def _loader(store: Store):
    return lambda pi: store.get("Pod", pi.namespace, pi.name)


def cached(store: Store) -> Snapshot:
    _keep(store)
    nodes = [d for _, d in store.derived("Node")]
    pods = [(k[1], k[2], d) for k, d in store.derived("Pod", bound=True)]
    return snapshot_from_digests(nodes, pods, _loader(store))


def from_sums(store: Store) -> Snapshot:
    """The snapshot as the scheduler builds it: the node digests saved whole while no Node
    changes (their image lists shared), the pods' per-node sums."""
    from kubesim.controlplane.scheduling import node_digests

    _keep(store)
    nodes = node_digests(store)
    assert nodes == [d for _, d in store.derived("Node")]
    assert node_digests(store) == nodes  # (again, from what the first call kept)
    return snapshot_from_sums(
        nodes, store.derived_sums("Pod"),
        lambda name: [(k[1], k[2], d) for k, d in store.derived_on_node("Pod", name)],
        lambda: [(k[1], k[2], d) for k, d in store.derived("Pod", bound=True)], _loader(store))


def rebuilt(store: Store) -> Snapshot:
    return Snapshot.build(store.list("Node"), store.list("Pod"))


def _aggregates(ni) -> tuple:
    """What a NodeInfo built from the sums holds before its pods are read."""
    census = ni.census()
    if census is not None:
        census = sorted((census_entry(k)[0], sorted(census_entry(k)[1].items()), census_entry(k)[2], n)
                        for k, n in census.items())
    else:
        counts: dict = {}
        for p in ni.pods:
            k = (p.namespace, sorted(p.labels.items()), p.terminating)
            counts[repr(k)] = (k, counts.get(repr(k), (k, 0))[1] + 1)
        census = sorted((*k, n) for k, n in counts.values())
    return (ni.name, ni.requested, ni.non_zero_requested, dict(ni.used_ports), ni.num_pods(),
            bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity), census)


def assert_same(store: Store) -> None:
    a, b = cached(store), rebuilt(store)
    assert [ni.name for ni in a.list()] == [ni.name for ni in b.list()]
    for x, y in zip(a.list(), b.list(), strict=True):
        assert node_infos_equal(x, y), (x, y)
    # the per-node sums, before and after the pods are read, one node at a time or all at once
    c = from_sums(store)
    assert [ni.name for ni in c.list()] == [ni.name for ni in b.list()]
    for x, y in zip(c.list(), b.list(), strict=True):
        assert _aggregates(x) == _aggregates(y), x.name
    assert [ni.name for ni in c.have_pods_with_affinity_list()] == \
        [ni.name for ni in b.have_pods_with_affinity_list()]
    assert [ni.name for ni in c.have_pods_with_required_anti_affinity_list()] == \
        [ni.name for ni in b.have_pods_with_required_anti_affinity_list()]
    for x, y in zip(c.list(), b.list(), strict=True):
        assert node_infos_equal(x, y), (x, y)
    assert {k: (v.size, v.num_nodes) for k, v in a.image_states.items()} == \
        {k: (v.size, v.num_nodes) for k, v in b.image_states.items()}
    assert [ni.name for ni in a.have_pods_with_affinity_list()] == \
        [ni.name for ni in b.have_pods_with_affinity_list()]
    assert [ni.name for ni in a.have_pods_with_required_anti_affinity_list()] == \
        [ni.name for ni in b.have_pods_with_required_anti_affinity_list()]


def same_decisions(store: Store, pod: dict) -> None:
    """The scheduler explains ``pod`` the same from the cache as from every object."""
    out = []
    for snap in (cached(store), from_sums(store), rebuilt(store)):
        s = Scheduler(None, random.Random(7))
        s.handle.list_objects = lambda kind, ns: store.list(kind, ns)
        s.handle.get_object = store.get
        s.use_snapshot(snap, [])
        out.append(json.dumps(s.explain(json.loads(json.dumps(pod)), 0.0), sort_keys=True))
    assert out[0] == out[1] == out[2]


def _node(rng: random.Random, name: str) -> dict:
    w = make_node(name).capacity(cpu=str(rng.choice([2, 4, 8])), memory=f"{rng.choice([4, 8])}Gi",
                                 pods=str(rng.choice([3, 110])))
    w.label("kubernetes.io/hostname", name).zone(rng.choice(ZONES))
    if rng.random() < 0.3:
        w.image(rng.choice([100, 5_000_000]), rng.choice(["nginx:1", "redis:7"]))
    if rng.random() < 0.2:
        w.taint("dedicated", "x")
    return w.obj()


def _pod(rng: random.Random, name: str, nodes: list[str]) -> dict:
    w = make_pod(name, rng.choice(["default", "other"]))
    for _ in range(rng.randint(0, 2)):
        k, v = rng.choice(LABELS)
        w.label(k, v)
    w.req(cpu=rng.choice(["100m", "250m", "1"]), memory=rng.choice(["64Mi", "1Gi"]))
    if rng.random() < 0.2:
        w.container(requests={}, ports=[{"containerPort": 80, "hostPort": rng.choice([80, 8080])}])
    if rng.random() < 0.2:
        w.priority(rng.choice([0, 100]))
    pod = w.obj()
    r = rng.random()
    if r < 0.15:
        pod["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    elif r < 0.3:
        pod["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "front"}},
                                               "topologyKey": "topology.kubernetes.io/zone"}}]}}
    if rng.random() < 0.3:  # PodTopologySpread counts the pods of every node (from the census)
        k, v = rng.choice(LABELS)
        pod["spec"]["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": key, "labelSelector": {"matchLabels": {k: v}},
             "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"])}
            for key in rng.sample(["kubernetes.io/hostname", "topology.kubernetes.io/zone"], rng.randint(1, 2))]
    if nodes and rng.random() < 0.7:
        pod["spec"]["nodeName"] = rng.choice(nodes)
        pod["status"]["phase"] = "Running"
    return pod


def _step(rng: random.Random, store: Store, counter: list[int]) -> None:
    """One random write, as the API server would make it."""
    nodes = [n["metadata"]["name"] for n in store.list("Node")]
    pods = store.list("Pod")
    op = rng.choice(["add-node", "add-pod", "add-pod", "add-pod", "bind", "resize", "label-pod",
                     "terminate", "finish", "delete-pod", "label-node", "taint-node", "cordon",
                     "resize-node", "remove-node"])
    counter[0] += 1
    n = counter[0]
    if op == "add-node" or not nodes:
        store.create(_node(rng, f"n{n}"), NOW)
    elif op == "add-pod" or not pods:
        store.create(_pod(rng, f"p{n}", nodes), NOW)
    elif op in ("label-node", "taint-node", "cordon", "resize-node", "remove-node"):
        node = store.get("Node", "", rng.choice(nodes))
        if op == "remove-node":
            store.delete("Node", "", node["metadata"]["name"])
            return
        if op == "label-node":
            node["metadata"]["labels"]["topology.kubernetes.io/zone"] = rng.choice(ZONES)
        elif op == "taint-node":
            node["spec"]["taints"] = [{"key": "k", "value": str(n), "effect": "NoSchedule"}]
        elif op == "cordon":
            node["spec"]["unschedulable"] = not node["spec"].get("unschedulable")
        else:
            node["status"]["allocatable"]["cpu"] = str(rng.choice([1, 16]))
        store.put(node)
    else:
        pod = rng.choice(pods)
        md = pod["metadata"]
        if op == "delete-pod":
            store.delete("Pod", md["namespace"], md["name"])
            return
        if op == "bind":
            pod["spec"]["nodeName"] = rng.choice(nodes)
        elif op == "resize":
            pod["spec"]["containers"][0].setdefault("resources", {})["requests"] = {"cpu": "2", "memory": "3Gi"}
        elif op == "label-pod":
            md.setdefault("labels", {})["app"] = rng.choice(["web", "db"])
        elif op == "terminate":
            md["deletionTimestamp"] = NOW
        else:
            pod["status"]["phase"] = rng.choice(["Succeeded", "Failed"])
        store.put(pod)


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"random history {s}")
def test_the_cache_equals_a_rebuild_after_any_write_sequence(tmp_path, seed, monkeypatch):
    rng = random.Random(seed)
    # odd histories read every node's pods at once at the first node asked for
    monkeypatch.setattr(_PodsOnDemand, "ONE_AT_A_TIME", 8 if seed % 2 == 0 else 0)
    counter = [0]
    for command in range(6):
        # every third command is made by a writer that does not keep the cache (its digests
        # go stale and are recomputed when read)
        store = Store(tmp_path).open()
        if command % 3 == 0:
            _keep(store)
        elif command % 3 == 1 and rng.random() < 0.5:
            _keep_digests_only(store)
        elif command % 3 == 1:
            _keep_without_node_digests(store)
        for _ in range(rng.randint(1, 12)):
            _step(rng, store, counter)
            if rng.random() < 0.3:
                assert_same(store)  # inside the transaction: its own writes overlaid
        assert_same(store)
        store.commit()
        store = Store(tmp_path).open(read_only=True)  # a snapshot: nothing can be completed
        assert store.read_only
        assert_same(store)
        store.rollback()
        store = Store(tmp_path).open()
        assert_same(store)
        incoming = _pod(rng, f"incoming{command}", [])
        same_decisions(store, incoming)
        store.commit()  # (writes back the digests it recomputed)
        store = Store(tmp_path).open()
        stale = store._require().execute(
            "SELECT count(*) FROM objects o LEFT JOIN derived d ON d.kind=o.kind AND "
            "d.namespace=o.namespace AND d.name=o.name WHERE o.kind IN ('Pod','Node') "
            "AND (d.rv IS NULL OR d.rv != o.rv)").fetchone()[0]
        # the sums kept in the state are those a fold of every digest from scratch gives
        kept = store.derived_sums("Pod") if _keep(store) else None
        fresh = Store._fold_rows(pod_fold, [(k[1], k[2], d[2], d) for k, d in store.derived("Pod", bound=True)
                                             if d is not None])
        store.rollback()
        assert stale == 0
        assert kept == fresh


def test_a_pod_s_manifest_is_read_only_when_a_plugin_asks_for_it(tmp_path):
    store = _keep(Store(tmp_path).open())
    store.create(make_node("n1").capacity(cpu="4", memory="8Gi", pods="110").obj(), NOW)
    store.create(make_pod("a").req(cpu="1").node("n1").obj(), NOW)
    store.commit()
    store = Store(tmp_path).open()
    snap = cached(store)
    (pi,) = snap.get("n1").pods
    assert ("", "a") not in store._cache.get("Pod", {}) and ("default", "a") not in store._cache.get("Pod", {})
    assert snap.get("n1").requested.milli_cpu == 1000
    assert pi.pod["metadata"]["name"] == "a"  # read now, from the store
    store.rollback()


@pytest.mark.parametrize("selector, namespace, want", [
    pytest.param({"matchLabels": {"app": "web"}}, "default", 2, id="the pods of the namespace with the label"),
    pytest.param({"matchLabels": {"app": "web"}}, "other", 1, id="another namespace counts its own"),
    pytest.param({"matchExpressions": [{"key": "app", "operator": "Exists"}]}, "default", 3,
                 id="an expression over the labels"),
    pytest.param({"matchLabels": {"app": "web", "tier": "front"}}, "default", 1, id="every label must match"),
    pytest.param({}, "default", 0, id="an empty selector counts nothing"),
])
def test_a_node_s_census_counts_what_its_pods_count(tmp_path, selector, namespace, want):
    """PodTopologySpread's countPodsMatchSelector (not terminating, same namespace, selector
    matches) from the census of a node whose pods are not read equals the count over its pods."""
    from kubesim.api.selectors import from_label_selector
    from kubesim.scheduler.framework.pod_groups import match_group
    from kubesim.scheduler.plugins.podtopologyspread.common import (
        count_on_node,
        pod_counter,
    )

    store = _keep(Store(tmp_path).open())
    store.create(make_node("n1").capacity(cpu="8", memory="8Gi", pods="110").obj(), NOW)
    for name, ns, labels, terminating in [("a", "default", {"app": "web", "tier": "front"}, False),
                                          ("b", "default", {"app": "web"}, False),
                                          ("c", "default", {"app": "web"}, True),
                                          ("d", "default", {"app": "db"}, False),
                                          ("e", "other", {"app": "web"}, False)]:
        w = make_pod(name, ns).req(cpu="100m").node("n1")
        for k, v in labels.items():
            w.label(k, v)
        pod = w.obj()
        if terminating:
            pod["metadata"]["deletionTimestamp"] = NOW
        store.create(pod, NOW)
    store.commit()
    store = Store(tmp_path).open()
    ni = from_sums(store).get("n1")
    counter = pod_counter(from_label_selector(selector))
    assert ni.census() is not None
    from_census = count_on_node(counter, ni, namespace)
    groups = from_sums(store).pod_groups(match_group)._per_node[0]  # from the census too
    assert ni.census() is not None  # nothing above read the pods
    assert from_census == want == counter(ni.pods, namespace)
    read = from_sums(store)
    assert read.get("n1").pods and read.get("n1").census() is None
    assert groups == read.pod_groups(match_group)._per_node[0]
    store.rollback()


def _kept_rows(store: Store) -> dict[str, str]:
    from kubesim.controlplane.scheduling import NODE_DIGEST_PREFIX

    return dict(store._require().execute("SELECT substr(key, ?), value FROM meta WHERE key LIKE ?",
                                         (len(NODE_DIGEST_PREFIX) + 1, NODE_DIGEST_PREFIX + "%")))


def _images_node(name: str, *images: str) -> dict:
    w = make_node(name).capacity(cpu="4", memory="8Gi")
    for image in images:
        w.image(1000, image)
    return w.obj()


def _condition_changed(store: Store, name: str) -> None:
    node = store.get("Node", "", name)
    node.setdefault("status", {})["conditions"] = [{"type": "Ready", "status": "False"}]
    store.put(node)


@pytest.mark.parametrize("keep_at_commit", [True, False], ids=["kept at the write's commit", "kept by the next reader"])
@pytest.mark.parametrize("change, rewritten", [
    pytest.param(lambda s: None, set(), id="nothing written since: no digest kept again"),
    pytest.param(lambda s: _condition_changed(s, "n2"), set(), id="a node written, its digest the same: kept as it was"),
    pytest.param(lambda s: [s.put(_images_node("n2", "redis:7")), s.put(_images_node("n4", "nginx:1"))],
                 {"n2", "n4"}, id="two nodes swap image lists: both kept again, both lists still kept"),
    pytest.param(lambda s: s.put(_images_node("n2", "nginx:1", "redis:7")), {"n2"},
                 id="a node's images changed: its digest alone kept again"),
    pytest.param(lambda s: s.delete("Node", "", "n3"), {"n3"}, id="a node removed: its digest dropped"),
    pytest.param(lambda s: s.create(_images_node("n0", "nginx:1"), NOW), {"n0"},
                 id="a node added: its digest kept, in name order"),
    pytest.param(lambda s: [s.delete("Node", "", "n3"), s.create(_images_node("n0", "nginx:1"), NOW)],
                 {"n0", "n3"}, id="a node removed and another added (as many nodes as before): both seen"),
    pytest.param(lambda s: [s.put(_images_node(n, "pause:3")) for n in ("n1", "n2", "n3", "n4")],
                 {"n1", "n2", "n3", "n4"}, id="every node changed: every digest kept again"),
])
def test_node_digests_are_kept_one_a_node(tmp_path, change, rewritten, keep_at_commit):
    """The scheduler keeps each node's digest (without its image list, each distinct list once)
    and, after Nodes are written, keeps again only theirs: a churn that changes the images of a
    thousand nodes of 5,000 rewrites a thousand small values, not one value of every node."""
    from kubesim.controlplane.scheduling import (
        NODE_DIGESTS_META,
        NODE_IMAGES_META,
        node_digests,
    )

    store = _keep(Store(tmp_path).open())
    for name, images in [("n1", ["nginx:1"]), ("n2", ["nginx:1"]), ("n3", []), ("n4", ["redis:7"])]:
        store.create(_images_node(name, *images), NOW)
    store.commit()
    store = _keep(Store(tmp_path).open())
    node_digests(store)
    store.commit()
    before = _kept_rows(store := _keep(Store(tmp_path).open()))
    assert set(before) == {"n1", "n2", "n3", "n4"}
    store.rollback()
    # a writer of Nodes that does not read the digests
    store = (_keep if keep_at_commit else _keep_without_node_digests)(Store(tmp_path).open())
    change(store)
    store.commit()
    store = _keep(Store(tmp_path).open())
    if keep_at_commit:  # the writer's commit kept them: the reader finds them all in place
        assert _kept_rows(store) != before or not rewritten
        assert store.meta(NODE_DIGESTS_META)["rv"] == store.committed_kind_resource_versions().get("Node")
        assert {n for n, v in _kept_rows(store).items() if before.get(n) != v} | \
            {n for n in before if n not in _kept_rows(store)} == rewritten
    nodes = node_digests(store)
    assert nodes == [d for _, d in store.derived("Node")]
    by_image = {}
    for d in nodes:  # nodes with the same image list share it
        for lst in [(d.get("status") or {}).get("images")] if (d.get("status") or {}).get("images") else []:
            by_image.setdefault(json.dumps(lst), set()).add(id(lst))
    assert all(len(ids) == 1 for ids in by_image.values())
    store.commit()
    store = _keep(Store(tmp_path).open())
    after = _kept_rows(store)
    assert {n for n in set(before) | set(after) if before.get(n) != after.get(n)} == rewritten
    assert list(after) == sorted(d["metadata"]["name"] for d in nodes)
    assert len(store.meta(NODE_IMAGES_META)) == len(by_image)  # the lists no node has are dropped
    assert node_digests(store) == nodes
    store.rollback()


def test_an_image_list_kept_earlier_in_the_transaction_is_not_dropped(tmp_path):
    """A command whose node_digests first caught up with Nodes another writer changed (keeping
    their rows again), then wrote a Node that gave up a list: the lists the caught-up rows name
    stay kept, so the next command reads every digest in place."""
    from kubesim.controlplane.scheduling import NODE_DIGESTS_META, NODE_IMAGES_META, node_digests

    store = _keep(Store(tmp_path).open())
    for name in ("n1", "n2"):
        store.create(_images_node(name, "nginx:1"), NOW)
    store.commit()
    store = _keep(Store(tmp_path).open())
    node_digests(store)
    store.commit()
    store = _keep_without_node_digests(Store(tmp_path).open())  # (the kept rows fall behind)
    store.put(_images_node("n1", "redis:7"))
    store.commit()
    store = _keep(Store(tmp_path).open())
    node_digests(store)  # catches up: n1's row kept again, naming the redis list
    store.put(_images_node("n2", "busybox:1"))  # the nginx list is no node's any more
    store.commit()
    store = _keep(Store(tmp_path).open())
    assert store.meta(NODE_DIGESTS_META)["rv"] == store.committed_kind_resource_versions()["Node"]
    images = store.meta(NODE_IMAGES_META)
    assert {row[1] for row in _kept_rows_decoded(store)} == set(images)
    assert node_digests(store) == [d for _, d in store.derived("Node")]
    store.rollback()


def _kept_rows_decoded(store: Store) -> list:
    return [json.loads(v) for v in _kept_rows(store).values()]


def _slots(ni) -> dict:
    from kubesim.scheduler.framework.types import NodeInfo

    return {s: getattr(ni, s) for s in NodeInfo.__slots__}


_SUMS_PLAIN = {"n": 2, "r": [300, 2 << 20, 0], "z": [300, 2 << 20], "a": 0, "x": 0,
               "c": {'["default",[["app","web"]],false]': 2}}


@pytest.mark.parametrize("node", [
    pytest.param(make_node("n1").capacity(cpu="4", memory="8Gi").obj(), id="a node with allocatable"),
    pytest.param({"metadata": {"name": "bare"}}, id="a node without status or labels"),
    pytest.param(make_node("n2").capacity(cpu="2", memory="1Gi").label("zone", "z1")
                 .taint("k", "v", "NoSchedule").obj() | {"spec": {"unschedulable": True,
                                                               "taints": [{"key": "k", "effect": "NoSchedule"}]}},
                 id="a tainted, cordoned node"),
])
@pytest.mark.parametrize("sums", [
    pytest.param(None, id="no pods"),
    pytest.param(_SUMS_PLAIN, id="pods without ports or scalars"),
    pytest.param(dict(_SUMS_PLAIN, s={"example.com/gpu": [2, 1], "hugepages-2Mi": [0, 1]},
                      p=[["0.0.0.0", "TCP", 80, 1], ["10.0.0.1", "UDP", 53, 2]]),
                 id="pods with scalar resources and host ports"),
    pytest.param(dict(_SUMS_PLAIN, n=3, a=1, x=1), id="pods with affinity and required anti-affinity"),
])
def test_a_node_info_from_the_cache_is_the_node_info_with_its_sums_set(node, sums):
    """``NodeInfo.from_cache`` (what snapshot_from_sums builds) holds what ``NodeInfo(node)``
    then ``set_sums`` hold, slot for slot."""
    from kubesim.scheduler.framework.types import NodeInfo, affinity_epoch

    loader = object()
    want = NodeInfo(node)
    if sums is not None:
        want.set_sums(json.loads(json.dumps(sums)), loader)
    epochs = (affinity_epoch(False), affinity_epoch(True))
    got = NodeInfo.from_cache(node, json.loads(json.dumps(sums)) if sums is not None else None, loader)
    moved = (affinity_epoch(False) - epochs[0], affinity_epoch(True) - epochs[1])
    assert moved == ((1 if sums and sums.get("a") else 0), (1 if sums and sums.get("x") else 0))
    assert _slots(got) == _slots(want)
    assert got.num_pods() == want.num_pods() and got.census() == want.census()


@pytest.mark.parametrize("write, changed", [
    pytest.param(lambda s: s.create(make_pod("c").req(cpu="1").node("n1").obj(), NOW), {"n1"},
                 id="a pod bound to one of two alike nodes: the other's sum stays"),
    pytest.param(lambda s: s.delete("Pod", "default", "a2"), {"n2"},
                 id="a pod of one of two alike nodes deleted: the other's sum stays"),
    pytest.param(lambda s: s.create(make_pod("c").req(cpu="1").node("n3").obj(), NOW), {"n3"},
                 id="a pod bound to a node without pods: the alike nodes' sums stay"),
    pytest.param(lambda s: [s.delete("Pod", "default", "a1"), s.delete("Pod", "default", "a2")], {"n1", "n2"},
                 id="both alike nodes emptied: both sums gone"),
])
def test_nodes_alike_share_a_sum_and_a_write_folds_into_its_own(tmp_path, write, changed):
    """derived_sums decodes each distinct row once (nodes alike share the sum); this
    transaction's writes fold into a copy of the node's own, as a fold from scratch gives."""
    store = _keep(Store(tmp_path).open())
    for n in ("n1", "n2", "n3"):
        store.create(make_node(n).capacity(cpu="4", memory="8Gi").obj(), NOW)
    store.create(make_pod("a1").req(cpu="1").label("app", "web").node("n1").obj(), NOW)
    store.create(make_pod("a2").req(cpu="1").label("app", "web").node("n2").obj(), NOW)
    store.commit()
    store = _keep(Store(tmp_path).open())
    before = store.derived_sums("Pod")
    assert before["n1"] is before["n2"]  # (one decoded row for both)
    expected_before = json.loads(json.dumps(before))
    write(store)
    got = store.derived_sums("Pod")
    fresh = Store._fold_rows(pod_fold, [(k[1], k[2], d[2], d) for k, d in store.derived("Pod", bound=True)
                                         if d is not None])
    assert got == fresh
    assert {n for n in set(got) | set(expected_before) if got.get(n) != expected_before.get(n)} == changed
    assert store.derived_sums("Pod") == fresh  # (asked again: the shared rows were not folded into)
    store.rollback()
