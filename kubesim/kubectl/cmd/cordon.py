"""kubectl cordon and uncordon.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/drain/cordon.go and pkg/drain/cordon.go (the
update of ``spec.unschedulable``; ``node/x cordoned``, ``... already cordoned``).
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("nodes", nargs="*")
    p.add_argument("-l", "--selector")


def _cordon(f, args, env, unschedulable: bool) -> int:
    from kubesim.kubectl import resource
    from kubesim.kubectl.drain import cordon

    if not args.nodes and not args.selector:
        raise UsageError("USAGE: cordon NODE [flags]" if unschedulable else "USAGE: uncordon NODE [flags]")
    verb = "cordoned" if unschedulable else "uncordoned"
    lines = []
    with f.connect() as client:
        for node in resource.nodes(client, args.nodes, args.selector):
            name = node["metadata"]["name"]
            lines.append(f"node/{name} {verb}" if cordon(client, node, unschedulable) else
                         f"node/{name} already {verb}")
    for line in lines:
        env.stdout.write(line + "\n")
    return 0


def cordon_cmd(f, args, env) -> int:
    return _cordon(f, args, env, True)


def uncordon_cmd(f, args, env) -> int:
    return _cordon(f, args, env, False)
