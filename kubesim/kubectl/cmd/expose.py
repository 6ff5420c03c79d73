"""kubectl expose: a Service for a pod, deployment, replica set, replication controller or
service, its selector, ports and protocols read from the exposed object unless flags give them.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/expose/expose.go (kubectl 1.36: ``RunExpose``;
the generator is ``kubesim.kubectl.generate.service``). With ``-f`` the file's objects are
exposed as the file has them; by name, the live object is. ``--dry-run=client`` prints the
Service with a namespace only when ``-n`` named one (EnforceNamespace).
"""

from __future__ import annotations

from kubesim.errors import UsageError
from kubesim.kubectl.cmd.util import add_dry_run, dry_run_strategy


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-o", "--output", default=None, help="json|yaml|name|jsonpath=...")
    p.add_argument("--port", default="", help="The port that the service should serve on")
    p.add_argument("--target-port", default="", help="Name or number of the container port to direct traffic to")
    p.add_argument("--type", default="", help="ClusterIP, NodePort, LoadBalancer or ExternalName")
    p.add_argument("--name", default="", help="The name for the newly created object")
    p.add_argument("--protocol", default="", help="The network protocol for the service (default TCP)")
    p.add_argument("--selector", default="", help="The label selector (equality-based) of the service")
    p.add_argument("-l", "--labels", default="", help="Labels to apply to the service")
    p.add_argument("--external-ip", default="", help="An additional external IP address for the service")
    p.add_argument("--load-balancer-ip", default="", help="IP to assign to the LoadBalancer")
    p.add_argument("--session-affinity", default="", help="None or ClientIP")
    p.add_argument("--cluster-ip", default="", help="ClusterIP to assign; None for a headless service")
    add_dry_run(p)


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.kubectl.generate import printing

    printing.check_output(args.output)
    strategy = dry_run_strategy(args.dry_run, env)
    out: list[str] = []
    with f.connect(commit=strategy == "none") as client:
        for info, obj in _targets(client, f, args, env):
            svc = exposed_service(info, obj, args, f.namespace() if f.explicit_namespace else None)
            if strategy == "client":
                out.append(printing.render(svc, args.output, "exposed (dry run)", typed=True))
                continue
            svc["metadata"]["namespace"] = f.namespace()
            created = client.create(svc, kinds.by_kind("Service"))
            if strategy == "server":
                import copy

                created = copy.deepcopy(created)
                created.get("metadata", {}).pop("resourceVersion", None)
            suffix = "exposed (server dry run)" if strategy == "server" else "exposed"
            out.append(printing.render(created, args.output, suffix, typed=False))
    env.stdout.write("".join(out))
    return 0


def _targets(client, f, args, env) -> list[tuple]:
    from kubesim.kubectl.resource import targets_from_args

    return targets_from_args(client, f, args, env)


def exposed_service(info, obj: dict, args, namespace: str | None) -> dict:
    """RunExpose's visit of one object: the Service it generates."""
    from kubesim.kubectl.generate import service as gen

    gen.can_be_exposed(info.kind, info.group)
    default_name = ((obj.get("metadata") or {}).get("name") or "")[:gen.DNS1035_LABEL_MAX_LENGTH]
    selector = args.selector
    if not selector:
        try:
            selector = gen.map_based_selector(obj)
        except ValueError as e:
            raise UsageError(f"couldn't retrieve selectors via --selector flag or introspection: {e}") from None
    port, ports = args.port, ""
    if not port:
        found = gen.ports_for_object(obj)
        if not found:
            if args.cluster_ip != "None":
                raise UsageError("couldn't find port via --port flag or introspection")
        elif len(found) == 1:
            port = found[0]
        else:
            ports = ",".join(found)
    labels = args.labels or gen.make_labels((obj.get("metadata") or {}).get("labels") or {})
    return gen.service(args.name or default_name, selector, port=port, ports=ports, protocol=args.protocol,
                       protocols=gen.protocols_for_object(obj), labels=labels, target_port=args.target_port,
                       external_ip=args.external_ip, type_=args.type, load_balancer_ip=args.load_balancer_ip,
                       session_affinity=args.session_affinity, cluster_ip=args.cluster_ip, namespace=namespace)
