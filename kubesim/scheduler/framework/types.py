"""The scheduler's typed cluster objects: Resource, PodInfo, NodeInfo, host ports, images.

Upstream: pkg/scheduler/framework/types.go (``Resource`` with ``NewResource``/``Add``/
``SetMaxResource``, ``PodInfo`` and ``CalculateResource``, ``NodeInfo`` with ``AddPodInfo``/
``RemovePod``/``SetNode``/``Snapshot`` and its generation), staging/src/k8s.io/kube-scheduler/
framework/types.go (``ImageStateSummary``, ``HostPortInfo`` and its conflict rule around
0.0.0.0), pkg/scheduler/util/utils.go (``GetHostPorts``: containers plus restartable init
containers), k8s.io/component-helpers/scheduling/corev1 (``PodPriority``).

A PodInfo's requests come from :mod:`kubesim.scheduler.framework.pod_resources`
(component-helpers' ``PodRequests`` read in the scheduler's integers). Its ``requests`` and
``host_ports`` are read-only: pods requesting the same share one Resource.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from kubesim.scheduler.framework.pod_resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_scalar_resource_name,
    milli_of,
    pod_info_requests,
    units_of,
)


# -- Resource ---------------------------------------------------------------------------------
class Resource:
    """Integer resource amounts: millicores, bytes, pod slots and scalar resources."""

    __slots__ = ("allowed_pod_number", "ephemeral_storage", "memory", "milli_cpu", "scalar")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, ephemeral_storage: int = 0,
                 allowed_pod_number: int = 0, scalar: dict[str, int] | None = None) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar = scalar if scalar is not None else {}

    @classmethod
    def from_list(cls, rl: dict | None) -> Resource:
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
                self.milli_cpu += milli_of(q)
                continue
            v = units_of(q)
            if name == MEMORY:
                self.memory += v
            elif name == PODS:
                self.allowed_pod_number += v
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += v
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + v

    def set_max_ints(self, reqs: dict[str, int]) -> None:
        """``Resource.SetMaxResource`` of a list already converted (cpu in millicores, the rest in
        units); pods are not a request and are ignored."""
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
    def from_ints(cls, reqs: dict[str, int]) -> Resource:
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

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def is_zero(self) -> bool:
        return (self.milli_cpu == 0 and self.memory == 0 and self.ephemeral_storage == 0
                and not self.scalar)

    def clone(self) -> Resource:
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


DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


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

    def clone(self) -> HostPortInfo:
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
_SHARED_REQUESTS_LIMIT = 1 << 16


def _pod_resource(milli_cpu: int, memory: int, ephemeral_storage: int, pods: int,
                  scalar: dict[str, int] | None) -> Resource:
    if scalar:
        return Resource(milli_cpu, memory, ephemeral_storage, pods, scalar)
    key = (milli_cpu, memory, ephemeral_storage, pods)
    r = _SHARED_REQUESTS.get(key)
    if r is None:
        if len(_SHARED_REQUESTS) >= _SHARED_REQUESTS_LIMIT:
            _SHARED_REQUESTS.clear()
        r = _SHARED_REQUESTS[key] = Resource(milli_cpu, memory, ephemeral_storage, pods)
    return r


def _pod_resource_from_ints(reqs: dict[str, int]) -> Resource:
    """``Resource.from_list`` of a converted request list, for PodInfo.requests (read-only)."""
    if len(reqs) == (CPU in reqs) + (MEMORY in reqs):  # nothing but cpu and memory
        return _pod_resource(reqs.get(CPU, 0), reqs.get(MEMORY, 0), 0, 0, None)
    r = Resource.from_ints(reqs)
    return _pod_resource(r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number,
                         r.scalar)


def _request_lists(reqs: dict[str, int], non0: dict[str, int], pod_level_set: bool,
                   status_free: bool) -> tuple[dict[str, int], dict[str, int] | None, bool]:
    return reqs, None if pod_level_set else non0, status_free


class PodInfo:
    """A pod with what the scheduler precomputes about it. ``requests`` (a Resource) and
    ``host_ports`` (a tuple) are read-only: pods requesting the same share one Resource."""

    __slots__ = (
        "_loader",
        "_pod",
        "_request_lists",
        "has_affinity",
        "has_required_anti_affinity",
        "host_ports",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "non0_cpu",
        "non0_mem",
        "priority",
        "requests",
        "scratch",
        "terminating",
    )

    def __init__(self, pod: dict) -> None:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        self._pod = pod
        self._loader = None
        self.labels = meta.get("labels") or {}
        self.terminating = bool(meta.get("deletionTimestamp"))
        namespace = meta.get("namespace") or "default"
        name = meta.get("name", "")
        uid = meta.get("uid")
        self.key = uid if uid else f"{namespace}/{name}"
        self.namespace = namespace
        self.name = name
        p = spec.get("priority")
        self.priority = int(p) if p is not None else 0
        self.node_name = spec.get("nodeName") or ""
        reqs, non0, pod_level_set, status_free = pod_info_requests(pod)  # CalculateResource
        self.requests = _pod_resource_from_ints(reqs)
        self.non0_cpu = non0.get(CPU, 0)
        self.non0_mem = non0.get(MEMORY, 0)
        # Kept for the pod being scheduled (request_lists); a bound pod drops them, which keeps
        # a cluster's worth of PodInfos small.
        self._request_lists = None if self.node_name else _request_lists(
            reqs, non0, pod_level_set, status_free)
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
    def pod(self) -> dict:
        """The manifest; a PodInfo built from the scheduler's cache (``from_digest``) reads it
        from the store the first time a plugin asks."""
        p = self._pod
        if p is None:
            p = self._pod = self._loader(self)
        return p

    @pod.setter
    def pod(self, pod: dict) -> None:
        self._pod = pod

    @classmethod
    def from_digest(cls, d: list, namespace: str, name: str, loader) -> PodInfo:
        """A bound pod as the scheduler's cache keeps it (``pod_digest``), its manifest left in
        the store until ``loader(pod_info)`` is asked for it."""
        self = cls.__new__(cls)
        self._pod = None
        self._loader = loader
        self._request_lists = None
        uid, self.priority, self.node_name, r, self.non0_cpu, self.non0_mem, ports, \
            self.has_affinity, self.has_required_anti_affinity, labels, self.terminating = d
        namespace = namespace or "default"
        self.key = uid if uid else f"{namespace}/{name}"
        self.namespace = namespace
        self.name = name
        self.requests = _pod_resource(r[0], r[1], r[2], r[3], r[4])
        self.host_ports = tuple(tuple(p) for p in ports) if ports else ()
        self.labels = labels or {}
        self.scratch = {}
        return self

    def digest(self) -> list:
        """What the scheduler's cache keeps of this pod (``from_digest`` reads it back)."""
        r = self.requests
        return [self.key if self.key != f"{self.namespace}/{self.name}" else "", self.priority,
                self.node_name, [r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number,
                                 r.scalar or None],
                self.non0_cpu, self.non0_mem, [list(p) for p in self.host_ports],
                self.has_affinity, self.has_required_anti_affinity, self.labels or None,
                self.terminating]

    @property
    def request_lists(self) -> tuple[dict[str, int], dict[str, int] | None, bool]:
        """(requests with status, requests with status and the scorer's non-zero defaults or
        None when pod-level requests make them differ, whether the status played no part so the
        first one is also the spec-only PodRequests), each converted to ints (cpu millicores);
        read-only."""
        rl = self._request_lists
        if rl is None:
            rl = self._request_lists = _request_lists(*pod_info_requests(self.pod))
        return rl

    def assumed_on(self, node_name: str) -> PodInfo:
        """This pod as assumed onto a node: a copy of the manifest with spec.nodeName set and
        the same precomputed data (requests do not change by binding)."""
        pod = dict(self.pod)
        pod["spec"] = dict(self.pod.get("spec") or {})
        pod["spec"]["nodeName"] = node_name
        c = PodInfo.__new__(PodInfo)
        for attr in _POD_INFO_SHARED_SLOTS:
            setattr(c, attr, getattr(self, attr))
        c._pod = pod
        c._loader = None
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
                               if a not in ("_pod", "_loader", "node_name", "scratch", "_request_lists"))


# -- NodeInfo ----------------------------------------------------------------------------------
# Bumped whenever any NodeInfo's pods_with_affinity / pods_with_required_anti_affinity changes,
# so a Snapshot can keep its "nodes having such pods" lists between cycles (upstream keeps
# havePodsWithAffinityNodeInfoList up to date in UpdateSnapshot the same way).
# [0]: pods_with_affinity, [1]: pods_with_required_anti_affinity.
_AFFINITY_EPOCH = [0, 0]


def affinity_epoch(required_anti_affinity: bool = False) -> int:
    """A number that changes whenever some NodeInfo's pods with (anti-)affinity change
    (``required_anti_affinity``: its pods with required anti-affinity)."""
    return _AFFINITY_EPOCH[1 if required_anti_affinity else 0]


# Every change of a journaled NodeInfo (a snapshot's: a pod added or removed, set_node, the bulk
# accounting of a build) appends it here, so that indexes kept between cycles (pod_groups.py) recount only the nodes
# that changed. When long the journal is cleared and its epoch moves on: a reader that finds
# the epoch moved rescans every node's generation instead.
_CHANGED: list[NodeInfo] = []
_CHANGED_EPOCH = [0]
_CHANGED_LIMIT = 1 << 14


def _note_changed(ni: NodeInfo) -> None:
    if len(_CHANGED) >= _CHANGED_LIMIT:
        _CHANGED.clear()
        _CHANGED_EPOCH[0] += 1
    _CHANGED.append(ni)


def forget_changes() -> None:
    """Empty the journal as when it grows long (its readers rescan): for a caller that drops
    every snapshot the journal's NodeInfos belong to, so they and their pods are freed."""
    _CHANGED.clear()
    _CHANGED_EPOCH[0] += 1


def changes_since(epoch: int, position: int) -> tuple[list[NodeInfo] | None, int, int]:
    """The NodeInfos changed since a reader's (epoch, position) — None when the journal was
    cleared meanwhile — and the reader's new (epoch, position)."""
    now = _CHANGED_EPOCH[0]
    if epoch != now:
        return None, now, len(_CHANGED)
    return _CHANGED[position:], now, len(_CHANGED)


def changed_places(journal: list[NodeInfo] | None, nodes: list[NodeInfo], seen: list[NodeInfo],
                   gens: list[int], where: dict[int, int]) -> list[int]:
    """The places in ``nodes`` whose NodeInfo changed since a reader noted each place's
    NodeInfo (``seen``) and generation (``gens``), ``where`` giving a noted NodeInfo's place:
    from ``changes_since``'s journal (only this list's nodes, not copies or other snapshots'),
    or, the journal cleared (None), by comparing every place."""
    if journal is None:
        return [i for i, ni, g, old in zip(range(len(nodes)), nodes, gens, seen)
                if ni.generation != g or ni is not old]
    if len(journal) == 1:  # (a cycle's: the node the last pod was assumed on)
        ni = journal[0]
        i = where.get(id(ni))
        return [i] if i is not None and seen[i] is ni and ni.generation != gens[i] else []
    return sorted({i for ni in journal
                   if (i := where.get(id(ni))) is not None and seen[i] is ni and ni.generation != gens[i]})


_NO_PODS: tuple = ()
_NO_TAINTS: tuple = ()
NO_IMAGE_STATES: Mapping[str, ImageStateSummary] = MappingProxyType({})  # read-only


def census_key(namespace: str, labels: dict | None, terminating: bool) -> str:
    """The key of a pod in a node's census (``NodeInfo.census``): JSON of its namespace,
    sorted labels and whether it is terminating."""
    return json.dumps([namespace, sorted((labels or {}).items()), bool(terminating)],
                      separators=(",", ":"))


_CENSUS: dict[str, tuple[str, dict, bool]] = {}


def census_entry(key: str) -> tuple[str, dict, bool]:
    """(namespace, labels, terminating) of a census key (decoded once; read-only)."""
    e = _CENSUS.get(key)
    if e is None:
        ns, labels, terminating = json.loads(key)
        if len(_CENSUS) >= 4096:
            _CENSUS.clear()
        e = _CENSUS[key] = (ns, dict(labels), terminating)
    return e


class ImageStateSummary:
    """An image's size and how many nodes have it."""

    __slots__ = ("num_nodes", "size")

    def __init__(self, size: int, num_nodes: int = 0) -> None:
        self.size = size
        self.num_nodes = num_nodes

    def __repr__(self) -> str:
        return f"ImageStateSummary(size={self.size}, num_nodes={self.num_nodes})"


_ALLOCATABLE: dict[tuple, Resource] = {}  # nodes of one shape share the parsing, not the Resource


def _allocatable(rl: dict | None) -> Resource:
    """``Resource.from_list`` of a node's allocatable list (a new Resource each time)."""
    if not rl:
        return Resource()
    try:
        key = tuple(rl.items())
        r = _ALLOCATABLE.get(key)
    except TypeError:  # (an unhashable quantity: parsed as it is)
        return Resource.from_list(rl)
    if r is None:
        if len(_ALLOCATABLE) >= 4096:
            _ALLOCATABLE.clear()
        r = _ALLOCATABLE[key] = Resource.from_list(rl)
    return r.clone()


class NodeInfo:
    """Node-level aggregates: the node, its pods, requested/allocatable resources, ports, images."""

    __slots__ = (
        "_added",
        "_lazy",
        "_pods",
        "_pwa",
        "_pwra",
        "allocatable",
        "generation",
        "image_states",
        "journaled",
        "labels",
        "memo",
        "name",
        "node",
        "non_zero_requested",
        "requested",
        "taints",
        "unschedulable",
        "used_ports",
    )

    def __init__(self, node: dict | None = None, pods: Iterable[PodInfo] = ()) -> None:
        self._pods: list[PodInfo] | None = []
        # Read-only empty placeholders until the first such pod / the snapshot's images.
        self._pwa: list[PodInfo] | tuple | None = _NO_PODS
        self._pwra: list[PodInfo] | tuple | None = _NO_PODS
        # A NodeInfo built from the scheduler's cache (``set_sums``) holds its aggregates
        # without its pods: (loader, number of pods, with affinity, with required
        # anti-affinity, census) until a reader of the pods makes ``loader(self)`` list them.
        self._lazy: tuple | None = None
        # Pods assumed onto such a node before its pods were read (``add_pod``), in order:
        # put after the pods read, in place of the same pods' entries there.
        self._added: list[PodInfo] | None = None
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.image_states: Mapping[str, ImageStateSummary] = NO_IMAGE_STATES
        # Plugins may memoize per-node results here, each entry valid only for the generation it
        # was computed at (every change of the node or its pods bumps the generation).
        self.memo: dict = {}
        # Whether changes go to the change journal: set for the nodes of a Snapshot, not for
        # copies (preemption's dry runs change many).
        self.journaled = False
        if node is not None:
            # set_node(node), inlined
            meta = node.get("metadata") or {}
            spec = node.get("spec") or {}
            self.node = node
            self.name = meta.get("name", "")
            self.labels = meta.get("labels") or {}
            self.taints = spec.get("taints") or _NO_TAINTS
            self.unschedulable = bool(spec.get("unschedulable"))
            self.allocatable = _allocatable((node.get("status") or {}).get("allocatable"))
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

    # -- the pods, read from the scheduler's cache when first asked for -------------------------
    @property
    def pods(self) -> list[PodInfo]:
        p = self._pods
        if p is None:
            p = self._load_pods()
        return p

    @pods.setter
    def pods(self, pods: list[PodInfo]) -> None:
        self._pods = pods

    @property
    def pods_with_affinity(self) -> list[PodInfo] | tuple:
        p = self._pwa
        if p is None:
            self._load_pods()
            p = self._pwa
        return p

    @pods_with_affinity.setter
    def pods_with_affinity(self, pods: list[PodInfo] | tuple) -> None:
        self._pwa = pods

    @property
    def pods_with_required_anti_affinity(self) -> list[PodInfo] | tuple:
        p = self._pwra
        if p is None:
            self._load_pods()
            p = self._pwra
        return p

    @pods_with_required_anti_affinity.setter
    def pods_with_required_anti_affinity(self, pods: list[PodInfo] | tuple) -> None:
        self._pwra = pods

    def num_pods(self) -> int:
        """``len(self.pods)``, without reading the pods of a node built from the cache."""
        p = self._pods
        if p is not None:
            return len(p)
        added = self._added
        return self._lazy[1] + (len(added) if added else 0)

    def census(self) -> dict | None:
        """``census_key`` -> how many of the node's pods have that namespace, labels and
        termination, while its pods are not read (None once they are)."""
        if self._pods is not None:
            return None
        census = self._lazy[4]
        added = self._added
        if not added or census is None:
            return census
        census = dict(census)
        for pi in added:
            k = census_key(pi.namespace, pi.labels, pi.terminating)
            census[k] = census.get(k, 0) + 1
        return census

    def set_sums(self, sums: dict, loader) -> None:
        """Account the pods of a node as the scheduler's cache sums them
        (kubesim/scheduler/framework/cache.py: ``pod_fold``), leaving them unread until
        ``loader(self)`` is asked for them; what ``_account_added_pods`` of those pods gives."""
        u = self.requested
        cpu, mem, eph = sums["r"]
        u.milli_cpu += cpu
        u.memory += mem
        u.ephemeral_storage += eph
        scalar = sums.get("s")
        if scalar:
            for k, (v, _n) in scalar.items():
                u.scalar[k] = u.scalar.get(k, 0) + v
        u = self.non_zero_requested
        u.milli_cpu += sums["z"][0]
        u.memory += sums["z"][1]
        ports = sums.get("p")
        if ports:
            used = self.used_ports
            for ip, proto, port, _n in ports:
                used.add(ip, proto, port)
        n, aff, anti = sums["n"], sums.get("a", 0), sums.get("x", 0)
        self._pods = None
        self._pwa = None if aff else _NO_PODS
        self._pwra = None if anti else _NO_PODS
        if aff:
            _AFFINITY_EPOCH[0] += 1
        if anti:
            _AFFINITY_EPOCH[1] += 1
        self._lazy = (loader, n, aff, anti, sums.get("c"))
        self.generation += n
        if self.journaled:
            _note_changed(self)

    @classmethod
    def from_cache(cls, node: dict, sums: dict | None, loader) -> NodeInfo:
        """``NodeInfo(node)`` then, with ``sums``, ``set_sums(sums, loader)``, not journaled
        (a snapshot of the scheduler's cache builds one a node: no reader needs each noted
        as changed, every index rebuilds for a new node list)."""
        self = cls(node)
        if sums is not None:
            self.set_sums(sums, loader)
        return self

    def _load_pods(self) -> list[PodInfo]:
        lazy = self._lazy
        self.set_loaded_pods(lazy[0](self))
        return self._pods

    def set_loaded_pods(self, pods: list[PodInfo]) -> None:
        """The pods of a node built from the cache, read: its aggregates counted again from
        them (they are what the sums were made of, unless the store changed since)."""
        if self._pods is not None:
            return
        added = self._added
        if added:
            # (the pods read may hold those assumed here meanwhile, written since: each
            # takes its place after the others, as when it was added to the pods read)
            keys = {pi.key for pi in added}
            pods = [pi for pi in pods if pi.key not in keys] + added
        self._added = None
        self._lazy = None
        self._pods = []
        self._pwa = self._pwra = _NO_PODS
        for r in (self.requested, self.non_zero_requested):
            r.milli_cpu = r.memory = r.ephemeral_storage = 0
            r.scalar.clear()
        self.used_ports.clear()
        self._pods = list(pods)
        if pods:
            self._account_added_pods(self._pods)

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
        if self.journaled:
            _note_changed(self)

    def add_pod(self, pi: PodInfo) -> None:
        pods = self._pods
        if pods is not None:
            pods.append(pi)
        elif pi.has_affinity or pi.has_required_anti_affinity:
            self.pods.append(pi)  # (read: its lists of pods with affinity are kept)
        else:  # a node of the cache whose pods are not read: read later, if ever
            added = self._added
            if added is None:
                self._added = [pi]
            else:
                added.append(pi)
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
        if self.journaled:
            _note_changed(self)

    def _note_affinity(self, pi: PodInfo) -> None:
        """Track a pod with (anti-)affinity terms for InterPodAffinity (the lists start as a
        shared read-only placeholder)."""
        if pi.has_affinity:
            if self._pwa is _NO_PODS:
                self._pwa = [pi]
            else:
                self._pwa.append(pi)
            _AFFINITY_EPOCH[0] += 1
        if pi.has_required_anti_affinity:
            if self._pwra is _NO_PODS:
                self._pwra = [pi]
            else:
                self._pwra.append(pi)
            _AFFINITY_EPOCH[1] += 1

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
        if self.journaled:
            _note_changed(self)

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
                    _AFFINITY_EPOCH[1] += 1
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
        if self.journaled:
            _note_changed(self)

    def clone(self) -> NodeInfo:
        """``Snapshot()``: a copy safe to add/remove pods on (the node object is shared)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.labels = self.labels
        c.taints = self.taints
        c.unschedulable = self.unschedulable
        c._pods = list(self.pods)
        c._pwa = list(self.pods_with_affinity)
        c._pwra = list(self.pods_with_required_anti_affinity)
        c._lazy = None
        c._added = None
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable.clone()
        c.image_states = self.image_states
        c.generation = self.generation
        c.memo = {}
        c.journaled = False
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={self.num_pods()}, requested={self.requested!r})"
