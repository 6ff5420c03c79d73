"""kubesim explain-schedule: the recorded last attempt for a stored pod, or a what-if for pods in a
file (DESIGN §3.5). The what-if writes nothing. The evaluation is the server's (kubesim.io);
the views are ``kubesim.kubectl.explainschedule``.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("pod", nargs="?", help="the pod whose last scheduling attempt to explain")
    p.add_argument("-f", "--filename", action="append",
                   help="what-if: evaluate the pod(s) in FILE (- for stdin) against the cluster; stores nothing")
    p.add_argument("-o", "--output", default=None, help="json|yaml (default: tables)")


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
    _print(env, explanations, pods, nodes, legacy, fmt, many=bool(args.filename) and len(explanations) > 1)
    return 0


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
    prepared = prepare(docs, f.namespace_flag, "creating", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
    pods_in = [p.obj for p in prepared if p.info.kind == "Pod"]
    if not pods_in:
        raise UsageError("explain-schedule -f needs at least one Pod")
    with f.connect(commit=False) as client:
        nodes = _nodes(client)
        results = client.explain_pods(pods_in)
        legacy = client.scheduler_plugins()
    return [e for e, _ in results], [p for _, p in results], nodes, legacy


def _print(env, explanations, pods, nodes, legacy, fmt: str, many: bool) -> None:
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

    blocks = [render(e, color=env.is_tty, pod=p, nodes=nodes, legacy=legacy) for e, p in zip(explanations, pods)]
    env.stdout.write("\n".join(blocks))
