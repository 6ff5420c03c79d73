"""Pod helpers: QoS class, toleration of taints, generic ephemeral volumes.

Upstream: pkg/apis/core/helper/qos/qos.go (ComputePodQOS). Only cpu and memory count; a pod
with no requests or limits at all is BestEffort; it is Guaranteed when every container (init
containers included) sets limits for both cpu and memory and the requests, where given, equal
them; anything else is Burstable. Pod-level resources, when set, decide instead.

k8s.io/api/core/v1/toleration.go (``Toleration.ToleratesTaint``).

A pod's resource requests and limits are computed in :mod:`kubesim.api.resource`.
"""

from __future__ import annotations

# core.MirrorPodAnnotationKey: the kubelet's mirror of a static pod carries it
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"


def is_mirror_pod(pod: dict) -> bool:
    """The kubelet's mirror of a static pod (core/v1 helper IsMirrorPod)."""
    return bool(((pod.get("metadata") or {}).get("annotations") or {}).get(MIRROR_POD_ANNOTATION))


def qos_class(pod: dict) -> str:
    """ComputePodQOS (pkg/apis/core/helper/qos/qos.go): Guaranteed, Burstable or BestEffort.

    Only cpu and memory count, zero quantities are ignored, init containers count, and pod-level
    ``spec.resources`` (PodLevelResources, on in v1.35) replaces the containers when present."""
    from kubesim.api.quantity import parse_quantity

    spec = pod.get("spec") or {}
    pod_level = isinstance(spec.get("resources"), dict)
    if pod_level:
        groups = [spec["resources"]]
    else:
        groups = [(c.get("resources") or {}) for key in ("containers", "initContainers")
                  for c in spec.get(key) or () if isinstance(c, dict)]
    requests: dict = {}
    limits: dict = {}
    guaranteed = True

    def positive(rl) -> dict:
        out = {}
        for name, q in (rl or {}).items() if isinstance(rl, dict) else ():
            if name in ("cpu", "memory"):
                try:
                    v = parse_quantity(q)
                except ValueError:
                    continue
                if v > 0:
                    out[name] = v
        return out

    for res in groups:
        for name, v in positive(res.get("requests")).items():
            requests[name] = requests.get(name, 0) + v
        if pod_level and not res.get("limits"):
            continue
        found = positive(res.get("limits"))
        for name, v in found.items():
            limits[name] = limits.get(name, 0) + v
        if set(found) != {"cpu", "memory"}:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for name, req in requests.items():
            if limits.get(name) != req:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def tolerates(toleration: dict, taint: dict) -> bool:
    """v1.Toleration.ToleratesTaint: the effect and key match when the toleration sets them;
    operator Exists matches any value, Equal (or none) the same value, any other nothing."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def has_ephemeral_volumes(pod: dict | None) -> bool:
    """Whether some volume of the pod is a generic ephemeral volume (the ephemeral volume
    controller's enqueuePod test)."""
    return any(isinstance(v, dict) and v.get("ephemeral") is not None
               for v in ((pod or {}).get("spec") or {}).get("volumes") or ())
