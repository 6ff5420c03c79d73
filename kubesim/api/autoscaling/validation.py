"""autoscaling validation: the HorizontalPodAutoscaler, as its registry strategy runs it.

Upstream (v1.35): pkg/apis/autoscaling/validation/validation.go (ValidateHorizontalPodAutoscaler,
ValidateHorizontalPodAutoscalerUpdate, validateHorizontalPodAutoscalerSpec,
ValidateCrossVersionObjectReference, ValidateAPIVersion, validateMetrics, validateMetricSpec, the
validate*Source functions, validateMetricTarget, validateMetricIdentifier, validateBehavior,
validateScalingRules, validateScalingPolicy) with the options
pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go passes
(validationOptionsForHorizontalPodAutoscaler: minReplicas >= 1 as HPAScaleToZero is off, unless
the old object already had 0; an empty API group only for a ReplicationController; no apiVersion
check on an update that keeps the target's kind and apiVersion). The tests mirror
validation_test.go's tables.
"""

from __future__ import annotations

from kubesim.api.meta.validation import (
    is_dns1123_label,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
    validate_path_segment_name,
)
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
SELECT_POLICIES = ["Disabled", "Max", "Min"]
POLICY_TYPES = ["Percent", "Pods"]
_SOURCE_FIELD = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                 "ContainerResource": "containerResource"}


def parse_group_version(gv: str) -> tuple[str, str]:
    """schema.ParseGroupVersion: (group, version); ValueError for more than one slash."""
    if not gv or gv == "/":
        return "", ""
    parts = gv.split("/")
    if len(parts) == 1:
        return "", gv
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"unexpected GroupVersion string: {gv}")


def validate_api_version(ref: dict, allow_empty_group: bool, allow_invalid: bool) -> str | None:
    """ValidateAPIVersion: the error text, or None."""
    if allow_invalid:
        return None
    try:
        group, _ = parse_group_version(ref.get("apiVersion") or "")
    except ValueError as e:
        return str(e)
    if not allow_empty_group and not group:
        return "apiVersion must specify API group"
    return None


def validate_cross_version_object_reference(ref, path: str, allow_empty_group: bool = False,
                                            allow_invalid: bool = False) -> list[FieldError]:
    """ValidateCrossVersionObjectReference."""
    ref = ref if isinstance(ref, dict) else {}
    errs: list[FieldError] = []
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errs.append(required(f"{path}.{key}"))
        else:
            errs.extend(invalid(f"{path}.{key}", value, m) for m in validate_path_segment_name(value, False))
    msg = validate_api_version(ref, allow_empty_group, allow_invalid)
    if msg is not None:
        errs.append(invalid(f"{path}.apiVersion", ref.get("apiVersion") or "", msg))
    return errs


def _quantity(v):
    from kubesim.api.quantity import from_json

    try:
        return from_json(v)
    except (ValueError, TypeError):
        return None


def _validate_metric_target(mt, path: str) -> list[FieldError]:
    mt = mt if isinstance(mt, dict) else {}
    errs: list[FieldError] = []
    type_ = mt.get("type") or ""
    if not type_:
        errs.append(required(f"{path}.type", "must specify a metric target type"))
    if type_ not in ("Utilization", "Value", "AverageValue"):
        errs.append(invalid(f"{path}.type", type_, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if mt.get(key) is not None and (q := _quantity(mt[key])) is not None and q.value <= 0:
            errs.append(invalid(f"{path}.{key}", str(q), "must be positive"))
    if mt.get("averageUtilization") is not None and mt["averageUtilization"] < 1:
        errs.append(invalid(f"{path}.averageUtilization", mt["averageUtilization"], "must be greater than 0"))
    return errs


def _validate_metric_identifier(mid, path: str) -> list[FieldError]:
    name = (mid if isinstance(mid, dict) else {}).get("name") or ""
    if not name:
        return [required(f"{path}.name", "must specify a metric name")]
    return [invalid(f"{path}.name", name, m) for m in validate_path_segment_name(name, False)]


def _target(src: dict) -> dict:
    t = src.get("target")
    return t if isinstance(t, dict) else {}


def _validate_object_source(src: dict, path: str, allow_invalid: bool) -> list[FieldError]:
    errs = validate_cross_version_object_reference(src.get("describedObject"), f"{path}.describedObject",
                                                   True, allow_invalid)
    errs += _validate_metric_identifier(src.get("metric"), f"{path}.metric")
    errs += _validate_metric_target(src.get("target"), f"{path}.target")
    t = _target(src)
    if t.get("value") is None and t.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue", "must set either a target value or averageValue"))
    return errs


def _validate_external_source(src: dict, path: str) -> list[FieldError]:
    errs = _validate_metric_identifier(src.get("metric"), f"{path}.metric")
    errs += _validate_metric_target(src.get("target"), f"{path}.target")
    t = _target(src)
    if t.get("value") is None and t.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue",
                             "must set either a target value for metric or a per-pod target"))
    if t.get("value") is not None and t.get("averageValue") is not None:
        errs.append(forbidden(f"{path}.target.value", "may not set both a target value for metric and a per-pod target"))
    return errs


def _validate_pods_source(src: dict, path: str) -> list[FieldError]:
    errs = _validate_metric_identifier(src.get("metric"), f"{path}.metric")
    errs += _validate_metric_target(src.get("target"), f"{path}.target")
    if _target(src).get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    return errs


def _validate_utilization_or_value(src: dict, path: str) -> list[FieldError]:
    errs = _validate_metric_target(src.get("target"), f"{path}.target")
    t = _target(src)
    if t.get("averageUtilization") is None and t.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageUtilization",
                             "must set either a target raw value or a target utilization"))
    if t.get("averageUtilization") is not None and t.get("averageValue") is not None:
        errs.append(forbidden(f"{path}.target.averageValue",
                              "may not set both a target raw value and a target utilization"))
    return errs


def _validate_resource_source(src: dict, path: str) -> list[FieldError]:
    errs = [] if src.get("name") else [required(f"{path}.name", "must specify a resource name")]
    return errs + _validate_utilization_or_value(src, path)


def _validate_container_resource_source(src: dict, path: str) -> list[FieldError]:
    from kubesim.api.core.container_validation import _validate_container_resource_name

    errs: list[FieldError] = []
    name = src.get("name") or ""
    if not name:
        errs.append(required(f"{path}.name", "must specify a resource name"))
    else:
        errs += _validate_container_resource_name(name, f"{path}.name")
    container = src.get("container") or ""
    if not container:
        errs.append(required(f"{path}.container", "must specify a container"))
    else:
        errs += [invalid(f"{path}.container", container, m) for m in is_dns1123_label(container)]
    return errs + _validate_utilization_or_value(src, path)


def _validate_metric_spec(spec, path: str, allow_invalid_object: bool) -> list[FieldError]:
    spec = spec if isinstance(spec, dict) else {}
    errs: list[FieldError] = []
    type_ = spec.get("type") or ""
    if not type_:
        errs.append(required(f"{path}.type", "must specify a metric source type"))
    if type_ not in METRIC_SOURCE_TYPES:
        errs.append(unsupported(f"{path}.type", type_, METRIC_SOURCE_TYPES))
    present: list[str] = []
    checks = (("object", lambda s, p: _validate_object_source(s, p, allow_invalid_object)),
              ("external", _validate_external_source), ("pods", _validate_pods_source),
              ("resource", _validate_resource_source),
              ("containerResource", _validate_container_resource_source))
    for key, check in checks:
        src = spec.get(key)
        if src is not None:
            present.append(key)
            if len(present) == 1:
                errs += check(src if isinstance(src, dict) else {}, f"{path}.{key}")
    expected = _SOURCE_FIELD.get(type_)
    if expected is not None:
        if spec.get(expected) is None:
            errs.append(required(f"{path}.{expected}", "must populate information for the given metric source"))
    else:
        errs.append(unsupported(f"{path}.type", type_, METRIC_SOURCE_TYPES))
    if len(present) != 1:
        # a Go set's order is random; kubesim names them in the order checked
        errs += [forbidden(f"{path}.{k}", "must populate the given metric source only")
                 for k in present if k != expected]
    return errs


def _validate_metrics(metrics, path: str, min_replicas, allow_invalid_object: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    has_object_or_external = False
    for i, m in enumerate(metrics if isinstance(metrics, list) else []):
        errs += _validate_metric_spec(m, f"{path}[{i}]", allow_invalid_object)
        if isinstance(m, dict) and m.get("type") in ("Object", "External"):
            has_object_or_external = True
    if min_replicas == 0 and not has_object_or_external:
        errs.append(forbidden(path, "must specify at least one Object or External metric to support scaling to zero replicas"))
    return errs


def _validate_scaling_policy(policy, path: str) -> list[FieldError]:
    policy = policy if isinstance(policy, dict) else {}
    errs: list[FieldError] = []
    type_ = policy.get("type") or ""
    if type_ not in POLICY_TYPES:
        errs.append(unsupported(f"{path}.type", type_, POLICY_TYPES))
    value = policy.get("value") or 0
    if value <= 0:
        errs.append(invalid(f"{path}.value", value, "must be greater than zero"))
    period = policy.get("periodSeconds") or 0
    if period <= 0:
        errs.append(invalid(f"{path}.periodSeconds", period, "must be greater than zero"))
    if period > MAX_PERIOD_SECONDS:
        errs.append(invalid(f"{path}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    return errs


def _validate_scaling_rules(rules, path: str) -> list[FieldError]:
    if not isinstance(rules, dict):
        return []
    errs: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if window is not None and window < 0:
        errs.append(invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errs.append(invalid(f"{path}.stabilizationWindowSeconds", window,
                            f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errs.append(unsupported(f"{path}.selectPolicy", select, SELECT_POLICIES))
    policies = rules.get("policies") or []
    if not policies:
        errs.append(required(f"{path}.policies", "must specify at least one Policy"))
    for i, p in enumerate(policies):
        errs += _validate_scaling_policy(p, f"{path}.policies[{i}]")
    if rules.get("tolerance") is not None and (q := _quantity(rules["tolerance"])) is not None and q.value < 0:
        errs.append(invalid(f"{path}.tolerance", str(q), "must be greater than or equal to 0"))
    return errs


def _validate_spec(spec: dict, old_spec: dict | None) -> list[FieldError]:
    """validateHorizontalPodAutoscalerSpec with the strategy's options for (spec, old_spec)."""
    errs: list[FieldError] = []
    min_replicas, max_replicas = spec.get("minReplicas"), spec.get("maxReplicas") or 0
    lower = 0 if old_spec is not None and old_spec.get("minReplicas") == 0 else 1
    if min_replicas is not None and min_replicas < lower:
        errs.append(invalid("spec.minReplicas", min_replicas, f"must be greater than or equal to {lower}"))
    if max_replicas < 1:
        errs.append(invalid("spec.maxReplicas", max_replicas, "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        errs.append(invalid("spec.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`"))
    ref = spec.get("scaleTargetRef") if isinstance(spec.get("scaleTargetRef"), dict) else {}
    old_ref = (old_spec or {}).get("scaleTargetRef") or {}
    allow_invalid = old_spec is not None and (old_ref.get("apiVersion") == ref.get("apiVersion")
                                              and old_ref.get("kind") == ref.get("kind"))
    allow_empty = not allow_invalid and ref.get("kind") == "ReplicationController"
    errs += validate_cross_version_object_reference(ref, "spec.scaleTargetRef", allow_empty, allow_invalid)
    allow_invalid_object = False
    for m in (old_spec or {}).get("metrics") or ():
        if (isinstance(m, dict) and m.get("type") == "Object" and isinstance(m.get("object"), dict)
                and validate_api_version(m["object"].get("describedObject") or {}, True, False) is not None):
            allow_invalid_object = True
            break
    errs += _validate_metrics(spec.get("metrics"), "spec.metrics", min_replicas, allow_invalid_object)
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        errs += _validate_scaling_rules(behavior.get("scaleUp"), "spec.behavior.scaleUp")
        errs += _validate_scaling_rules(behavior.get("scaleDown"), "spec.behavior.scaleDown")
    return errs


def validate_horizontal_pod_autoscaler(hpa: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateHorizontalPodAutoscaler (``old`` None) or ValidateHorizontalPodAutoscalerUpdate."""
    md = hpa.get("metadata") or {}
    spec = hpa.get("spec") if isinstance(hpa.get("spec"), dict) else {}
    if old is None:
        return validate_object_meta(md, True, name_is_dns_subdomain) + _validate_spec(spec, None)
    errs = validate_object_meta_update(md, old.get("metadata") or {})
    return errs + _validate_spec(spec, old.get("spec") or {})


def validate_horizontal_pod_autoscaler_status_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateHorizontalPodAutoscalerStatusUpdate."""
    from kubesim.api.meta.validation import IS_NEGATIVE_ERROR

    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    status = new.get("status") or {}
    for key in ("currentReplicas", "desiredReplicas"):
        if (status.get(key) or 0) < 0:
            errs.append(invalid(f"status.{key}", status[key], IS_NEGATIVE_ERROR))
    return errs
