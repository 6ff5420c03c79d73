"""kubectl's table columns and rows for Services and Endpoints (core group).

Upstream: pkg/printers/internalversion/printers.go ``printService`` (``getServiceExternalIP``,
``loadBalancerStatusStringer``, ``makePortString``; SELECTOR only with ``-o wide``) and
``printEndpoints`` (``formatEndpoints``: ``ip:port`` per port and ready address, three shown
then ``+ N more...``).

kubesim's rows do not know whether ``-o wide`` was asked for, so a LoadBalancer's ingress list
is never clipped to 16 characters as the narrow table clips it.
"""

from __future__ import annotations

from kubesim.printers.tables import (
    NONE,
    Column,
    PrintContext,
    age,
    format_labels,
    object_meta,
)


def load_balancer_status_string(status: dict) -> str:
    """loadBalancerStatusStringer (unclipped): the ingress IPs or hostnames, sorted, unique."""
    out = set()
    for ing in ((status or {}).get("loadBalancer") or {}).get("ingress") or []:
        if ing.get("ip"):
            out.add(ing["ip"])
        elif ing.get("hostname"):
            out.add(ing["hostname"])
    return ",".join(sorted(out))


def service_external_ip(svc: dict) -> str:
    """getServiceExternalIP."""
    spec = svc.get("spec") or {}
    t = spec.get("type")
    ext = spec.get("externalIPs") or []
    if t in ("ClusterIP", "NodePort"):
        return ",".join(ext) if ext else NONE
    if t == "LoadBalancer":
        lb = load_balancer_status_string(svc.get("status") or {})
        if ext:
            return ",".join((lb.split(",") if lb else []) + list(ext))
        return lb or "<pending>"
    if t == "ExternalName":
        return spec.get("externalName") or ""
    return "<unknown>"


def make_port_string(ports: list) -> str:
    """makePortString: ``port/PROTO``, or ``port:nodePort/PROTO``."""
    pieces = []
    for p in ports or []:
        if p.get("nodePort"):
            pieces.append(f"{int(p.get('port') or 0)}:{int(p['nodePort'])}/{p.get('protocol', '')}")
        else:
            pieces.append(f"{int(p.get('port') or 0)}/{p.get('protocol', '')}")
    return ",".join(pieces)


def print_service(svc: dict, ctx: PrintContext) -> list[str]:
    spec = svc.get("spec") or {}
    ips = spec.get("clusterIPs") or []
    return [object_meta(svc).get("name", ""), spec.get("type") or "", ips[0] if ips else NONE,
            service_external_ip(svc), make_port_string(spec.get("ports")) or NONE, age(svc, ctx),
            format_labels(spec.get("selector"))]


SERVICE_COLUMNS = [
    Column("Name", format="name"), Column("Type"), Column("Cluster-IP"), Column("External-IP"),
    Column("Port(s)"), Column("Age"), Column("Selector", 1),
]


def _join_host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def format_endpoints(ep: dict, ports: set | None = None) -> str:
    """formatEndpoints (``ports`` None: every port)."""
    subsets = ep.get("subsets") or []
    if not subsets:
        return NONE
    shown: list[str] = []
    limit, more, count = 3, False, 0
    for ss in subsets:
        addrs = ss.get("addresses") or []
        if not ss.get("ports"):
            count += len(addrs)
            for a in addrs:
                if len(shown) == limit:
                    more = True
                    break
                shown.append(a.get("ip", ""))
            continue
        for port in ss.get("ports") or []:
            if ports is None or (port.get("name") or "") in ports:
                count += len(addrs)
                for a in addrs:
                    if len(shown) == limit:
                        more = True
                        break
                    shown.append(_join_host_port(a.get("ip", ""), int(port.get("port") or 0)))
    ret = ",".join(shown)
    if more:
        return f"{ret} + {count - limit} more..."
    return ret


def print_endpoints(ep: dict, ctx: PrintContext) -> list[str]:
    return [object_meta(ep).get("name", ""), format_endpoints(ep), age(ep, ctx)]


ENDPOINTS_COLUMNS = [Column("Name", format="name"), Column("Endpoints"), Column("Age")]
