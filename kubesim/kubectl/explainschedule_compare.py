"""explain-schedule ``--compare NODE_A NODE_B``: two nodes of one attempt side by side, plugin by
plugin; what decided between them; and, for a node the filters rejected, the smallest change to
the node (or the pod) that would let each failing plugin pass.

The verdicts and scores are the explanation's (DESIGN §3.5). The changes follow what each
plugin checks in v1.35 (pkg/scheduler/framework/plugins): TaintToleration the NoSchedule and
NoExecute taints no toleration matches (tainttoleration/taint_toleration.go); NodeAffinity the
nodeSelector and the required terms, ORed, their expressions ANDed
(nodeaffinity/node_affinity.go, component-helpers' nodeaffinity); NodeResourcesFit the pod's
requests against allocatable minus what the node's pods request (noderesources/fit.go
``fitsRequest``: "Insufficient <resource>", "Too many pods"); NodeUnschedulable the cordon;
NodePorts the host ports in use.

Printers never fetch: the command passes the pod, the two nodes and the pods on them.
``-o json`` adds ``compare`` to the explanation (docs/explain-schedule.md).
"""

from __future__ import annotations

from fractions import Fraction

PASSED = ("passed", "skipped")


# -- the smallest change per failing plugin ------------------------------------------------------

def _taint_str(t: dict) -> str:
    return f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"


def _untolerated(pod: dict, node: dict) -> list[dict]:
    from kubesim.api.pods import tolerates

    tols = (pod.get("spec") or {}).get("tolerations") or []
    return [t for t in (node.get("spec") or {}).get("taints") or []
            if t.get("effect") in ("NoSchedule", "NoExecute")
            and not any(tolerates(x, t) for x in tols)]


def _expression_changes(expr: dict, labels: dict, name: str) -> list[str] | None:
    """The label changes that make one match expression hold on the node (None: none can)."""
    key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
    has, cur = key in labels, labels.get(key)
    if op == "In":
        return [] if has and cur in values else [f"set label {key}={values[0]}: "
                                                 f"kubesim label nodes {name} {key}={values[0]}"
                                                 + (" --overwrite" if has else "")] if values else None
    if op == "NotIn":
        return [f"remove label {key}: kubesim label nodes {name} {key}-"] if has and cur in values else []
    if op == "Exists":
        return [] if has else [f"add label {key}: kubesim label nodes {name} {key}="]
    if op == "DoesNotExist":
        return [f"remove label {key}: kubesim label nodes {name} {key}-"] if has else []
    if op in ("Gt", "Lt") and len(values) == 1:
        try:
            bound = int(values[0])
            ok = has and (int(cur) > bound if op == "Gt" else int(cur) < bound)
        except ValueError:
            ok = False
        if ok:
            return []
        want = bound + 1 if op == "Gt" else bound - 1
        return [f"set label {key}={want}: kubesim label nodes {name} {key}={want}"
                + (" --overwrite" if has else "")]
    return None


def _affinity_changes(pod: dict, node: dict) -> list[str]:
    spec = pod.get("spec") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    name = (node.get("metadata") or {}).get("name", "")
    out = []
    for k, v in (spec.get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            out.append(f"set label {k}={v}: kubesim label nodes {name} {k}={v}"
                       + (" --overwrite" if k in labels else ""))
    terms = ((((spec.get("affinity") or {}).get("nodeAffinity") or {})
              .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
             .get("nodeSelectorTerms") or [])
    best: list[str] | None = None
    for term in terms:  # terms are ORed: the one needing the fewest changes
        changes: list[str] | None = []
        if term.get("matchFields"):
            fields_ok = all(
                (f.get("operator") == "In" and name in (f.get("values") or []))
                or (f.get("operator") == "NotIn" and name not in (f.get("values") or []))
                for f in term["matchFields"])
            if not fields_ok:
                continue
        for expr in term.get("matchExpressions") or []:
            c = _expression_changes(expr, labels, name)
            if c is None:
                changes = None
                break
            changes += c  # type: ignore[operator]
        if changes is not None and (best is None or len(changes) < len(best)):
            best = changes
    if terms and best is None:
        out.append("no label change can satisfy the pod's required node affinity on this node "
                   "(relax spec.affinity.nodeAffinity)")
    elif best:
        out.extend(best)
    return out


def _fmt_amount(resource: str, amount: Fraction) -> str:
    from kubesim.api.quantity import format_quantity

    if resource == "cpu":
        return format_quantity(amount, "DecimalSI")
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return format_quantity(amount, "BinarySI")
    return format_quantity(amount, "DecimalSI")


def _requested(pods: list[dict]) -> dict[str, Fraction]:
    from kubesim.api.resource import pod_requests

    used: dict[str, Fraction] = {}
    for p in pods:
        for k, q in pod_requests(p).items():
            used[k] = used.get(k, Fraction(0)) + q.value
    return used


def _fit_changes(reason: str, pod: dict, node: dict, pods_on_node: list[dict]) -> list[str]:
    from kubesim.api.quantity import parse_quantity
    from kubesim.api.resource import pod_requests

    name = (node.get("metadata") or {}).get("name", "")
    alloc = {k: parse_quantity(v) for k, v in
             ((node.get("status") or {}).get("allocatable") or {}).items()}
    if reason == "Too many pods":
        return [f"free 1 pod slot: {len(pods_on_node)} of {alloc.get('pods', 0)} pods run on {name}"]
    if not reason.startswith("Insufficient "):
        return []
    resource = reason[len("Insufficient "):]
    want = {k: q.value for k, q in pod_requests(pod).items()}.get(resource, Fraction(0))
    used = _requested(pods_on_node).get(resource, Fraction(0))
    have = alloc.get(resource, Fraction(0))
    short = want + used - have
    if short <= 0:
        return [f"free {resource} on {name}"]
    return [(f"free {_fmt_amount(resource, short)} {resource} on {name} (its pods request "
             f"{_fmt_amount(resource, used)} of {_fmt_amount(resource, have)} allocatable; the "
             f"pod requests {_fmt_amount(resource, want)}), or lower the pod's request by as "
             "much")]


def _port_changes(pod: dict, node: dict, pods_on_node: list[dict]) -> list[str]:
    wanted = set()
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                wanted.add((p["hostPort"], p.get("protocol") or "TCP"))
    out = []
    for other in pods_on_node:
        for c in (other.get("spec") or {}).get("containers") or []:
            for p in c.get("ports") or []:
                key = (p.get("hostPort"), p.get("protocol") or "TCP")
                if key in wanted:
                    md = other.get("metadata") or {}
                    out.append(f"free host port {key[0]}/{key[1]}: pod "
                               f"{md.get('namespace')}/{md.get('name')} holds it")
    return out


def smallest_changes(plugin: str, reason: str, pod: dict, node: dict,
                     pods_on_node: list[dict]) -> list[str]:
    """What would let ``plugin`` pass on ``node``, as concrete changes."""
    name = (node.get("metadata") or {}).get("name", "")
    changes: list[str] = []
    if plugin == "TaintToleration":
        changes = [f"remove taint {_taint_str(t)}: kubesim taint nodes {name} "
                   f"{t['key']}:{t['effect']}- (or tolerate it in the pod)"
                   for t in _untolerated(pod, node)]
    elif plugin == "NodeAffinity":
        changes = _affinity_changes(pod, node)
    elif plugin == "NodeResourcesFit":
        for part in reason.split(", "):
            changes += _fit_changes(part, pod, node, pods_on_node)
    elif plugin == "NodeUnschedulable":
        changes = [f"uncordon the node: kubesim uncordon {name}"]
    elif plugin == "NodePorts":
        changes = _port_changes(pod, node, pods_on_node)
    elif plugin == "NodeName":
        changes = ["the pod's spec.nodeName names another node: no change to this node helps"]
    return changes or [f"make {plugin} pass ({reason})"]


# -- the comparison ----------------------------------------------------------------------------

def _score_text(s: dict | None) -> str:
    if s is None:
        return "-"
    if s.get("skipped"):
        return "skipped"
    return f"{s['normalized']}×{s['weight']} = {s['final']}"


def _failing(entry: dict) -> list[tuple[str, str]]:
    return [(p, v) for p, v in (entry.get("filter") or {}).items() if v not in PASSED]


def compare(expl: dict, a: str, b: str, pod: dict, nodes: dict[str, dict],
            pods_on: dict[str, list[dict]]) -> dict:
    """The ``compare`` object: both nodes' verdicts and scores per plugin, what decided, and
    the changes that would make a rejected node feasible."""
    ea, eb = expl["nodes"][a], expl["nodes"][b]
    filters = list(dict.fromkeys([*(ea.get("filter") or {}), *(eb.get("filter") or {})]))
    scores = list(dict.fromkeys([*(ea.get("score") or {}), *(eb.get("score") or {})]))
    out: dict = {
        "nodes": [a, b],
        "filter": [{"plugin": p, "verdicts": {a: (ea.get("filter") or {}).get(p),
                                              b: (eb.get("filter") or {}).get(p)}}
                   for p in filters],
        "score": [],
        "total": {a: ea.get("total"), b: eb.get("total")},
    }
    for p in scores:
        sa, sb = (ea.get("score") or {}).get(p), (eb.get("score") or {}).get(p)
        row = {"plugin": p, "scores": {a: sa, b: sb}}
        if sa is not None and sb is not None:
            row["difference"] = sa["final"] - sb["final"]
        out["score"].append(row)
    fa, fb = _failing(ea), _failing(eb)
    chosen = expl.get("node")

    def fails(n: str, f: list[tuple[str, str]]) -> str:
        return f"{n} fails " + "; ".join(f"{p} ({v})" for p, v in f)

    if fa and fb:
        decided = {"by": "filter", "text": f"neither is feasible: {fails(a, fa)}; {fails(b, fb)}"}
    elif fa or fb:
        loser, winner, f = (a, b, fa) if fa else (b, a, fb)
        decided = {"by": "filter", "winner": winner,
                   "text": f"{fails(loser, f)}; {winner} passes every filter"}
    elif ea.get("total") is None or eb.get("total") is None:
        unscored = [n for n, e in ((a, ea), (b, eb)) if e.get("total") is None]
        decided = {"by": "none", "text": "both pass every filter; "
                   + " and ".join(unscored) + " not scored in this attempt (kube-scheduler "
                   "stops filtering once it has enough feasible nodes, and does not score a "
                   "single feasible node)"}
    elif ea["total"] == eb["total"]:
        text = f"a tie at {ea['total']}: kube-scheduler picks at random among the best nodes"
        if chosen in (a, b):
            text += f"; this attempt picked {chosen}"
        decided = {"by": "tie", "text": text}
    else:
        winner, loser = (a, b) if ea["total"] > eb["total"] else (b, a)
        diffs = [(r["plugin"], r["difference"] if winner == a else -r["difference"])
                 for r in out["score"] if r.get("difference")]
        diffs.sort(key=lambda d: (-abs(d[1]), d[0]))
        margin = abs(ea["total"] - eb["total"])
        parts = ", ".join(f"{p} {d:+d}" for p, d in diffs)
        decided = {"by": "score", "winner": winner,
                   "text": f"{winner} scores {margin} more than {loser}: {parts}"}
    out["decidedBy"] = decided
    changes = {}
    for n, f in ((a, fa), (b, fb)):
        if f:
            changes[n] = [c for p, v in f
                          for c in smallest_changes(p, v, pod, nodes.get(n) or {}, pods_on.get(n, []))]
    out["toMakeFeasible"] = changes
    return out


def render(expl: dict, cmp: dict) -> str:
    a, b = cmp["nodes"]
    pod = expl.get("pod") or {}
    head = f"Pod {pod.get('namespace')}/{pod.get('name')}: {a} vs {b}   outcome: {expl.get('outcome')}"
    if expl.get("node"):
        head += f" on {expl['node']}"
    rows: list[tuple[str, str, str]] = [("PLUGIN", a, b), ("Filter", "", "")]
    for r in cmp["filter"]:
        va, vb = r["verdicts"][a], r["verdicts"][b]
        rows.append((f"  {r['plugin']}", "-" if va is None else va, "-" if vb is None else vb))
    if cmp["score"]:
        rows.append(("Score (normalized×weight = final)", "", ""))
        for r in cmp["score"]:
            rows.append((f"  {r['plugin']}", _score_text(r["scores"][a]), _score_text(r["scores"][b])))
        ta, tb = cmp["total"][a], cmp["total"][b]
        rows.append(("TOTAL", "-" if ta is None else str(ta), "-" if tb is None else str(tb)))
    w0 = max(len(r[0]) for r in rows if r[1] or r[2] or r[0] == "PLUGIN")
    w1 = max(len(r[1]) for r in rows)
    lines = [head, ""]
    for r in rows:
        if not (r[1] or r[2]) and r[0] not in ("PLUGIN", "TOTAL"):
            lines.append(r[0])
            continue
        lines.append(f"{r[0].ljust(w0)}   {r[1].ljust(w1)}   {r[2]}".rstrip())
    lines += ["", f"Decided by: {cmp['decidedBy']['text']}"]
    for n, changes in cmp["toMakeFeasible"].items():
        lines.append(f"To make {n} feasible:")
        lines += [f"  - {c}" for c in changes]
    return "\n".join(lines) + "\n"
