"""The replica calculator of the horizontal pod autoscaler: from the pods and their metrics, the
replica count a resource (or a plain per-pod) metric proposes, leaving out unready, missing,
failed and deleted pods as upstream does.

Upstream (v1.35): pkg/controller/podautoscaler/replica_calculator.go (``Tolerances``,
``GetResourceReplicas``, ``calcPlainMetricReplicas``, ``groupPods``, ``calculateRequests``,
``calculatePodRequestsFromContainers``), metrics/utilization.go
(``GetResourceUtilizationRatio``, ``GetMetricUsageRatio``) and metrics/client.go
(``getPodMetrics``, ``getContainerMetrics``); kube-controller-manager's defaults for the
tolerance (0.1), the CPU initialization period (5 min) and the initial readiness delay (30 s).
Pod-level requests (PodLevelResources) are not modelled: requests come from the containers.
Pure functions of (pods, metrics, now); a metric is (milli-value, timestamp, window seconds).
"""

from __future__ import annotations

import math

from kubesim.api.meta.helpers import meta
from kubesim.clock import parse_time
from kubesim.controllers.base import pod_condition

TOLERANCE = 0.1
CPU_INITIALIZATION_PERIOD = 300.0
DELAY_OF_INITIAL_READINESS_STATUS = 30.0


class MetricError(Exception):
    """A metric that could not be computed: its condition's reason, the error as
    computeReplicasForMetric returns it (``str``) and as the metric's own event and condition
    word it (``inner``)."""

    def __init__(self, reason: str, message: str, inner: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.inner = message if inner is None else inner


class Tolerances:
    def __init__(self, down: float = TOLERANCE, up: float = TOLERANCE):
        self.down, self.up = down, up

    def is_within(self, ratio: float) -> bool:
        return (1.0 - self.down) <= ratio <= (1.0 + self.up)


def group_pods(pods: list[dict], metrics: dict, resource: str, now: float) -> tuple[int, set, set, set]:
    """groupPods: (ready count, unready, missing, ignored) pod names."""
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name = meta(pod).get("name", "")
        status = pod.get("status") or {}
        if meta(pod).get("deletionTimestamp") or status.get("phase") == "Failed":
            ignored.add(name)
            continue
        if status.get("phase") == "Pending":
            unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            missing.add(name)
            continue
        if resource == "cpu":
            cond = pod_condition(pod, "Ready")
            start = parse_time(status["startTime"]) if status.get("startTime") else None
            if cond is None or start is None:
                is_unready = True
            else:
                transition = parse_time(cond["lastTransitionTime"]) if cond.get("lastTransitionTime") else 0.0
                if start + CPU_INITIALIZATION_PERIOD > now:
                    is_unready = cond.get("status") == "False" or metric[1] < transition + metric[2]
                else:
                    is_unready = cond.get("status") == "False" and start + DELAY_OF_INITIAL_READINESS_STATUS > transition
            if is_unready:
                unready.add(name)
                continue
        ready += 1
    return ready, unready, missing, ignored


def milli(q) -> int:
    from kubesim.api.quantity import milli_value

    return milli_value(str(q))


def calculate_requests(pods: list[dict], container: str, resource: str) -> dict[str, int]:
    """calculateRequests (from the containers; pod-level requests are not modelled): milli-units
    per pod, or the error upstream returns for a container without a request."""
    out = {}
    for pod in pods:
        spec = pod.get("spec") or {}
        containers = list(spec.get("containers") or [])
        containers += [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
        request, found = 0, False
        for c in containers:
            if container in ("", c.get("name")):
                req = ((c.get("resources") or {}).get("requests") or {}).get(resource)
                if req is None:
                    raise MetricError("", f"missing request for {resource} in container {c.get('name', '')} "
                                          f"of Pod {meta(pod).get('name', '')}")
                request += milli(req)
            if container and container == c.get("name"):
                found = True
                break
        if container and not found:
            raise MetricError("", f"container {container} not found in Pod {meta(pod).get('name', '')}")
        out[meta(pod).get("name", "")] = request
    return out


def resource_utilization_ratio(metrics: dict, requests: dict, target: int) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: (ratio, utilization %, raw average in milli-units)."""
    total = requested = entries = 0
    for name, metric in metrics.items():
        if name not in requests:
            continue
        total += metric[0]
        requested += requests[name]
        entries += 1
    if requested == 0:
        raise MetricError("", "no metrics returned matched known pods")
    utilization = (total * 100) // requested
    return utilization / target, utilization, total // entries


def resource_replicas(current: int, target_utilization: int, pods: list[dict], metrics: dict, resource: str,
                      tolerances: Tolerances, now: float, container: str = "") -> tuple[int, int, int]:
    """GetResourceReplicas after the metrics are fetched: (replicas, utilization, raw average)."""
    if not pods:
        raise MetricError("", "no pods returned by selector while calculating replica count")
    metrics = dict(metrics)
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now)
    for name in ignored | unready:
        metrics.pop(name, None)
    if not metrics:
        raise MetricError("", "did not receive metrics for targeted pods (pods might be unready)")
    requests = calculate_requests(pods, container, resource)
    ratio, utilization, raw = resource_utilization_ratio(metrics, requests, target_utilization)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if tolerances.is_within(ratio):
            return current, utilization, raw
        return math.ceil(ratio * ready), utilization, raw
    if missing:
        if ratio < 1.0:
            fallback = max(100, target_utilization)
            for name in missing:
                metrics[name] = (requests[name] * fallback // 100, now, 0.0)
        elif ratio > 1.0:
            for name in missing:
                metrics[name] = (0, now, 0.0)
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = (0, now, 0.0)
    new_ratio, _, _ = resource_utilization_ratio(metrics, requests, target_utilization)
    if tolerances.is_within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current, utilization, raw
    new_replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and new_replicas > current) or (new_ratio > 1.0 and new_replicas < current):
        return current, utilization, raw
    return new_replicas, utilization, raw


def plain_metric_replicas(current: int, target_usage: int, pods: list[dict], metrics: dict, resource: str,
                          tolerances: Tolerances, now: float) -> tuple[int, int]:
    """calcPlainMetricReplicas: (replicas, average usage in milli-units)."""
    if not pods:
        raise MetricError("", "no pods returned by selector while calculating replica count")
    metrics = dict(metrics)
    ready, unready, missing, ignored = group_pods(pods, metrics, resource, now)
    for name in ignored | unready:
        metrics.pop(name, None)
    if not metrics:
        raise MetricError("", "did not receive metrics for targeted pods (pods might be unready)")

    def ratio_of(ms):
        usage = sum(m[0] for m in ms.values()) // len(ms)
        return usage / target_usage, usage

    ratio, usage = ratio_of(metrics)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if tolerances.is_within(ratio):
            return current, usage
        return math.ceil(ratio * ready), usage
    if missing:
        for name in missing:
            metrics[name] = (target_usage if ratio < 1.0 else 0, now, 0.0)
        if ratio == 1.0:
            for name in missing:
                metrics.pop(name, None)
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = (0, now, 0.0)
    new_ratio, _ = ratio_of(metrics)
    if tolerances.is_within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current, usage
    new_replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and new_replicas > current) or (new_ratio > 1.0 and new_replicas < current):
        return current, usage
    return new_replicas, usage


def pod_resource_metrics(pod_metrics: list[dict], resource: str, container: str = "") -> dict:
    """metrics/client.go getPodMetrics / getContainerMetrics: pod name -> (milli-value,
    timestamp, window seconds)."""
    out = {}
    for m in pod_metrics:
        ts = parse_time(m["timestamp"]) if m.get("timestamp") else 0.0
        window = float(str(m.get("window", "0s")).rstrip("s") or 0)
        total, missing = 0, not m.get("containers")
        for c in m.get("containers") or ():
            if container and c.get("name") != container:
                continue
            usage = (c.get("usage") or {}).get(resource)
            if usage is None:
                missing = True
                break
            total += milli(usage)
            if container:
                break
        else:
            if container and not any(c.get("name") == container for c in m.get("containers") or ()):
                missing = True
        if not missing:
            out[meta(m).get("name", "")] = (total, ts, window)
    return out
