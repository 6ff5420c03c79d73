"""Field sets in their fieldsV1 shape: the set algebra, the serialized order and the path texts.

Cases after sigs.k8s.io/structured-merge-diff/v6 fieldpath/set_test.go (TestSetUnion,
TestSetIntersectionDifference), element_test.go (TestPathElementLess, ``String``) and
serialize_test.go (the order of a set's JSON).
"""

from __future__ import annotations

import pytest

from kubesim.api import fieldpath as fp

A = {"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {'k:{"name":"a"}': {".": {}, "f:image": {}}}}}}}
B = {"f:spec": {"f:replicas": {}, "f:paused": {}}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}}


@pytest.mark.parametrize(("a", "b", "want"), [
    (A, {}, A),
    ({}, B, B),
    ({"f:x": {}}, {"f:x": {"f:y": {}}}, {"f:x": {".": {}, "f:y": {}}}),
    ({"f:spec": {"f:replicas": {}}}, {"f:spec": {"f:paused": {}}}, {"f:spec": {"f:replicas": {}, "f:paused": {}}}),
], ids=["with nothing", "into nothing", "a member gains children and stays a member",
        "children of the same parent merge"])
def test_union(a, b, want):
    assert fp.union(a, b) == want
    assert fp.union(b, a) == want


@pytest.mark.parametrize(("a", "b", "want"), [
    (A, B, {"f:spec": {"f:template": A["f:spec"]["f:template"]}}),
    ({"f:x": {".": {}, "f:y": {}}}, {"f:x": {}}, {"f:x": {"f:y": {}}}),
    ({"f:x": {".": {}, "f:y": {}}}, {"f:x": {"f:y": {}}}, {"f:x": {}}),
    ({"f:x": {}}, {"f:x": {}}, {}),
], ids=["what both have goes", "removing a member keeps its children", "removing the children keeps the member",
        "the same set leaves nothing"])
def test_difference(a, b, want):
    assert fp.difference(a, b) == want


def test_intersection_keeps_only_common_members():
    assert fp.intersection(A, B) == {"f:spec": {"f:replicas": {}}}
    assert fp.intersection({"f:x": {".": {}, "f:y": {}}}, {"f:x": {}}) == {"f:x": {}}


def test_insert_and_has():
    s: dict = {}
    fp.insert(s, ("f:spec", "f:replicas"))
    fp.insert(s, ("f:spec",))
    assert s == {"f:spec": {".": {}, "f:replicas": {}}}
    assert fp.has(s, ("f:spec",)) and fp.has(s, ("f:spec", "f:replicas")) and not fp.has(s, ("f:status",))


def test_remove_paths_cuts_members_and_empties():
    s = {"f:metadata": {"f:name": {}, "f:labels": {".": {}, "f:a": {}}}, "f:kind": {}}
    out = fp.remove_paths(s, (("f:kind",), ("f:metadata", "f:name"), ("f:metadata",)))
    assert out == {"f:metadata": {"f:labels": {".": {}, "f:a": {}}}}
    assert fp.remove_paths({"f:metadata": {"f:name": {}}}, (("f:metadata", "f:name"),)) == {}
    assert s["f:kind"] == {}  # the input is left as it was


@pytest.mark.parametrize("memo", [True, False], ids=["through the memo", "without it"])
def test_encode_orders_fields_then_keys_then_values_then_indices(memo):
    s = {"i:1": {}, 'v:"b"': {}, 'k:{"port":443}': {}, "f:z": {}, 'k:{"port":80}': {}, "v:3": {}, "f:a": {},
         "i:0": {"f:x": {}, ".": {}}, 'v:"a"': {}}
    for _ in range(2):  # (the second time, a memo's answer)
        out = fp.encode(s, memo)
        assert list(out) == ["f:a", "f:z", 'k:{"port":80}', 'k:{"port":443}', "v:3", 'v:"a"', 'v:"b"',
                             "i:0", "i:1"]
        assert list(out["i:0"]) == [".", "f:x"]


def test_encode_writes_dot_only_for_members_with_children():
    s = {"f:spec": {"f:x": {}}, "f:labels": {".": {}, "f:a": {}}, "f:leaf": {}}
    assert fp.encode(s) == {"f:labels": {".": {}, "f:a": {}}, "f:leaf": {}, "f:spec": {"f:x": {}}}


@pytest.mark.parametrize(("pe", "want"), [
    ("f:replicas", ".replicas"),
    ('k:{"name":"nginx"}', '[name="nginx"]'),
    ('k:{"containerPort":80,"protocol":"TCP"}', '[containerPort=80,protocol="TCP"]'),
    ('v:"a"', '[="a"]'),
    ("v:5", "[=5]"),
    ("v:true", "[=true]"),
    ("i:3", "[3]"),
], ids=["a field", "a key", "a key of two fields", "a string value", "a number value", "a bool value",
        "an index"])
def test_element_strings(pe, want):
    assert fp.element_string(pe) == want


def test_paths_list_members_before_descending():
    s = {"f:spec": {"f:template": {"f:x": {}}, "f:replicas": {}}, "f:a": {}}
    assert [fp.path_string(p) for p in fp.paths(s)] == [".a", ".spec.replicas", ".spec.template.x"]
