"""kubectl autoscale's HorizontalPodAutoscalers, as the typed objects kubectl builds them.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/autoscale/autoscale.go (kubectl 1.36:
``createHorizontalPodAutoscalerV2``: minReplicas only when ``--min`` > 0, a CPU utilization
metric for ``--cpu-percent`` > 0, then ``--cpu`` and ``--memory`` as a utilization (``70%``) or an
average value (``500m``; a bare number is milliCPU or MiB), no metrics when none is given;
``createHorizontalPodAutoscalerV1``, the fallback for a CPU utilization target;
``parseResourceInput``, ``parsePercentage``). Fields are in Go struct order, for ``-o json``.
"""

from __future__ import annotations

import re

UTILIZATION = "Utilization"
AVERAGE_VALUE = "AverageValue"
_DEFAULT_UNIT = {"cpu": "m", "memory": "Mi"}
_GO_FLOAT = re.compile(r"[+-]?(?:(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?|[iI][nN][fF](?:inity)?|[nN]a[nN])")


class InputError(ValueError):
    """parseResourceInput's error, in its words."""


def _go_g(v: float) -> str:
    """fmt's %g of a float64: the shortest representation, exponent from 21 digits."""
    if v == int(v) and abs(v) < 1e21:
        return str(int(v))
    r = repr(v)
    if "e" in r:
        mant, exp = r.split("e")
        sign = "-" if exp.startswith("-") else "+"
        exp = exp.lstrip("+-").lstrip("0").rjust(2, "0")
        return f"{mant}e{sign}{exp}"
    return r


def parse_percentage(text: str) -> tuple[int, bool]:
    """parsePercentage: (value, is_percent); InputError for a percentage that is no int32 >= 0."""
    if not text.endswith("%"):
        return 0, False
    trimmed = text[:-1]
    try:
        value = int(trimmed, 10) if re.fullmatch(r"[+-]?\d+", trimmed) else None
    except ValueError:
        value = None
    if value is None or value < 0 or value > 2**31 - 1:
        raise InputError(f"invalid percentage value: {trimmed}")
    return value, True


def parse_resource_input(text: str, resource: str) -> tuple[str | None, int, str]:
    """parseResourceInput: (quantity, utilization, metric target type)."""
    from kubesim.api.quantity import canonical

    text = text.strip()
    if not text:
        raise InputError("empty input")
    value, is_percent = parse_percentage(text)
    if is_percent:
        return None, value, UTILIZATION
    if _GO_FLOAT.fullmatch(text) and "_" not in text:
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None:
            with_unit = f"{_go_g(number)}{_DEFAULT_UNIT[resource]}"
            try:
                return canonical(with_unit), 0, AVERAGE_VALUE
            except ValueError as e:
                raise InputError(str(e)) from None
    try:
        return canonical(text), 0, AVERAGE_VALUE
    except ValueError:
        raise InputError(f"invalid resource {resource} value: {text}") from None


def _resource_metric(name: str, type_: str, utilization: int | None = None, value: str | None = None) -> dict:
    target: dict = {"type": type_}
    if value is not None:
        target["averageValue"] = value
    if utilization is not None:
        target["averageUtilization"] = utilization
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def _meta(name: str, namespace: str | None) -> dict:
    md = {"name": name}
    if namespace:
        md["namespace"] = namespace
    return md


def _ref(target_api_version: str, target_kind: str, target_name: str) -> dict:
    return {"kind": target_kind, "name": target_name, "apiVersion": target_api_version}


def horizontal_pod_autoscaler_v2(name: str, target_api_version: str, target_kind: str, target_name: str, *,
                                 min_replicas: int = -1, max_replicas: int, cpu_percent: int = -1, cpu: str = "",
                                 memory: str = "", namespace: str | None = None) -> dict:
    """createHorizontalPodAutoscalerV2."""
    spec: dict = {"scaleTargetRef": _ref(target_api_version, target_kind, target_name)}
    if min_replicas > 0:
        spec["minReplicas"] = min_replicas
    spec["maxReplicas"] = max_replicas
    metrics = []
    if cpu_percent > 0:
        metrics.append(_resource_metric("cpu", UTILIZATION, utilization=cpu_percent))
    for resource, text in (("cpu", cpu), ("memory", memory)):
        if text:
            quantity, value, type_ = parse_resource_input(text, resource)
            if type_ == UTILIZATION:
                metrics.append(_resource_metric(resource, type_, utilization=value))
            else:
                metrics.append(_resource_metric(resource, type_, value=quantity))
    if metrics:
        spec["metrics"] = metrics
    return {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2", "metadata": _meta(name, namespace),
            "spec": spec, "status": {"desiredReplicas": 0, "currentMetrics": None}}


def can_create_v1(cpu_percent: int, cpu: str, memory: str) -> tuple[bool, str | None]:
    """canCreateHPAV1: (whether the v1 fallback may be tried, the parse error)."""
    try:
        _, _, type_ = parse_resource_input(cpu, "cpu")
    except InputError as e:
        return False, str(e)
    return (cpu_percent >= 0 and memory == "") or (memory == "" and type_ == UTILIZATION), None


def horizontal_pod_autoscaler_v1(name: str, target_api_version: str, target_kind: str, target_name: str, *,
                                 min_replicas: int = -1, max_replicas: int, cpu_percent: int = -1,
                                 namespace: str | None = None) -> dict:
    """createHorizontalPodAutoscalerV1."""
    spec: dict = {"scaleTargetRef": _ref(target_api_version, target_kind, target_name)}
    if min_replicas > 0:
        spec["minReplicas"] = min_replicas
    spec["maxReplicas"] = max_replicas
    if cpu_percent >= 0:
        spec["targetCPUUtilizationPercentage"] = cpu_percent
    return {"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v1", "metadata": _meta(name, namespace),
            "spec": spec, "status": {"currentReplicas": 0, "desiredReplicas": 0}}
