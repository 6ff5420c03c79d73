"""The store's object_index (objects by label, annotation, owner, deletion and involved
object): kept with every write, equal to what the backfill of an older state computes in SQL,
and what the lookups answer, this transaction's own writes included."""

from __future__ import annotations

import random

import pytest

from kubesim.store import OBJECT_INDEX_META, Store, index_entries

NOW = "2026-01-01T00:00:00Z"


def _rows(store: Store) -> set[tuple]:
    return set(store._require().execute("SELECT kind, facet, value, namespace, name FROM object_index"))


def _expected(store: Store) -> set[tuple]:
    out = set()
    for kind in ("Pod", "Node", "Event", "ConfigMap"):
        for o in store.list(kind):
            md = o["metadata"]
            out.update((kind, f, v, md.get("namespace") or "", md["name"]) for f, v in index_entries(kind, o))
    return out


def _object(rng: random.Random, n: int) -> dict:
    kind = rng.choice(["Pod", "Node", "Event", "ConfigMap"])
    md: dict = {"name": f"o{n}"}
    if kind != "Node":
        md["namespace"] = rng.choice(["default", "kube-system"])
    if rng.random() < 0.7:
        md["labels"] = {rng.choice(["app", "tier"]): rng.choice(["web", "db", ""])}
    if rng.random() < 0.5:
        md["annotations"] = {rng.choice(["kubernetes.io/config.mirror", "x"]): "v"}
    if rng.random() < 0.4:
        md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": f"u{rng.randint(1, 3)}"}]
        if rng.random() < 0.6:  # a ControllerRef, not always the first reference
            md["ownerReferences"].insert(rng.randint(0, 1), {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                            "name": "rs", "uid": f"c{rng.randint(1, 2)}",
                                                            "controller": True})
    if rng.random() < 0.2:
        md["deletionTimestamp"] = NOW
    obj = {"kind": kind, "apiVersion": "v1", "metadata": md}
    if kind == "Event":
        obj["involvedObject"] = {"kind": "Node", "name": f"node{rng.randint(1, 3)}", "uid": f"u{rng.randint(1, 3)}"}
    return obj


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"random history {s}")
def test_the_index_follows_every_write_and_equals_the_backfill(tmp_path, seed):
    rng = random.Random(seed)
    n = 0
    for _ in range(4):
        store = Store(tmp_path).open()
        for _ in range(rng.randint(1, 15)):
            n += 1
            objs = [o for k in ("Pod", "Node", "Event", "ConfigMap") for o in store.list(k)]
            if objs and rng.random() < 0.5:
                o = rng.choice(objs)
                key = (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
                if rng.random() < 0.5:
                    # the committed body read first, as the field manager reads it before a
                    # component's write: the commit compares the rows with it
                    store.committed(*key)
                r = rng.random()
                if r < 0.3:
                    store.delete(*key)
                elif r < 0.4:  # deleted and created again under its name, with other labels
                    store.delete(*key)
                    again = _object(rng, n)
                    again["kind"], again["metadata"] = key[0], {**again["metadata"], "name": key[2]}
                    if key[0] == "Event":
                        again["involvedObject"] = {"kind": "Node", "name": "node2", "uid": "u2"}
                    else:
                        again.pop("involvedObject", None)
                    if key[1]:
                        again["metadata"]["namespace"] = key[1]
                    else:
                        again["metadata"].pop("namespace", None)
                    store.create(again, NOW)
                elif r < 0.7:
                    o["status"] = {"phase": f"p{n}"}  # the index's facets stay as they were
                    store.put(o)
                else:
                    o["metadata"]["labels"] = {"app": "changed"}
                    store.put(o)
            else:
                if rng.random() < 0.3:
                    store.committed("Pod", "default", f"o{n}")  # (known absent)
                store.create(_object(rng, n), NOW)
        # this transaction's writes are answered too
        want = sorted((o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
                      for o in store.list("Pod") if (o["metadata"].get("labels") or {}).get("app") == "web")
        assert store.keys_labelled("Pod", "app", "web") == want
        want = sorted(("Event", e["metadata"]["namespace"], e["metadata"]["name"]) for e in store.list("Event")
                      if e["involvedObject"]["name"] == "node1")
        assert store.keys_of_events_involving(name="node1") == want
        _assert_controller_lookups(store)
        for kind in ("Pod", "Node", "Event", "ConfigMap"):  # (annotations and deletion: looked up directly)
            objs = store.list(kind)
            for value in ("kubernetes.io/config.mirror", "x", "absent", None):
                assert store.keys_indexed(kind, "a", value) == _keys_with(kind, objs, "a", value)
            assert store.keys_deleting(kind) == _keys_with(kind, objs, "d", "")
        for kind in ("Pod", "ConfigMap"):  # many owners at once (the collector's question)
            for uids in ({"u1"}, {"u1", "u3"}, {"u1", "u2", "u3", "nobody"}):
                want = set().union(*(store.keys_owned_by(kind, u) for u in uids))
                assert store.keys_owned_by_any(kind, uids) == want
        store.commit()
        store = Store(tmp_path).open()
        assert _rows(store) == _expected(store)
        store.set_meta(OBJECT_INDEX_META, None)  # as an older state: the backfill fills it
        store._index_built = False
        store.commit()
        store = Store(tmp_path).open()
        assert store.keys_deleting("Pod") is not None
        assert _rows(store) == _expected(store)
        # a state indexed before the ControllerRef facet gains just that facet
        store._require().execute("DELETE FROM object_index WHERE facet='c'")
        store.set_meta(OBJECT_INDEX_META, 1)
        store._index_built = False
        _assert_controller_lookups(store)
        assert _rows(store) == _expected(store)
        # a state indexed with the Events' involved-uid facet (version 2) loses just that facet
        store._require().executemany("INSERT INTO object_index VALUES ('Event', 'iu', ?, ?, ?)", [
            (e["involvedObject"]["uid"], e["metadata"]["namespace"], e["metadata"]["name"])
            for e in store.list("Event") if e["involvedObject"].get("uid")])
        store.set_meta(OBJECT_INDEX_META, 2)
        store._index_built = False
        assert store.keys_of_events_involving("node1") is not None
        assert _rows(store) == _expected(store)
        store.commit()


def _keys_with(kind: str, objs: list[dict], facet: str, value: str | None) -> list[tuple]:
    return sorted((kind, o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objs
                  if any(f == facet and (value is None or v == value) for f, v in index_entries(kind, o)))


@pytest.mark.parametrize("metadata", [
    {}, {"annotations": None}, {"annotations": "x"}, {"annotations": {}}, {"annotations": {"x": ""}},
    {"annotations": {"y": "x"}}, {"annotations": {1: "v"}}, {"annotations": {"kubernetes.io/config.mirror": "h"}},
    {"deletionTimestamp": NOW}, {"deletionTimestamp": None}, {"deletionTimestamp": ""},
    {"labels": {"x": ""}, "ownerReferences": [{"uid": "x", "controller": True}]},
], ids=repr)
@pytest.mark.parametrize("facet,value", [("a", "x"), ("a", "1"), ("a", None), ("a", "kubernetes.io/config.mirror"),
                                         ("d", ""), ("d", None), ("d", "x"), ("l:x", ""), ("c", "x"), ("o", None)])
def test_an_objects_index_entry_looked_up_directly_is_one_of_its_entries(metadata, facet, value):
    from kubesim.store import _has_index_entry

    obj = {"kind": "Pod", "metadata": {"name": "p", **metadata}}
    want = any(f == facet and (value is None or v == value) for f, v in index_entries("Pod", obj))
    assert _has_index_entry("Pod", obj, facet, value) is want


def _assert_controller_lookups(store: Store) -> None:
    """keys_controlled_by / keys_orphaned, and StoreView's owned_by / orphans over them, answer
    as View's over every listed pod (kubesim.controllers.base)."""
    from kubesim.api.meta.helpers import controller_ref
    from kubesim.controllers.base import StoreView, View

    pods = store.list("Pod")
    full = View({"Pod": pods})
    lazy = StoreView(store, ("Pod",), 0.0)
    for uid in ("c1", "c2", "c3"):
        want = [p for p in pods if (controller_ref(p) or {}).get("uid") == uid]
        assert store.keys_controlled_by("Pod", uid) == [("Pod", p["metadata"]["namespace"], p["metadata"]["name"])
                                                       for p in want]
        assert lazy.owned_by("Pod", uid) == full.owned_by("Pod", uid) == want
    for ns in ("default", "kube-system", "other"):
        want = [p for p in pods if p["metadata"]["namespace"] == ns and controller_ref(p) is None]
        assert store.keys_orphaned("Pod", ns) == [("Pod", ns, p["metadata"]["name"]) for p in want]
        assert lazy.orphans("Pod", ns) == full.orphans("Pod", ns) == want
    from kubesim.api.selectors import selector_from_set

    for labels in ({"app": "web"}, {"app": ""}, {"tier": "db", "app": "web"}, {"app": "nobody"}):
        sel = selector_from_set(labels)
        for ns in ("default", "kube-system"):
            want = [p for p in pods if p["metadata"]["namespace"] == ns
                    and all((p["metadata"].get("labels") or {}).get(k) == v for k, v in labels.items())]
            assert lazy.selected("Pod", ns, sel) == full.selected("Pod", ns, sel) == want
    assert "Pod" not in lazy.objects  # answered from the index, nothing listed


def test_a_store_view_answers_without_managed_fields_and_leaves_the_store_whole(tmp_path):
    """What a StoreView lists it decodes without managedFields (StoreView.UNREAD), as copies:
    the store's own objects keep them."""
    from kubesim.api.selectors import selector_from_set
    from kubesim.controllers.base import StoreView, View

    store = Store(tmp_path).open()
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": "d1", "controller": True}
    for i, refs in enumerate(([owner], [], [owner])):
        store.create({"kind": "Pod", "apiVersion": "v1", "metadata": {
            "name": f"p{i}", "namespace": "default", "labels": {"app": "web"}, "ownerReferences": refs,
            "managedFields": [{"manager": "m", "operation": "Update"}]}}, NOW)
    store.commit()
    store = Store(tmp_path).open()
    lazy = StoreView(store, ("Pod", "Node"), 0.0)
    answers = [lazy.owned_by("Pod", "d1"), lazy.orphans("Pod", "default"),
               lazy.selected("Pod", "default", selector_from_set({"app": "web"})), lazy.list("Pod", "default")]
    full = View({"Pod": store.list("Pod")})
    whole = [full.owned_by("Pod", "d1"), full.orphans("Pod", "default"),
             full.selected("Pod", "default", selector_from_set({"app": "web"})), full.list("Pod", "default")]
    assert [[p["metadata"]["name"] for p in a] for a in answers] == [
        ["p0", "p2"], ["p1"], ["p0", "p1", "p2"], ["p0", "p1", "p2"]]
    for got, want in zip(answers, whole, strict=True):
        assert all("managedFields" in p["metadata"] for p in want)
        assert got == [{**p, "metadata": {k: v for k, v in p["metadata"].items() if k != "managedFields"}}
                       for p in want]
    assert store.get("Pod", "default", "p0")["metadata"]["managedFields"]  # the store's own, whole
    store.rollback()


def test_a_read_only_snapshot_of_an_older_state_says_the_index_cannot_answer(tmp_path):
    store = Store(tmp_path).open()
    store.create({"kind": "Pod", "metadata": {"name": "p", "namespace": "default",
                                              "annotations": {"kubernetes.io/config.mirror": "x"}}}, NOW)
    store.commit()
    store = Store(tmp_path).open()
    store.set_meta(OBJECT_INDEX_META, None)
    store.commit()
    store = Store(tmp_path).open(read_only=True)
    assert store.keys_annotated("Pod", "kubernetes.io/config.mirror") is None
    store.rollback()
    store = Store(tmp_path).open()
    assert store.keys_annotated("Pod", "kubernetes.io/config.mirror") == [("Pod", "default", "p")]
    store.rollback()
