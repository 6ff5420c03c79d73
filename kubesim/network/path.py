"""One connection from a pod, hop by hop: name resolution, kube-proxy's translation, the
NetworkPolicies of both ends, and whether anything listens; each hop with its verdict.

The outcome is what the client's socket sees: ``connected`` (with the server's reply),
``refused`` (kube-proxy's REJECT for a Service without endpoints, or a closed port: RST),
``timeout`` (a policy's drop, a Service port with no rule, an address no one has), or, for a
name, ``unresolved`` (NXDOMAIN) and ``dns-timeout`` (the query itself was dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesim.network import dns, policy, proxy
from kubesim.network.cluster import (
    DNS_LABELS,
    DNS_SERVICE,
    DNS_SERVICE_IP,
    Snapshot,
    md,
    pod_ip,
)

PASS, FAIL, INFO = "pass", "fail", "info"


@dataclass(frozen=True)
class Hop:
    step: str        # dns | service | endpoints | egress | ingress | route | port
    verdict: str     # pass | fail | info
    detail: str
    policy: str = ""  # namespace/name for policy hops


@dataclass
class Trace:
    source: dict
    host: str
    port: int
    protocol: str = "TCP"
    hops: list = field(default_factory=list)
    outcome: str = ""        # connected | refused | timeout | unresolved | dns-timeout | dns-refused
    address: str = ""        # the address connected to (after DNS)
    backend: str = ""        # pod IP:port after kube-proxy
    destination: dict | None = None
    reply: dict | None = None

    def add(self, step: str, verdict: str, detail: str, policy_name: str = "") -> None:
        self.hops.append(Hop(step, verdict, detail, policy_name))

    def to_json(self) -> dict:
        src = md(self.source)
        dst = md(self.destination or {})
        return {"kind": "NetworkExplanation", "apiVersion": "kubesim.io/v1alpha1",
                "source": {"namespace": src.get("namespace"), "name": src.get("name"), "ip": pod_ip(self.source)},
                "destination": {"host": self.host, "port": self.port, "protocol": self.protocol,
                                "address": self.address or None, "backend": self.backend or None,
                                "pod": ({"namespace": dst.get("namespace"), "name": dst.get("name")}
                                        if self.destination else None)},
                "outcome": self.outcome,
                "hops": [{"step": h.step, "verdict": h.verdict, "detail": h.detail,
                          **({"policy": h.policy} if h.policy else {})} for h in self.hops]}


def _node_of(pod: dict) -> str:
    return (pod.get("spec") or {}).get("nodeName") or ""


def _pod_name(p: dict) -> str:
    return f"{md(p).get('namespace', '')}/{md(p).get('name', '')}"


def _policies(snap: Snapshot, trace: Trace, src: dict, dst: dict | None, dst_ip: str, port: int,
              protocol: str) -> bool:
    """Egress of the source, then ingress of the destination pod; hops for each policy."""
    ok, verdicts = policy.evaluate(snap, src, policy.EGRESS, dst, dst_ip, port, protocol, dst)
    if not verdicts:
        trace.add("egress", PASS, f"no NetworkPolicy isolates {_pod_name(src)} for egress")
    for v in verdicts:
        trace.add("egress", PASS if v.allowed else FAIL, v.reason, f"{v.namespace}/{v.name}")
    if not ok:
        trace.add("egress", FAIL, f"egress from {_pod_name(src)} is denied: the packet is dropped")
        return False
    if dst is None or (dst.get("spec") or {}).get("hostNetwork"):
        return True
    ok, verdicts = policy.evaluate(snap, dst, policy.INGRESS, src, pod_ip(src), port, protocol, dst)
    if not verdicts:
        trace.add("ingress", PASS, f"no NetworkPolicy isolates {_pod_name(dst)} for ingress")
    for v in verdicts:
        trace.add("ingress", PASS if v.allowed else FAIL, v.reason, f"{v.namespace}/{v.name}")
    if not ok:
        trace.add("ingress", FAIL, f"ingress to {_pod_name(dst)} is denied: the packet is dropped")
        return False
    return True


def connect(snap: Snapshot, src: dict, address: str, port: int, protocol: str, listener, choose=None,
            trace: Trace | None = None) -> Trace:
    """A connection from pod ``src`` to ``address:port``. ``listener(pod, port, protocol)``
    says what a pod answers (a reply dict, or None when nothing listens); ``choose(backends)``
    picks kube-proxy's endpoint (the first by default)."""
    trace = trace or Trace(src, address, port, protocol)
    trace.address = address
    dst_ip, dst_port = address, port
    svc = snap.service_by_ip.get(address)
    node = snap.node_by_ip.get(address)
    hit = None
    if svc is not None:
        sp = proxy.service_port(svc, port, protocol)
        if sp is None:
            trace.add("service", FAIL, f"Service {proxy.describe(svc)} ({address}) has no port {port}/{protocol}: "
                                       "kube-proxy has no rule for it, nothing answers")
            trace.outcome = "timeout"
            return trace
        hit = (svc, sp, _node_of(src), proxy.internal_local(svc), "ClusterIP")
    elif node is not None:
        found = proxy.node_port_service(snap, port, protocol)
        if found is not None:
            hit = (found[0], found[1], md(node).get("name", ""), proxy.external_local(found[0]), "NodePort")
    if hit is not None:
        svc, sp, on_node, local, how = hit
        target = sp.get("targetPort", sp.get("port"))
        trace.add("service", PASS, f"{how} {address}:{port}/{protocol} is Service {proxy.describe(svc)} port "
                                   f"{sp.get('name') or sp.get('port')} (targetPort {target})")
        backends, rule = proxy.categorize(snap, svc, sp, on_node, local)
        if rule == "reject":
            trace.add("endpoints", FAIL, f"Service {proxy.describe(svc)} has no ready endpoints: kube-proxy rejects "
                                         "the connection")
            trace.outcome = "refused"
            return trace
        if rule == "drop":
            trace.add("endpoints", FAIL, f"traffic policy Local and no endpoint on node {on_node}: kube-proxy drops "
                                         "the packet")
            trace.outcome = "timeout"
            return trace
        chosen = (choose or (lambda bs: bs[0]))(backends)
        listing = ", ".join(f"{b.ip}:{b.port}" for b in backends)
        trace.add("endpoints", PASS, f"ready endpoints {listing}; kube-proxy picks {chosen.ip}:{chosen.port}")
        dst_ip, dst_port = chosen.ip, chosen.port
    trace.backend = f"{dst_ip}:{dst_port}"
    dst = snap.pod_by_ip.get(dst_ip)
    host_pods = []
    if dst is None:
        dst_node = snap.node_by_ip.get(dst_ip)
        if dst_node is not None:
            host_pods = [p for p in snap.pods if (p.get("spec") or {}).get("hostNetwork")
                         and _node_of(p) == md(dst_node).get("name") and (p.get("status") or {}).get("phase") == "Running"]
    trace.destination = dst
    if not _policies(snap, trace, src, dst, dst_ip, dst_port, protocol):
        trace.outcome = "timeout"
        return trace
    if dst is None and not host_pods and snap.node_by_ip.get(dst_ip) is None:
        trace.add("route", FAIL, f"no pod or node has the address {dst_ip}: nothing answers")
        trace.outcome = "timeout"
        return trace
    for p in [dst] if dst is not None else host_pods:
        reply = listener(p, dst_port, protocol)
        if reply is not None:
            trace.destination = p
            trace.reply = reply
            trace.add("port", PASS, f"{_pod_name(p)} listens on {dst_port}/{protocol}")
            trace.outcome = "connected"
            return trace
    who = _pod_name(dst) if dst is not None else f"node {md(snap.node_by_ip[dst_ip]).get('name')}"
    trace.add("port", FAIL, f"nothing in {who} listens on {dst_port}/{protocol}: connection refused")
    trace.outcome = "refused"
    return trace


_VIRTUAL_DNS = {"metadata": {"namespace": DNS_SERVICE[0], "name": "coredns", "labels": DNS_LABELS},
                "spec": {"containers": [{"name": "coredns", "ports": [
                    {"name": "dns", "containerPort": 53, "protocol": "UDP"},
                    {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
                    {"name": "metrics", "containerPort": 9153, "protocol": "TCP"}]}]},
                "status": {"phase": "Running"}}


def _has_coredns_pods(snap: Snapshot) -> bool:
    """Whether the cluster runs kubeadm's CoreDNS (pods in kube-system labelled k8s-app=kube-dns):
    then the stand-in has no business answering."""
    return any(md(p).get("namespace") == DNS_SERVICE[0]
               and all((md(p).get("labels") or {}).get(k) == v for k, v in DNS_LABELS.items())
               for p in snap.pods)


def dns_transport(snap: Snapshot, src: dict, conf: dns.ResolvConf, listener, choose=None,
                  trace: Trace | None = None) -> tuple[str, Trace]:
    """Can the pod reach its nameserver on 53/UDP? ("ok" | "timeout" | "refused", trace).
    The cluster's nameserver is the kube-dns Service; a state without it (older kubesim
    states) is served by a stand-in CoreDNS pod in kube-system labelled k8s-app=kube-dns, so
    that egress policies are still checked against it."""
    trace = trace or Trace(src, DNS_SERVICE_IP, 53, "UDP")
    server = conf.nameservers[0] if conf.nameservers else ""
    if server != DNS_SERVICE_IP:
        trace.add("dns", INFO, f"nameserver {server or '(none)'} is not the cluster DNS: cluster names do not resolve")
        return "ok", trace
    if snap.service_by_name.get(DNS_SERVICE) is None and _has_coredns_pods(snap):
        # kubeadm's CoreDNS is there but its Service was deleted: kube-proxy has no rule for
        # 10.96.0.10, the query goes nowhere (kubeadm recreates nothing after init)
        trace.add("dns", FAIL, f"no {DNS_SERVICE[0]}/{DNS_SERVICE[1]} Service: nothing answers on {DNS_SERVICE_IP}")
        return "timeout", trace
    if snap.service_by_name.get(DNS_SERVICE) is None:
        stand_in = dict(_VIRTUAL_DNS)
        sub = Trace(src, DNS_SERVICE_IP, 53, "UDP")
        trace.add("dns", INFO, f"no {DNS_SERVICE[0]}/{DNS_SERVICE[1]} Service: kubesim's stand-in CoreDNS "
                               f"({DNS_SERVICE[0]}, k8s-app=kube-dns) answers on {DNS_SERVICE_IP}")
        if not _policies(snap, sub, src, stand_in, "", 53, "UDP"):
            trace.hops += [Hop("dns", h.verdict, h.detail, h.policy) for h in sub.hops]
            return "timeout", trace
        trace.hops += [Hop("dns", h.verdict, h.detail, h.policy) for h in sub.hops if h.verdict == FAIL or h.policy]
        return "ok", trace
    sub = connect(snap, src, DNS_SERVICE_IP, 53, "UDP", listener, choose)
    for h in sub.hops:
        if h.verdict == FAIL or h.policy or h.step == "endpoints":
            trace.add("dns", h.verdict, h.detail, h.policy)
    if sub.outcome == "connected":
        return "ok", trace
    return ("refused" if sub.outcome == "refused" else "timeout"), trace


def resolve(snap: Snapshot, src: dict, name: str, listener, choose=None,
            trace: Trace | None = None) -> tuple[str, list[str], Trace]:
    """getaddrinfo from pod ``src``: ("ok", addresses) or ("unresolved" | "dns-timeout" |
    "dns-refused", [])."""
    trace = trace or Trace(src, name, 0)
    if dns.is_ip(name):
        return "ok", [name], trace
    if name in ("localhost", "localhost.localdomain"):
        return "ok", ["127.0.0.1"], trace
    own = md(src).get("name", "")
    hostname = (src.get("spec") or {}).get("hostname") or own
    if name == hostname:
        trace.add("dns", PASS, f"{name} is the pod's own name (/etc/hosts): {pod_ip(src)}")
        return "ok", [pod_ip(src)], trace
    conf = dns.resolv_conf(src)
    status, trace = dns_transport(snap, src, conf, listener, choose, trace)
    if status != "ok":
        trace.add("dns", FAIL, f"the DNS query to {conf.nameservers[0]}:53/UDP "
                               f"{'is refused' if status == 'refused' else 'times out'}")
        return ("dns-refused" if status == "refused" else "dns-timeout"), [], trace
    ips = dns.lookup(snap, name, conf, conf.nameservers[:1] == (DNS_SERVICE_IP,))
    if not ips:
        tried = ", ".join(dns.candidates(name, conf))
        trace.add("dns", FAIL, f"{name} does not resolve (NXDOMAIN for {tried})")
        return "unresolved", [], trace
    found = next((c for c in dns.candidates(name, conf) if dns.query(snap, c).records), name)
    trace.add("dns", PASS, f"{name} resolves to {', '.join(ips)} (as {found})")
    return "ok", ips, trace


def reach(snap: Snapshot, src: dict, host: str, port: int, protocol: str, listener, choose=None) -> Trace:
    """Name resolution, then the connection: the whole path explain-network shows."""
    trace = Trace(src, host, port, protocol)
    status, ips, trace = resolve(snap, src, host, listener, choose, trace)
    if status != "ok":
        trace.outcome = {"unresolved": "unresolved", "dns-timeout": "dns-timeout"}.get(status, "dns-refused")
        return trace
    if ips[0].startswith("127."):
        trace.address = ips[0]
        trace.destination = src
        reply = listener(src, port, protocol)
        trace.reply = reply
        trace.add("port", PASS if reply else FAIL, f"localhost: {'a container of the pod listens' if reply else 'nothing listens'} "
                                                  f"on {port}/{protocol}")
        trace.outcome = "connected" if reply else "refused"
        return trace
    return connect(snap, src, ips[0], port, protocol, listener, choose, trace)
