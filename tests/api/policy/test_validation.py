"""PodDisruptionBudget validation (pkg/apis/policy/validation), with the API server's messages, on
the object as the server prepares it.

The both-set texts print the internal spec as json.Marshal writes it (Go field names, the selector
with its json tags); the create ones were checked against a real v1.35 API server
(``kubectl apply --dry-run=server``)."""

import pytest

from tests.api.builders import errors_of, pdb, set_path, update_errors

CREATE = [
    ("a budget with a percentage", pdb({"minAvailable": "50%", "selector": {}}), []),
    ("a budget with both bounds", pdb({"minAvailable": 1, "maxUnavailable": 1}),
     ['spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: '
      "minAvailable and maxUnavailable cannot be both set"]),
    ("both bounds zero", pdb({"minAvailable": 0, "maxUnavailable": 0}),
     ['spec: Invalid value: {"MinAvailable":0,"Selector":null,"MaxUnavailable":0,"UnhealthyPodEvictionPolicy":null}: '
      "minAvailable and maxUnavailable cannot be both set"]),
    ("both bounds with everything else set", pdb({
        "minAvailable": "50%", "maxUnavailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow",
        "selector": {"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]}}),
     ['spec: Invalid value: {"MinAvailable":"50%","Selector":{"matchLabels":{"app":"a"},"matchExpressions":'
      '[{"key":"b","operator":"Exists"}]},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":"AlwaysAllow"}: '
      "minAvailable and maxUnavailable cannot be both set"]),
    ("a negative min available", pdb({"minAvailable": -1}),
     ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]),
    ("a min available above 100%", pdb({"minAvailable": "101%"}),
     ['spec.minAvailable: Invalid value: "101%": must not be greater than 100%']),
    ("a max unavailable that is no percentage", pdb({"maxUnavailable": "half"}),
     ["spec.maxUnavailable: Invalid value: \"half\": must be an integer or percentage (e.g '5%')"]),
    ("a bad selector operator", pdb({"minAvailable": 1, "selector": {"matchExpressions": [
        {"key": "a", "operator": "Near"}]}}),
     ['spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']),
    ("an unknown unhealthy pod eviction policy", pdb({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"}),
     ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", '
      '"IfHealthyBudget"']),
    ("a budget name with a slash", pdb(name="a/b"), ['metadata.name: Invalid value: "a/b": may not contain \'/\'']),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


UPDATE = [
    ("a budget's spec changes", pdb(), set_path(["spec", "minAvailable"], 2), []),
    ("a budget's spec becomes invalid", pdb(), set_path(["spec", "maxUnavailable"], "x"),
     ['spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":"x",'
      '"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set',
      "spec.maxUnavailable: Invalid value: \"x\": must be an integer or percentage (e.g '5%')"]),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    assert update_errors(obj, mutate) == expected
