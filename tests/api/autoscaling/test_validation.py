"""ValidateHorizontalPodAutoscaler[Update], after upstream's validation_test.go tables
(TestValidateHorizontalPodAutoscaler's success and error cases, TestValidateBehavior,
TestValidateHorizontalPodAutoscalerScaleToZero...); the texts were checked against the v1.35
oracle (``kubectl create -f`` of each manifest)."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.autoscaling.defaults import set_defaults_horizontal_pod_autoscaler
from kubesim.api.autoscaling.validation import validate_horizontal_pod_autoscaler


def hpa(**spec) -> dict:
    base = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}
    base.update(spec)
    obj = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "bad", "namespace": "default"}, "spec": base}
    set_defaults_horizontal_pod_autoscaler(obj)
    return obj


def resource(name="cpu", **target):
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def errors(obj, old=None) -> list[str]:
    """The texts the server reports: a repeated error once (ToAggregate), as for the unknown type
    validateMetricSpec reports twice."""
    return list(dict.fromkeys(str(e) for e in validate_horizontal_pod_autoscaler(obj, old)))


@pytest.mark.parametrize("spec", [
    pytest.param({}, id="the defaulted cpu utilization metric"),
    pytest.param({"metrics": [resource(type="AverageValue", averageValue="300m")]}, id="a cpu average value"),
    pytest.param({"scaleTargetRef": {"apiVersion": "v1", "kind": "ReplicationController", "name": "rc"}},
                 id="a replication controller may name the core group"),
    pytest.param({"metrics": [{"type": "Pods", "pods": {"metric": {"name": "qps"},
                                                        "target": {"type": "AverageValue", "averageValue": "10"}}}]},
                 id="a pods metric"),
    pytest.param({"metrics": [{"type": "Object", "object": {
        "describedObject": {"kind": "Service", "name": "s"}, "metric": {"name": "hits"},
        "target": {"type": "Value", "value": "2"}}}]}, id="an object metric may leave out its api version"),
    pytest.param({"metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                                                                "target": {"type": "AverageValue", "averageValue": "30"}}}]},
                 id="an external metric"),
    pytest.param({"metrics": [{"type": "ContainerResource", "containerResource": {
        "name": "cpu", "container": "app", "target": {"type": "Utilization", "averageUtilization": 60}}}]},
        id="a container resource metric"),
    pytest.param({"behavior": {"scaleDown": {"stabilizationWindowSeconds": 3600, "selectPolicy": "Disabled",
                                             "policies": [{"type": "Percent", "value": 10, "periodSeconds": 1800}],
                                             "tolerance": "0.05"}}},
                 id="a behavior at its limits with a tolerance"),
])
def test_valid_autoscalers(spec):
    assert errors(hpa(**spec)) == []


@pytest.mark.parametrize("spec,want", [
    pytest.param({"minReplicas": 5, "maxReplicas": 2},
                 ["spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"],
                 id="min replicas above max replicas"),
    pytest.param({"minReplicas": 0, "maxReplicas": 0},
                 ["spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                  "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                  ("spec.metrics: Forbidden: must specify at least one Object or External metric to support "
                  "scaling to zero replicas")],
                 id="zero replicas while HPAScaleToZero is off"),
    pytest.param({"scaleTargetRef": {}},
                 ["spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value",
                  'spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group'],
                 id="an empty scale target"),
    pytest.param({"scaleTargetRef": {"apiVersion": "v1", "kind": "De/p", "name": "%x"}},
                 ["spec.scaleTargetRef.kind: Invalid value: \"De/p\": may not contain '/'",
                  "spec.scaleTargetRef.name: Invalid value: \"%x\": may not contain '%'",
                  'spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group'],
                 id="a scale target that is not a path segment in the core group"),
    pytest.param({"scaleTargetRef": {"apiVersion": "a/b/c", "kind": "Deployment", "name": "web"}},
                 ['spec.scaleTargetRef.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
                 id="a scale target api version with two slashes"),
    pytest.param({"metrics": [resource(type="Utilization", averageUtilization=0, averageValue="-1")]},
                 ['spec.metrics[0].resource.target.averageValue: Invalid value: "-1": must be positive',
                  "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
                  ("spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value "
                  "and a target utilization")],
                 id="a resource target with both a negative value and a zero utilization"),
    pytest.param({"metrics": [{"type": "Foo"}]},
                 [('spec.metrics[0].type: Unsupported value: "Foo": supported values: "ContainerResource", '
                  '"External", "Object", "Pods", "Resource"')], id="an unknown metric type"),
    pytest.param({"metrics": [{"type": "Pods", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 50}}}]},
        ["spec.metrics[0].pods: Required value: must populate information for the given metric source"],
        id="a pods metric that fills in a resource source"),
    pytest.param({"metrics": [resource(name="", type="Bad")]},
                 ["spec.metrics[0].resource.name: Required value: must specify a resource name",
                  ('spec.metrics[0].resource.target.type: Invalid value: "Bad": must be either Utilization, Value, '
                  "or AverageValue"),
                  ("spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target "
                  "raw value or a target utilization")], id="a resource metric without name or target"),
    pytest.param({"metrics": [{"type": "External", "external": {"metric": {"name": "a/b"},
                                                                "target": {"type": "Value", "value": "1", "averageValue": "2"}}}]},
                 ["spec.metrics[0].external.metric.name: Invalid value: \"a/b\": may not contain '/'",
                  ("spec.metrics[0].external.target.value: Forbidden: may not set both a target value for metric "
                  "and a per-pod target")], id="an external metric with both targets"),
    pytest.param({"metrics": [{"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "x"},
                                                            "metric": {"name": "m"}, "target": {"type": "Value"}}}]},
                 [("spec.metrics[0].object.target.averageValue: Required value: must set either a target value or "
                  "averageValue")], id="an object metric without a target value"),
    pytest.param({"behavior": {
        "scaleUp": {"stabilizationWindowSeconds": -1, "selectPolicy": "Foo", "policies": [], "tolerance": "-0.1"},
        "scaleDown": {"stabilizationWindowSeconds": 4000, "policies": [
            {"type": "Bad", "value": 0, "periodSeconds": 0}, {"type": "Pods", "value": 1, "periodSeconds": 1801}]}}},
        ["spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
         'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Foo": supported values: "Disabled", "Max", "Min"',
         "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
         'spec.behavior.scaleUp.tolerance: Invalid value: "-100m": must be greater than or equal to 0',
         "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
         'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Bad": supported values: "Percent", "Pods"',
         "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
         "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
         "spec.behavior.scaleDown.policies[1].periodSeconds: Invalid value: 1801: must be less than or equal to 1800"],
        id="behavior rules out of range"),
])
def test_invalid_autoscalers(spec, want):
    assert errors(hpa(**spec)) == want


def test_an_update_keeping_the_target_skips_its_api_version_check():
    old = hpa(scaleTargetRef={"apiVersion": "v1", "kind": "Deployment", "name": "web"})
    new = copy.deepcopy(old)
    new["spec"]["maxReplicas"] = 7
    assert errors(new, old) == []
    new["spec"]["scaleTargetRef"]["kind"] = "StatefulSet"
    assert errors(new, old) == ['spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group']


def test_an_update_of_an_autoscaler_already_at_zero_may_keep_zero():
    old = hpa(minReplicas=0, metrics=[{"type": "External", "external": {
        "metric": {"name": "q"}, "target": {"type": "Value", "value": "1"}}}])
    new = copy.deepcopy(old)
    assert errors(new, old) == []
