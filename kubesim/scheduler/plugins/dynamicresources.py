"""DynamicResources: a pod's ResourceClaims must exist and be allocatable; for every other pod it
steps aside, leaving only its PostFilter's "no new claims to deallocate" in the message.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (v1.35, DRA GA and
in the default profile just before DefaultPreemption), with the claim name rules of
staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go (``Name``) and the
claim cache's miss of pkg/scheduler/util/assumecache/assume_cache.go (``NotFoundError``, the
scheduler's cache being described as "ResourceClaim"). What it does for a pod:

- PreEnqueue (``foreachPodResourceClaim``): every claim in ``spec.resourceClaims`` must exist.
  A claim named by ``resourceClaimName`` that is missing: 'could not find ResourceClaim
  "<ns>/<name>"'; a claim from ``resourceClaimTemplateName`` without its entry in
  ``status.resourceClaimStatuses``: 'pod "<ns>/<pod>": ResourceClaim not created yet' (an entry
  without a claim name means none was meant to be generated: skipped). Either is
  UnschedulableAndUnresolvable (``statusUnschedulable``) and keeps the pod out of the active
  queue, like a scheduling gate, with no event and no condition.
- PreFilter writes its (empty) cycle state first, then: the same missing-claim status, or Skip
  when the pod has no claims, so its Filter does not run and costs nothing.
- Filter passes a pod without claims; Score gives it 0 on every node (the Score added for the
  DRAPrioritizedList feature, kubernetes#134711), NormalizeScore is DefaultNormalizeScore, and
  the default profile weighs it 1; Reserve, Unreserve and PreBind do nothing for it.
- PostFilter, run before DefaultPreemption: Unschedulable "no new claims to deallocate" for a pod
  without claims. The framework (runtime/framework.go ``RunPostFilterPlugins``) goes on to
  DefaultPreemption and joins the reasons with ", ", so a FailedScheduling message reads
  "0/4 nodes are available: <filter reasons>. no new claims to deallocate, preemption: ...";
  preemption still nominates a node. When an earlier PreFilter plugin rejected the pod as
  UnschedulableAndUnresolvable, this plugin's PreFilter never ran and its state is missing:
  PostFilter fails with the cycle state's Error "not found", which stops the PostFilter plugins
  (no preemption) and ends the message: "0/3 nodes are available: pod has unbound immediate
  PersistentVolumeClaims. not found", as a v1.35 cluster prints it.

Dynamic Resource Allocation itself is not simulated: kubesim serves no ResourceClaim,
ResourceClaimTemplate, DeviceClass or ResourceSlice, so every claim a pod references is missing
and such a pod waits in the queue as upstream's does until its claims exist. The allocation
path (structured parameters, device classes, claim deallocation in PostFilter, reservation in
PreBind), SignPod (opportunistic batching) and PreBindPreFlight are therefore left out.
EventsToRegister is upstream's (queueing hints on): Node Add|UpdateNodeLabel|UpdateNodeAllocatable,
without a QueueingHintFn; ResourceClaim Add|Update (``isSchedulableAfterClaimChange``); Pod
UpdatePodGeneratedResourceClaim, Queue when the pod's own claims can all be found now
(``isSchedulableAfterPodChange``); DeviceClass and ResourceSlice Add|Update, without hints. With
no claim ever found, a pod this plugin keeps out of the queue stays there; the claim hint reads
the claims as found (always none). No legacy predicate or priority name.
"""

from __future__ import annotations

from kubesim.api.record import FrozenRecord
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    NodeToStatusReader,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import (
    default_normalize_list,
    default_normalize_score,
)

NAME = "DynamicResources"
STATE_KEY = NAME

# PostFilter, for a pod without claims.
NO_NEW_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
# resourceclaim.ErrClaimNotFound / ErrAPIUnsupported.
ERR_CLAIM_NOT_CREATED = "ResourceClaim not created yet"
ERR_API_UNSUPPORTED = "none of the supported fields are set"
# CycleState.Read of a key nobody wrote (fwk.ErrNotFound).
ERR_STATE_NOT_FOUND = "not found"


def claim_not_found(namespace: str, name: str) -> str:
    """The claim cache's miss (assumecache ``NotFoundError``, description "ResourceClaim")."""
    return f'could not find ResourceClaim "{namespace}/{name}"'


def claim_name(pod: dict, namespace: str, pod_claim: dict) -> tuple[str | None, str | None]:
    """``resourceclaim.Name``: (the ResourceClaim's name or None when none was generated on
    purpose, the error text or None)."""
    name = pod_claim.get("resourceClaimName")
    if name is not None:
        return name, None
    pod_name = (pod.get("metadata") or {}).get("name", "")
    if pod_claim.get("resourceClaimTemplateName") is not None:
        for st in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
            if st.get("name") == pod_claim.get("name"):
                return st.get("resourceClaimName"), None
        return None, f'pod "{namespace}/{pod_name}": {ERR_CLAIM_NOT_CREATED}'
    return None, (f'pod "{namespace}/{pod_name}", spec.resourceClaim '
                  f'"{pod_claim.get("name", "")}": {ERR_API_UNSUPPORTED}')


def missing_claim(pod: dict, namespace: str) -> str | None:
    """``foreachPodResourceClaim`` against kubesim's claim cache, which is always empty: the
    first claim that cannot be found (its error text), or None when the pod needs no claim."""
    for pod_claim in (pod.get("spec") or {}).get("resourceClaims") or ():
        name, err = claim_name(pod, namespace, pod_claim)
        if err is not None:
            return err
        if name is None:
            continue
        return claim_not_found(namespace, name)
    return None


class _State(FrozenRecord):
    """The claims of the pod (always none that kubesim can hold); immutable, so a clone is
    the same object (upstream's ``stateData.Clone`` returns itself too)."""

    __slots__ = ("claims",)

    def __init__(self, claims: tuple = ()):
        self.claims = claims

    def clone(self) -> _State:
        return self


_NO_CLAIMS = _State()


def _read_state(state: CycleState) -> _State | None:
    return state.get(STATE_KEY)


def _state_error() -> Status:
    return Status(Code.Error, err=ERR_STATE_NOT_FOUND)


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ScorePlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions):
    name = NAME

    # -- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(
                ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_ALLOCATABLE)),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.RESOURCE_CLAIM, ev.ADD | ev.UPDATE),
                                    self.is_schedulable_after_claim_change),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self.is_schedulable_after_pod_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.DEVICE_CLASS, ev.ADD | ev.UPDATE)),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.RESOURCE_SLICE, ev.ADD | ev.UPDATE)),
        ]

    def is_schedulable_after_claim_change(self, pod: dict, old: dict | None, new: dict) -> int:
        ns = (pod.get("metadata") or {}).get("namespace") or ""
        if missing_claim(pod, ns) is not None:
            return ev.QUEUE_SKIP  # some claim of the pod cannot be found
        if old is not None and (old.get("status") or {}).get("allocation") is not None and \
                (new.get("status") or {}).get("allocation") is None:
            return ev.QUEUE  # a claim was deallocated: resources may be free
        return ev.QUEUE_SKIP  # the pod uses no claim kubesim can hold

    def is_schedulable_after_pod_change(self, pod: dict, old: dict | None, new: dict) -> int:
        if (pod.get("metadata") or {}).get("uid") != (new.get("metadata") or {}).get("uid"):
            return ev.QUEUE_SKIP
        ns = (new.get("metadata") or {}).get("namespace") or ""
        return ev.QUEUE_SKIP if missing_claim(new, ns) is not None else ev.QUEUE

    # -- PreEnqueue ------------------------------------------------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if not (pod.pod.get("spec") or {}).get("resourceClaims"):
            return None
        err = missing_claim(pod.pod, pod.namespace)
        if err is None:
            return None
        return Status(Code.UnschedulableAndUnresolvable, err)

    # -- PreFilter -------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(STATE_KEY, _NO_CLAIMS)
        if (pod.pod.get("spec") or {}).get("resourceClaims"):
            err = missing_claim(pod.pod, pod.namespace)
            if err is not None:
                return None, Status(Code.UnschedulableAndUnresolvable, err)
        return None, SKIP

    # -- Filter ----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = _read_state(state)
        if s is None:
            return _state_error()
        return None  # no claims: nothing to check

    def filter_fn(self, state: CycleState, pod: PodInfo):
        if _read_state(state) is None:
            return super().filter_fn(state, pod)
        return None

    # -- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: PodInfo, node_to_status: NodeToStatusReader
                    ) -> tuple[PostFilterResult | None, Status | None]:
        if _read_state(state) is None:
            return None, _state_error()
        return None, Status(Code.Unschedulable, NO_NEW_CLAIMS_TO_DEALLOCATE)

    # -- Score -----------------------------------------------------------------------------
    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        if _read_state(state) is None:
            return 0, _state_error()
        return 0, None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        if _read_state(state) is None:
            return _state_error()
        return [0] * len(nodes)

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    def normalize_list(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int]:
        s = _read_state(state)
        if s is not None and not s.claims:
            return scores  # all 0, which DefaultNormalizeScore leaves as they are
        return default_normalize_list(MAX_NODE_SCORE, False, scores)

    # -- Reserve, PreBind ------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        if _read_state(state) is None:
            return _state_error()
        return None

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        if _read_state(state) is None:
            return _state_error()
        return None
