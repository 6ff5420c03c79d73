"""explain-schedule's view (DESIGN §3.5): nodes as rows, plugins as columns.

Two tables: every filter plugin's verdict on every node (✓, ``skipped``, or upstream's reason),
then every score plugin's raw → normalized × weight = final and the total, winner first. Each
plugin column also carries its legacy predicate/priority name from pre-framework material
(the scheduler's, as the server lists them: ``Client.scheduler_plugins``). An unschedulable pod gets the
FailedScheduling message and, per node, a plain-language line on what would make it fit.

Rich renders the tables on a terminal (colour) and as plain text when piped. Printers never
fetch: the command passes the pod and nodes the hints need.
"""

from __future__ import annotations

import re

MAX_NODE_ROWS = 20


def _legacy(legacy: dict | None, plugin: str, which: str) -> str:
    return ((legacy or {}).get(plugin) or {}).get(which) or ""


# -- what would make it fit ------------------------------------------------------------------------

def untolerated_taints(pod: dict, node: dict) -> list[dict]:
    from kubesim.api.pods import tolerates

    tols = (pod.get("spec") or {}).get("tolerations") or []
    return [t for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in tols)]


def _taint_str(t: dict) -> str:
    return f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"


def fit_hint(reason: str, node_name: str, pod: dict | None, node: dict | None) -> str:
    """A plain-language line on what would make the pod fit, for one failing plugin's reason."""
    r = reason
    if "untolerated taint" in r:
        taints = untolerated_taints(pod or {}, node or {}) if node else []
        if taints:
            t = taints[0]
            return (f"tolerate the taint {_taint_str(t)} in the pod, or remove it: "
                    f"kubesim taint nodes {node_name} {t['key']}:{t['effect']}-")
        return "add a toleration for the node's taint, or remove the taint"
    m = re.match(r"Insufficient (\S+)", r)
    if m:
        return f"free {m.group(1)} on {node_name} (delete or shrink pods there) or lower the pod's {m.group(1)} request"
    if "Too many pods" in r:
        return f"{node_name} is at its pod capacity: delete a pod there"
    if "were unschedulable" in r:
        return f"uncordon the node: kubesim uncordon {node_name}"
    if "node affinity/selector" in r:
        return "label the node to match the pod's nodeSelector / required node affinity, or relax them"
    if "free ports" in r:
        return "free the host port on the node (or drop hostPort from the pod)"
    if "didn't match pod affinity rules" in r:
        return "run a pod matching the affinity term in the node's topology domain, or relax the affinity"
    if "anti-affinity" in r:
        return "move the conflicting pod out of the node's topology domain, or relax the anti-affinity"
    if "topology spread" in r:
        return "spread matching pods more evenly, raise maxSkew, or use whenUnsatisfiable: ScheduleAnyway"
    if "didn't match the requested node name" in r:
        return "the pod names another node in spec.nodeName"
    if "not ready" in r.lower():
        return "wait for the node to become Ready"
    return "change the pod or the node so that this plugin passes"


# -- rendering ----------------------------------------------------------------------------------------

def _node_order(exp: dict) -> list[str]:
    nodes = exp.get("nodes") or {}
    winner = exp.get("node")

    def key(n):
        d = nodes[n]
        return (n != winner, not d.get("feasible"), -(d.get("total") or 0), n)

    return sorted(nodes, key=key)


def _verdict_cell(v: str, color: bool) -> str:
    if v == "passed":
        return "[green]✓[/green]" if color else "✓"
    if v == "skipped":
        return "[dim]skipped[/dim]" if color else "skipped"
    return f"[red]✗ {_esc(v)}[/red]" if color else f"✗ {_esc(v)}"


def _esc(s: str) -> str:
    """Rich markup escaped: Rich reads "[a b]" or "[example.com/gate]" as a tag and drops it,
    in plain text as well as in colour, so every reason and message goes through this."""
    from rich.markup import escape

    return escape(s)


def render(exp: dict, *, color: bool, width: int | None = None, pod: dict | None = None,
           nodes: dict[str, dict] | None = None, legacy: dict | None = None) -> str:
    """The text view of one explanation (plain text without trailing blanks unless ``color``);
    ``legacy`` maps plugins to their legacy predicate/priority names (the scheduler's)."""
    text = _render(exp, color=color, width=width, pod=pod, nodes=nodes, legacy=legacy)
    if color:
        return text
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _render(exp: dict, *, color: bool, width: int | None, pod: dict | None,
            nodes: dict[str, dict] | None, legacy: dict | None) -> str:
    import io

    from rich import box
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, color_system="standard" if color else None,
                      width=width or (160 if color else 330), no_color=not color, highlight=False,
                      soft_wrap=True)
    p = exp.get("pod") or {}
    outcome = exp.get("outcome", "")
    style = {"Scheduled": "bold green", "Unschedulable": "bold red"}.get(outcome, "bold yellow")
    head = f"Pod {p.get('namespace', '')}/{p.get('name', '')}   profile: {exp.get('profile') or '-'}   "
    console.print(head + (f"outcome: [{style}]{outcome}[/{style}]" if color else f"outcome: {outcome}"))
    if outcome == "Bypassed":
        console.print(f"The pod names its node in spec.nodeName ({exp.get('node')}): the kubelet runs it there "
                      "without the scheduler, even on a cordoned or tainted node.")
        return buf.getvalue()
    if outcome == "NotResponsible":
        console.print(exp.get("message") or "No scheduler profile matches the pod's schedulerName: it stays Pending.")
        return buf.getvalue()
    if exp.get("message"):
        console.print(f"Message: {_esc(exp['message'])}")
    queue_line = _queue_line(exp.get("queue"))
    if queue_line:
        console.print(_esc(queue_line))
    order = _node_order(exp)
    all_nodes = exp.get("nodes") or {}
    shown = order[:MAX_NODE_ROWS]
    filter_plugins: list[str] = []
    score_plugins: list[str] = []
    for n in order:
        for k in (all_nodes[n].get("filter") or {}):
            if k not in filter_plugins:
                filter_plugins.append(k)
        for k in (all_nodes[n].get("score") or {}):
            if k not in score_plugins:
                score_plugins.append(k)

    def header(plugin: str, which: str) -> str:
        old = _legacy(legacy, plugin, which)
        if not old:
            return plugin
        return f"{plugin}\n[dim]{old}[/dim]" if color else f"{plugin}\n({old})"

    t = Table(title="Filter (predicates): can the pod run on the node?", box=box.SIMPLE_HEAD,
              title_justify="left", show_lines=False, pad_edge=False)
    t.add_column("NODE", no_wrap=True)
    for fp in filter_plugins:
        t.add_column(header(fp, "predicate"), overflow="fold")
    t.add_column("FEASIBLE", no_wrap=True)
    for n in shown:
        d = all_nodes[n]
        cells = [_verdict_cell((d.get("filter") or {}).get(fp, ""), color) if fp in (d.get("filter") or {}) else ""
                 for fp in filter_plugins]
        feas = "yes" if d.get("feasible") else "no"
        t.add_row(n, *cells, f"[green]{feas}[/green]" if color and d.get("feasible") else feas)
    console.print()
    console.print(t)
    if len(order) > len(shown):
        _summarise_rest(console, order[len(shown):], all_nodes)

    feasible = [n for n in order if all_nodes[n].get("feasible")]
    if feasible and score_plugins:
        s = Table(title="Score (priorities): raw → normalized × weight = final", box=box.SIMPLE_HEAD,
                  title_justify="left", pad_edge=False)
        s.add_column("NODE", no_wrap=True)
        for sp in score_plugins:
            s.add_column(header(sp, "priority"), no_wrap=True)
        s.add_column("TOTAL", justify="right", no_wrap=True)
        best = max(all_nodes[n].get("total") or 0 for n in feasible)
        for n in feasible[:MAX_NODE_ROWS]:
            d = all_nodes[n]
            cells = []
            for sp in score_plugins:
                sc = (d.get("score") or {}).get(sp)
                if sc is None:
                    cells.append("")
                elif sc.get("skipped"):
                    cells.append("[dim]skipped[/dim]" if color else "skipped")
                else:
                    cells.append(f"{sc['raw']} → {sc['normalized']} ×{sc['weight']} = {sc['final']}")
            total = str(d.get("total") or 0)
            mark = ""
            if n == exp.get("node"):
                mark = "  ← chosen"
            elif (d.get("total") or 0) == best:
                mark = "  (tie)"
            label = f"[bold green]{n}[/bold green]" if color and n == exp.get("node") else n
            s.add_row(label, *cells, total + mark)
        console.print()
        console.print(s)
        if len(feasible) > MAX_NODE_ROWS:
            console.print(f"... and {len(feasible) - MAX_NODE_ROWS} more feasible nodes (-o json shows them all)")
        tied = [n for n in feasible if (all_nodes[n].get("total") or 0) == best]
        console.print()
        if exp.get("node"):
            if len(tied) > 1:
                others = ", ".join(x for x in tied if x != exp["node"])
                console.print(f"Winner: {exp['node']} with {best}, tied with {others}: kube-scheduler picks at random "
                              "among equal top scores (repeatable with KUBESIM_SEED).")
            else:
                runner = next((n for n in feasible if n != exp["node"]), None)
                why = f", ahead of {runner} ({all_nodes[runner].get('total') or 0})" if runner else ", the only feasible node"
                console.print(f"Winner: {exp['node']} with the highest total {best}{why}.")
    elif outcome == "Scheduled" and len(feasible) == 1:
        console.print()
        console.print(f"Winner: {exp.get('node')}, the only feasible node (kube-scheduler skips scoring then).")
    if outcome == "Unschedulable":
        console.print()
        console.print("What would make it fit:")
        for n in shown:
            d = all_nodes[n]
            failing = [(fp, v) for fp, v in (d.get("filter") or {}).items() if v not in ("passed", "skipped")]
            if not failing:
                continue
            hints = "; ".join(dict.fromkeys(fit_hint(v, n, pod, (nodes or {}).get(n)) for _, v in failing))
            console.print(f"  {n}: {_esc(hints)}")
    waiting = _waiting_line((exp.get("queue") or {}).get("after"))
    if waiting:
        console.print()
        console.print(_esc(waiting))
    pre = exp.get("preemption")
    if pre:
        post_filter = pre.get("postFilter")
        if post_filter is not None:
            _render_post_filter(console, post_filter, color=color)
        if post_filter is None or PREEMPTION_PLUGIN in post_filter:
            _render_preemption(console, pre, color=color)
    return buf.getvalue()


PREEMPTION_PLUGIN = "DefaultPreemption"

_QUEUE_WORDS = {"Active": "the active queue", "Backoff": "the backoff queue",
                "Unschedulable": "the unschedulable pool"}


def _queue_line(q: dict | None) -> str:
    """How the scheduling queue sent the pod to this attempt (the event that moved it last)."""
    if not q:
        return ""
    parts = [f"Queue: attempt {q.get('attempt', 1)}"]
    moved = q.get("movedBy") or {}
    if moved:
        where = _QUEUE_WORDS.get(moved.get("queue", ""), moved.get("queue", ""))
        hint = f" ({moved['plugin']}'s queueing hint: Queue)" if moved.get("plugin") else ""
        parts.append(f"after {moved.get('event', '')} moved it to {where}{hint}")
    popped = _QUEUE_WORDS.get(q.get("poppedFrom", ""))
    if popped:
        parts.append(f"popped from {popped}")
    return ", ".join(parts[:2]) + ("; " + parts[2] if len(parts) > 2 else "")


def _waiting_line(after: dict | None) -> str:
    """Where a failed attempt left the pod, and the events its rejecting plugins registered."""
    if not after:
        return ""
    queue = after.get("queue", "")
    waiting = after.get("waitingFor")
    if queue == "Unschedulable" and waiting:
        plugins = "; ".join(f"{p}: {', '.join(evs)}" for p, evs in waiting.items())
        return (f"Waiting in the unschedulable pool for: {plugins} "
                "(a plugin's queueing hint decides; after 5 minutes it is retried anyway).")
    if queue in _QUEUE_WORDS:
        return f"Back in {_QUEUE_WORDS[queue]} for another attempt."
    return ""


def _render_post_filter(console, post_filter: dict, *, color: bool) -> None:
    """The PostFilter plugins other than DefaultPreemption, one line each, in the order they
    ran (DynamicResources runs first in the default profile). An Error stops the PostFilter
    plugins: upstream then tries no preemption, and the preemption section is left out."""
    for name, st in post_filter.items():
        if name == PREEMPTION_PLUGIN:
            continue
        head = f"PostFilter {name}"
        rest = st.get("message") or ""
        if st.get("code") == "Error":
            head += " failed"
            if name == "DynamicResources" and rest == "not found":
                rest += (" (its PreFilter never ran: an earlier PreFilter rejected the pod), so "
                         "the PostFilter plugins stop and no preemption is tried")
        console.print()
        console.print(f"[bold]{_esc(head)}[/bold]: {_esc(rest)}" if color
                      else f"{_esc(head)}: {_esc(rest)}")


def _victim_str(v: dict) -> str:
    return f"{v.get('namespace', '')}/{v.get('name', '')} (priority {v.get('priority', 0)})"


def _render_preemption(console, pre: dict, *, color: bool) -> None:
    """The PostFilter (DefaultPreemption) analysis: eligibility, candidate nodes with their
    victims, the nodes where preemption does not help, and the rule that chose the node."""
    from rich import box
    from rich.table import Table

    esc = _esc

    console.print()
    title = "Preemption (PostFilter DefaultPreemption)"
    if pre.get("earlierAttempt"):
        title += ", from the attempt that nominated the node"
    console.print(f"[bold]{title}[/bold]" if color else title)
    if "eligible" not in pre:  # a PostFilter kubesim records no analysis for
        if pre.get("message"):
            console.print(f"  {esc(pre['message'])}")
        return
    if not pre.get("eligible"):
        console.print(f"  The pod may not preempt: {esc(pre.get('reason') or '')}")
        if pre.get("earlier"):
            _render_preemption(console, pre["earlier"], color=color)
        return
    cands = pre.get("candidates") or []
    chosen = pre.get("chosen")
    if cands:
        t = Table(title="Candidate nodes: the fewest lower-priority pods to evict so the pod fits",
                  box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
        t.add_column("NODE", no_wrap=True)
        t.add_column("VICTIMS (most important first)", overflow="fold")
        t.add_column("PDB VIOLATIONS", justify="right", no_wrap=True)
        t.add_column("HIGHEST PRIORITY", justify="right", no_wrap=True)
        t.add_column("SUM OF PRIORITIES", justify="right", no_wrap=True)
        for c in cands:
            victims = c.get("victims") or []
            prios = [int(v.get("priority") or 0) for v in victims]
            name = c.get("node", "")
            label = name + ("  ← chosen" if name == chosen else "")
            if color and name == chosen:
                label = f"[bold green]{label}[/bold green]"
            t.add_row(label, esc(", ".join(_victim_str(v) for v in victims)),
                      str(c.get("numPDBViolations", 0)), str(max(prios) if prios else ""),
                      str(sum(prios)))
        console.print(t)
    not_helpful = pre.get("notHelpful") or {}
    if not_helpful:
        console.print("  Preemption does not help on:")
        for n in sorted(not_helpful)[:MAX_NODE_ROWS]:
            console.print(f"    {n}: {esc(not_helpful[n])}")
        if len(not_helpful) > MAX_NODE_ROWS:
            console.print(f"    ... and {len(not_helpful) - MAX_NODE_ROWS} more nodes (-o json shows them all)")
    if pre.get("notChecked"):
        console.print(f"  {pre['notChecked']} more nodes were not checked: the dry run stops once it has enough candidates.")
    if chosen:
        rule = pre.get("decidedBy") or ""
        if rule == "the only candidate":
            why = "the only candidate node"
        else:
            why = f"decided by the rule \"{rule}\" (kube-scheduler's order: fewest PDB violations, lowest " \
                  "highest-victim priority, lowest sum of victim priorities, fewest victims, latest start " \
                  "time of the highest-priority victims, then the first candidate)"
        console.print(f"  Chosen: {chosen}, {why}.")
        console.print(f"  The victims are deleted gracefully; the pod is nominated to {chosen} (NOMINATED NODE) and "
                      "is scheduled once they are gone.")
    elif not cands:
        console.print("  No node has lower-priority pods whose eviction would make the pod fit.")


def _summarise_rest(console, rest: list[str], all_nodes: dict) -> None:
    groups: dict[str, int] = {}
    for n in rest:
        d = all_nodes[n]
        if d.get("feasible"):
            key = "feasible"
        else:
            reasons = sorted({v for v in (d.get("filter") or {}).values() if v not in ("passed", "skipped")})
            key = ", ".join(reasons) or "not evaluated"
        groups[key] = groups.get(key, 0) + 1
    console.print(f"... and {len(rest)} more nodes:")
    for k, c in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])):
        console.print(f"  {c} {_esc(k)}")
