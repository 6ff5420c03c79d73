"""ValidateLimitRange and ValidateResourceQuota (pkg/apis/core/validation/validation.go), on
objects defaulted as the API server decodes them. The cases follow validation_test.go's
TestValidateLimitRange and TestValidateResourceQuota tables; every message is the v1.35
oracle's."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.core.defaults import set_defaults_limit_range
from kubesim.api.core.limitrange_validation import (
    validate_limit_range,
    validate_limit_range_update,
)
from kubesim.api.core.resourcequota_validation import (
    validate_resource_quota,
    validate_resource_quota_update,
)


def lr(*items, name="lr") -> dict:
    obj = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name, "namespace": "ns"},
           "spec": {"limits": [copy.deepcopy(i) for i in items]}}
    set_defaults_limit_range(obj)
    return obj


def errors(errs) -> list[str]:
    return [str(e) for e in errs]


LIMIT_RANGE_OK = [
    ("all-fields-valid", [{"type": "Pod", "max": {"cpu": "100m", "memory": "10000Mi"}, "min": {"cpu": "5m", "memory": "100Mi"},
                           "maxLimitRequestRatio": {"cpu": "10"}},
                          {"type": "Container", "max": {"cpu": "100m"}, "min": {"cpu": "5m"},
                           "default": {"cpu": "50m"}, "defaultRequest": {"cpu": "10m"},
                           "maxLimitRequestRatio": {"cpu": "10"}}]),
    ("pvc-min-only", [{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}}]),
    ("pvc-max-only", [{"type": "PersistentVolumeClaim", "max": {"storage": "5Gi"}}]),
    ("thirdparty-fields-all-valid-standard-container-resources",
     [{"type": "thirdparty.com/foo", "max": {"cpu": "100m"}, "min": {"cpu": "5m"}}]),
    ("a Container max alone is its default limit and request", [{"type": "Container", "max": {"cpu": "1"}}]),
]


@pytest.mark.parametrize("items", [c[1] for c in LIMIT_RANGE_OK], ids=[c[0] for c in LIMIT_RANGE_OK])
def test_valid_limit_ranges(items):
    assert validate_limit_range(lr(*items)) == []


LIMIT_RANGE_BAD = [
    ("min value greater than max",
     [{"type": "Container", "min": {"cpu": "200m"}, "max": {"cpu": "100m"}, "default": {"cpu": "150m"}}],
     ['spec.limits[0].min[cpu]: Invalid value: "200m": min value 200m is greater than max value 100m',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "150m": default request value 150m is greater than max value 100m',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "150m": min value 200m is greater than default request value 150m',
      'spec.limits[0].default[cpu]: Invalid value: "200m": min value 200m is greater than default value 150m',
      'spec.limits[0].default[cpu]: Invalid value: "100m": default value 150m is greater than max value 100m']),
    ("default request above the default limit",
     [{"type": "Container", "default": {"cpu": "50m"}, "defaultRequest": {"cpu": "300m"}}],
     ['spec.limits[0].defaultRequest[cpu]: Invalid value: "300m": default request value 300m is greater than '
      'default limit value 50m']),
    ("a ratio below 1", [{"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}],
     ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']),
    ("a ratio above max/min", [{"type": "Pod", "min": {"memory": "1Gi"}, "max": {"memory": "2Gi"},
                                "maxLimitRequestRatio": {"memory": "4"}}],
     ['spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "4": ratio 4 is greater than max/min = 2.000000']),
    ("defaults on a Pod item", [{"type": "Pod", "default": {"cpu": "1"}, "defaultRequest": {"cpu": "1"}}],
     ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'"]),
    ("a claim item without storage", [{"type": "PersistentVolumeClaim"}],
     ["spec.limits[0].limits: Required value: either minimum or maximum storage value is required, "
      "but neither was provided"]),
    ("duplicate limit type", [{"type": "Pod", "max": {"cpu": "1"}}, {"type": "Pod", "min": {"cpu": "1m"}}],
     ['spec.limits[1].type: Duplicate value: "Pod"']),
    ("an unknown limit type", [{"type": "Bogus"}],
     ['spec.limits[0].type: Invalid value: "Bogus": must be a standard limit type or fully qualified']),
    ("a non-container resource on a Container item", [{"type": "Container", "max": {"foo": "1"}}],
     ['spec.limits[0].max[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.limits[0].max[foo]: Invalid value: "foo": must be a standard resource for containers',
      'spec.limits[0].default[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.limits[0].default[foo]: Invalid value: "foo": must be a standard resource for containers',
      'spec.limits[0].defaultRequest[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.limits[0].defaultRequest[foo]: Invalid value: "foo": must be a standard resource for containers']),
    ("hugepages may not overcommit",
     [{"type": "Container", "default": {"hugepages-2Mi": "4Mi"}, "defaultRequest": {"hugepages-2Mi": "2Mi"}}],
     ['spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: "2Mi": default value 4Mi must equal to '
      'defaultRequest value 2Mi in hugepages-2Mi']),
]


@pytest.mark.parametrize("items,want", [c[1:] for c in LIMIT_RANGE_BAD], ids=[c[0] for c in LIMIT_RANGE_BAD])
def test_invalid_limit_ranges(items, want):
    assert sorted(errors(validate_limit_range(lr(*items)))) == sorted(want)


def test_a_limit_range_update_revalidates_the_spec():
    old = lr({"type": "Container", "max": {"cpu": "1"}})
    new = lr({"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}})
    assert 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1' in \
        errors(validate_limit_range_update(new, old))


def rq(spec: dict, name="q") -> dict:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "ns"},
            "spec": copy.deepcopy(spec)}


QUOTA_OK = [
    ("compute and object counts", {"hard": {"cpu": "100", "memory": "10000", "requests.cpu": "100",
                                            "limits.memory": "1Gi", "pods": "5", "services": "10",
                                            "configmaps": "4", "secrets": "3", "persistentvolumeclaims": "2",
                                            "count/deployments.apps": "1", "requests.storage": "10Gi"}}),
    ("fully qualified extended resources", {"hard": {"requests.example.com/dongle": "2", "example.com/x": "1"}}),
    ("terminating scope on pods", {"hard": {"pods": "5", "cpu": "1"}, "scopes": ["Terminating"]}),
    ("best effort scope counts only pods", {"hard": {"pods": "5"}, "scopes": ["BestEffort"]}),
    ("priority class scope selector", {"hard": {"pods": "5"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}}),
]


@pytest.mark.parametrize("spec", [c[1] for c in QUOTA_OK], ids=[c[0] for c in QUOTA_OK])
def test_valid_quotas(spec):
    assert validate_resource_quota(rq(spec)) == []


QUOTA_BAD = [
    ("negative and fractional counts", {"hard": {"cpu": "-1", "pods": "1.5"}},
     ['spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[pods]: Invalid value: "1500m": must be an integer']),
    ("a resource quota does not know", {"hard": {"foo": "1"}},
     ['spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota']),
    ("an unknown scope", {"hard": {"pods": "2"}, "scopes": ["Foo"]},
     ['spec.scopes: Invalid value: ["Foo"]: unsupported scope']),
    ("best effort applied to cpu", {"hard": {"cpu": "1"}, "scopes": ["BestEffort"]},
     ['spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource']),
    ("conflicting scopes", {"hard": {"pods": "1"}, "scopes": ["Terminating", "NotTerminating"]},
     ['spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes']),
    ("scope selector rules", {"hard": {"pods": "1", "cpu": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In"},
        {"scopeName": "BestEffort", "operator": "In", "values": ["a"]},
        {"scopeName": "Terminating", "operator": "Exists", "values": ["a"]},
        {"scopeName": "NotTerminating", "operator": "Foo"},
        {"scopeName": "Nope", "operator": "Exists"}]}},
     ["spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is "
      "'In' or 'NotIn' for scope selector",
      'spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"PriorityClass",'
      '"Operator":"In","Values":null},{"ScopeName":"BestEffort","Operator":"In","Values":["a"]},'
      '{"ScopeName":"Terminating","Operator":"Exists","Values":["a"]},{"ScopeName":"NotTerminating",'
      '"Operator":"Foo","Values":null},{"ScopeName":"Nope","Operator":"Exists","Values":null}]}: '
      "unsupported scope applied to resource",
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be \'Exists\' when scope is any of '
      "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
      "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
      'spec.scopeSelector.matchExpressions.values: Invalid value: ["a"]: must be no value when `operator` is '
      "'Exist' or 'DoesNotExist' for scope selector",
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Foo": must be \'Exists\' when scope is any of '
      "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
      "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Foo": not a valid selector operator',
      'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Nope": unsupported scope',
      "spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes"]),
]


@pytest.mark.parametrize("spec,want", [c[1:] for c in QUOTA_BAD], ids=[c[0] for c in QUOTA_BAD])
def test_invalid_quotas(spec, want):
    assert errors(validate_resource_quota(rq(spec))) == want


def test_a_quota_keeps_its_scopes():
    old = rq({"hard": {"pods": "1"}, "scopes": ["BestEffort"]})
    new = rq({"hard": {"pods": "1"}, "scopes": ["NotBestEffort"]})
    assert errors(validate_resource_quota_update(new, old)) == [
        'spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable']
