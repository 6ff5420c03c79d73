"""explain-schedule's record of one scheduling attempt (DESIGN §3.5): kubesim's, not upstream's.

kube-scheduler stops filtering a node at its first failing plugin and keeps no per-plugin
scores; an explanation runs every filter plugin on every node and keeps every score. What it
records follows upstream's cycle (kubesim/scheduler/schedule_one.py): a node's verdicts are
those of findNodesThatFitPod's first pass with the nominated pods of equal or higher priority
counted on the node (pkg/scheduler/framework/runtime/framework.go ``addGENominatedPods``); a node
outside a PreFilterResult's node subset fails with "node(s) didn't satisfy plugin(s) [...]"
(schedule_one.go); the scores are those prioritizeNodes computed (the raw score, after
NormalizeScore, after the weight).

An infeasible node's ``rejectedBy`` names the plugin whose status kube-scheduler kept for it:
the first filter plugin that failed (framework runtime ``RunFilterPlugins`` stops there), or the
plugin whose PreFilter rejected the pod; its other verdicts are what-ifs kube-scheduler never
computed.

``-o json`` shape: ``{"kind": "ScheduleExplanation", "apiVersion": "kubesim.io/v1alpha1", "pod",
"profile", "outcome", "node", "message", "nodes": {name: {"filter": {plugin: "passed" |
"skipped" | reason}, "feasible", "rejectedBy", "score": {plugin: {"raw", "normalized", "weight", "final"}},
"total"}}, "preemption"}``; ``preemption`` (after a failed attempt with PostFilter plugins)
holds DefaultPreemption's analysis, the joined ``message`` and ``postFilter``: each PostFilter
plugin's ``{"code", "message"}`` in the order they ran.
"""

from __future__ import annotations

from kubesim.scheduler import config as schedconfig
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import PreFilterResult
from kubesim.scheduler.framework.runtime import Framework, ScoreTable, go_list
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

EXPLANATION_KIND = "ScheduleExplanation"
EXPLANATION_API_VERSION = "kubesim.io/v1alpha1"


def base_explanation(pod: dict) -> dict:
    """A ScheduleExplanation of ``pod`` before the cycle fills it in."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    return {
        "kind": EXPLANATION_KIND, "apiVersion": EXPLANATION_API_VERSION,
        "pod": {"namespace": meta.get("namespace") or "default", "name": meta.get("name", "")},
        "profile": spec.get("schedulerName") or schedconfig.DEFAULT_SCHEDULER_NAME,
        "outcome": "", "node": None, "message": "", "nodes": {}, "preemption": None,
    }


def filter_verdicts(fwk: Framework, state: CycleState, pod: PodInfo, all_nodes: list[NodeInfo],
                    nominated: dict[str, list[PodInfo]], pre_res: PreFilterResult | None,
                    with_nodes: set[str]) -> dict[str, dict]:
    """Every filter plugin's verdict on every node (not only up to the first failure), and
    whether the node is feasible; a node outside PreFilter's node subset fails the plugins
    that narrowed it down. ``"_first"`` keeps the first failing Status, which the search for
    feasible nodes then uses instead of filtering again."""
    verdicts: dict[str, dict] = {}
    restricted = pre_res is not None and not pre_res.all_nodes()
    allowed = (pre_res.node_names or set()) if restricted else None
    absent_msg = f"node(s) didn't satisfy plugin(s) {go_list(sorted(with_nodes))}"
    # A node every filter passes reads "passed" (or "skipped") throughout: the compiled
    # filters of the fast path tell it at a fraction of running each plugin for its verdict,
    # which only the nodes some filter fails need (not at log levels that name each call).
    fns = None if fwk._verbose() else fwk.compile_filters(state, pod)
    skip = state.skip_filter_plugins
    all_passed = {pl.name: ("skipped" if pl.name in skip else "passed") for pl in fwk.filter}
    for ni in all_nodes:
        noms = nominated.get(ni.name)
        if fns is not None and not noms and not (restricted and ni.name not in allowed):
            for _name, fn in fns:
                st = fn(ni)
                if st is not None and st.code != Code.Success:
                    break
            else:
                # (one verdict dict shared by every such node: read-only)
                verdicts[ni.name] = {"filter": all_passed, "feasible": True, "_first": None,
                                     "_codes": {}, "_rejected_by": None}
                continue
        # With nominated pods the verdicts are those of upstream's first pass (nominated
        # pods of equal or higher priority counted on the node).
        aug = fwk.add_nominated_pods(state, pod, ni, noms)
        if aug is not None and aug[2] is None:
            results = fwk.run_all_filter_plugins(aug[0], pod, aug[1])
        else:
            results = fwk.run_all_filter_plugins(state, pod, ni)
        filt: dict[str, str] = {}
        codes: dict[str, int] = {}
        first: Status | None = None
        first_name = None
        for name, st in results:
            if restricted and ni.name not in allowed and name in with_nodes:
                filt[name] = absent_msg
                codes[name] = Code.UnschedulableAndUnresolvable
                continue
            if st == "skipped":
                filt[name] = "skipped"
            elif st is None:
                filt[name] = "passed"
            else:
                filt[name] = st.message()  # type: ignore[union-attr]
                codes[name] = st.code  # type: ignore[union-attr]
                if first is None:
                    first = st  # type: ignore[assignment]
                    first_name = first_name or name
        if restricted and ni.name not in allowed:
            # upstream runs no filter here: the PreFilter result's status is the node's
            first_name = next((name for name, _ in results if name in with_nodes), None)
            for name in sorted(with_nodes):
                filt.setdefault(name, absent_msg)
                first_name = first_name or name
            feasible = False
        else:
            feasible = first is None
        verdicts[ni.name] = {"filter": filt, "feasible": feasible, "_first": first,
                             "_codes": codes, "_rejected_by": None if feasible else first_name}
    return verdicts


def pre_filter_rejection_verdicts(fwk: Framework, state: CycleState, pod: PodInfo,
                                  nodes: list[NodeInfo], record: dict,
                                  rejected_by: str | None = None) -> dict[str, dict]:
    """The verdicts when a PreFilter rejected the pod: that plugin's status on every node, a
    plugin whose PreFilter returned Skip "skipped", every other filter run on each node."""
    verdicts: dict[str, dict] = {}
    for ni in nodes:
        filt: dict[str, str] = {}
        for pl in fwk.filter:
            r = record.get(pl.name)
            st = r[1] if r is not None else None
            if st is not None and st.code == Code.Skip:
                filt[pl.name] = "skipped"
            elif st is not None and not st.is_success():
                filt[pl.name] = st.message()
            else:
                v = pl.filter(state, pod, ni)
                filt[pl.name] = "passed" if v is None or v.is_success() else v.message()
        verdicts[ni.name] = {"filter": filt, "feasible": False, "_first": None,
                             "_rejected_by": rejected_by}
    return verdicts


def explain_nodes(fwk: Framework, verdicts: dict[str, dict] | None, table: ScoreTable | None
                  ) -> dict[str, dict]:
    """The explanation's ``nodes``: each node's filter verdicts and, for a scored node, each
    score plugin's raw, normalized, weighted and final score and the total."""
    out: dict[str, dict] = {}
    if not verdicts:
        return out
    index = {n: i for i, n in enumerate(table.node_names)} if table is not None else {}
    for name, v in verdicts.items():
        entry: dict = {"filter": v["filter"], "feasible": v["feasible"]}
        if v.get("_rejected_by"):
            entry["rejectedBy"] = v["_rejected_by"]
        if table is not None and name in index:
            i = index[name]
            score: dict[str, dict] = {}
            total = 0
            for pl in fwk.score:
                w = fwk.weights.get(pl.name, 1)
                if pl.name in table.raw:
                    raw = table.raw[pl.name][i]
                    norm = table.normalized[pl.name][i]
                    score[pl.name] = {"raw": raw, "normalized": norm, "weight": w,
                                      "final": norm * w}
                    total += norm * w
                else:
                    score[pl.name] = {"skipped": True, "raw": 0, "normalized": 0,
                                      "weight": w, "final": 0}
            entry["score"] = score
            entry["total"] = total
        out[name] = entry
    return out


def trace_pre_filter(trace, result: PreFilterResult | None, status: Status | None) -> None:
    """The PreFilter step's outcome: the joined status and the node subset PreFilter returned."""
    from kubesim.scheduler.framework.trace import code_name

    for step in reversed(trace.steps):
        if step["extensionPoint"] == "PreFilter":
            step["code"] = code_name(status)
            if status is not None and status.code != Code.Success and status.message():
                step["message"] = status.message()
            if result is not None and not result.all_nodes():
                step["nodeNames"] = sorted(result.node_names or ())
            return


def trace_scheduling(trace, fwk: Framework, state: CycleState, algo) -> None:
    """Fill the trace's Filter, Score and NormalizeScore steps from what the cycle computed
    (the framework appended QueueSort, PreEnqueue, PreFilter and PreScore as it ran them)."""
    steps = trace.steps
    at = next((i + 1 for i, s in enumerate(steps) if s["extensionPoint"] == "PreFilter"), None)
    if at is None:  # the cycle stopped before PreFilter (gated, no nodes)
        return
    pre = steps[at - 1]
    verdicts = algo.verdicts or {}
    if pre.get("code") not in (None, "Success", "Skip"):
        steps.insert(at, {"extensionPoint": "Filter", "plugins": [],
                          "note": "not run: PreFilter rejected the pod"})
        return
    skip = state.skip_filter_plugins
    plugins = []
    for pl in fwk.filter:
        if pl.name in skip:
            plugins.append({"name": pl.name, "code": "Skip"})
            continue
        reasons: dict[str, int] = {}
        codes: set[str] = set()
        passed = first = 0
        for v in verdicts.values():
            if v.get("_rejected_by") == pl.name:
                first += 1
            r = v["filter"].get(pl.name, "passed")
            if r in ("passed", "skipped"):
                passed += 1
            else:
                reasons[r] = reasons.get(r, 0) + 1
                code = (v.get("_codes") or {}).get(pl.name)
                codes.add(Code(code).name if code is not None else "Unschedulable")
        entry: dict = {"name": pl.name, "code": "/".join(sorted(codes)) or "Success",
                       "passedNodes": passed, "rejectedNodes": sum(reasons.values()),
                       "rejectedFirstNodes": first}
        if reasons:
            entry["reasons"] = dict(sorted(reasons.items()))
        plugins.append(entry)
    feasible = list(algo.feasible_names)
    evaluated = algo.evaluated
    if not evaluated and algo.diagnosis is not None:  # no fit: every node filtered was rejected
        evaluated = len(feasible) + len(algo.diagnosis.node_to_status)
    steps.insert(at, {"extensionPoint": "Filter", "plugins": plugins, "nodes": len(verdicts),
                      "feasibleNodes": feasible, "evaluatedNodes": evaluated})
    if algo.error is not None:
        return
    if not feasible:
        for point in ("PreScore", "Score", "NormalizeScore"):
            trace.not_run(point, "not run: no feasible node")
        return
    table = algo.table
    if table is None:
        why = ("not run: only one feasible node, which kube-scheduler picks without scoring"
               if len(feasible) == 1 else "not run")
        for point in ("PreScore", "Score", "NormalizeScore"):
            trace.not_run(point, why)
        return
    score = trace.step("Score")
    norm = trace.step("NormalizeScore")
    for pl in fwk.score:
        w = fwk.weights.get(pl.name, 1)
        if pl.name in table.skipped:
            score["plugins"].append({"name": pl.name, "code": "Skip", "weight": w})
            continue
        score["plugins"].append({"name": pl.name, "code": "Success", "weight": w})
        if pl.has_normalize:
            norm["plugins"].append({"name": pl.name, "code": "Success"})
