"""The objects the data plane reads, indexed once per command: a :class:`Snapshot`.

What kube-proxy, CoreDNS and a NetworkPolicy-enforcing CNI each watch on a real cluster
(Services, EndpointSlices, Pods, Namespaces, NetworkPolicies, Nodes), handed over by the
control plane as stored dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

CLUSTER_DOMAIN = "cluster.local"          # kubeadm's default networking.dnsDomain
DNS_SERVICE = ("kube-system", "kube-dns")
DNS_SERVICE_IP = "10.96.0.10"             # kubeadm: the 10th address of the service CIDR
DNS_LABELS = {"k8s-app": "kube-dns"}      # CoreDNS pods' labels in kubeadm's manifest
SERVICE_NAME_LABEL = "kubernetes.io/service-name"


def md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def pod_ip(pod: dict) -> str:
    return (pod.get("status") or {}).get("podIP") or ""


def pod_running(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and not md(pod).get("deletionTimestamp")


@dataclass
class Snapshot:
    pods: list = field(default_factory=list)
    services: list = field(default_factory=list)
    slices: list = field(default_factory=list)
    namespaces: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    nodes: list = field(default_factory=list)

    @cached_property
    def pod_by_ip(self) -> dict[str, dict]:
        """Running pods by IP (host-network pods answer on their node's IP)."""
        out: dict[str, dict] = {}
        for p in sorted(self.pods, key=lambda p: (md(p).get("namespace", ""), md(p).get("name", ""))):
            ip = pod_ip(p)
            if ip and pod_running(p) and not (p.get("spec") or {}).get("hostNetwork"):
                out.setdefault(ip, p)
        return out

    @cached_property
    def namespace_labels(self) -> dict[str, dict]:
        return {md(n).get("name", ""): dict(md(n).get("labels") or {}) for n in self.namespaces}

    @cached_property
    def service_by_name(self) -> dict[tuple[str, str], dict]:
        return {(md(s).get("namespace", ""), md(s).get("name", "")): s for s in self.services}

    @cached_property
    def service_by_ip(self) -> dict[str, dict]:
        out = {}
        for s in self.services:
            for ip in (s.get("spec") or {}).get("clusterIPs") or [(s.get("spec") or {}).get("clusterIP")]:
                if ip and ip != "None":
                    out[ip] = s
        return out

    @cached_property
    def node_by_ip(self) -> dict[str, dict]:
        out = {}
        for n in self.nodes:
            for a in (n.get("status") or {}).get("addresses") or ():
                if a.get("type") in ("InternalIP", "ExternalIP") and a.get("address"):
                    out[a["address"]] = n
        return out

    def slices_of(self, svc: dict) -> list[dict]:
        ns, name = md(svc).get("namespace", ""), md(svc).get("name", "")
        return [s for s in self.slices if md(s).get("namespace") == ns
                and (md(s).get("labels") or {}).get(SERVICE_NAME_LABEL) == name]

    def pod(self, namespace: str, name: str) -> dict | None:
        return next((p for p in self.pods if md(p).get("namespace") == namespace and md(p).get("name") == name), None)

    def pod_by_ref(self, ref: dict | None) -> dict | None:
        if not ref or ref.get("kind") != "Pod":
            return None
        return self.pod(ref.get("namespace", ""), ref.get("name", ""))

    def node_ip(self, node_name: str) -> str:
        for n in self.nodes:
            if md(n).get("name") == node_name:
                for a in (n.get("status") or {}).get("addresses") or ():
                    if a.get("type") == "InternalIP":
                        return a.get("address", "")
        return ""
