"""The scheduler's view of the cluster: typed per-node aggregates built once per cycle.

Upstream: pkg/scheduler/framework/types.go (``NodeInfo``, ``Resource``, ``PodInfo`` with
``CalculateResource``, ``getNonMissingContainerRequests`` and the non-zero defaults,
``NewResource``/``SetMaxResource``), staging/src/k8s.io/kube-scheduler/framework/types.go
(``HostPortInfo`` and its conflict rule around 0.0.0.0), pkg/scheduler/util/utils.go
(``GetHostPorts``: containers plus restartable init containers), pkg/scheduler/backend/cache
(image states: size from the first node reporting an image name, NumNodes = nodes having it;
the node tree that interleaves nodes zone by zone), pkg/scheduler/scheduler.go (the pod informer
ignores Succeeded and Failed pods).

A pod's requests are component-helpers' ``PodRequests``, computed by
:func:`kubesim.api.resource.pod_requests`; the scheduler reads them in its own integers
(:data:`EXACT_INTS`: cpu in millicores, everything else in units), which is exact as long as
every quantity involved is a whole number of those (``"100m"``, ``"1.5Gi"``, ``"1e3"``). A pod
with any other quantity (``"0.0001"`` cpu, ``"0.5"`` bytes) is summed exactly with ``Fraction``
and converted once, cpu to millicores and everything else to units, both rounded up
(saturating at int64), as upstream converts the summed Quantity (:func:`pod_requests_ints`).
"""

from __future__ import annotations

import gc
import operator
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Iterable, Mapping

from kubesim.api import quantity as _quantity
from kubesim.api.quantity import parse_quantity
from kubesim.api.resource import (EXACT, Amounts, PodResourcesOptions, is_pod_level_requests_set,
                                  pod_requests)

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"

# pkg/scheduler/util/pod_resources.go: what a container without a cpu/memory request counts as
# when scoring (NonZeroRequested), so that many zero-request pods do not pile onto one node.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_NON_MISSING = (CPU, MEMORY)
_NON_MISSING_DEFAULTS = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                         MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
_NON_MISSING_INTS = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}

_qty = lru_cache(maxsize=8192)(parse_quantity)


def quantity(value) -> Fraction:
    """A manifest quantity (``"100m"``, ``2``, ``"1Gi"``) as an exact number (cached)."""
    if isinstance(value, (int, str)):
        return _qty(value)
    return Fraction(parse_quantity(value))


def milli_value(q: Fraction) -> int:
    """``Quantity.MilliValue()``: rounded up (away from zero), saturating at int64."""
    if q.denominator == 1 and -9223372036854775 <= q.numerator <= 9223372036854775:
        return q.numerator * 1000
    # A whole number of millis (100m, 1.5) needs no rounding.
    m, rem = divmod(q.numerator * 1000, q.denominator)
    if rem == 0 and -9223372036854775808 <= m <= 9223372036854775807:
        return m
    return _quantity.milli_value(q)


def int_value(q: Fraction) -> int:
    """``Quantity.Value()``: rounded up (away from zero), saturating at int64."""
    if q.denominator == 1 and -9223372036854775807 <= q.numerator <= 9223372036854775807:
        return q.numerator
    return _quantity.value(q)


# -- integer views of manifest quantities, cached ---------------------------------------------
# Keyed by the manifest value itself, for ``str`` and ``int`` values only (other types, bools
# among them, compare equal to ints and are converted uncached). Bounded by clearing.
_CACHE_LIMIT = 1 << 16
_MILLI_OF: dict = {}   # value -> milli_value(quantity(value))
_UNITS_OF: dict = {}   # value -> int_value(quantity(value))
_EXACT_MILLI: dict = {}  # value -> quantity(value) in millicores, or None: not a whole number
_EXACT_UNITS: dict = {}  # value -> quantity(value) in units, or None: not a whole number
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class _Inexact(Exception):
    """A quantity that is not a whole number of millicores (cpu) or units (anything else), or
    does not parse: the integer sums cannot reproduce upstream's exact sum-then-round."""


def _remember(cache: dict, key, value):
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def milli_of(q) -> int:
    """``milli_value`` of a manifest quantity (str, number or Fraction); cached."""
    t = type(q)
    if t is str or t is int:
        v = _MILLI_OF.get(q)
        if v is None:
            v = _remember(_MILLI_OF, q, milli_value(quantity(q)))
        return v
    return milli_value(q if isinstance(q, Fraction) else quantity(q))


def units_of(q) -> int:
    """``int_value`` of a manifest quantity (str, number or Fraction); cached."""
    t = type(q)
    if t is str or t is int:
        v = _UNITS_OF.get(q)
        if v is None:
            v = _remember(_UNITS_OF, q, int_value(quantity(q)))
        return v
    return int_value(q if isinstance(q, Fraction) else quantity(q))


def _exact_of(q, cpu: bool) -> int | None:
    try:
        v = q if isinstance(q, Fraction) else quantity(q)
    except Exception:  # noqa: BLE001 - the Fraction path raises it again, in its own order
        return None
    if cpu:
        m, rem = divmod(v.numerator * 1000, v.denominator)
        return m if rem == 0 else None
    return v.numerator if v.denominator == 1 else None


def exact_int(name: str, q) -> int:
    """A request quantity as an exact int - millicores for cpu, units otherwise - or _Inexact."""
    cpu = name == CPU
    t = type(q)
    if t is str or t is int:
        cache = _EXACT_MILLI if cpu else _EXACT_UNITS
        v = cache.get(q, cache)
        if v is cache:
            v = _remember(cache, q, _exact_of(q, cpu))
    else:
        v = _exact_of(q, cpu)
    if v is None:
        raise _Inexact
    return v


def _clamp(v: int) -> int:
    """An exact sum as ``MilliValue``/``Value`` reads it: saturated at the int64 rails."""
    if _INT64_MIN <= v <= _INT64_MAX:
        return v
    return _INT64_MAX if v > 0 else _INT64_MIN


# -- resource names (pkg/apis/core/v1/helper) ---------------------------------------------------
def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    if "/" not in name or is_prefixed_native_resource(name):
        return False
    return not name.startswith("requests.")


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native and attachable-volume resources."""
    return (is_extended_resource_name(name) or is_hugepage_resource_name(name)
            or is_prefixed_native_resource(name) or name.startswith("attachable-volumes-"))


# -- Resource ---------------------------------------------------------------------------------
class Resource:
    """Integer resource amounts: millicores, bytes, pod slots and scalar resources."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, ephemeral_storage: int = 0,
                 allowed_pod_number: int = 0, scalar: dict[str, int] | None = None) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar = scalar if scalar is not None else {}

    @classmethod
    def from_list(cls, rl: dict | None) -> "Resource":
        """``NewResource``: a ResourceList (strings or exact numbers) converted."""
        r = cls()
        r.add_list(rl)
        return r

    def add_list(self, rl: dict | None) -> None:
        """``Resource.Add``."""
        if not rl:
            return
        for name, q in rl.items():
            if name == CPU:
                v = _MILLI_OF.get(q) if type(q) is str else None
                self.milli_cpu += milli_of(q) if v is None else v
                continue
            v = _UNITS_OF.get(q) if type(q) is str else None
            if v is None:
                v = units_of(q)
            if name == MEMORY:
                self.memory += v
            elif name == PODS:
                self.allowed_pod_number += v
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += v
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + v

    def set_max_list(self, rl: dict | None) -> None:
        """``Resource.SetMaxResource`` (pods are not a request and are ignored)."""
        if not rl:
            return
        for name, q in rl.items():
            if name == CPU:
                self.milli_cpu = max(self.milli_cpu, milli_of(q))
                continue
            v = units_of(q)
            if name == MEMORY:
                self.memory = max(self.memory, v)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, v)
            elif is_scalar_resource_name(name):
                self.scalar[name] = max(self.scalar.get(name, 0), v)

    def set_max_ints(self, reqs: dict[str, int]) -> None:
        """``set_max_list`` of a list already converted (cpu in millicores, the rest in units)."""
        for name, v in reqs.items():
            if name == MEMORY:
                self.memory = max(self.memory, v)
            elif name == CPU:
                self.milli_cpu = max(self.milli_cpu, v)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, v)
            elif is_scalar_resource_name(name):
                self.scalar[name] = max(self.scalar.get(name, 0), v)

    @classmethod
    def from_ints(cls, reqs: dict[str, int]) -> "Resource":
        """``from_list`` of a list already converted (cpu in millicores, the rest in units)."""
        r = cls()
        for name, v in reqs.items():
            if name == CPU:
                r.milli_cpu += v
            elif name == MEMORY:
                r.memory += v
            elif name == PODS:
                r.allowed_pod_number += v
            elif name == EPHEMERAL_STORAGE:
                r.ephemeral_storage += v
            elif is_scalar_resource_name(name):
                r.scalar[name] = r.scalar.get(name, 0) + v
        return r

    def add(self, other: "Resource", sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def is_zero(self) -> bool:
        return (self.milli_cpu == 0 and self.memory == 0 and self.ephemeral_storage == 0
                and not self.scalar)

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage,
                        self.allowed_pod_number, dict(self.scalar))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number,
                self.scalar) == (other.milli_cpu, other.memory, other.ephemeral_storage,
                                 other.allowed_pod_number, other.scalar)

    def __repr__(self) -> str:
        return (f"Resource(milli_cpu={self.milli_cpu}, memory={self.memory}, "
                f"ephemeral_storage={self.ephemeral_storage}, "
                f"allowed_pod_number={self.allowed_pod_number}, scalar={self.scalar})")


# -- pod requests in the scheduler's integers --------------------------------------------------
# kubesim.api.resource.pod_requests computes; these are its amounts and options as the scheduler
# reads them: cpu in millicores, everything else in units.

EXACT_INTS = Amounts(exact_int, operator.add, operator.gt, operator.not_)
"""Exact ints (cpu in millicores, the rest in units); ``_Inexact`` for any other quantity."""

_OPTIONS: dict[tuple[bool, tuple[str, ...]], tuple[PodResourcesOptions, PodResourcesOptions]] = {}


def _options(use_status: bool, non_missing: tuple[str, ...]
             ) -> tuple[PodResourcesOptions, PodResourcesOptions]:
    """The options for :data:`EXACT_INTS` and for :data:`EXACT`: status resources or not, and
    the scorer's non-zero defaults for the ``non_missing`` resources (cached)."""
    key = (use_status, non_missing)
    o = _OPTIONS.get(key)
    if o is None:
        o = _OPTIONS[key] = (
            PodResourcesOptions(use_status_resources=use_status, non_missing_container_requests={
                k: _NON_MISSING_INTS[k] for k in non_missing} or None),
            PodResourcesOptions(use_status_resources=use_status, non_missing_container_requests={
                k: _NON_MISSING_DEFAULTS[k] for k in non_missing} or None))
    return o


def _converted(reqs: dict[str, Fraction]) -> dict[str, int]:
    return {k: (milli_value(v) if k == CPU else int_value(v)) for k, v in reqs.items()}


def _clamped(reqs: dict[str, int]) -> dict[str, int]:
    for v in reqs.values():
        if not _INT64_MIN <= v <= _INT64_MAX:
            return {k: _clamp(v) for k, v in reqs.items()}
    return reqs


def pod_requests_ints(pod: dict, *, use_status: bool = False,
                      non_missing: tuple[str, ...] = ()) -> dict[str, int]:
    """``PodRequests`` (kubesim.api.resource) with each resource's exact sum read as
    ``MilliValue`` (cpu) / ``Value`` (the rest) would read it: summed on ints, or on Fractions
    when some quantity is not a whole number of millicores / units. ``non_missing``: the
    resources (cpu, memory) given the scorer's non-zero defaults where a container misses them."""
    ints, exact = _OPTIONS.get((use_status, non_missing)) or _options(use_status, non_missing)
    try:
        return _clamped(pod_requests(pod, ints, EXACT_INTS))
    except _Inexact:
        return _converted(pod_requests(pod, exact, EXACT))


def non_missing_container_requests(requests: dict, pod_level_set: bool) -> tuple[str, ...]:
    """``getNonMissingContainerRequests``: the resources to give the non-zero defaults - cpu and
    memory, or with pod-level requests set only those the pod's requests lack."""
    if not pod_level_set:
        return _NON_MISSING
    return tuple(k for k in _NON_MISSING if k not in requests)


def pod_info_requests(pod: dict) -> tuple[dict[str, int], dict[str, int], bool]:
    """What ``CalculateResource`` asks of ``PodRequests``: (the requests with status, the same
    with the scorer's non-zero defaults, whether pod-level requests are set)."""
    reqs = pod_requests_ints(pod, use_status=True)
    pod_level_set = is_pod_level_requests_set(pod)
    nm = non_missing_container_requests(reqs, pod_level_set)
    non0 = pod_requests_ints(pod, use_status=True, non_missing=nm) if nm else reqs
    return reqs, non0, pod_level_set


# -- host ports --------------------------------------------------------------------------------
def host_ports(pod: dict) -> list[tuple[str, str, int]]:
    """``GetHostPorts``: (hostIP, protocol, hostPort) of sidecars and containers with hostPort > 0."""
    spec = pod.get("spec") or {}
    out: list[tuple[str, str, int]] = []
    for c in spec.get("initContainers") or ():
        if c.get("restartPolicy") != "Always":
            continue
        for p in c.get("ports") or ():
            hp = int(p.get("hostPort") or 0)
            if hp > 0:
                out.append((p.get("hostIP") or "", p.get("protocol") or "", hp))
    for c in spec.get("containers") or ():
        for p in c.get("ports") or ():
            hp = int(p.get("hostPort") or 0)
            if hp > 0:
                out.append((p.get("hostIP") or "", p.get("protocol") or "", hp))
    return out


def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
    return (ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP")


class HostPortInfo(dict):
    """ip -> {(protocol, port)}; upstream's ``HostPortInfo``."""

    __slots__ = ()

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = _sanitize(ip, protocol)
        self.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = _sanitize(ip, protocol)
        m = self.get(ip)
        if m is not None:
            m.discard((protocol, port))
            if not m:
                del self[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = _sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in m for m in self.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            m = self.get(key)
            if m is not None and pp in m:
                return True
        return False

    def clone(self) -> "HostPortInfo":
        out = HostPortInfo()
        for k, v in self.items():
            out[k] = set(v)
        return out


# -- PodInfo -----------------------------------------------------------------------------------
def pod_priority(pod: dict) -> int:
    """``corev1helpers.PodPriority``: spec.priority, else 0."""
    p = (pod.get("spec") or {}).get("priority")
    return int(p) if p is not None else 0


def pod_key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    uid = meta.get("uid")
    if uid:
        return uid
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


# PodInfo.requests of pods without scalar resources, shared between pods requesting the same
# (PodInfo.requests is read-only; assumed_on shares it the same way).
_SHARED_REQUESTS: dict[tuple[int, int, int, int], Resource] = {}


def _pod_resource(milli_cpu: int, memory: int, ephemeral_storage: int, pods: int,
                  scalar: dict[str, int] | None) -> Resource:
    if scalar:
        return Resource(milli_cpu, memory, ephemeral_storage, pods, scalar)
    key = (milli_cpu, memory, ephemeral_storage, pods)
    r = _SHARED_REQUESTS.get(key)
    if r is None:
        r = _remember(_SHARED_REQUESTS, key, Resource(milli_cpu, memory, ephemeral_storage, pods))
    return r


def _pod_resource_from_ints(reqs: dict[str, int]) -> Resource:
    """``Resource.from_list`` of a converted request list, for PodInfo.requests (read-only)."""
    if len(reqs) == (CPU in reqs) + (MEMORY in reqs):  # nothing but cpu and memory
        return _pod_resource(reqs.get(CPU, 0), reqs.get(MEMORY, 0), 0, 0, None)
    r = Resource.from_ints(reqs)
    return _pod_resource(r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number,
                         r.scalar)


def _request_lists(pod: dict, reqs: dict[str, int], non0: dict[str, int], pod_level_set: bool
                   ) -> tuple[dict[str, int], dict[str, int] | None, bool]:
    status = pod.get("status")
    return (reqs, None if pod_level_set else non0,
            not (status and (status.get("containerStatuses") or status.get("initContainerStatuses"))))


class PodInfo:
    """A pod with what the scheduler precomputes about it. ``requests`` (a Resource) and
    ``host_ports`` (a tuple) are read-only: pods requesting the same share one Resource."""

    __slots__ = ("pod", "key", "namespace", "name", "priority", "requests", "non0_cpu", "non0_mem",
                 "host_ports", "has_affinity", "has_required_anti_affinity", "node_name",
                 "scratch", "_request_lists")

    def __init__(self, pod: dict) -> None:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        self.pod = pod
        namespace = meta.get("namespace") or "default"
        name = meta.get("name", "")
        uid = meta.get("uid")
        self.key = uid if uid else f"{namespace}/{name}"
        self.namespace = namespace
        self.name = name
        p = spec.get("priority")
        self.priority = int(p) if p is not None else 0
        self.node_name = spec.get("nodeName") or ""
        reqs, non0, pod_level_set = pod_info_requests(pod)  # CalculateResource
        self.requests = _pod_resource_from_ints(reqs)
        self.non0_cpu = non0.get(CPU, 0)
        self.non0_mem = non0.get(MEMORY, 0)
        # Kept for the pod being scheduled (request_lists); a bound pod drops them, which keeps
        # a cluster's worth of PodInfos small.
        self._request_lists = None if self.node_name else _request_lists(pod, reqs, non0,
                                                                         pod_level_set)
        self.host_ports = tuple(host_ports(pod))
        aff = spec.get("affinity")
        if aff:
            self.has_affinity = bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))
            anti = aff.get("podAntiAffinity") or {}
            self.has_required_anti_affinity = bool(
                anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
        else:
            self.has_affinity = self.has_required_anti_affinity = False
        # Plugins may cache parsed data about this pod here (keyed by plugin name).
        self.scratch: dict = {}

    @property
    def request_lists(self) -> tuple[dict[str, int], dict[str, int] | None, bool]:
        """(requests with status, requests with status and the scorer's non-zero defaults or
        None when pod-level requests make them differ, whether the status played no part so the
        first one is also the spec-only PodRequests), each converted to ints (cpu millicores);
        read-only."""
        rl = self._request_lists
        if rl is None:
            rl = self._request_lists = _request_lists(self.pod, *pod_info_requests(self.pod))
        return rl

    def assumed_on(self, node_name: str) -> "PodInfo":
        """This pod as assumed onto a node: a copy of the manifest with spec.nodeName set and
        the same precomputed data (requests do not change by binding)."""
        pod = dict(self.pod)
        pod["spec"] = dict(self.pod.get("spec") or {})
        pod["spec"]["nodeName"] = node_name
        c = PodInfo.__new__(PodInfo)
        for attr in _POD_INFO_SHARED_SLOTS:
            setattr(c, attr, getattr(self, attr))
        c.pod = pod
        c.node_name = node_name
        c.scratch = {}
        c._request_lists = None  # only the incoming pod needs them; keep memory flat
        return c

    @property
    def full_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"PodInfo({self.full_name})"


# What assumed_on copies (requests and the rest are read-only, so shared); not the manifest,
# the plugins' scratch nor the request lists.
_POD_INFO_SHARED_SLOTS = tuple(a for a in PodInfo.__slots__
                               if a not in ("pod", "node_name", "scratch", "_request_lists"))


# -- NodeInfo ----------------------------------------------------------------------------------
# Bumped whenever any NodeInfo's pods_with_affinity / pods_with_required_anti_affinity changes,
# so a Snapshot can keep its "nodes having such pods" lists between cycles (upstream keeps
# havePodsWithAffinityNodeInfoList up to date in UpdateSnapshot the same way).
_AFFINITY_EPOCH = [0]


_NO_PODS: tuple = ()
_NO_TAINTS: tuple = ()
_NO_IMAGES: Mapping[str, "ImageStateSummary"] = MappingProxyType({})


class ImageStateSummary:
    __slots__ = ("size", "num_nodes")

    def __init__(self, size: int, num_nodes: int = 0) -> None:
        self.size = size
        self.num_nodes = num_nodes

    def __repr__(self) -> str:
        return f"ImageStateSummary(size={self.size}, num_nodes={self.num_nodes})"


class NodeInfo:
    """Node-level aggregates: the node, its pods, requested/allocatable resources, ports, images."""

    __slots__ = ("node", "name", "labels", "taints", "unschedulable", "pods", "pods_with_affinity",
                 "pods_with_required_anti_affinity", "used_ports", "requested",
                 "non_zero_requested", "allocatable", "image_states", "generation", "memo")

    def __init__(self, node: dict | None = None, pods: Iterable[PodInfo] = ()) -> None:
        self.pods: list[PodInfo] = []
        # Read-only empty placeholders until the first such pod / the snapshot's images.
        self.pods_with_affinity: list[PodInfo] | tuple = _NO_PODS
        self.pods_with_required_anti_affinity: list[PodInfo] | tuple = _NO_PODS
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.image_states: Mapping[str, ImageStateSummary] = _NO_IMAGES
        # Plugins may memoize per-node results here, each entry valid only for the generation it
        # was computed at (every change of the node or its pods bumps the generation).
        self.memo: dict = {}
        if node is not None:
            # set_node(node), inlined
            meta = node.get("metadata") or {}
            spec = node.get("spec") or {}
            self.node = node
            self.name = meta.get("name", "")
            self.labels = meta.get("labels") or {}
            self.taints = spec.get("taints") or _NO_TAINTS
            self.unschedulable = bool(spec.get("unschedulable"))
            self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
            self.generation = 1
        else:
            self.node: dict = {}
            self.name = ""
            self.labels: dict = {}
            self.taints: list | tuple = _NO_TAINTS
            self.unschedulable = False
            self.allocatable = Resource()
            self.generation = 0
        for p in pods:
            self.add_pod(p)

    def set_node(self, node: dict) -> None:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        self.node = node
        self.name = meta.get("name", "")
        self.labels = meta.get("labels") or {}
        self.taints = spec.get("taints") or _NO_TAINTS
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
        self.generation += 1

    def add_pod(self, pi: PodInfo) -> None:
        self.pods.append(pi)
        if pi.has_affinity or pi.has_required_anti_affinity:
            self._note_affinity(pi)
        # _update(pi, 1), inlined
        u = self.requested
        r = pi.requests
        u.milli_cpu += r.milli_cpu
        u.memory += r.memory
        u.ephemeral_storage += r.ephemeral_storage
        if r.scalar:
            scalar = u.scalar
            for k, v in r.scalar.items():
                scalar[k] = scalar.get(k, 0) + v
        u = self.non_zero_requested
        u.milli_cpu += pi.non0_cpu
        u.memory += pi.non0_mem
        if pi.host_ports:
            used = self.used_ports
            for ip, proto, port in pi.host_ports:
                used.add(ip, proto, port)
        self.generation += 1

    def _note_affinity(self, pi: PodInfo) -> None:
        """Track a pod with (anti-)affinity terms for InterPodAffinity (the lists start as a
        shared read-only placeholder)."""
        if pi.has_affinity:
            if self.pods_with_affinity is _NO_PODS:
                self.pods_with_affinity = [pi]
            else:
                self.pods_with_affinity.append(pi)
            _AFFINITY_EPOCH[0] += 1
        if pi.has_required_anti_affinity:
            if self.pods_with_required_anti_affinity is _NO_PODS:
                self.pods_with_required_anti_affinity = [pi]
            else:
                self.pods_with_required_anti_affinity.append(pi)
            _AFFINITY_EPOCH[0] += 1

    def _account_added_pods(self, pis: list[PodInfo]) -> None:
        """What ``add_pod`` does besides appending to ``pods``, for pods already appended in
        this order (Snapshot.build fills each node in bulk this way: the same result, summed
        in locals)."""
        cpu = mem = eph = non0_cpu = non0_mem = 0
        u = self.requested
        for pi in pis:
            if pi.has_affinity or pi.has_required_anti_affinity:
                self._note_affinity(pi)
            r = pi.requests
            cpu += r.milli_cpu
            mem += r.memory
            eph += r.ephemeral_storage
            if r.scalar:
                scalar = u.scalar
                for k, v in r.scalar.items():
                    scalar[k] = scalar.get(k, 0) + v
            non0_cpu += pi.non0_cpu
            non0_mem += pi.non0_mem
            if pi.host_ports:
                used = self.used_ports
                for ip, proto, port in pi.host_ports:
                    used.add(ip, proto, port)
        u.milli_cpu += cpu
        u.memory += mem
        u.ephemeral_storage += eph
        u = self.non_zero_requested
        u.milli_cpu += non0_cpu
        u.memory += non0_mem
        self.generation += len(pis)

    def remove_pod(self, key: str) -> PodInfo | None:
        for i, pi in enumerate(self.pods):
            if pi.key == key:
                del self.pods[i]
                if pi.has_affinity:
                    self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key != key]
                    _AFFINITY_EPOCH[0] += 1
                if pi.has_required_anti_affinity:
                    self.pods_with_required_anti_affinity = [
                        p for p in self.pods_with_required_anti_affinity if p.key != key]
                    _AFFINITY_EPOCH[0] += 1
                self._update(pi, -1)
                return pi
        return None

    def _update(self, pi: PodInfo, sign: int) -> None:
        self.requested.add(pi.requests, sign)
        self.non_zero_requested.milli_cpu += sign * pi.non0_cpu
        self.non_zero_requested.memory += sign * pi.non0_mem
        for ip, proto, port in pi.host_ports:
            if sign > 0:
                self.used_ports.add(ip, proto, port)
            else:
                self.used_ports.remove(ip, proto, port)
        self.generation += 1

    def clone(self) -> "NodeInfo":
        """``Snapshot()``: a copy safe to add/remove pods on (the node object is shared)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.labels = self.labels
        c.taints = self.taints
        c.unschedulable = self.unschedulable
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable.clone()
        c.image_states = self.image_states
        c.generation = self.generation
        c.memo = {}
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)}, requested={self.requested!r})"


# -- Snapshot ----------------------------------------------------------------------------------
_NO_LABEL = object()


def _zone_key(node: dict) -> str:
    """``utilnode.GetZoneKey``."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    zone = labels.get("topology.kubernetes.io/zone", _NO_LABEL)
    if zone is _NO_LABEL:
        zone = labels.get("failure-domain.beta.kubernetes.io/zone", "")
    region = labels.get("topology.kubernetes.io/region", _NO_LABEL)
    if region is _NO_LABEL:
        region = labels.get("failure-domain.beta.kubernetes.io/region", "")
    if not region and not zone:
        return ""
    return region + ":\x00:" + zone


def zone_interleaved(nodes: list[dict]) -> list[dict]:
    """The node tree's listing order: one node per zone in turn, zones in order of appearance."""
    zones: dict[str, list[dict]] = {}
    for n in nodes:
        zones.setdefault(_zone_key(n), []).append(n)
    if len(zones) <= 1:
        return list(nodes)
    out: list[dict] = []
    lists = list(zones.values())
    i = 0
    while len(out) < len(nodes):
        for lst in lists:
            if i < len(lst):
                out.append(lst[i])
        i += 1
    return out


TERMINAL_PHASES = ("Succeeded", "Failed")


def is_terminal_pod(pod: dict) -> bool:
    return ((pod.get("status") or {}).get("phase")) in TERMINAL_PHASES


@contextmanager
def gc_paused():
    """The cyclic garbage collector off while a cluster's worth of acyclic PodInfo / NodeInfo
    objects is built: otherwise allocating them triggers repeated collections that walk every
    live object (the whole stored state), costing more than the building itself."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Snapshot:
    """The node infos of one scheduling cycle, in the node tree's order, plus lookups."""

    __slots__ = ("node_info_list", "node_info_map", "image_states", "_affinity_lists")

    def __init__(self, node_infos: list[NodeInfo] | None = None) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos or [])
        self.node_info_map: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_info_list}
        self.image_states: dict[str, ImageStateSummary] = {}
        # (epoch, list object, its length, with affinity, with required anti-affinity)
        self._affinity_lists: tuple | None = None

    @classmethod
    def build(cls, nodes: list[dict], pods: Iterable[dict | PodInfo] = ()) -> "Snapshot":
        snap = cls.of_nodes(nodes)
        node_info_map = snap.node_info_map
        for p in pods:
            pi = p if isinstance(p, PodInfo) else None
            pod = pi.pod if pi is not None else p
            node_name = ((pod.get("spec") or {}).get("nodeName")) or ""
            if not node_name:
                continue
            status = pod.get("status")
            if status and status.get("phase") in TERMINAL_PHASES:
                continue
            ni = node_info_map.get(node_name)
            if ni is None:
                continue
            ni.pods.append(pi if pi is not None else PodInfo(pod))
        snap.account_appended_pods()
        return snap

    @classmethod
    def of_nodes(cls, nodes: list[dict]) -> "Snapshot":
        """The first half of ``build``: the nodes (in node tree order) and images, no pods
        yet. Pods may then be appended to ``NodeInfo.pods`` in order, followed by
        ``account_appended_pods``, which makes it the same as ``build`` with those pods."""
        snap = cls([NodeInfo(n) for n in zone_interleaved(list(nodes))])
        snap._build_images()
        return snap

    def account_appended_pods(self) -> None:
        """Account the pods appended to the nodes since ``of_nodes`` (call once)."""
        for ni in self.node_info_list:
            if ni.pods:
                ni._account_added_pods(ni.pods)

    def _build_images(self) -> None:
        states: dict[str, ImageStateSummary] = {}
        for ni in self.node_info_list:
            images = (ni.node.get("status") or {}).get("images")
            if not images:
                ni.image_states = _NO_IMAGES
                continue
            mine: dict[str, ImageStateSummary] = {}
            for image in images:
                size = int(image.get("sizeBytes") or 0)
                for name in image.get("names") or ():
                    st = states.get(name)
                    if st is None:
                        st = states[name] = ImageStateSummary(size, 0)
                    if name not in mine:
                        mine[name] = st
                        st.num_nodes += 1
            ni.image_states = mine
        self.image_states = states

    def get(self, name: str) -> NodeInfo | None:
        return self.node_info_map.get(name)

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def _affinity_cache(self) -> tuple:
        """The two "nodes having pods with ..." lists, recomputed only after some NodeInfo's
        affinity pods changed (or the node list was replaced or resized)."""
        c = self._affinity_lists
        lst = self.node_info_list
        epoch = _AFFINITY_EPOCH[0]
        if c is None or c[0] != epoch or c[1] is not lst or c[2] != len(lst):
            c = self._affinity_lists = (
                epoch, lst, len(lst),
                [ni for ni in lst if ni.pods_with_affinity],
                [ni for ni in lst if ni.pods_with_required_anti_affinity])
        return c

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return list(self._affinity_cache()[3])

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return list(self._affinity_cache()[4])
