"""NetworkPolicy semantics, as a policy-enforcing CNI plugin applies them (kubesim is the CNI).

Upstream defines the meaning in the API (staging/src/k8s.io/api/networking/v1/types.go,
NetworkPolicySpec/NetworkPolicyPeer/NetworkPolicyPort) and checks it with the e2e suite
test/e2e/network/netpol/network_policy.go; no Kubernetes component enforces it. The rules:

- a pod is *isolated* for ingress (egress) when some policy in its namespace selects it
  (``spec.podSelector``) and lists ``Ingress`` (``Egress``) in ``policyTypes`` — defaulted,
  when empty, to Ingress plus Egress if the policy has egress rules (pkg/apis/networking/v1
  defaults.go); a connection needs the egress side of the source and the ingress side of the
  destination to allow it; policies are additive: any rule of any selecting policy allowing it
  is enough;
- a rule with no ``from``/``to`` admits every peer, with no ``ports`` every port; a peer is an
  ``ipBlock`` (cidr minus ``except``; kubesim, like Calico and Cilium, matches pod IPs too), a
  ``podSelector`` alone (pods of the policy's namespace), a ``namespaceSelector`` alone (every
  pod of the matching namespaces) or both (the matching pods of the matching namespaces);
- a port matches on protocol (default TCP) and number, an ``endPort`` range, or a named
  container port of the destination pod; a port-less entry matches every port of its protocol.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from kubesim.network.cluster import Snapshot, md

INGRESS, EGRESS = "Ingress", "Egress"


@dataclass(frozen=True)
class PolicyVerdict:
    """One policy that selects the pod, for one direction: whether it allows, and why."""
    namespace: str
    name: str
    allowed: bool
    reason: str


def _selects(selector: dict | None, labels: dict | None) -> bool:
    from kubesim.api.selectors import from_label_selector

    try:
        return from_label_selector(selector if selector is not None else {}).matches(labels or {})
    except ValueError:
        return False


def policy_types(policy: dict) -> list[str]:
    spec = policy.get("spec") or {}
    types = spec.get("policyTypes")
    if types:
        return list(types)
    return [INGRESS] + ([EGRESS] if spec.get("egress") else [])


def selecting(snap: Snapshot, pod: dict, direction: str) -> list[dict]:
    """The policies of the pod's namespace that isolate it in ``direction``, by name."""
    ns = md(pod).get("namespace", "")
    out = [p for p in snap.policies if md(p).get("namespace") == ns and direction in policy_types(p)
           and _selects((p.get("spec") or {}).get("podSelector"), md(pod).get("labels"))]
    return sorted(out, key=lambda p: md(p).get("name", ""))


def _in_block(block: dict, ip: str) -> bool:
    try:
        addr = ipaddress.ip_address(ip)
        if addr not in ipaddress.ip_network(block.get("cidr", ""), strict=False):
            return False
        return not any(addr in ipaddress.ip_network(e, strict=False) for e in block.get("except") or ())
    except ValueError:
        return False


def peer_matches(snap: Snapshot, peer: dict, policy_ns: str, other: dict | None, other_ip: str) -> bool:
    """NetworkPolicyPeer: does the other end (a pod, or only an IP) match ``peer``?"""
    if "ipBlock" in peer and peer.get("ipBlock") is not None:
        return bool(other_ip) and _in_block(peer["ipBlock"], other_ip)
    if other is None:
        return False
    ns = md(other).get("namespace", "")
    pod_sel, ns_sel = peer.get("podSelector"), peer.get("namespaceSelector")
    if ns_sel is None:
        if ns != policy_ns:
            return False
    elif not _selects(ns_sel, snap.namespace_labels.get(ns)):
        return False
    return pod_sel is None or _selects(pod_sel, md(other).get("labels"))


def named_port(pod: dict | None, name: str, protocol: str) -> int | None:
    for c in (pod or {}).get("spec", {}).get("containers") or ():
        for p in c.get("ports") or ():
            if p.get("name") == name and (p.get("protocol") or "TCP") == protocol:
                return int(p.get("containerPort", 0))
    return None


def port_matches(ports: list | None, port: int, protocol: str, dst_pod: dict | None) -> bool:
    """NetworkPolicyPort list against the destination port (after any Service translation)."""
    if not ports:
        return True
    for p in ports:
        if (p.get("protocol") or "TCP") != protocol:
            continue
        want = p.get("port")
        if want is None:
            return True
        if isinstance(want, str) and not want.isdigit():
            if named_port(dst_pod, want, protocol) == port:
                return True
            continue
        lo = int(want)
        hi = int(p.get("endPort") or lo)
        if lo <= port <= hi:
            return True
    return False


def _describe_ports(ports: list | None) -> str:
    if not ports:
        return "any port"
    parts = []
    for p in ports:
        proto = p.get("protocol") or "TCP"
        if p.get("port") is None:
            parts.append(f"any {proto} port")
        elif p.get("endPort"):
            parts.append(f"{p['port']}-{p['endPort']}/{proto}")
        else:
            parts.append(f"{p['port']}/{proto}")
    return ", ".join(parts)


def _describe_peer(peer: dict) -> str:
    from kubesim.api.selectors import from_label_selector

    def sel(s):
        try:
            text = str(from_label_selector(s))
        except ValueError:
            text = "?"
        return text or "<any>"

    if peer.get("ipBlock") is not None:
        b = peer["ipBlock"]
        ex = b.get("except") or []
        return f"ipBlock {b.get('cidr', '')}" + (f" except {', '.join(ex)}" if ex else "")
    bits = []
    if peer.get("namespaceSelector") is not None:
        bits.append(f"namespaceSelector {sel(peer['namespaceSelector'])}")
    if peer.get("podSelector") is not None:
        bits.append(f"podSelector {sel(peer['podSelector'])}")
    return " and ".join(bits)


def evaluate(snap: Snapshot, pod: dict, direction: str, other: dict | None, other_ip: str, port: int,
             protocol: str, dst_pod: dict | None) -> tuple[bool, list[PolicyVerdict]]:
    """Whether ``pod``'s policies in ``direction`` let the connection through, with each
    selecting policy's verdict. ``other`` is the peer pod (None for a plain IP), ``dst_pod``
    the pod whose named ports name the destination port."""
    policies = selecting(snap, pod, direction)
    if not policies:
        return True, []
    verdicts = []
    key, peers_key = ("ingress", "from") if direction == INGRESS else ("egress", "to")
    for p in policies:
        ns = md(p).get("namespace", "")
        rules = (p.get("spec") or {}).get(key) or []
        allowed_by = None
        for i, rule in enumerate(rules):
            peers = rule.get(peers_key)
            peer_ok = not peers or any(peer_matches(snap, peer, ns, other, other_ip) for peer in peers)
            if peer_ok and port_matches(rule.get("ports"), port, protocol, dst_pod):
                who = "any peer" if not peers else " or ".join(_describe_peer(x) for x in peers)
                allowed_by = f"{key} rule {i + 1} allows {who} on {_describe_ports(rule.get('ports'))}"
                break
        if allowed_by:
            verdicts.append(PolicyVerdict(ns, md(p).get("name", ""), True, allowed_by))
        elif not rules:
            verdicts.append(PolicyVerdict(ns, md(p).get("name", ""), False,
                                          f"selects the pod for {direction} and has no {key} rules: denies all"))
        else:
            verdicts.append(PolicyVerdict(ns, md(p).get("name", ""), False,
                                          f"none of its {len(rules)} {key} rule(s) matches "
                                          f"{'this peer' if other is not None or other_ip else 'it'} on {port}/{protocol}"))
    return any(v.allowed for v in verdicts), verdicts
