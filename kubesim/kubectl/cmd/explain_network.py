"""kubesim explain-network SRC DST[:PORT]: each hop of a connection from a pod, with its
verdict (DNS → Service → endpoints → each NetworkPolicy of both ends → the listening port);
the networking twin of explain-schedule. DST is a name as the pod would resolve it (``web``,
``web.prod``, ``web.prod.svc.cluster.local``), a Service or pod IP, or ``pod/NAME``
(``pod/NAME.NS`` for another namespace). The evaluation is the server's
(kubesim.controlplane.network over kubesim.network); the views are
``kubesim.kubectl.explainnetwork``.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("source", nargs="?", help="the pod the connection starts from")
    p.add_argument("destination", nargs="?", metavar="DST[:PORT]",
                   help="a name or IP (port 80 by default), or pod/NAME[.NS]")
    p.add_argument("--protocol", default="TCP", help="TCP (default), UDP or SCTP")
    p.add_argument("-o", "--output", default=None, help="json|yaml (default: a table)")


def split_destination(dst: str) -> tuple[str, int]:
    host, port = dst, 80
    if dst.count(":") == 1:
        host, _, p = dst.partition(":")
        if not p.isdigit() or not 0 < int(p) < 65536:
            raise UsageError(f'invalid port "{p}" in "{dst}": a number 1-65535')
        port = int(p)
    return host, port


def explain(client, ns: str, source: str, dst: str, protocol: str = "TCP") -> dict:
    from kubesim.api import kinds

    host, port = split_destination(dst)
    if host.startswith(("pod/", "pods/", "po/")):
        name = host.split("/", 1)[1]
        pns = ns
        if "." in name:
            name, pns = name.split(".", 1)
        pod = client.get(kinds.by_kind("Pod"), pns, name)
        host = (pod.get("status") or {}).get("podIP") or ""
        if not host:
            raise UsageError(f"pod {pns}/{name} has no IP yet")
    return client.explain_network(ns, source, host, port, protocol)


def print_explanation(exp: dict, fmt: str, env) -> None:
    if fmt == "json":
        import json

        env.stdout.write(json.dumps(exp, indent=2) + "\n")
    elif fmt == "yaml":
        from kubesim.codec.dump import to_yaml

        env.stdout.write(to_yaml(exp))
    else:
        from kubesim.kubectl.cmd.explain_schedule import terminal_width
        from kubesim.kubectl.explainnetwork import render

        env.stdout.write(render(exp, color=env.is_tty, width=max(terminal_width(env), 100)))


def run(f, args, env) -> int:
    fmt = args.output or ""
    if fmt not in ("", "json", "yaml"):
        raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: json,yaml')
    if not args.source or not args.destination:
        raise UsageError("explain-network needs a source pod and a destination: explain-network SRC DST[:PORT]")
    protocol = args.protocol.upper()
    if protocol not in ("TCP", "UDP", "SCTP"):
        raise UsageError(f'unsupported protocol "{args.protocol}": TCP, UDP or SCTP')
    with f.connect(read_only=True) as client:
        exp = explain(client, f.namespace(), args.source, args.destination, protocol)
    print_explanation(exp, fmt, env)
    return 0 if exp.get("outcome") == "connected" else 1
