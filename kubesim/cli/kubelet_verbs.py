"""logs, events, and kubesim's own ``node stop|start``: what the kubelets and events show.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go (flags, the container defaulting
and its "Defaulted container" notice), staging/src/k8s.io/kubectl/pkg/cmd/events/events.go
(``kubectl events``: --for, --types, sorted by last seen, "No events found in <ns> namespace.").
"""

from __future__ import annotations

from kubesim.cli.session import namespace, session
from kubesim.errors import BadRequest, NotFound, UsageError


def logs_cmd_args(p):
    p.add_argument("target", help="POD or pod/POD")
    p.add_argument("container_arg", nargs="?", help="container (or use -c)")
    p.add_argument("-c", "--container", default=None)
    p.add_argument("-p", "--previous", action="store_true", help="the previous instance of the container")
    p.add_argument("--tail", type=int, default=-1)
    p.add_argument("--all-containers", action="store_true")


def logs_cmd(args, env) -> int:
    from kubesim.kubelet import logs as lifecycle

    name = args.target.split("/", 1)[1] if args.target.startswith(("pod/", "pods/", "po/")) else args.target
    container = args.container or args.container_arg
    ns = namespace(args)
    with session(args, env) as cluster:
        pod = cluster.store.get("Pod", ns, name)
        if pod is None:
            raise NotFound("pods", name)
        now = cluster.now()
        spec = pod.get("spec") or {}
        names = [c["name"] for c in spec.get("containers") or []]
        out: list[str] = []
        notices: list[str] = []
        targets = names if args.all_containers else [container or names[0]]
        if not container and not args.all_containers and len(names) > 1:
            notices.append(f'Defaulted container "{names[0]}" out of: {", ".join(names)}')
        for c in targets:
            try:
                lines = lifecycle.logs(pod, c, now, previous=args.previous)
            except LookupError as e:
                raise BadRequest(str(e)) from None
            if args.tail >= 0:
                lines = lines[-args.tail:] if args.tail else []
            out.extend(lines)
    for n in notices:
        env.stderr.write(n + "\n")
    env.stdout.write("".join(line + "\n" for line in out))
    return 0


def events_cmd_args(p):
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--for", dest="for_", default=None, help="only events about this object, e.g. pod/web")
    p.add_argument("--types", default=None, help="comma-separated event types, e.g. Warning")
    p.add_argument("-o", "--output", default=None, help="json|yaml|name")
    p.add_argument("--no-headers", action="store_true")


def events_cmd(args, env) -> int:
    from kubesim.api import kinds
    from kubesim.printers import output
    from kubesim.printers.tables import PrintContext, format_cells, render_table

    ns = None if args.all_namespaces else namespace(args)
    types = {t.strip().lower() for t in args.types.split(",")} if args.types else None
    for_kind = for_name = None
    if args.for_:
        if "/" not in args.for_:
            raise UsageError("--for must be in resource/name form")
        t, for_name = args.for_.split("/", 1)
        for_kind = kinds.lookup(t).kind
    with session(args, env) as cluster:
        now = cluster.now()
        evs = cluster.store.list("Event", ns)
    evs = [e for e in evs
           if (types is None or (e.get("type") or "").lower() in types)
           and (for_kind is None or ((e.get("involvedObject") or {}).get("kind") == for_kind
                                     and (e.get("involvedObject") or {}).get("name") == for_name))]
    evs.sort(key=lambda e: (e.get("lastTimestamp") or e.get("eventTime") or "", e["metadata"]["name"]))
    if not evs:
        env.stderr.write("No events found.\n" if ns is None else f"No events found in {ns} namespace.\n")
        return 0
    if args.output in ("json", "yaml", "name"):
        env.stdout.write(output.render(evs, args.output, False))
        return 0
    rows = render_table("Event", evs, PrintContext(now=now), no_headers=args.no_headers,
                        show_namespace=ns is None)
    env.stdout.write(format_cells(rows))
    return 0


def node_cmd_args(p):
    p.add_argument("action", choices=["stop", "start"], help="stop or start the node's kubelet")
    p.add_argument("node")


def node_cmd(args, env) -> int:
    """kubesim's own: stop a node's kubelet (the node goes NotReady, is tainted unreachable and
    its pods are evicted after their tolerationSeconds) or start it again."""
    from kubesim.kubelet import nodefailure, steps

    with session(args, env) as cluster:
        node = cluster.store.get("Node", "", args.node)
        if node is None:
            raise NotFound("nodes", args.node)
        now = cluster.now()
        if args.action == "stop":
            changed = nodefailure.stop_kubelet(node, now)
            if changed:
                cluster.store.put(node)
        else:
            evs = nodefailure.start_kubelet(node, now)
            changed = bool(evs)
            if changed:
                cluster.store.put(node)
                steps.resume_node(cluster, args.node)
                for obj, type_, reason, message, component, at in evs:
                    cluster.record(obj, type_, reason, message, component, args.node, at=at)
    verb = "stopped" if args.action == "stop" else "started"
    env.stdout.write(f"node/{args.node} kubelet {verb}\n" if changed else f"node/{args.node} kubelet already {verb}\n")
    return 0
