"""A pod assumed onto a node of the scheduler's cache whose pods are not read yet
(``NodeInfo.add_pod`` on a node built by ``snapshot_from_sums``) leaves them unread, and reading
them later gives what reading them first would have: the same pods in the same order (those
read, then those assumed), the same aggregates and census, whether or not the store holds the
assumed pod bound by then, read one node at a time or every node at once.

Upstream: pkg/scheduler/backend/cache/cache.go ``AssumePod`` (the pod added to the node's
NodeInfo as ``addPod`` adds any pod); kubesim reads a node's pods only when a plugin asks.
"""

from __future__ import annotations

import pytest

from kubesim.scheduler.framework.cache import (
    _PodsOnDemand,
    node_digest,
    node_infos_equal,
    pod_digest,
    pod_fold,
    snapshot_from_sums,
)
from kubesim.scheduler.framework.types import PodInfo, census_key
from kubesim.store import Store
from kubesim.testing.wrappers import make_node, make_pod

NOW = "2026-01-01T00:00:00Z"


def _keep(store: Store) -> Store:
    store.derive("Pod", pod_digest, pod_fold)
    store.derive("Node", node_digest)
    return store


def _snapshot(store: Store):
    nodes = [d for _, d in store.derived("Node")]
    return snapshot_from_sums(
        nodes, store.derived_sums("Pod"),
        lambda name: [(k[1], k[2], d) for k, d in store.derived_on_node("Pod", name)],
        lambda: [(k[1], k[2], d) for k, d in store.derived("Pod", bound=True)],
        lambda pi: store.get("Pod", pi.namespace, pi.name))


@pytest.mark.parametrize("written, all_at_once", [
    pytest.param(False, False, id="assumed, not written: read after the others"),
    pytest.param(True, False, id="written bound before the read: read once, in its assumed place"),
    pytest.param(True, True, id="every node read at once: the same pods"),
    pytest.param(False, True, id="every node read at once, not written"),
])
def test_a_pod_assumed_on_a_node_whose_pods_are_unread_reads_them_later_alike(
        tmp_path, monkeypatch, written, all_at_once):
    store = _keep(Store(tmp_path).open())
    for n in ("n1", "n2"):
        store.create(make_node(n).capacity(cpu="8", memory="8Gi", pods="110").obj(), NOW)
    for name in ("z", "b"):  # (stored in name order: the new pods sort before and after)
        store.create(make_pod(name).req(cpu="100m").label("app", "web").node("n1").obj(), NOW)
    store.commit()
    store = _keep(Store(tmp_path).open())
    if all_at_once:
        monkeypatch.setattr(_PodsOnDemand, "ONE_AT_A_TIME", 0)
    new = [make_pod(name).req(cpu="200m").label("app", "new").obj() for name in ("y", "a")]
    for pod in new:
        store.create(pod, NOW)

    eager = _snapshot(store).get("n1")
    assert [p.name for p in eager.pods] == ["b", "z"]
    lazy = _snapshot(store).get("n1")
    for pod in new:
        stored = store.get("Pod", "default", pod["metadata"]["name"])
        eager.add_pod(PodInfo(stored).assumed_on("n1"))
        lazy.add_pod(PodInfo(stored).assumed_on("n1"))
    assert lazy.census() is not None and lazy.num_pods() == 4  # (not read)
    assert lazy.requested.milli_cpu == eager.requested.milli_cpu == 600
    assert lazy.census() == {census_key("default", {"app": "web"}, False): 2,
                             census_key("default", {"app": "new"}, False): 2}
    if written:
        for pod in new:
            stored = store.get("Pod", "default", pod["metadata"]["name"])
            stored["spec"]["nodeName"] = "n1"
            store.put(stored)

    assert [p.name for p in lazy.pods] == ["b", "z", "y", "a"]
    assert node_infos_equal(lazy, eager)
    assert lazy.census() is None and lazy.num_pods() == 4
    assert lazy.requested.milli_cpu == 600 and lazy.non_zero_requested.milli_cpu == 600
    store.rollback()
