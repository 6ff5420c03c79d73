"""Objects through their structured-merge-diff schema: field sets, comparisons, the merge of an
applied configuration, removal.

The list-merge table is structured-merge-diff v6 typed/merge_test.go's ``setStr`` triplets
(lhs, rhs, merged), run on a real set-typed list (ObjectMeta.finalizers,
``x-kubernetes-list-type: set``); the field sets are what a v1.35 apiserver records (checked
against the conformance oracle's managedFields).
"""

from __future__ import annotations

import pytest

from kubesim.api import fieldpath as fp
from kubesim.api import typed

CM = "io.k8s.api.core.v1.ConfigMap"
DEPLOY = "io.k8s.api.apps.v1.Deployment"
POD_SPEC = "io.k8s.api.core.v1.PodSpec"


def _fin(items):
    return {"metadata": {"finalizers": items}}


SET_MERGES = [
    ("abc", "ab", "abc"), ("ab", "abc", "abc"), ("abc", "", "abc"), ("", "abc", "abc"), ("ab", "ba", "ba"),
    ("abc", "def", "abcdef"), ("abc", "cdef", "abcdef"), ("abcgf", "cdef", "abcgdef"),
    ("abc", "defxyz", "abcdefxyz"), ("cdef", "ace", "acdef"), ("abcxyz", "def", "abcxyzdef"),
    ("abcxyz", "defxyz", "abcdefxyz"), ("cagf", "cfag", "cfag"), ("abcd", "defa", "bcdefa"),
    ("cdefghij", "2h3e4kl", "cdfg2hij3e4kl"), ("abcdefghij", "1b2h3e4kl", "a1bcdfg2hij3e4kl"),
    ("abb", "c", "abbc"), ("abb", "b", "ab"),
]


@pytest.mark.parametrize(("lhs", "rhs", "want"), SET_MERGES, ids=[f"{a or '-'}+{b or '-'}" for a, b, _ in SET_MERGES])
def test_set_lists_merge_as_structured_merge_diff_orders_them(lhs, rhs, want):
    merged = typed.merge(_fin(list(lhs)), _fin(list(rhs)), CM)
    assert "".join(merged["metadata"]["finalizers"]) == want


def test_keyed_lists_merge_by_key_and_atomic_values_are_replaced():
    live = {"spec": {"containers": [{"name": "a", "image": "x", "args": ["1", "2"]}, {"name": "b", "image": "y"}]}}
    cfg = {"spec": {"containers": [{"name": "b", "image": "z"}, {"name": "a", "args": ["3"]}]}}
    merged = typed.merge(live["spec"], cfg["spec"], POD_SPEC)
    assert merged["containers"] == [{"name": "b", "image": "z"}, {"name": "a", "image": "x", "args": ["3"]}]


def test_the_field_set_of_a_deployment_is_what_the_apiserver_records():
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "nginx", "image": "nginx",
                                                          "ports": [{"containerPort": 80}]}]}}}}
    s = typed.to_field_set(obj, DEPLOY)
    assert s["f:spec"]["f:selector"] == {}  # LabelSelector is an atomic struct: one leaf
    assert s["f:metadata"]["f:labels"] == {"f:app": {}}  # a non-empty map is not itself a member
    c = s["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}']
    # the port's protocol key comes from the schema's default, as SMD reads an omitted key
    assert c == {".": {}, "f:image": {}, "f:name": {},
                 "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}}}


@pytest.mark.parametrize(("old", "new", "added", "modified", "removed"), [
    ({"data": {"a": "1"}}, {"data": {"a": "2"}}, [], [".data.a"], []),
    ({"data": {"a": "1"}}, {"data": {"a": "1", "b": "2"}}, [".data.b"], [], []),
    ({"data": {"a": "1"}}, {}, [], [], [".data", ".data.a"]),
    ({}, {"data": {"a": "1"}}, [".data", ".data.a"], [], []),
    ({"data": None}, {"data": {"a": "1"}}, [".data.a"], [], []),
    ({"metadata": {"finalizers": ["x"]}}, {"metadata": {"finalizers": ["x", "y"]}},
     ['.metadata.finalizers[="y"]'], [], []),
], ids=["a changed value", "a new key", "a removed map", "an added map (its own path too)",
        "a null map filled: only its keys are added", "a set gains an element"])
def test_compare(old, new, added, modified, removed):
    c = typed.compare(old, new, CM)
    got = [sorted(fp.path_string(p) for p in fp.paths(s)) for s in (c.added, c.modified, c.removed)]
    assert got == [added, modified, removed]


@pytest.mark.parametrize(("old", "new", "added", "modified", "removed"), [
    ({"spec": {"priority": 1}}, {"spec": {"priority": 1.0}}, [], [], []),
    ({"spec": {"priority": True}}, {"spec": {"priority": 1}}, [], [], []),
    ({"spec": {"nodeName": "a"}}, {"spec": {"nodeName": 1}}, [], [".spec.nodeName"], []),
    ({"spec": {"hostNetwork": None}}, {"spec": {"hostNetwork": False}}, [], [".spec.hostNetwork"], []),
    ({"spec": {"nodeName": "a"}}, {"spec": {}}, [], [], [".spec.nodeName"]),
    ({"spec": {}}, {"spec": {"nodeName": "a", "hostNetwork": None}}, [".spec.hostNetwork", ".spec.nodeName"], [],
     []),
    ({"spec": {"nodeSelector": "x"}}, {"spec": {"nodeSelector": {"a": "b"}}}, [], [".spec.nodeSelector"], []),
    ({"spec": {"nodeSelector": {"a": "b"}}}, {"spec": {"nodeSelector": None}}, [], [".spec.nodeSelector"], []),
    ({"spec": {"containers": "x"}}, {"spec": {"containers": []}}, [], [], []),
], ids=["equal across int and float", "equal across bool and int", "a string becomes a number",
        "a null becomes false", "a scalar removed", "scalars added, a null too", "a scalar becomes a map",
        "a map becomes null", "a scalar becomes an empty list"])
def test_compare_scalars_whatever_the_schema(old, new, added, modified, removed):
    """A scalar on either side is a leaf, compared as _cmp compares leaves (the loop over a
    map's fields answers two scalars itself)."""
    c = typed.compare(old, new, "io.k8s.api.core.v1.Pod")
    got = [sorted(fp.path_string(p) for p in fp.paths(s)) for s in (c.added, c.modified, c.removed)]
    assert got == [added, modified, removed]


def test_remove_items_drops_members_and_keeps_the_rest():
    obj = {"metadata": {"labels": {"a": "1", "b": "2"}}, "data": {"x": "1"}}
    out = typed.remove_items(obj, CM, {"f:metadata": {"f:labels": {"f:a": {}}}, "f:data": {}})
    assert out == {"metadata": {"labels": {"b": "2"}}}
    assert obj["metadata"]["labels"] == {"a": "1", "b": "2"}


def test_unknown_fields_are_named_by_path():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "foo": 1, "metadata": {"name": "x", "bar": 2}, "data": {"k": "v"}}
    assert typed.unknown_fields(obj, CM) == [".foo", ".metadata.bar"]


def test_the_zero_value_is_a_fresh_copy_each_time():
    _, zero = typed.kind_type("apps/v1", "Deployment")
    zero["spec"]["strategy"]["type"] = "Recreate"  # what defaulting does to an applied object
    assert typed.kind_type("apps/v1", "Deployment")[1]["spec"]["strategy"] == {}


# -- creation_shape: what a create's comparison with the zero value depends on ----------------

def _ds_pod(node: str, ip: str = "", labels: dict | None = None) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"kube-proxy-{node}", "namespace": "kube-system", "labels": labels or {"a": "b"},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "kube-proxy",
                                             "uid": "u-1", "controller": True}]},
           "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
               "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                       "values": [node]}]}]}}},
                    "containers": [{"name": "kube-proxy", "image": "registry.k8s.io/kube-proxy:v1.35.0"}],
                    "tolerations": [{"operator": "Exists"}]}}
    if ip:
        pod["status"] = {"podIPs": [{"ip": ip}]}
    return pod


def _event(message: str, count: int = 1, event_time=None) -> dict:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "Pulled", "message": message,
            "count": count, "eventTime": event_time, "source": {"component": "kubelet"}}


@pytest.mark.parametrize("a, b, same", [
    pytest.param(_ds_pod("node01"), _ds_pod("node02"), True,
                 id="DaemonSet pods pinned to different nodes (an atomic term) share a shape"),
    pytest.param(_event("pulled a"), _event("pulled b", count=3), True,
                 id="events differing in values only share a shape"),
    pytest.param(_event("x"), _event("x", event_time="2026-01-01T00:00:00.000000Z"), False,
                 id="a null field and a set one differ"),
    pytest.param(_ds_pod("node01", ip="10.0.0.1"), _ds_pod("node01", ip="10.0.0.2"), False,
                 id="the items of a keyed list are path elements: kept whole"),
    pytest.param(_ds_pod("node01", labels={"a": "b"}), _ds_pod("node01", labels={"c": "b"}), False,
                 id="a map's keys are fields"),
])
def test_objects_of_one_creation_shape_compare_alike_with_the_zero_value(a, b, same):
    ref, zero = typed.kind_type("v1", a["kind"])
    sa, sb = typed.creation_shape(a, ref), typed.creation_shape(b, ref)
    assert (sa == sb) is same
    ca, cb = typed.compare(zero, a, ref), typed.compare(zero, b, ref)
    if same:
        assert (ca.added, ca.modified, ca.removed) == (cb.added, cb.modified, cb.removed)
    else:
        assert (ca.added, ca.modified, ca.removed) != (cb.added, cb.modified, cb.removed)


@pytest.mark.parametrize("items", [
    [{"name": "a"}, {"name": "b"}, {"name": "a"}],
    [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80}, {"containerPort": "80", "protocol": "TCP"}],
    [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80.0, "protocol": "TCP"},
     {"containerPort": True, "protocol": "TCP"}, {"containerPort": 1, "protocol": "TCP"}],
    [{"type": "Ready"}, {"type": None}, {"type": {"nested": 1}}, {"other": "x"}],
], ids=["names repeat", "a key left to its default, a number written as text",
        "1, 1.0 and true stay apart", "null, an object and a missing key"])
def test_an_item_s_path_element_is_the_same_worked_out_or_remembered(items):
    """typed._item_pe remembers the elements of str and int keys; each answer is the one
    KeyByFields writes afresh (fp.key of the key fields present or defaulted)."""
    keys, defaults = ("containerPort", "protocol", "name", "type"), {"protocol": "TCP"}
    for _ in range(2):  # worked out, then remembered
        for item in items:
            fields = {k: item[k] if k in item else defaults[k] for k in keys if k in item or k in defaults}
            assert typed._item_pe(item, "m", keys, defaults) == fp.key(fields)


# -- a value only one side has: its node without a comparison ------------------------------------

POD = "io.k8s.api.core.v1.Pod"


@pytest.mark.parametrize("value, ref", [
    pytest.param({"conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None}],
                  "podIPs": [{"ip": "10.244.1.2"}], "hostIP": "172.30.2.2"},
                 "io.k8s.api.core.v1.PodStatus", id="a kubelet's first status: keyed lists by their keys"),
    pytest.param({"containers": [{"name": "c", "image": "nginx"}, {"name": "c", "image": "other"}]},
                 POD_SPEC, id="a keyed list with a duplicate key: the item is a member leaf"),
    pytest.param({"metadata": {"finalizers": ["a", "b", "a"]}}, CM, id="a set list with a duplicate value"),
    pytest.param({"data": {}}, CM, id="an empty map is a leaf"),
    pytest.param({"data": None, "binaryData": {"k": "djE="}}, CM, id="a null is a leaf"),
    pytest.param({"spec": {"template": {"spec": {"nodeSelector": {"a": "b"}}}}}, DEPLOY,
                 id="a granular map inside structs"),
    pytest.param({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In"}]}]}}}}}, POD,
        id="an atomic struct is a leaf"),
    pytest.param({"undeclared": {"x": [1, 2]}, "data": ["a list where a map belongs"]}, CM,
                 id="fields the schema lacks, and values of the wrong shape"),
])
def test_a_value_only_one_side_has_is_the_node_the_comparison_makes_of_it(value, ref):
    # typed._only builds, in one walk, what _cmp returns for a value one side lacks (the root
    # of a set is never a member itself)
    node = {k: v for k, v in typed._only(value, ref).items() if k != fp.MEMBER}
    c = typed.compare({}, value, ref)
    assert (c.added, c.modified, c.removed) == (node, {}, {})
    c = typed.compare(value, {}, ref)
    assert (c.added, c.modified, c.removed) == ({}, {}, node)


def test_a_status_write_compared_field_by_field_is_what_the_whole_comparison_was():
    # the kubelet's first status write over a bound pod: equal children skipped, new ones built
    old = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}},
           "spec": {"containers": [{"name": "c", "image": "nginx"}], "nodeName": "n1"},
           "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}}
    new = {**old, "status": {"phase": "Pending", "hostIP": "172.30.2.2", "podIPs": [{"ip": "10.244.1.2"}],
                             "conditions": [{"type": "Initialized", "status": "True"},
                                            {"type": "PodScheduled", "status": "True"}]}}
    c = typed.compare(old, new, POD)
    got = [sorted(fp.path_string(p) for p in fp.paths(s)) for s in (c.added, c.modified, c.removed)]
    assert got == [['.status.conditions[type="Initialized"]', '.status.conditions[type="Initialized"].status',
                    '.status.conditions[type="Initialized"].type', ".status.hostIP", ".status.podIPs",
                    '.status.podIPs[ip="10.244.1.2"]', '.status.podIPs[ip="10.244.1.2"].ip'], [], []]
