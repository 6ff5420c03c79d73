"""kubectl logs: a container's output (the pods/log subresource).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go (flags, the container defaulting and
its "Defaulted container" notice).
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("target", help="POD or pod/POD")
    p.add_argument("container_arg", nargs="?", help="container (or use -c)")
    p.add_argument("-c", "--container", default=None)
    p.add_argument("-p", "--previous", action="store_true", help="the previous instance of the container")
    p.add_argument("--tail", type=int, default=-1)
    p.add_argument("--all-containers", action="store_true")


def run(f, args, env) -> int:
    from kubesim.api import kinds

    name = args.target.split("/", 1)[1] if args.target.startswith(("pod/", "pods/", "po/")) else args.target
    container = args.container or args.container_arg
    ns = f.namespace()
    with f.connect() as client:
        pod = client.get(kinds.by_kind("Pod"), ns, name)
        spec = pod.get("spec") or {}
        names = [c["name"] for c in spec.get("containers") or []]
        out: list[str] = []
        notices: list[str] = []
        targets = names if args.all_containers else [container or names[0]]
        if not container and not args.all_containers and len(names) > 1:
            notices.append(f'Defaulted container "{names[0]}" out of: {", ".join(names)}')
        for c in targets:
            lines = client.logs(ns, name, c, previous=args.previous)
            if args.tail >= 0:
                lines = lines[-args.tail:] if args.tail else []
            out.extend(lines)
    for n in notices:
        env.stderr.write(n + "\n")
    env.stdout.write("".join(line + "\n" for line in out))
    return 0
