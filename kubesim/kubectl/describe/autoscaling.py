"""describe for autoscaling: the HorizontalPodAutoscaler (read as autoscaling/v2).

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``HorizontalPodAutoscalerDescriber``,
``describeHorizontalPodAutoscalerV2``, ``printDirectionBehavior``): each metric as ``current /
target`` (a utilization with its raw average in parentheses), the behavior only when set, the
target's pods (``current / desired``), the conditions table and the events.
"""

from __future__ import annotations

import json

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    LEVEL_3,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_rfc1123z,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)
from kubesim.printers.autoscaling import quantity_string

UNKNOWN = "<unknown>"


def _status_source(statuses: list, i: int, key: str) -> dict | None:
    if len(statuses) > i and isinstance(statuses[i], dict) and isinstance(statuses[i].get(key), dict):
        return statuses[i][key]
    return None


def _current(src: dict | None) -> dict:
    return (src or {}).get("current") or {}


def _utilization_current(st: dict | None) -> str:
    cur = _current(st)
    if st is None or cur.get("averageUtilization") is None:
        return UNKNOWN
    return f"{cur['averageUtilization']}% ({quantity_string(cur.get('averageValue'))})"


def _write_metric(w: PrefixWriter, metric: dict, statuses: list, i: int) -> None:
    type_ = metric.get("type")
    if type_ == "External":
        src = metric.get("external") or {}
        target, name = src.get("target") or {}, json.dumps((src.get("metric") or {}).get("name", ""))
        st = _status_source(statuses, i, "external")
        if target.get("averageValue") is not None:
            cur = _current(st).get("averageValue")
            current = quantity_string(cur) if st is not None and cur is not None else UNKNOWN
            w.write(LEVEL_1, f"{name} (target average value):\t{current} / {quantity_string(target['averageValue'])}\n")
        else:
            current = quantity_string(_current(st).get("value")) if st is not None else UNKNOWN
            w.write(LEVEL_1, f"{name} (target value):\t{current} / {quantity_string(target.get('value'))}\n")
    elif type_ == "Pods":
        src = metric.get("pods") or {}
        st = _status_source(statuses, i, "pods")
        current = quantity_string(_current(st).get("averageValue")) if st is not None else UNKNOWN
        name = json.dumps((src.get("metric") or {}).get("name", ""))
        w.write(LEVEL_1, f"{name} on pods:\t{current} / {quantity_string((src.get('target') or {}).get('averageValue'))}\n")
    elif type_ == "Object":
        src = metric.get("object") or {}
        obj, target = src.get("describedObject") or {}, src.get("target") or {}
        w.write(LEVEL_1, f"\"{(src.get('metric') or {}).get('name', '')}\" on {obj.get('kind', '')}/{obj.get('name', '')} ")
        st = _status_source(statuses, i, "object")
        if target.get("type") == "AverageValue":
            current = quantity_string(_current(st).get("averageValue")) if st is not None else UNKNOWN
            w.write(LEVEL_0, f"(target average value):\t{current} / {quantity_string(target.get('averageValue'))}\n")
        else:
            current = quantity_string(_current(st).get("value")) if st is not None else UNKNOWN
            w.write(LEVEL_0, f"(target value):\t{current} / {quantity_string(target.get('value'))}\n")
    elif type_ in ("Resource", "ContainerResource"):
        key = "resource" if type_ == "Resource" else "containerResource"
        src = metric.get(key) or {}
        target = src.get("target") or {}
        if type_ == "Resource":
            w.write(LEVEL_1, f"resource {src.get('name', '')} on pods")
        else:
            w.write(LEVEL_1, f"resource {src.get('name', '')} of container \"{src.get('container', '')}\" on pods")
        st = _status_source(statuses, i, key)
        if target.get("averageValue") is not None:
            current = quantity_string(_current(st).get("averageValue")) if st is not None else UNKNOWN
            w.write(LEVEL_0, f":\t{current} / {quantity_string(target['averageValue'])}\n")
        else:
            util = target.get("averageUtilization")
            w.write(LEVEL_1, f"(as a percentage of request):\t{_utilization_current(st)} / "
                             f"{'<auto>' if util is None else f'{util}%'}\n")
    else:
        w.write(LEVEL_1, f"<unknown metric type {json.dumps(type_ or '')}>\n")


def _print_direction_behavior(w: PrefixWriter, direction: str, rules) -> None:
    if not isinstance(rules, dict):
        return
    w.write(LEVEL_1, f"{direction}:\n")
    if rules.get("stabilizationWindowSeconds") is not None:
        w.write(LEVEL_2, f"Stabilization Window: {rules['stabilizationWindowSeconds']} seconds\n")
    policies = rules.get("policies") or []
    if policies:
        w.write(LEVEL_2, f"Select Policy: {rules.get('selectPolicy') or 'Max'}\n")
        w.write(LEVEL_2, "Policies:\n")
        for p in policies:
            w.write(LEVEL_3, f"- Type: {p.get('type', '')}\tValue: {p.get('value', 0)}\t"
                             f"Period: {p.get('periodSeconds', 0)} seconds\n")


def describe_hpa(hpa: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(hpa), hpa.get("spec") or {}, hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(meta.get('creationTimestamp'))}\n")
    w.write(LEVEL_0, f"Reference:\t{ref.get('kind', '')}/{ref.get('name', '')}\n")
    w.write(LEVEL_0, "Metrics:\t( current / target )\n")
    statuses = status.get("currentMetrics") or []
    for i, metric in enumerate(spec.get("metrics") or []):
        _write_metric(w, metric if isinstance(metric, dict) else {}, statuses, i)
    min_replicas = spec.get("minReplicas")
    w.write(LEVEL_0, f"Min replicas:\t{'<unset>' if min_replicas is None else min_replicas}\n")
    w.write(LEVEL_0, f"Max replicas:\t{spec.get('maxReplicas') or 0}\n")
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        w.write(LEVEL_0, "Behavior:\n")
        _print_direction_behavior(w, "Scale Up", behavior.get("scaleUp"))
        _print_direction_behavior(w, "Scale Down", behavior.get("scaleDown"))
    w.write(LEVEL_0, f"{ref.get('kind', '')} pods:\t")
    w.write(LEVEL_0, f"{status.get('currentReplicas') or 0} current / {status.get('desiredReplicas') or 0} desired\n")
    conditions = status.get("conditions") or []
    if conditions:
        w.write(LEVEL_0, "Conditions:\n")
        w.write(LEVEL_1, "Type\tStatus\tReason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t------\t-------\n")
        for c in conditions:
            w.write(LEVEL_1, f"{c.get('type', '')}\t{c.get('status', '')}\t{c.get('reason', '')}\t{c.get('message', '')}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
