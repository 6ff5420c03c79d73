"""The store's write path kept byte for byte while it does less: ``committed`` answered from
the text a read of this transaction decoded, or (a new Event) from the names of the Events
that share its object's prefix; ``put``'s resourceVersions; sums rows written only when
their text changes."""
import json
import sqlite3

import pytest

from kubesim.store import Store

NOW = "2026-01-01T00:00:00Z"


def _obj(kind: str, ns: str, name: str, **extra) -> dict:
    md = {"name": name}
    if ns:
        md["namespace"] = ns
    return {"apiVersion": "v1", "kind": kind, "metadata": md, **extra}


def _rows(directory, table: str) -> list:
    conn = sqlite3.connect(directory / "kubesim.db")
    try:
        return conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
    finally:
        conn.close()


# how the object is read before ``committed`` asks for it
READS = ["none", "get", "get_many", "get_many_of_many", "objects_omit", "changed_in_place"]


@pytest.mark.parametrize("read", READS)
def test_committed_is_the_stored_object_however_it_was_read(tmp_path, read):
    s = Store(tmp_path).open()
    for i in range(60):
        s.create(_obj("Node", "", f"n{i:02d}", status={"images": [{"names": [f"i{i}"]}]}), NOW)
    s.commit()
    expected = {f"n{i:02d}": _rows(tmp_path, "objects")[i][5] for i in range(60)}
    s = Store(tmp_path).open()
    keys = [("Node", "", f"n{i:02d}") for i in range(60)]
    if read == "get":
        s.get(*keys[3])
    elif read == "get_many":
        s.get_many(keys[:5])
    elif read == "get_many_of_many":
        s.get_many(keys)
    elif read == "objects_omit":
        s.objects(keys, ("metadata.managedFields",))
    elif read == "changed_in_place":
        n = s.get(*keys[3])
        n["status"]["images"].append({"names": ["new"]})
        s.put(n)
    got = s.committed(*keys[3])
    assert got == json.loads(expected["n03"])
    assert s.committed(*keys[3]) is got  # (decoded once)
    assert s.committed("Node", "", "absent") is None
    s.rollback()


def test_committed_after_a_checkpoint_is_what_the_checkpoint_wrote(tmp_path):
    s = Store(tmp_path).open()
    s.create(_obj("Node", "", "n", spec={"unschedulable": False}), NOW)
    s.commit()
    s = Store(tmp_path).open()
    n = s.get("Node", "", "n")  # (its text kept: stale once the checkpoint writes)
    n["spec"]["unschedulable"] = True
    s.put(n)
    s.checkpoint()
    assert s.committed("Node", "", "n")["spec"] == {"unschedulable": True}
    s.rollback()


# (existing Event names, the key asked for, whether the last commit holds it); upstream's
# makeEvent names an Event "<object>.<unix nanos in hex>" (client-go tools/record/event.go)
EVENT_CASES = [
    ([], "pod-a.1", False),
    (["pod-a.1"], "pod-a.1", True),
    (["pod-a.1"], "pod-a.2", False),
    (["pod-a.1", "pod-a.2"], "pod-a.2", True),
    (["pod-a.b.1"], "pod-a.1", False),     # another object's ("pod-a.b") Event
    (["pod-a.1"], "pod-a.b.1", False),
    (["pod-a.b.1"], "pod-a.b.1", True),
    (["pod-a-1"], "pod-a.1", False),       # "-" sorts before "."
    (["pod-a/1"], "pod-a.1", False),       # "/" right after "."
    (["pod-a.1"], "pod-a", False),         # no dot: looked up alone
    (["pod-a"], "pod-a", True),
    ([".1"], ".1", True),                  # a leading dot: looked up alone
    (["pod-a.1"], "pod-a.", False),
    (["pod-a."], "pod-a.", True),
]


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("existing,name,held", EVENT_CASES)
def test_committed_of_an_event_from_its_objects_event_names(tmp_path, existing, name, held, indexed):
    """``indexed``: event_written holds every Event (the names are read from it), else the
    names are read from the objects (a state written before it)."""
    s = Store(tmp_path).open()
    if indexed:
        s.events_written_before("0")  # (fills the table, once: every later write keeps it)
    for n in existing:
        s.create(_obj("Event", "default", n, reason="R"), NOW)
    s.create(_obj("Event", "other", name, reason="elsewhere"), NOW)  # another namespace's
    s.commit()
    s = Store(tmp_path).open()
    for n in existing:  # the object's other Events asked for first: the prefix looked up once
        if n != name:
            assert s.committed("Event", "default", n)["reason"] == "R"
    got = s.committed("Event", "default", name)
    assert (got is not None) is held
    if held:
        assert got["reason"] == "R"
    assert s.committed("Event", "other", name)["reason"] == "elsewhere"
    s.create(_obj("Event", "default", name + "0"), NOW)  # this transaction's own: not committed
    assert s.committed("Event", "default", name + "0") is None
    s.rollback()


@pytest.mark.parametrize("indexed", [False, True])
def test_committed_of_an_object_s_events_asked_for_in_any_order(tmp_path, indexed):
    """An object's Event names are read from the first asked for on (a new Event's name sorts
    after the committed ones): a name asked for later that sorts before it is read again."""
    s = Store(tmp_path).open()
    if indexed:
        s.events_written_before("0")
    for n in ("pod-a.1", "pod-a.3"):
        s.create(_obj("Event", "default", n, reason="R"), NOW)
    s.commit()
    s = Store(tmp_path).open()
    assert s.committed("Event", "default", "pod-a.4") is None
    assert s.committed("Event", "default", "pod-a.5") is None
    assert s.committed("Event", "default", "pod-a.3")["reason"] == "R"
    assert s.committed("Event", "default", "pod-a.2") is None
    assert s.committed("Event", "default", "pod-a.1")["reason"] == "R"
    s.rollback()


def test_committed_of_events_deleted_and_checkpointed_with_event_written(tmp_path):
    """The Event names read from event_written follow every commit and checkpoint as the
    objects do: a deleted Event is gone from both, one a checkpoint wrote is in both."""
    s = Store(tmp_path).open()
    s.events_written_before("0")
    for n in ("pod-a.1", "pod-a.2", "pod-b.1"):
        s.create(_obj("Event", "default", n, reason="R"), NOW)
    s.commit()
    s = Store(tmp_path).open()
    s.delete("Event", "default", "pod-a.1")
    s.commit()
    s = Store(tmp_path).open()
    assert s.meta("events.writtenIndexed")
    assert s.committed("Event", "default", "pod-a.1") is None
    assert s.committed("Event", "default", "pod-a.2")["reason"] == "R"
    s.create(_obj("Event", "default", "pod-b.2", reason="C"), NOW)
    s.checkpoint()
    assert s.committed("Event", "default", "pod-b.2")["reason"] == "C"
    assert s.committed("Event", "default", "pod-b.1")["reason"] == "R"
    assert s.committed("Event", "default", "pod-b.3") is None
    s.rollback()
    assert _rows(tmp_path, "event_written") == [("default", "pod-a.2", NOW[:19]),
                                                ("default", "pod-b.1", NOW[:19])]


def test_resource_versions_and_kind_versions_of_puts(tmp_path):
    s = Store(tmp_path).open()
    a = s.create(_obj("Pod", "d", "a"), NOW)
    s.commit()
    s = Store(tmp_path).open()
    seen = []
    for kind, name in [("Pod", "a"), ("Pod", "b"), ("Event", "a.1"), ("Pod", "a"), ("Node", "n")]:
        o = s.get(kind, "" if kind == "Node" else "d", name) or _obj(kind, "" if kind == "Node" else "d", name)
        s.put(o)
        seen.append(o["metadata"]["resourceVersion"])
    assert seen == ["2", "3", "4", "5", "6"]
    assert s.resource_version() == 6
    assert {k: s.kind_resource_version(k) for k in ("Pod", "Event", "Node")} == {"Pod": 5, "Event": 4, "Node": 6}
    s.commit()
    s = Store(tmp_path).open()
    assert s.committed_kind_resource_versions() == {"Pod": 5, "Event": 4, "Node": 6}
    assert a["metadata"]["resourceVersion"] == "1"
    s.rollback()


def test_a_sum_that_comes_out_as_it_was_keeps_its_row(tmp_path):
    """A fold whose result has the text the row had (a status write) leaves the row alone; one
    that changes it rewrites it, as before."""
    def digest(o):
        return {"cpu": o["spec"]["cpu"]}

    def fold(acc, key, d, sign):
        acc = acc or {"n": 0, "cpu": 0}
        acc["n"] += sign
        acc["cpu"] += sign * d["cpu"]
        return acc if acc["n"] else None

    def pod(name, cpu, node="n1", phase="Pending"):
        return _obj("Pod", "d", name, spec={"nodeName": node, "cpu": cpu}, status={"phase": phase})

    s = Store(tmp_path).open()
    s.derive("Pod", digest, fold)
    s.create(pod("a", 1), NOW)
    s.create(pod("b", 2), NOW)
    s.commit()
    s = Store(tmp_path).open()
    s.derive("Pod", digest, fold)
    assert s.derived_sums("Pod") == {"n1": {"n": 2, "cpu": 3}}
    s.commit()
    for change, sums, rewritten in [({"status": {"phase": "Running"}}, {"n": 2, "cpu": 3}, False),
                                    ({"spec": {"nodeName": "n1", "cpu": 5}}, {"n": 2, "cpu": 7}, True),
                                    ({"spec": {"nodeName": "n2", "cpu": 5}}, None, True)]:
        s = Store(tmp_path).open()
        s.derive("Pod", digest, fold)
        p = s.get("Pod", "d", "a")
        p.update(change)
        s.put(p)
        statements = []
        s._conn.set_trace_callback(statements.append)
        s.commit()
        assert any("INTO derived_sums" in st for st in statements) is rewritten
        rows = {r[1]: json.loads(r[2]) for r in _rows(tmp_path, "derived_sums")}
        if sums is not None:
            assert rows == {"n1": sums}
        else:
            assert rows == {"n1": {"n": 1, "cpu": 2}, "n2": {"n": 1, "cpu": 5}}


@pytest.mark.parametrize("fold_nodes", [False, True])
def test_writes_of_a_derived_kind_without_a_node_leave_the_sums_alone(tmp_path, fold_nodes):
    """Only a Pod's derived row names a node: a Node's digests (with a fold or without one)
    change no sum, and its old rows are not read at commit; the Pods' sums stay their fold."""
    def fold(acc, key, d, sign):
        acc = acc or {"n": 0}
        acc["n"] += sign
        return acc if acc["n"] else None

    def derive(s):
        s.derive("Pod", lambda o: {"p": 1}, fold)
        s.derive("Node", lambda o: {"cpu": o["status"]["cpu"]}, fold if fold_nodes else None)

    s = Store(tmp_path).open()
    derive(s)
    s.create(_obj("Node", "", "n1", status={"cpu": 1}), NOW)
    s.create(_obj("Pod", "d", "a", spec={"nodeName": "n1"}), NOW)
    s.commit()
    s = Store(tmp_path).open()
    derive(s)
    assert s.derived_sums("Pod") == {"n1": {"n": 1}}
    s.commit()
    s = Store(tmp_path).open()
    derive(s)
    n = s.get("Node", "", "n1")
    n["status"]["cpu"] = 2
    s.put(n)
    s.create(_obj("Pod", "d", "b", spec={"nodeName": "n1"}), NOW)
    statements = []
    s._conn.set_trace_callback(statements.append)
    s.commit()
    assert not any("FROM derived WHERE kind='Node'" in st for st in statements)
    assert [(r[1], json.loads(r[2])) for r in _rows(tmp_path, "derived_sums")] == [("n1", {"n": 2})]
    assert [(r[0], r[2], r[4], r[5]) for r in _rows(tmp_path, "derived")] == [
        ("Node", "n1", "", '{"cpu":2}'), ("Pod", "a", "n1", '{"p":1}'), ("Pod", "b", "n1", '{"p":1}')]
    s = Store(tmp_path).open()
    derive(s)
    assert s._sums_valid("Pod") and s.derived_sums("Pod") == {"n1": {"n": 2}}
    s.rollback()


def test_a_bulk_read_without_some_paths_leaves_what_it_decoded_to_reference_counting(tmp_path):
    """``objects`` with ``omit`` (the kubelet's read of a few hundred pods at a time): the
    containers decoded hold no cycles and go to the collector's permanent generation, which
    later collections do not walk; a small read leaves the collector as it was."""
    import gc

    spec = {"containers": [{"name": f"c{j}", "image": "nginx"} for j in range(8)]}  # (a few hundred KB in all)
    s = Store(tmp_path).open()
    for i in range(300):
        s.create(_obj("Pod", "default", f"p{i:03d}", spec=spec,
                      status={"conditions": [{"type": "Ready", "status": "True"}] * 8}), NOW)
    s.commit()
    keys = [("Pod", "default", f"p{i:03d}") for i in range(300)]
    try:
        gc.unfreeze()
        s = Store(tmp_path).open()
        one = s.objects(keys[:1], ("status.conditions",))
        assert gc.get_freeze_count() == 0
        got = s.objects(keys, ("status.conditions",))
        assert gc.get_freeze_count() > 0 and gc.is_tracked(got[-1])
        assert got[0] == one[0] == {**_obj("Pod", "default", "p000", spec=spec, status={}),
                                    "metadata": got[0]["metadata"]}
        s.rollback()
    finally:
        gc.unfreeze()


def test_a_nodes_derived_rows_are_read_through_its_index(tmp_path):
    """``derived_on_node``: the node's rows alone (the derived_node index, not a pass over every
    row of the kind), sorted by key, this transaction's writes laid over them."""
    s = Store(tmp_path).open()
    s.derive("Pod", lambda o: {"n": o["spec"]["nodeName"]})
    for i in range(30):
        s.create(_obj("Pod", "ab"[i % 2], f"p{29 - i:02d}", spec={"nodeName": f"n{i % 3}"}), NOW)
    s.commit()
    s = Store(tmp_path).open()
    s.derive("Pod", lambda o: {"n": o["spec"]["nodeName"]})
    statements = []
    s._conn.set_trace_callback(statements.append)
    got = s.derived_on_node("Pod", "n1")
    s._conn.set_trace_callback(None)
    assert got == sorted(((k, d) for k, d in s.derived("Pod") if d == {"n": "n1"}))
    assert len(got) == 10
    (sql,) = [st for st in statements if "FROM derived" in st]
    plan = " ".join(r[3] for r in s._conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "derived_node" in plan and "SCAN" not in plan
    s.rollback()


@pytest.mark.parametrize("ev, want", [
    ({}, ""),
    ({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}}, "2026-01-01T00:00:00"),
    ({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}, "lastTimestamp": "2026-01-01T00:05:00Z",
      "eventTime": None}, "2026-01-01T00:05:00"),
    ({"metadata": None, "eventTime": "2026-01-01T00:00:09.123456Z", "lastTimestamp": 7}, "2026-01-01T00:00:09"),
    ({"eventTime": "2026-01-01T00:00:01.000000Z", "series": {"lastObservedTime": "2026-01-01T01:00:00.5Z"}},
     "2026-01-01T01:00:00"),
    ({"series": ["not", "a", "dict"], "lastTimestamp": ""}, ""),
    ({"lastTimestamp": "short"}, "short"),
])
def test_event_written_is_the_latest_of_its_writers_times(ev, want):
    from kubesim.store import event_written

    assert event_written(ev) == want
