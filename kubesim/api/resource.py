"""A pod's effective resource requests and limits: kubesim's one ``PodRequests`` / ``PodLimits``.

Upstream: staging/src/k8s.io/component-helpers/resource/helpers.go (v1.35), which the
scheduler, the kubelet and kubectl's ``describe`` all call:

* ``AggregateContainerRequests`` / ``AggregateContainerLimits``: the containers summed; each
  restartable init container (sidecar) added to that sum; the result raised to the largest
  init-container step, where a regular init container's step is its own resources plus the
  sidecars started before it and a sidecar's is the sidecars so far.
  ``NonMissingContainerRequests`` fills each container's missing requests (not the ones set,
  even to zero) with the given values first. With ``UseStatusResources`` (in-place resize) the
  requests are the larger of the spec's, the actuated (``containerStatuses[].resources``, else
  ``allocatedResources``) and the allocated (``allocatedResources``) aggregates, the spec left
  out while a resize is ``Infeasible``; limits likewise from the actuated limits.
* ``PodRequests``: then the pod-level cpu, memory and hugepages requests, when the pod sets any
  (``IsPodLevelRequestsSet``), replace the aggregate's (unless ``SkipPodLevelResources``); then
  the overhead is added (unless ``ExcludeOverhead``).
* ``PodLimits``: the pod-level limits replace the aggregate's when any pod-level resource is set
  (``IsPodLevelResourcesSet``); the overhead is added only to limits that are there and non-zero.

Who calls it: the scheduler (``PodInfo``'s ``CalculateResource``, NodeResourcesFit's
``computePodResourceRequest``, the resource scorers' ``calculatePodResourceRequest``), the
kubelet's admission (``Fits``) and ``describe node`` (the pods' and the node's "Allocated
resources" requests and limits).

One computation, several number representations (:class:`Amounts`): by default the amounts are
:class:`~kubesim.api.quantity.Quantity` values, so ``str()`` prints what kubectl prints (a
quantity that does not parse, which validation keeps out of the store, counts as zero);
:data:`EXACT` reads exact ``Fraction`` values (a bad quantity raises ``ValueError``); the
scheduler passes its own integer amounts (millicores for cpu, units otherwise) for its hot path.
``NonMissingContainerRequests`` values are given in the amounts' representation.

Where kubesim differs: ``UseStatusResources`` looks at the status only when the pod has
container statuses (a pod without any is computed from its spec, even with an Infeasible resize
condition, which cannot arise without running containers); pod-level status resources
(``InPlacePodLevelResourcesVerticalScaling``, alpha) and DRA node-allocatable claims
(``UseDRANodeAllocatableResourceClaimStatus``) are not modelled, nor is ``Reuse``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from kubesim.api import quantity as _quantity
from kubesim.api.quantity import Quantity, parse_quantity
from kubesim.api.record import FrozenRecord

CPU = "cpu"
MEMORY = "memory"
HUGEPAGES_PREFIX = "hugepages-"

ResourceList = dict  # resource name -> amount (a Quantity, unless other Amounts are passed)


class PodResourcesOptions(FrozenRecord):
    """``PodResourcesOptions``: how :func:`pod_requests` / :func:`pod_limits` compute."""

    __slots__ = ("exclude_overhead", "non_missing_container_requests", "skip_pod_level_resources",
                 "use_status_resources")

    def __init__(self, use_status_resources: bool = False, exclude_overhead: bool = False,
                 non_missing_container_requests: Mapping[str, Any] | None = None,
                 skip_pod_level_resources: bool = False):
        self.use_status_resources = use_status_resources
        self.exclude_overhead = exclude_overhead
        # Values for each container's missing requests, in the amounts' representation.
        self.non_missing_container_requests = non_missing_container_requests
        self.skip_pod_level_resources = skip_pod_level_resources


DEFAULT_OPTIONS = PodResourcesOptions()


class Amounts(NamedTuple):
    """How quantities are read and combined: ``read(name, manifest value)``, ``add(a, b)``
    (``Quantity.Add``), ``greater(a, b)`` (``Cmp(a, b) > 0``) and ``is_zero(a)``."""

    read: Callable[[str, Any], Any]
    add: Callable[[Any, Any], Any]
    greater: Callable[[Any, Any], bool]
    is_zero: Callable[[Any], bool]


def _read_quantity(name: str, v) -> Quantity:
    """ParseQuantity of a stored value; one that does not parse counts as zero."""
    try:
        return _quantity.parse(v)
    except (ValueError, TypeError):
        return Quantity()


def _read_exact(name: str, v):
    return parse_quantity(v)


QUANTITIES = Amounts(_read_quantity, Quantity.add, lambda a, b: a.value > b.value,
                     lambda a: a.value == 0)
EXACT = Amounts(_read_exact, operator.add, operator.gt, operator.not_)


# -- pod-level resources -------------------------------------------------------------------
def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name == CPU or name == MEMORY or name.startswith(HUGEPAGES_PREFIX)


def _any_supported(rl) -> bool:
    return bool(rl) and any(is_supported_pod_level_resource(k) for k in rl)


def is_pod_level_requests_set(pod: dict) -> bool:
    """``IsPodLevelRequestsSet``."""
    return _any_supported((((pod.get("spec") or {}).get("resources")) or {}).get("requests"))


def is_pod_level_resources_set(pod: dict) -> bool:
    """``IsPodLevelResourcesSet``: pod-level requests or limits of a supported resource."""
    res = ((pod.get("spec") or {}).get("resources")) or {}
    return _any_supported(res.get("requests")) or _any_supported(res.get("limits"))


def is_pod_resize_infeasible(pod: dict) -> bool:
    """``IsPodResizeInfeasible``: the PodResizePending condition says Infeasible."""
    return _resize_infeasible(pod.get("status") or {})


def _resize_infeasible(status: dict) -> bool:
    for c in status.get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return c.get("reason") == "Infeasible"
    return False


# -- resource lists ------------------------------------------------------------------------
def add_resource_list(into: ResourceList, new: ResourceList, amounts: Amounts = QUANTITIES) -> None:
    """``addResourceList``: ``into`` += ``new``, resource by resource."""
    add = amounts.add
    for name, q in new.items():
        into[name] = add(into[name], q) if name in into else q


def max_resource_list(into: ResourceList, new: ResourceList, amounts: Amounts = QUANTITIES
                      ) -> None:
    """``maxResourceList``: ``into`` raised to ``new``, resource by resource."""
    greater = amounts.greater
    for name, q in new.items():
        if name not in into or greater(q, into[name]):
            into[name] = q


# -- the aggregate over containers ---------------------------------------------------------
def _spec_requests(c: dict, cs: dict | None, infeasible: bool):
    """``containerSpecRequests``."""
    res = c.get("resources")
    return res.get("requests") if res else None


def _allocated_requests(c: dict, cs: dict | None, infeasible: bool):
    """``containerAllocatedRequests``."""
    if cs is not None and cs.get("allocatedResources") is not None:
        return cs["allocatedResources"]
    return None if infeasible else _spec_requests(c, cs, infeasible)


def _actuated_requests(c: dict, cs: dict | None, infeasible: bool):
    """``containerActuatedRequests``."""
    if cs is not None:
        r = (cs.get("resources") or {}).get("requests")
        if r is not None:
            return r
        if cs.get("allocatedResources") is not None:
            return cs["allocatedResources"]
    return None if infeasible else _spec_requests(c, cs, infeasible)


def _spec_limits(c: dict, cs: dict | None, infeasible: bool):
    """``containerSpecLimits``."""
    res = c.get("resources")
    return res.get("limits") if res else None


def _actuated_limits(c: dict, cs: dict | None, infeasible: bool):
    """``containerActuatedLimits``."""
    if cs is not None:
        r = (cs.get("resources") or {}).get("limits")
        if r is not None:
            return r
    return None if infeasible else _spec_limits(c, cs, infeasible)


def _container_status_index(status: dict) -> dict[str, dict]:
    """``findContainerStatus`` for every name: a container status before an init one."""
    idx: dict[str, dict] = {}
    for cs in (status.get("initContainerStatuses") or ()):
        idx.setdefault(cs.get("name", ""), cs)
    for cs in (status.get("containerStatuses") or ()):
        idx[cs.get("name", "")] = cs
    return idx


def _aggregate(spec: dict, which: str, pick, idx: dict | None, infeasible: bool, non_missing,
               amounts: Amounts) -> ResourceList:
    """``aggregateContainerResourcesByFn``: each container's ``which`` (requests or limits) from
    its spec, or, with ``pick(container, its status, infeasible)``, from its status; read with
    ``amounts``."""
    read, add = amounts.read, amounts.add
    result: ResourceList = {}
    for c in spec.get("containers") or ():
        if pick is None:
            res = c.get("resources")
            rl = res.get(which) if res else None
        else:
            rl = pick(c, idx.get(c.get("name", "")) if idx else None, infeasible)
        if rl:
            for k, v in rl.items():
                x = read(k, v)
                result[k] = add(result[k], x) if k in result else x
        if non_missing:  # applyNonMissing
            for k, v in non_missing.items():
                if not rl or k not in rl:
                    result[k] = add(result[k], v) if k in result else v
    inits = spec.get("initContainers")
    if not inits:
        return result
    restartable: ResourceList = {}
    init_max: ResourceList = {}
    for c in inits:
        if pick is None:
            rl = (c.get("resources") or {}).get(which)
        else:
            rl = pick(c, idx.get(c.get("name", "")) if idx else None, infeasible)
        reqs = {k: read(k, v) for k, v in rl.items()} if rl else {}
        if non_missing:
            for k, v in non_missing.items():
                if k not in reqs:
                    reqs[k] = v
        if c.get("restartPolicy") == "Always":
            add_resource_list(result, reqs, amounts)
            add_resource_list(restartable, reqs, amounts)
            use = restartable
        else:
            use = dict(reqs)
            add_resource_list(use, restartable, amounts)
        max_resource_list(init_max, use, amounts)
    max_resource_list(result, init_max, amounts)
    return result


def _same_list(a: dict | None, b: dict | None) -> bool:
    """Whether two manifest lists certainly hold the same quantities (equal, and values that
    are not strings of the same type: ``1 == True`` but only one is a quantity); False when
    unsure."""
    if not a:
        return not b
    if not b or a != b:
        return False
    for k, v in a.items():
        if type(v) is not str and type(b[k]) is not type(v):
            return False
    return True


def _status_is_spec(spec: dict, status: dict, which: str) -> bool:
    """Whether the status certainly plays no part: no infeasible resize, and every container
    status's allocated and actuated ``which`` (where present) are the container's spec ones.
    Then the allocated and actuated aggregates are the spec aggregate, and their maximum with
    it is the spec aggregate itself (a shortcut, not a different rule)."""
    containers = spec.get("containers") or ()
    statuses = status.get("containerStatuses")
    if (len(containers) == 1 and statuses and len(statuses) == 1 and not spec.get("initContainers")
            and not status.get("initContainerStatuses")):
        # one container, one status: _container_status_index without the dict
        c = containers[0]
        cs = statuses[0]
        pairs: Any = ((c, cs),) if cs.get("name", "") == c.get("name", "") else ()
    else:
        idx = _container_status_index(status)
        pairs = [(c, idx.get(c.get("name", ""))) for cl in (containers, spec.get("initContainers"))
                 for c in cl or ()]
    requests = which == "requests"
    for c, cs in pairs:
        if cs is None:
            continue
        res = c.get("resources")
        want = res.get(which) if res else None
        if requests:
            a = cs.get("allocatedResources")
            if a is not None and a is not want and not _same_list(a, want):
                return False
        res = cs.get("resources")
        r = res.get(which) if res else None
        if r is not None and r is not want and not _same_list(r, want):
            return False
    return not _resize_infeasible(status)


def _with_status(pod: dict, spec: dict, result: ResourceList, which: str, pickers: tuple,
                 non_missing, amounts: Amounts) -> ResourceList:
    """The ``UseStatusResources`` part of the aggregates: ``result`` (the spec's aggregate)
    raised to the aggregates ``pickers`` read from the container statuses."""
    status = pod.get("status")
    if not status or not (status.get("containerStatuses")
                          or status.get("initContainerStatuses")) \
            or _status_is_spec(spec, status, which):
        return result
    idx = _container_status_index(status)
    infeasible = _resize_infeasible(status)
    merged: ResourceList = {} if infeasible else result
    for pick in pickers:
        max_resource_list(merged, _aggregate(spec, which, pick, idx, infeasible, non_missing,
                                             amounts), amounts)
    return merged


def status_resources_matter(pod: dict) -> bool:
    """Whether ``UseStatusResources`` can change the pod's requests: it has container statuses
    and they report allocated or actuated requests other than the spec's, or a resize is
    Infeasible. When False, :func:`pod_requests` gives the same with and without it."""
    status = pod.get("status")
    if not status or not (status.get("containerStatuses") or status.get("initContainerStatuses")):
        return False
    return not _status_is_spec(pod.get("spec") or {}, status, "requests")


_REQUESTS_FROM_STATUS = (_actuated_requests, _allocated_requests)
_LIMITS_FROM_STATUS = (_actuated_limits,)


def aggregate_container_requests(pod: dict, opts: PodResourcesOptions = DEFAULT_OPTIONS,
                                 amounts: Amounts = QUANTITIES) -> ResourceList:
    """``AggregateContainerRequests``."""
    spec = pod.get("spec") or {}
    nm = opts.non_missing_container_requests
    result = _aggregate(spec, "requests", None, None, False, nm, amounts)
    if opts.use_status_resources:
        return _with_status(pod, spec, result, "requests", _REQUESTS_FROM_STATUS, nm, amounts)
    return result


def aggregate_container_limits(pod: dict, opts: PodResourcesOptions = DEFAULT_OPTIONS,
                               amounts: Amounts = QUANTITIES) -> ResourceList:
    """``AggregateContainerLimits`` (``NonMissingContainerRequests`` does not apply)."""
    spec = pod.get("spec") or {}
    result = _aggregate(spec, "limits", None, None, False, None, amounts)
    if opts.use_status_resources:
        return _with_status(pod, spec, result, "limits", _LIMITS_FROM_STATUS, None, amounts)
    return result


# -- PodRequests / PodLimits ---------------------------------------------------------------
def pod_requests(pod: dict, opts: PodResourcesOptions = DEFAULT_OPTIONS,
                 amounts: Amounts = QUANTITIES) -> ResourceList:
    """``PodRequests``: the pod's effective requests by resource name."""
    reqs = aggregate_container_requests(pod, opts, amounts)
    spec = pod.get("spec") or {}
    if not opts.skip_pod_level_resources:
        res = spec.get("resources")
        pod_level = res.get("requests") if res else None
        if _any_supported(pod_level):  # IsPodLevelRequestsSet
            read = amounts.read
            for name, q in pod_level.items():
                if is_supported_pod_level_resource(name):
                    reqs[name] = read(name, q)
    if not opts.exclude_overhead:
        overhead = spec.get("overhead")
        if overhead:
            read = amounts.read
            add_resource_list(reqs, {k: read(k, v) for k, v in overhead.items()}, amounts)
    return reqs


def pod_limits(pod: dict, opts: PodResourcesOptions = DEFAULT_OPTIONS,
               amounts: Amounts = QUANTITIES) -> ResourceList:
    """``PodLimits``: the pod's effective limits by resource name."""
    limits = aggregate_container_limits(pod, opts, amounts)
    spec = pod.get("spec") or {}
    read = amounts.read
    if not opts.skip_pod_level_resources and is_pod_level_resources_set(pod):
        for name, q in ((spec.get("resources") or {}).get("limits") or {}).items():
            if is_supported_pod_level_resource(name):
                limits[name] = read(name, q)
    if not opts.exclude_overhead:
        add, is_zero = amounts.add, amounts.is_zero
        for name, q in (spec.get("overhead") or {}).items():
            if name in limits and not is_zero(limits[name]):
                limits[name] = add(limits[name], read(name, q))
    return limits
