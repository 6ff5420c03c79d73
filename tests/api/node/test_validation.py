"""RuntimeClass validation, after pkg/apis/node/validation/validation_test.go; texts checked
against a real v1.35 API server (the conformance oracle)."""

from __future__ import annotations

import pytest

from kubesim.api.node.validation import validate_runtime_class, validate_runtime_class_update


def rc(handler="runc", **extra) -> dict:
    obj = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "rc"}, "handler": handler}
    obj.update(extra)
    return obj


@pytest.mark.parametrize("obj, errors", [
    (rc(), []),
    (rc(overhead={"podFixed": {"cpu": "250m", "memory": "10Mi"}}), []),
    (rc(scheduling={"nodeSelector": {"runtime": "gvisor"}, "tolerations": [{"key": "k", "operator": "Exists"}]}), []),
    (rc("Bad_Handler"), ['handler: Invalid value: "Bad_Handler": a lowercase RFC 1123 label must consist of lower case '
                         "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                         "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
    (rc(overhead={"podFixed": {"cpu": "-1"}}),
     ['overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']),
    (rc(scheduling={"tolerations": [{"key": "a", "operator": "Exists", "value": "b", "effect": "NoSchedule"}]}),
     ['scheduling.tolerations[0].operator: Invalid value: "b": value must be empty when `operator` is \'Exists\'']),
], ids=["a handler", "an overhead", "scheduling", "a handler that is not a DNS label",
        "a negative overhead (checked as limits)", "a toleration with a value and Exists"])
def test_runtime_class_validation(obj, errors):
    assert [str(e) for e in validate_runtime_class(obj)] == errors


def test_the_handler_is_immutable():
    assert [str(e) for e in validate_runtime_class_update(rc("crun"), rc("runc"))] == [
        'handler: Invalid value: "crun": field is immutable']
    assert validate_runtime_class_update(rc("runc", overhead={"podFixed": {"cpu": "1"}}), rc("runc")) == []
