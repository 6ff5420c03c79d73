"""The scorer shared by NodeResourcesFit's strategies and NodeResourcesBalancedAllocation.

Upstream: pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
(``resourceAllocationScorer.score``: per configured resource, (allocatable, requested) from
``calculateResourceAllocatableRequest`` — cpu and memory from NonZeroRequested unless the scorer
uses plain Requested (BalancedAllocation does), ephemeral-storage and scalar resources from
Requested, an extended resource the pod does not request is left out (0, 0) — and resources with
zero allocatable are skipped; ``calculatePodResourceRequest`` applies the non-zero defaults
100m / 200Mi to containers without cpu/memory requests unless ``useRequested``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import compress, repeat
from operator import is_

from kubesim.scheduler.framework.pod_resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    is_scalar_resource_name,
    pod_requests_ints,
)
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import interned

Scorer = Callable[[Sequence[int], Sequence[int]], int]

DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))


def resource_specs(resources: list[dict] | None) -> list[tuple[str, int]]:
    """[{name, weight}] (defaulted) as (name, weight) pairs."""
    if not resources:
        return list(DEFAULT_RESOURCES)
    return [(r.get("name", ""), int(r.get("weight") or 1)) for r in resources]


def calculate_pod_resource_request_list(pod: dict, resource_names: Iterable[str], *,
                                        use_requested: bool) -> list[int]:
    """``calculatePodResourceRequestList``: the pod's ``PodRequests`` with status resources and,
    unless ``use_requested``, the non-zero defaults for containers without a cpu / memory
    request, for each resource (cpu in millicores)."""
    reqs = pod_requests_ints(pod, use_status=True,
                             non_missing=() if use_requested else (CPU, MEMORY))
    return [reqs.get(name, 0) for name in resource_names]


def pod_info_resource_request_list(pi: PodInfo, resource_names: Iterable[str], *,
                                   use_requested: bool) -> list[int]:
    """``calculate_pod_resource_request_list(pi.pod, ...)``, from the requests the PodInfo
    already holds."""
    reqs = pi.request_lists[0] if use_requested else pi.request_lists[1]
    if reqs is None:
        return calculate_pod_resource_request_list(pi.pod, resource_names,
                                                   use_requested=use_requested)
    return [reqs.get(name, 0) for name in resource_names]


def allocatable_and_requested(node: NodeInfo, resource: str, pod_request: int,
                              use_requested: bool) -> tuple[int, int]:
    """``calculateResourceAllocatableRequest``."""
    if pod_request == 0 and is_scalar_resource_name(resource):
        return 0, 0
    requested = node.requested if use_requested else node.non_zero_requested
    if resource == CPU:
        return node.allocatable.milli_cpu, requested.milli_cpu + pod_request
    if resource == MEMORY:
        return node.allocatable.memory, requested.memory + pod_request
    if resource == EPHEMERAL_STORAGE:
        return node.allocatable.ephemeral_storage, (node.requested.ephemeral_storage
                                                    + pod_request)
    alloc = node.allocatable.scalar.get(resource)
    if alloc is not None:
        return alloc, node.requested.scalar.get(resource, 0) + pod_request
    return 0, 0


# klog call site of the V(10) line (resource_allocation.go ``score``).
SITE_LISTED_INTERNAL_INFO = "resource_allocation.go:168"


def v10_log(handle, pod: PodInfo) -> tuple:
    """(log, pod name) for ``score_many`` when the scheduler logs at V(10), else (None, "")."""
    log = getattr(handle, "log", None)
    if log is not None and handle.v(10):
        return log, pod.full_name
    return None, ""


class ResourceAllocationScorer:
    __slots__ = ("name", "resources", "scorer", "use_requested")

    def __init__(self, name: str, scorer: Scorer, resources: list[tuple[str, int]],
                 use_requested: bool) -> None:
        self.name = name
        self.scorer = scorer
        self.resources = resources
        self.use_requested = use_requested

    def pod_requests(self, pod: dict) -> list[int]:
        """``calculatePodResourceRequestList``."""
        return calculate_pod_resource_request_list(pod, [name for name, _ in self.resources],
                                                   use_requested=self.use_requested)

    def pod_info_requests(self, pi: PodInfo) -> list[int]:
        """``pod_requests(pi.pod)`` from the requests the PodInfo already holds."""
        return pod_info_resource_request_list(pi, [name for name, _ in self.resources],
                                              use_requested=self.use_requested)

    def score(self, node: NodeInfo, pod_requests: Sequence[int], log=None, pod: str = ""
              ) -> tuple[int, Status | None]:
        """``resourceAllocationScorer.score``; with ``log`` (V(10) on) it writes upstream's
        "Listed internal info ..." line for the node."""
        if not self.resources:
            return 0, Status(Code.Error, "resources not found")
        n = len(self.resources)
        requested = [0] * n
        allocatable = [0] * n
        for i, (name, _) in enumerate(self.resources):
            alloc, req = allocatable_and_requested(node, name, pod_requests[i],
                                                   self.use_requested)
            if alloc == 0:
                continue
            allocatable[i] = alloc
            requested[i] = req
        score = self.scorer(requested, allocatable)
        if log is not None:
            log(10, SITE_LISTED_INTERNAL_INFO, "Listed internal info for allocatable resources, "
                "requested resources and score",
                {"pod": pod, "node": node.name, "resourceAllocationScorer": self.name,
                 "allocatableResource": allocatable, "requestedResource": requested,
                 "resourceScore": score})
        return score, None

    def score_many(self, nodes: Sequence[NodeInfo], pod_requests: Sequence[int], log=None,
                   pod: str = "") -> list[int] | Status:
        """``score`` for many nodes, with cpu+memory (the default) inlined; with ``log`` each
        node is scored by ``score`` so that its V(10) line is written."""
        if not self.resources:
            return Status(Code.Error, "resources not found")
        if log is not None:
            return [self.score(node, pod_requests, log, pod)[0] for node in nodes]
        if len(self.resources) == 2 and self.resources[0][0] == CPU and \
                self.resources[1][0] == MEMORY:
            pc, pm = pod_requests[0], pod_requests[1]
            scorer = self.scorer
            use_req = self.use_requested
            kind = getattr(scorer, "kind", "")
            if kind:
                return _score_cpu_memory(kind, getattr(scorer, "weights", (1, 1)), nodes, pc, pm,
                                         use_req)
            out = []
            for node in nodes:
                a = node.allocatable
                r = node.requested if use_req else node.non_zero_requested
                ac, am = a.milli_cpu, a.memory
                out.append(scorer((r.milli_cpu + pc if ac else 0, r.memory + pm if am else 0),
                                  (ac, am)))
            return out
        return [self.score(node, pod_requests)[0] for node in nodes]

    @staticmethod
    def is_best_effort(pod_requests: Sequence[int]) -> bool:
        return all(r == 0 for r in pod_requests)


# Interned memo keys: every input of _score_cpu_memory except the node's own numbers.
_MEMO_KEYS: dict[tuple, tuple] = {}


def _memo_key(*parts) -> tuple:
    return interned(_MEMO_KEYS, parts)


def _score_cpu_memory(kind: str, weights: Sequence[int], nodes: Sequence[NodeInfo], pc: int,
                      pm: int, use_requested: bool) -> list[int]:
    """The default cpu+memory case of the three scorers, inlined (same integer/float steps).

    A node's score depends only on the key below and the node's allocatable and (non-zero)
    requested cpu/memory, which change only with the node's generation; so each node remembers
    its last (key, generation, score) under ``kind`` and the score is computed again only when
    either changed."""
    w0, w1 = weights[0], weights[1]
    key = _memo_key(kind, w0, w1, pc, pm, use_requested)
    # the remembered scores first (None where missing or stale), then the others computed
    out: list = [e[2] if (e := node.memo.get(kind)) is not None and e[0] is key
                 and e[1] == node.generation else None for node in nodes]
    if None not in out:
        return out
    for i in compress(range(len(out)), map(is_, out, repeat(None))):  # the missing ones
        node = nodes[i]
        memo = node.memo
        gen = node.generation
        a = node.allocatable
        r = node.requested if use_requested else node.non_zero_requested
        ac, am = a.milli_cpu, a.memory
        rc, rm = r.milli_cpu + pc, r.memory + pm
        if kind == "balanced":
            if ac and am:
                f0 = float(rc) / float(ac)
                f1 = float(rm) / float(am)
                if f0 > 1:
                    f0 = 1.0
                if f1 > 1:
                    f1 = 1.0
                v = int((1 - abs((f0 - f1) / 2)) * 100.0)
            else:
                v = 100
        else:
            ns = ws = 0
            if ac:
                if kind == "least":
                    s = 0 if rc > ac else (ac - rc) * 100 // ac
                else:
                    s = (min(rc, ac)) * 100 // ac
                ns += s * w0
                ws += w0
            if am:
                if kind == "least":
                    s = 0 if rm > am else (am - rm) * 100 // am
                else:
                    s = (min(rm, am)) * 100 // am
                ns += s * w1
                ws += w1
            v = ns // ws if ws else 0
        memo[kind] = (key, gen, v)
        out[i] = v
    return out
