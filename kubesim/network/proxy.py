"""kube-proxy's rules: where a packet to a Service goes.

Upstream: pkg/proxy/iptables/proxier.go (kubeadm's default mode) with pkg/proxy/topology.go
CategorizeEndpoints and pkg/proxy/endpointslicecache.go:

- a ClusterIP (or a node IP on a NodePort) and a port the Service declares, for its protocol,
  is DNAT'ed to one of the Service's endpoints, at the endpoint port of the same name
  (the EndpointSlice's resolved targetPort); sessionAffinity changes only which one;
- the endpoints are the ready ones; with none ready, the serving terminating ones;
  ``internalTrafficPolicy: Local`` (cluster traffic) and ``externalTrafficPolicy: Local``
  (NodePort traffic) keep only those on the node the packet is on;
- with no usable endpoint, kube-proxy REJECTs: the client sees "Connection refused" (with
  Local policies and endpoints elsewhere, it DROPs: a timeout);
- a port the ClusterIP does not declare has no rule: the packet goes nowhere (a timeout).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesim.network.cluster import Snapshot, md


@dataclass(frozen=True)
class Backend:
    ip: str
    port: int
    pod: dict | None
    node: str


def service_port(svc: dict, port: int, protocol: str, node_port: bool = False) -> dict | None:
    for sp in (svc.get("spec") or {}).get("ports") or ():
        if (sp.get("protocol") or "TCP") != protocol:
            continue
        if (sp.get("nodePort") if node_port else sp.get("port")) == port:
            return sp
    return None


def node_port_service(snap: Snapshot, port: int, protocol: str) -> tuple[dict, dict] | None:
    for svc in snap.services:
        if (svc.get("spec") or {}).get("type") not in ("NodePort", "LoadBalancer"):
            continue
        sp = service_port(svc, port, protocol, node_port=True)
        if sp is not None:
            return svc, sp
    return None


def categorize(snap: Snapshot, svc: dict, sp: dict, node: str, local: bool) -> tuple[list[Backend], str]:
    """The endpoints kube-proxy sends to, and the rule it writes: "" (DNAT to them), "reject"
    (no endpoint: REJECT) or "drop" (a Local policy with endpoints on other nodes only)."""
    name, protocol = sp.get("name") or "", sp.get("protocol") or "TCP"
    ready: list[Backend] = []
    serving_terminating: list[Backend] = []
    for sl in snap.slices_of(svc):
        port = next((p for p in sl.get("ports") or () if (p.get("name") or "") == name
                     and (p.get("protocol") or "TCP") == protocol), None)
        if port is None or port.get("port") is None:
            continue
        for ep in sl.get("endpoints") or ():
            cond = ep.get("conditions") or {}
            for ip in ep.get("addresses") or ():
                b = Backend(ip, int(port["port"]), snap.pod_by_ref(ep.get("targetRef")), ep.get("nodeName") or "")
                if cond.get("ready") is not False:
                    ready.append(b)
                elif cond.get("serving") and cond.get("terminating"):
                    serving_terminating.append(b)
    usable = ready or serving_terminating
    usable.sort(key=lambda b: b.ip)
    if not usable:
        return [], "reject"
    if local:
        here = [b for b in usable if b.node == node]
        return here, "" if here else "drop"
    return usable, ""


def internal_local(svc: dict) -> bool:
    return (svc.get("spec") or {}).get("internalTrafficPolicy") == "Local"


def external_local(svc: dict) -> bool:
    return (svc.get("spec") or {}).get("externalTrafficPolicy") == "Local"


def describe(svc: dict) -> str:
    return f"{md(svc).get('namespace', '')}/{md(svc).get('name', '')}"
