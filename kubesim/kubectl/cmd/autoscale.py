"""kubectl autoscale: a HorizontalPodAutoscaler for a Deployment, ReplicaSet, StatefulSet or
ReplicationController, named as the target unless ``--name`` says otherwise.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/autoscale/autoscale.go (kubectl 1.36:
``NewCmdAutoscale``'s flags, ``--max`` required and ``--cpu-percent`` deprecated; ``Validate``;
``Run``: each target's scale subresource looked up in discovery (``cannot autoscale a Pod: ...``),
the autoscaling/v2 object created, and on its failure the v1 fallback that ``canCreateHPAV1``
allows). The objects are built by ``kubesim.kubectl.generate.autoscale``. With ``-f`` the file's
objects are the targets; by name, the live objects are.
"""

from __future__ import annotations

from kubesim.errors import StatusError, UsageError
from kubesim.kubectl.cmd.util import add_dry_run, dry_run_strategy, go_int

DEPRECATED_CPU_PERCENT = ("Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource quantity "
                          "format (e.g., '70%' for utilization or '500m' for milliCPU).\n")
# kinds whose scale subresource discovery lists (kubesim.server.discovery.SUBRESOURCES)
SCALABLE = {("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"), ("", "ReplicationController")}


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME | TYPE/NAME)")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-o", "--output", default=None, help="json|yaml|name|jsonpath=...")
    p.add_argument("--min", type=go_int(32), default=-1, help="The lower limit for the number of pods")
    p.add_argument("--max", type=go_int(32), default=None, help="The upper limit for the number of pods. Required.")
    p.add_argument("--cpu-percent", type=go_int(32), default=None,
                   help="(deprecated) The target average CPU utilization over all the pods")
    p.add_argument("--cpu", default="", help="Target CPU utilization (70%%) or average value (500m)")
    p.add_argument("--memory", default="", help="Target memory utilization (60%%) or average value (200Mi)")
    p.add_argument("--name", default="", help="The name for the newly created object")
    p.add_argument("--field-manager", default="kubectl-autoscale",
                   help="Name of the manager used to track field ownership (managed fields are not modelled)")
    add_dry_run(p)


def validate(args) -> None:
    """AutoscaleOptions.Validate."""
    from kubesim.kubectl.generate.autoscale import InputError, parse_resource_input

    if args.max < 1:
        raise UsageError(f"--max=MAXPODS is required and must be at least 1, max: {args.max}")
    if args.max < args.min:
        raise UsageError(f"--max=MAXPODS must be larger or equal to --min=MINPODS, max: {args.max}, min: {args.min}")
    if args.cpu_percent > 0 and args.cpu != "":
        raise UsageError("--cpu-percent and --cpu are mutually exclusive")
    for resource, text in (("cpu", args.cpu), ("memory", args.memory)):
        if text != "":
            try:
                parse_resource_input(text, resource)
            except InputError as e:
                raise UsageError(str(e)) from None


def run(f, args, env) -> int:
    from kubesim.kubectl.generate import printing

    if args.cpu_percent is not None:
        env.stderr.write(DEPRECATED_CPU_PERCENT)
    else:
        args.cpu_percent = -1
    if args.max is None:
        raise UsageError('required flag(s) "max" not set')
    strategy = dry_run_strategy(args.dry_run, env)
    validate(args)
    printing.check_output(args.output)
    out: list[str] = []
    with f.connect(commit=strategy == "none") as client:
        targets = _targets(client, f, args, env)
        for info, obj in targets:
            if (info.group, info.kind) not in SCALABLE:
                gvr = f"{info.group}/{info.version}, Resource={info.plural}"
                raise UsageError(f"cannot autoscale a {info.kind}: could not find scale subresource for {gvr} "
                                 "in discovery information")
            out.append(_autoscale(client, f, args, info, obj, strategy))
        if not targets:
            raise UsageError("no objects passed to autoscale")
    env.stdout.write("".join(out))
    return 0


def _targets(client, f, args, env) -> list[tuple]:
    from kubesim.kubectl.resource import targets_from_args

    return targets_from_args(client, f, args, env)


def _autoscale(client, f, args, info, obj: dict, strategy: str) -> str:
    """Run's visit of one target: the v2 object printed (client dry run) or created, else the v1
    fallback."""
    from kubesim.api import kinds
    from kubesim.kubectl.generate import autoscale as gen
    from kubesim.kubectl.generate import printing

    target = (obj.get("metadata") or {}).get("name", "")
    api_version = f"{info.group}/{info.version}" if info.group else info.version
    common = {"min_replicas": args.min, "max_replicas": args.max, "cpu_percent": args.cpu_percent,
              "namespace": f.namespace() if f.explicit_namespace else None}
    hpa = gen.horizontal_pod_autoscaler_v2(args.name or target, api_version, info.kind, target,
                                           cpu=args.cpu, memory=args.memory, **common)
    if strategy == "client":
        return printing.render(hpa, args.output, "created (dry run)", typed=True)
    suffix = "autoscaled (server dry run)" if strategy == "server" else "autoscaled"
    try:
        created = _create(client, f, hpa, kinds.by_kind("HorizontalPodAutoscaler"))
    except StatusError:
        ok, err = gen.can_create_v1(args.cpu_percent, args.cpu, args.memory)
        if not ok:
            raise UsageError("failed to create autoscaling/v2 HPA and the configuration is incompatible with "
                             f"autoscaling/v1: {err if err is not None else '%!w(<nil>)'}") from None
        hpa = gen.horizontal_pod_autoscaler_v1(args.name or target, api_version, info.kind, target, **common)
        created = _create(client, f, hpa, kinds.for_object(hpa))
    return printing.render(created, args.output, suffix, typed=False)


def _create(client, f, hpa: dict, info) -> dict:
    import copy

    hpa = copy.deepcopy(hpa)
    hpa.pop("status", None)
    hpa["metadata"]["namespace"] = f.namespace()
    return copy.deepcopy(client.create(hpa, info))
