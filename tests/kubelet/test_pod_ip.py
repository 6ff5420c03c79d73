"""The pod IP (kubesim.kubelet.pods.allocate_ip): the first address of the node's podCIDR
after the network and gateway addresses that no pod of the node holds, as host-local IPAM
hands them out; the last address (broadcast) is never given. IPv4 addresses are written from
their integer; each case is checked against ``ipaddress``'s own text."""

from __future__ import annotations

import ipaddress

import pytest

from kubesim.kubelet.pods import allocate_ip


def _by_ipaddress(node: dict, pods: list[dict]) -> str:
    cidr = (node.get("spec") or {}).get("podCIDR")
    if not cidr:
        return ""
    net = ipaddress.ip_network(cidr, strict=False)
    used = {(p.get("status") or {}).get("podIP") for p in pods}
    for i in range(2, net.num_addresses - 1):
        if str(net.network_address + i) not in used:
            return str(net.network_address + i)
    return ""


CIDRS = [
    ("a /24", "10.244.0.0/24", "10.244.0.2"),
    ("a /24 high in its /16", "10.244.255.0/24", "10.244.255.2"),
    ("a /25 in the upper half", "192.168.1.128/25", "192.168.1.130"),
    ("a /30: one address to give", "10.0.0.0/30", "10.0.0.2"),
    ("a /31: none", "10.0.0.0/31", ""),
    ("a /32: none", "10.0.0.4/32", ""),
    ("the top of the address space", "255.255.255.0/24", "255.255.255.2"),
    ("host bits set (not strict)", "10.1.2.3/24", "10.1.2.2"),
    ("IPv6", "fd00::/120", "fd00::2"),
    ("no podCIDR", None, ""),
]


@pytest.mark.parametrize("cidr, first", [c[1:] for c in CIDRS], ids=[c[0] for c in CIDRS])
def test_the_pod_ip_is_the_first_free_address_of_the_node_cidr(cidr, first):
    node = {"spec": {"podCIDR": cidr}} if cidr else {"spec": {}}
    assert allocate_ip(node, []) == first
    held: list[dict] = []
    for _ in range(5):  # each address given is held by the next pod's neighbours
        ip = allocate_ip(node, held)
        assert ip == _by_ipaddress(node, held)
        held.append({"status": {"podIP": ip}})
    # a hole left by a pod that went is given again first
    if len(held) > 2 and held[1]["status"]["podIP"]:
        rest = held[:1] + held[2:]
        assert allocate_ip(node, rest) == held[1]["status"]["podIP"] == _by_ipaddress(node, rest)


@pytest.mark.parametrize("cidr", [
    "10.244.3.0/24", "10.1.2.3/8", "0.0.0.0/0", "255.255.255.255/32", "192.168.1.200/25", "10.0.0.0/31",
    "01.2.3.4/24", "1.2.3.4/024", "1.2.3.4/33", "1.2.3.256/24", "1.2.3/24", "1.2.3.4", " 1.2.3.4/24",
    "1.2.3.4/24 ", "1.2.3.4/", "/24", "1..3.4/24", "1.2.3.4/+4", "1.2.3.4/-1", "\u0661.2.3.4/24",
    "1.2.3.4/255.255.255.0", "fd00::/64", "1000.2.3.4/8",
])
def test_a_plain_ipv4_cidr_is_read_as_ip_network_reads_it(cidr):
    """The direct reading of ``a.b.c.d/n`` (``_ipv4_network``) gives what ``ip_network``
    gives, and leaves every other text to it (None)."""
    from kubesim.kubelet.pods import _ipv4_network

    try:
        net = ipaddress.ip_network(cidr, strict=False)
        want = (net.version, int(net.network_address), net.num_addresses)
    except ValueError:
        want = None
    got = _ipv4_network(cidr)
    assert got is None or got == want
    plain = cidr in ("10.244.3.0/24", "10.1.2.3/8", "0.0.0.0/0", "255.255.255.255/32", "192.168.1.200/25",
                     "10.0.0.0/31")
    assert (got is not None) == plain
