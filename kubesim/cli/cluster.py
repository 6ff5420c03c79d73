"""kubesim's own verbs (cluster init|reset|info, advance) and api-resources, version."""

from __future__ import annotations

from kubesim.cli.session import session, state_dir
from kubesim.errors import UsageError


def cluster_cmd(args, env) -> int:
    if args.action in ("init", "reset"):
        return _init(args, env)
    return _info(args, env)


def _init(args, env) -> int:
    """Replace the state's contents with a fresh cluster, in one transaction."""
    import shutil
    from pathlib import Path

    from kubesim.controlplane.bootstrap import initialize
    from kubesim.controlplane.context import Cluster, Logger
    from kubesim.controlplane.settle import settle
    from kubesim.store import Store

    if args.nodes < 0:
        raise UsageError("--nodes must be 0 or more")
    for flag, value in (("--cpu", args.cpu), ("--memory", args.memory)):
        if value is not None:
            from kubesim.api.quantity import parse_quantity

            try:
                if parse_quantity(value) <= 0:
                    raise ValueError("must be positive")
            except ValueError as e:
                raise UsageError(f"invalid {flag} {value!r}: {e}") from None
    store = Store(state_dir(args, env)).open()
    try:
        store.wipe()
        cluster = Cluster(store, env.vars, Logger(verbosity=getattr(args, "verbosity", 0) or 0, stream=env.stderr))
        # static pod directories belong to the old nodes
        shutil.rmtree(Path(store.directory) / "nodes", ignore_errors=True)
        if args.action == "reset":
            initialize(cluster)
        else:
            initialize(cluster, nodes=args.nodes, cpu=args.cpu, memory=args.memory, zones=args.zones,
                       empty=args.empty)
        settle(cluster, force=True)
    except BaseException:
        store.rollback()
        raise
    cluster.commit()
    env.stdout.write(f"cluster {'reset' if args.action == 'reset' else 'initialized'} in {store.directory}\n")
    return 0


def _info(args, env) -> int:
    from kubesim.clock import format_time
    from kubesim.kubelet.node import internal_ip

    with session(args, env) as cluster:
        nodes = cluster.store.list("Node")
        cp = next((n for n in nodes if "node-role.kubernetes.io/control-plane" in (n["metadata"].get("labels") or {})), None)
        pods = cluster.store.count("Pod")
        now = cluster.now()
        directory = cluster.store.directory
    addr = internal_ip(cp) if cp else "127.0.0.1"
    out = env.stdout
    out.write(f"Kubernetes control plane is running at https://{addr}:6443\n")
    out.write(f"CoreDNS is running at https://{addr}:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n\n")
    out.write(f"kubesim state:    {directory}\n")
    out.write(f"simulated time:   {format_time(now)}" + ("  (pinned by KUBESIM_NOW)" if env.vars.get("KUBESIM_NOW") else "") + "\n")
    out.write(f"nodes:            {len(nodes)}\n")
    out.write(f"pods:             {pods}\n")
    return 0


def advance_cmd(args, env) -> int:
    from kubesim.clock import format_time, parse_duration

    try:
        seconds = parse_duration(args.duration)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if seconds < 0:
        raise UsageError("the clock only moves forward: duration must not be negative")
    with session(args, env) as cluster:
        from kubesim.controlplane.settle import advance

        advance(cluster, seconds)
        now = cluster.now()
    env.stdout.write(f"clock advanced {args.duration} to {format_time(now)}\n")
    return 0


def api_resources_cmd(args, env) -> int:
    from kubesim.api import kinds
    from kubesim.printers.tables import format_cells

    infos = sorted((k for k in kinds.REGISTRY.all() if k.served), key=lambda k: (k.group, k.plural))
    if args.namespaced is not None:
        want = args.namespaced == "true"
        infos = [k for k in infos if k.namespaced == want]
    if args.output == "name":
        env.stdout.write("".join(f"{k.plural}{'.' + k.group if k.group else ''}\n" for k in infos))
        return 0
    header = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    if args.output == "wide":
        header += ["VERBS", "CATEGORIES"]
    rows = [] if args.no_headers else [header]
    for k in infos:
        row = [k.plural, ",".join(k.short_names), k.api_version, "true" if k.namespaced else "false", k.kind]
        if args.output == "wide":
            row += ["[" + " ".join(sorted(k.verbs)) + "]", ",".join(k.categories)]
        rows.append(row)
    env.stdout.write(format_cells(rows))
    return 0


def version_cmd(args, env) -> int:
    from kubesim import __version__
    from kubesim.kubelet.node import KUBELET_VERSION

    env.stdout.write(f"Client Version: kubesim {__version__}\nServer Version: {KUBELET_VERSION} (simulated)\n")
    return 0
