"""explain-schedule's text view (DESIGN §3.5), laid out to fit the terminal.

The answer first: the outcome, the chosen node and the plugins where it beat the runner-up (or
the FailedScheduling message), and the rejected nodes counted by the reason kube-scheduler kept
for each, as FitError.Error groups them (pkg/scheduler/framework/types.go). Then the detail:

- Filter: plugins that pass, or are skipped, on every listed node in a line each; the others as
  a table. kube-scheduler stops at a node's first failing filter (RunFilterPlugins in
  pkg/scheduler/framework/runtime/framework.go), and runs none after a PreFilter rejection:
  the verdicts it computed are ``✓``/``✗``, the ones explain runs anyway ``(✓)``/``(✗ …)``.
- Score: raw → normalized × weight = final (prioritizeNodes in
  pkg/scheduler/schedule_one.go); plugins skipped or equal on every listed node in a line, the
  ones that tell the nodes apart as a table, totals aligned.
- For an unschedulable pod, what would make it fit; then PostFilter and preemption.

Tables are never wrapped or cut: a layout is measured before it is drawn (``textgrid``), and
the first that fits wins — nodes as rows with full plugin names (legacy predicate/priority
names under them), plugins as rows with one column per node, abbreviated names with a legend,
long reasons as numbered keys. Big clusters list a few nodes (the best feasible ones, one per
rejection reason) and count the rest. Printers never fetch: the command passes the pod and
nodes the hints need, and the legacy names (``Client.scheduler_plugins``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubesim.kubectl.textgrid import Column, Grid, thousands, wrap_items


def _legacy(legacy: dict | None, plugin: str, which: str) -> str:
    return ((legacy or {}).get(plugin) or {}).get(which) or ""


# -- what would make it fit ------------------------------------------------------------------------

def untolerated_taints(pod: dict, node: dict) -> list[dict]:
    from kubesim.api.pods import tolerates

    tols = (pod.get("spec") or {}).get("tolerations") or []
    return [t for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in tols)]


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"  # what cordon's spec.unschedulable becomes


def _taint_str(t: dict) -> str:
    return f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"


def fit_hint(reason: str, node_name: str, pod: dict | None, node: dict | None) -> str:
    """A plain-language line on what would make the pod fit, for one failing plugin's reason."""
    r = reason
    if "untolerated taint" in r:
        taints = untolerated_taints(pod or {}, node or {}) if node else []
        if taints:
            t = taints[0]
            if t["key"] == UNSCHEDULABLE_TAINT and len(taints) == 1:  # cordon's taint
                return f"uncordon the node: kubesim uncordon {node_name}"
            return (f"tolerate the taint {_taint_str(t)} in the pod, or remove it: "
                    f"kubesim taint nodes {node_name} {t['key']}:{t['effect']}-")
        return "add a toleration for the node's taint, or remove the taint"
    m = re.match(r"Insufficient (\S+)", r)
    if m:
        res = m.group(1)
        over = _beyond_allocatable(res, pod, node)
        if over is not None:
            want, has = over
            return (f"the pod requests {want} {res}, more than the node's whole allocatable ({has}): no "
                    f"eviction makes room (UnschedulableAndUnresolvable); lower the pod's {res} request or "
                    "add a bigger node")
        return f"free {res} on {node_name} (delete or shrink pods there) or lower the pod's {res} request"
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
    if "pod affinity terms conflict" in r:
        return ("the pod's required node affinity cannot match any node (its matchFields terms contradict "
                "each other): fix the pod's nodeAffinity")
    if "didn't match the requested node name" in r:
        return "the pod names another node in spec.nodeName"
    if "not ready" in r.lower():
        return "wait for the node to become Ready"
    return "change the pod or the node so that this plugin passes"


def _beyond_allocatable(resource: str, pod: dict | None, node: dict | None) -> tuple[str, str] | None:
    """(requested, allocatable) when the pod's request of ``resource`` exceeds the node's whole
    allocatable: NodeResourcesFit's fitsRequest then marks the shortage Unresolvable, and
    preemption skips the node (pkg/scheduler/framework/plugins/noderesources/fit.go)."""
    if not pod or not node:
        return None
    from kubesim.api.quantity import parse_quantity
    from kubesim.api.resource import pod_requests

    want = pod_requests(pod).get(resource)
    if want is None:
        return None
    alloc = ((node.get("status") or {}).get("allocatable") or {}).get(resource)
    has = parse_quantity(alloc) if alloc is not None else 0
    if want.value <= has:
        return None
    return want.text, str(alloc if alloc is not None else 0)


# -- the view's options and the nodes it shows ----------------------------------------------------

SMALL_CLUSTER = 10  # up to this many nodes, the tables list them all
DEFAULT_NODES = 5   # else this many (--nodes N, --all-nodes), and a summary of the rest
DEFAULT_WIDTH = 80  # when the terminal's width is unknown (piped, no COLUMNS)
MAX_REASON_GROUPS = 8
WHAT_IF_NOTE = ("(✓) (✗ …) what-if: not run by kube-scheduler, which stops at a node's first failing "
                "filter (RunFilterPlugins), and runs none when a PreFilter rejects the pod")


@dataclass(frozen=True)
class View:
    """How much of an explanation to show, and at what width (explain-schedule's flags)."""

    width: int = DEFAULT_WIDTH
    nodes: int | None = None          # --nodes N
    node: tuple[str, ...] = ()        # --node NAME
    only_feasible: bool = False       # --only-feasible
    plugins: tuple[str, ...] = ()     # --plugin P
    all_nodes: bool = False           # --all-nodes

    def limit(self, total: int) -> int | None:
        if self.all_nodes or self.node:
            return None
        if self.nodes is not None:
            return self.nodes
        return None if total <= SMALL_CLUSTER else DEFAULT_NODES


def rejected_by(d: dict) -> str | None:
    """The plugin whose verdict kube-scheduler kept for an infeasible node: ``rejectedBy`` when
    recorded, else the first failing filter in the profile's order (older records)."""
    if d.get("feasible"):
        return None
    if d.get("rejectedBy"):
        return d["rejectedBy"]
    return next((k for k, v in (d.get("filter") or {}).items() if v not in ("passed", "skipped")), None)


def ran_by_kube_scheduler(exp: dict, node: str, plugin: str) -> bool:
    """Whether kube-scheduler itself ran ``plugin``'s Filter on ``node`` (or, for the plugin
    that rejected the pod at PreFilter, decided the node with it). On a rejected node it ran the
    plugins up to the first failing one; after a PreFilter rejection (FitError's PreFilterMsg
    is the message's first sentence) or outside a PreFilter result's node set, none."""
    d = exp["nodes"][node]
    real = rejected_by(d)
    if real is None or plugin == real:
        return True
    verdicts = d.get("filter") or {}
    reason = verdicts.get(real, "")
    if reason.startswith("node(s) didn't satisfy plugin(s)") or \
            f"nodes are available: {reason}." in (exp.get("message") or ""):
        return False
    order = list(verdicts)
    return plugin in order and order.index(plugin) < order.index(real)


def _node_order(exp: dict) -> list[str]:
    """The chosen node, then the feasible nodes by total (highest first), then the rest; ties
    by name."""
    nodes = exp.get("nodes") or {}
    winner = exp.get("node")

    def key(n):
        d = nodes[n]
        return (n != winner, not d.get("feasible"), -(d.get("total") or 0), n)

    return sorted(nodes, key=key)


def reason_groups(exp: dict, names: list[str] | None = None) -> list[tuple[int, str, str]]:
    """(count, plugin, reason) of the rejected nodes, the most common first: what the
    FailedScheduling message counts (FitError.Error), with the plugin that said it."""
    nodes = exp.get("nodes") or {}
    counts: dict[tuple[str, str], int] = {}
    for n in names if names is not None else nodes:
        d = nodes[n]
        p = rejected_by(d)
        if p is None:
            continue
        k = (p, (d.get("filter") or {}).get(p, ""))
        counts[k] = counts.get(k, 0) + 1
    return sorted(((c, p, r) for (p, r), c in counts.items()), key=lambda t: (-t[0], t[1], t[2]))


def _pick_rows(order: list[str], nodes: dict, limit: int | None) -> list[str]:
    """The filter table's rows when not every node fits: the best feasible ones and one node per
    rejection reason first, then the rest in order, up to ``limit``."""
    if limit is None or len(order) <= limit:
        return order
    groups: dict[object, list[str]] = {}
    for n in order:
        d = nodes[n]
        p = rejected_by(d)
        key = "feasible" if p is None else (p, (d.get("filter") or {}).get(p, ""))
        groups.setdefault(key, []).append(n)
    picked: list[str] = []
    queues = sorted(groups.values(), key=lambda ns: (ns[0] not in order[:1], -len(ns)))
    while len(picked) < limit and any(queues):
        for q in queues:
            if q and len(picked) < limit:
                picked.append(q.pop(0))
    rank = {n: i for i, n in enumerate(order)}
    return sorted(picked, key=rank.__getitem__)


# -- plugin names: full, with legacy names, or abbreviated ------------------------------------------

def abbreviations(plugins: list[str]) -> dict[str, str]:
    """Each plugin's capitals (NodeResourcesFit → NRF), made unique with a digit."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for p in plugins:
        a = "".join(ch for ch in p if ch.isupper()) or p[:3]
        cand, i = a, 2
        while cand in used:
            cand, i = f"{a}{i}", i + 1
        used.add(cand)
        out[p] = cand
    return out


@dataclass(frozen=True)
class _Names:
    """How plugins are named in a layout: ``legacy`` under/after the name, or ``abbr``."""

    legacy: bool
    abbr: bool


_NAMINGS = (_Names(True, False), _Names(False, False), _Names(False, True))


def _head(plugin: str, names: _Names, legacy: dict | None, which: str, abbr: dict[str, str]) -> list[str]:
    if names.abbr:
        return [abbr[plugin]]
    old = _legacy(legacy, plugin, which)
    return [plugin, f"({old})"] if names.legacy and old else [plugin]


def _label(plugin: str, names: _Names, legacy: dict | None, which: str, abbr: dict[str, str]) -> str:
    return " ".join(_head(plugin, names, legacy, which, abbr))


def _named(plugin: str, legacy: dict | None, which: str) -> str:
    old = _legacy(legacy, plugin, which)
    return f"{plugin} ({old})" if old else plugin


def _legend(shown: list[str], names: _Names, legacy: dict | None, which: str,
            abbr: dict[str, str], width: int) -> list[str]:
    if names.abbr:
        items = [f"{abbr[p]} = {_named(p, legacy, which)}" for p in shown]
        return wrap_items("Plugins: ", items, width, sep="; ")
    if not names.legacy:
        items = [f"{p} = {_legacy(legacy, p, which)}" for p in shown if _legacy(legacy, p, which)]
        if items:
            return wrap_items("Legacy names: ", items, width, sep="; ")
    return []


# -- rendering ----------------------------------------------------------------------------------------

def _esc(s: str) -> str:
    """Rich markup escaped: Rich reads "[a b]" or "[example.com/gate]" as a tag and drops it,
    in plain text as well as in colour, so every reason and message goes through this."""
    from rich.markup import escape

    return escape(s)


def render(exp: dict, *, color: bool, width: int | None = None, pod: dict | None = None,
           nodes: dict[str, dict] | None = None, legacy: dict | None = None,
           view: View | None = None) -> str:
    """The text view of one explanation (plain text without trailing blanks unless ``color``);
    ``legacy`` maps plugins to their legacy predicate/priority names (the scheduler's).
    The answer comes first (outcome, chosen node and why, or why no node fits), then the
    filter and score tables laid out to fit ``view.width``."""
    view = view or View(width=width or DEFAULT_WIDTH)
    text = _render(exp, color=color, pod=pod, nodes=nodes, legacy=legacy, view=view)
    if color:
        return text
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _render(exp: dict, *, color: bool, pod: dict | None, nodes: dict[str, dict] | None,
            legacy: dict | None, view: View) -> str:
    import io

    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, color_system="standard" if color else None,
                      width=view.width, no_color=not color, highlight=False, soft_wrap=True)
    p = exp.get("pod") or {}
    outcome = exp.get("outcome", "")
    style = {"Scheduled": "bold green", "Unschedulable": "bold red"}.get(outcome, "bold yellow")
    head = f"Pod {p.get('namespace', '')}/{p.get('name', '')}   profile: {exp.get('profile') or '-'}   "
    if len(head) + len("outcome: ") + len(outcome) > view.width:  # a long name: the outcome below it
        head = head.rstrip() + "\n"
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
        console.print(_esc(_prose(queue_line, view.width)))
    all_nodes = exp.get("nodes") or {}
    order = _node_order(exp)
    for line in _lead(exp, order, legacy, view):
        console.print(_esc(_prose(line, view.width) if not line.startswith(" ") else line))

    listed = [n for n in order if (not view.node or n in view.node)
              and (not view.only_feasible or all_nodes[n].get("feasible"))]
    limit = view.limit(len(listed))
    rows = _pick_rows(listed, all_nodes, limit)
    filter_plugins = _plugins(all_nodes, listed, "filter", view.plugins)
    score_plugins = _plugins(all_nodes, [n for n in listed if all_nodes[n].get("feasible")], "score",
                             view.plugins)
    if rows and filter_plugins:
        console.print()
        for line in _filter_section(exp, rows, filter_plugins, legacy, view, color,
                                    every=len(rows) == len(all_nodes)):
            console.print(line)
        if len(listed) > len(rows):
            console.print(_esc(_more_line(len(listed) - len(rows), "node", width=view.width)))

    feasible = [n for n in listed if all_nodes[n].get("feasible") and "total" in all_nodes[n]]
    if feasible and score_plugins:
        scored = feasible if limit is None else feasible[:limit]
        console.print()
        for line in _score_section(exp, scored, score_plugins, legacy, view, color, feasible):
            console.print(line)
    if all_nodes and not ((rows and filter_plugins) or (feasible and score_plugins)):
        console.print()
        if not listed:
            console.print("No node to list with --only-feasible: no node passed every filter.")
        else:
            console.print(_esc(f"Nothing of {', '.join(view.plugins)} to show: a score plugin scores only "
                               "feasible nodes, and no listed node is one."))
    if outcome == "Unschedulable":
        hints = _hints(rows, all_nodes, pod, nodes, view.width)
        if hints:
            console.print()
            console.print("What would make it fit:")
            for line in hints:
                console.print(_esc(line))
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
            _render_preemption(console, pre, color=color, width=view.width)
    return buf.getvalue()


def _more_line(count: int, what: str, extra: str = "", width: int | None = None) -> str:
    """``… and 481 more nodes (...)``; ``what`` is singular; wrapped to ``width``."""
    tail = f", {extra}" if extra else ""
    return _prose(f"… and {thousands(count)} more {what}{'' if count == 1 else 's'}{tail} "
                  "(--all-nodes shows them)", width)


def _prose(line: str, width: int | None) -> str:
    """A line of prose folded to the terminal's width (continuations indented two spaces);
    tables are sized to fit instead, and a word is never broken."""
    if width is None or len(line) <= width:
        return line
    import textwrap

    return "\n".join(textwrap.wrap(line, width, subsequent_indent="  ", break_long_words=False,
                                    break_on_hyphens=False))


def _plugins(all_nodes: dict, names: list[str], which: str, only: tuple[str, ...]) -> list[str]:
    """The plugins of the ``filter`` or ``score`` entries, in the profile's order (``--plugin``
    keeps the named ones)."""
    out: dict[str, None] = {}
    for n in names[:1] + names[-1:]:  # every node carries every enabled plugin
        for k in (all_nodes[n].get(which) or {}):
            out.setdefault(k, None)
    return [p for p in out if not only or p in only]


# -- the answer first -------------------------------------------------------------------------------

def _lead(exp: dict, order: list[str], legacy: dict | None, view: View) -> list[str]:
    nodes = exp.get("nodes") or {}
    if not nodes:
        return []
    out: list[str] = []
    feasible = [n for n in order if nodes[n].get("feasible")]
    chosen = exp.get("node")
    if chosen and chosen in nodes:
        import textwrap

        for line in _why_chosen(exp, chosen, feasible, legacy, view.width):
            out.extend(textwrap.wrap(line, view.width, subsequent_indent="  ", break_long_words=False,
                                     break_on_hyphens=False) if not line.startswith(" ") else [line])
    total = len(nodes)
    groups = reason_groups(exp)
    head = f"Feasible: {thousands(len(feasible))} of {thousands(total)} nodes"
    scored = sum(1 for n in feasible if "total" in nodes[n])
    partly = (f"Scored: {thousands(scored)} of them; kube-scheduler stops looking once it has found "
              "enough (numFeasibleNodesToFind).") if 0 < scored < len(feasible) else ""
    if not groups:
        out.append(head + ".")
        return out + ([partly] if partly else [])
    out.append(head + "; rejected, by the plugin kube-scheduler stopped at:")
    digits = len(thousands(groups[0][0]))
    for c, p, r in groups[:MAX_REASON_GROUPS]:
        out.append(f"  {thousands(c):>{digits}}  {p}: {r}")
    if len(groups) > MAX_REASON_GROUPS:
        rest = groups[MAX_REASON_GROUPS:]
        out.append(f"  … {len(rest)} more reasons ({thousands(sum(c for c, _, _ in rest))} nodes)")
    return out + ([partly] if partly else [])


def _why_chosen(exp: dict, chosen: str, feasible: list[str], legacy: dict | None, width: int) -> list[str]:
    nodes = exp["nodes"]
    d = nodes[chosen]
    if len(feasible) == 1:
        return [f"Chosen: {chosen}, the only feasible node (kube-scheduler skips scoring then)."]
    if "total" not in d:  # schedule_one.go evaluateNominatedNode: no search, no scores
        return [(f"Chosen: {chosen} without scoring: kube-scheduler tries the pod's nominated node "
                 "first and takes it when it passes every filter.")]
    best = d.get("total") or 0
    tied = [n for n in feasible if n != chosen and (nodes[n].get("total") or 0) == best]
    if tied:
        others = ", ".join(tied[:3]) + (f" and {len(tied) - 3} more" if len(tied) > 3 else "")
        return [(f"Chosen: {chosen} with {best}, tied with {others}: kube-scheduler picks at random "
                 "among equal top scores (repeatable with KUBESIM_SEED).")]
    runner = next(n for n in feasible if n != chosen)
    r = nodes[runner]
    lines = [f"Chosen: {chosen} with the highest total {best}, ahead of {runner} ({r.get('total') or 0})."]
    ahead, behind = [], []
    for p, sc in (d.get("score") or {}).items():
        other = (r.get("score") or {}).get(p) or {}
        diff = (sc.get("final") or 0) - (other.get("final") or 0)
        if diff:
            item = f"{p} {diff:+d} ({sc.get('final') or 0} vs {other.get('final') or 0})"
            (ahead if diff > 0 else behind).append((-abs(diff), item))
    if ahead:
        lines.extend(wrap_items("  won on ", [i for _, i in sorted(ahead)], width, indent="    "))
    if behind:
        lines.extend(wrap_items("  lost on ", [i for _, i in sorted(behind)], width, indent="    "))
    return lines


def _choose(rows: list[str], view: View, by_node, by_plugin) -> tuple[list[Grid], _Names]:
    """The first layout that fits ``view.width``: nodes as rows with full plugin names (and
    legacy names under them), plugins as rows with every node a column, nodes as rows with
    abbreviated names; else plugins as rows, as many node columns as fit (in bands when every
    node was asked for), named so that the most nodes fit. ``by_node(names)`` and
    ``by_plugin(nodes, names)`` build the two shapes."""
    full, plain, abbr = _NAMINGS
    for names in (full, plain):
        for g in by_node(names):
            if g.width() <= view.width:
                return [g], names
    for names in (full, plain):
        g = by_plugin(rows, names)
        if g.width() <= view.width:
            return [g], names
    for g in by_node(abbr):
        if g.width() <= view.width:
            return [g], abbr
    best: tuple[int, list[Grid], _Names] | None = None
    for names in _NAMINGS:
        bands = _bands(rows, view, lambda ns, names=names: by_plugin(ns, names))
        fit = len(bands[0].columns) - 1 if bands and bands[0].width() <= view.width else 0
        if best is None or fit > best[0]:
            best = (fit, bands, names)
    assert best is not None
    return best[1], best[2]


def _bands(rows: list[str], view: View, make) -> list[Grid]:
    """Plugins-as-rows grids, as many node columns in each as fit the width (at least one): one
    grid unless the nodes were asked for (--all-nodes, --nodes, --node), then as many as it takes."""
    bands: list[Grid] = []
    i = 0
    asked = view.all_nodes or view.nodes is not None or bool(view.node)
    while i < len(rows):
        k = 1
        g = make(rows[i:i + 1])
        while i + k < len(rows):
            bigger = make(rows[i:i + k + 1])
            if bigger.width() > view.width:
                break
            g, k = bigger, k + 1
        bands.append(g)
        i += k
        if not asked:
            break
    return bands


def _draw(bands: list[Grid], color: bool) -> list[str]:
    out: list[str] = []
    for i, g in enumerate(bands):
        if i:
            out.append("")
        out += g.lines(color)
    return out


def _shown_by_plugin(bands: list[Grid], rows: list[str]) -> int:
    """How many nodes the grids show (nodes as columns: the columns after the first)."""
    if bands and bands[0].columns[0].head[0] == "PLUGIN":
        return sum(len(g.columns) - 1 for g in bands)
    return len(rows)


# -- filter table --------------------------------------------------------------------------------------

def _filter_section(exp: dict, rows: list[str], plugins: list[str], legacy: dict | None,
                    view: View, color: bool, every: bool) -> list[str]:
    """Every filter plugin's verdict: plugins that pass (or are skipped) on every listed node in
    a line each, the others as a table that fits the width. A failing verdict is the real one
    (✗) or a what-if kube-scheduler never computed ((✗ …)); long reasons become numbered keys."""
    nodes = exp["nodes"]
    where = "every node" if every else "every node listed"
    uniform: dict[str, list[str]] = {"passed": [], "skipped": []}
    varying: list[str] = []
    focused = bool(view.node or view.plugins)  # then every asked-for verdict is in the table
    for p in plugins:
        vs = {(nodes[n].get("filter") or {}).get(p, "") for n in rows}
        if len(vs) == 1 and next(iter(vs)) in uniform and not focused:
            uniform[next(iter(vs))].append(p)
        else:
            varying.append(p)
    title = "Filter (predicates): can the pod run on the node?"
    out = [f"[bold]{title}[/bold]" if color else title]
    lines: list[str] = []
    if uniform["passed"]:
        lines += wrap_items(f"Passed on {where}: ", [_named(p, legacy, "predicate") for p in uniform["passed"]],
                            view.width)
    if uniform["skipped"]:
        lines += wrap_items(f"Skipped on {where} (PreFilter returned Skip): ",
                            [_named(p, legacy, "predicate") for p in uniform["skipped"]], view.width)
    out += [_esc(x) for x in lines]
    if not varying:
        return out
    abbr = abbreviations(varying)
    keys: dict[str, int] = {}
    for n in rows:  # numbered in reading order
        for p in varying:
            v = (nodes[n].get("filter") or {}).get(p, "")
            if v not in ("passed", "skipped", ""):
                keys.setdefault(v, len(keys) + 1)
    chosen = exp.get("node")

    def cell(n: str, p: str, keyed: bool) -> tuple[str, str]:
        v = (nodes[n].get("filter") or {}).get(p, "")
        if v == "skipped":  # decided by PreFilter, before any node is filtered
            return "skipped", "dim"
        if v == "":
            return "", ""
        real = ran_by_kube_scheduler(exp, n, p)
        if v == "passed":
            return ("✓", "green") if real else ("(✓)", "dim")
        shown = str(keys[v]) if keyed else v
        return (f"✗ {shown}", "red") if real else (f"(✗ {shown})", "yellow")

    def feasible(n: str) -> tuple[str, str]:
        return ("yes", "green") if nodes[n].get("feasible") else ("no", "")

    def by_node(names: _Names):
        for keyed in (False, True):
            g = Grid([Column(["NODE"])] + [Column(_head(p, names, legacy, "predicate", abbr)) for p in varying]
                     + [Column(["FEASIBLE"])])
            for n in rows:
                g.add((n, "bold green" if n == chosen else ""), *[cell(n, p, keyed) for p in varying], feasible(n))
            g.keyed = keyed
            yield g

    def by_plugin(ns: list[str], names: _Names) -> Grid:
        marked = chosen in ns  # a second header line only for the mark
        g = Grid([Column(["PLUGIN"])] + [Column([n, "← chosen" if n == chosen else ""][:1 + marked]) for n in ns])
        for p in varying:
            g.add(_label(p, names, legacy, "predicate", abbr), *[cell(n, p, True) for n in ns])
        g.add("FEASIBLE", *[feasible(n) for n in ns])
        g.keyed = True
        return g

    bands, names = _choose(rows, view, by_node, by_plugin)
    if bands[0].keyed:
        keys = _renumber(bands, keys)
    out += _draw(bands, color)
    shown = _shown_by_plugin(bands, rows)
    if shown < len(rows):
        out.append(_esc(_more_line(len(rows) - shown, "node", "a wider terminal shows more", view.width)))
    out += [_esc(x) for x in _legend(varying, names, legacy, "predicate", abbr, view.width)]
    texts = {c[0] for g in bands for row in g.rows for c in row}
    if bands[0].keyed:
        digits = len(str(len(keys)))
        for reason, k in keys.items():
            out.append(_esc(f" {k:>{digits}}  {reason}"))
    if any(t.startswith(("(✗", "(✓")) for t in texts):
        import textwrap

        out += [_esc(x) for x in textwrap.wrap(WHAT_IF_NOTE, view.width, subsequent_indent="  ")]
    return out


_KEYED = re.compile(r"(\(?✗ )(\d+)(\)?)")


def _renumber(bands: list[Grid], keys: dict[str, int]) -> dict[str, int]:
    """Number the reason keys in the order the drawn tables show them (row by row), and keep
    only those shown; the cells are rewritten in place."""
    seen: dict[int, int] = {}
    for g in bands:
        for row in g.rows:
            for text, _ in row:
                m = _KEYED.fullmatch(text)
                if m:
                    seen.setdefault(int(m.group(2)), len(seen) + 1)
    for g in bands:
        for row in g.rows:
            for i, (text, style) in enumerate(row):
                m = _KEYED.fullmatch(text)
                if m:
                    row[i] = (f"{m.group(1)}{seen[int(m.group(2))]}{m.group(3)}", style)
    by_new = {seen[k]: reason for reason, k in keys.items() if k in seen}
    return {by_new[k]: k for k in sorted(by_new)}


# -- score table ---------------------------------------------------------------------------------------

def _score_cell(sc: dict | None, weight: bool = True) -> tuple[str, str]:
    if sc is None:
        return "", ""
    if sc.get("skipped"):
        return "skipped", "dim"
    w = f" ×{sc['weight']}" if weight else ""
    return f"{sc['raw']} → {sc['normalized']}{w} = {sc['final']}", ""


def _score_section(exp: dict, scored: list[str], plugins: list[str], legacy: dict | None,
                   view: View, color: bool, all_feasible: list[str]) -> list[str]:
    """Every score plugin's raw → normalized × weight = final on the listed feasible nodes, and
    the totals (aligned, whatever the mark after them)."""
    nodes = exp["nodes"]
    chosen = exp.get("node")
    best = max(nodes[n].get("total") or 0 for n in scored)
    title = "Score (priorities): raw → normalized × weight = final"
    out = [f"[bold]{title}[/bold]" if color else title]
    focused = bool(view.node or view.plugins)  # then every asked-for score is in the table
    skipped = [] if focused else [
        p for p in plugins if all(((nodes[n].get("score") or {}).get(p) or {}).get("skipped") for n in scored)]
    if skipped:
        out += [_esc(x) for x in wrap_items("Skipped (PreScore returned Skip, 0 points): ",
                                            [_named(p, legacy, "priority") for p in skipped], view.width)]
    # a plugin that gives every listed node the same points decides nothing between them
    equal = [] if len(scored) < 2 or focused else [
        p for p in plugins if p not in skipped
        and len({_score_cell((nodes[n].get("score") or {}).get(p))[0] for n in scored}) == 1]
    if equal:
        where = "every node listed" if len(scored) < len(all_feasible) else "every feasible node"
        items = [f"{_named(p, legacy, 'priority')} {_score_cell((nodes[scored[0]].get('score') or {}).get(p))[0]}"
                 for p in equal]
        out += [_esc(x) for x in wrap_items(f"Equal on {where}: ", items, view.width)]
    shown = [p for p in plugins if p not in skipped and p not in equal]

    def mark(n: str) -> str:
        if n == chosen:
            return "← chosen"
        return "(tie)" if (nodes[n].get("total") or 0) == best and chosen else ""

    abbr = abbreviations(shown)
    weights = {p: next((((nodes[n].get("score") or {}).get(p) or {}).get("weight") for n in scored), 1)
               for p in shown}

    def by_node(names: _Names):
        g = Grid([Column(["NODE"])] + [Column(_head(p, names, legacy, "priority", abbr)) for p in shown]
                 + [Column(["TOTAL"], right=True), Column([""])])
        for n in scored:
            sc = nodes[n].get("score") or {}
            g.add((n, "bold green" if n == chosen else ""), *[_score_cell(sc.get(p)) for p in shown],
                  (str(nodes[n].get("total") or 0), "bold"), (mark(n), "bold green" if n == chosen else ""))
        yield g

    def by_plugin(ns: list[str], names: _Names) -> Grid:
        g = Grid([Column(["PLUGIN"]), Column(["WEIGHT"], right=True)]
                 + [Column([n, mark(n)][:1 + any(mark(x) for x in ns)], right=True) for n in ns])
        for p in shown:
            g.add(_label(p, names, legacy, "priority", abbr), f"×{weights[p]}",
                  *[_score_cell((nodes[n].get("score") or {}).get(p), weight=False) for n in ns])
        g.add("TOTAL", "", *[(str(nodes[n].get("total") or 0), "bold") for n in ns])
        return g

    bands, names = _choose(scored, view, by_node, by_plugin)
    out += _draw(bands, color)
    n_shown = len(scored)
    if bands[0].columns[0].head[0] == "PLUGIN":
        n_shown = sum(len(g.columns) - 2 for g in bands)
    if n_shown < len(all_feasible):
        rest = all_feasible[n_shown:] if n_shown == len(scored) else [n for n in all_feasible if n not in
                                                                       scored[:n_shown]]
        totals = [nodes[n].get("total") or 0 for n in rest]
        extra = f"totals {min(totals)} to {max(totals)}" if min(totals) != max(totals) else f"total {totals[0]}"
        if n_shown < len(scored):
            extra += ", a wider terminal shows more"
        out.append(_esc(_more_line(len(rest), "scored node", extra, view.width)))
    out += [_esc(x) for x in _legend(shown, names, legacy, "priority", abbr, view.width)]
    return out


# -- what would make it fit ----------------------------------------------------------------------------

def _hints(rows: list[str], all_nodes: dict, pod: dict | None, nodes: dict[str, dict] | None,
           width: int) -> list[str]:
    """Each distinct hint once, with the nodes it applies to (a node's real rejection first),
    wrapped to the width; a command stays whole, on a line of its own when it must."""
    by_hint: dict[str, list[str]] = {}
    for n in rows:
        d = all_nodes[n]
        real = rejected_by(d)
        failing = [(fp, v) for fp, v in (d.get("filter") or {}).items() if v not in ("passed", "skipped")]
        failing.sort(key=lambda pv: pv[0] != real)
        for hint in dict.fromkeys(fit_hint(v, n, pod, (nodes or {}).get(n)) for _, v in failing):
            by_hint.setdefault(hint, []).append(n)
    out: list[str] = []
    for hint, ns in by_hint.items():
        who = ", ".join(ns[:3]) + (f" and {len(ns) - 3} more" if len(ns) > 3 else "")
        out += _hint_lines(who, hint, width)
    return out


def _hint_lines(who: str, hint: str, width: int) -> list[str]:
    import textwrap

    line = f"  {who}: {hint}"
    if len(line) <= width:
        return [line]
    prose, sep, command = hint.partition(": kubesim ")
    lines = textwrap.wrap(f"  {who}: {prose}{':' if sep else ''}", width, subsequent_indent="    ",
                          break_long_words=False, break_on_hyphens=False)
    if sep:
        lines.append("      kubesim " + command)
    return lines


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


def _render_preemption(console, pre: dict, *, color: bool, width: int = DEFAULT_WIDTH) -> None:
    """The PostFilter (DefaultPreemption) analysis: eligibility, candidate nodes with their
    victims, the nodes where preemption does not help, and the rule that chose the node."""
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
            _render_preemption(console, pre["earlier"], color=color, width=width)
        return
    cands = pre.get("candidates") or []
    chosen = pre.get("chosen")
    if cands:
        console.print("Candidate nodes: the fewest lower-priority pods to evict so the pod fits")
        rows = []
        for c in cands:
            victims = c.get("victims") or []
            prios = [int(v.get("priority") or 0) for v in victims]
            name = c.get("node", "")
            rows.append((name, "← chosen" if name == chosen else "", ", ".join(_victim_str(v) for v in victims),
                         str(c.get("numPDBViolations", 0)), str(max(prios) if prios else ""), str(sum(prios))))
        g = Grid([Column(["NODE"]), Column([""]), Column(["VICTIMS (most important first)"]),
                  Column(["PDB", "VIOLATIONS"], right=True), Column(["HIGHEST", "PRIORITY"], right=True),
                  Column(["SUM OF", "PRIORITIES"], right=True)])
        for r in rows:
            style = "bold green" if r[1] else ""
            g.add((r[0], style), (r[1], style), *r[2:])
        if g.width() <= width:
            for line in g.lines(color):
                console.print(line)
        else:  # one block per candidate, the victims on their own line
            for name, mark, victims, pdb, high, total in rows:
                head = f" {name}{'  ' + mark if mark else ''}: {pdb} PDB violations, highest priority {high}, " \
                       f"sum of priorities {total}"
                console.print(f"[bold green]{esc(head)}[/bold green]" if color and mark else esc(head))
                console.print(esc(f"   victims: {victims}"))
    not_helpful = pre.get("notHelpful") or {}
    if not_helpful:
        console.print("  Preemption does not help on:")
        by_msg: dict[str, list[str]] = {}
        for n in sorted(not_helpful):
            by_msg.setdefault(not_helpful[n], []).append(n)
        for msg, ns in sorted(by_msg.items(), key=lambda kv: (-len(kv[1]), kv[1][0])):
            who = ", ".join(ns[:3]) + (f" and {thousands(len(ns) - 3)} more" if len(ns) > 3 else "")
            console.print(f"    {esc(who)}: {esc(msg)}")
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
