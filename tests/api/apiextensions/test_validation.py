"""CustomResourceDefinition validation: upstream's cases
(apiextensions-apiserver pkg/apis/apiextensions/validation/validation_test.go
``TestValidateCustomResourceDefinition``), each text as a v1.35 API server answered the same
manifest (``kubectl create -f``)."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.apiextensions.defaults import set_defaults_custom_resource_definition
from kubesim.api.apiextensions.validation import (
    validate_custom_resource_definition,
    validate_custom_resource_definition_update,
)
from kubesim.apiserver.registry.apiextensions.customresourcedefinition import strategy


def crd(**spec_overrides) -> dict:
    spec = {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": True, "storage": True,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    spec.update(spec_overrides)
    obj = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"{spec['names'].get('plural', '')}.{spec.get('group', '')}"}, "spec": spec}
    set_defaults_custom_resource_definition(obj)
    strategy.prepare_for_create(obj, None)
    return obj


def texts(obj) -> list[str]:
    return [str(e) for e in validate_custom_resource_definition(obj)]


def test_duplicate_version_names():
    got = texts(crd(versions=[V1, dict(V1, storage=False)]))
    assert len(got) == 1 and got[0].startswith('spec.versions: Invalid value: [{"Name":"v1","Served":true,')
    assert got[0].endswith(": must contain unique version names")


def test_a_valid_definition_has_no_errors():
    assert texts(crd()) == []


def test_the_name_must_be_plural_dot_group():
    obj = crd()
    obj["metadata"]["name"] = "gadgets.example.com"
    assert texts(obj) == ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']


V1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
         "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
         "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")

CASES = [
    pytest.param(
        {"scope": "Global", "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"properties": {"x": {"type": "strin"},
                                                                     "y": {"type": "integer", "default": "a"}}}}}}}]},
        ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
         "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified "
         "object fields",
         'spec.validation.openAPIV3Schema.properties[spec].properties[x].type: Unsupported value: "strin": '
         'supported values: "array", "boolean", "integer", "number", "object", "string"'],
        id="a schema shared by every version is reported under spec.validation, structural errors first"),
    pytest.param(
        {"group": "example", "names": {"plural": "gizmos"},
         "versions": [{"name": "V1", "served": True, "storage": True,
                       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
        ['spec.group: Invalid value: "example": should be a domain with at least one dot',
         f'spec.versions[0].name: Invalid value: "V1": {V1035}',
         f'spec.version: Invalid value: "V1": {V1035}',
         "spec.names.singular: Required value", "spec.names.kind: Required value",
         "spec.names.listKind: Required value"],
        id="a group without a dot, an upper-case version and missing names"),
    pytest.param(
        {"versions": [{"name": "v1", "served": True, "storage": True}]},
        ["spec.versions[0].schema.openAPIV3Schema: Required value"],
        id="a version without a schema"),
    pytest.param(
        {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "properties": {"spec": {"type": "object"}}}}}]},
        ["spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"],
        id="a root without a type is not structural"),
    pytest.param(
        {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"list": {"type": "array"}}}}}]},
        ["spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified"],
        id="an array without items is not structural"),
    pytest.param(
        {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": {
                "size": {"type": "integer", "default": "big"},
                "list": {"type": "array", "items": {"type": "string", "default": 3}}}}}}}}]},
        ['spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "string": '
         ' in body must be of type integer: "string"',
         'spec.validation.openAPIV3Schema.properties[spec].properties[list].items.default: Invalid value: '
         '"integer":  in body must be of type string: "integer"'],
        id="a default must match its schema, validated as a document of its own"),
    pytest.param(
        {"names": {"plural": "widgets", "kind": "Widget", "listKind": "Widget", "shortNames": ["W"]},
         "versions": [{"name": "v1", "served": True, "storage": True,
                       "schema": {"openAPIV3Schema": {"type": "object", "properties": {"list": {"type": "array"}}}},
                       "additionalPrinterColumns": [{"name": "Size", "type": "int", "jsonPath": ".spec.size"}]}]},
        [f'spec.names.shortNames[0]: Invalid value: "W": {V1035}',
         'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
         "spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified",
         'spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of '
         'boolean,date,integer,number,string'],
        id="bad short names, a listKind equal to the kind, an array without items, a printer column type"),
    pytest.param(
        {"versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "additionalProperties": {"type": "string"},
            "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
                           "kind": {"type": "integer"}}}}}]},
        ["spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root",
         'spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
         "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than "
         "name and generateName, but metadata is implicitly specified",
         "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties "
         "are mutual exclusive"],
        id="the root: no additionalProperties, kind a string, metadata only name and generateName"),
]


V1 = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}

CASES += [
    pytest.param({"versions": None},
                 ["spec.versions: Invalid value: null: must have exactly one version marked as storage version",
                  "status.storedVersions: Invalid value: null: must have at least one stored version"],
                 id="no versions at all"),
    pytest.param({"scope": ""}, ["spec.scope: Required value"], id="no scope"),
    pytest.param({"versions": [dict(V1, additionalPrinterColumns=[{"name": "X", "type": "string"}])]},
                 ["spec.additionalPrinterColumns[0].JSONPath: Required value"], id="a printer column without a path"),
    pytest.param({"versions": [dict(V1, schema={"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"e": {"type": "string", "enum": ["a", "b"], "default": "c"}}}}}})]},
                 ['spec.validation.openAPIV3Schema.properties[spec].properties[e].default: Unsupported value: "c": '
                  'supported values: "a", "b"'], id="a default outside its enum"),
    pytest.param({"versions": [dict(V1, schema={"openAPIV3Schema": {"type": "string"}},
                                    subresources={"status": {}, "scale": {"specReplicasPath": "spec.replicas"}})]},
                 ['spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the '
                  "type at the root of the schema if the status subresource is enabled",
                  'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
                  'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json '
                  "path starting with .",
                  "spec.subresources.scale.statusReplicasPath: Required value"],
                 id="a string root with the status subresource, scale paths not simple json paths"),
]


@pytest.mark.parametrize("spec, want", CASES)
def test_validation(spec, want):
    assert texts(crd(**spec)) == want


def test_exactly_one_storage_version_prints_the_internal_versions():
    """The text a v1.35 API server printed for two versions neither of which is stored."""
    obj = crd(scope="Cluster", names={"plural": "gizmos", "kind": "Gizmo"}, versions=[
        {"name": "v1", "served": True, "storage": False, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"properties": {"x": {"type": "string"}}}}}}},
        {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": {
            "properties": {"spec": {"type": "object"}}}}}])
    got = texts(obj)
    assert got[:2] == [
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for "
        "specified object fields",
        "spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root"]
    assert got[2].startswith('spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,'
                             '"Deprecated":false,"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"",'
                             '"Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,')
    assert '"Properties":{"x":{"ID":"","Schema":"","Ref":null,"Description":"","Type":"string"' in got[2]
    assert got[2].endswith('"XListType":null,"XMapType":null,"XValidations":null}},"Subresources":null,'
                           '"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one '
                           "version marked as storage version")
    assert got[3] == "status.storedVersions: Invalid value: null: must have at least one stored version"


def test_scope_and_kind_are_immutable_once_established_group_and_plural_always():
    old = crd()
    old["status"]["conditions"] = [{"type": "Established", "status": "True"}]
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["scope"] = "Cluster"
    new["spec"]["names"]["kind"] = "Gadget"
    assert [str(e) for e in validate_custom_resource_definition_update(new, old)] == [
        'spec.scope: Invalid value: "Cluster": field is immutable',
        'spec.names.kind: Invalid value: "Gadget": field is immutable']


def test_defaults_fill_singular_list_kind_conversion_and_stored_versions():
    obj = {"spec": {"names": {"kind": "Widget"}, "versions": [{"name": "v1"}, {"name": "v2", "storage": True}]}}
    set_defaults_custom_resource_definition(obj)
    assert obj["spec"]["names"] == {"kind": "Widget", "singular": "widget", "listKind": "WidgetList"}
    assert obj["spec"]["conversion"] == {"strategy": "None"}
    assert obj["status"] == {"storedVersions": ["v2"]}
