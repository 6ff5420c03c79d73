"""Pod networking and image references for the simulated kubelet (the pod lifecycle itself is
kubesim.kubelet.pod_workers): a pod's IP comes from its node's podCIDR, as the CNI's host-local
IPAM hands them out, and images resolve to the references containerd reports
(``docker.io/library/nginx:latest`` and a ``repo@sha256:...`` image ID).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress


@functools.lru_cache(maxsize=4096)
def image_ref(image: str) -> tuple[str, str]:
    """(status.image, status.imageID) as containerd reports them for a reference (pure: kept
    per reference, which every container status and image check of a command asks again)."""
    name = image
    if "@" not in name:
        last = name.rsplit("/", 1)[-1]
        if ":" not in last:
            name += ":latest"
    first = name.split("/", 1)[0]
    if "/" not in name or ("." not in first and ":" not in first and first != "localhost"):
        name = "docker.io/" + ("library/" + name if "/" not in name else name)
    repo = name.split("@")[0].rsplit(":", 1)[0] if "@" not in name else name.split("@")[0]
    digest = hashlib.sha256(name.encode()).hexdigest()
    return name, f"{repo}@sha256:{digest}"


def allocate_ip(node: dict, pods_on_node: list[dict]) -> str:
    """The lowest address of the node's podCIDR after the network address and the gateway
    (.1) that none of ``pods_on_node`` holds, as host-local IPAM hands them out ("" when the
    node has no podCIDR or none is free)."""
    cidr = (node.get("spec") or {}).get("podCIDR")
    if not cidr:
        return ""
    version, base, size = _network(cidr)
    used = {(p.get("status") or {}).get("podIP") for p in pods_on_node}
    text = _dotted_quad if version == 4 else _ipv6_text
    for i in range(2, size - 1):
        if (ip := text(base + i)) not in used:
            return ip
    return ""


def _dotted_quad(x: int) -> str:
    """``str(IPv4Address(x))`` without making one (a candidate address per pod admitted)."""
    return f"{x >> 24}.{(x >> 16) & 255}.{(x >> 8) & 255}.{x & 255}"


def _ipv6_text(x: int) -> str:
    return str(ipaddress.IPv6Address(x))


@functools.lru_cache(maxsize=1024)
def _network(cidr: str) -> tuple[int, int, int]:
    """(IP version, network address, number of addresses) of a CIDR; the number from the
    prefix length (``num_addresses`` makes the broadcast address: most of the cost). A plain
    IPv4 CIDR (``10.244.3.0/24``) is read directly: each of a big cluster's nodes has its own,
    and ``ip_network`` takes longer than the rest of a pod's address."""
    fast = _ipv4_network(cidr) if type(cidr) is str else None
    if fast is not None:
        return fast
    net = ipaddress.ip_network(cidr, strict=False)
    return net.version, int(net.network_address), 1 << (net.max_prefixlen - net.prefixlen)


def _ipv4_network(cidr: str) -> tuple[int, int, int] | None:
    """``_network`` of ``a.b.c.d/n`` written canonically (decimal octets up to 255 without
    leading zeros, a prefix up to 32), as ``ip_network(cidr, strict=False)`` reads it; None
    for anything else (``ip_network`` reads it, or refuses it)."""
    address, sep, prefix = cidr.partition("/")
    if not sep or not _canonical_number(prefix, 32):
        return None
    octets = address.split(".")
    if len(octets) != 4 or not all(_canonical_number(o, 255) for o in octets):
        return None
    length = int(prefix)
    value = (int(octets[0]) << 24) | (int(octets[1]) << 16) | (int(octets[2]) << 8) | int(octets[3])
    mask = ((1 << length) - 1) << (32 - length)
    return 4, value & mask, 1 << (32 - length)


def _canonical_number(text: str, top: int) -> bool:
    return 0 < len(text) <= 3 and text.isascii() and text.isdigit() and (text == "0" or text[0] != "0") \
        and int(text) <= top
