"""Pod helpers: QoS class, toleration of taints, and the pod's resource requests and limits.

Upstream: pkg/apis/core/helper/qos/qos.go (ComputePodQOS). Only cpu and memory count; a pod
with no requests or limits at all is BestEffort; it is Guaranteed when every container (init
containers included) sets limits for both cpu and memory and the requests, where given, equal
them; anything else is Burstable. Pod-level resources, when set, decide instead.

k8s.io/api/core/v1/toleration.go (``Toleration.ToleratesTaint``).

k8s.io/component-helpers/resource/helpers.go (``PodRequests``, ``PodLimits`` with default
options, pod-level resources on as in v1.35): the containers summed; each restartable init
container (sidecar) added to that sum; the result raised to the largest init-container step,
where a regular init container's step is its own resources plus the sidecars started before it
and a sidecar's is the sidecars so far (``AggregateContainerRequests``/``Limits``); then the
pod-level cpu, memory and hugepages, when the pod sets any, replace the aggregate; then the
overhead is added (to limits only where the limit is there and non-zero). The kubelet's
admission and ``describe node`` use these; the scheduler keeps its own integer fast path
(``kubesim.scheduler.framework.nodeinfo``), and tests/api/test_pods.py checks the two agree.
"""

from __future__ import annotations

# core.MirrorPodAnnotationKey: the kubelet's mirror of a static pod carries it
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubesim.api.quantity import Quantity


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


# --- requests and limits (component-helpers/resource) ----------------------------------------


def _quantity(v) -> Quantity:
    """ParseQuantity of a stored value; a value that does not parse (which validation keeps out
    of the store) counts as zero."""
    from kubesim.api import quantity

    try:
        return quantity.parse(v)
    except (ValueError, TypeError):
        return quantity.Quantity()


def _resource_list(resources: dict | None) -> dict[str, Quantity]:
    return {name: _quantity(q) for name, q in (resources or {}).items()}


def add_resource_list(into: dict[str, Quantity], new: dict[str, Quantity]) -> None:
    """addResourceList."""
    for name, q in new.items():
        into[name] = into[name].add(q) if name in into else q


def _max_list(into: dict[str, Quantity], new: dict[str, Quantity]) -> None:
    """maxResourceList."""
    for name, q in new.items():
        if name not in into or q.value > into[name].value:
            into[name] = q


def is_supported_pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and hugepages-*."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _aggregate_containers(spec: dict, which: str) -> dict[str, Quantity]:
    """AggregateContainerRequests / AggregateContainerLimits (``which``: requests or limits)."""
    result: dict[str, Quantity] = {}
    for c in spec.get("containers") or ():
        add_resource_list(result, _resource_list((c.get("resources") or {}).get(which)))
    sidecars: dict[str, Quantity] = {}
    init_max: dict[str, Quantity] = {}
    for c in spec.get("initContainers") or ():
        res = _resource_list((c.get("resources") or {}).get(which))
        if c.get("restartPolicy") == "Always":
            add_resource_list(result, res)
            add_resource_list(sidecars, res)
            res = dict(sidecars)
        else:
            combined: dict[str, Quantity] = {}
            add_resource_list(combined, res)
            add_resource_list(combined, sidecars)
            res = combined
        _max_list(init_max, res)
    _max_list(result, init_max)
    return result


def pod_requests(pod: dict) -> dict[str, Quantity]:
    """resourcehelper.PodRequests: the pod's effective requests, by resource name, as
    :class:`~kubesim.api.quantity.Quantity` (``.value`` is the exact Fraction; ``str()`` is
    what kubectl prints)."""
    spec = pod.get("spec") or {}
    reqs = _aggregate_containers(spec, "requests")
    pod_level = (spec.get("resources") or {}).get("requests") or {}
    if any(is_supported_pod_level_resource(n) for n in pod_level):
        for name, q in pod_level.items():
            if is_supported_pod_level_resource(name):
                reqs[name] = _quantity(q)
    add_resource_list(reqs, _resource_list(spec.get("overhead")))
    return reqs


def pod_limits(pod: dict) -> dict[str, Quantity]:
    """resourcehelper.PodLimits (overhead only added to limits that are there and non-zero)."""
    spec = pod.get("spec") or {}
    limits = _aggregate_containers(spec, "limits")
    pod_res = spec.get("resources") or {}
    if any(is_supported_pod_level_resource(n) for n in {**(pod_res.get("requests") or {}),
                                                         **(pod_res.get("limits") or {})}):
        for name, q in (pod_res.get("limits") or {}).items():
            if is_supported_pod_level_resource(name):
                limits[name] = _quantity(q)
    for name, q in _resource_list(spec.get("overhead")).items():
        if name in limits and limits[name].value != 0:
            limits[name] = limits[name].add(q)
    return limits


def has_ephemeral_volumes(pod: dict | None) -> bool:
    """Whether some volume of the pod is a generic ephemeral volume (the ephemeral volume
    controller's enqueuePod test)."""
    return any(isinstance(v, dict) and v.get("ephemeral") is not None
               for v in ((pod or {}).get("spec") or {}).get("volumes") or ())
