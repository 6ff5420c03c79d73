"""autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler conversion, as the API server's
scheme converts between the served v1 and the stored v2 (through the internal type).

Upstream (v1.35): pkg/apis/autoscaling/v1/conversion.go
(``Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`` and back, the
spec's ``targetCPUUtilizationPercentage``, the status's ``currentCPUUtilizationPercentage``, the
metric source and status conversions) with pkg/apis/autoscaling/annotations.go: what v1 cannot
say travels in annotations, ``autoscaling.alpha.kubernetes.io/metrics`` (the metrics other than
a CPU utilization, as v1 MetricSpecs), ``.../current-metrics`` (every current metric),
``.../behavior`` (the behavior, as JSON of the *internal* type: Go field names) and
``.../conditions``; they are dropped again on the way back. v1's ``SetDefaults_HorizontalPodAutoscaler``
(minReplicas 1) and the conversion's CPU default (80 %) apply to a v1 object with no metric.
The annotations hold what Go's ``json.Marshal`` writes: struct fields in declaration order,
quantities in canonical form, ``<``, ``>`` and ``&`` escaped.
"""

from __future__ import annotations

import copy
import json

METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
SCALE_DOWN_TOLERANCE_ANNOTATION = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
SCALE_UP_TOLERANCE_ANNOTATION = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
ROUND_TRIP_ANNOTATIONS = (METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION,
                          BEHAVIOR_ANNOTATION, SCALE_DOWN_TOLERANCE_ANNOTATION, SCALE_UP_TOLERANCE_ANNOTATION)
DEFAULT_CPU_UTILIZATION = 80


def go_json(v) -> str:
    """encoding/json.Marshal's text for JSON-shaped ``v`` (dicts in the order built)."""
    s = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _q(v):
    """A quantity as Go marshals it (its canonical string); None stays None."""
    if v is None:
        return None
    from kubesim.api.quantity import canonical

    try:
        return canonical(v)
    except (ValueError, TypeError):
        return v


def _put(out: dict, key: str, value) -> None:
    """An ``omitempty`` field: set only when there is a value."""
    if value is not None and value != {} and value != []:
        out[key] = value


def _is_cpu_utilization(m: dict) -> bool:
    r = m.get("resource") if m.get("type") == "Resource" else None
    return isinstance(r, dict) and r.get("name") == "cpu" and (r.get("target") or {}).get("averageUtilization") is not None


def _ref_v1(ref: dict) -> dict:
    out = {"kind": ref.get("kind", ""), "name": ref.get("name", "")}
    _put(out, "apiVersion", ref.get("apiVersion"))
    return out


# -- metric specs ---------------------------------------------------------------------------

def metric_spec_to_v1(m: dict) -> dict:
    """Convert_autoscaling_MetricSpec_To_v1_MetricSpec."""
    out: dict = {"type": m.get("type", "")}
    src = m.get({"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                 "ContainerResource": "containerResource"}.get(m.get("type", ""), ""), None) or {}
    target, metric = src.get("target") or {}, src.get("metric") or {}
    if m.get("type") == "Object":
        o = {"target": _ref_v1(src.get("describedObject") or {}), "metricName": metric.get("name", ""),
             "targetValue": _q(target.get("value")) or "0"}
        _put(o, "selector", metric.get("selector"))
        _put(o, "averageValue", _q(target.get("averageValue")))
        out["object"] = o
    elif m.get("type") == "Pods":
        p = {"metricName": metric.get("name", ""), "targetAverageValue": _q(target.get("averageValue")) or "0"}
        _put(p, "selector", metric.get("selector"))
        out["pods"] = p
    elif m.get("type") in ("Resource", "ContainerResource"):
        r = {"name": src.get("name", "")}
        _put(r, "targetAverageUtilization", target.get("averageUtilization"))
        _put(r, "targetAverageValue", _q(target.get("averageValue")))
        if m.get("type") == "ContainerResource":
            r["container"] = src.get("container", "")
        out["resource" if m.get("type") == "Resource" else "containerResource"] = r
    elif m.get("type") == "External":
        e = {"metricName": metric.get("name", "")}
        _put(e, "metricSelector", metric.get("selector"))
        _put(e, "targetValue", _q(target.get("value")))
        _put(e, "targetAverageValue", _q(target.get("averageValue")))
        out["external"] = e
    return out


def _metric_id(name, selector) -> dict:
    out = {"name": name or ""}
    _put(out, "selector", selector)
    return out


def metric_spec_from_v1(m: dict) -> dict:
    """Convert_v1_MetricSpec_To_autoscaling_MetricSpec (to v2's shape)."""
    type_ = m.get("type", "")
    out: dict = {"type": type_}
    if type_ == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        target = {"type": "Value" if o.get("averageValue") is None else "AverageValue",
                  "value": o.get("targetValue") or "0"}
        _put(target, "averageValue", o.get("averageValue"))
        out["object"] = {"describedObject": _ref_v1(o.get("target") or {}),
                         "metric": _metric_id(o.get("metricName"), o.get("selector")), "target": target}
    elif type_ == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        out["pods"] = {"metric": _metric_id(p.get("metricName"), p.get("selector")),
                       "target": {"type": "AverageValue", "averageValue": p.get("targetAverageValue") or "0"}}
    elif type_ in ("Resource", "ContainerResource"):
        key = "resource" if type_ == "Resource" else "containerResource"
        r = m.get(key) or {}
        target = {"type": "AverageValue" if r.get("targetAverageUtilization") is None else "Utilization"}
        _put(target, "averageUtilization", r.get("targetAverageUtilization"))
        _put(target, "averageValue", r.get("targetAverageValue"))
        src = {"name": r.get("name", ""), "target": target}
        if type_ == "ContainerResource":
            src["container"] = r.get("container", "")
        out[key] = src
    elif type_ == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        target = {"type": "AverageValue" if e.get("targetValue") is None else "Value"}
        _put(target, "value", e.get("targetValue"))
        _put(target, "averageValue", e.get("targetAverageValue"))
        out["external"] = {"metric": _metric_id(e.get("metricName"), e.get("metricSelector")), "target": target}
    return out


# -- metric statuses ------------------------------------------------------------------------

def metric_status_to_v1(m: dict) -> dict:
    """Convert_autoscaling_MetricStatus_To_v1_MetricStatus."""
    type_ = m.get("type", "")
    out: dict = {"type": type_}
    key = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
           "ContainerResource": "containerResource"}.get(type_)
    src = m.get(key) if key else None
    if not isinstance(src, dict):
        return out
    cur, metric = src.get("current") or {}, src.get("metric") or {}
    if type_ == "Object":
        o = {"target": _ref_v1(src.get("describedObject") or {}), "metricName": metric.get("name", ""),
             "currentValue": _q(cur.get("value")) or "0"}
        _put(o, "selector", metric.get("selector"))
        _put(o, "averageValue", _q(cur.get("averageValue")))
        out["object"] = o
    elif type_ == "Pods":
        p = {"metricName": metric.get("name", ""), "currentAverageValue": _q(cur.get("averageValue")) or "0"}
        _put(p, "selector", metric.get("selector"))
        out["pods"] = p
    elif type_ in ("Resource", "ContainerResource"):
        r = {"name": src.get("name", "")}
        _put(r, "currentAverageUtilization", cur.get("averageUtilization"))
        r["currentAverageValue"] = _q(cur.get("averageValue")) or "0"
        if type_ == "ContainerResource":
            r["container"] = src.get("container", "")
        out[key] = r
    elif type_ == "External":
        e = {"metricName": metric.get("name", "")}
        _put(e, "metricSelector", metric.get("selector"))
        e["currentValue"] = _q(cur.get("value")) or "0"
        _put(e, "currentAverageValue", _q(cur.get("averageValue")))
        out["external"] = e
    return out


def metric_status_from_v1(m: dict) -> dict:
    """Convert_v1_MetricStatus_To_autoscaling_MetricStatus (to v2's shape)."""
    type_ = m.get("type", "")
    out: dict = {"type": type_}
    if type_ == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        cur = {"value": o.get("currentValue") or "0"}
        _put(cur, "averageValue", o.get("averageValue"))
        out["object"] = {"metric": _metric_id(o.get("metricName"), o.get("selector")), "current": cur,
                         "describedObject": _ref_v1(o.get("target") or {})}
    elif type_ == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        out["pods"] = {"metric": _metric_id(p.get("metricName"), p.get("selector")),
                       "current": {"averageValue": p.get("currentAverageValue") or "0"}}
    elif type_ in ("Resource", "ContainerResource"):
        key = "resource" if type_ == "Resource" else "containerResource"
        r = m.get(key) or {}
        cur = {"averageValue": r.get("currentAverageValue") or "0"}
        _put(cur, "averageUtilization", r.get("currentAverageUtilization"))
        src = {"name": r.get("name", ""), "current": cur}
        if type_ == "ContainerResource":
            src["container"] = r.get("container", "")
        out[key] = src
    elif type_ == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        cur = {"value": e.get("currentValue") or "0"}
        _put(cur, "averageValue", e.get("currentAverageValue"))
        out["external"] = {"metric": _metric_id(e.get("metricName"), e.get("metricSelector")), "current": cur}
    return out


# -- behavior (the internal type's JSON: Go field names) -----------------------------------

def _rules_internal(r) -> dict | None:
    if not isinstance(r, dict):
        return None
    return {"StabilizationWindowSeconds": r.get("stabilizationWindowSeconds"),
            "SelectPolicy": r.get("selectPolicy"),
            "Policies": [{"Type": p.get("type", ""), "Value": p.get("value", 0), "PeriodSeconds": p.get("periodSeconds", 0)}
                         for p in r.get("policies") or []] or None,
            "Tolerance": _q(r.get("tolerance"))}


def _rules_from_internal(r) -> dict | None:
    if not isinstance(r, dict):
        return None
    out: dict = {}
    if r.get("Policies") is not None:
        out["policies"] = [{"type": p.get("Type", ""), "value": p.get("Value", 0), "periodSeconds": p.get("PeriodSeconds", 0)}
                           for p in r["Policies"]]
    _put(out, "selectPolicy", r.get("SelectPolicy"))
    if r.get("StabilizationWindowSeconds") is not None:
        out["stabilizationWindowSeconds"] = r["StabilizationWindowSeconds"]
    _put(out, "tolerance", r.get("Tolerance"))
    return out


# -- the object ------------------------------------------------------------------------------

def _v1_condition(c: dict) -> dict:
    out = {"type": c.get("type", ""), "status": c.get("status", "")}
    for k in ("lastTransitionTime", "reason", "message"):
        _put(out, k, c.get(k) or None)
    return out


def v2_to_v1(hpa: dict) -> dict:
    """The stored (v2) object as autoscaling/v1 serves it."""
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    md = copy.deepcopy(hpa.get("metadata") or {})
    ann = {k: v for k, v in (md.get("annotations") or {}).items() if k not in ROUND_TRIP_ANNOTATIONS}
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    other = [metric_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    if other:
        ann[METRICS_ANNOTATION] = go_json(other)
    current = status.get("currentMetrics") or []
    if current:
        ann[CURRENT_METRICS_ANNOTATION] = go_json([metric_status_to_v1(m) for m in current])
    if isinstance(spec.get("behavior"), dict):
        b = spec["behavior"]
        ann[BEHAVIOR_ANNOTATION] = go_json({"ScaleUp": _rules_internal(b.get("scaleUp")),
                                            "ScaleDown": _rules_internal(b.get("scaleDown"))})
    if status.get("conditions"):
        ann[CONDITIONS_ANNOTATION] = go_json([_v1_condition(c) for c in status["conditions"]])
    if ann:
        md["annotations"] = ann
    else:
        md.pop("annotations", None)
    v1spec: dict = {"scaleTargetRef": _ref_v1(spec.get("scaleTargetRef") or {})}
    _put(v1spec, "minReplicas", spec.get("minReplicas"))
    v1spec["maxReplicas"] = spec.get("maxReplicas", 0)
    for m in metrics:
        if _is_cpu_utilization(m):
            v1spec["targetCPUUtilizationPercentage"] = m["resource"]["target"]["averageUtilization"]
            break
    v1status: dict = {}
    _put(v1status, "observedGeneration", status.get("observedGeneration"))
    _put(v1status, "lastScaleTime", status.get("lastScaleTime"))
    v1status["currentReplicas"] = status.get("currentReplicas") or 0
    v1status["desiredReplicas"] = status.get("desiredReplicas") or 0
    for m in current:
        r = m.get("resource") if isinstance(m, dict) and m.get("type") == "Resource" else None
        if isinstance(r, dict) and r.get("name") == "cpu" and (r.get("current") or {}).get("averageUtilization") is not None:
            v1status["currentCPUUtilizationPercentage"] = r["current"]["averageUtilization"]
    return {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v1", "metadata": md,
            "spec": v1spec, "status": v1status}


def _loads(text):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def v1_to_v2(hpa: dict) -> dict:
    """An autoscaling/v1 object as the API server decodes and stores it (v2), v1's defaults
    applied. Annotations that do not parse are ignored, as upstream ignores them."""
    spec = hpa.get("spec") if isinstance(hpa.get("spec"), dict) else {}
    status = hpa.get("status") if isinstance(hpa.get("status"), dict) else {}
    md = copy.deepcopy(hpa.get("metadata") or {})
    ann = dict(md.get("annotations") or {})
    v2spec: dict = {"scaleTargetRef": copy.deepcopy(spec.get("scaleTargetRef") or {}),
                    "minReplicas": spec.get("minReplicas") if spec.get("minReplicas") is not None else 1,
                    "maxReplicas": spec.get("maxReplicas", 0)}
    metrics: list = []
    if spec.get("targetCPUUtilizationPercentage") is not None:
        cpu = spec["targetCPUUtilizationPercentage"]
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                               "averageUtilization": cpu}}}]
    other = _loads(ann.get(METRICS_ANNOTATION)) if METRICS_ANNOTATION in ann else None
    if isinstance(other, list):
        metrics = [metric_spec_from_v1(m) for m in other if isinstance(m, dict)] + metrics[:1]
    behavior = _loads(ann.get(BEHAVIOR_ANNOTATION)) if BEHAVIOR_ANNOTATION in ann else None
    if isinstance(behavior, dict) and (behavior.get("ScaleUp") or behavior.get("ScaleDown")):
        b = {}
        _put(b, "scaleUp", _rules_from_internal(behavior.get("ScaleUp")))
        _put(b, "scaleDown", _rules_from_internal(behavior.get("ScaleDown")))
        v2spec["behavior"] = b
    if not metrics:
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    v2spec["metrics"] = metrics
    v2status: dict = {}
    for k in ("observedGeneration", "lastScaleTime"):
        _put(v2status, k, status.get(k))
    v2status["currentReplicas"] = status.get("currentReplicas") or 0
    v2status["desiredReplicas"] = status.get("desiredReplicas") or 0
    if status.get("currentCPUUtilizationPercentage") is not None:
        v2status["currentMetrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "current": {"averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
    current = _loads(ann.get(CURRENT_METRICS_ANNOTATION)) if CURRENT_METRICS_ANNOTATION in ann else None
    if isinstance(current, list):
        v2status["currentMetrics"] = [metric_status_from_v1(m) for m in current if isinstance(m, dict)]
    conditions = _loads(ann.get(CONDITIONS_ANNOTATION)) if CONDITIONS_ANNOTATION in ann else None
    if isinstance(conditions, list):
        v2status["conditions"] = [c for c in conditions if isinstance(c, dict)]
    for k in ROUND_TRIP_ANNOTATIONS:
        ann.pop(k, None)
    if ann:
        md["annotations"] = ann
    else:
        md.pop("annotations", None)
    out = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": md, "spec": v2spec}
    if "status" in hpa:
        out["status"] = v2status
    return out
