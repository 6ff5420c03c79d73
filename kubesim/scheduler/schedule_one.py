"""One pod's scheduling cycle and binding cycle: the methods schedule_one.go gives the Scheduler.

Upstream: pkg/scheduler/schedule_one.go (v1.35: ``ScheduleOne``, ``schedulingCycle``,
``bindingCycle``, ``schedulePod``, ``findNodesThatFitPod`` with the nominated-node fast path and
PreFilterResult node subsets, ``findNodesThatPassFilters`` starting at the rotating
``nextStartNodeIndex`` and stopping once ``numFeasibleNodesToFind`` feasible nodes are found,
``numFeasibleNodesToFind`` (all nodes below 100; else percentageOfNodesToScore, 0 meaning
50 - nodes/125 with a floor of 5%, and never fewer than 100 nodes), ``prioritizeNodes`` and its
V(10) lines, the single-feasible-node shortcut without scoring, ``assume``, Reserve/Permit,
PreBind/Bind/PostBind, ``handleSchedulingFailure`` and the FailedScheduling event truncated to
1024 characters), pkg/scheduler/framework/types.go (``Diagnosis``, ``FitError.Error``: "0/N
nodes are available: " + the PreFilter message or the sorted "<count> <reason>" histogram + the
PostFilter message), pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
pkg/scheduler/framework/preemption/preemption.go (the "preemption: ..." tail; the PostFilter
result's nominated node, recorded in status.nominatedNodeName and in the pod nominator, which
``handleSchedulingFailure`` updates and ``assume`` clears).

Choices kubesim makes (documented, deterministic):

* Ties between the best totals: v1.35 breaks them at random (a heap with a random tiebreaker,
  on top of the nondeterministic order parallel filtering produces; releases up to v1.34 used
  reservoir sampling in ``selectHost``); kubesim draws once from the injected ``rng`` among the
  tied nodes in evaluation order — uniform like both, and repeatable with a seed. ``explain``
  uses a copy of the rng state, so it predicts the very choice the next ``schedule_one`` would
  make without consuming randomness (kubesim/scheduler/explain.py records the attempt).
* Filters run sequentially; "stop after numFeasibleNodesToFind" is exact rather than racy.
* PostFilter (DefaultPreemption, kubesim/scheduler/plugins/defaultpreemption.py) runs only
  when no node fits, so it costs nothing while pods fit. Its analysis (eligibility, candidates
  and their victims, the nodes where preemption does not help, the rule that chose the node) is
  recorded under ``explanation["preemption"]``, with each PostFilter plugin's status that ran
  (``"postFilter": {plugin: {"code", "message"}}``); explaining evaluates it with the rng copy
  and drops its API requests.
* A PreFilter rejection stops the PreFilter plugins, as upstream's; for the explanation the
  ones left out then run on a copy of the cycle state, so that PostFilter plugins see only
  what upstream's would.
* Permit plugins asking to Wait cannot be released by anything in kubesim; the wait is treated
  as having timed out ("rejected due to timeout after waiting <t> at plugin <p>").
* Log sites are upstream's file:line in v1.35.4. Lines logged inside a plugin carry the
  contextual logger framework.go gives it when V(4) is on (``logger="Bind.DefaultBinder"``,
  with ``node`` for Reserve, Permit and PreBind); every line of the cycle carries the pod
  (ScheduleOne's ``klog.LoggerWithValues(logger, "pod", ...)``).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from itertools import compress, islice, repeat
from operator import eq
from typing import TYPE_CHECKING

from kubesim.api.record import Record
from kubesim.clock import format_duration
from kubesim.scheduler.explain import (
    base_explanation,
    explain_nodes,
    filter_verdicts,
    pre_filter_rejection_verdicts,
    trace_pre_filter,
    trace_scheduling,
)
from kubesim.scheduler.framework import equivalence
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.runtime import (
    Framework,
    NodeToStatus,
    ScoreTable,
    go_list,
)
from kubesim.scheduler.framework.status import _REJECTED as _REJECTED_CODES
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.trace import Trace
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kubesim.scheduler.framework.interface import Handle
    from kubesim.scheduler.framework.snapshot import Snapshot

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NOTE_LENGTH_LIMIT = 1024  # validation.NoteLengthLimit for event notes

NO_NODES_AVAILABLE = "no nodes available to schedule pods"

# klog call sites (file:line) of the messages emitted here.
SITE_ABOUT_TO_TRY = "schedule_one.go:83"
SITE_ATTEMPTING = "schedule_one.go:99"
SITE_NO_POSTFILTER = "schedule_one.go:173"
SITE_POSTFILTER_STATUS = "schedule_one.go:184"
SITE_BOUND = "schedule_one.go:337"
SITE_SKIP_DELETING = "schedule_one.go:403"
SITE_PLUGIN_SCORED = "schedule_one.go:830"
SITE_FINAL_SCORE = "schedule_one.go:898"
SITE_UNABLE_NO_FIT = "schedule_one.go:1066"
SITE_UNABLE_NO_NODES = "schedule_one.go:1062"
SITE_ERROR_RETRYING = "schedule_one.go:1068"
SITE_UPDATING_CONDITION = "schedule_one.go:1145"
SITE_FAILED_BIND = "schedule_one.go:1015"
SITE_FINISHED_BINDING = "cache.go:398"  # backend/cache/cache.go finishBinding

class ScheduleResult(Record):
    __slots__ = ("evaluated_nodes", "events", "explanation", "feasible_nodes", "message", "node", "nominated_node",
                 "outcome", "pending_plugins", "reason", "unschedulable_plugins", "writes")

    def __init__(self, outcome: str, node: str | None, message: str, explanation: dict, events: list[dict],
                 reason: str = "", unschedulable_plugins: list[str] | None = None,
                 pending_plugins: list[str] | None = None, evaluated_nodes: int = 0, feasible_nodes: int = 0,
                 writes: list[dict] | None = None, nominated_node: str | None = None):
        self.outcome = outcome      # "Scheduled" | "Unschedulable" | "NotResponsible" | "Bypassed" | "Error"
        self.node = node
        self.message = message      # the FailedScheduling text ("" when scheduled)
        self.explanation = explanation
        self.events = events
        # PodScheduled=False reason to record: "Unschedulable", "SchedulerError" or "SchedulingGated".
        self.reason = reason
        self.unschedulable_plugins = [] if unschedulable_plugins is None else unschedulable_plugins
        # Plugins that answered Pending (a Queue from their hint skips the backoff).
        self.pending_plugins = [] if pending_plugins is None else pending_plugins
        self.evaluated_nodes = evaluated_nodes
        self.feasible_nodes = feasible_nodes
        # What the cycle's plugins asked the API server to do (Handle.request), in order.
        self.writes = [] if writes is None else writes
        # status.nominatedNodeName to record: None leaves it, "" clears it (PostFilter's result).
        self.nominated_node = nominated_node


class Diagnosis(Record):
    __slots__ = ("node_to_status", "pending_plugins", "post_filter_msg", "pre_filter_msg", "unschedulable_plugins")

    def __init__(self, node_to_status: NodeToStatus | None = None, unschedulable_plugins: set[str] | None = None,
                 pending_plugins: set[str] | None = None, pre_filter_msg: str = "", post_filter_msg: str = ""):
        self.node_to_status = NodeToStatus() if node_to_status is None else node_to_status
        self.unschedulable_plugins = set() if unschedulable_plugins is None else unschedulable_plugins
        self.pending_plugins = set() if pending_plugins is None else pending_plugins
        self.pre_filter_msg = pre_filter_msg
        self.post_filter_msg = post_filter_msg

    def add_plugin_status(self, s: Status) -> None:
        if not s.plugin:
            return
        if s.is_rejected():
            self.unschedulable_plugins.add(s.plugin)
        if s.code == Code.Pending:
            self.pending_plugins.add(s.plugin)


def fit_error_message(num_all_nodes: int, d: Diagnosis) -> str:
    """``FitError.Error``."""
    msg = f"0/{num_all_nodes} nodes are available:"
    if d.pre_filter_msg:
        msg += f" {d.pre_filter_msg}."
    else:
        counts: dict[str, int] = {}
        for st in d.node_to_status.statuses.values():
            for r in st.all_reasons():
                counts[r] = counts.get(r, 0) + 1
        n = len(d.node_to_status)
        if n < num_all_nodes:
            for r in d.node_to_status.absent.all_reasons():
                counts[r] = counts.get(r, 0) + num_all_nodes - n
        items = sorted(f"{v} {k}" for k, v in counts.items())
        if items:
            msg += " " + ", ".join(items) + "."
    if d.post_filter_msg:
        msg += " " + d.post_filter_msg
    return msg


def truncate_message(message: str) -> str:
    """``truncateMessage``: event notes are limited to 1024 characters."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[:NOTE_LENGTH_LIMIT - len(suffix)] + suffix


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes are enough (``numFeasibleNodesToFind``)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        percentage = max(percentage, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    n = num_all_nodes * percentage // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


def select_host(names: Sequence[str], totals: list[int], rng: random.Random) -> str:
    """The best total; a tie is broken by one uniform draw among the tied nodes (in evaluation
    order), the same distribution as upstream's random tiebreakers."""
    if not names:
        raise ValueError("empty priorityList")
    best = max(totals)
    count = totals.count(best)
    if count == 1:
        return names[totals.index(best)]
    if count == len(totals):  # (every node tied: the tied places are 0..n-1)
        return names[rng.randrange(count)]
    # (the draw's place among the tied, found without a list of them: most nodes tie)
    tied = compress(range(len(totals)), map(eq, totals, repeat(best)))
    return names[next(islice(tied, rng.randrange(count), None))]


class _NodeNames:
    """The names of ``nodes``, read only for the node ``select_host`` picks (a cycle scores
    ~500 nodes)."""

    __slots__ = ("_nodes",)

    def __init__(self, nodes: list[NodeInfo]) -> None:
        self._nodes = nodes

    def __len__(self) -> int:
        return len(self._nodes)

    def __getitem__(self, i: int) -> str:
        return self._nodes[i].name


def _pass_filter(node: NodeInfo) -> None:
    return None


def _resume_filters(fl: list, j: int, st: Status | None, ni: NodeInfo
                    ) -> tuple[Status | None, str]:
    """Compiled filters from ``fl[j]`` on, ``st`` being ``fl[j]``'s verdict on ``ni``: the first
    status that is not Success, with its plugin, or (None, "") when every filter passes."""
    n = len(fl)
    while True:
        if st is not None and st.code != Code.Success:
            return st, fl[j][0]
        j += 1
        if j >= n:
            return None, ""
        st = fl[j][1](ni)


def _nominated_node(ni: NodeInfo, noms: list, with_nominated, feasible: list[NodeInfo], to_find: int,
                    diagnosis: Diagnosis) -> tuple[list[NodeInfo], Status | None] | None:
    """A scan's step for a node with nominated pods (RunFilterPluginsWithNominatedPods through
    ``with_nominated``): the scan's result when it ends here (enough feasible nodes, or an
    Error), else None once the node is counted as feasible or rejected."""
    st = with_nominated(ni, noms)
    if st is None:
        feasible.append(ni)
        return (feasible, None) if len(feasible) >= to_find else None
    if st.code == Code.Error:
        return feasible, st
    diagnosis.node_to_status.statuses[ni.name] = st
    diagnosis.add_plugin_status(st)
    return None


def _rejection(fwk, diagnosis: Diagnosis, ni: NodeInfo, st: Status, name: str) -> Status | None:
    """Count ``name``'s rejection of ``ni`` (``Diagnosis.add_plugin_status`` inlined); a status
    that is not a rejection is returned as the scan's error, as ``run_compiled_filters``
    reports it."""
    code = st.code
    if code not in _REJECTED_CODES:
        return fwk.run_compiled_filters([(name, lambda _n, _s=st: _s)], ni)
    st.plugin = name
    diagnosis.node_to_status.statuses[ni.name] = st
    if name:
        diagnosis.unschedulable_plugins.add(name)
        if code == Code.Pending:
            diagnosis.pending_plugins.add(name)
    return None


class _Algo(Record):
    __slots__ = ("diagnosis", "error", "evaluated", "feasible", "feasible_names", "host", "no_nodes", "table",
                 "verdicts")

    def __init__(self, host: str | None = None, evaluated: int = 0, feasible: int = 0,
                 diagnosis: Diagnosis | None = None, error: Status | None = None, no_nodes: bool = False,
                 verdicts: dict[str, dict] | None = None, feasible_names: list[str] | None = None,
                 table: ScoreTable | None = None):
        self.host = host
        self.evaluated = evaluated
        self.feasible = feasible
        self.diagnosis = diagnosis
        self.error = error
        self.no_nodes = no_nodes
        self.verdicts = verdicts
        self.feasible_names = [] if feasible_names is None else feasible_names
        self.table = table


class ScheduleOne:
    """schedule_one.go's methods of the Scheduler. :class:`kubesim.scheduler.scheduler.Scheduler`
    inherits them and holds what they read: the attributes below, ``framework_for`` (the
    profile for a pod), ``_pod_info`` (the PodInfo of a pod, the queue's own while the pod is
    unchanged) and the klog helpers ``_emit`` / ``_v``."""

    snapshot: Snapshot
    handle: Handle
    nominated: dict[str, list[PodInfo]]
    rng: random.Random
    explain_enabled: bool
    next_start_node_index: int
    percentage_of_nodes_to_score: int
    # the last indexed scan's (feasible nodes, the node list, the slices of it they are)
    _ranges: tuple | None = None

    # -- the cycle -------------------------------------------------------------------------
    def _cycle(self, pod: dict, now: float, commit: bool, queue_position: int = 0
               ) -> ScheduleResult:
        expl = base_explanation(pod)
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        full = f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"

        handle = self.handle
        handle.commit = commit
        handle.writes = []
        handle.now = now

        def done(outcome: str, node: str | None = None, message: str = "",
                 events: list[dict] | None = None, **kw) -> ScheduleResult:
            expl["outcome"] = outcome
            expl["node"] = node
            expl["message"] = message
            writes, handle.writes = (handle.writes if commit else []), []
            return ScheduleResult(outcome, node, message, expl, events or [], writes=writes, **kw)

        if spec.get("nodeName"):
            return done("Bypassed", spec["nodeName"])
        fwk = self.framework_for(pod)
        if fwk is None:
            return done("NotResponsible")
        if meta.get("deletionTimestamp"):
            msg = f"skip schedule deleting pod: {full}"
            if commit:
                self._emit(3, SITE_SKIP_DELETING, "Skip schedule deleting pod", {"pod": full})
            return done("Bypassed", None, msg,
                        [{"type": "Warning", "reason": "FailedScheduling", "action": "Scheduling", "message": msg}])
        # (the PodInfo PreEnqueue saw, as upstream's QueuedPodInfo carries it into the cycle)
        pod_info = self._pod_info(pod)
        explain = self.explain_enabled or not commit
        trace = Trace() if explain else None
        fwk.trace = trace
        try:
            return self._traced_cycle(fwk, pod, pod_info, now, commit, explain, expl, full, done,
                                      queue_position)
        finally:
            fwk.trace = None
            if trace is not None:
                expl["trace"] = trace.steps

    def _traced_cycle(self, fwk: Framework, pod: dict, pod_info: PodInfo, now: float,
                      commit: bool, explain: bool, expl: dict, full: str, done,
                      queue_position: int) -> ScheduleResult:
        trace = fwk.trace
        # the queue admits a pod to activeQ once its PreEnqueue plugins pass; QueueSort then
        # orders the admitted pods
        gate = fwk.run_pre_enqueue_plugins(pod_info)
        if gate is not None:
            return done("Unschedulable", None, gate.message(), reason="SchedulingGated",
                        unschedulable_plugins=[gate.plugin] if gate.plugin else [])
        if trace is not None:
            qs = fwk.queue_sort[0].name if fwk.queue_sort else ""
            extra = {"position": queue_position} if queue_position else {}
            trace.plugin(trace.step("QueueSort", priority=pod_info.priority, **extra), qs, None)

        if commit:
            self._emit(4, SITE_ABOUT_TO_TRY, "About to try and schedule pod", {"pod": full})
            self._emit(3, SITE_ATTEMPTING, "Attempting to schedule pod", {"pod": full})
        rng = self.rng
        if not commit:
            rng = random.Random()
            rng.setstate(self.rng.getstate())
        self.handle.rng = rng
        state = CycleState()
        algo = self._schedule_pod(fwk, state, pod_info, rng, commit=commit, explain=explain)
        if explain:
            expl["nodes"] = explain_nodes(fwk, algo.verdicts, algo.table)
        if trace is not None:
            trace_scheduling(trace, fwk, state, algo)

        if algo.no_nodes:
            msg = NO_NODES_AVAILABLE
            if commit:
                self._emit(2, SITE_UNABLE_NO_NODES,
                           "Unable to schedule pod; no nodes are registered to the cluster; "
                           "waiting", {"pod": full})
                self._condition_log(full)
            return done("Unschedulable", None, msg, self._failed_event(msg),
                        reason="Unschedulable")
        if algo.error is not None:
            return self._error_result(done, full, algo.error.message() or "", commit)
        if algo.host is None:
            diagnosis = algo.diagnosis or Diagnosis()
            nominated = self._post_filter(fwk, state, pod_info, diagnosis, expl, full, commit)
            msg = fit_error_message(self.snapshot.num_nodes(), diagnosis)
            if commit:
                self._emit(2, SITE_UNABLE_NO_FIT, "Unable to schedule pod; no fit; waiting",
                           {"pod": full, "err": msg})
                self._condition_log(full, nominated)
                if nominated is not None:
                    self._nominate(pod_info, nominated)
            return done("Unschedulable", None, msg, self._failed_event(msg),
                        reason="Unschedulable",
                        unschedulable_plugins=sorted(diagnosis.unschedulable_plugins),
                        pending_plugins=sorted(diagnosis.pending_plugins),
                        evaluated_nodes=algo.evaluated, nominated_node=nominated)
        if not commit:
            if trace is not None:
                for point in ("Reserve", "Permit", "PreBind", "Bind", "PostBind"):
                    trace.not_run(point, "not run: explain-schedule evaluates, it binds nothing")
            return done("Scheduled", algo.host, evaluated_nodes=algo.evaluated,
                        feasible_nodes=algo.feasible)
        return self._assume_and_bind(fwk, state, pod_info, algo, done, full)

    def _failed_event(self, msg: str) -> list[dict]:
        return [{"type": "Warning", "reason": "FailedScheduling", "action": "Scheduling",
                 "message": truncate_message(msg)}]

    def _condition_log(self, full: str, nominated: str | None = None) -> None:
        # nominatingMode: 0 ModeNoop (leave the nomination), 1 ModeOverride.
        self._emit(3, SITE_UPDATING_CONDITION, "Updating pod condition and nominated node name",
                   {"pod": full, "conditionType": "PodScheduled", "conditionStatus": "False",
                    "conditionReason": "Unschedulable", "nominatedNodeName": nominated or "",
                    "nominatingMode": 0 if nominated is None else 1})

    def _nominate(self, pod: PodInfo, node: str) -> None:
        """The pod nominator: ``pod`` is nominated to ``node`` ("" clears its nomination).
        A preemption also clears the nominations of lower-priority pods on that node."""
        for name in list(self.nominated):
            kept = [p for p in self.nominated[name] if p.key != pod.key]
            if node and name == node:
                kept = [p for p in kept if p.priority >= pod.priority]
            if kept:
                self.nominated[name] = kept
            else:
                del self.nominated[name]
        if node:
            self.nominated.setdefault(node, []).append(pod)
        self.handle.nominated = self.nominated

    def _error_result(self, done, full: str, msg: str, commit: bool) -> ScheduleResult:
        if commit:
            self._emit(0, SITE_ERROR_RETRYING, "Error scheduling pod; retrying",
                       {"pod": full, "err": msg})
        return done("Error", None, msg, self._failed_event(msg), reason="SchedulerError")

    # -- schedulePod -----------------------------------------------------------------------
    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: PodInfo, rng: random.Random,
                      *, commit: bool, explain: bool) -> _Algo:
        algo = _Algo()
        all_nodes = self.snapshot.node_info_list
        if not all_nodes:
            algo.no_nodes = True
            return algo
        diagnosis = Diagnosis()
        algo.diagnosis = diagnosis
        pre_record: dict | None = {} if explain else None
        pre_res, s, with_nodes = fwk.run_pre_filter_plugins(state, pod, all_nodes,
                                                            record=pre_record)
        diagnosis.unschedulable_plugins = set(with_nodes)
        if fwk.trace is not None:
            trace_pre_filter(fwk.trace, pre_res, s)
        if explain:
            algo.verdicts = {}
        if s is not None and not s.is_success():
            if not s.is_rejected():
                algo.error = s
                return algo
            diagnosis.node_to_status.set_absent_nodes_status(s)
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            if explain:
                record = pre_record if pre_record is not None else {}
                explain_state = fwk.run_remaining_pre_filter_plugins(state, pod, all_nodes,
                                                                     record)
                algo.verdicts = pre_filter_rejection_verdicts(
                    fwk, explain_state, pod, self.snapshot.node_info_list, record,
                    rejected_by=s.plugin or None)
            return algo

        # Nominated node first (set by a previous preemption).
        nnn = ((pod.pod.get("status") or {}).get("nominatedNodeName")) or ""
        if nnn:
            ni = self.snapshot.get(nnn)
            if ni is not None:
                st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni,
                                                                self.nominated.get(ni.name))
                if st is None:
                    algo.feasible_names = [ni.name]
                    if explain:
                        algo.verdicts = filter_verdicts(fwk, state, pod, all_nodes,
                                                        self.nominated, pre_res, with_nodes)
                    algo.host = ni.name
                    algo.feasible = 1
                    algo.evaluated = 1 + len(diagnosis.node_to_status)
                    return algo
                if st.code == Code.Error:
                    pass  # upstream logs and falls through to the full search
                else:
                    diagnosis.node_to_status.set(ni.name, st)
                    diagnosis.add_plugin_status(st)

        nodes = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            names = pre_res.node_names or set()
            if len(names) == 1:
                # (a DaemonSet pod's matchFields term names its one node: looked up, as
                # upstream's findNodesThatFitPod gets each PreFilterResult node from the
                # snapshot, instead of a pass over every node per pod)
                ni = self.snapshot.get(next(iter(names)))
                nodes = [ni] if ni is not None else []
            else:
                nodes = [ni for ni in all_nodes if ni.name in names]
            diagnosis.node_to_status.set_absent_nodes_status(Status(
                Code.UnschedulableAndUnresolvable,
                f"node(s) didn't satisfy plugin(s) {go_list(sorted(with_nodes))}"))
        if explain:
            algo.verdicts = filter_verdicts(fwk, state, pod, all_nodes, self.nominated, pre_res,
                                            with_nodes)
        feasible, err = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes,
                                                            algo.verdicts)
        processed = len(feasible) + len(diagnosis.node_to_status)
        if commit:
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if err is not None:
            algo.error = err
            return algo
        if explain:
            algo.feasible_names = [ni.name for ni in feasible]
        if not feasible:
            return algo
        if len(feasible) == 1:
            algo.host = feasible[0].name
            algo.evaluated = 1 + len(diagnosis.node_to_status)
            algo.feasible = 1
            return algo
        names, totals, err = self._prioritize(fwk, state, pod, feasible, algo, commit)
        if err is not None:
            algo.error = err
            return algo
        algo.host = select_host(names, totals, rng)
        algo.evaluated = len(feasible) + len(diagnosis.node_to_status)
        algo.feasible = len(feasible)
        return algo

    def _find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: PodInfo,
                                      diagnosis: Diagnosis, nodes: list[NodeInfo],
                                      verdicts: dict | None
                                      ) -> tuple[list[NodeInfo], Status | None]:
        n = len(nodes)
        pct = fwk.percentage_of_nodes_to_score
        if pct is None:
            pct = self.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(pct, n)
        if not fwk.has_score_plugins():
            to_find = 1
        start = self.next_start_node_index
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(min(to_find, n))], None
        feasible: list[NodeInfo] = []
        nominated = self.nominated
        fns = fwk.compile_filters(state, pod) if verdicts is None else None
        if fns is not None:
            with_nominated = (lambda ni, noms: fwk.run_filter_plugins_with_nominated_pods(
                state, pod, ni, noms)) if nominated else None
            tok = None if fwk._verbose() else equivalence.filter_token(fwk, pod, fns)
            if tok is not None:
                if not nominated and nodes is self.snapshot.node_info_list \
                        and equivalence.indexed(tok):
                    ranges: list[tuple[int, int]] = []
                    found = self._scan_indexed(fns, tok, diagnosis, nodes, start, to_find, ranges)
                    if found is not None:
                        self._ranges = (found, nodes, ranges)  # (for _prioritize)
                        return found, None
                return self._scan_cached(fwk, fns, tok, diagnosis, nodes, start, to_find,
                                         with_nominated, nominated)
            return self._scan_compiled(fwk, fns, diagnosis, nodes, start, to_find,
                                       with_nominated, nominated)
        for i in range(n):
            ni = nodes[(start + i) % n]
            noms = nominated.get(ni.name) if nominated else None
            if noms:
                st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni, noms)
            elif verdicts is not None and ni.name in verdicts:
                st = verdicts[ni.name]["_first"]
            elif fns is not None:
                st = None
                for _name, fn in fns:
                    st = fn(ni)
                    if st is not None:
                        if st.code == Code.Success:
                            st = None
                            continue
                        st = fwk.run_compiled_filters([(_name, lambda _n, _s=st: _s)], ni)
                        break
            else:
                st = fwk.run_filter_plugins(state, pod, ni)
            if st is None:
                feasible.append(ni)
                if len(feasible) >= to_find:
                    break
            elif st.code == Code.Error:
                return feasible, st
            else:
                diagnosis.node_to_status.set(ni.name, st)
                diagnosis.add_plugin_status(st)
        return feasible, None

    @staticmethod
    def _scan_compiled(fwk: Framework, fns: list, diagnosis: Diagnosis, nodes: list[NodeInfo],
                       start: int, to_find: int, with_nominated=None,
                       nominated: dict[str, list[PodInfo]] | None = None
                       ) -> tuple[list[NodeInfo], Status | None]:
        """``_find_nodes_that_pass_filters``' loop for the common case (compiled filters, no
        explanation): nodes from ``start`` round to ``start - 1``, stopping at ``to_find``
        feasible nodes or at the first Error. The same filters run in the same order on the
        same nodes; the first three calls per node are unrolled, and a rejection is counted
        by ``_rejection`` (``Diagnosis.add_plugin_status`` inlined). A node with nominated pods
        is decided by ``_nominated_node``."""
        feasible: list[NodeInfo] = []
        append = feasible.append
        fl = list(fns)
        while len(fl) < 3:
            fl.append(("", _pass_filter))
        f0, f1, f2 = fl[0][1], fl[1][1], fl[2][1]
        tail = len(fl) > 3
        f3 = fl[3][1] if tail else _pass_filter
        n = len(nodes)
        start %= n  # the same order as nodes[(start + i) % n] for i in range(n)
        for lo, hi in ((start, n), (0, start)):
            for i in range(lo, hi):
                ni = nodes[i]
                noms = nominated.get(ni.name) if nominated else None
                if noms:
                    done = _nominated_node(ni, noms, with_nominated, feasible, to_find, diagnosis)
                    if done is not None:
                        return done
                    continue
                st = f0(ni)
                if st is None:
                    st = f1(ni)
                    if st is None:
                        st = f2(ni)
                        if st is None:
                            if not tail:
                                append(ni)
                                if len(feasible) >= to_find:
                                    return feasible, None
                                continue
                            j, st = 3, f3(ni)
                        else:
                            j = 2
                    else:
                        j = 1
                else:
                    j = 0
                st, name = _resume_filters(fl, j, st, ni)
                if st is None:
                    append(ni)
                    if len(feasible) >= to_find:
                        return feasible, None
                    continue
                err = _rejection(fwk, diagnosis, ni, st, name)
                if err is not None:
                    return feasible, err
        return feasible, None

    @staticmethod
    def _scan_indexed(fns: list, tok: str, diagnosis: Diagnosis, nodes: list[NodeInfo],
                      start: int, to_find: int, ranges: list[tuple[int, int]]
                      ) -> list[NodeInfo] | None:
        """``_scan_cached`` without nominated pods, over the snapshot's whole node list: the
        class's FilterIndex (framework/equivalence.py) knows which nodes reject the pod, so
        the feasible nodes between two of them are taken as one slice of the list (each
        slice's (start, end) appended to ``ranges``). The same nodes in the same order, the
        same statuses. None when some node's verdict is an Error (the node by node scan
        reports the first one it meets)."""
        fl = list(fns)
        f0 = fl[0][1]

        def run(ni: NodeInfo) -> tuple[Status | None, str]:
            return _resume_filters(fl, 0, f0(ni), ni)

        def verdict(ni: NodeInfo) -> tuple[Status | None, str]:
            return equivalence.cached_filter(tok, fl, ni, run)

        idx = equivalence.filter_index(tok).refresh(nodes, verdict)
        if idx.errors:
            return None
        bad = idx.rejected()
        verdicts = idx.verdicts
        feasible: list[NodeInfo] = []
        statuses = diagnosis.node_to_status.statuses
        unschedulable_add = diagnosis.unschedulable_plugins.add
        pending_add = diagnosis.pending_plugins.add
        pending = Code.Pending
        n = len(nodes)
        start %= n
        for lo, hi in ((start, n), (0, start)):
            pos = lo
            # the feasible run before each rejected node, and (``hi`` closing the list) after the last
            for b in (*bad[bisect_left(bad, lo):bisect_left(bad, hi)], hi):
                take = min(b - pos, to_find - len(feasible))
                if take:
                    feasible.extend(nodes[pos:pos + take])
                    ranges.append((pos, pos + take))
                if len(feasible) >= to_find:
                    return feasible
                if b == hi:
                    break
                st, name = verdicts[b]
                st.plugin = name
                statuses[nodes[b].name] = st
                if name:
                    unschedulable_add(name)
                    if st.code == pending:
                        pending_add(name)
                pos = b + 1
        return feasible

    @staticmethod
    def _scan_cached(fwk: Framework, fns: list, tok: str, diagnosis: Diagnosis,
                     nodes: list[NodeInfo], start: int, to_find: int, with_nominated=None,
                     nominated: dict[str, list[PodInfo]] | None = None
                     ) -> tuple[list[NodeInfo], Status | None]:
        """``_scan_compiled`` for filters that are all node-local (framework/equivalence.py):
        the same nodes in the same order, each node's first rejection taken from its memo
        for the pod's class while the node's generation holds, else computed and kept."""
        feasible: list[NodeInfo] = []
        append = feasible.append
        fl = list(fns)
        f0 = fl[0][1]

        def run(ni: NodeInfo) -> tuple[Status | None, str]:
            return _resume_filters(fl, 0, f0(ni), ni)

        n = len(nodes)
        start %= n
        for lo, hi in ((start, n), (0, start)):
            for i in range(lo, hi):
                ni = nodes[i]
                noms = nominated.get(ni.name) if nominated else None
                if noms:
                    done = _nominated_node(ni, noms, with_nominated, feasible, to_find, diagnosis)
                    if done is not None:
                        return done
                    continue
                e = ni.memo.get(tok)
                if e is not None and e[0] == ni.generation:
                    st, name = e[1], e[2]
                else:
                    st, name = equivalence.cached_filter(tok, fl, ni, run)
                if st is None:
                    append(ni)
                    if len(feasible) >= to_find:
                        return feasible, None
                    continue
                err = _rejection(fwk, diagnosis, ni, st, name)
                if err is not None:
                    return feasible, err
        return feasible, None

    def _prioritize(self, fwk: Framework, state: CycleState, pod: PodInfo,
                    nodes: list[NodeInfo], algo: _Algo, commit: bool
                    ) -> tuple[Sequence[str], list[int], Status | None]:
        if not fwk.has_score_plugins():
            return [ni.name for ni in nodes], [1] * len(nodes), None
        s = fwk.run_pre_score_plugins(state, pod, nodes)
        if s is not None:
            return [ni.name for ni in nodes], [], s
        if algo.verdicts is None and not (commit and self._v(10)):
            # nothing explained or logged: the weighted sums are all that is read
            got = self._ranges
            self._ranges = None
            # (less a number common to every node: the same host)
            shifted = fwk.shifted_score_totals(state, pod, nodes, got[1:] if got is not None
                                               and got[0] is nodes else None)
            if shifted is not None:
                return _NodeNames(nodes), shifted[0], None
        table, s = fwk.run_score_plugins(state, pod, nodes)
        if s is not None or table is None:
            return [ni.name for ni in nodes], [], s
        algo.table = table
        names = table.node_names
        if commit and self._v(10):
            full = pod.full_name
            for i, name in enumerate(names):
                for p in table.plugins:
                    self._emit(10, SITE_PLUGIN_SCORED, "Plugin scored node for pod",
                               {"pod": full, "plugin": p, "node": name,
                                "score": table.weighted(p, i)})
            for i, name in enumerate(names):
                self._emit(10, SITE_FINAL_SCORE, "Calculated node's final score for pod",
                           {"pod": full, "node": name, "score": table.totals[i]})
        return names, table.totals, None

    # -- PostFilter ------------------------------------------------------------------------
    def _post_filter(self, fwk: Framework, state: CycleState, pod: PodInfo,
                     diagnosis: Diagnosis, expl: dict, full: str, commit: bool) -> str | None:
        """Run the PostFilter plugins (preemption); the nominated node to record (None: leave
        the pod's nomination as it is, "": clear it)."""
        if not fwk.has_post_filter_plugins():
            if commit:
                self._emit(3, SITE_NO_POSTFILTER,
                           "No PostFilter plugins are registered, so no preemption will be "
                           "performed", {})
            return None
        from kubesim.scheduler.framework.preemption import ANALYSIS_KEY

        record: dict[str, Status | None] = {}
        result, s = fwk.run_post_filter_plugins(state, pod, diagnosis.node_to_status, record)
        msg = s.message() if s is not None else ""
        diagnosis.post_filter_msg = msg
        nominated = result.nominated_node_name if result is not None else None
        analysis = state.get(ANALYSIS_KEY)
        pre: dict = analysis.as_dict() if analysis is not None else {}
        pre["message"] = msg
        pre["nominatedNode"] = nominated or None
        pre["postFilter"] = {name: {"code": (st.code if st is not None else Code.Success).name,
                                    "message": st.message() if st is not None else ""}
                             for name, st in record.items()}
        expl["preemption"] = pre
        if commit:
            # upstream logs an Error status with logger.Error (always shown), the rest at V(5)
            level = 0 if s is not None and s.code == Code.Error else 5
            self._emit(level, SITE_POSTFILTER_STATUS,
                       "Status after running PostFilter plugins for pod",
                       {"pod": full, "status": msg})
        return nominated

    # -- assume, reserve, permit, bind -----------------------------------------------------
    def _assume_and_bind(self, fwk: Framework, state: CycleState, pod: PodInfo, algo: _Algo,
                         done, full: str) -> ScheduleResult:
        host = algo.host
        assert host is not None
        assumed = pod.assumed_on(host)
        ni = self.snapshot.get(host)
        if ni is not None:
            ni.add_pod(assumed)

        def forget() -> None:
            if ni is not None:
                ni.remove_pod(assumed.key)

        def rejected(status: Status) -> ScheduleResult:
            d = Diagnosis()
            d.node_to_status.set(host, status)
            d.add_plugin_status(status)
            msg = fit_error_message(1, d)
            self._emit(2, SITE_UNABLE_NO_FIT, "Unable to schedule pod; no fit; waiting",
                       {"pod": full, "err": msg})
            self._condition_log(full)
            return done("Unschedulable", None, msg, self._failed_event(msg),
                        reason="Unschedulable", unschedulable_plugins=sorted(
                            d.unschedulable_plugins), pending_plugins=sorted(d.pending_plugins))

        s = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if s is not None:
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
            forget()
            if s.is_rejected():
                return rejected(s)
            return self._error_result(done, full, s.message(), True)
        s, waits = fwk.run_permit_plugins(state, assumed, host)
        if s is not None and s.is_wait():
            plugin, timeout = next(iter(waits.items()))
            s = Status(Code.Unschedulable, f"rejected due to timeout after waiting "
                                           f"{format_duration(timeout)} at plugin {plugin}",
                       plugin=plugin)
            if fwk.trace is not None:  # the binding cycle's WaitOnPermit
                fwk.trace.plugin(fwk.trace.step("WaitOnPermit", node=host), plugin, s)
        if s is not None:
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
            forget()
            if s.is_rejected():
                return rejected(s)
            return self._error_result(done, full, s.message(), True)
        s = fwk.run_pre_bind_plugins(state, assumed, host)
        if s is None:
            s = fwk.run_bind_plugins(state, assumed, host)
            # sched.bind's deferred finishBinding: the cache's FinishBinding, then the failure
            self._emit(5, SITE_FINISHED_BINDING, "Finished binding for pod, can be expired",
                       {"podKey": (pod.pod.get("metadata") or {}).get("uid") or "", "pod": full})
            if s is not None:
                self._emit(1, SITE_FAILED_BIND, "Failed to bind pod", {"pod": full})
        if s is not None:
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
            forget()
            return self._error_result(done, full, s.message(), True)
        if self.nominated:
            self._nominate(pod, "")
        self._emit(2, SITE_BOUND, "Successfully bound pod to node",
                   {"pod": full, "node": host, "evaluatedNodes": algo.evaluated,
                    "feasibleNodes": algo.feasible})
        fwk.run_post_bind_plugins(state, assumed, host)
        event = {"type": "Normal", "reason": "Scheduled", "action": "Binding",
                 "message": f"Successfully assigned {full} to {host}"}
        return done("Scheduled", host, "", [event], evaluated_nodes=algo.evaluated,
                    feasible_nodes=algo.feasible)
