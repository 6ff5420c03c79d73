"""autoscaling/v1 <-> v2 conversion (pkg/apis/autoscaling/v1/conversion.go), checked against
what the v1.35 oracle serves at /apis/autoscaling/v1 for the same v2 object."""

from __future__ import annotations

import json

from kubesim.api.autoscaling.conversion import v1_to_v2, v2_to_v1

FULL = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "full2", "namespace": "hpa-a"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "other"},
                 "minReplicas": 1, "maxReplicas": 10,
                 "behavior": {"scaleDown": {"policies": [{"periodSeconds": 30, "type": "Pods", "value": 1}],
                                            "selectPolicy": "Max", "stabilizationWindowSeconds": 60,
                                            "tolerance": "50m"},
                              "scaleUp": {"policies": [{"periodSeconds": 15, "type": "Pods", "value": 4},
                                                       {"periodSeconds": 15, "type": "Percent", "value": 100}],
                                          "selectPolicy": "Max", "stabilizationWindowSeconds": 0}},
                 "metrics": [
                     {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}},
                     {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                     {"type": "Pods", "pods": {"metric": {"name": "packets"}, "target": {"type": "AverageValue", "averageValue": "1k"}}},
                     {"type": "Object", "object": {"describedObject": {"apiVersion": "v1", "kind": "Service", "name": "s"},
                                                   "metric": {"name": "hits"}, "target": {"type": "Value", "value": "2"}}},
                     {"type": "External", "external": {"metric": {"name": "q", "selector": {"matchLabels": {"a": "b"}}},
                                                       "target": {"type": "AverageValue", "averageValue": "30"}}},
                     {"type": "ContainerResource", "containerResource": {
                         "name": "cpu", "container": "app", "target": {"type": "Utilization", "averageUtilization": 70}}}]},
        "status": {"currentMetrics": None, "desiredReplicas": 0}}

# the oracle's /apis/autoscaling/v1 answer for FULL
ORACLE_BEHAVIOR = ('{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods",'
                   '"Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},'
                   '"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Pods",'
                   '"Value":1,"PeriodSeconds":30}],"Tolerance":"50m"}}')
ORACLE_METRICS = (
    '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},{"type":"Pods","pods":'
    '{"metricName":"packets","targetAverageValue":"1k"}},{"type":"Object","object":{"target":{"kind":"Service",'
    '"name":"s","apiVersion":"v1"},"metricName":"hits","targetValue":"2"}},{"type":"External","external":'
    '{"metricName":"q","metricSelector":{"matchLabels":{"a":"b"}},"targetAverageValue":"30"}},{"type":'
    '"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":70,"container":"app"}}]')


def test_v2_to_v1_matches_the_oracle():
    v1 = v2_to_v1(FULL)
    assert v1["spec"] == {"scaleTargetRef": {"kind": "Deployment", "name": "other", "apiVersion": "apps/v1"},
                          "minReplicas": 1, "maxReplicas": 10, "targetCPUUtilizationPercentage": 60}
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    assert v1["metadata"]["annotations"] == {"autoscaling.alpha.kubernetes.io/behavior": ORACLE_BEHAVIOR,
                                             "autoscaling.alpha.kubernetes.io/metrics": ORACLE_METRICS}


def test_status_conditions_and_current_metrics_travel_in_annotations():
    hpa = json.loads(json.dumps(FULL))
    hpa["status"] = {"currentReplicas": 1, "desiredReplicas": 0, "currentMetrics": [{"type": ""}], "conditions": [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-11-26T13:29:33Z",
         "reason": "SucceededGetScale", "message": "the HPA controller was able to get the target's current scale"}]}
    ann = v2_to_v1(hpa)["metadata"]["annotations"]
    assert ann["autoscaling.alpha.kubernetes.io/current-metrics"] == '[{"type":""}]'
    assert ann["autoscaling.alpha.kubernetes.io/conditions"] == (
        '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-26T13:29:33Z",'
        '"reason":"SucceededGetScale","message":"the HPA controller was able to get the target\'s current scale"}]')


def test_current_cpu_utilization_is_served_in_v1_status():
    hpa = json.loads(json.dumps(FULL))
    hpa["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 91, "averageValue": "91m"}}}]}
    assert v2_to_v1(hpa)["status"] == {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 91}


def test_a_round_trip_through_v1_keeps_the_v2_spec():
    back = v1_to_v2(v2_to_v1(FULL))
    assert back["spec"]["behavior"] == FULL["spec"]["behavior"]
    # the CPU utilization metric comes back last, after the annotation's
    assert back["spec"]["metrics"] == FULL["spec"]["metrics"][:1] + FULL["spec"]["metrics"][2:] + FULL["spec"]["metrics"][1:2]
    assert "annotations" not in back["metadata"]


def test_a_v1_object_without_a_target_gets_cpu_at_80_percent_and_min_1():
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"},
          "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 4}}
    assert v1_to_v2(v1)["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1,
        "maxReplicas": 4,
        "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                                "averageUtilization": 80}}}]}
