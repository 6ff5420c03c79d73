"""Custom resources against their CRD's structural schema: validation texts as a v1.35 API
server answered (``kubectl apply`` of each manifest), pruning and defaulting as
apiextensions-apiserver's pkg/apiserver/schema/{pruning,defaulting} do them (their
algorithm_test.go cases, trimmed)."""

from __future__ import annotations

import pytest

from kubesim.api.apiextensions.schema import default, prune, unknown_fields, validate_custom_resource

WIDGET = {"type": "object", "properties": {
    "spec": {"type": "object", "required": ["size"], "properties": {
        "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        "color": {"type": "string", "enum": ["red", "blue"]},
        "name": {"type": "string", "pattern": "^[a-z]+$"}}},
    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}

THING = {"type": "object", "properties": {"spec": {"type": "object", "required": ["a"], "properties": {
    "a": {"type": "string", "minLength": 2, "maxLength": 4},
    "l": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "integer"}},
    "n": {"type": "number", "exclusiveMinimum": True, "minimum": 0, "multipleOf": 0.5},
    "b": {"type": "boolean"},
    "o": {"type": "object", "properties": {"x": {"type": "string", "default": "dflt"}}},
    "ios": {"x-kubernetes-int-or-string": True},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    "m": {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 1}}}}}


def cr(spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"},
            "spec": spec}


CASES = [
    pytest.param(WIDGET, {"size": "string", "color": "green", "name": "ABC"},
                 ['spec.color: Unsupported value: "green": supported values: "red", "blue"',
                  "spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'",
                  'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"'],
                 id="type, enum and pattern (a real server lists them in Go map order; kubesim sorts)"),
    pytest.param(WIDGET, {"size": 11},
                 ["spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"],
                 id="above the maximum"),
    pytest.param(WIDGET, {"color": "red"}, ["spec.size: Required value"], id="a required field missing"),
    pytest.param(THING, {"a": "x"},
                 ['spec.a: Invalid value: "x": spec.a in body should be at least 2 chars long'], id="minLength"),
    pytest.param(THING, {"a": "xxxxx"}, ["spec.a: Too long: may not be more than 4 bytes"], id="maxLength"),
    pytest.param(THING, {"a": "ok", "l": []},
                 ["spec.l: Invalid value: 0: spec.l in body should have at least 1 items"], id="minItems"),
    pytest.param(THING, {"a": "ok", "l": [1, 2, 3]}, ["spec.l: Too many: 3: must have at most 2 items"],
                 id="maxItems"),
    pytest.param(THING, {"a": "ok", "n": 0},
                 ["spec.n: Invalid value: 0: spec.n in body should be greater than 0"],
                 id="an exclusive minimum"),
    pytest.param(THING, {"a": "ok", "n": 0.3},
                 ["spec.n: Invalid value: 0.3: spec.n in body should be a multiple of 0.5"], id="multipleOf"),
    pytest.param(THING, {"a": "ok", "l": ["x"]},
                 ['spec.l[0]: Invalid value: "string": spec.l[0] in body must be of type integer: "string"'],
                 id="an array item of the wrong type"),
    pytest.param(THING, {"a": "ok", "b": "yes"},
                 ['spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"'],
                 id="a string for a boolean"),
    pytest.param(THING, {"a": "ok", "ios": 3.5, "m": {"p": 1, "q": "s"}},
                 ['spec.ios: Invalid value: "number": spec.ios in body must be of type integer,string: "number"',
                  'spec.m.q: Invalid value: "string": spec.m.q in body must be of type integer: "string"',
                  "spec.m: Too many: 2: must have at most 1 item"],
                 id="int-or-string, maxProperties and additionalProperties"),
    pytest.param(THING, {"a": "ok", "o": "str"},
                 ['spec.o: Invalid value: "string": spec.o in body must be of type object: "string"'],
                 id="a string for an object"),
    pytest.param(THING, {"a": 5},
                 ['spec.a: Invalid value: "integer": spec.a in body must be of type string: "integer"'],
                 id="an integer for a string"),
    pytest.param(THING, {"a": "ok", "free": {"z": 1, "y": {"q": 2}}, "ios": "50%"}, [],
                 id="preserved unknown fields and an int-or-string string are fine"),
]


BOX = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "items": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "maxLength": 3}, "port": {"type": "integer", "format": "int32"}}}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "nums": {"type": "array", "items": {"type": "number"}},
    "ratio": {"type": "number", "maximum": 1.5, "exclusiveMaximum": True},
    "mode": {"type": "string", "enum": ["a", "b"], "nullable": True},
    "quantity": {"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+m?$"}}}}}

CASES += [
    pytest.param(BOX, {"items": [{"port": 1}]}, ["spec.items[0].name: Required value"],
                 id="required inside an array's objects"),
    pytest.param(BOX, {"items": [{"name": "abcd"}]}, ["spec.items[0].name: Too long: may not be more than 3 bytes"],
                 id="maxLength inside an array's objects"),
    pytest.param(BOX, {"labels": {"a": 1}},
                 ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
                 id="additionalProperties' type"),
    pytest.param(BOX, {"nums": [1, "x", 2.5]},
                 ['spec.nums[1]: Invalid value: "string": spec.nums[1] in body must be of type number: "string"'],
                 id="numbers accept integers"),
    pytest.param(BOX, {"ratio": 1.5}, ["spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5"],
                 id="an exclusive maximum"),
    pytest.param(BOX, {"mode": None}, ['spec.mode: Unsupported value: null: supported values: "a", "b"'],
                 id="a nullable null still meets the enum"),
    pytest.param(BOX, {"quantity": "5x"},
                 ["spec.quantity: Invalid value: \"5x\": spec.quantity in body should match '^[0-9]+m?$'"],
                 id="an int-or-string's pattern"),
    pytest.param(BOX, "str", ['spec: Invalid value: "string": spec in body must be of type object: "string"'],
                 id="a string for the spec"),
]


LISTS = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "proto"],
              "items": {"type": "object", "required": ["name", "proto"], "properties": {
                  "name": {"type": "string"}, "proto": {"type": "string"}, "port": {"type": "integer"}}}}}}}}

CASES += [
    pytest.param(LISTS, {"tags": ["a", "b", "a"]}, ['spec.tags[2]: Duplicate value: "a"'], id="a set's duplicate"),
    pytest.param(LISTS, {"ports": [{"name": "a", "proto": "tcp", "port": 1}, {"name": "a", "proto": "tcp", "port": 2},
                                   {"name": "a", "proto": "udp"}]},
                 ['spec.ports[1]: Duplicate value: {"name":"a","proto":"tcp"}'], id="a map list's duplicate key"),
]


@pytest.mark.parametrize("schema, spec, want", CASES)
def test_validate_custom_resource(schema, spec, want):
    obj = cr(spec)
    assert sorted(str(e) for e in validate_custom_resource(obj, schema, True)) == want


def test_a_name_must_be_a_dns_subdomain_and_a_namespace_is_required():
    obj = cr({"size": 1})
    obj["metadata"] = {"name": "Bad_Name"}
    errs = [str(e) for e in validate_custom_resource(obj, WIDGET, True)]
    assert errs[0].startswith('metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain')
    assert errs[1] == "metadata.namespace: Required value"


@pytest.mark.parametrize("obj, want_obj, want_pruned", [
    pytest.param({"apiVersion": "a/v1", "kind": "T", "metadata": {"name": "x"}, "spec": {"a": "ok", "unk": 1,
                                                                                          "o": {"y": 2}}},
                 {"apiVersion": "a/v1", "kind": "T", "metadata": {"name": "x"}, "spec": {"a": "ok", "o": {}}},
                 ["spec.o.y", "spec.unk"], id="unknown fields go, apiVersion kind and metadata stay"),
    pytest.param({"spec": {"a": "ok", "free": {"anything": {"goes": 1}}, "m": {"k": 1}}},
                 {"spec": {"a": "ok", "free": {"anything": {"goes": 1}}, "m": {"k": 1}}},
                 [], id="x-kubernetes-preserve-unknown-fields and additionalProperties keep theirs"),
    pytest.param({"spec": {"a": "ok", "l": [1]}, "extra": [1]}, {"spec": {"a": "ok", "l": [1]}},
                 ["extra"], id="an unknown top-level field"),
])
def test_prune(obj, want_obj, want_pruned):
    assert unknown_fields(obj, THING) == sorted(want_pruned)
    assert sorted(prune(obj, THING)) == sorted(want_pruned)
    assert obj == want_obj


@pytest.mark.parametrize("spec, want", [
    pytest.param({"a": "ok", "o": {}}, {"a": "ok", "o": {"x": "dflt"}}, id="a missing field gets its default"),
    pytest.param({"a": "ok"}, {"a": "ok"}, id="an absent parent is not created"),
    pytest.param({"a": "ok", "b": None}, {"a": "ok"}, id="a null the schema does not allow is dropped"),
    pytest.param({"a": "ok", "o": {"x": None}}, {"a": "ok", "o": {"x": "dflt"}}, id="a null with a default is defaulted"),
])
def test_default(spec, want):
    obj = {"spec": spec}
    default(obj, THING)
    assert obj["spec"] == want


def test_widget_size_defaults_to_three():
    obj = cr({"color": "red"})
    default(obj, WIDGET)
    assert obj["spec"] == {"color": "red", "size": 3}
