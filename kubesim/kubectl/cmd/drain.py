"""kubectl drain: cordon the nodes, then evict (or delete) their pods through the drain helper
(``kubesim.kubectl.drain``), which honours PodDisruptionBudgets and waits on the simulated clock.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go: the flags, the lines printed
(``node/node01 cordoned``, ``evicting pod ...``, ``pod/x evicted``, ``node/node01 drained``) and
the errors. As in kubectl, the cordon stays when pods cannot be evicted.
"""

from __future__ import annotations

from kubesim.errors import UsageError, client_error
from kubesim.kubectl import drain as helper
from kubesim.kubectl import resource
from kubesim.kubectl.cmd.util import add_dry_run, dry_run_strategy, dry_suffix, go_int


def add_flags(p):
    p.add_argument("nodes", nargs="*", metavar="NODE")
    p.add_argument("--force", action="store_true",
                   help="Continue even if there are pods not managed by a ReplicationController, ReplicaSet, Job, "
                        "DaemonSet or StatefulSet.")
    p.add_argument("--ignore-daemonsets", action="store_true", help="Ignore DaemonSet-managed pods.")
    p.add_argument("--delete-emptydir-data", action="store_true",
                   help="Continue even if there are pods using emptyDir (local data that will be deleted when the "
                        "node is drained).")
    p.add_argument("--grace-period", type=go_int(), default=-1,
                   help="Period of time in seconds given to each pod to terminate gracefully. If negative, the "
                        "default value specified in the pod will be used.")
    p.add_argument("--timeout", default="0s",
                   help="The length of time to wait before giving up, zero means infinite (simulated time)")
    p.add_argument("-l", "--selector", default=None)
    p.add_argument("--pod-selector", default=None, help="Label selector to filter pods on the node")
    p.add_argument("--disable-eviction", action="store_true",
                   help="Force drain to use delete, even if eviction is supported. This will bypass checking "
                        "PodDisruptionBudgets, use with caution.")
    p.add_argument("--skip-wait-for-delete-timeout", type=go_int(), default=0,
                   help="If pod DeletionTimestamp older than N seconds, skip waiting for the pod.  Seconds must be "
                        "greater than 0 to skip.")
    p.add_argument("--chunk-size", type=go_int(), default=500)
    add_dry_run(p)


def run(f, args, env) -> int:

    if not args.nodes and args.selector is None:
        raise UsageError("USAGE: drain NODE [flags]\nSee 'kubesim drain -h' for help and examples")
    if args.nodes and args.selector:
        raise UsageError("cannot specify both a node name and a --selector option\n"
                         "See 'kubesim drain -h' for help and examples")
    from kubesim.kubectl.cmd.util import duration_flag

    timeout = duration_flag(args.timeout, "--timeout", "drain")
    dry = dry_run_strategy(args.dry_run, env)
    if args.pod_selector:
        from kubesim.api import selectors

        try:
            selectors.parse_label_selector(args.pod_selector)
        except ValueError:
            raise UsageError("--pod-selector=<pod_selector> must be a valid label selector") from None
    suffix = dry_suffix(dry)
    opts = helper.DrainOptions(force=args.force, ignore_daemonsets=args.ignore_daemonsets,
                           delete_emptydir_data=args.delete_emptydir_data,
                           pod_selector=args.pod_selector, grace_period=args.grace_period,
                           disable_eviction=args.disable_eviction,
                           skip_wait_for_delete_timeout=args.skip_wait_for_delete_timeout)
    out, err = env.stdout, env.stderr
    fatal: list[tuple[list[str], bool]] = []
    with f.connect() as client:
        nodes = resource.nodes(client, args.nodes, args.selector)
        names = [n["metadata"]["name"] for n in nodes]
        for node in nodes:
            name = node["metadata"]["name"]
            if bool((node.get("spec") or {}).get("unschedulable")):
                out.write(f"node/{name} already cordoned{suffix}\n")
            else:
                if dry == "none":
                    helper.cordon(client, node, True)
                out.write(f"node/{name} cordoned{suffix}\n")
        pending = []
        for name in names:
            plan = helper.plan_drain(client, name, opts)
            errors = plan.errors()
            if errors:
                err.write(f'error: unable to drain node "{name}" due to error: {_agg_text(errors)}, '
                          "continuing command...\n")
                fatal.append((errors, True))
                pending.append(name)
                continue
            warnings = plan.warnings()
            if warnings:
                err.write(f"Warning: {warnings}\n")
            if dry == "client":
                for pod in plan.pods():
                    out.write(f"evicting pod {pod['metadata'].get('namespace', '')}/{pod['metadata']['name']} (dry run)\n")
                out.write(f"node/{name} drained{suffix}\n")
                continue
            failure = helper.drain_pods(client, plan.pods(), grace_period=args.grace_period, timeout=timeout,
                                          disable_eviction=args.disable_eviction, server_dry_run=dry == "server",
                                          skip_wait_seconds=args.skip_wait_for_delete_timeout, out=out, err=err)
            if failure is None:
                out.write(f"node/{name} drained{suffix}\n")
                continue
            messages, aggregate = failure
            text = _agg_text(messages) if aggregate else messages[0]
            left = helper.plan_drain(client, name, opts)
            if left.pods():
                err.write(f'There are pending pods in node "{name}" when an error occurred: {text}\n')
                err.write("".join(f"pod/{p['metadata']['name']}\n" for p in left.pods()))
            err.write(f'error: unable to drain node "{name}" due to error: {text}, continuing command...\n')
            fatal.append(failure)
            pending.append(name)
        if pending:
            err.write("There are pending nodes to be drained:\n" + "".join(f" {n}\n" for n in pending))
    if not fatal:
        return 0
    # cmdutil.CheckErr(utilerrors.NewAggregate(fatal)): an aggregate of one is unwrapped; an
    # aggregate prints one error a line, a plain error gets "error: "
    if len(fatal) == 1:
        messages, aggregate = fatal[0]
        if aggregate:
            err.write("".join(m + "\n" for m in messages))
        else:
            err.write(client_error(messages[0]).text + "\n")
    else:
        err.write("".join((_agg_text(m) if agg else m[0]) + "\n" for m, agg in fatal))
    return 1


def _agg_text(messages: list[str]) -> str:
    """utilerrors.Aggregate.Error(): one error as is, several as ``[a, b]``."""
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
