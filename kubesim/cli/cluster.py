"""kubesim's own ``cluster init|reset|info``: they act on the state itself (as kubeadm acts on a
machine), not through the API."""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    from kubesim.kubectl.cmd.util import go_int

    p.add_argument("action", choices=["init", "reset", "info"])
    p.add_argument("--nodes", type=go_int(), default=2, help="number of worker nodes (init; at most 20,000)")
    p.add_argument("--cpu", default=None, help="CPU capacity per node, e.g. 4 (init)")
    p.add_argument("--memory", default=None, help="memory capacity per node, e.g. 8Gi (init)")
    p.add_argument("--zones", default=None, help="number of zones, or a comma-separated list (init)")
    p.add_argument("--empty", action="store_true", help="no nodes at all (init)")


def run(f, args, env) -> int:
    if args.action in ("init", "reset"):
        return _init(f, args, env)
    return _info(f, args, env)


MAX_NODES = 20000
MAX_ZONES = 1000


def _check_zones(zones: str) -> None:
    """--zones N (1..MAX_ZONES) or names that are valid label values (they become the nodes'
    topology.kubernetes.io/zone labels)."""
    from kubesim.api.content import label_value_errors

    if zones.isdigit():
        if not 0 <= int(zones) <= MAX_ZONES:
            raise UsageError(f"--zones must be between 0 and {MAX_ZONES}, or a comma-separated list of names")
        return
    for name in (z.strip() for z in zones.split(",")):
        errs = label_value_errors(name) if name else []
        if errs:
            raise UsageError(f"invalid --zones name {name!r} for the topology.kubernetes.io/zone label: "
                             + "; ".join(errs))


def _init(f, args, env) -> int:
    """Replace the state's contents with a fresh cluster, in one transaction."""
    from kubesim.controlplane.session import init_cluster

    if not 0 <= args.nodes <= MAX_NODES:
        raise UsageError(f"--nodes must be between 0 and {MAX_NODES:,} (kubesim's bound; upstream tests "
                         "clusters of 5,000 nodes)")
    if args.zones is not None:
        _check_zones(args.zones)
    for flag, value in (("--cpu", args.cpu), ("--memory", args.memory)):
        if value is not None:
            from kubesim.api.quantity import parse_quantity

            try:
                if parse_quantity(value) <= 0:
                    raise ValueError("must be positive")
            except ValueError as e:
                raise UsageError(f"invalid {flag} {value!r}: {e}") from None
    directory = init_cluster(f.session_options(), reset=args.action == "reset", nodes=args.nodes, cpu=args.cpu,
                             memory=args.memory, zones=args.zones, empty=args.empty)
    env.stdout.write(f"cluster {'reset' if args.action == 'reset' else 'initialized'} in {directory}\n")
    return 0


def _info(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.api.nodes import internal_ip
    from kubesim.clock import format_time
    from kubesim.controlplane.session import state_directory

    with f.connect() as client:
        nodes = client.list(kinds.by_kind("Node"))
        cp = next((n for n in nodes if "node-role.kubernetes.io/control-plane" in (n["metadata"].get("labels") or {})),
                  None)
        pods = client.count(kinds.by_kind("Pod"))
        now = client.now()
        directory = state_directory(client)
    addr = (internal_ip(cp) if cp else "") or "127.0.0.1"
    out = env.stdout
    out.write(f"Kubernetes control plane is running at https://{addr}:6443\n")
    out.write(f"CoreDNS is running at https://{addr}:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n\n")
    out.write(f"kubesim state:    {directory}\n")
    out.write(f"simulated time:   {format_time(now)}" + ("  (pinned by KUBESIM_NOW)" if env.vars.get("KUBESIM_NOW") else "")
              + "\n")
    out.write(f"nodes:            {len(nodes)}\n")
    out.write(f"pods:             {pods}\n")
    return 0
