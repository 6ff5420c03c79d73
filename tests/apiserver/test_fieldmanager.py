"""The field manager: Update and Apply on objects, conflicts, the entries' encoding.

Conflict texts: apimachinery managedfields/internal/conflict_test.go ``TestNewConflictError``
(its three cases). Update and Apply: structured-merge-diff merge/update.go's rules, the cases
of merge/multiple_appliers_test.go and merge/update_test.go in small.
"""

from __future__ import annotations

import pytest

from kubesim.apiserver import fieldmanager as fm

NOW = "2026-01-01T00:00:00Z"
LATER = "2026-01-01T00:01:00Z"


@pytest.mark.parametrize(("conflicts", "message"), [
    ([({"manager": "foo", "operation": "Update", "apiVersion": "v1", "time": "2001-02-03T04:05:06Z"},
       ("f:spec", "f:replicas"))],
     'Apply failed with 1 conflict: conflict with "foo" using v1 at 2001-02-03T04:05:06Z: .spec.replicas'),
    ([({"manager": "foo", "operation": "Update", "apiVersion": "v1", "time": "2001-02-03T04:05:06Z"},
       ("f:spec", "f:replicas")),
      ({"manager": "bar", "operation": "Apply"}, ("f:metadata", "f:labels", "f:app"))],
     ('Apply failed with 2 conflicts: conflicts with "bar":\n- .metadata.labels.app\n'
      'conflicts with "foo" using v1 at 2001-02-03T04:05:06Z:\n- .spec.replicas')),
    ([({"manager": "foo", "operation": "Update", "subresource": "scale", "apiVersion": "v1",
        "time": "2001-02-03T04:05:06Z"}, ("f:spec", "f:replicas"))],
     ('Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1 at 2001-02-03T04:05:06Z: '
      ".spec.replicas")),
], ids=["one conflict", "two managers, sorted", "a subresource's manager"])
def test_conflict_messages(conflicts, message):
    err = fm.Conflict(conflicts)
    assert (err.code, err.reason, err.message) == (409, "Conflict", message)
    assert [c["field"] for c in err.details["causes"]] == [fm.fp.path_string(p) for _, p in conflicts]


def _cm(data: dict, labels: dict | None = None) -> dict:
    md = {"name": "c", "namespace": "default"}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}


def _entries(obj: dict) -> list[tuple]:
    return [(e["manager"], e["operation"], e.get("time"), e["fieldsV1"]) for e in obj["metadata"].get("managedFields", [])]


def test_a_create_owns_what_it_set_and_an_update_takes_what_it_changes():
    obj = _cm({"a": "1", "b": "2"})
    fm.update(None, obj, "alice", NOW)
    assert _entries(obj) == [("alice", "Update", NOW, {"f:data": {".": {}, "f:a": {}, "f:b": {}}})]
    new = _cm({"a": "9", "b": "2"})
    new["metadata"]["managedFields"] = obj["metadata"]["managedFields"]
    fm.update(obj, new, "bob", LATER)
    assert _entries(new) == [("alice", "Update", NOW, {"f:data": {".": {}, "f:b": {}}}),
                             ("bob", "Update", LATER, {"f:data": {"f:a": {}}})]


def test_an_update_that_changes_nothing_keeps_the_entries_and_their_times():
    obj = _cm({"a": "1"})
    fm.update(None, obj, "alice", NOW)
    same = _cm({"a": "1"})
    fm.update(obj, same, "bob", LATER)
    assert _entries(same) == _entries(obj)


def test_an_object_created_untracked_stays_untracked_on_update():
    old = _cm({"a": "1"})
    old["metadata"]["uid"] = "u"
    new = _cm({"a": "2"})
    fm.update(old, new, "bob", NOW)
    assert "managedFields" not in new["metadata"]


def test_an_empty_managed_fields_list_resets_them():
    obj = _cm({"a": "1"})
    fm.update(None, obj, "alice", NOW)
    new = _cm({"a": "1"})
    fm.update(obj, new, "bob", LATER, client_fields=[{}])
    assert "managedFields" not in new["metadata"]


def test_apply_owns_exactly_the_configuration_and_a_second_applier_conflicts():
    obj = fm.apply(None, _cm({"a": "1"}, {"x": "y"}), "alice", NOW)
    assert _entries(obj) == [("alice", "Apply", NOW, {"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})]
    with pytest.raises(fm.Conflict) as e:
        fm.apply(obj, _cm({"a": "2"}), "bob", LATER)
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "alice": .data.a'
    forced = fm.apply(obj, _cm({"a": "2"}), "bob", LATER, force=True)
    assert _entries(forced) == [("alice", "Apply", NOW, {"f:metadata": {"f:labels": {"f:x": {}}}}),
                                ("bob", "Apply", LATER, {"f:data": {"f:a": {}}})]


def test_applying_the_same_value_shares_the_field_and_a_no_op_sets_no_time():
    obj = fm.apply(None, _cm({"a": "1"}), "alice", NOW)
    shared = fm.apply(obj, _cm({"a": "1"}), "bob", LATER)
    assert _entries(shared) == [("bob", "Apply", None, {"f:data": {"f:a": {}}}),
                                ("alice", "Apply", NOW, {"f:data": {"f:a": {}}})]


def test_a_field_no_longer_applied_is_removed_unless_another_manager_owns_it():
    obj = fm.apply(None, _cm({"a": "1", "b": "2"}), "alice", NOW)
    assert fm.apply(obj, _cm({"a": "1"}), "alice", LATER)["data"] == {"a": "1"}
    shared = fm.apply(obj, _cm({"b": "2"}), "bob", NOW)
    assert fm.apply(shared, _cm({"a": "1"}), "alice", LATER)["data"] == {"a": "1", "b": "2"}


def test_kubectl_may_take_what_client_side_apply_last_applied():
    import json

    live = _cm({"a": "1"})
    live["metadata"]["annotations"] = {fm.LAST_APPLIED: json.dumps(_cm({"a": "1"}))}
    fm.update(None, live, "kubectl-client-side-apply", NOW)
    out = fm.apply(live, _cm({"a": "1"}), "kubectl", LATER)  # unchanged since: no conflict
    assert [e[0] for e in _entries(out)] == ["kubectl", "kubectl-client-side-apply"]
    with pytest.raises(fm.Conflict):  # another manager gets no such allowance
        fm.apply(live, _cm({"a": "2"}), "other", LATER)


def test_entries_sort_by_operation_time_then_manager():
    obj = _cm({"a": "1"})
    obj["metadata"]["managedFields"] = [
        {"manager": "z", "operation": "Update", "apiVersion": "v1", "time": NOW, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:a": {}}}},
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": LATER, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:b": {}}}},
        {"manager": "a", "operation": "Update", "apiVersion": "v1", "time": LATER, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:c": {}}}},
        {"manager": "y", "operation": "Apply", "apiVersion": "v1", "time": LATER, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:d": {}}}},
    ]
    assert [e["manager"] for e in fm.encode(fm.decode(obj["metadata"]["managedFields"]))] == ["y", "z", "a", "b"]


def test_past_ten_update_managers_the_oldest_become_ancient_changes():
    """capmanagers_test.go's rule: 11 updaters, the two oldest merged into ancient-changes."""
    obj = _cm({"k0": "v"})
    fm.update(None, obj, "m00", "2026-01-01T00:00:00Z")
    for i in range(1, 11):
        new = _cm({f"k{j}": "v" for j in range(i + 1)})
        new["metadata"]["managedFields"] = obj["metadata"]["managedFields"]
        fm.update(obj, new, f"m{i:02d}", f"2026-01-01T00:00:{i:02d}Z")
        obj = new
    managers = [(e["manager"], e.get("time")) for e in obj["metadata"]["managedFields"]]
    assert len(managers) == 10
    assert managers[0] == ("ancient-changes", "2026-01-01T00:00:01Z")
    assert [m for m, _ in managers[1:]] == [f"m{i:02d}" for i in range(2, 11)]
    ancient = obj["metadata"]["managedFields"][0]["fieldsV1"]
    assert ancient == {"f:data": {".": {}, "f:k0": {}, "f:k1": {}}}  # m00's create and m01's key


@pytest.mark.parametrize("fields, kept", [
    pytest.param({"f:data": {".": {}, "f:a": {}}}, {"f:data": {".": {}, "f:a": {}}},
                 id="a set sharing no field with the change keeps what it has"),
    pytest.param({".": {}, "f:data": {".": {}, "f:a": {}}}, {"f:data": {".": {}, "f:a": {}}},
                 id="but a root '.' a client's managedFields carried goes, as a difference drops it"),
])
def test_another_manager_s_change_leaves_a_disjoint_set(fields, kept):
    old = _cm({"a": "1"})
    old["metadata"]["managedFields"] = [{"manager": "x", "operation": "Update", "apiVersion": "v1",
                                         "time": NOW, "fieldsType": "FieldsV1", "fieldsV1": fields}]
    new = _cm({"a": "1"}, labels={"app": "web"})
    new["metadata"]["managedFields"] = old["metadata"]["managedFields"]
    fm.update(old, new, "bob", LATER)
    assert _entries(new) == [("x", "Update", NOW, kept),
                             ("bob", "Update", LATER, {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}})]


def _pod_written_twice(tmp_path, commit_between: bool) -> tuple[dict, dict | None]:
    """A pod created by alice, then its status written by the kubelet (in the same
    transaction, or in the next one): its managedFields, and the committed pod then read."""
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    store = Store(tmp_path).open()
    cluster = Cluster(store, {"KUBESIM_NOW": NOW})
    cluster.field_manager = "alice"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    store.create(pod, NOW)
    if commit_between:
        store.commit()
        store = Store(tmp_path).open()
        cluster = Cluster(store, {"KUBESIM_NOW": NOW})
        pod = store.get("Pod", "default", "p")
    cluster.field_manager = "kubelet"
    pod["status"] = {"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}
    store.put(pod)
    committed = store.committed("Pod", "default", "p") if commit_between else None
    fields = pod["metadata"]["managedFields"]
    store.rollback()
    return fields, committed


def test_a_status_write_keeps_the_other_managers_sets_as_the_store_holds_them(tmp_path):
    same, _ = _pod_written_twice(tmp_path / "one", commit_between=False)
    later, committed = _pod_written_twice(tmp_path / "two", commit_between=True)
    assert same == later
    assert [(e["manager"], e.get("subresource")) for e in same] == [("alice", None), ("kubelet", "status")]
    assert same[0]["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"c"}']["f:image"] == {}
    # (a set kept from the committed pod is a copy: the store's decoded body stays its own)
    assert later[0]["fieldsV1"] is not committed["metadata"]["managedFields"][0]["fieldsV1"]


@pytest.mark.parametrize(("change", "owned"), [
    (lambda pod: pod["spec"]["containers"][0].__setitem__("image", "nginx:2"),
     {"f:spec": {"f:containers": {'k:{"name":"c"}': {"f:image": {}}}}}),
    (lambda pod: pod["spec"].__setitem__("nodeName", "n1"), {"f:spec": {"f:nodeName": {}}}),
    (lambda pod: pod["status"].__setitem__("phase", "Running"), {"f:status": {"f:phase": {}}}),
    (lambda pod: None, None),
], ids=["the spec changed in place", "a field added to the spec", "the status changed in place",
        "nothing changed"])
def test_a_component_s_write_is_compared_with_the_object_as_last_written(tmp_path, change, owned):
    # the tracker keeps the spec and the status as last written on their own (marshalled): a
    # write that changed them in place is compared with what they were, not with themselves
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    store = Store(tmp_path).open()
    cluster = Cluster(store, {"KUBESIM_NOW": NOW})
    cluster.field_manager = "alice"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}}
    store.create(pod, NOW)
    cluster.field_manager = "bob"
    change(pod)
    store.put(pod)
    bob = [e for e in pod["metadata"]["managedFields"] if e["manager"] == "bob"]
    assert [e["fieldsV1"] for e in bob] == ([owned] if owned else [])
    store.rollback()
