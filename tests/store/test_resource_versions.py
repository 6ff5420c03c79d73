"""``Store.resource_versions``: the resourceVersion ``get`` would show, for keys committed and
unread, read, written, deleted or absent in this transaction, without decoding a body."""

from __future__ import annotations

from kubesim.store import Store

NOW = "2026-11-26T23:10:07Z"


def _pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}}


def test_resource_versions_answer_as_get_does_in_every_case(tmp_path):
    store = Store(tmp_path).open()
    for name in ("unread", "read", "written", "deleted"):
        store.create(_pod(name), NOW)
    store.commit()
    store = Store(tmp_path).open()
    store.get("Pod", "default", "read")
    store.put(store.get("Pod", "default", "written"))
    store.delete("Pod", "default", "deleted")
    store.create(_pod("new"), NOW)
    keys = [("Pod", "default", n) for n in ("unread", "read", "written", "deleted", "new", "absent")]
    keys.append(("Pod", "other", "unread"))  # (another namespace: absent)
    got = store.resource_versions(keys)
    # asked of a fresh transaction (nothing read) and of this one, get says the same
    want = {k: (o["metadata"]["resourceVersion"] if (o := store.get(*k)) is not None else None) for k in keys}
    assert got == want
    assert [got[k] is None for k in keys] == [False, False, False, True, False, True, True]
    assert int(got[keys[2]]) > int(got[keys[1]])  # (the write's new version)
    store.rollback()
    fresh = Store(tmp_path).open()
    assert fresh.resource_versions(keys[:4]) == {k: fresh.get(*k)["metadata"]["resourceVersion"] for k in keys[:4]}
    fresh.rollback()


def _projecting(tmp_path) -> Store:
    store = Store(tmp_path).open()
    store.project("Pod", lambda o: {"name": o["metadata"]["name"]}, "v1")
    return store


def test_resource_versions_from_projected_rows_only_when_they_are_all_current(tmp_path):
    """With every projected row current (the last commit's), the versions are read from them;
    a writer without the projection leaves them stale, and they are then read from the
    objects, until a commit with the projection completes the rows again."""
    store = _projecting(tmp_path)
    for name in ("a", "b", "c"):
        store.create(_pod(name), NOW)
    store.commit()
    keys = [("Pod", "default", n) for n in ("a", "b", "c", "absent")]

    def check(store):
        want = {k: (o["metadata"]["resourceVersion"] if (o := Store(tmp_path).open(read_only=True).get(*k))
                    is not None else None) for k in keys}
        assert store.resource_versions(keys) == want
        return want

    store = _projecting(tmp_path)
    assert store._projected_current("Pod")
    store.create(_pod("d"), NOW)  # (this transaction's writes: the rows still hold the last commit)
    assert store._projected_current("Pod")
    check(store)
    store.rollback()
    plain = Store(tmp_path).open()  # a writer without the projection: b's row left stale
    plain.put(plain.get("Pod", "default", "b"))
    plain.delete("Pod", "default", "c")
    plain.commit()
    store = _projecting(tmp_path)
    assert not store._projected_current("Pod")
    want = check(store)
    assert want[keys[2]] is None
    store.set_meta("something", 1)
    store.commit()  # (completes the rows)
    store = _projecting(tmp_path)
    assert store._projected_current("Pod")
    check(store)
    store.put(store.get("Pod", "default", "a"))
    store.checkpoint()  # (writes the rows with the objects: current again)
    assert store._projected_current("Pod")
    assert store.resource_versions(keys[:1]) == {keys[0]: store.get(*keys[0])["metadata"]["resourceVersion"]}
    store.rollback()
    assert Store(tmp_path).open().resource_versions(keys[:1]) == {keys[0]: want[keys[0]]}
