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
