"""kubesim explain-schedule: the recorded last attempt for a stored pod, or a what-if for pods in a
file (DESIGN §3.5). The what-if writes nothing. The evaluation is the server's (kubesim.io);
the views are ``kubesim.kubectl.explainschedule``, laid out for the terminal's width; ``--nodes``,
``--node``, ``--only-feasible``, ``--plugin`` and ``--all-nodes`` focus the tables (``-o json``
always has everything).
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("pod", nargs="?", help="the pod whose last scheduling attempt to explain")
    p.add_argument("-f", "--filename", action="append",
                   help="what-if: evaluate the pod(s) in FILE (- for stdin) against the cluster; stores nothing")
    p.add_argument("-o", "--output", default=None,
                   help="json|yaml|html (default: tables fitted to the terminal's width: $COLUMNS, "
                        "else the terminal's, else 80); html is one self-contained page: a nodes x "
                        "plugins heat map, sortable by any plugin")
    p.add_argument("--trace", action="store_true",
                   help="the attempt's extension points in order, each plugin's status "
                        "(PreEnqueue, QueueSort, PreFilter ... Bind, PostBind, Unreserve)")
    p.add_argument("--compare", nargs=2, metavar=("NODE_A", "NODE_B"),
                   help="two nodes side by side, plugin by plugin: what decided between them, "
                        "and the smallest change that would make a filtered node feasible")
    v = p.add_argument_group("focus (the tables; -o json always has every node)")
    v.add_argument("--nodes", type=_count, default=None, metavar="N",
                   help="list N nodes in the tables (default: every node up to 10, else 5, the rest counted)")
    v.add_argument("--node", action="append", default=None, metavar="NAME",
                   help="only this node (repeat or comma-separate for several)")
    v.add_argument("--only-feasible", action="store_true", help="only the nodes that passed every filter")
    v.add_argument("--plugin", action="append", default=None, metavar="P",
                   help="only this plugin's column (repeat or comma-separate for several)")
    v.add_argument("--all-nodes", action="store_true", help="every node, however many")


def _count(text: str) -> int:
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid argument "{text}" for "--nodes" flag: '
                                         "strconv.ParseInt: parsing " + f'"{text}": invalid syntax') from None
    if n < 1:
        raise argparse.ArgumentTypeError(f'invalid argument "{text}" for "--nodes" flag: must be at least 1')
    return n


def terminal_width(env) -> int:
    """The width to lay the tables out in: $COLUMNS, else the terminal's, else 80 (piped)."""
    cols = (env.vars.get("COLUMNS") or "").strip()
    if cols.isdigit() and int(cols) > 0:
        return int(cols)
    if env.is_tty:
        import os

        try:
            return os.get_terminal_size(env.stdout.fileno()).columns or 80
        except (AttributeError, OSError, ValueError):
            pass
    return 80


def run(f, args, env) -> int:
    fmt = args.output or ""
    if fmt not in ("", "json", "yaml", "html"):
        raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: html,json,yaml')
    if fmt == "html" and (getattr(args, "trace", False) or getattr(args, "compare", None)):
        raise UsageError("-o html shows the heat map of every node: it does not combine with "
                         "--trace or --compare")
    if args.filename:
        explanations, pods, nodes, legacy = _what_if(f, args, env)
    else:
        if not args.pod:
            raise UsageError("a pod name or -f FILE is required")
        explanations, pods, nodes, legacy = _recorded(f, args, env)
    if getattr(args, "compare", None):
        return _compare(f, env, args, explanations, pods, nodes, fmt)
    if not getattr(args, "trace", False):
        explanations = [{k: v for k, v in e.items() if k != "trace"} for e in explanations]
    elif not fmt:
        from kubesim.kubectl.explainschedule_trace import render as render_trace

        env.stdout.write("\n".join(render_trace(e) for e in explanations))
        return 0
    view = _view(args, env, explanations, legacy)
    _print(env, explanations, pods, nodes, legacy, fmt, many=bool(args.filename) and len(explanations) > 1,
           view=view)
    return 0


def _split(values: list[str] | None) -> tuple[str, ...]:
    return tuple(x.strip() for v in values or () for x in v.split(",") if x.strip())


def _view(args, env, explanations: list[dict], legacy: dict | None):
    """The table view's focus, checked against what the explanations hold."""
    from kubesim.kubectl.explainschedule import View

    node, plugins = _split(args.node), _split(args.plugin)
    known_nodes = {n for e in explanations for n in (e.get("nodes") or {})}
    for n in node:
        if known_nodes and n not in known_nodes:
            raise UsageError(f'node "{n}" is not in the explanation (it was not evaluated for this pod)')
    known_plugins = {p for e in explanations for d in (e.get("nodes") or {}).values()
                     for which in ("filter", "score") for p in (d.get(which) or {})}
    known_plugins |= set(legacy or {})
    for p in plugins:
        if p not in known_plugins:
            raise UsageError(f'unknown plugin "{p}": the profile\'s filter and score plugins are '
                             + ", ".join(sorted(known_plugins)))
    return View(width=terminal_width(env), nodes=args.nodes, node=node, only_feasible=args.only_feasible,
                plugins=plugins, all_nodes=args.all_nodes)


def _compare(f, env, args, explanations, pods, nodes, fmt: str) -> int:
    """--compare NODE_A NODE_B: one pod's attempt, two of its nodes side by side."""
    from kubesim.api import kinds
    from kubesim.errors import NotFound
    from kubesim.kubectl import explainschedule_compare as compare

    a, b = args.compare
    if args.trace:
        raise UsageError("--trace and --compare cannot be used together")
    if len(explanations) != 1:
        raise UsageError("--compare explains one pod, but the file has "
                         f"{len(explanations)}")
    if a == b:
        raise UsageError(f"--compare needs two different nodes, got {a} twice")
    for n in (a, b):
        if n not in nodes:
            raise NotFound("nodes", n)
    expl = {k: v for k, v in explanations[0].items() if k != "trace"}
    pod_ref = f"{expl['pod']['namespace']}/{expl['pod']['name']}"
    if not expl.get("nodes"):
        raise UsageError(f"pod {pod_ref} has no per-node verdicts to compare "
                         f"(outcome: {expl.get('outcome')})")
    for n in (a, b):
        if n not in expl["nodes"]:
            raise UsageError(f'node "{n}" has no verdicts in the attempt explained for pod '
                             f"{pod_ref} (it joined the cluster after that attempt)")
    pods_on: dict[str, list[dict]] = {}
    failing = [n for n in (a, b) if not expl["nodes"][n].get("feasible")]
    if failing:
        with f.connect() as client:
            for n in failing:
                pods_on[n] = [p for p in client.list(kinds.by_kind("Pod"), None,
                                                     field_selector=f"spec.nodeName={n}")
                              if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    cmp = compare.compare(expl, a, b, pods[0], nodes, pods_on)
    if fmt:
        expl["compare"] = cmp
        _print(env, [expl], pods, nodes, {}, fmt, many=False)
    else:
        env.stdout.write(compare.render(expl, cmp))
    return 0


# Past this many nodes to read, one list of every Node costs less than a get of each.
NODES_BY_NAME_MAX = 200


def _nodes(client, explanations: list[dict], extra: tuple[str, ...] = ()) -> dict[str, dict]:
    """The Nodes the views read (printers never fetch): those a filter rejected in some
    explanation (the fit hints read their labels, taints and allocatable) and ``extra``
    (--compare's), not every Node of the cluster; a name that is no Node is left out."""
    from kubesim.api import kinds
    from kubesim.errors import NotFound

    names = {n for e in explanations for n, d in (e.get("nodes") or {}).items()
             if any(v not in ("passed", "skipped") for v in (d.get("filter") or {}).values())}
    names.update(extra)
    info = kinds.by_kind("Node")
    if len(names) > NODES_BY_NAME_MAX:
        return {n["metadata"]["name"]: n for n in client.list(info)}
    out = {}
    for name in sorted(names):
        try:
            out[name] = client.get(info, "", name)
        except NotFound:
            continue
    return out


def _recorded(f, args, env):
    from kubesim.api import kinds

    name = args.pod.split("/", 1)[1] if args.pod.startswith(("pod/", "pods/", "po/")) else args.pod
    with f.connect() as client:
        pod = client.get(kinds.by_kind("Pod"), f.namespace(), name)
        exp, note = client.explain_schedule(f.namespace(), name)
        nodes, legacy = _nodes(client, [exp], tuple(getattr(args, "compare", None) or ())), client.scheduler_plugins()
    if note:
        env.stderr.write(note + "\n")
    return [exp], [pod], nodes, legacy


def _what_if(f, args, env):
    """Evaluate each pod in the files against the current cluster, in order, as if the ones
    before it had been placed; nothing is committed."""
    from kubesim.codec.load import load
    from kubesim.kubectl.resource import prepare

    docs = load(args.filename, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to explain-schedule")
    prepared = prepare(docs, f.namespace_flag, "creating", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
    pods_in = [p.obj for p in prepared if p.info.kind == "Pod"]
    if not pods_in:
        raise UsageError("explain-schedule -f needs at least one Pod")
    with f.connect(commit=False) as client:
        results = client.explain_pods(pods_in)
        nodes = _nodes(client, [e for e, _ in results], tuple(getattr(args, "compare", None) or ()))
        legacy = client.scheduler_plugins()
    return [e for e, _ in results], [p for _, p in results], nodes, legacy


def _print(env, explanations, pods, nodes, legacy, fmt: str, many: bool, view=None) -> None:
    if fmt == "html":
        from kubesim.kubectl.explainschedule_html import render as render_html

        env.stdout.write(render_html(explanations))
        return
    if fmt:
        payload = {"kind": "List", "items": explanations} if many else explanations[0]
        if fmt == "json":
            import json

            # DESIGN §3.5 lists the fields in a reading order; keep it rather than sorting
            env.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        else:
            from kubesim.printers.output import to_yaml

            env.stdout.write(to_yaml(payload))
        return
    from kubesim.kubectl.explainschedule import render

    blocks = [render(e, color=env.is_tty, pod=p, nodes=nodes, legacy=legacy, view=view)
              for e, p in zip(explanations, pods)]
    env.stdout.write("\n".join(blocks))
