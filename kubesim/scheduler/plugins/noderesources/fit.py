"""NodeResourcesFit: the node must have room for the pod's requests; scores by a strategy.

Upstream: pkg/scheduler/framework/plugins/noderesources/fit.go (v1.35). PreFilter computes the
pod's request (containers summed, init containers as running maxima with sidecars accumulating,
pod-level requests, overhead). Filter (``fitsRequest``): "Too many pods" when the node's pod count
+ 1 exceeds allocatable pods; a pod requesting nothing fits otherwise; then for cpu, memory,
ephemeral-storage and each scalar resource the pod requests (> 0, not ignored by
ignoredResources / ignoredResourceGroups for extended resources): "Insufficient <name>" when the
request exceeds allocatable - requested. The status is Unschedulable, or
UnschedulableAndUnresolvable when some request exceeds the node's whole allocatable (preemption
cannot help). PreScore/Score: the scoring strategy (LeastAllocated by default, MostAllocated,
RequestedToCapacityRatio) over the configured resources with the non-zero request defaults.
EventsToRegister (queueing hints on; InPlacePodVerticalScaling GA; DRAExtendedResource off): Pod
Delete|UpdatePodScaleDown, Queue when a scheduled (or nominated) pod is deleted, or the pod itself
or a scheduled pod lowers a request the pod makes (``isSchedulableAfterPodEvent``); Node
Add|UpdateNodeAllocatable, Queue when the pod fits the node's allocatable alone and the node is
new or raised an allocatable the pod requests (``isSchedulableAfterNodeChange``).
Legacy names: PodFitsResources / LeastRequestedPriority (MostRequestedPriority,
RequestedToCapacityRatioPriority).
"""

from __future__ import annotations

from kubesim.api.record import FrozenRecord
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.pod_resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_extended_resource_name,
    is_scalar_resource_name,
    pod_requests_ints,
)
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo, Resource
from kubesim.scheduler.plugins.noderesources.least_allocated import (
    least_resource_scorer,
)
from kubesim.scheduler.plugins.noderesources.most_allocated import most_resource_scorer
from kubesim.scheduler.plugins.noderesources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
    scaled_shape,
)
from kubesim.scheduler.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    resource_specs,
    v10_log,
)

NAME = "NodeResourcesFit"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

REASON_TOO_MANY_PODS = "Too many pods"


def insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


class InsufficientResource(FrozenRecord):
    __slots__ = ("capacity", "reason", "requested", "resource_name", "unresolvable", "used")

    def __init__(self, resource_name: str, reason: str, requested: int, used: int, capacity: int,
                 unresolvable: bool = False):
        self.resource_name = resource_name
        self.reason = reason
        self.requested = requested
        self.used = used
        self.capacity = capacity
        self.unresolvable = unresolvable


def compute_pod_resource_request(pod: dict) -> Resource:
    """``computePodResourceRequest``: the pod's ``PodRequests`` (without status resources: the
    pod is not running yet) as a Resource (``SetMaxResource``)."""
    r = Resource()
    r.set_max_ints(pod_requests_ints(pod))
    return r


def pod_info_resource_request(pi: PodInfo) -> Resource:
    """``compute_pod_resource_request(pi.pod)``, from the requests the PodInfo already holds
    when its status played no part in them."""
    reqs, _, status_free = pi.request_lists
    if not status_free:
        return compute_pod_resource_request(pi.pod)
    r = Resource()
    r.set_max_ints(reqs)
    return r


def fits_request(pod_request: Resource, node: NodeInfo, ignored: frozenset[str] = frozenset(),
                 ignored_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """What the node lacks for the pod (empty: it fits)."""
    out: list[InsufficientResource] = []
    alloc = node.allocatable
    used = node.requested
    allowed = alloc.allowed_pod_number
    if node.num_pods() + 1 > allowed:
        out.append(InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, node.num_pods(), allowed))
    if pod_request.is_zero():
        return out
    r = pod_request.milli_cpu
    if r > 0 and r > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource(CPU, "Insufficient cpu", r, used.milli_cpu,
                                        alloc.milli_cpu, r > alloc.milli_cpu))
    r = pod_request.memory
    if r > 0 and r > alloc.memory - used.memory:
        out.append(InsufficientResource(MEMORY, "Insufficient memory", r, used.memory,
                                        alloc.memory, r > alloc.memory))
    r = pod_request.ephemeral_storage
    if r > 0 and r > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(InsufficientResource(EPHEMERAL_STORAGE, "Insufficient ephemeral-storage", r,
                                        used.ephemeral_storage, alloc.ephemeral_storage,
                                        r > alloc.ephemeral_storage))
    for name in sorted(pod_request.scalar):
        r = pod_request.scalar[name]
        if r == 0:
            continue
        if is_extended_resource_name(name):
            group = name.split("/", 1)[0] if ignored_groups else ""
            if name in ignored or group in ignored_groups:
                continue
        a = alloc.scalar.get(name, 0)
        u = used.scalar.get(name, 0)
        if r > a - u:
            out.append(InsufficientResource(name, insufficient(name), r, u, a, r > a))
    return out


def fits(pod: dict, node: NodeInfo) -> list[InsufficientResource]:
    """``Fits``: the pod's request checked against the node."""
    return fits_request(compute_pod_resource_request(pod), node)


def is_fit(pod: dict, node: dict | None) -> bool:
    """``isFit``: the pod fits the node on its own (no pods on it)."""
    if node is None:
        return False
    return not fits(pod, NodeInfo(node))


def have_any_requested_resources_increased(pod: dict, old: dict, new: dict) -> bool:
    """``haveAnyRequestedResourcesIncreased``: more pod slots, or more of a resource the pod
    requests."""
    req = compute_pod_resource_request(pod)
    a, b = NodeInfo(old).allocatable, NodeInfo(new).allocatable
    if b.allowed_pod_number > a.allowed_pod_number:
        return True
    if req.milli_cpu == 0 and req.memory == 0 and req.ephemeral_storage == 0 and not req.scalar:
        return False
    if (req.milli_cpu > 0 and b.milli_cpu > a.milli_cpu) or (
            req.memory > 0 and b.memory > a.memory) or (
            req.ephemeral_storage > 0 and b.ephemeral_storage > a.ephemeral_storage):
        return True
    return any(q != 0 and b.scalar.get(name, 0) > a.scalar.get(name, 0)
               for name, q in req.scalar.items())


def is_schedulable_after_pod_scale_down(target: dict, old: dict, new: dict) -> bool:
    """``isSchedulableAfterPodScaleDown``: the target pod itself scaled down, or a scheduled pod
    lowered a request of a resource the target requests."""
    if (new.get("metadata") or {}).get("uid") == (target.get("metadata") or {}).get("uid"):
        return True
    if not (new.get("spec") or {}).get("nodeName"):
        return False
    before, after = Resource(), Resource()
    before.set_max_ints(pod_requests_ints(old, use_status=True))
    after.set_max_ints(pod_requests_ints(new, use_status=True))
    for name, v in pod_requests_ints(target, use_status=True).items():
        if v == 0:
            continue
        if name == CPU:
            if before.milli_cpu > after.milli_cpu:
                return True
        elif name == MEMORY:
            if before.memory > after.memory:
                return True
        elif name == EPHEMERAL_STORAGE:
            if before.ephemeral_storage > after.ephemeral_storage:
                return True
        elif is_scalar_resource_name(name) and \
                before.scalar.get(name, 0) > after.scalar.get(name, 0):
            return True
    return False


def simple_fit_reasons(cpu: int, mem: int, eph: int, node: NodeInfo) -> tuple | None:
    """``(code, *reasons)`` of ``status_for(fits_request(req, node))`` for a request of these
    cpu, memory and ephemeral-storage without scalar resources (which the ignored resources
    cannot touch), without the InsufficientResource records; None when it fits."""
    a = node.allocatable
    u = node.requested
    reasons = []
    if node.num_pods() + 1 > a.allowed_pod_number:
        reasons.append(REASON_TOO_MANY_PODS)
    if not cpu and not mem and not eph:
        return (Code.Unschedulable, *reasons) if reasons else None
    unresolvable = False
    if cpu > 0 and cpu > a.milli_cpu - u.milli_cpu:
        reasons.append("Insufficient cpu")
        unresolvable = cpu > a.milli_cpu
    if mem > 0 and mem > a.memory - u.memory:
        reasons.append("Insufficient memory")
        unresolvable = unresolvable or mem > a.memory
    if eph > 0 and eph > a.ephemeral_storage - u.ephemeral_storage:
        reasons.append("Insufficient ephemeral-storage")
        unresolvable = unresolvable or eph > a.ephemeral_storage
    if not reasons:
        return None
    return (Code.UnschedulableAndUnresolvable if unresolvable else Code.Unschedulable, *reasons)


def simple_fit_status(req: Resource, node: NodeInfo) -> Status | None:
    """``status_for(fits_request(req, node))`` for a request without scalar resources."""
    r = simple_fit_reasons(req.milli_cpu, req.memory, req.ephemeral_storage, node)
    return Status(*r) if r is not None else None


def status_for(lacks: list[InsufficientResource]) -> Status | None:
    if not lacks:
        return None
    code = Code.Unschedulable
    if any(x.unresolvable for x in lacks):
        code = Code.UnschedulableAndUnresolvable
    return Status(code, *[x.reason for x in lacks])


def validate_args(args: dict, path: str = "") -> list[str]:
    """The obvious mistakes ``ValidateNodeResourcesFitArgs`` rejects, in its words."""
    errs: list[str] = []
    prefix = f"{path}." if path else ""
    strategy = args.get("scoringStrategy") or {}
    t = strategy.get("type", LEAST_ALLOCATED)
    if t not in STRATEGIES:
        errs.append(f'{prefix}scoringStrategy.type: Unsupported value: "{t}": supported values: '
                    + ", ".join(f'"{s}"' for s in STRATEGIES))
    for i, r in enumerate(strategy.get("resources") or []):
        w = int(r.get("weight") or 0)
        if w <= 0 or w > 100:
            errs.append(f"{prefix}scoringStrategy.resources[{i}].weight: Invalid value: {w}: "
                        f"resource weight of {r.get('name', '')} not in valid range (0, 100]")
    if t == REQUESTED_TO_CAPACITY_RATIO:
        shape = ((strategy.get("requestedToCapacityRatio") or {}).get("shape")) or []
        spath = f"{prefix}scoringStrategy.requestedToCapacityRatio.shape"
        if not shape:
            errs.append(f"{spath}: Required value: at least one point must be specified")
        for i in range(1, len(shape)):
            if int(shape[i - 1].get("utilization", 0)) >= int(shape[i].get("utilization", 0)):
                errs.append(f"{spath}[{i}].utilization: Invalid value: "
                            f"{shape[i].get('utilization', 0)}: utilization values must be "
                            "sorted in increasing order")
                break
        for i, p in enumerate(shape):
            u, s = int(p.get("utilization", 0)), int(p.get("score", 0))
            if u < 0 or u > 100:
                errs.append(f"{spath}[{i}].utilization: Invalid value: {u}: not in valid range "
                            "[0, 100]")
            if s < 0 or s > 10:
                errs.append(f"{spath}[{i}].score: Invalid value: {s}: not in valid range [0, 10]")
    return errs


def build_scorer(args: dict) -> ResourceAllocationScorer:
    strategy = args.get("scoringStrategy") or {}
    t = strategy.get("type") or LEAST_ALLOCATED
    resources = resource_specs(strategy.get("resources"))
    weights = [w for _, w in resources]
    if t == LEAST_ALLOCATED:
        fn = least_resource_scorer(weights)
    elif t == MOST_ALLOCATED:
        fn = most_resource_scorer(weights)
    elif t == REQUESTED_TO_CAPACITY_RATIO:
        shape = ((strategy.get("requestedToCapacityRatio") or {}).get("shape")) or []
        fn = requested_to_capacity_ratio_scorer(weights, scaled_shape(shape))
    else:
        raise ValueError(f"scoring strategy {t} is not supported")
    return ResourceAllocationScorer(t, fn, resources, use_requested=False)


class Fit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        errs = validate_args(self.args)
        if errs:
            raise ValueError(", ".join(errs))
        self.ignored_resources = frozenset(self.args.get("ignoredResources") or ())
        self.ignored_resource_groups = frozenset(self.args.get("ignoredResourceGroups") or ())
        self.scorer = build_scorer(self.args)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.DELETE | ev.UPDATE_POD_SCALE_DOWN),
                                    self.is_schedulable_after_pod_event),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_ALLOCATABLE),
                self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_event(self, pod: dict, old: dict | None,
                                       new: dict | None) -> int:
        if new is None:
            assert old is not None
            if not (old.get("spec") or {}).get("nodeName") and \
                    not (old.get("status") or {}).get("nominatedNodeName"):
                return ev.QUEUE_SKIP
            return ev.QUEUE
        return ev.QUEUE if is_schedulable_after_pod_scale_down(pod, old or {}, new) \
            else ev.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None, new: dict) -> int:
        if not is_fit(pod, new):
            return ev.QUEUE_SKIP
        if old is None:
            return ev.QUEUE
        return ev.QUEUE if have_any_requested_resources_increased(pod, old, new) \
            else ev.QUEUE_SKIP

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        state.write(PRE_FILTER_STATE_KEY, pod_info_resource_request(pod))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        req = state.get(PRE_FILTER_STATE_KEY)
        if req is None:
            return Status(Code.Error, err=f'error reading "{PRE_FILTER_STATE_KEY}" from '
                                          "cycleState: not found")
        if not req.scalar:
            return simple_fit_status(req, node)
        return status_for(fits_request(req, node, self.ignored_resources,
                                       self.ignored_resource_groups))

    def filter_fn(self, state: CycleState, pod: PodInfo):
        req = state.get(PRE_FILTER_STATE_KEY)
        if req is None:
            return super().filter_fn(state, pod)
        ignored, groups = self.ignored_resources, self.ignored_resource_groups
        cpu, mem, eph = req.milli_cpu, req.memory, req.ephemeral_storage
        zero = req.is_zero()
        simple = not req.scalar
        rejections: dict[tuple, Status] = {}  # one Status per (code, reasons) this cycle

        def fn(node: NodeInfo) -> Status | None:
            a = node.allocatable
            if node.num_pods() + 1 <= a.allowed_pod_number:
                if zero:
                    return None
                u = node.requested
                if simple and (cpu <= 0 or cpu <= a.milli_cpu - u.milli_cpu) and (
                        mem <= 0 or mem <= a.memory - u.memory) and (
                        eph <= 0 or eph <= a.ephemeral_storage - u.ephemeral_storage):
                    return None
            if simple and not zero:
                # fits_request + status_for without the InsufficientResource records
                r = simple_fit_reasons(cpu, mem, eph, node)
                if r is None:
                    return None
                st = rejections.get(r)
                if st is None:
                    st = rejections[r] = Status(*r)
                return st
            return status_for(fits_request(req, node, ignored, groups))
        return fn

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, tuple(self.scorer.pod_info_requests(pod)))
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = self.scorer.pod_requests(pod.pod)
        return self.scorer.score_many(nodes, reqs, *v10_log(self.handle, pod))

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = self.scorer.pod_requests(pod.pod)
        return self.scorer.score(node, reqs)
