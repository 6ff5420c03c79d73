"""kubectl scale: set a new size for a Deployment or ReplicaSet (the scale subresource), with
kubectl's preconditions (``--current-replicas``, ``--resource-version``).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go and pkg/scale/scale.go.
"""

from __future__ import annotations

from kubesim.errors import UsageError
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    add_dry_run,
    bool_flag,
    change_cause,
    check_output,
    dry_run_strategy,
    dry_suffix,
    duration_flag,
    go_int,
    print_result,
    record_warning,
    result_line,
)
from kubesim.kubectl.resource import resolve


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    p.add_argument("--replicas", type=go_int(), default=None, help="The new desired number of replicas. Required.")
    p.add_argument("--current-replicas", type=go_int(), default=-1,
                   help="Precondition for current size (-1 for no condition)")
    p.add_argument("--resource-version", default="", help="Precondition for resource version")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true", help="Select all resources in the namespace of the specified types")
    p.add_argument("--timeout", default="0s")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    bool_flag(p, "--record", help_="(deprecated) record the command in kubernetes.io/change-cause")
    add_dry_run(p)


def run(f, args, env) -> int:
    if args.replicas is None:
        raise UsageError('required flag(s) "replicas" not set')
    if args.replicas < 0:
        raise UsageError("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
    if args.current_replicas < -1:
        raise UsageError("The --current-replicas must specify an integer of -1 or greater")
    check_output(args.output)
    duration_flag(args.timeout, "--timeout", "scale")
    dry = dry_run_strategy(args.dry_run, env)
    args._given_flags = [("replicas", args.replicas)]
    cause = change_cause(args, ["scale"] + args.args)
    record_warning(args, env)
    lines, shown = [], []
    with f.connect() as client:
        targets = resolve(client, f, args, args.args, False, args.filename, args.selector, args.all, stdin=env.stdin)
        if args.resource_version and len(targets) > 1:
            raise UsageError("cannot use --resource-version with multiple resources")
        if not targets:
            raise UsageError("no objects passed to scale")
        for info, live in targets:
            if dry == "client":
                live.setdefault("spec", {})["replicas"] = args.replicas
                shown.append(live)
                lines.append(result_line(info, live, "scaled" + dry_suffix(dry), args.output))
                continue
            if dry == "none":
                shown.append(ph.scale(client, info, live, args.replicas, args.current_replicas, args.resource_version,
                                      cause))
            else:
                shown.append(client.get(info, live["metadata"].get("namespace", ""), live["metadata"]["name"]))
            lines.append(result_line(info, live, "scaled" + dry_suffix(dry), args.output))
    print_result(env, args.output, shown, lines)
    return 0
