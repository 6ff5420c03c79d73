"""ConfigMap and core/v1 Event validation, after pkg/apis/core/validation/validation_test.go
(TestValidateConfigMap, TestValidateConfigMapUpdate) and events_test.go (TestValidateEventForCoreV1Events).
The texts were checked against a real v1.35 API server (the conformance oracle)."""

from __future__ import annotations

import pytest

from kubesim.api.core.validation import validate_config_map, validate_config_map_update, validate_event

KEY_ERR = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
           "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")


def cm(name="valid", ns="validns", data=None, binary=None, immutable=None) -> dict:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}}
    if data is not None:
        obj["data"] = data
    if binary is not None:
        obj["binaryData"] = binary
    if immutable is not None:
        obj["immutable"] = immutable
    return obj


@pytest.mark.parametrize("obj", [
    cm(data={"key": "value"}), cm(data={".dot-key": "v", "under_score": "v", "Dash-Key.1": "v"}),
    cm(binary={"bin": "AAE="}), cm(data={"a": "x" * (1024 * 1024)}), cm(),
], ids=["a simple key", "dots dashes and underscores", "binary data", "exactly 1 MiB of values", "no data at all"])
def test_a_valid_config_map_has_no_errors(obj):
    assert validate_config_map(obj) == []


@pytest.mark.parametrize("obj, errors", [
    (cm(name="", data={"k": "v"}), ["metadata.name: Required value: name or generateName is required"]),
    (cm(ns="", data={"k": "v"}), ["metadata.namespace: Required value"]),
    (cm(data={"a/b": "1"}), [f'data[a/b]: Invalid value: "a/b": {KEY_ERR}']),
    (cm(data={"..x": "1"}), ["data[..x]: Invalid value: \"..x\": must not start with '..'"]),
    (cm(data={".": "1"}), ["data[.]: Invalid value: \".\": must not be '.'"]),
    (cm(data={"..": "1"}), ["data[..]: Invalid value: \"..\": must not be '..'"]),
    (cm(data={"dup": "1"}, binary={"dup": "AAE="}),
     ['data[dup]: Invalid value: "dup": duplicate of key present in binaryData']),
    (cm(binary={"b!": "AAE="}), [f'binaryData[b!]: Invalid value: "b!": {KEY_ERR}']),
    (cm(data={"a": "x" * (1024 * 1024 + 1)}), ["[]: Too long: may not be more than 1048576 bytes"]),
    (cm(data={"a": "x" * (1024 * 1024 - 1)}, binary={"b": "AAE="}),
     ["[]: Too long: may not be more than 1048576 bytes"]),
], ids=["a missing name", "a missing namespace", "a slash in a key", "a key starting with two dots", "a dot key",
        "a dot-dot key", "a key in both data and binaryData", "a bad binary key", "more than 1 MiB of values",
        "binary data counts decoded"])
def test_an_invalid_config_map_says_why(obj, errors):
    assert [str(e) for e in validate_config_map(obj)] == errors


IMMUTABLE = "field is immutable when `immutable` is set"


@pytest.mark.parametrize("old, new, errors", [
    (cm(data={"a": "1"}), cm(data={"a": "2"}), []),
    (cm(data={"a": "1"}), cm(data={"a": "1"}, immutable=True), []),
    (cm(data={"a": "1"}, immutable=False), cm(data={"a": "2"}, immutable=True), []),
    (cm(data={"a": "1"}, immutable=True), cm(data={"a": "1"}, immutable=True), []),
    (cm(data={"a": "1"}, immutable=True), cm(data={"a": "2"}, immutable=True), [f"data: Forbidden: {IMMUTABLE}"]),
    (cm(data={"a": "1"}, immutable=True), cm(data={"a": "1"}, immutable=False),
     [f"immutable: Forbidden: {IMMUTABLE}"]),
    (cm(data={"a": "1"}, immutable=True), cm(data={"a": "1"}), [f"immutable: Forbidden: {IMMUTABLE}"]),
    (cm(binary={"b": "AAE="}, immutable=True), cm(binary={"b": "AAI="}, immutable=True),
     [f"binaryData: Forbidden: {IMMUTABLE}"]),
], ids=["a mutable map changes", "it becomes immutable", "it changes as it becomes immutable",
        "an immutable map unchanged", "an immutable map's data", "immutable cannot be unset to false",
        "immutable cannot be dropped", "an immutable map's binary data"])
def test_an_immutable_config_map_keeps_its_data(old, new, errors):
    assert [str(e) for e in validate_config_map_update(new, old)] == errors


def ev(ns="default", involved_ns="default", **extra) -> dict:
    obj = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e.1", "namespace": ns},
           "involvedObject": {"kind": "Pod", "name": "p", "namespace": involved_ns}, "reason": "Test"}
    obj.update(extra)
    return obj


@pytest.mark.parametrize("obj, errors", [
    (ev(), []),
    (ev(involved_ns="other"), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']),
    (ev(ns="team-a", involved_ns=""), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']),
    (ev(ns="default", involved_ns=""), []),
    (ev(metadata={"name": "Bad_Name", "namespace": "default"}), []),
    (ev(eventTime="2026-11-22T10:00:00.000000Z", reportingComponent="kubelet", reportingInstance="node01",
        action="Pulling"), []),
    (ev(eventTime="2026-11-22T10:00:00.000000Z", reason=""),
     ["reportingComponent: Required value", 'reportingComponent: Invalid value: "": name part must be non-empty',
      'reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or '
      "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
      "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "reportingInstance: Required value", "action: Required value", "reason: Required value"]),
], ids=["an event about an object of its namespace", "another namespace's object",
        "a cluster-scoped object from a namespace other than default", "a cluster-scoped object from default",
        "v1 does not check the name", "a new-style event names its reporter", "a new-style event without one"])
def test_core_v1_events_get_the_legacy_checks_only(obj, errors):
    assert [str(e) for e in validate_event(obj)] == errors
