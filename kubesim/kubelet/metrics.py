"""Simulated resource usage, as the kubelet's resource metrics endpoint (``/metrics/resource``)
reports it and metrics-server serves it (``metrics.k8s.io/v1beta1`` NodeMetrics and PodMetrics).

kubesim has no containers, so usage is derived from each running container's spec and the pod's
``kubesim.io/behaviour`` annotation (kubesim.kubelet.overrides):

- by default a container uses :data:`REQUEST_FRACTION` (80 %) of its request; with no request, a
  small idle figure for its image (:data:`IDLE`, else :data:`DEFAULT_IDLE`);
- ``{"app": {"cpu": "250m", "memory": "64Mi"}}`` sets a steady usage;
- ``{"app": {"load": [{"after": "2m", "cpu": "900m"}, {"after": "10m", "cpu": "50m"}]}}`` changes it
  over simulated time, each step from ``after`` its container's start (so a restarted container
  repeats its load, like the other overrides);
- CPU usage never exceeds the container's CPU limit (the CFS quota throttles it).

A container has metrics once it has run for :data:`METRIC_RESOLUTION` seconds (metrics-server's
default ``--metric-resolution``: it needs a scrape of a running container); a pod has metrics
when one of its containers has. A node has metrics once it has been Ready as long: the usage of its pods plus
a fixed system overhead (:data:`NODE_OVERHEAD_CPU_MILLI`, :data:`NODE_OVERHEAD_MEMORY`: kubelet,
container runtime, systemd).

Upstream: kubernetes-sigs/metrics-server ``pkg/api/pod.go``/``node.go`` (the objects),
``pkg/storage`` (a pod is listed only with metrics for its containers); kubernetes
``pkg/kubelet/server/stats`` (what is measured). Pure functions of (objects, now).
"""

from __future__ import annotations

from kubesim.api.quantity import cpu_milli, mem_bytes
from kubesim.clock import format_time, parse_timestamp

METRIC_RESOLUTION = 15.0
WINDOW = "15s"
REQUEST_FRACTION = 0.8
MI = 1024 * 1024
NODE_OVERHEAD_CPU_MILLI = 100
NODE_OVERHEAD_MEMORY = 512 * MI
DEFAULT_IDLE = (1, 2 * MI)
IDLE = {  # image repository -> (millicores, bytes) when the container requests nothing
    "nginx": (1, 4 * MI), "httpd": (1, 8 * MI), "redis": (2, 4 * MI), "memcached": (1, 2 * MI),
    "postgres": (3, 24 * MI), "mysql": (5, 360 * MI), "mariadb": (3, 90 * MI), "mongo": (8, 80 * MI),
    "busybox": (0, MI // 2), "alpine": (0, MI // 2), "registry.k8s.io/pause": (0, MI // 2),
    "registry.k8s.io/kube-apiserver": (40, 260 * MI), "registry.k8s.io/kube-controller-manager": (15, 55 * MI),
    "registry.k8s.io/kube-scheduler": (5, 25 * MI), "registry.k8s.io/etcd": (20, 45 * MI),
    "registry.k8s.io/coredns/coredns": (2, 15 * MI), "registry.k8s.io/kube-proxy": (1, 20 * MI),
}


def _override(pod: dict, name: str) -> dict:
    from kubesim.kubelet.overrides import pod_overrides

    ov = pod_overrides(pod)
    out = dict(ov.get("*") or {})
    out.update(ov.get(name) or {})
    return out


def _quantity(v, parse) -> int | None:
    try:
        return parse(str(v))
    except (ValueError, TypeError, ArithmeticError):
        return None


def container_usage(pod: dict, container: dict, running_for: float) -> tuple[int, int]:
    """(millicores, bytes) a container uses ``running_for`` seconds after its start."""
    from kubesim.kubelet.images import image_repository
    from kubesim.kubelet.overrides import parse_duration

    res = container.get("resources") or {}
    requests, limits = res.get("requests") or {}, res.get("limits") or {}
    idle = IDLE.get(image_repository(container.get("image") or ""), DEFAULT_IDLE)
    req_cpu = _quantity(requests["cpu"], cpu_milli) if "cpu" in requests else None
    req_mem = _quantity(requests["memory"], mem_bytes) if "memory" in requests else None
    cpu = int(req_cpu * REQUEST_FRACTION) if req_cpu is not None else idle[0]
    mem = int(req_mem * REQUEST_FRACTION) if req_mem is not None else idle[1]
    ov = _override(pod, container.get("name") or "")
    steps = [{"after": 0, **{k: ov[k] for k in ("cpu", "memory") if k in ov}}]
    load = ov.get("load")
    if isinstance(load, list):
        steps += [s for s in load if isinstance(s, dict)]
    for step in steps:
        try:
            after = parse_duration(step.get("after", 0))
        except ValueError:
            continue
        if after > running_for:
            continue
        if "cpu" in step and (v := _quantity(step["cpu"], cpu_milli)) is not None:
            cpu = v
        if "memory" in step and (v := _quantity(step["memory"], mem_bytes)) is not None:
            mem = v
    if "cpu" in limits and (lim := _quantity(limits["cpu"], cpu_milli)) is not None:
        cpu = min(cpu, lim)
    return max(cpu, 0), max(mem, 0)


def _usage(cpu_m: int, mem: int) -> dict:
    """metrics-server's encoding: CPU in nanocores, memory in Ki."""
    return {"cpu": f"{cpu_m * 1000000}n", "memory": f"{mem // 1024}Ki"}


def pod_container_usage(pod: dict, now: float) -> list[tuple[str, int, int]]:
    """[(container, millicores, bytes)] of the pod's containers that have metrics at ``now``."""
    status = pod.get("status") or {}
    if status.get("phase") != "Running" or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return []
    started = {}
    for cs in status.get("containerStatuses") or ():
        run = (cs.get("state") or {}).get("running")
        t = parse_timestamp((run or {}).get("startedAt"))
        if t is not None:
            started[cs.get("name")] = t
    out = []
    for c in (pod.get("spec") or {}).get("containers") or ():
        t = started.get(c.get("name"))
        if t is None or now - t < METRIC_RESOLUTION:
            continue
        out.append((c["name"], *container_usage(pod, c, now - t)))
    return out


def pod_metrics(pod: dict, now: float) -> dict | None:
    """The PodMetrics metrics-server serves for ``pod`` (None: it has none yet)."""
    usage = pod_container_usage(pod, now)
    if not usage:
        return None
    meta = pod["metadata"]
    md = {"name": meta["name"], "namespace": meta.get("namespace", ""), "creationTimestamp": format_time(now)}
    if meta.get("labels"):
        md["labels"] = dict(meta["labels"])
    return {"kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": md,
            "timestamp": format_time(now), "window": WINDOW,
            "containers": [{"name": n, "usage": _usage(c, m)} for n, c, m in usage]}


def node_ready(node: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (node.get("status") or {}).get("conditions") or ())


def _ready_since(node: dict) -> float | None:
    for c in (node.get("status") or {}).get("conditions") or ():
        if c.get("type") == "Ready" and c.get("status") == "True":
            return parse_timestamp(c.get("lastTransitionTime")) or 0.0
    return None


def node_metrics(node: dict, pods: list[dict], now: float) -> dict | None:
    """The NodeMetrics of ``node`` whose pods are ``pods`` (None until it has been Ready for
    METRIC_RESOLUTION seconds)."""
    since = _ready_since(node)
    if since is None or now - since < METRIC_RESOLUTION:
        return None
    cpu, mem = NODE_OVERHEAD_CPU_MILLI, NODE_OVERHEAD_MEMORY
    for p in pods:
        for _, c, m in pod_container_usage(p, now):
            cpu += c
            mem += m
    meta = node["metadata"]
    md = {"name": meta["name"], "creationTimestamp": format_time(now)}
    if meta.get("labels"):
        md["labels"] = dict(meta["labels"])
    return {"kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": md,
            "timestamp": format_time(now), "window": WINDOW, "usage": _usage(cpu, mem)}
