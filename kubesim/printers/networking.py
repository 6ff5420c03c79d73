"""kubectl's table columns and rows for networking.k8s.io/v1's NetworkPolicy, Ingress and
IngressClass.

Upstream: pkg/printers/internalversion/printers.go: ``printNetworkPolicy`` (POD-SELECTOR is
``metav1.FormatLabelSelector``), ``printIngress`` (``formatHosts``: at most three hosts, then
`` + N more...``, ``*`` without any; ``ingressLoadBalancerStatusStringer``; ``formatPorts``:
``80`` or ``80, 443`` with TLS) and ``printIngressClass`` (PARAMETERS ``Kind.apiGroup/name``).
"""

from __future__ import annotations

from kubesim.printers.apps import format_label_selector
from kubesim.printers.tables import NONE, Column, PrintContext, age, object_meta

# loadBalancerWidth: ADDRESS is clipped to 16 bytes outside -o wide
LOAD_BALANCER_WIDTH = 16


def print_network_policy(np: dict, ctx: PrintContext) -> list[str]:
    spec = np.get("spec") or {}
    return [object_meta(np).get("name", ""), format_label_selector(spec.get("podSelector") or {}), age(np, ctx)]


NETWORK_POLICY_COLUMNS = [Column("Name", format="name"), Column("Pod-Selector"), Column("Age")]


def format_hosts(rules: list[dict]) -> str:
    """formatHosts."""
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
        if not more and rule.get("host"):
            hosts.append(rule["host"])
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if more else text


def format_ports(tls: list | None) -> str:
    """formatPorts."""
    return "80, 443" if tls else "80"


def ingress_load_balancer_status(status: dict, wide: bool = False) -> str:
    """ingressLoadBalancerStatusStringer: the IPs or hostnames, sorted and deduplicated."""
    found = set()
    for ing in ((status.get("loadBalancer") or {}).get("ingress") or []):
        if ing.get("ip"):
            found.add(ing["ip"])
        elif ing.get("hostname"):
            found.add(ing["hostname"])
    text = ",".join(sorted(found))
    if not wide and len(text) > LOAD_BALANCER_WIDTH:
        text = text[:LOAD_BALANCER_WIDTH - 3] + "..."
    return text


def print_ingress(ing: dict, ctx: PrintContext) -> list[str]:
    spec = ing.get("spec") or {}
    class_name = spec.get("ingressClassName")
    return [object_meta(ing).get("name", ""), NONE if class_name is None else class_name,
            format_hosts(spec.get("rules") or []), ingress_load_balancer_status(ing.get("status") or {}),
            format_ports(spec.get("tls")), age(ing, ctx)]


INGRESS_COLUMNS = [Column("Name", format="name"), Column("Class"), Column("Hosts"), Column("Address"),
                   Column("Ports"), Column("Age")]


def print_ingress_class(ic: dict, ctx: PrintContext) -> list[str]:
    spec = ic.get("spec") or {}
    params = spec.get("parameters")
    parameters = NONE
    if params is not None:
        parameters = params.get("kind") or ""
        if params.get("apiGroup") is not None:
            parameters += "." + params["apiGroup"]
        parameters += "/" + (params.get("name") or "")
    return [object_meta(ic).get("name", ""), spec.get("controller") or "", parameters, age(ic, ctx)]


INGRESS_CLASS_COLUMNS = [Column("Name", format="name"), Column("Controller"), Column("Parameters"), Column("Age")]
