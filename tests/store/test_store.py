"""The state store's guarantees (DESIGN §3.2): all-or-nothing commands, no lost updates under
concurrent writers, the last committed state after a kill, nothing rewritten by a read."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from kubesim.errors import StateError
from kubesim.store import Store


def _pod(name, ns="default"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": {}}


def test_objects_written_in_a_transaction_are_read_back_with_server_fields(tmp_path):
    s = Store(tmp_path).open()
    s.create(_pod("a"), "2026-11-22T10:00:00Z")
    s.commit()
    s = Store(tmp_path).open()
    got = s.get("Pod", "default", "a")
    s.rollback()
    assert got["metadata"]["creationTimestamp"] == "2026-11-22T10:00:00Z"
    assert got["metadata"]["resourceVersion"] == "1"
    assert len(got["metadata"]["uid"]) == 36


def test_a_rolled_back_transaction_leaves_nothing(tmp_path):
    s = Store(tmp_path).open()
    s.create(_pod("a"), "t")
    s.rollback()
    s = Store(tmp_path).open()
    assert s.get("Pod", "default", "a") is None
    assert s.list("Pod") == []
    s.rollback()


@pytest.mark.parametrize("committed_first", [False, True])
def test_a_failed_first_transaction_leaves_no_database_but_a_later_one_keeps_it(tmp_path, committed_first):
    """A first command that fails must not leave a table-less database that makes the state look
    as if it existed; a rollback on an existing state keeps it."""
    from kubesim.store.files import DB_FILES

    if committed_first:
        s = Store(tmp_path).open()
        s.create(_pod("a"), "t")
        s.commit()
    s = Store(tmp_path).open()
    s.create(_pod("b"), "t")
    s.rollback()
    assert any((tmp_path / f).exists() for f in DB_FILES) is committed_first
    s = Store(tmp_path).open()
    assert [p["metadata"]["name"] for p in s.list("Pod")] == (["a"] if committed_first else [])
    s.rollback()


def test_resource_versions_grow_with_every_write(tmp_path):
    s = Store(tmp_path).open()
    a = s.create(_pod("a"), "t")
    rv1 = int(a["metadata"]["resourceVersion"])
    s.put(a)
    assert int(a["metadata"]["resourceVersion"]) == rv1 + 1
    s.commit()


def test_list_is_sorted_by_namespace_then_name_and_filters_by_namespace(tmp_path):
    s = Store(tmp_path).open()
    for ns, n in (("b", "x"), ("a", "y"), ("a", "b")):
        s.create(_pod(n, ns), "t")
    s.commit()
    s = Store(tmp_path).open()
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in s.list("Pod")] == [("a", "b"), ("a", "y"), ("b", "x")]
    assert [o["metadata"]["name"] for o in s.list("Pod", "a")] == ["b", "y"]
    s.rollback()


def _names(objs):
    return [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in objs]


@pytest.mark.parametrize("write, want", [
    ("create a new object", [("a", "b"), ("a", "c"), ("a", "y"), ("b", "x")]),
    ("delete one", [("a", "b"), ("b", "x")]),
    ("put a changed copy of one", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("change one in place and put it", [("a", "b"), ("a", "y"), ("b", "x")]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_the_sorted_list_kept_per_kind_stays_right_after_every_kind_of_write(tmp_path, write, want):
    s = Store(tmp_path).open()
    for ns, n in (("b", "x"), ("a", "y"), ("a", "b")):
        s.create(_pod(n, ns), "t")
    s.commit()
    s = Store(tmp_path).open()
    first = s.list("Pod")
    first.clear()  # callers get a copy: changing it changes nothing stored
    if write == "create a new object":
        s.create(_pod("c", "a"), "t")
    elif write == "delete one":
        s.delete("Pod", "a", "y")
    elif write == "put a changed copy of one":
        new = dict(s.get("Pod", "a", "y"), spec={"nodeName": "n1"})
        s.put(new)
    else:
        obj = s.get("Pod", "a", "y")
        obj["spec"]["nodeName"] = "n1"
        s.put(obj)
    assert _names(s.list("Pod")) == want
    assert _names(s.list("Pod", "a")) == [k for k in want if k[0] == "a"]
    if write.startswith("put") or write.startswith("change"):
        assert [o for o in s.list("Pod") if o["metadata"]["name"] == "y"][0]["spec"] == {"nodeName": "n1"}
    s.commit()
    s = Store(tmp_path).open()
    assert _names(s.list("Pod")) == want
    s.rollback()


def test_the_event_index_is_read_back_in_later_transactions_and_emptied_by_wipe(tmp_path):
    s = Store(tmp_path).open()
    assert s.event_name("k1") is None
    s.set_event_name("k1", "ev1")
    assert s.dirty
    assert s.event_keys() == ["k1"]
    s.commit()
    s = Store(tmp_path).open()
    assert s.event_name("k1") == "ev1"
    s.set_event_name("k2", "ev2")
    assert sorted(s.event_keys()) == ["k1", "k2"]
    s.rollback()
    s = Store(tmp_path).open()
    assert s.event_name("k2") is None
    s.wipe()
    assert s.event_name("k1") is None
    s.commit()
    s = Store(tmp_path).open()
    assert s.event_keys() == []
    s.rollback()


def test_an_older_state_s_event_index_kept_in_metadata_moves_into_its_table(tmp_path):
    import json
    import sqlite3

    s = Store(tmp_path).open()
    s.commit()
    conn = sqlite3.connect(str(tmp_path / "kubesim.db"))
    conn.execute("INSERT INTO meta VALUES (?, ?)", ("events.index", json.dumps({"k1": "ev1", "k2": "ev2"})))
    conn.commit()
    conn.close()
    s = Store(tmp_path).open()
    assert s.event_name("k2") == "ev2"
    s.commit()
    s = Store(tmp_path).open()
    assert s.meta("events.index") is None
    assert sorted(s.event_keys()) == ["k1", "k2"]
    assert s.event_name("k1") == "ev1"
    s.rollback()


def test_a_transaction_with_no_changes_writes_nothing(tmp_path):
    s = Store(tmp_path).open()
    s.create(_pod("a"), "t")
    s.commit()
    db = tmp_path / "kubesim.db"
    before = (db.stat().st_mtime_ns, (tmp_path / "kubesim.db-wal").stat().st_size if (tmp_path / "kubesim.db-wal").exists() else 0)
    s = Store(tmp_path).open()
    s.list("Pod")
    s.set_meta("resourceVersion", s.meta("resourceVersion"))
    assert s.commit() is False
    after = (db.stat().st_mtime_ns, (tmp_path / "kubesim.db-wal").stat().st_size if (tmp_path / "kubesim.db-wal").exists() else 0)
    assert before == after


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_a_state_directory_that_is_not_writable_is_refused(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(StateError, match="not writable"):
            Store(d).open()
    finally:
        d.chmod(0o700)


def test_a_state_path_that_is_a_file_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(StateError):
        Store(f).open()


WRITER = textwrap.dedent("""
    import sys
    from kubesim.store import Store
    d, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        s = Store(d).open()
        c = s.get("Pod", "default", "counter")
        c["data"] = c.get("data", 0) + 1
        s.put(c)
        s.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{who}-{i}", "namespace": "default"}}, "t")
        s.commit()
""")


def test_concurrent_writer_processes_lose_no_update(tmp_path):
    s = Store(tmp_path).open()
    s.create(_pod("counter"), "t")
    s.commit()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"w{i}", "25"])
             for i in range(4)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    s = Store(tmp_path).open()
    assert s.get("Pod", "default", "counter")["data"] == 100
    assert len(s.list("Pod")) == 101
    s.rollback()


KILLED = textwrap.dedent("""
    import sys, time
    from kubesim.store import Store
    d = sys.argv[1]
    s = Store(d).open()
    for i in range(200):
        s.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"half-{i}", "namespace": "default"}}, "t")
    print("ready", flush=True)
    time.sleep(60)  # killed here, mid-command, holding uncommitted changes
    s.commit()
""")


def test_a_writer_killed_mid_command_leaves_the_last_committed_state(tmp_path):
    s = Store(tmp_path).open()
    s.create(_pod("committed"), "t")
    s.commit()
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    s = Store(tmp_path).open()
    assert [o["metadata"]["name"] for o in s.list("Pod")] == ["committed"]
    s.rollback()


COMMIT_KILLED = textwrap.dedent("""
    import sys
    from kubesim.store import Store
    d = sys.argv[1]
    i = 0
    while True:
        s = Store(d).open()
        for j in range(50):
            s.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"b{i}-{j}", "namespace": "default"}}, "t")
        s.commit()
        i += 1
""")


def test_a_writer_killed_at_a_random_point_leaves_whole_batches_only(tmp_path):
    Store(tmp_path).open().commit()
    p = subprocess.Popen([sys.executable, "-c", COMMIT_KILLED, str(tmp_path)])
    time.sleep(1.5)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    s = Store(tmp_path).open()
    names = [o["metadata"]["name"] for o in s.list("Pod")]
    s.rollback()
    assert len(names) % 50 == 0


def test_keys_containing_finds_stored_text_and_follows_this_transaction_s_writes(tmp_path):
    s = Store(tmp_path).open()
    a = _pod("a")
    a["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    s.create(a, "t")
    s.create(_pod("b"), "t")
    s.create(dict(_pod("c"), metadata={"name": "c", "namespace": "default",
                                       "annotations": {"kubernetes.io/config.mirror": "y"}}), "t")
    s.commit()
    s = Store(tmp_path).open()
    assert s.keys_containing("Pod", "config.mirror") == [("Pod", "default", "a"), ("Pod", "default", "c")]
    s.delete("Pod", "default", "c")
    s.create(_pod("d"), "t")  # written this transaction: a candidate, whatever it holds
    assert s.keys_containing("Pod", "config.mirror") == [("Pod", "default", "a"), ("Pod", "default", "d")]
    s.list("Pod")  # once the kind is loaded every key is a candidate
    assert s.keys_containing("Pod", "config.mirror") == [("Pod", "default", "a"), ("Pod", "default", "b"),
                                                          ("Pod", "default", "d")]
    s.rollback()


def test_keys_lists_every_object_of_a_kind_without_decoding_and_follows_this_transaction(tmp_path):
    s = Store(tmp_path).open()
    for name in ("a", "b", "c"):
        s.create(_pod(name), "t")
    s.commit()
    s = Store(tmp_path).open()
    assert s.keys("Pod") == [("Pod", "default", "a"), ("Pod", "default", "b"), ("Pod", "default", "c")]
    s.delete("Pod", "default", "b")
    s.create(_pod("d"), "t")
    assert s.keys("Pod") == [("Pod", "default", "a"), ("Pod", "default", "c"), ("Pod", "default", "d")]
    s.list("Pod")
    assert s.keys("Pod") == [("Pod", "default", "a"), ("Pod", "default", "c"), ("Pod", "default", "d")]
    assert s.keys("Node") == []
    s.rollback()


@pytest.mark.parametrize("read_first", [False, True])
def test_delete_unread_deletes_without_decoding_and_reads_back_the_old_body(tmp_path, read_first):
    s = Store(str(tmp_path)).open()
    for name in ("a", "b"):
        s.create({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
                  "reason": name}, "2026-11-22T10:00:00Z")
    s.commit()
    s = Store(str(tmp_path)).open()
    if read_first:
        assert s.get("Event", "default", "a")["reason"] == "a"
    done = s.delete_unread("Event", "default", "a")
    assert done is not read_first  # a read object is the caller's to look at and delete
    if read_first:
        s.delete("Event", "default", "a")
    assert s.get("Event", "default", "a") is None
    assert [o["metadata"]["name"] for o in s.list("Event")] == ["b"]
    rv, old = s.deleted("Event", "default", "a")
    assert old["reason"] == "a" and rv > 0
    s.commit()
    s = Store(str(tmp_path)).open()
    assert [o["metadata"]["name"] for o in s.list("Event")] == ["b"]


@pytest.mark.parametrize("seeks", [2000, 0], ids=["a seek a node", "one pass over the index"])
@pytest.mark.parametrize("seed", range(3), ids=lambda s: f"random binds, moves and deletes {s}")
def test_pod_keys_on_nodes_answers_as_pod_keys_on_node_for_each(tmp_path, seed, seeks, monkeypatch):
    """The kubelets' pass over many nodes (kubelet/steps.py sync_pods) takes their pods' keys
    in one read: the same as asking node by node, this transaction's writes included."""
    import random

    import kubesim.store

    monkeypatch.setattr(kubesim.store, "NODE_SEEKS", seeks)

    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(6)]
    for round_ in range(3):
        store = Store(tmp_path).open()
        for i in range(12):
            name = f"p{rng.randint(0, 20)}"
            if rng.random() < 0.25:
                store.delete("Pod", "default", name)
                continue
            spec = {"nodeName": rng.choice(nodes)} if rng.random() < 0.8 else {}
            store.put({"kind": "Pod", "metadata": {"name": name, "namespace": rng.choice(["default", "b"])},
                       "spec": spec})
        visit = set(rng.sample(nodes, 4)) | {"missing"}
        want = {n: keys for n in visit if (keys := store.pod_keys_on_node(n))}
        assert store.pod_keys_on_nodes(visit) == want
        store.commit()


def _heavy(name, ns="default"):
    pod = _pod(name, ns)
    pod["metadata"]["managedFields"] = [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]
    pod["spec"] = {"volumes": [{"name": "v"}], "nodeName": "n1"}
    return pod


def _write(s, write: str) -> None:
    """One of the writes the list and projection tests make before reading (on _heavy pods)."""
    if write == "read one first":
        s.get("Pod", "a", "y")
    elif write == "create a new object":
        s.create(_heavy("c", "a"), "t")
    elif write == "delete one":
        s.delete("Pod", "a", "y")
    elif write == "change one in place and put it":
        obj = s.get("Pod", "a", "y")
        obj["spec"]["nodeName"] = "n2"
        s.put(obj)


@pytest.mark.parametrize("write, want", [
    ("nothing", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("read one first", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("create a new object", [("a", "b"), ("a", "c"), ("a", "y"), ("b", "x")]),
    ("delete one", [("a", "b"), ("b", "x")]),
    ("change one in place and put it", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("load the kind", [("a", "b"), ("a", "y"), ("b", "x")]),
], ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("size", [1, 2, 500])
def test_a_list_without_unread_paths_and_in_pieces_follows_this_transaction(tmp_path, write, want, size):
    s = Store(tmp_path).open()
    for ns, n in (("b", "x"), ("a", "y"), ("a", "b")):
        s.create(_heavy(n, ns), "t")
    s.commit()
    s = Store(tmp_path).open()
    if write == "load the kind":
        s.list("Pod")
    else:
        _write(s, write)
    omit = ("metadata.managedFields", "spec.volumes")
    for ns in (None, "a"):
        expected = [k for k in want if ns is None or k[0] == ns]
        listed = s.list("Pod", ns, omit)
        pieces = list(s.list_pieces("Pod", ns, omit, size))
        assert _names(listed) == expected
        assert [_names(p) for p in pieces] == [expected[i:i + size] for i in range(0, len(expected), size)]
        for o in listed + [o for p in pieces for o in p]:
            # an object this transaction read or wrote comes whole; the others without the paths
            touched = {"load the kind": {"b", "x", "y"}, "create a new object": {"c"}, "read one first": {"y"},
                       "change one in place and put it": {"y"}}.get(write, set())
            whole = o["metadata"]["name"] in touched
            assert ("managedFields" in o["metadata"], "volumes" in o["spec"]) == (whole, whole), (write, o)
            assert o["spec"]["nodeName"] == ("n2" if write.startswith("change") and o["metadata"]["name"] == "y" else "n1")
        assert _names(s.objects([("Pod", *k) for k in reversed(expected)] + [("Pod", "a", "zz")], omit)) == \
            list(reversed(expected))
    s.rollback()


@pytest.mark.parametrize("write, want", [
    ("nothing", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("read one first", [("a", "b"), ("a", "y"), ("b", "x")]),
    ("create a new object", [("a", "b"), ("a", "c"), ("a", "y"), ("b", "x")]),
    ("delete one", [("a", "b"), ("b", "x")]),
    ("change one in place and put it", [("a", "b"), ("a", "y"), ("b", "x")]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_objects_read_again_without_paths_follow_this_transaction(tmp_path, write, want):
    """``objects`` with ``omit`` reads an object's text once a transaction (the database holds
    it unchanged until commit): read again, it is decoded afresh, and what the transaction
    wrote in between wins."""
    s = Store(tmp_path).open()
    for ns, n in (("b", "x"), ("a", "y"), ("a", "b")):
        s.create(_heavy(n, ns), "t")
    s.commit()
    s = Store(tmp_path).open()
    omit = ("metadata.managedFields", "spec.volumes")
    keys = [("Pod", "a", "b"), ("Pod", "a", "c"), ("Pod", "a", "y"), ("Pod", "b", "x")]
    first = s.objects(keys, omit)
    for o in first:
        o["spec"]["nodeName"] = "changed by the reader"  # (not the store's: a copy)
    _write(s, write)
    again = s.objects(keys, omit)
    assert _names(again) == want
    for o in again:
        assert o["spec"]["nodeName"] == ("n2" if write.startswith("change") and o["metadata"]["name"] == "y" else "n1")
        touched = o["metadata"]["name"] in {"create a new object": {"c"}, "read one first": {"y"},
                                            "change one in place and put it": {"y"}}.get(write, set())
        assert ("managedFields" in o["metadata"], "volumes" in o["spec"]) == (touched, touched)
    s.rollback()


# --- projected rows: what a kind's table reads, kept beside each object (Store.project) -------


def _project(obj):
    return {"metadata": {"name": obj["metadata"]["name"]}, "node": (obj.get("spec") or {}).get("nodeName")}


def _projecting(tmp_path, version="v1"):
    s = Store(tmp_path).open()
    s.project("Pod", _project, version)
    return s


def _rows(tmp_path):
    import sqlite3

    conn = sqlite3.connect(tmp_path / "kubesim.db")
    try:
        return {(ns, n): (rv, data) for ns, n, rv, data in
                conn.execute("SELECT namespace, name, rv, data FROM projected WHERE kind='Pod'")}
    finally:
        conn.close()


def _flat(pieces):
    return [(o["metadata"]["name"], o["node"]) for p in pieces for o in p]


@pytest.mark.parametrize("write, want", [
    ("nothing", [("b", "n1"), ("y", "n1"), ("x", "n1")]),
    ("read one first", [("b", "n1"), ("y", "n1"), ("x", "n1")]),
    ("create a new object", [("b", "n1"), ("c", "n1"), ("y", "n1"), ("x", "n1")]),
    ("delete one", [("b", "n1"), ("x", "n1")]),
    ("change one in place and put it", [("b", "n1"), ("y", "n2"), ("x", "n1")]),
], ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("size", [1, 2, 500])
def test_projected_pieces_follow_this_transaction_and_are_kept_at_commit(tmp_path, write, want, size):
    s = _projecting(tmp_path)
    for ns, n in (("b", "x"), ("a", "y"), ("a", "b")):
        s.create(_heavy(n, ns), "t")
    s.commit()
    s = _projecting(tmp_path)
    _write(s, write)
    pieces = list(s.projected_pieces("Pod", size=size))
    assert [len(p) for p in pieces] == [len(want[i:i + size]) for i in range(0, len(want), size)]
    assert _flat(pieces) == want
    assert _flat(s.projected_pieces("Pod", "b", size=size)) == [("x", "n1")]
    keys = [("Pod", "a", "y"), ("Pod", "b", "x"), ("Pod", "a", "zz")]
    assert _flat(s.projected_pieces("Pod", keys=keys, size=size)) == [w for w in [("y", "n2" if "change" in write else "n1"),
                                                                                ("x", "n1")]
                                                                       if write != "delete one" or w[0] != "y"]
    s.commit()
    rows = _rows(tmp_path)  # one row per object, at its resourceVersion, the projection as JSON
    s = Store(tmp_path).open()
    objs = s.list("Pod")
    s.rollback()
    assert {(o["metadata"]["namespace"], o["metadata"]["name"]): (int(o["metadata"]["resourceVersion"]),
            json.dumps(_project(o), separators=(",", ":"))) for o in objs} == rows


def test_projected_rows_are_read_alone_once_complete(tmp_path):
    s = _projecting(tmp_path)
    s.create(_heavy("a"), "t")
    s.commit()
    s = _projecting(tmp_path)
    assert s._projected_complete("Pod")
    s.rollback()
    import sqlite3

    conn = sqlite3.connect(tmp_path / "kubesim.db")
    conn.execute("UPDATE projected SET data='{\"metadata\":{\"name\":\"a\"},\"node\":\"from the row\"}'")
    conn.commit()
    conn.close()
    s = _projecting(tmp_path)
    assert _flat(s.projected_pieces("Pod")) == [("a", "from the row")]  # (no object decoded)
    s.rollback()


@pytest.mark.parametrize("how", ["a writer without the projection", "an older state without the table",
                                 "another version of the projection"])
def test_a_stale_projection_is_never_served_and_the_next_commit_completes_it(tmp_path, how):
    s = _projecting(tmp_path)
    for n in ("a", "b"):
        s.create(_heavy(n), "t")
    s.commit()
    import sqlite3

    if how == "a writer without the projection":
        s = Store(tmp_path).open()
        obj = s.get("Pod", "default", "b")
        obj["spec"]["nodeName"] = "n2"
        s.put(obj)
        s.commit()
    elif how == "an older state without the table":
        conn = sqlite3.connect(tmp_path / "kubesim.db")
        conn.execute("DROP TABLE projected")
        conn.execute("DELETE FROM meta WHERE key='store.projectedSynced'")
        conn.commit()
        conn.close()
        s = Store(tmp_path).open(read_only=True)  # (a snapshot creates no table)
        s.project("Pod", _project, "v1")
        assert _flat(s.projected_pieces("Pod")) == [("a", "n1"), ("b", "n1")]
        s.rollback()
    version = "v2" if how == "another version of the projection" else "v1"
    fn = _project if version == "v1" else (lambda o: {**_project(o), "node": "v2"})
    s = Store(tmp_path).open(read_only=True)
    s.project("Pod", fn, version)
    b = "v2" if version == "v2" else ("n2" if how.startswith("a writer") else "n1")
    assert _flat(s.projected_pieces("Pod")) == [("a", "v2" if version == "v2" else "n1"), ("b", b)]
    s.rollback()
    s = Store(tmp_path).open()
    s.project("Pod", fn, version)
    s.set_meta("something", 1)  # any write transaction completes the rows at commit
    s.commit()
    s = Store(tmp_path).open()
    s.project("Pod", fn, version)
    assert s._projected_complete("Pod")
    objs = s.list("Pod")
    s.rollback()
    assert {n: data for (_, n), (_, data) in _rows(tmp_path).items()} == {
        o["metadata"]["name"]: json.dumps(fn(o), separators=(",", ":")) for o in objs}


def test_a_wiped_state_keeps_no_projected_rows_of_what_it_held(tmp_path):
    s = _projecting(tmp_path)
    s.create(_heavy("a"), "t")
    s.commit()
    s = _projecting(tmp_path)
    s.wipe()
    s.create(_heavy("b"), "t")
    assert _flat(s.projected_pieces("Pod")) == [("b", "n1")]
    s.commit()
    assert list(_rows(tmp_path)) == [("default", "b")]


def _named_pod(ns: str, name: str, **labels) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels}}


@pytest.mark.parametrize("before", ["nothing read", "some read", "one written", "one deleted", "kind listed"],
                         ids=lambda b: f"get_many answers as get does, with {b} before it")
def test_get_many_gives_what_get_gives_in_the_order_asked(tmp_path, before):
    store = Store(tmp_path).open()
    for i in range(1200):  # past the 500 names of one statement
        store.create(_named_pod("a" if i % 3 else "b", f"p{i:04d}", n=str(i)), "2026-01-01T00:00:00Z")
    store.commit()
    store = Store(tmp_path).open()
    if before == "some read":
        store.get("Pod", "a", "p0001")
        store.get("Pod", "a", "nothere")
    elif before == "one written":
        pod = store.get("Pod", "a", "p0002")
        pod["metadata"]["labels"]["n"] = "changed"
        store.put(pod)
        store.create(_named_pod("b", "new"), "2026-01-01T00:00:00Z")
    elif before == "one deleted":
        store.delete("Pod", "a", "p0004")
    elif before == "kind listed":
        store.list("Pod")
    keys = [("Pod", "a" if i % 3 else "b", f"p{i:04d}") for i in range(1200, -1, -7)]
    keys += [("Pod", "a", "p0002"), ("Pod", "a", "p0004"), ("Pod", "b", "new"), ("Pod", "a", "nothere"),
             ("Pod", "b", "p0001"), ("Node", "", "nothere"), ("Pod", "a", "p0001")]
    got = store.get_many(keys)
    want = [o for k in keys if (o := store.get(*k)) is not None]
    assert got == want and all(g is w for g, w in zip(got, want, strict=True))  # the cache's own dicts
    assert store.get_many([]) == []
    store.rollback()


@pytest.mark.parametrize("between", ["nothing", "one created", "one changed", "one deleted", "another namespace written",
                                     "kind listed"],
                         ids=lambda b: f"a namespace listed again after {b} answers as a fresh read would")
def test_a_namespace_listed_again_is_answered_from_the_cache_as_the_database_would(tmp_path, between):
    store = Store(tmp_path).open()
    for i in range(6):
        store.create(_named_pod("a" if i % 2 else "b", f"p{i}", n=str(i)), "2026-01-01T00:00:00Z")
    store.commit()
    store = Store(tmp_path).open()
    first = store.list("Pod", "a")
    assert [p["metadata"]["name"] for p in first] == ["p1", "p3", "p5"]
    if between == "one created":
        store.create(_named_pod("a", "p0a"), "2026-01-01T00:00:00Z")
    elif between == "one changed":
        pod = store.get("Pod", "a", "p3")
        pod["metadata"]["labels"]["n"] = "changed"
        store.put(pod)
    elif between == "one deleted":
        store.delete("Pod", "a", "p1")
    elif between == "another namespace written":
        store.create(_named_pod("b", "q"), "2026-01-01T00:00:00Z")
    elif between == "kind listed":
        store.list("Pod")
    again = store.list("Pod", "a")
    # what a transaction that had read nothing would list, with this one's writes laid over
    want = [o for o in store.list("Pod") if o["metadata"]["namespace"] == "a"]
    assert again == want and all(g is w for g, w in zip(again, want, strict=True))
    store.commit()
    fresh = Store(tmp_path).open()
    assert fresh.list("Pod", "a") == again
    fresh.rollback()


def test_prefetched_metadata_values_are_those_meta_reads(tmp_path):
    store = Store(tmp_path).open()
    for i in range(1200):  # past the 500 keys of one statement
        store.set_meta(f"k/{i}", {"i": i} if i % 5 else [i, "x"])
    store.commit()
    keys = [f"k/{i}" for i in range(0, 1300, 3)] + ["absent", "k/3"]
    store = Store(tmp_path).open()
    store.set_meta("k/6", "changed here")  # this transaction's own value stays
    store.prefetch_meta(keys)
    got = {k: store.meta(k, "default") for k in keys}
    store.rollback()
    store = Store(tmp_path).open()
    store.set_meta("k/6", "changed here")
    want = {k: store.meta(k, "default") for k in keys}
    store.rollback()
    assert got == want
    assert got["absent"] == "default" and got["k/1299"] == "default" and got["k/6"] == "changed here"


@pytest.mark.parametrize("absent_only", [False, True],
                         ids=["prefetched committed bodies are those committed reads",
                              "prefetching only which are absent answers committed the same"])
def test_prefetched_committed_bodies_are_those_committed_reads(tmp_path, absent_only):
    store = Store(tmp_path).open()
    for i in range(1200):  # past the 500 names of one statement
        store.create(_named_pod("a" if i % 3 else "b", f"p{i:04d}", n=str(i)), "2026-01-01T00:00:00Z")
    store.commit()
    keys = [("Pod", "a" if i % 3 else "b", f"p{i:04d}") for i in range(0, 1300, 7)]
    keys += [("Pod", "a", "new"), ("Node", "", "nothere"), ("Pod", "a", "p0001")]
    store = Store(tmp_path).open()
    pod = store.get("Pod", "a", "p0001")
    pod["metadata"]["labels"]["n"] = "changed here"  # (committed is what was, not this)
    store.put(pod)
    store.create(_named_pod("a", "new"), "2026-01-01T00:00:00Z")
    store.prefetch_committed(keys, absent_only=absent_only)
    got = [store.committed(*k) for k in keys]
    store.rollback()
    store = Store(tmp_path).open()
    want = [store.committed(*k) for k in keys]
    store.rollback()
    assert got == want
    assert got[-1]["metadata"]["labels"]["n"] == "1" and got[-3] is None and got[-2] is None


@pytest.mark.parametrize("writes, want", [
    pytest.param({}, [["a"], ["b"], ["c"]], id="the committed values in key order"),
    pytest.param({"p/b": ["B"]}, [["a"], ["B"], ["c"]], id="this transaction's value in its place"),
    pytest.param({"p/0": ["0"], "p/bb": ["bb"]}, [["0"], ["a"], ["b"], ["bb"], ["c"]],
                 id="this transaction's new keys in key order"),
    pytest.param({"p/a": None}, [["b"], ["c"]], id="a deleted value left out"),
    pytest.param({"q/a": ["other"], "p": ["bare"], "p0": ["after"]}, [["a"], ["b"], ["c"]],
                 id="keys without the prefix are not read"),
])
def test_meta_prefixed_reads_a_value_kept_per_item(tmp_path, writes, want):
    s = Store(tmp_path).open()
    s.replace_meta({"p/c": ["c"], "p/a": ["a"], "p/b": ["b"], "big": ["x" * 100_000]})
    s.commit()
    s = Store(tmp_path).open()
    s.replace_meta(writes)
    got = s.meta_prefixed("p/")
    assert got == want
    got[0].append("changed")  # fresh objects: what is written at commit stays as it was set
    s.commit()
    s = Store(tmp_path).open()
    assert s.meta_prefixed("p/") == want
    assert all(s.committed_meta(k) is None for k, v in writes.items() if v is None)
    s.rollback()


@pytest.mark.parametrize("n", [0, 1, (1 << 128) - 1, 0x0123456789ABCDEF0123456789ABCDEF, 1 << 76, 0xC000 << 48])
def test_uuid4_is_what_the_uuid_module_formats(n):
    import uuid

    from kubesim.store import uuid4

    assert uuid4(n) == str(uuid.UUID(int=n, version=4))


def test_system_uids_are_never_handed_out_twice_across_refills_and_forks():
    """``new_uid`` without a seeded source reads the system's random bytes a few hundred uids
    at a time: uids across many refills are distinct version-4 UUIDs, and a forked child
    (which inherits the unused bytes) draws its own."""
    import os
    import uuid

    from kubesim.store import new_uid

    drawn = [new_uid() for _ in range(2000)]
    assert len(set(drawn)) == len(drawn)
    assert all(uuid.UUID(u).version == 4 and str(uuid.UUID(u)) == u for u in drawn)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next uids, to the parent
        os.close(read)
        os.write(write, " ".join(new_uid() for _ in range(50)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        child = f.read().split()
    os.waitpid(pid, 0)
    mine = [new_uid() for _ in range(50)]
    assert len(child) == 50 and not set(child) & set(mine)


def _pages(directory) -> tuple[int, int, int]:
    """(auto_vacuum, pages, free pages) of a state's database."""
    import sqlite3

    conn = sqlite3.connect(f"file:{directory / 'kubesim.db'}?mode=ro", uri=True)
    try:
        return tuple(conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("auto_vacuum", "page_count", "freelist_count"))
    finally:
        conn.close()


def _config_map(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}", "namespace": "default"},
            "data": {"x": "y" * 2000}}


@pytest.mark.parametrize("made_before, then, want_auto_vacuum, want_free", [
    pytest.param(False, "delete", 1, 0, id="a new state gives the pages a commit freed back"),
    pytest.param(True, "delete", 0, "most", id="a state made before keeps them"),
    pytest.param(True, "wipe", 1, 0, id="until a new cluster: the file is rewritten once"),
])
def test_freed_pages_go_back_to_the_file_system(tmp_path, made_before, then, want_auto_vacuum, want_free):
    import sqlite3

    store = Store(tmp_path).open()
    for i in range(600):
        store.create(_config_map(i), "2026-11-22T10:00:00Z")
    store.commit()
    if made_before:  # (as kubesim made states before: auto_vacuum off)
        conn = sqlite3.connect(tmp_path / "kubesim.db", isolation_level=None)
        conn.execute("PRAGMA auto_vacuum=NONE")
        conn.execute("VACUUM")
        conn.close()
    _, full, _ = _pages(tmp_path)
    store = Store(tmp_path).open()
    if then == "wipe":
        store.wipe()
        store.create(_config_map(0), "2026-11-22T10:00:00Z")
    else:
        for i in range(500):
            store.delete("ConfigMap", "default", f"c{i}")
    store.commit()
    auto_vacuum, pages, free = _pages(tmp_path)
    assert auto_vacuum == want_auto_vacuum
    if want_free == "most":
        assert pages == full and free > pages // 2
    else:
        assert free == 0 and pages < full // 4
    store = Store(tmp_path).open()  # (and what is left reads back)
    assert len(store.list("ConfigMap", "default")) == (1 if then == "wipe" else 100)
    store.rollback()


@pytest.mark.parametrize("value", [
    None, True, 0, -3, 10 ** 30, 1.5, 1e300, float("nan"), float("inf"), "plain", 'é\u2028"\\\n\x00',
    [], {}, {"a": [1, {"b": None}], "ü": "ß", "n": [1.0, 2.5e-10]}, {1: "int key", None: "null key"},
], ids=repr)
def test_what_the_store_writes_is_json_dumps_compact_text(value):
    """Bodies, rows and values are written as ``json.dumps(o, separators=(",", ":"))`` (made by
    json's C encoder, built once): the text every state holds, whichever kubesim wrote it."""
    from kubesim.store import _dumps

    assert _dumps(value) == json.dumps(value, separators=(",", ":"))


def test_what_the_store_writes_refuses_what_json_refuses():
    from kubesim.store import _dumps

    with pytest.raises(TypeError, match="not JSON serializable"):
        _dumps({"a": object()})


@pytest.mark.parametrize("many", [False, True], ids=["a few looked for", "more than a statement takes"])
def test_meta_prefixed_among_finds_the_values_stored_under_the_prefix_but_the_skipped(tmp_path, many):
    store = Store(tmp_path).open()
    store.replace_meta({"p/a": [{}, "k1"], "p/b": [{}, "k2"], "p/c": [{}, None], "q/d": [{}, "k3"], "p/e": [{}, 7]})
    extra = [f"x{i}" for i in range(600)] if many else []
    assert store.meta_prefixed_among("p/", "$[1]", ["k1", *extra]) == set()  # (this transaction's: not stored yet)
    store.commit()
    store = Store(tmp_path).open()
    among = store.meta_prefixed_among
    assert among("p/", "$[1]", ["k1", "k2", "k3", "7", *extra]) == {"k1", "k2"}  # (k3: another prefix's)
    assert among("p/", "$[1]", ["k1", "k2", *extra], skip={"p/a"}) == {"k2"}
    assert among("p/", "$[1]", []) == set()
    store.replace_meta({"p/b": [{}, "k1"]})  # (stored as before until commit)
    assert among("p/", "$[1]", ["k1", "k2", *extra], {"p/a"}) == {"k2"}
    store.rollback()


def test_rekeying_the_event_index_moves_stored_and_this_transaction_s_keys(tmp_path):
    s = Store(str(tmp_path / "state")).open()
    s.set_event_name("a|1", "ev1")
    s.commit()
    s = Store(str(tmp_path / "state")).open()
    s.set_event_name("b|2", "ev2")  # (this transaction's, not yet stored)
    assert s.event_name("c|3") is None  # (read: none)
    s.rekey_events(lambda k: k.replace("|", "/"))
    assert sorted(s.event_keys()) == ["a/1", "b/2"]
    assert (s.event_name("a/1"), s.event_name("b/2"), s.event_name("a|1")) == ("ev1", "ev2", None)
    s.commit()
    s = Store(str(tmp_path / "state")).open()
    assert sorted(s.event_keys()) == ["a/1", "b/2"]
    s.rollback()


def test_meta_held_under_and_meta_items_under_answer_as_the_last_commit_left_the_prefix(tmp_path):
    store = Store(tmp_path).open()
    store.replace_meta({"old|a|1": {"n": 1}, "old|a|2": {"n": 2}, "old|b|1": {"n": 3}, "new/a": {"n": 4}})
    assert not store.meta_held_under("old|")  # (this transaction's: not stored yet)
    store.commit()
    store = Store(tmp_path).open()
    assert store.meta_held_under("old|") and store.meta_held_under("new/") and not store.meta_held_under("gone/")
    assert store.meta_items_under("old|a|") == [("old|a|1", {"n": 1}), ("old|a|2", {"n": 2})]
    store.replace_meta({"old|a|1": None, "old|a|2": {"n": 5}})  # (the caller's own: left out)
    assert store.meta_items_under("old|a|") == []
    assert store.meta_items_under("old|") == [("old|b|1", {"n": 3})]
    store.replace_meta({"old|b|1": None})
    assert store.meta_held_under("old|")  # (the rows are still there until the commit)
    # a checkpoint writes them: the answer, kept for the transaction, is asked again
    store.replace_meta({"old|a|2": None})
    store.checkpoint()
    assert not store.meta_held_under("old|") and store.meta_held_under("new/")
    store.wipe()
    assert not store.meta_held_under("new/") and store.meta_items_under("new/") == []
    store.rollback()


def test_an_object_known_absent_is_not_looked_up(tmp_path):
    """``known_absent(objects=...)``: the caller's word that the database holds no such object
    (an Event name the event sequence just made): ``committed`` answers None without a read."""
    s = Store(str(tmp_path / "state")).open()
    s.create({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1", "namespace": "default"}},
             "2026-11-22T10:00:00Z")
    s.commit()
    s = Store(str(tmp_path / "state")).open()
    statements = []
    s._require().set_trace_callback(statements.append)
    s.known_absent(objects=[("Event", "default", "web.2")])
    assert s.committed("Event", "default", "web.2") is None
    assert statements == []
    assert s.committed("Event", "default", "web.1") is not None  # (the others are read)
    s.rollback()
