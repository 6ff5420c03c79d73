"""DefaultPreemption: the PostFilter that evicts lower-priority pods to make room.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (``PostFilter``
prefixing the Evaluator's message with "preemption: ", ``calculateNumCandidates`` from
DefaultPreemptionArgs minCandidateNodesPercentage / minCandidateNodesAbsolute,
``GetOffsetAndNumCandidates`` with a random offset, ``SelectVictimsOnNode`` (remove every
lower-priority pod through the PreFilter extensions, check the filters with nominated pods, then
reprieve the most important pods first - PDB-violating ones before the others - counting the
violating victims), ``PodEligibleToPreemptOthers`` (preemptionPolicy Never; a terminating
victim of an earlier preemption on the nominated node), ``filterPodsWithPDBViolation``) and
pkg/scheduler/apis/config/validation/validation_pluginargs.go (``ValidateDefaultPreemptionArgs``).
The Evaluator itself is kubesim.scheduler.framework.preemption.

With SchedulerAsyncPreemption (beta, on in v1.35) the plugin is also a PreEnqueue plugin that
holds a preemptor back while its victims' deletions are still being sent, and registers Pod
Delete with a hint that always answers QueueSkip (the plugins whose rejection the preemption
resolves decide when to retry). kubesim's preemption is synchronous: by the time the preemptor
is back in the queue its victims are all terminating, so its PreEnqueue never holds a pod.
"""

from __future__ import annotations

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    Handle,
    NodeToStatusReader,
    PostFilterPlugin,
    PostFilterResult,
    PreEnqueuePlugin,
)
from kubesim.scheduler.framework.preemption import (
    Candidate,
    Evaluator,
    filter_pods_with_pdb_violation,
    pod_terminating_by_preemption,
    sort_by_importance,
)
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "DefaultPreemption"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_PREEMPTION_VICTIMS = "No preemption victims found for incoming pod"
PREEMPTION_PREFIX = "preemption: "
SITE_POTENTIAL_VICTIM = "default_preemption.go:280"


def validate_args(args: dict) -> list[str]:
    """``ValidateDefaultPreemptionArgs`` (field paths relative to the args)."""
    errs: list[str] = []
    pct = int(args.get("minCandidateNodesPercentage", 10))
    absolute = int(args.get("minCandidateNodesAbsolute", 100))
    if pct < 0 or pct > 100:
        errs.append(f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range "
                    "[0, 100]")
    if absolute < 0:
        errs.append(f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range "
                    "[0, inf)")
    if pct == 0 and absolute == 0:
        errs.append("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same "
                    "time as minCandidateNodesAbsolute")
        errs.append("minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same "
                    "time as minCandidateNodesPercentage")
    return errs


def calculate_num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    """``calculateNumCandidates``: percentage of the nodes, at least ``absolute``, at most all."""
    n = num_nodes * percentage // 100
    n = max(n, absolute)
    n = min(n, num_nodes)
    return n


class DefaultPreemption(PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions):
    name = NAME

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        errs = validate_args(self.args)
        if errs:
            raise ValueError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
        self.min_candidate_nodes_percentage = int(self.args.get("minCandidateNodesPercentage", 10))
        self.min_candidate_nodes_absolute = int(self.args.get("minCandidateNodesAbsolute", 100))
        self.fwk = None
        self.evaluator = Evaluator(NAME, self.handle, self)

    def bind_framework(self, fwk) -> None:
        """The profile's framework, whose filters and PreFilter extensions the dry run uses."""
        self.fwk = fwk

    # -- PreEnqueue and EnqueueExtensions (async preemption) --------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        return None  # IsPodRunningPreemption: never, preemption being synchronous here

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.DELETE),
                                        self.is_pod_schedulable_after_pod_deletion)]

    def is_pod_schedulable_after_pod_deletion(self, pod: dict, old: dict, new: None) -> int:
        return ev.QUEUE_SKIP

    # -- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: PodInfo, node_to_status: NodeToStatusReader
                    ) -> tuple[PostFilterResult | None, Status | None]:
        result, status = self.evaluator.preempt(self.fwk, state, pod, node_to_status)
        msg = status.message() if status is not None else ""
        if msg:
            return result, Status(status.code, PREEMPTION_PREFIX + msg)
        return result, status

    # -- the Evaluator's Interface ---------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        return calculate_num_candidates(num_nodes, self.min_candidate_nodes_percentage,
                                        self.min_candidate_nodes_absolute)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        rng = self.handle.rng
        offset = rng.randrange(num_nodes) if rng is not None and num_nodes > 0 else 0
        return offset, self.calculate_num_candidates(num_nodes)

    def ordered_score_funcs(self, candidates: list[Candidate]):
        return None

    def is_preemption_allowed(self, node: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        """``isPreemptionAllowed``: the victim has a lower priority (IsEligiblePod allows all)."""
        return victim.priority < preemptor.priority

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]:
        if (pod.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nnn = (pod.pod.get("status") or {}).get("nominatedNodeName") or ""
        if nnn:
            # Filters say the nominated node cannot host the pod at all: preempt again.
            if nominated_node_status is not None and \
                    nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            ni = self.handle.snapshot.get(nnn)
            if ni is not None:
                for p in ni.pods:
                    if self.is_preemption_allowed(ni, p, pod) and \
                            pod_terminating_by_preemption(p.pod):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    def select_victims_on_node(self, fwk, state: CycleState, pod: PodInfo, node: NodeInfo,
                               pdbs: list[dict]) -> tuple[list[PodInfo], int, Status | None]:
        """The fewest pods (of lower priority) to remove from ``node`` (a copy) so the pod fits,
        and how many of them violate a PDB."""
        nominated = self.handle.nominated_pods_for_node(node.name)

        def remove_pod(pi: PodInfo) -> Status | None:
            node.remove_pod(pi.key)
            return fwk.run_pre_filter_extension_remove_pod(state, pod, pi, node)

        def add_pod(pi: PodInfo) -> Status | None:
            node.add_pod(pi)
            return fwk.run_pre_filter_extension_add_pod(state, pod, pi, node)

        potential = [pi for pi in node.pods if self.is_preemption_allowed(node, pi, pod)]
        for pi in potential:
            s = remove_pod(pi)
            if s is not None:
                return [], 0, s
        if not potential:
            return [], 0, Status(Code.UnschedulableAndUnresolvable, NO_PREEMPTION_VICTIMS)
        # Does the pod fit once every lower-priority pod is gone?
        s = fwk.run_filter_plugins_with_nominated_pods(state, pod, node, nominated)
        if s is not None and not s.is_success():
            return [], 0, s
        potential = sort_by_importance(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        log = self.handle.log if self.handle.commit else None

        def reprieve(pi: PodInfo) -> tuple[bool, Status | None]:
            s = add_pod(pi)
            if s is not None:
                return False, s
            st = fwk.run_filter_plugins_with_nominated_pods(state, pod, node, nominated)
            fits = st is None or st.is_success()
            if not fits:
                s = remove_pod(pi)
                if s is not None:
                    return False, s
                victims.append(pi)
                if log is not None:
                    log(5, SITE_POTENTIAL_VICTIM, "Pod is a potential preemption victim on node",
                        {"pod": pi.full_name, "node": node.name})
            return fits, None

        num_violating = 0
        for pi in violating:
            fits, err = reprieve(pi)
            if err is not None:
                return [], 0, err
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _, err = reprieve(pi)
            if err is not None:
                return [], 0, err
        if violating and non_violating:
            victims = sort_by_importance(victims)
        return victims, num_violating, None
