"""kubectl describe: one block per object; a name that matches nothing exactly matches by prefix.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/describe/describe.go. The describers, which fetch
what each kind's description shows (a node's pods, a Deployment's ReplicaSets, the events), are
``kubesim.kubectl.describe``.
"""

from __future__ import annotations

from kubesim.errors import NotFound


def add_flags(p):
    p.add_argument("args", nargs="+", metavar="TYPE [NAME_PREFIX]")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--show-events", nargs="?", const="true", default=None,
                   help="If true, display events related to the described object. Defaults to true for a single "
                        "object, false for multiple objects and prefix matching.")


def run(f, args, env) -> int:
    from kubesim.kubectl.cmd.util import bool_flag_value
    from kubesim.kubectl.describe import describe
    from kubesim.kubectl.resource import parse_targets, select

    targets = parse_targets(args.args, selecting=bool(args.selector))
    show = None if args.show_events is None else bool_flag_value(args.show_events, "--show-events", "describe")
    ns = None if args.all_namespaces else f.namespace()
    from kubesim.kubectl.cmd.get import SERVER_WARNINGS

    for w in dict.fromkeys(SERVER_WARNINGS[info.kind] for info, _ in targets if info.kind in SERVER_WARNINGS):
        env.stderr.write(f"Warning: {w}\n")  # the API server's deprecation warning, once per command
    with f.connect(read_only=True) as client:
        objs: list[dict] = []
        prefix_matched = False
        for info, names in targets:
            if names:
                for n in names:
                    obj = client.find(info, ns or "", n)
                    if obj is not None:
                        objs.append(obj)
                        continue
                    # kubectl describe falls back to every object whose name starts with the argument
                    matched = [o for o in client.list(info, ns) if o["metadata"]["name"].startswith(n)]
                    if not matched:
                        raise NotFound(info.resource, n)
                    objs.extend(matched)
                    prefix_matched = True
            else:
                objs.extend(select(client, info, ns, args.selector))
        # describe.go: events by default only for a single object found by its name
        if show is None:
            show = len(objs) == 1 and not prefix_matched
        blocks = [describe(client, obj, show_events=show) for obj in objs]
    if not blocks:
        if ns and any(info.namespaced for info, _ in targets):
            env.stderr.write(f"No resources found in {ns} namespace.\n")
        else:
            env.stderr.write("No resources found\n")
        return 0
    # kubectl's describe writes "\n\n" between objects, each of which ends in a newline
    env.stdout.write("\n\n".join(b if b.endswith("\n") else b + "\n" for b in blocks))
    return 0
