"""kubectl's table columns and rows for autoscaling's HorizontalPodAutoscaler.

Upstream: pkg/printers/internalversion/printers.go (``horizontalPodAutoscalerColumnDefinitions``,
``printHorizontalPodAutoscaler``: REFERENCE ``kind/name``, MINPODS ``<unset>`` without
minReplicas, REPLICAS the status's currentReplicas; ``formatHPAMetrics``: each metric as
``current/target`` (``<unknown>`` until the controller has measured it, ``<auto>`` for a
utilization target without a value), the first two and then `` + N more...``).
"""

from __future__ import annotations

from kubesim.printers.tables import UNKNOWN, Column, PrintContext, age, object_meta

HPA_COLUMNS = [
    Column("Name", format="name"), Column("Reference"), Column("Targets"), Column("MinPods"),
    Column("MaxPods"), Column("Replicas"), Column("Age"),
]


def quantity_string(q) -> str:
    """(*resource.Quantity).String(): the canonical form; ``<nil>`` for an absent one."""
    if q is None:
        return "<nil>"
    from kubesim.api.quantity import canonical

    try:
        return canonical(q)
    except (ValueError, TypeError):
        return str(q)


def _source(statuses: list, i: int, key: str) -> dict | None:
    if len(statuses) > i and isinstance(statuses[i], dict) and isinstance(statuses[i].get(key), dict):
        return statuses[i][key]
    return None


def _current(src: dict | None) -> dict:
    return (src or {}).get("current") or {}


def _utilization(src: dict | None, fallback: str = UNKNOWN) -> str:
    u = _current(src).get("averageUtilization")
    return fallback if src is None or u is None else f"{u}%"


def format_metric(spec: dict, statuses: list, i: int) -> str:
    """One metric of formatHPAMetrics."""
    type_ = spec.get("type")
    if type_ in ("External", "Object"):
        key = type_.lower()
        target = (spec.get(key) or {}).get("target") or {}
        st = _source(statuses, i, key)
        if target.get("averageValue") is not None:
            cur = _current(st).get("averageValue")
            current = quantity_string(cur) if st is not None and cur is not None else UNKNOWN
            return f"{current}/{quantity_string(target['averageValue'])} (avg)"
        current = quantity_string(_current(st).get("value")) if st is not None else UNKNOWN
        return f"{current}/{quantity_string(target.get('value'))}"
    if type_ == "Pods":
        st = _source(statuses, i, "pods")
        current = quantity_string(_current(st).get("averageValue")) if st is not None else UNKNOWN
        return f"{current}/{quantity_string(((spec.get('pods') or {}).get('target') or {}).get('averageValue'))}"
    if type_ in ("Resource", "ContainerResource"):
        key = "resource" if type_ == "Resource" else "containerResource"
        src = spec.get(key) or {}
        target = src.get("target") or {}
        st = _source(statuses, i, key)
        name = src.get("name", "")
        if target.get("averageValue") is not None:
            current = quantity_string(_current(st).get("averageValue")) if st is not None else UNKNOWN
            return f"{name}: {current}/{quantity_string(target['averageValue'])}"
        util = target.get("averageUtilization")
        return f"{name}: {_utilization(st)}/{'<auto>' if util is None else f'{util}%'}"
    return "<unknown type>"


def format_hpa_metrics(specs: list | None, statuses: list | None) -> str:
    """formatHPAMetrics."""
    if not specs:
        return "<none>"
    statuses = statuses or []
    items = [format_metric(s if isinstance(s, dict) else {}, statuses, i) for i, s in enumerate(specs)]
    if len(items) > 2:
        return f"{', '.join(items[:2])} + {len(items) - 2} more..."
    return ", ".join(items)


def print_hpa(hpa: dict, ctx: PrintContext) -> list[str]:
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    min_pods = spec.get("minReplicas")
    return [object_meta(hpa).get("name", ""), f"{ref.get('kind', '')}/{ref.get('name', '')}",
            format_hpa_metrics(spec.get("metrics"), status.get("currentMetrics")),
            "<unset>" if min_pods is None else str(min_pods), str(spec.get("maxReplicas") or 0),
            str(status.get("currentReplicas") or 0), age(hpa, ctx)]
