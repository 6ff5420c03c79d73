"""WATCH (kubesim.apiserver.watch): which writes a watcher is told of, and as what — the cacher's
convertToWatchEvent (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go): the
filter applied to the object before and after a write decides ADDED, MODIFIED or DELETED."""

from __future__ import annotations

import copy

import pytest

from kubesim.api import kinds
from kubesim.apiserver.context import Cluster
from kubesim.apiserver.watch import Watch
from kubesim.errors import BadRequest
from kubesim.store import Store

NOW = "2026-11-22T10:00:00Z"
POD = kinds.by_kind("Pod")


@pytest.fixture
def cluster(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": NOW, "KUBESIM_SEED": "1"})
    yield c
    store.rollback()


def pod(name: str, ns: str = "default", node: str = "", **labels) -> dict:
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
         "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    if node:
        p["spec"]["nodeName"] = node
    return p


def relabel(cluster, name, **labels):
    p = cluster.store.get("Pod", "default", name)
    p["metadata"]["labels"] = labels
    cluster.store.put(p)


def bind(cluster, name, node):
    p = cluster.store.get("Pod", "default", name)
    p["spec"]["nodeName"] = node
    cluster.store.put(p)


def create(cluster, name, **kw):
    cluster.store.create(pod(name, **kw), cluster.stamp())


def delete(cluster, name):
    cluster.store.delete("Pod", "default", name)


@pytest.mark.parametrize("watch, before, writes, seen", [
    pytest.param({}, [], [(create, "a", {})], [("ADDED", "a")], id="a new object is ADDED"),
    pytest.param({}, ["a"], [(relabel, "a", {"x": "1"}), (relabel, "a", {"x": "1"})],
                 [("MODIFIED", "a"), ("MODIFIED", "a")], id="every write of an object is an event, even one "
                                                          "that changes nothing"),
    pytest.param({}, ["a"], [(delete, "a", {})], [("DELETED", "a")], id="a deleted object is DELETED"),
    pytest.param({"namespace": "other"}, [], [(create, "a", {}), (create, "b", {"ns": "other"})],
                 [("ADDED", "b")], id="a namespaced watch sees only its namespace"),
    pytest.param({"namespace": None}, [], [(create, "a", {}), (create, "b", {"ns": "other"})],
                 [("ADDED", "a"), ("ADDED", "b")], id="a watch of all namespaces sees them all"),
    pytest.param({"name": "a"}, ["b"], [(create, "a", {}), (relabel, "b", {"x": "1"}), (delete, "a", {})],
                 [("ADDED", "a"), ("DELETED", "a")], id="a watch of one name sees that object only"),
    pytest.param({"label_selector": "app=web"}, ["a"], [(relabel, "a", {"app": "web"}),
                                                         (relabel, "a", {"app": "web", "x": "1"}),
                                                         (relabel, "a", {"app": "db"})],
                 [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")],
                 id="an object that comes to match the selector is ADDED, one that stops matching DELETED"),
    pytest.param({"field_selector": "spec.nodeName=node01"}, ["a", "b"], [(bind, "a", {"node": "node01"}),
                                                                          (bind, "b", {"node": "node02"})],
                 [("ADDED", "a")], id="field selectors filter as a list's do"),
])
def test_a_watch_sees_the_writes_that_concern_it_in_order(cluster, watch, before, writes, seen):
    for name in before:
        create(cluster, name)
    opts = {"namespace": "default", **watch}
    w = Watch(cluster, POD, opts.pop("namespace"), **opts)
    for write, name, kw in writes:
        write(cluster, name, **kw)
    assert [(e.type, e.object["metadata"]["name"]) for e in w.events()] == seen
    assert w.events() == []  # handed over once


def test_an_event_keeps_the_object_as_it_was_written(cluster):
    w = Watch(cluster, POD, "default")
    create(cluster, "a")
    relabel(cluster, "a", v="2")
    added, modified = w.events()
    assert added.object["metadata"]["labels"] == {} and modified.object["metadata"]["labels"] == {"v": "2"}
    assert int(modified.object["metadata"]["resourceVersion"]) > int(added.object["metadata"]["resourceVersion"])


def test_a_delete_event_carries_the_last_object_and_the_deletions_resource_version(cluster):
    create(cluster, "a", app="web")
    last = copy.deepcopy(cluster.store.get("Pod", "default", "a"))
    w = Watch(cluster, POD, "default")
    delete(cluster, "a")
    (event,) = w.events()
    assert event.type == "DELETED" and event.object["metadata"]["labels"] == {"app": "web"}
    assert event.object["metadata"]["resourceVersion"] == str(cluster.store.resource_version())
    assert event.object["metadata"]["resourceVersion"] != last["metadata"]["resourceVersion"]


def test_events_are_stamped_with_the_simulated_time_of_the_write(cluster):
    w = Watch(cluster, POD, "default")
    create(cluster, "a")
    cluster.advance(30)
    relabel(cluster, "a", x="1")
    assert [e.at - cluster.now() for e in w.events()] == [-30, 0]


def test_a_stopped_watch_hears_nothing_more(cluster):
    w = Watch(cluster, POD, "default")
    w.stop()
    create(cluster, "a")
    assert w.events() == []
    w.stop()  # twice is harmless


def test_a_bad_selector_is_refused_as_a_list_refuses_it(cluster):
    with pytest.raises(BadRequest):
        Watch(cluster, POD, "default", label_selector="a in (b")
    with pytest.raises(BadRequest, match="field label not supported: spec.bogus"):
        Watch(cluster, POD, "default", field_selector="spec.bogus=x")
