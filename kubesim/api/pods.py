"""Pod helpers: QoS class.

Upstream: pkg/apis/core/helper/qos/qos.go (GetPodQOS / ComputePodQOS): only cpu and memory
count; a pod with no requests or limits at all is BestEffort; it is Guaranteed when every
container (init containers included) sets limits for both cpu and memory and its requests, where
given, equal them; anything else is Burstable. Pod-level resources, when set, decide instead.
"""

from __future__ import annotations

_QOS_RESOURCES = ("cpu", "memory")


def _is_zero(q) -> bool:
    from kubesim.api.quantity import parse_quantity

    try:
        return parse_quantity(q) == 0
    except ValueError:
        return False


def qos_class(pod: dict) -> str:
    from kubesim.api.quantity import parse_quantity

    spec = pod.get("spec") or {}
    pod_res = spec.get("resources")
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    sources = [pod_res] if pod_res else [c.get("resources") or {} for c in containers]
    requests: dict = {}
    limits: dict = {}
    guaranteed = True
    for res in sources:
        for name, q in (res.get("requests") or {}).items():
            if name in _QOS_RESOURCES and not _is_zero(q):
                requests[name] = requests.get(name, 0) + parse_quantity(q)
        c_limits = {}
        for name, q in (res.get("limits") or {}).items():
            if name in _QOS_RESOURCES and not _is_zero(q):
                c_limits[name] = parse_quantity(q)
                limits[name] = limits.get(name, 0) + c_limits[name]
        if set(c_limits) != set(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for name, v in requests.items():
            if limits.get(name) != v:
                guaranteed = False
                break
    return "Guaranteed" if guaranteed and len(limits) == len(_QOS_RESOURCES) else "Burstable"
