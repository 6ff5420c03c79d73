"""kubectl describe for Services and Endpoints.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (kubectl 1.36) ``describeService``
(each port's ``Endpoints`` line from the service's EndpointSlices, ``formatEndpointSlices``:
ready endpoints only, three then ``+ N more...``; the LoadBalancer ingress list
``buildIngressString``) and ``describeEndpoints``. The service's EndpointSlices (labelled
``kubernetes.io/service-name``) are fetched by ``describe()`` into ``ctx.extra["endpointslices"]``.
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    DescribeContext,
    PrefixWriter,
    describe_events,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)
from kubesim.printers.tables import format_labels


def _join_host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def format_endpoint_slices(slices: list[dict], ports: set[str] | None) -> str:
    """formatEndpointSlices (``ports`` None: every port)."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    limit, more, count = 3, False, 0

    def ready(ep: dict) -> bool:
        r = (ep.get("conditions") or {}).get("ready")
        return r is None or bool(r)

    for s in slices:
        if not s.get("ports"):
            for ep in s.get("endpoints") or []:
                if len(shown) == limit:
                    more = True
                if not ready(ep):
                    continue
                if not more:
                    shown.append((ep.get("addresses") or [""])[0])
                count += 1
            continue
        for port in s.get("ports") or []:
            if ports is not None and (port.get("name") or "") not in ports:
                continue
            for ep in s.get("endpoints") or []:
                if len(shown) == limit:
                    more = True
                addr = (ep.get("addresses") or [""])[0]
                if not ready(ep):
                    continue
                if not more:
                    shown.append(_join_host_port(addr, int(port.get("port") or 0)))
                count += 1
    ret = ",".join(shown)
    if more:
        return f"{ret} + {count - limit} more..."
    return ret


def _ingress_string(ingress: list[dict]) -> str:
    out = []
    for ing in ingress:
        if ing.get("ip"):
            out.append(ing["ip"] + (f" ({ing['ipMode']})" if ing.get("ipMode") is not None else ""))
        else:
            out.append(ing.get("hostname", ""))
    return ", ".join(out)


def describe_service(svc: dict, ctx: DescribeContext) -> str:
    meta, spec = object_meta(svc), svc.get("spec") or {}
    status = svc.get("status") or {}
    slices = (ctx.extra or {}).get("endpointslices") or []
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Selector:\t{format_labels(spec.get('selector'))}\n")
    w.write(LEVEL_0, f"Type:\t{spec.get('type', '')}\n")
    if spec.get("ipFamilyPolicy") is not None:
        w.write(LEVEL_0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    fams = spec.get("ipFamilies") or []
    w.write(LEVEL_0, f"IP Families:\t{','.join(fams) if fams else '<none>'}\n")
    w.write(LEVEL_0, f"IP:\t{spec.get('clusterIP', '')}\n")
    ips = spec.get("clusterIPs") or []
    w.write(LEVEL_0, f"IPs:\t{','.join(ips) if ips else '<none>'}\n")
    if spec.get("externalIPs"):
        w.write(LEVEL_0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("loadBalancerIP"):
        w.write(LEVEL_0, f"Desired LoadBalancer IP:\t{spec['loadBalancerIP']}\n")
    if spec.get("externalName"):
        w.write(LEVEL_0, f"External Name:\t{spec['externalName']}\n")
    ingress = (status.get("loadBalancer") or {}).get("ingress") or []
    if ingress:
        w.write(LEVEL_0, f"LoadBalancer Ingress:\t{_ingress_string(ingress)}\n")
    for sp in spec.get("ports") or []:
        name = sp.get("name") or "<unset>"
        proto = sp.get("protocol", "")
        w.write(LEVEL_0, f"Port:\t{name}\t{int(sp.get('port') or 0)}/{proto}\n")
        tp = sp.get("targetPort")
        w.write(LEVEL_0, f"TargetPort:\t{tp if isinstance(tp, str) else int(tp or 0)}/{proto}\n")
        if sp.get("appProtocol") is not None:
            w.write(LEVEL_0, f"AppProtocol:\t{sp['appProtocol']}\n")
        if sp.get("nodePort"):
            w.write(LEVEL_0, f"NodePort:\t{name}\t{int(sp['nodePort'])}/{proto}\n")
        w.write(LEVEL_0, f"Endpoints:\t{format_endpoint_slices(slices, {sp.get('name') or ''})}\n")
    w.write(LEVEL_0, f"Session Affinity:\t{spec.get('sessionAffinity', '')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(LEVEL_0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy") is not None:
        w.write(LEVEL_0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    if spec.get("healthCheckNodePort"):
        w.write(LEVEL_0, f"HealthCheck NodePort:\t{int(spec['healthCheckNodePort'])}\n")
    if spec.get("loadBalancerSourceRanges"):
        w.write(LEVEL_0, f"LoadBalancer Source Ranges:\t{','.join(spec['loadBalancerSourceRanges'])}\n")
    if spec.get("trafficDistribution") is not None:
        w.write(LEVEL_0, f"Traffic Distribution:\t{spec['trafficDistribution']}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def describe_endpoints(ep: dict, ctx: DescribeContext) -> str:
    meta = object_meta(ep)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, "Subsets:\n")
    for ss in ep.get("subsets") or []:
        addrs = ",".join(a.get("ip", "") for a in ss.get("addresses") or [])
        w.write(LEVEL_1, f"Addresses:\t{addrs or '<none>'}\n")
        nr = ",".join(a.get("ip", "") for a in ss.get("notReadyAddresses") or [])
        w.write(LEVEL_1, f"NotReadyAddresses:\t{nr or '<none>'}\n")
        if ss.get("ports"):
            w.write(LEVEL_1, "Ports:\n")
            w.write(LEVEL_2, "Name\tPort\tProtocol\n")
            w.write(LEVEL_2, "----\t----\t--------\n")
            for p in ss["ports"]:
                w.write(LEVEL_2, f"{p.get('name') or '<unset>'}\t{int(p.get('port') or 0)}\t{p.get('protocol', '')}\n")
        w.write(LEVEL_0, "\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
