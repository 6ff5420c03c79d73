"""Cluster DNS: CoreDNS's ``kubernetes`` plugin as kubeadm configures it (``kubernetes
cluster.local in-addr.arpa ip6.arpa { pods insecure ... }``), and the resolver configuration
the kubelet writes into each pod.

Upstream: the DNS specification (github.com/kubernetes/dns docs/specification.md), CoreDNS
plugin/kubernetes (records per Service type, headless endpoints, ``pods insecure``, PTR
records), pkg/kubelet/network/dns/dns.go (resolv.conf by ``dnsPolicy``: ClusterFirst's
``search <ns>.svc.cluster.local svc.cluster.local cluster.local``, ``options ndots:5``;
hostNetwork pods fall back to Default unless ClusterFirstWithHostNet; ``dnsConfig`` merged).

kubesim has no Internet: names outside the cluster domain have no records (NXDOMAIN), as if
the upstream resolver knew nothing.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from kubesim.network.cluster import CLUSTER_DOMAIN, DNS_SERVICE_IP, Snapshot, md

NODE_NAMESERVER = "127.0.0.53"   # what a node's systemd-resolved stub serves (dnsPolicy Default)
NDOTS = 5


@dataclass(frozen=True)
class Answer:
    rcode: str                                    # NOERROR | NXDOMAIN
    records: tuple[tuple[str, str, str], ...] = ()  # (owner name, type A|CNAME|PTR, value)


@dataclass(frozen=True)
class ResolvConf:
    nameservers: tuple[str, ...]
    search: tuple[str, ...]
    ndots: int = NDOTS

    def text(self) -> str:
        lines = []
        if self.search:
            lines.append("search " + " ".join(self.search))
        lines += [f"nameserver {ns}" for ns in self.nameservers]
        lines.append(f"options ndots:{self.ndots}")
        return "\n".join(lines) + "\n"


def resolv_conf(pod: dict) -> ResolvConf:
    """pkg/kubelet/network/dns getPodDNS: the pod's /etc/resolv.conf."""
    spec = pod.get("spec") or {}
    ns = md(pod).get("namespace", "default")
    policy = spec.get("dnsPolicy") or "ClusterFirst"
    if policy == "ClusterFirst" and spec.get("hostNetwork"):
        policy = "Default"
    if policy in ("ClusterFirst", "ClusterFirstWithHostNet"):
        servers = [DNS_SERVICE_IP]
        search = [f"{ns}.svc.{CLUSTER_DOMAIN}", f"svc.{CLUSTER_DOMAIN}", CLUSTER_DOMAIN]
    elif policy == "Default":
        servers, search = [NODE_NAMESERVER], []
    else:  # None
        servers, search = [], []
    cfg = spec.get("dnsConfig") or {}
    for s in cfg.get("nameservers") or ():
        if s not in servers:
            servers.append(s)
    for s in cfg.get("searches") or ():
        if s not in search:
            search.append(s)
    ndots = NDOTS if policy != "Default" else 1
    for o in cfg.get("options") or ():
        if o.get("name") == "ndots" and str(o.get("value", "")).isdigit():
            ndots = int(o["value"])
    return ResolvConf(tuple(servers[:3]), tuple(search[:32]), ndots)


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _dashed(label: str) -> str | None:
    ip = label.replace("-", ".")
    try:
        return str(ipaddress.IPv4Address(ip))
    except ValueError:
        return None


def _endpoint_records(snap: Snapshot, svc: dict) -> list[tuple[str, str]]:
    """(hostname or dashed IP, IP) of a headless Service's ready endpoints (all of them when it
    publishes not-ready addresses: the controller marks them ready then)."""
    out = []
    for sl in snap.slices_of(svc):
        for ep in sl.get("endpoints") or ():
            if (ep.get("conditions") or {}).get("ready") is False:
                continue
            for ip in ep.get("addresses") or ():
                out.append((ep.get("hostname") or ip.replace(".", "-"), ip))
    return sorted(set(out), key=lambda r: tuple(int(x) for x in r[1].split(".")) if r[1].count(".") == 3 else (0,))


def _service_ip(svc: dict) -> str | None:
    ip = (svc.get("spec") or {}).get("clusterIP")
    return ip if ip and ip != "None" else None


def query(snap: Snapshot, qname: str, qtype: str = "A") -> Answer:
    """CoreDNS's answer to ``qname`` (no trailing dot), type A, AAAA or PTR."""
    name = qname.rstrip(".").lower()
    if qtype == "PTR":
        return _ptr(snap, name)
    suffix = "." + CLUSTER_DOMAIN
    if not (name == CLUSTER_DOMAIN or name.endswith(suffix)):
        return Answer("NXDOMAIN")
    labels = name[: -len(suffix)].split(".") if name != CLUSTER_DOMAIN else []
    records: list[tuple[str, str, str]] = []
    exists = False
    if labels and labels[-1] == "svc":
        rest = labels[:-1]
        if len(rest) == 0:
            exists = True
        elif len(rest) == 1:
            exists = rest[0] in snap.namespace_labels
        elif len(rest) in (2, 3):
            svc = snap.service_by_name.get((rest[-1], rest[-2]))
            if svc is not None:
                spec = svc.get("spec") or {}
                if len(rest) == 2:
                    if spec.get("type") == "ExternalName":
                        exists = True
                        records.append((name, "CNAME", (spec.get("externalName") or "").rstrip(".")))
                    elif _service_ip(svc):
                        exists = True
                        records.append((name, "A", _service_ip(svc)))
                    else:
                        eps = _endpoint_records(snap, svc)
                        exists = bool(eps)
                        records += [(name, "A", ip) for _, ip in eps]
                elif not _service_ip(svc):
                    for host, ip in _endpoint_records(snap, svc):
                        if host == rest[0]:
                            exists = True
                            records.append((name, "A", ip))
    elif labels and labels[-1] == "pod":
        rest = labels[:-1]
        if len(rest) == 2 and _dashed(rest[0]):
            exists = True  # pods insecure: the address the name spells, unverified
            records.append((name, "A", _dashed(rest[0])))
        elif len(rest) <= 1:
            exists = not rest or rest[0] in snap.namespace_labels
    elif not labels:
        exists = True
    if not exists:
        return Answer("NXDOMAIN")
    if qtype == "AAAA":
        return Answer("NOERROR", tuple(r for r in records if r[1] == "CNAME"))
    return Answer("NOERROR", tuple(records))


def ptr_name(ip: str) -> str:
    return ".".join(reversed(ip.split("."))) + ".in-addr.arpa"


def _ptr(snap: Snapshot, name: str) -> Answer:
    if not name.endswith(".in-addr.arpa"):
        return Answer("NXDOMAIN")
    ip = ".".join(reversed(name[: -len(".in-addr.arpa")].split(".")))
    svc = snap.service_by_ip.get(ip)
    if svc is not None:
        return Answer("NOERROR", ((name, "PTR", f"{md(svc)['name']}.{md(svc)['namespace']}.svc.{CLUSTER_DOMAIN}"),))
    for svc in sorted(snap.services, key=lambda s: (md(s).get("namespace", ""), md(s).get("name", ""))):
        if _service_ip(svc) or (svc.get("spec") or {}).get("type") == "ExternalName":
            continue
        for host, addr in _endpoint_records(snap, svc):
            if addr == ip:
                return Answer("NOERROR", ((name, "PTR", f"{host}.{md(svc)['name']}.{md(svc)['namespace']}.svc.{CLUSTER_DOMAIN}"),))
    return Answer("NXDOMAIN")


def candidates(name: str, conf: ResolvConf) -> list[str]:
    """The names a libc resolver tries, in order (res_search with ``ndots``)."""
    if name.endswith("."):
        return [name.rstrip(".")]
    with_search = [f"{name}.{s}" for s in conf.search]
    if name.count(".") >= conf.ndots:
        return [name] + with_search
    return with_search + [name]


def lookup(snap: Snapshot, name: str, conf: ResolvConf, cluster_dns: bool) -> list[str]:
    """getaddrinfo's IPv4 addresses for ``name`` (CNAMEs followed), [] when it does not resolve.
    ``cluster_dns``: the pod's nameserver is the cluster's (else only its node's resolver,
    which knows no cluster names)."""
    if not cluster_dns:
        return []
    for cand in candidates(name, conf):
        seen = 0
        target = cand
        while seen < 8:
            seen += 1
            ans = query(snap, target, "A")
            if ans.rcode != "NOERROR" or not ans.records:
                break
            ips = [v for _, t, v in ans.records if t == "A"]
            if ips:
                return ips
            cname = next((v for _, t, v in ans.records if t == "CNAME"), None)
            if not cname:
                break
            target = cname
    return []
