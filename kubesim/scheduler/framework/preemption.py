"""Preemption's Evaluator: candidates, the dry run, the choice of node, and preparing it.

Upstream: pkg/scheduler/framework/preemption/preemption.go (``Evaluator.Preempt``: fetch the
preemptor, ``PodEligibleToPreemptOthers`` with the nominated node's status, ``findCandidates``
over the nodes whose status is Unschedulable (``NodeToStatus.NodesForStatusCode``),
``DryRunPreemption`` from a random offset on copies of the node and cycle state, keeping
PDB-respecting candidates ahead of violating ones and stopping once it has a non-violating one
and ``numCandidates`` in all, the FitError "0/N nodes are available: ..." with the absent nodes'
"Preemption is not helpful for scheduling", ``SelectCandidate`` and ``pickOneNodeForPreemption``
with its five ordered rules, ``getLowerPriorityNominatedPods``), preemption/executor.go
(``PreemptPod``: the DisruptionTarget condition with reason PreemptionByScheduler and message
"<schedulerName>: preempting to accommodate a higher priority pod", the graceful delete, the
``Preempted`` event "Preempted by pod <uid> on node <node>"; ``prepareCandidateAsync`` clearing
the nominations of lower-priority pods on the node first, skipping victims already being
deleted, and its V(2) lines; ``clearNominatedNodeName``) and pkg/scheduler/util/utils.go
(``MoreImportantPod``, ``GetPodStartTime``, ``GetEarliestPodStartTime``).

kubesim's choices (deterministic, documented):

* The dry run checks nodes one after another from the offset (upstream: 16 goroutines, so which
  nodes are checked before it stops can vary); the offset is drawn from the cycle's seeded rng.
* ``pickOneNodeForPreemption`` walks the candidates in dry-run order (upstream: Go map order, i.e.
  at random); when every rule ties, the first candidate wins.
* SchedulerAsyncPreemption is on by default in v1.35: the preemptor gets its nominated node at
  once and the API calls run in a goroutine. Here they are requests the engine carries out right
  after the cycle, before anything else runs, so the outcome is the same as the goroutine's.
* A pod without ``status.startTime`` starts "now" (upstream uses time.Now()); here that is later
  than any recorded start time.
* Besides deciding, the Evaluator records what it saw (``analysis``) for explain-schedule.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from kubesim.api.record import Record
from kubesim.scheduler.framework.interface import PostFilterResult
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kubesim.scheduler.framework.cycle_state import CycleState
    from kubesim.scheduler.framework.interface import Handle, NodeToStatusReader
    from kubesim.scheduler.framework.runtime import Framework

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_CANDIDATE_NODE = "no candidate node for preemption"
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
PREEMPTED_REASON = "Preempted"
# Cycle-state key under which the Evaluator leaves its analysis for explanations.
ANALYSIS_KEY = "kubesim.io/preemption-analysis"

# The rules of pickOneNodeForPreemption, in order, as explain-schedule names them.
RULE_PDB = "fewest PDB violations"
RULE_HIGHEST_PRIORITY = "lowest highest-victim priority"
RULE_SUM_PRIORITIES = "lowest sum of victim priorities"
RULE_NUM_PODS = "fewest victims"
RULE_START_TIME = "latest start time of the highest-priority victims"
RULE_FIRST = "first candidate (every rule tied)"
RULE_ONLY = "the only candidate"
DEFAULT_RULES = (RULE_PDB, RULE_HIGHEST_PRIORITY, RULE_SUM_PRIORITIES, RULE_NUM_PODS,
                 RULE_START_TIME)

_MAX_INT32 = (1 << 31) - 1
_MIN_INT64 = -(1 << 63)

# klog call sites (preemption.go / executor.go of the v1.35 era; lines approximate).
SITE_NOT_ELIGIBLE = "preemption.go:285"
SITE_NO_CANDIDATE = "preemption.go:301"
SITE_TARGET = "preemption.go:327"
SITE_WILL_NOT_HELP = "preemption.go:354"
SITE_DRY_RUN = "preemption.go:779"
SITE_CHECK_NODE = "preemption.go:785"
SITE_ALREADY_DELETING = "preemption.go:546"
SITE_START_ASYNC = "preemption.go:582"
SITE_PREEMPTED_VICTIM = "preemption.go:213"
SITE_ASYNC_DONE = "preemption.go:627"


class Candidate(Record):
    """A node where the preemptor fits once ``victims`` (most important first) are gone."""

    __slots__ = ("name", "num_pdb_violations", "victims")

    def __init__(self, name: str, victims: list[PodInfo], num_pdb_violations: int = 0):
        self.name = name
        self.victims = victims
        self.num_pdb_violations = num_pdb_violations


# -- pod ordering (pkg/scheduler/util/utils.go) -------------------------------------------------
def pod_start_time(pod: dict) -> float:
    """``GetPodStartTime``: status.startTime, or "now" (later than any recorded time)."""
    s = (pod.get("status") or {}).get("startTime")
    if not s:
        return math.inf
    try:
        return datetime.fromisoformat(str(s)).timestamp()
    except ValueError:
        return math.inf


def more_important_pod(p1: PodInfo, p2: PodInfo) -> bool:
    """``MoreImportantPod``: higher priority, then the earlier start time."""
    if p1.priority != p2.priority:
        return p1.priority > p2.priority
    return pod_start_time(p1.pod) < pod_start_time(p2.pod)


def sort_by_importance(pods: list[PodInfo]) -> list[PodInfo]:
    """Most important first (a stable sort by ``MoreImportantPod``)."""
    return sorted(pods, key=lambda p: (-p.priority, pod_start_time(p.pod)))


def earliest_pod_start_time(victims: list[PodInfo]) -> float | None:
    """``GetEarliestPodStartTime``: the earliest start among the highest-priority victims."""
    if not victims:
        return None
    earliest = pod_start_time(victims[0].pod)
    max_priority = victims[0].priority
    for p in victims:
        if p.priority == max_priority:
            t = pod_start_time(p.pod)
            earliest = min(earliest, t)
        elif p.priority > max_priority:
            max_priority = p.priority
            earliest = pod_start_time(p.pod)
    return earliest


# -- choosing the node -------------------------------------------------------------------------
def default_score_funcs(candidates: dict[str, Candidate]) -> list[tuple[str, Callable[[str], float]]]:
    """pickOneNodeForPreemption's rules as (name, score function): the higher the better."""

    def pdb(node: str) -> float:
        return -candidates[node].num_pdb_violations

    def highest(node: str) -> float:
        return -candidates[node].victims[0].priority

    def total(node: str) -> float:
        # MaxInt32+1 added to every priority, so negative priorities count as costs too.
        return -sum(p.priority + _MAX_INT32 + 1 for p in candidates[node].victims)

    def num(node: str) -> float:
        return -len(candidates[node].victims)

    def latest(node: str) -> float:
        t = earliest_pod_start_time(candidates[node].victims)
        return _MIN_INT64 if t is None else t

    return list(zip(DEFAULT_RULES, (pdb, highest, total, num, latest)))


def pick_one_node_for_preemption(candidates: list[Candidate],
                                 score_funcs: list | None = None) -> tuple[str, str]:
    """The node to preempt on and the rule that decided, applying each rule to the nodes still
    tied after the previous ones (victims are ordered most important first)."""
    if not candidates:
        return "", ""
    by_name = {c.name: c for c in candidates}
    funcs = score_funcs or default_score_funcs(by_name)
    remaining = [c.name for c in candidates]
    for rule, f in funcs:
        best = -math.inf
        selected: list[str] = []
        for node in remaining:
            score = f(node)
            if score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0], rule
        remaining = selected
    return remaining[0], RULE_FIRST


# -- PDBs ----------------------------------------------------------------------------------------
def filter_pods_with_pdb_violation(pods: list[PodInfo], pdbs: list[dict]
                                   ) -> tuple[list[PodInfo], list[PodInfo]]:
    """``filterPodsWithPDBViolation``: (violating, non-violating), each in the input's order.
    Each matching PDB's status.disruptionsAllowed is used up pod by pod; a pod already listed
    in the PDB's status.disruptedPods does not use it up."""
    from kubesim.api.selectors import from_label_selector

    allowed = [int((p.get("status") or {}).get("disruptionsAllowed") or 0) for p in pdbs]
    selectors = []
    for p in pdbs:
        try:
            selectors.append(from_label_selector((p.get("spec") or {}).get("selector")))
        except ValueError:
            selectors.append(None)
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pods:
        meta = pi.pod.get("metadata") or {}
        labels = meta.get("labels") or {}
        violated = False
        if labels:
            for i, pdb in enumerate(pdbs):
                pmeta = pdb.get("metadata") or {}
                if (pmeta.get("namespace") or "default") != pi.namespace:
                    continue
                sel = selectors[i]
                if sel is None or sel.empty or not sel.matches(labels):
                    continue
                if pi.name in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


# -- the FitError text ---------------------------------------------------------------------------
def fit_error_message(num_all_nodes: int, statuses: dict[str, Status], absent: Status) -> str:
    """``FitError.Error`` for a NodeToStatus (no PreFilter or PostFilter message)."""
    counts: dict[str, int] = {}
    for st in statuses.values():
        for r in st.all_reasons():
            counts[r] = counts.get(r, 0) + 1
    if len(statuses) < num_all_nodes:
        for r in absent.all_reasons():
            counts[r] = counts.get(r, 0) + num_all_nodes - len(statuses)
    msg = f"0/{num_all_nodes} nodes are available:"
    items = sorted(f"{v} {k}" for k, v in counts.items())
    if items:
        msg += " " + ", ".join(items) + "."
    return msg


def _stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _ref(pi: PodInfo) -> dict:
    return {"namespace": pi.namespace, "name": pi.name, "priority": pi.priority}


class Analysis(Record):
    """What explain-schedule shows of one PostFilter run."""

    __slots__ = ("candidates", "candidates_to_find", "decided_by", "eligible", "node", "not_checked", "not_helpful",
                 "offset", "potential_nodes", "reason")

    def __init__(self, eligible: bool = True, reason: str = "", potential_nodes: int = 0, offset: int = 0,
                 candidates_to_find: int = 0, candidates: list[Candidate] | None = None,
                 not_helpful: dict[str, str] | None = None, not_checked: int = 0, node: str = "",
                 decided_by: str = ""):
        self.eligible = eligible
        self.reason = reason
        self.potential_nodes = potential_nodes
        self.offset = offset
        self.candidates_to_find = candidates_to_find
        self.candidates = [] if candidates is None else candidates
        self.not_helpful = {} if not_helpful is None else not_helpful
        self.not_checked = not_checked
        self.node = node
        self.decided_by = decided_by

    def as_dict(self) -> dict:
        out: dict = {"eligible": self.eligible}
        if not self.eligible:
            out["reason"] = self.reason
            return out
        out["potentialNodes"] = self.potential_nodes
        out["candidates"] = [{"node": c.name, "victims": [_ref(v) for v in c.victims],
                              "numPDBViolations": c.num_pdb_violations}
                             for c in self.candidates]
        out["notHelpful"] = dict(self.not_helpful)
        if self.not_checked:
            out["notChecked"] = self.not_checked
        out["chosen"] = self.node or None
        out["decidedBy"] = self.decided_by or None
        return out


class Evaluator:
    """Runs preemption for a PostFilter plugin implementing the Interface methods:
    ``get_offset_and_num_candidates(n)``, ``pod_eligible_to_preempt_others(pod, status)``,
    ``select_victims_on_node(fwk, state, pod, node_info, pdbs)`` and
    ``ordered_score_funcs(candidates)``."""

    def __init__(self, plugin_name: str, handle: Handle, interface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface

    def _log(self, level: int, site: str, message: str, kv: dict) -> None:
        h = self.handle
        if h.commit and h.log is not None:
            h.log(level, site, message, kv)

    # -- Preempt ---------------------------------------------------------------------------
    def preempt(self, fwk: Framework, state: CycleState, pod: PodInfo,
                m: NodeToStatusReader) -> tuple[PostFilterResult | None, Status]:
        analysis = Analysis()
        state.write(ANALYSIS_KEY, analysis)
        full = pod.full_name
        # 0) the latest version of the preemptor (as given when it is not stored: explain -f).
        latest = None
        if self.handle.get_object is not None:
            latest = self.handle.get_object("Pod", pod.namespace, pod.name)
        if latest is not None and (latest.get("metadata") or {}).get("uid") == \
                (pod.pod.get("metadata") or {}).get("uid"):
            pod = PodInfo(latest)
        # 1) eligibility.
        nnn = (pod.pod.get("status") or {}).get("nominatedNodeName") or ""
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, m.get(nnn))
        if not ok:
            analysis.eligible, analysis.reason = False, msg
            self._log(5, SITE_NOT_ELIGIBLE, "Pod is not eligible for preemption",
                      {"pod": full, "reason": msg})
            return None, Status(Code.Unschedulable, msg)
        # 2) candidates.
        all_nodes = self.handle.snapshot.node_info_list
        if not all_nodes:
            return None, Status(Code.Error, err="no nodes available")
        candidates, statuses, absent, err = self.find_candidates(fwk, state, all_nodes, pod, m,
                                                                 analysis)
        if err is not None and not candidates:
            return None, err
        if not candidates:
            self._log(2, SITE_NO_CANDIDATE, "No preemption candidate is found; preemption is not "
                      "helpful for scheduling", {"pod": full})
            absent = Status(Code.UnschedulableAndUnresolvable, PREEMPTION_NOT_HELPFUL)
            for ni in all_nodes:
                if ni.name not in statuses:
                    analysis.not_helpful.setdefault(ni.name, PREEMPTION_NOT_HELPFUL)
            return (PostFilterResult("", mode_override=True),
                    Status(Code.Unschedulable, fit_error_message(len(all_nodes), statuses, absent)))
        # 3) extenders: kubesim has none.
        # 4) the best candidate.
        best, rule = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.Unschedulable, NO_CANDIDATE_NODE)
        analysis.node, analysis.decided_by = best.name, rule
        self._log(2, SITE_TARGET, "the target node for the preemption is determined",
                  {"node": best.name, "pod": full})
        # 5) prepare it (asynchronous preemption: requests the engine carries out).
        self.prepare_candidate_async(best, pod)
        return PostFilterResult(best.name, mode_override=True), Status(Code.Success)

    def find_candidates(self, fwk: Framework, state: CycleState, all_nodes: list[NodeInfo],
                        pod: PodInfo, m: NodeToStatusReader, analysis: Analysis
                        ) -> tuple[list[Candidate], dict[str, Status], Status, Status | None]:
        potential: list[NodeInfo] = []
        for ni in all_nodes:
            st = m.get(ni.name)
            if st is not None and st.code == Code.Unschedulable:
                potential.append(ni)
            else:
                why = st.message() if st is not None else ""
                analysis.not_helpful[ni.name] = PREEMPTION_NOT_HELPFUL + (f" ({why})" if why else "")
        analysis.potential_nodes = len(potential)
        default_absent = Status(Code.UnschedulableAndUnresolvable)
        if not potential:
            self._log(3, SITE_WILL_NOT_HELP, "Preemption will not help schedule pod on any node",
                      {"pod": pod.full_name})
            return [], {}, default_absent, None
        pdbs: list[dict] = []
        if self.handle.list_objects is not None:
            pdbs = list(self.handle.list_objects("PodDisruptionBudget", None) or [])
        offset, num = self.interface.get_offset_and_num_candidates(len(potential))
        analysis.offset, analysis.candidates_to_find = offset, num
        cands, statuses, err = self.dry_run_preemption(fwk, state, pod, potential, pdbs, offset,
                                                       num, analysis)
        return cands, statuses, default_absent, err

    def dry_run_preemption(self, fwk: Framework, state: CycleState, pod: PodInfo,
                           potential: list[NodeInfo], pdbs: list[dict], offset: int,
                           num_candidates: int, analysis: Analysis | None = None
                           ) -> tuple[list[Candidate], dict[str, Status], Status | None]:
        """``DryRunPreemption``: candidates (PDB-respecting ones first) and the statuses of the
        nodes where preemption does not help."""
        self._log(5, SITE_DRY_RUN, "Dry run the preemption",
                  {"potentialNodesNumber": len(potential), "pdbsNumber": len(pdbs),
                   "offset": offset, "candidatesNumber": num_candidates})
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errs: list[str] = []
        n = len(potential)
        checked = 0
        for i in range(n):
            ni = potential[(offset + i) % n].clone()
            checked += 1
            self._log(5, SITE_CHECK_NODE, "Check the potential node for preemption",
                      {"node": ni.name})
            victims, num_pdb, st = self.interface.select_victims_on_node(
                fwk, state.clone(), pod, ni, pdbs)
            if (st is None or st.is_success()) and victims:
                c = Candidate(ni.name, victims, num_pdb)
                (non_violating if num_pdb == 0 else violating).append(c)
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if st is None or st.is_success():
                st = Status(Code.Error, err=f'expected at least one victim pod on node "{ni.name}"')
            if st.code == Code.Error:
                errs.append(st.as_error() or "")
            statuses[ni.name] = st
            if analysis is not None:
                analysis.not_helpful[ni.name] = st.message()
        cands = non_violating[:num_candidates] + violating[:num_candidates]
        if analysis is not None:
            analysis.candidates = cands
            analysis.not_checked = n - checked
        err = Status(Code.Error, err="; ".join(errs) if len(errs) == 1 else
                     "[" + ", ".join(errs) + "]") if errs else None
        return cands, statuses, err

    def select_candidate(self, candidates: list[Candidate]) -> tuple[Candidate | None, str]:
        """``SelectCandidate`` and the rule that decided."""
        if not candidates:
            return None, ""
        if len(candidates) == 1:
            return candidates[0], RULE_ONLY
        funcs = self.interface.ordered_score_funcs(candidates)
        name, rule = pick_one_node_for_preemption(candidates, funcs)
        for c in candidates:
            if c.name == name:
                return c, rule
        return candidates[0], RULE_FIRST

    # -- the executor ------------------------------------------------------------------------
    def prepare_candidate_async(self, c: Candidate, pod: PodInfo) -> None:
        """Ask the API server for what ``prepareCandidateAsync`` does: clear the nominations of
        lower-priority pods on the node, then preempt each victim not already being deleted.
        Upstream runs it on a fresh context (``context.Background()``): its lines carry neither
        the PostFilter plugin's logger name nor the cycle's pod."""
        h = self.handle
        saved = h.log_name, h.log_values
        h.log_name, h.log_values = "", {}
        try:
            self._prepare_candidate_async(c, pod)
        finally:
            h.log_name, h.log_values = saved

    def _prepare_candidate_async(self, c: Candidate, pod: PodInfo) -> None:
        full = pod.full_name
        to_delete = []
        for v in c.victims:
            if (v.pod.get("metadata") or {}).get("deletionTimestamp"):
                self._log(2, SITE_ALREADY_DELETING, "Victim Pod is already being deleted, "
                          "skipping the API call for it",
                          {"preemptor": full, "node": c.name, "victim": v.full_name})
                continue
            to_delete.append(v)
        if not to_delete:
            return
        self._log(2, SITE_START_ASYNC, "Start the preemption asynchronously",
                  {"preemptor": full, "node": c.name, "numVictims": len(c.victims),
                   "numVictimsToDelete": len(to_delete)})
        for p in self.lower_priority_nominated_pods(pod, c.name):
            if not (p.pod.get("status") or {}).get("nominatedNodeName"):
                continue
            obj = copy.deepcopy(p.pod)
            obj["status"].pop("nominatedNodeName", None)
            self.handle.request("update_status", obj)
        for v in to_delete:
            self.preempt_pod(c, pod, v)
        self._log(2, SITE_ASYNC_DONE, "Async Preemption finished completely",
                  {"preemptor": full, "node": c.name, "result": "success"})

    def lower_priority_nominated_pods(self, pod: PodInfo, node_name: str) -> list[PodInfo]:
        """``getLowerPriorityNominatedPods``."""
        return [p for p in self.handle.nominated_pods_for_node(node_name)
                if p.priority < pod.priority]

    def preempt_pod(self, c: Candidate, preemptor: PodInfo, victim: PodInfo) -> None:
        """``PreemptPod``: the DisruptionTarget condition, then a graceful delete, then the
        ``Preempted`` event on the victim."""
        scheduler_name = (preemptor.pod.get("spec") or {}).get("schedulerName") or \
            "default-scheduler"
        cond = {"lastProbeTime": None, "lastTransitionTime": _stamp(self.handle.now),
                "message": f"{scheduler_name}: preempting to accommodate a higher priority pod",
                "reason": PREEMPTION_BY_SCHEDULER, "status": "True", "type": DISRUPTION_TARGET}
        # CalculatePodConditionObservedGeneration: PodObservedGenerationTracking is GA (locked
        # on) in v1.35, so the condition observes the victim's generation (omitted when 0).
        generation = (victim.pod.get("metadata") or {}).get("generation") or 0
        if generation:
            cond["observedGeneration"] = generation
        obj = copy.deepcopy(victim.pod)
        status = obj.setdefault("status", {})
        conds = status.setdefault("conditions", [])
        for i, old in enumerate(conds):
            if old.get("type") == DISRUPTION_TARGET:
                if old.get("status") == cond["status"]:
                    cond["lastTransitionTime"] = old.get("lastTransitionTime")
                conds[i] = cond
                break
        else:
            conds.append(cond)
        self.handle.request("update_status", obj)
        uid = (preemptor.pod.get("metadata") or {}).get("uid") or ""
        self.handle.request("delete", obj, [("Normal", PREEMPTED_REASON, "Preempting",
                                             f"Preempted by pod {uid} on node {c.name}", preemptor.pod)])
        self._log(2, SITE_PREEMPTED_VICTIM, "Preemptor Pod preempted victim Pod",
                  {"preemptor": preemptor.full_name, "victim": victim.full_name,
                   "node": c.name})


def pod_terminating_by_preemption(pod: dict) -> bool:
    """``podTerminatingByPreemption``: being deleted, with DisruptionTarget=True for reason
    PreemptionByScheduler."""
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == DISRUPTION_TARGET:
            return c.get("status") == "True" and c.get("reason") == PREEMPTION_BY_SCHEDULER
    return False
