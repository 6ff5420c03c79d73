"""kubectl cluster-info: where the control plane and the cluster services run.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/clusterinfo/clusterinfo.go (the
control plane's address from the client configuration; every Service labelled
``kubernetes.io/cluster-service=true`` in the namespace, kube-system unless ``-n`` says
otherwise, named by its ``kubernetes.io/name`` label, linked through the API server's service
proxy; the closing hint). kubesim's API server has the address a kubeadm cluster's kubeconfig
names: the control-plane node's InternalIP, port 6443. The Services are listed once kubesim
serves them (it does not yet: the CoreDNS line of a kubeadm cluster is missing).
``cluster-info dump`` is kubesim.kubectl.cmd.cluster_info_dump (clusterinfo_dump.go).
"""

from __future__ import annotations

HINT = "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"


def add_flags(p):
    from kubesim.kubectl.cmd import cluster_info_dump

    p.add_argument("args", nargs="*")
    cluster_info_dump.add_flags(p)


def host(nodes: list[dict]) -> str:
    from kubesim.api.nodes import internal_ip

    cp = next((n for n in nodes if "node-role.kubernetes.io/control-plane" in (n["metadata"].get("labels") or {})),
              None)
    return f"https://{(internal_ip(cp) if cp else '') or '127.0.0.1'}:6443"


def service_link(address: str, svc: dict) -> str:
    """The service's load balancer addresses, else its API server proxy path."""
    spec, name = svc.get("spec") or {}, svc["metadata"]["name"]
    ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    if ingress:
        ip = ingress[0].get("ip") or ingress[0].get("hostname") or ""
        return "".join(f"http://{ip}:{p.get('port', 0)} " for p in spec.get("ports") or ())
    ports = spec.get("ports") or []
    if ports:
        port = ports[0]
        scheme = "https" if port.get("name") == "https" or port.get("port") == 443 else ""
        # utilnet.JoinSchemeNamePort
        port_name = port.get("name") or ""
        name = f"{scheme}:{name}:{port_name}" if scheme else (f"{name}:{port_name}" if port_name else name)
    return f"{address}/api/v1/namespaces/{svc['metadata']['namespace']}/services/{name}/proxy"


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.errors import UsageError
    from kubesim.kubectl.cmd import cluster_info_dump

    if args.args[:1] == ["dump"]:
        return cluster_info_dump.run(f, args, env)
    for dest, flag in cluster_info_dump.FLAGS:
        if getattr(args, dest, None) is not None:
            raise UsageError(f"unknown flag: {flag}\nSee 'kubesim cluster-info --help' for usage.")

    ns = f.namespace_flag or "kube-system"
    services = kinds.REGISTRY.by_name.get("services")
    with f.connect() as client:
        address = host(client.list(kinds.by_kind("Node")))
        found = client.list(services, ns, "kubernetes.io/cluster-service=true") if services else []
    out = f"Kubernetes control plane is running at {address}\n"
    for svc in sorted(found, key=lambda s: s["metadata"]["name"]):
        label = (svc["metadata"].get("labels") or {}).get("kubernetes.io/name") or svc["metadata"]["name"]
        out += f"{label} is running at {service_link(address, svc)}\n"
    env.stdout.write(out + HINT)
    return 0
