"""explain-schedule ``--trace``: one attempt's extension points in the order the framework ran
them, each plugin with its Status code (the explanation's ``trace``, recorded by
kubesim/scheduler/framework/trace.py as pkg/scheduler/framework/runtime/framework.go and
pkg/scheduler/schedule_one.go run the plugins in v1.35).

Plain text, one row per plugin: EXTENSION POINT, PLUGIN, STATUS, DETAIL; a step's outcome
follows its plugins on a row starting with ``=>``; a step that did not run says why.
"""

from __future__ import annotations

HEADERS = ("EXTENSION POINT", "PLUGIN", "STATUS", "DETAIL")
MAX_NAMES = 5  # feasible or PreFilter-restricted nodes listed before "+ N more..."


def _names(names: list[str]) -> str:
    if len(names) <= MAX_NAMES:
        return ", ".join(names)
    return ", ".join(names[:MAX_NAMES]) + f" + {len(names) - MAX_NAMES} more..."


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _plugin_detail(point: str, p: dict) -> str:
    parts = []
    if point == "Filter" and p.get("code") != "Skip":
        total = p.get("passedNodes", 0) + p.get("rejectedNodes", 0)
        parts.append(f"{p.get('passedNodes', 0)}/{total} nodes passed")
        for reason, n in (p.get("reasons") or {}).items():
            parts.append(f"{n}× {reason}")
        if p.get("rejectedNodes") and "rejectedFirstNodes" in p:
            parts.append(f"kube-scheduler stopped here on {p['rejectedFirstNodes']}")
    if "weight" in p:
        parts.append(f"weight {p['weight']}")
    if "nodeNames" in p:
        parts.append(f"nodes: {_names(p['nodeNames'])}" if p["nodeNames"] else "no node")
    if "timeoutSeconds" in p:
        t = p["timeoutSeconds"]
        parts.append(f"wait up to {int(t) if float(t).is_integer() else t}s")
    if "nominatedNodeName" in p:
        parts.append(f"nominated node {p['nominatedNodeName']}")
    if p.get("message"):
        parts.append(p["message"])
    return "; ".join(parts)


def _step_outcome(step: dict, expl: dict) -> str | None:
    point = step["extensionPoint"]
    if point == "QueueSort":
        q = expl.get("queue") or {}
        bits = [f"priority {step.get('priority', 0)}"]
        if q:
            bits.append(f"attempt {q.get('attempt')}, popped from the {q.get('poppedFrom')} queue")
            moved = (q.get("movedBy") or {}).get("event")
            if moved:
                bits.append(f"moved there by {moved}")
        if step.get("position"):
            bits.append(f"popped {_ordinal(step['position'])} in its scheduling round")
        return "; ".join(bits)
    if point == "PreFilter" and "code" in step:
        text = step["code"]
        if "nodeNames" in step:
            text += f": only nodes {_names(step['nodeNames'])}" if step["nodeNames"] \
                else ": no node left"
        elif step["code"] in ("Success", "Skip"):
            text += ": all nodes"
        if step.get("message"):
            text += f" ({step['message']})"
        return text
    if point == "Filter" and "feasibleNodes" in step:
        feasible = step["feasibleNodes"]
        text = f"{len(feasible)} feasible of {step.get('evaluatedNodes', 0)} evaluated " \
               f"({step.get('nodes', 0)} nodes)"
        if feasible:
            text += ": " + _names(feasible)
        return text
    if point == "NormalizeScore" and expl.get("node") and expl.get("outcome") == "Scheduled":
        total = ((expl.get("nodes") or {}).get(expl["node"]) or {}).get("total")
        return f"winner {expl['node']}" + (f" (total {total})" if total is not None else "")
    return None


def rows(expl: dict) -> list[tuple[str, str, str, str]]:
    out: list[tuple[str, str, str, str]] = []
    for step in expl.get("trace") or []:
        point = step["extensionPoint"]
        if step.get("note"):
            out.append((point, "-", "-", step["note"]))
            continue
        first = True
        for p in step.get("plugins") or []:
            out.append((point if first else "", p["name"], p.get("code", ""),
                        _plugin_detail(point, p)))
            first = False
        if first:
            out.append((point, "-", "-", "no plugin enabled"))
        outcome = _step_outcome(step, expl)
        if outcome:
            out.append(("", "=>", "", outcome))
    return out


def render(expl: dict) -> str:
    pod = expl.get("pod") or {}
    head = f"Pod {pod.get('namespace')}/{pod.get('name')}   "
    if expl.get("profile"):
        head += f"profile: {expl['profile']}   "
    head += f"outcome: {expl.get('outcome')}"
    if expl.get("node"):
        head += f"   node: {expl['node']}"
    lines = [head]
    if expl.get("message"):
        lines.append(f"Message: {expl['message']}")
    table = rows(expl)
    if not table:
        if expl.get("outcome") in ("Bypassed", "NotResponsible"):
            lines.append("No trace: the scheduler ran no extension point for this pod.")
        else:
            lines.append("No trace: this attempt was recorded without one (before kubesim "
                         "kept traces); the next attempt will have one.")
        return "\n".join(lines) + "\n"
    lines.append("")
    widths = [max(len(r[i]) for r in [HEADERS, *table]) for i in range(3)]
    for r in [HEADERS, *table]:
        cells = [r[i].ljust(widths[i]) for i in range(3)] + [r[3]]
        lines.append("   ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
