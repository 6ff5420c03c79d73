"""describe for networking.k8s.io/v1's NetworkPolicy, Ingress and IngressClass.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describeNetworkPolicy``,
``describeNetworkPolicySpec``, ``getPolicyType``, ``printNetworkPolicySpecIngressFrom``,
``printNetworkPolicySpecEgressTo``; kubectl shows no events for a NetworkPolicy),
``IngressDescriber`` (``describeIngressV1``, ``describeBackendV1``: a service backend lists the
EndpointSlices labelled with the service's name, then gets the Service, and says
``<error: services "NAME" not found>`` when there is none; ``formatEndpointSlices``,
``serviceBackendStringer``, ``describeIngressTLSV1``) and ``IngressClassDescriber``
(``describeIngressClassV1``).

What a backend shows is fetched through the client first (``fetch_ingress_backends``); a kind
the API server does not serve yet (Service, EndpointSlice) reads as none of it.
"""

from __future__ import annotations

import ipaddress
import math
import time

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_label_selector,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)
from kubesim.printers.age import parse_timestamp


def go_time_string(ts: str | None) -> str:
    """``metav1.Time.String()`` (``time.Time.String()``) in local time:
    ``2006-01-02 15:04:05 -0700 MST``."""
    t = parse_timestamp(ts)
    if t is None:
        return "0001-01-01 00:00:00 +0000 UTC"
    lt = time.localtime(math.floor(t))
    offset = lt.tm_gmtoff or 0
    sign = "+" if offset >= 0 else "-"
    offset = abs(offset)
    return (time.strftime("%Y-%m-%d %H:%M:%S ", lt)
            + f"{sign}{offset // 3600:02d}{offset % 3600 // 60:02d} {lt.tm_zone}")


# -- NetworkPolicy -------------------------------------------------------------------------

def _port_text(port: dict) -> str:
    """``fmt`` ``%s`` of a ``*intstr.IntOrString``: ``<nil>`` when unset."""
    p = port.get("port")
    return "<nil>" if p is None else str(p)


def _print_rules(rules: list[dict], peers_key: str, peers_title: str, any_peer: str, isolated: str,
                 indent: str, w: PrefixWriter) -> None:
    """printNetworkPolicySpecIngressFrom / printNetworkPolicySpecEgressTo (the same walk)."""
    if not rules:
        w.write(LEVEL_0, f"{indent}{isolated}\n")
        return
    for i, rule in enumerate(rules):
        ports = rule.get("ports") or []
        if not ports:
            w.write(LEVEL_0, f"{indent}To Port: <any> (traffic allowed to all ports)\n")
        for port in ports:
            proto = port.get("protocol") or "TCP"
            if port.get("endPort") is None:
                w.write(LEVEL_0, f"{indent}To Port: {_port_text(port)}/{proto}\n")
            else:
                w.write(LEVEL_0, f"{indent}To Port Range: {_port_text(port)}-{port['endPort']}/{proto}\n")
        peers = rule.get(peers_key) or []
        if not peers:
            w.write(LEVEL_0, f"{indent}{peers_title}: {any_peer}\n")
        for peer in peers:
            w.write(LEVEL_0, f"{indent}{peers_title}:\n")
            pod_sel, ns_sel, ipb = peer.get("podSelector"), peer.get("namespaceSelector"), peer.get("ipBlock")
            if pod_sel is not None and ns_sel is not None:
                w.write(LEVEL_1, f"{indent}NamespaceSelector: {format_label_selector(ns_sel)}\n")
                w.write(LEVEL_1, f"{indent}PodSelector: {format_label_selector(pod_sel)}\n")
            elif pod_sel is not None:
                w.write(LEVEL_1, f"{indent}PodSelector: {format_label_selector(pod_sel)}\n")
            elif ns_sel is not None:
                w.write(LEVEL_1, f"{indent}NamespaceSelector: {format_label_selector(ns_sel)}\n")
            elif ipb is not None:
                w.write(LEVEL_1, f"{indent}IPBlock:\n")
                w.write(LEVEL_2, f"{indent}CIDR: {ipb.get('cidr') or ''}\n")
                w.write(LEVEL_2, f"{indent}Except: {', '.join(ipb.get('except') or [])}\n")
        if i != len(rules) - 1:
            w.write(LEVEL_0, f"{indent}----------\n")


def describe_network_policy_spec(spec: dict, w: PrefixWriter) -> None:
    """describeNetworkPolicySpec."""
    w.write(LEVEL_0, "Spec:\n")
    w.write(LEVEL_1, "PodSelector: ")
    sel = spec.get("podSelector") or {}
    if not sel.get("matchLabels") and not sel.get("matchExpressions"):
        w.write(LEVEL_2, "<none> (Allowing the specific traffic to all pods in this namespace)\n")
    else:
        w.write(LEVEL_2, f"{format_label_selector(sel)}\n")
    types = spec.get("policyTypes") or []
    if "Ingress" in types:
        w.write(LEVEL_1, "Allowing ingress traffic:\n")
        _print_rules(spec.get("ingress") or [], "from", "From", "<any> (traffic not restricted by source)",
                     "<none> (Selected pods are isolated for ingress connectivity)", "    ", w)
    else:
        w.write(LEVEL_1, "Not affecting ingress traffic\n")
    if "Egress" in types:
        w.write(LEVEL_1, "Allowing egress traffic:\n")
        _print_rules(spec.get("egress") or [], "to", "To", "<any> (traffic not restricted by destination)",
                     "<none> (Selected pods are isolated for egress connectivity)", "    ", w)
    else:
        w.write(LEVEL_1, "Not affecting egress traffic\n")
    w.write(LEVEL_1, f"Policy Types: {', '.join(types)}\n")


def describe_network_policy(np: dict, ctx: DescribeContext) -> str:
    meta = object_meta(np)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"Created on:\t{go_time_string(meta.get('creationTimestamp'))}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    describe_network_policy_spec(np.get("spec") or {}, w)
    return w.text()


# -- Ingress -------------------------------------------------------------------------------

LABEL_SERVICE_NAME = "kubernetes.io/service-name"  # discoveryv1.LabelServiceName


def _service_backends(ing: dict) -> list[dict]:
    spec = ing.get("spec") or {}
    backends = [spec.get("defaultBackend") or {}]
    for rule in spec.get("rules") or []:
        backends += [p.get("backend") or {} for p in ((rule.get("http") or {}).get("paths") or [])]
    return [b["service"] for b in backends if b.get("service") is not None]


def fetch_ingress_backends(client, ing: dict) -> dict:
    """What ``describeBackendV1`` reads for each service backend: the Service (None when it does
    not exist) and the EndpointSlices labelled with its name, by service name."""
    from kubesim.api import kinds

    ns = (ing.get("metadata") or {}).get("namespace") or ""
    services: dict[str, dict | None] = {}
    slices: dict[str, list[dict]] = {}
    for backend in _service_backends(ing):
        name = backend.get("name") or ""
        if name in services:
            continue
        try:
            slices[name] = client.list(kinds.by_kind("EndpointSlice"), ns, label_selector=f"{LABEL_SERVICE_NAME}={name}")
        except KeyError:
            slices[name] = []
        try:
            services[name] = client.find(kinds.by_kind("Service"), ns, name)
        except KeyError:
            services[name] = None
    return {"services": services, "endpointslices": slices}


def service_backend_string(backend: dict) -> str:
    """serviceBackendStringer."""
    port = backend.get("port") or {}
    return f"{backend.get('name', '')}:{port['number'] if port.get('number') else port.get('name', '')}"


def _join_host_port(host: str, port: object) -> str:
    try:
        is6 = ipaddress.ip_address(host).version == 6
    except ValueError:
        is6 = ":" in host
    return f"[{host}]:{port}" if is6 else f"{host}:{port}"


def format_endpoint_slices(slices: list[dict], ports: set[str] | None) -> str:
    """formatEndpointSlices."""
    if not slices:
        return "<none>"
    found: list[str] = []
    more, count, limit = False, 0, 3
    for es in slices:
        endpoints = es.get("endpoints") or []
        if not es.get("ports"):
            for ep in endpoints:
                if len(found) == limit:
                    more = True
                if (ep.get("conditions") or {}).get("ready") is False:
                    continue
                if not more:
                    found.append((ep.get("addresses") or [""])[0])
                count += 1
            continue
        for port in es["ports"]:
            if ports is not None and (port.get("name") or "") not in ports:
                continue
            for ep in endpoints:
                if len(found) == limit:
                    more = True
                if (ep.get("conditions") or {}).get("ready") is False:
                    continue
                if not more:
                    found.append(_join_host_port((ep.get("addresses") or [""])[0], port.get("port")))
                count += 1
    text = ",".join(found)
    return f"{text} + {count - limit} more..." if more else text


def describe_backend(backend: dict, extra: dict) -> str:
    """describeBackendV1."""
    if backend.get("service") is not None:
        svc_backend = backend["service"]
        sb = service_backend_string(svc_backend)
        name = svc_backend.get("name") or ""
        service = (extra.get("services") or {}).get(name)
        if service is None:
            return f'{sb} (<error: services "{name}" not found>)'
        port = svc_backend.get("port") or {}
        sp_name = ""
        for sp in (service.get("spec") or {}).get("ports") or []:
            by_number = bool(port.get("number")) and port["number"] == sp.get("port")
            if by_number or (port.get("name") and port["name"] == sp.get("name")):
                sp_name = sp.get("name") or ""
        return f"{sb} ({format_endpoint_slices((extra.get('endpointslices') or {}).get(name) or [], {sp_name})})"
    if backend.get("resource") is not None:
        ref = backend["resource"]
        api_group = "<none>" if ref.get("apiGroup") is None else ref["apiGroup"]
        return f"APIGroup: {api_group}, Kind: {ref.get('kind', '')}, Name: {ref.get('name', '')}"
    return ""


def describe_ingress(ing: dict, ctx: DescribeContext) -> str:
    """describeIngressV1."""
    from kubesim.printers.networking import ingress_load_balancer_status

    meta, spec = object_meta(ing), ing.get("spec") or {}
    extra = ctx.extra or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"Address:\t{ingress_load_balancer_status(ing.get('status') or {}, True)}\n")
    class_name = spec.get("ingressClassName")
    w.write(LEVEL_0, f"Ingress Class:\t{'<none>' if class_name is None else class_name}\n")
    default = "<default>"
    if spec.get("defaultBackend") is not None:
        default = describe_backend(spec["defaultBackend"], extra)
    w.write(LEVEL_0, f"Default backend:\t{default}\n")
    if spec.get("tls"):
        w.write(LEVEL_0, "TLS:\n")
        for t in spec["tls"]:
            hosts = ",".join(t.get("hosts") or [])
            if not t.get("secretName"):
                w.write(LEVEL_1, f"SNI routes {hosts}\n")
            else:
                w.write(LEVEL_1, f"{t['secretName']} terminates {hosts}\n")
    w.write(LEVEL_0, "Rules:\n  Host\tPath\tBackends\n")
    w.write(LEVEL_1, "----\t----\t--------\n")
    count = 0
    for rule in spec.get("rules") or []:
        if rule.get("http") is None:
            continue
        count += 1
        w.write(LEVEL_1, f"{rule.get('host') or '*'}\t\n")
        for p in rule["http"].get("paths") or []:
            w.write(LEVEL_2, f"\t{p.get('path', '')} \t{describe_backend(p.get('backend') or {}, extra)}\n")
    if count == 0:
        w.write(LEVEL_1, f"*\t*\t{default}\n")
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    if ctx.events is not None:
        describe_events(ctx.events, w, ctx.now)
    return w.text()


# -- IngressClass --------------------------------------------------------------------------

def describe_ingress_class(ic: dict, ctx: DescribeContext) -> str:
    """describeIngressClassV1."""
    meta, spec = object_meta(ic), ic.get("spec") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Controller:\t{spec.get('controller', '')}\n")
    params = spec.get("parameters")
    if params is not None:
        w.write(LEVEL_0, "Parameters:\n")
        if params.get("apiGroup") is not None:
            w.write(LEVEL_1, f"APIGroup:\t{params['apiGroup']}\n")
        w.write(LEVEL_1, f"Kind:\t{params.get('kind', '')}\n")
        w.write(LEVEL_1, f"Name:\t{params.get('name', '')}\n")
    if ctx.events is not None:
        describe_events(ctx.events, w, ctx.now)
    return w.text()
