"""autoscaling/v2 scheme defaulting: the HorizontalPodAutoscaler, as the API server decodes it.

Upstream (v1.35): pkg/apis/autoscaling/v2/defaults.go (``SetDefaults_HorizontalPodAutoscaler``:
minReplicas 1, the CPU utilization metric at ``autoscaling.DefaultCPUUtilization`` (80 %) when
no metric is given; ``SetDefaults_HorizontalPodAutoscalerBehavior``: a behavior given fills both
directions from ``defaultHPAScaleUpRules``/``defaultHPAScaleDownRules``, keeping each field the
user set, as ``copyHPAScalingRules`` does). The scale-down stabilization window stays unset: the
controller's ``--horizontal-pod-autoscaler-downscale-stabilization`` (5 minutes) stands in.
"""

from __future__ import annotations

import copy

DEFAULT_CPU_UTILIZATION = 80

DEFAULT_SCALE_UP_RULES = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                 {"type": "Percent", "value": 100, "periodSeconds": 15}],
}
DEFAULT_SCALE_DOWN_RULES = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def default_cpu_metric(utilization: int = DEFAULT_CPU_UTILIZATION) -> dict:
    return {"type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}}}


def _copy_rules(given, defaults: dict) -> dict:
    """copyHPAScalingRules(given, defaults): the defaults with every field the user set."""
    out = copy.deepcopy(defaults)
    if not isinstance(given, dict):
        return out
    for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
        if given.get(key) is not None:
            out[key] = given[key]
    return out


def generate_scale_up_rules(rules) -> dict:
    return _copy_rules(rules, DEFAULT_SCALE_UP_RULES)


def generate_scale_down_rules(rules) -> dict:
    return _copy_rules(rules, DEFAULT_SCALE_DOWN_RULES)


def set_defaults_horizontal_pod_autoscaler(hpa: dict) -> None:
    """SetDefaults_HorizontalPodAutoscaler, in place."""
    spec = hpa.get("spec")
    if not isinstance(spec, dict):
        spec = hpa["spec"] = {}
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [default_cpu_metric()]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = generate_scale_up_rules(behavior.get("scaleUp"))
        behavior["scaleDown"] = generate_scale_down_rules(behavior.get("scaleDown"))
