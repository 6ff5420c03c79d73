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
                   help="json|yaml (default: tables fitted to the terminal's width: $COLUMNS, else the "
                        "terminal's, else 80)")
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
    if fmt not in ("", "json", "yaml"):
        raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: json,yaml')
    if args.filename:
        explanations, pods, nodes, legacy = _what_if(f, args, env)
    else:
        if not args.pod:
            raise UsageError("a pod name or -f FILE is required")
        explanations, pods, nodes, legacy = _recorded(f, args, env)
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


def _nodes(client) -> dict[str, dict]:
    from kubesim.api import kinds

    return {n["metadata"]["name"]: n for n in client.list(kinds.by_kind("Node"))}


def _recorded(f, args, env):
    from kubesim.api import kinds

    name = args.pod.split("/", 1)[1] if args.pod.startswith(("pod/", "pods/", "po/")) else args.pod
    with f.connect() as client:
        pod = client.get(kinds.by_kind("Pod"), f.namespace(), name)
        exp, note = client.explain_schedule(f.namespace(), name)
        nodes, legacy = _nodes(client), client.scheduler_plugins()
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
    prepared = prepare(docs, f.namespace_flag, "creating", explicit_namespace=f.explicit_namespace)
    pods_in = [p.obj for p in prepared if p.info.kind == "Pod"]
    if not pods_in:
        raise UsageError("explain-schedule -f needs at least one Pod")
    with f.connect(commit=False) as client:
        nodes = _nodes(client)
        results = client.explain_pods(pods_in)
        legacy = client.scheduler_plugins()
    return [e for e, _ in results], [p for _, p in results], nodes, legacy


def _print(env, explanations, pods, nodes, legacy, fmt: str, many: bool, view=None) -> None:
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
