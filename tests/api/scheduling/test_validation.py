"""PriorityClass validation (pkg/apis/scheduling/validation), with the API server's messages, on
the object as the server prepares it."""

import pytest

from tests.api.builders import errors_of, pc, set_path, update_errors

CREATE = [
    ("a user class above one billion", pc(value=1000000001),
     ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]),
    ("a user class of exactly one billion", pc(value=1000000000), []),
    ("an unknown system- name", pc("system-foo"),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: system-foo is not a known system priority class"]),
    ("a system class with another value", pc("system-node-critical", value=5),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: value of system-node-critical PriorityClass must be 2000001000"]),
    ("a system class marked global default", pc("system-cluster-critical", value=2000000000, globalDefault=True),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: globalDefault of system-cluster-critical PriorityClass must be false"]),
    ("the system class as upstream defines it", pc("system-cluster-critical", value=2000000000), []),
    ("an unknown preemption policy", pc(preemptionPolicy="Sometimes"),
     ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']),
    ("an empty preemption policy", pc(preemptionPolicy=""), ["preemptionPolicy: Required value"]),
    ("a priority class name that is no DNS subdomain", pc("High"),
     ['metadata.name: Invalid value: "High": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
      "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
      "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


UPDATE = [
    ("a priority class value change", pc(), set_path(["value"], 5),
     ["value: Forbidden: may not be changed in an update."]),
    ("a priority class preemption policy change", pc(), set_path(["preemptionPolicy"], "Never"),
     ['preemptionPolicy: Invalid value: "Never": field is immutable']),
    ("a priority class description change", pc(), set_path(["description"], "new"), []),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    assert update_errors(obj, mutate) == expected
