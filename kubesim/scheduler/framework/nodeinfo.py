"""The scheduler's view of the cluster: typed per-node aggregates built once per cycle.

Upstream: pkg/scheduler/framework/types.go (``NodeInfo``, ``Resource``, ``PodInfo`` with
``CalculateResource`` and the non-zero defaults, ``NewResource``/``SetMaxResource``),
staging/src/k8s.io/component-helpers/resource/helpers.go (``PodRequests``: containers summed,
init containers as a running maximum where restartable (sidecar) init containers accumulate,
pod-level requests overriding cpu/memory/hugepages, overhead added, status resources when the
pod was resized in place), staging/src/k8s.io/kube-scheduler/framework/types.go
(``HostPortInfo`` and its conflict rule around 0.0.0.0), pkg/scheduler/util/utils.go
(``GetHostPorts``: containers plus restartable init containers), pkg/scheduler/backend/cache
(image states: size from the first node reporting an image name, NumNodes = nodes having it;
the node tree that interleaves nodes zone by zone), pkg/scheduler/scheduler.go (the pod informer
ignores Succeeded and Failed pods).

Quantities are converted exactly as upstream: a request list is summed exactly (``Fraction``) and
converted once, cpu to millicores and everything else to units, both rounded up.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Iterable

from kubesim.api import quantity as _quantity
from kubesim.api.quantity import parse_quantity

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"

# pkg/scheduler/util/pod_resources.go: what a container without a cpu/memory request counts as
# when scoring (NonZeroRequested), so that many zero-request pods do not pile onto one node.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_POD_LEVEL_SUPPORTED = (CPU, MEMORY)
_HUGEPAGES_PREFIX = "hugepages-"
_NON_MISSING_DEFAULTS = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                         MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}

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


# -- resource names (pkg/apis/core/v1/helper) ---------------------------------------------------
def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    if "/" not in name or is_prefixed_native_resource(name):
        return False
    return not name.startswith("requests.")


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith(_HUGEPAGES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native and attachable-volume resources."""
    return (is_extended_resource_name(name) or is_hugepage_resource_name(name)
            or is_prefixed_native_resource(name) or name.startswith("attachable-volumes-"))


def _is_supported_pod_level(name: str) -> bool:
    return name in _POD_LEVEL_SUPPORTED or name.startswith(_HUGEPAGES_PREFIX)


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
            v = q if isinstance(q, Fraction) else quantity(q)
            if name == CPU:
                self.milli_cpu += milli_value(v)
            elif name == MEMORY:
                self.memory += int_value(v)
            elif name == PODS:
                self.allowed_pod_number += int_value(v)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += int_value(v)
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + int_value(v)

    def set_max_list(self, rl: dict | None) -> None:
        """``Resource.SetMaxResource`` (pods are not a request and are ignored)."""
        if not rl:
            return
        for name, q in rl.items():
            v = q if isinstance(q, Fraction) else quantity(q)
            if name == MEMORY:
                self.memory = max(self.memory, int_value(v))
            elif name == CPU:
                self.milli_cpu = max(self.milli_cpu, milli_value(v))
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, int_value(v))
            elif is_scalar_resource_name(name):
                self.scalar[name] = max(self.scalar.get(name, 0), int_value(v))

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


# -- pod requests (component-helpers/resource) ------------------------------------------------
def _add_into(dst: dict, src: dict) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, 0) + v


def _max_into(dst: dict, src: dict) -> None:
    for k, v in src.items():
        if k not in dst or v > dst[k]:
            dst[k] = v


def _as_fractions(rl: dict | None) -> dict[str, Fraction]:
    if not rl:
        return {}
    return {k: (v if isinstance(v, Fraction) else quantity(v)) for k, v in rl.items()}


def _apply_non_missing(reqs: dict, non_missing: dict) -> dict:
    out = dict(reqs)
    for k, v in non_missing.items():
        if k not in reqs:
            out[k] = out.get(k, 0) + v
    return out


def _container_status_index(status: dict) -> dict[str, dict]:
    idx: dict[str, dict] = {}
    for cs in (status.get("initContainerStatuses") or ()):
        idx.setdefault(cs.get("name", ""), cs)
    for cs in (status.get("containerStatuses") or ()):
        idx[cs.get("name", "")] = cs
    return idx


def _resize_infeasible(status: dict) -> bool:
    for c in status.get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return c.get("reason") == "Infeasible"
    return False


def _aggregate(spec: dict, pick, non_missing: dict | None) -> dict[str, Fraction]:
    result: dict[str, Fraction] = {}
    for c in spec.get("containers") or ():
        reqs = pick(c)
        if non_missing:
            reqs = _apply_non_missing(reqs, non_missing)
        _add_into(result, reqs)
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in spec.get("initContainers") or ():
        reqs = pick(c)
        if non_missing:
            reqs = _apply_non_missing(reqs, non_missing)
        if c.get("restartPolicy") == "Always":
            _add_into(result, reqs)
            _add_into(restartable, reqs)
            use = restartable
        else:
            use = dict(reqs)
            _add_into(use, restartable)
        _max_into(init_max, use)
    _max_into(result, init_max)
    return result


def pod_requests(pod: dict, *, non_missing: dict | None = None, use_status: bool = False,
                 exclude_overhead: bool = False) -> dict[str, Fraction]:
    """``resourcehelper.PodRequests`` with pod-level resources enabled (v1.35 default)."""
    spec = pod.get("spec") or {}

    def spec_reqs(c: dict) -> dict:
        return _as_fractions((c.get("resources") or {}).get("requests"))

    reqs = _aggregate(spec, spec_reqs, non_missing)
    status = pod.get("status") or {}
    if use_status and (status.get("containerStatuses") or status.get("initContainerStatuses")):
        idx = _container_status_index(status)
        infeasible = _resize_infeasible(status)

        def allocated(c: dict) -> dict:
            cs = idx.get(c.get("name", ""))
            if cs is not None and cs.get("allocatedResources") is not None:
                return _as_fractions(cs["allocatedResources"])
            return {} if infeasible else spec_reqs(c)

        def actuated(c: dict) -> dict:
            cs = idx.get(c.get("name", ""))
            if cs is not None:
                r = (cs.get("resources") or {}).get("requests")
                if r is not None:
                    return _as_fractions(r)
                if cs.get("allocatedResources") is not None:
                    return _as_fractions(cs["allocatedResources"])
            return {} if infeasible else spec_reqs(c)

        alloc = _aggregate(spec, allocated, non_missing)
        act = _aggregate(spec, actuated, non_missing)
        merged: dict[str, Fraction] = {} if infeasible else dict(reqs)
        _max_into(merged, act)
        _max_into(merged, alloc)
        reqs = merged
    pod_level = ((spec.get("resources") or {}).get("requests")) or {}
    if any(_is_supported_pod_level(k) for k in pod_level):
        for k, v in pod_level.items():
            if _is_supported_pod_level(k):
                reqs[k] = quantity(v)
    if not exclude_overhead:
        overhead = spec.get("overhead")
        if overhead:
            _add_into(reqs, _as_fractions(overhead))
    return reqs


def is_pod_level_requests_set(pod: dict) -> bool:
    reqs = (((pod.get("spec") or {}).get("resources")) or {}).get("requests") or {}
    return any(_is_supported_pod_level(k) for k in reqs)


def non_missing_defaults(requests: dict, pod_level_set: bool) -> dict[str, Fraction]:
    """``getNonMissingContainerRequests``."""
    if not pod_level_set:
        return dict(_NON_MISSING_DEFAULTS)
    return {k: v for k, v in _NON_MISSING_DEFAULTS.items() if k not in requests}


def pod_request_resource(pod: dict) -> Resource:
    """NodeResourcesFit's ``computePodResourceRequest`` for the pod being scheduled."""
    r = Resource()
    r.set_max_list(pod_requests(pod))
    return r


def pod_info_request_resource(pi: "PodInfo") -> Resource:
    """``pod_request_resource(pi.pod)``, from the requests PodInfo already computed."""
    reqs, _, status_free = pi.request_lists
    if not status_free:
        return pod_request_resource(pi.pod)
    r = Resource()
    r.set_max_list(reqs)
    return r


def pod_info_scoring_requests(pi: "PodInfo", resource_names: Iterable[str], *,
                              use_requested: bool) -> list[int]:
    """``pod_scoring_requests(pi.pod, ...)``, from the requests PodInfo already computed."""
    reqs = pi.request_lists[0] if use_requested else pi.request_lists[1]
    if reqs is None:
        return pod_scoring_requests(pi.pod, resource_names, use_requested=use_requested)
    out = []
    for name in resource_names:
        q = reqs.get(name)
        out.append(0 if q is None else (milli_value(q) if name == CPU else int_value(q)))
    return out


def pod_scoring_request(pod: dict, resource_name: str, *, use_requested: bool) -> int:
    """``resourceAllocationScorer.calculatePodResourceRequest`` for one resource."""
    return pod_scoring_requests(pod, [resource_name], use_requested=use_requested)[0]


def pod_scoring_requests(pod: dict, resource_names: Iterable[str], *,
                         use_requested: bool) -> list[int]:
    """``calculatePodResourceRequestList``: the pod's requests (non-zero defaults unless
    ``use_requested``) for each resource, cpu in millicores."""
    nm = None if use_requested else _NON_MISSING_DEFAULTS
    reqs = pod_requests(pod, non_missing=nm, use_status=True)
    out = []
    for name in resource_names:
        q = reqs.get(name)
        out.append(0 if q is None else (milli_value(q) if name == CPU else int_value(q)))
    return out


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


# PodInfo.request_lists when not kept: the helpers below recompute from the manifest.
_NO_REQUEST_LISTS = (None, None, False)


class PodInfo:
    """A pod with what the scheduler precomputes about it."""

    __slots__ = ("pod", "key", "namespace", "name", "priority", "requests", "non0_cpu", "non0_mem",
                 "host_ports", "has_affinity", "has_required_anti_affinity", "node_name",
                 "scratch", "request_lists")

    def __init__(self, pod: dict) -> None:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        self.pod = pod
        self.key = pod_key(pod)
        self.namespace = meta.get("namespace") or "default"
        self.name = meta.get("name", "")
        self.priority = pod_priority(pod)
        self.node_name = spec.get("nodeName") or ""
        reqs = pod_requests(pod, use_status=True)
        res = Resource()
        res.add_list(reqs)
        self.requests = res
        nm = non_missing_defaults(reqs, is_pod_level_requests_set(pod))
        non0 = pod_requests(pod, non_missing=nm, use_status=True) if nm else reqs
        self.non0_cpu = milli_value(non0[CPU]) if CPU in non0 else 0
        self.non0_mem = int_value(non0[MEMORY]) if MEMORY in non0 else 0
        # The exact request lists computed above, kept for the plugins that would recompute them
        # (read-only): (requests with status, requests with status and the scorer's non-zero
        # defaults or None when pod-level requests make them differ, whether the status played
        # no part so the first one is also the spec-only PodRequests).
        status = pod.get("status") or {}
        self.request_lists = (reqs, None if is_pod_level_requests_set(pod) else non0,
                              not (status.get("containerStatuses")
                                   or status.get("initContainerStatuses")))
        self.host_ports = host_ports(pod)
        aff = spec.get("affinity") or {}
        self.has_affinity = bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))
        anti = aff.get("podAntiAffinity") or {}
        self.has_required_anti_affinity = bool(
            anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
        # Plugins may cache parsed data about this pod here (keyed by plugin name).
        self.scratch: dict = {}

    def assumed_on(self, node_name: str) -> "PodInfo":
        """This pod as assumed onto a node: a copy of the manifest with spec.nodeName set and
        the same precomputed data (requests do not change by binding)."""
        pod = dict(self.pod)
        pod["spec"] = dict(self.pod.get("spec") or {})
        pod["spec"]["nodeName"] = node_name
        c = PodInfo.__new__(PodInfo)
        for attr in PodInfo.__slots__:
            setattr(c, attr, getattr(self, attr))
        c.pod = pod
        c.node_name = node_name
        c.scratch = {}
        c.request_lists = _NO_REQUEST_LISTS  # only the incoming pod needs them; keep memory flat
        return c

    @property
    def full_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"PodInfo({self.full_name})"


# -- NodeInfo ----------------------------------------------------------------------------------
# Bumped whenever any NodeInfo's pods_with_affinity / pods_with_required_anti_affinity changes,
# so a Snapshot can keep its "nodes having such pods" lists between cycles (upstream keeps
# havePodsWithAffinityNodeInfoList up to date in UpdateSnapshot the same way).
_AFFINITY_EPOCH = [0]


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
        self.node: dict = {}
        self.name = ""
        self.labels: dict = {}
        self.taints: list = []
        self.unschedulable = False
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.generation = 0
        # Plugins may memoize per-node results here, each entry valid only for the generation it
        # was computed at (every change of the node or its pods bumps the generation).
        self.memo: dict = {}
        if node is not None:
            self.set_node(node)
        for p in pods:
            self.add_pod(p)

    def set_node(self, node: dict) -> None:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        self.node = node
        self.name = meta.get("name", "")
        self.labels = meta.get("labels") or {}
        self.taints = spec.get("taints") or []
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
        self.generation += 1

    def add_pod(self, pi: PodInfo) -> None:
        self.pods.append(pi)
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
            _AFFINITY_EPOCH[0] += 1
        if pi.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pi)
            _AFFINITY_EPOCH[0] += 1
        self._update(pi, 1)

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
def _zone_key(node: dict) -> str:
    """``utilnode.GetZoneKey``."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    zone = labels.get("topology.kubernetes.io/zone",
                      labels.get("failure-domain.beta.kubernetes.io/zone", ""))
    region = labels.get("topology.kubernetes.io/region",
                        labels.get("failure-domain.beta.kubernetes.io/region", ""))
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


def is_terminal_pod(pod: dict) -> bool:
    return ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")


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
        snap = cls([NodeInfo(n) for n in zone_interleaved(list(nodes))])
        snap._build_images()
        for p in pods:
            pi = p if isinstance(p, PodInfo) else None
            pod = pi.pod if pi is not None else p
            node_name = ((pod.get("spec") or {}).get("nodeName")) or ""
            if not node_name or is_terminal_pod(pod):
                continue
            ni = snap.node_info_map.get(node_name)
            if ni is None:
                continue
            ni.add_pod(pi if pi is not None else PodInfo(pod))
        return snap

    def _build_images(self) -> None:
        states: dict[str, ImageStateSummary] = {}
        for ni in self.node_info_list:
            mine: dict[str, ImageStateSummary] = {}
            for image in ((ni.node.get("status") or {}).get("images") or ()):
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
