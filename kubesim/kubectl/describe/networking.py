"""describe for networking.k8s.io/v1's NetworkPolicy, Ingress and IngressClass.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describeNetworkPolicy``,
``describeNetworkPolicySpec``, ``getPolicyType``, ``printNetworkPolicySpecIngressFrom``,
``printNetworkPolicySpecEgressTo``; kubectl shows no events for a NetworkPolicy).
"""

from __future__ import annotations

import math
import time

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    DescribeContext,
    PrefixWriter,
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
