"""kubectl top node|pod: resource usage from the metrics API (metrics.k8s.io/v1beta1, which
kubesim serves from its simulated usage: kubesim.kubelet.metrics).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/top/top.go, top_node.go (``TopNodeOptions``:
Validate, RunTopNode) and top_pod.go (``TopPodOptions``: Validate, RunTopPod,
verifyEmptyMetrics, checkPodAge); the tables are kubesim.kubectl.metricsutil's.
"""

from __future__ import annotations

from kubesim.errors import UsageError, client_error
from kubesim.kubectl.cmd.util import bool_flag, bool_flag_value

_SUBCOMMANDS = {"node": "node", "nodes": "node", "no": "node", "pod": "pod", "pods": "pod", "po": "pod"}
_POD_ONLY = {"field_selector": "--field-selector", "containers": "--containers", "all_namespaces": "--all-namespaces",
             "sum": "--sum"}
_NODE_ONLY = {"show_capacity": "--show-capacity"}
METRICS_CREATION_DELAY = 120.0  # top_pod.go metricsCreationDelay


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="(node|pod) [NAME]")
    p.add_argument("-l", "--selector", default="", help="Selector (label query) to filter on")
    p.add_argument("--field-selector", default=None, help="pod: Selector (field query) to filter on")
    p.add_argument("--sort-by", default="", help="If non-empty, sort the list using specified field: 'cpu' or 'memory'")
    bool_flag(p, "--no-headers", help_="If present, print output without headers")
    bool_flag(p, "--containers", help_="pod: If present, print usage of containers within a pod")
    p.add_argument("-A", "--all-namespaces", nargs="?", const="true", default=None, metavar="true|false",
                   help="pod: list the requested object(s) across all namespaces")
    bool_flag(p, "--sum", help_="pod: Print the sum of the resource usage")
    bool_flag(p, "--show-capacity", help_="node: Print node resources based on Capacity instead of Allocatable")
    bool_flag(p, "--show-swap", help_="Print resources related to swap memory")
    bool_flag(p, "--use-protocol-buffers", help_="Enables using protocol-buffers to access Metrics API (no effect)")


def run(f, args, env) -> int:
    if not args.args:
        from kubesim.errors import RawError

        raise RawError(_top_help())
    sub, words = args.args[0], args.args[1:]
    if sub not in _SUBCOMMANDS:
        raise UsageError(f'unknown command "{sub}"\nSee \'kubesim top -h\' for help and examples')
    sub = _SUBCOMMANDS[sub]
    for attr, flag in (_NODE_ONLY if sub == "pod" else _POD_ONLY).items():
        if getattr(args, attr, None) is not None:
            raise UsageError(f"unknown flag: {flag}\nSee 'kubesim top {sub} --help' for usage.")
    if len(words) > 1:
        raise UsageError(f"{sub} [NAME | -l label]\nSee 'kubesim top {sub} -h' for help and examples")
    name = words[0] if words else ""
    return (_top_node if sub == "node" else _top_pod)(f, args, env, name)


def _top_help() -> str:
    return ("Display resource (CPU/memory) usage.\n\nAvailable Commands:\n"
            "  node          Display resource (CPU/memory) usage of nodes\n"
            "  pod           Display resource (CPU/memory) usage of pods\n\n"
            "Usage:\n  kubesim top [flags] [options]\n\n"
            "Use \"kubesim top <command> --help\" for more information about a given command.")


def _flag(args, attr: str, flag: str, sub: str) -> bool:
    return bool_flag_value(getattr(args, attr, None), flag, f"top {sub}")


def _validate(sort_by: str, name: str, has_selector: bool, node: bool) -> None:
    if sort_by and sort_by not in ("cpu", "memory"):
        raise client_error("--sort-by accepts only cpu or memory")
    if name and has_selector:
        raise client_error("only one of NAME or --selector can be provided" if node else
                           "only one of NAME or selector can be provided")


def _parse_selectors(label_selector: str | None, field_selector: str | None = None) -> None:
    """RunTopNode/RunTopPod parse the selectors (labels.Parse, fields.ParseSelector) before any
    request: a bad one is kubectl's own error."""
    from kubesim.api.selectors import parse_field_selector, parse_label_selector

    try:
        if label_selector:
            parse_label_selector(label_selector)
        if field_selector:
            parse_field_selector(field_selector)
    except ValueError as e:
        raise client_error(str(e)) from None


def _top_node(f, args, env, name: str) -> int:
    from kubesim.api import kinds
    from kubesim.kubectl.metricsutil import RESOURCE_SWAP, TopCmdPrinter

    no_headers = _flag(args, "no_headers", "--no-headers", "node")
    show_capacity = _flag(args, "show_capacity", "--show-capacity", "node")
    show_swap = _flag(args, "show_swap", "--show-swap", "node")
    _flag(args, "use_protocol_buffers", "--use-protocol-buffers", "node")
    _validate(args.sort_by, name, bool(args.selector), True)
    _parse_selectors(args.selector)
    printer = TopCmdPrinter(show_swap)
    node_info = kinds.by_kind("Node")
    with f.connect() as client:
        metrics = client.node_metrics(name or None, args.selector or None)
        if not metrics:
            raise client_error("metrics not available yet")
        nodes = [client.get(node_info, "", name)] if name else client.list(node_info, None, args.selector or None)
    available = {}
    for n in nodes:
        status = n.get("status") or {}
        available[n["metadata"]["name"]] = dict(status.get("capacity" if show_capacity else "allocatable") or {})
        swap = ((status.get("nodeInfo") or {}).get("swap") or {}).get("capacity")
        if swap is not None:
            available[n["metadata"]["name"]][RESOURCE_SWAP] = str(swap)
        else:
            printer.register_missing_resource(n["metadata"]["name"], RESOURCE_SWAP)
    env.stdout.write(printer.print_node_metrics(metrics, available, no_headers, args.sort_by))
    return 0


def _top_pod(f, args, env, name: str) -> int:
    from kubesim.api import kinds
    from kubesim.clock import format_duration, parse_timestamp
    from kubesim.kubectl.metricsutil import TopCmdPrinter

    no_headers = _flag(args, "no_headers", "--no-headers", "pod")
    containers = _flag(args, "containers", "--containers", "pod")
    all_ns = _flag(args, "all_namespaces", "-A, --all-namespaces", "pod")
    sum_ = _flag(args, "sum", "--sum", "pod")
    show_swap = _flag(args, "show_swap", "--show-swap", "pod")
    _flag(args, "use_protocol_buffers", "--use-protocol-buffers", "pod")
    _validate(args.sort_by, name, bool(args.selector or args.field_selector), False)
    _parse_selectors(args.selector, args.field_selector)
    namespace = f.namespace()
    printer = TopCmdPrinter(show_swap)
    with f.connect() as client:
        metrics = client.pod_metrics(None if all_ns else namespace, name or None, args.selector or None,
                                     args.field_selector or None)
        if not metrics:
            # verifyEmptyMetrics: the pods of the namespace (even with -A), the first one older
            # than metricsCreationDelay named
            pods = client.list(kinds.by_kind("Pod"), namespace, args.selector or None, args.field_selector or None)
            if pods:
                now = client.now()
                for pod in pods:
                    age = now - (parse_timestamp(pod["metadata"].get("creationTimestamp")) or now)
                    if age > METRICS_CREATION_DELAY:
                        raise client_error(f"Metrics not available for pod {pod['metadata'].get('namespace', '')}/"
                                           f"{pod['metadata']['name']}, age: {format_duration(age)}")
                raise client_error("metrics not available yet")
            env.stderr.write("No resources found\n" if all_ns else f"No resources found in {namespace} namespace.\n")
    env.stdout.write(printer.print_pod_metrics(metrics, containers, all_ns, no_headers, args.sort_by, sum_))
    return 0
