"""SetDefaults_HorizontalPodAutoscaler (pkg/apis/autoscaling/v2/defaults.go, defaults_test.go's
cases): minReplicas, the CPU metric, and behavior rules filled per direction."""

from __future__ import annotations

import pytest

from kubesim.api.autoscaling.defaults import set_defaults_horizontal_pod_autoscaler

SCALE_UP = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                         {"type": "Percent", "value": 100, "periodSeconds": 15}]}
SCALE_DOWN = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}
CPU80 = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]


def defaulted(spec: dict) -> dict:
    obj = {"spec": spec}
    set_defaults_horizontal_pod_autoscaler(obj)
    return obj["spec"]


@pytest.mark.parametrize("spec,want", [
    pytest.param({}, {"minReplicas": 1, "metrics": CPU80}, id="an empty spec gets min 1 and cpu at 80 percent"),
    pytest.param({"minReplicas": 3, "metrics": []}, {"minReplicas": 3, "metrics": CPU80},
                 id="an empty metric list is defaulted too"),
    pytest.param({"behavior": {}}, {"minReplicas": 1, "metrics": CPU80,
                                    "behavior": {"scaleUp": SCALE_UP, "scaleDown": SCALE_DOWN}},
                 id="an empty behavior gets both directions, scale down without a window"),
    pytest.param({"behavior": {"scaleDown": {"stabilizationWindowSeconds": 60, "tolerance": "0.05"}}},
                 {"minReplicas": 1, "metrics": CPU80, "behavior": {
                     "scaleUp": SCALE_UP, "scaleDown": {**SCALE_DOWN, "stabilizationWindowSeconds": 60,
                                                        "tolerance": "0.05"}}},
                 id="the fields a user set are kept"),
])
def test_defaults(spec, want):
    assert defaulted(spec) == want
