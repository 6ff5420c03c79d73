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


def run(f, args, env) -> int:
    from kubesim.kubectl.describe import describe
    from kubesim.kubectl.resource import parse_targets, select

    targets = parse_targets(args.args, selecting=bool(args.selector))
    ns = None if args.all_namespaces else f.namespace()
    blocks: list[str] = []
    with f.connect() as client:
        for info, names in targets:
            objs: list[dict] = []
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
            else:
                objs = select(client, info, ns, args.selector)
            blocks.extend(describe(client, obj) for obj in objs)
    if not blocks:
        if ns and any(info.namespaced for info, _ in targets):
            env.stderr.write(f"No resources found in {ns} namespace.\n")
        else:
            env.stderr.write("No resources found\n")
        return 0
    # kubectl's describe writes "\n\n" between objects, each of which ends in a newline
    env.stdout.write("\n\n".join(b if b.endswith("\n") else b + "\n" for b in blocks))
    return 0
