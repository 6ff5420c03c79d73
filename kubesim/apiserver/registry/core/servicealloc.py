"""The Service REST storage's allocators: cluster IPs from the service CIDR, node ports from the
node-port range, and the IP-family fields a v1.35 single-stack IPv4 cluster fills in.

Upstream: pkg/registry/core/service/storage/alloc.go (``allocateCreate``, ``allocateUpdate``,
``initIPFamilyFields``, ``allocClusterIPs``, ``initNodePorts``, ``updateNodePorts``,
``allocHealthCheckNodePort``) and storage.go (``beginCreate``, ``beginUpdate``,
``normalizeClusterIPs``, ``patchAllocatedValues``); the allocators of
pkg/registry/core/service/ipallocator (ipallocator.go: a random address of the upper,
dynamic part of the range first, then of the lower, static part; interfaces.go's errors) and
portallocator (allocator.go, ``calculateRangeOffset``).

The cluster is kubeadm's: ``--service-cluster-ip-range=10.96.0.0/12`` (IPv4 only) and the
default ``--service-node-port-range=30000-32767``. What is allocated is what the stored Services
hold (upstream keeps it in IPAddress objects and a port bitmap, which its repair loops rebuild
from the Services): so a deleted Service, or one that changes type, has released its IP and
ports for the next command. Draws come from the command's random source, so they repeat under
``KUBESIM_SEED``.
"""

from __future__ import annotations

import ipaddress

from kubesim.api.core.service_validation import (
    CLUSTER_IP_NONE,
    needs_health_check,
    parse_ip,
    spec_of,
    validate_service_cluster_ips_related_fields,
)
from kubesim.api.gojson import GoJSON
from kubesim.errors import FieldError, Invalid, invalid

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORT_RANGE = (30000, 32767)
DEFAULT_IP_FAMILY = "IPv4"

ERR_IP_ALLOCATED = "provided IP is already allocated"
ERR_MISMATCHED_NETWORK = "the provided network does not match the current range"
ERR_PORT_ALLOCATED = "provided port is already allocated"


def err_port_not_in_range() -> str:
    lo, hi = NODE_PORT_RANGE
    return f"provided port is not in the valid range. The range of valid ports is {lo}-{hi}"


def calculate_ip_range_offset(size: int) -> int:
    """ipallocator's calculateRangeOffset: min(max(16, size/16), 256)."""
    if size <= 16:
        return 0
    return max(16, min(size // 16, 256))


def calculate_port_range_offset(size: int) -> int:
    """portallocator's calculateRangeOffset: min(max(16, size/32), 128)."""
    if size <= 16:
        return 0
    return max(16, min(size // 32, 128))


# -- what is taken ------------------------------------------------------------------------------

def _others(services: list[dict], svc: dict) -> list[dict]:
    md = svc.get("metadata") or {}
    key = (md.get("namespace", ""), md.get("name", ""))
    return [s for s in services if ((s.get("metadata") or {}).get("namespace", ""),
                                    (s.get("metadata") or {}).get("name", "")) != key]


def allocated_ips(services: list[dict]) -> set:
    out = set()
    for s in services:
        for ip in spec_of(s).get("clusterIPs") or []:
            a = parse_ip(ip)
            if a is not None:
                out.add(a)
    return out


def allocated_node_ports(services: list[dict]) -> set[int]:
    out: set[int] = set()
    for s in services:
        spec = spec_of(s)
        for p in spec.get("ports") or []:
            if isinstance(p, dict) and p.get("nodePort"):
                out.add(int(p["nodePort"]))
        if spec.get("healthCheckNodePort"):
            out.add(int(spec["healthCheckNodePort"]))
    return out


# -- the allocators ------------------------------------------------------------------------------

class IPAllocator:
    """One IPv4 service CIDR (ipallocator.Allocator): neither the network's address nor its
    broadcast address is handed out."""

    def __init__(self, taken: set, rng, cidr=SERVICE_CIDR):
        self.cidr = cidr
        self.taken = set(taken)
        self.rng = rng
        self.first = int(cidr.network_address) + 1
        self.last = int(cidr.broadcast_address) - 1
        self.offset = calculate_ip_range_offset(cidr.num_addresses)

    def allocate(self, ip) -> str | None:
        """Allocate: None when reserved, else the error's text."""
        if ip.version != self.cidr.version or ip not in self.cidr:
            return ERR_MISMATCHED_NETWORK
        if not self.first <= int(ip) <= self.last:
            return f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {self.cidr}"
        if ip in self.taken:
            return ERR_IP_ALLOCATED
        self.taken.add(ip)
        return None

    def allocate_next(self):
        """AllocateNextService: from a random address of the upper range, then of the lower."""
        dyn_first = self.first + self.offset
        for lo, hi in ((dyn_first, self.last), (self.first, dyn_first - 1)):
            size = hi - lo + 1
            if size <= 0:
                continue
            start = self.rng.randrange(size)
            for i in range(size):
                ip = ipaddress.ip_address(lo + (start + i) % size)
                if ip not in self.taken:
                    self.taken.add(ip)
                    return ip
        return None


class PortAllocator:
    """The node-port range (portallocator.PortAllocator over a bitmap with a static band)."""

    def __init__(self, taken: set[int], rng, port_range=NODE_PORT_RANGE):
        self.base, self.top = port_range
        self.taken = set(taken)
        self.rng = rng
        self.offset = calculate_port_range_offset(self.top - self.base + 1)

    def allocate(self, port: int) -> str | None:
        if not self.base <= port <= self.top:
            return err_port_not_in_range()
        if port in self.taken:
            return ERR_PORT_ALLOCATED
        self.taken.add(port)
        return None

    def allocate_next(self) -> int | None:
        dyn = self.base + self.offset
        for lo, hi in ((dyn, self.top), (self.base, dyn - 1)):
            size = hi - lo + 1
            if size <= 0:
                continue
            start = self.rng.randrange(size)
            for i in range(size):
                p = lo + (start + i) % size
                if p not in self.taken:
                    self.taken.add(p)
                    return p
        return None


# -- storage.go -------------------------------------------------------------------------------------

def _name(svc: dict) -> str:
    return (svc.get("metadata") or {}).get("name", "")


def normalize_cluster_ips(new: dict, old: dict | None) -> None:
    """normalizeClusterIPs: keep clusterIP and clusterIPs in step for a client that sets one."""
    spec = spec_of(new)
    cip = spec.get("clusterIP") or ""
    cips = spec.get("clusterIPs") or []
    if old is None:
        if cip and not cips:
            spec["clusterIPs"] = [cip]
        return
    ospec = spec_of(old)
    if ospec.get("clusterIPs") and not cips and (ospec.get("clusterIP") or "") == cip:
        spec["clusterIPs"] = list(ospec["clusterIPs"])
    if (ospec.get("clusterIP") or "") != cip:
        # alloc.go's sameClusterIPs: the plural field only
        same = list(ospec.get("clusterIPs") or []) == list(spec.get("clusterIPs") or [])
        if ospec.get("clusterIP") and not cip:
            if same:
                spec.pop("clusterIPs", None)
        elif same:
            spec["clusterIPs"] = [cip]


def _same_cluster_ips(old: dict, new: dict) -> bool:
    o, n = spec_of(old), spec_of(new)
    return (o.get("clusterIP") or "") == (n.get("clusterIP") or "") and \
        list(o.get("clusterIPs") or []) == list(n.get("clusterIPs") or [])


def needs_cluster_ip(svc: dict) -> bool:
    return spec_of(svc).get("type") != "ExternalName"


def needs_node_port(svc: dict) -> bool:
    """storage.go's needsNodePort (a LoadBalancer that allocates node ports)."""
    spec = spec_of(svc)
    t = spec.get("type")
    return t == "NodePort" or (t == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") in (None, True))


def _ports(svc: dict) -> list[dict]:
    return [p for p in spec_of(svc).get("ports") or [] if isinstance(p, dict)]


def patch_allocated_values(new: dict, old: dict) -> None:
    """patchAllocatedValues: an update that leaves out what was allocated keeps it."""
    spec, ospec = spec_of(new), spec_of(old)
    if needs_cluster_ip(old) and needs_cluster_ip(new):
        if not spec.get("clusterIP") and ospec.get("clusterIP"):
            spec["clusterIP"] = ospec["clusterIP"]
        if not spec.get("clusterIPs") and ospec.get("clusterIPs"):
            spec["clusterIPs"] = list(ospec["clusterIPs"])
    if needs_node_port(old) and needs_node_port(new):
        def used(s):
            return {int(p["nodePort"]) for p in _ports(s) if p.get("nodePort")}
        both = used(old) & used(new)
        by_name = {p.get("name", ""): int(p.get("nodePort") or 0) for p in _ports(old)}
        for p in _ports(new):
            if not p.get("nodePort"):
                v = by_name.get(p.get("name", ""), 0)
                if v and v not in both:
                    p["nodePort"] = v
    if needs_health_check(old) and needs_health_check(new) and not spec.get("healthCheckNodePort") \
            and ospec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = ospec["healthCheckNodePort"]


def init_ip_family_fields(svc: dict, old: dict | None) -> None:
    """initIPFamilyFields on a single-stack IPv4 cluster. Raises Invalid."""
    spec = spec_of(svc)
    if spec.get("type") == "ExternalName":
        return
    if spec.get("ipFamilyPolicy") is None:
        if old is not None and spec_of(old).get("ipFamilyPolicy") is not None:
            spec["ipFamilyPolicy"] = spec_of(old)["ipFamilyPolicy"]
        elif spec.get("clusterIP") == CLUSTER_IP_NONE and not spec.get("selector"):
            spec["ipFamilyPolicy"] = "RequireDualStack"
        else:
            spec["ipFamilyPolicy"] = "SingleStack"
    errs = validate_service_cluster_ips_related_fields(svc, old)
    if errs:
        raise Invalid("Service", _name(svc), errs)
    errs = []
    policy = spec["ipFamilyPolicy"]
    if policy == "SingleStack":
        if len(spec.get("clusterIPs") or []) == 2:
            errs.append(invalid("spec.ipFamilyPolicy", policy,
                                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
        if len(spec.get("ipFamilies") or []) == 2:
            errs.append(invalid("spec.ipFamilyPolicy", policy,
                                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
    for i, ip in enumerate(spec.get("clusterIPs") or []):
        if ip == CLUSTER_IP_NONE:
            break
        fam = "IPv6" if ":" in str(ip) else "IPv4"
        if i >= len(spec.get("ipFamilies") or []):
            if fam != DEFAULT_IP_FAMILY:
                errs.append(invalid(f"spec.clusterIPs[{i}]", GoJSON(list(spec["clusterIPs"])),
                                    f"{fam} is not configured on this cluster"))
            else:
                spec.setdefault("ipFamilies", []).append(fam)
    if errs:
        raise Invalid("Service", _name(svc), errs)
    if spec.get("clusterIP") == CLUSTER_IP_NONE and not spec.get("selector"):
        if not spec.get("ipFamilies"):
            spec["ipFamilies"] = [DEFAULT_IP_FAMILY]
        if len(spec["ipFamilies"]) < 2 and spec["ipFamilyPolicy"] != "SingleStack":
            spec["ipFamilies"].append("IPv6" if spec["ipFamilies"][0] == "IPv4" else "IPv4")
        return
    if policy == "RequireDualStack":
        errs.append(invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services"))
    for i, fam in enumerate(spec.get("ipFamilies") or []):
        if fam != DEFAULT_IP_FAMILY:
            errs.append(invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
    if errs:
        raise Invalid("Service", _name(svc), errs)
    if not spec.get("ipFamilies"):
        spec["ipFamilies"] = [DEFAULT_IP_FAMILY]


def _alloc_cluster_ips(svc: dict, ips: IPAllocator) -> None:
    """allocClusterIPs: a requested IP is reserved, an empty one drawn."""
    spec = spec_of(svc)
    if spec.get("type") == "ExternalName":
        return
    cips = spec.get("clusterIPs") or []
    if cips and cips[0] == CLUSTER_IP_NONE:
        return
    cips = list(cips)
    for i, _fam in enumerate(spec.get("ipFamilies") or []):
        if i >= len(cips):
            cips.append("")
        want = cips[i]
        if not want:
            got = ips.allocate_next()
            if got is None:
                from kubesim.errors import InternalError

                raise InternalError("failed to allocate a serviceIP: range is full")
            cips[i] = str(got)
            if i == 0:
                spec["clusterIP"] = cips[0]
        else:
            err = ips.allocate(parse_ip(want))
            if err is not None:
                raise Invalid("Service", _name(svc), [invalid("spec.clusterIPs", GoJSON(list(spec.get("clusterIPs") or [])),
                                                              f"failed to allocate IP {want}: {err}")])
    spec["clusterIPs"] = cips


def _should_allocate_node_ports(svc: dict) -> bool:
    spec = spec_of(svc)
    if spec.get("type") == "NodePort":
        return True
    if spec.get("type") == "LoadBalancer":
        return spec.get("allocateLoadBalancerNodePorts") in (None, True)
    return False


def _node_port_error(svc: dict, i: int, port: int, err: str) -> Invalid:
    return Invalid("Service", _name(svc), [invalid(f"spec.ports[{i}].nodePort", port, err)])


def _init_node_ports(svc: dict, ports: PortAllocator) -> None:
    """initNodePorts: ports sharing a port number share a node port."""
    by_port: dict[int, int] = {}
    plist = _ports(svc)
    for i, sp in enumerate(plist):
        np = int(sp.get("nodePort") or 0)
        if not np and not _should_allocate_node_ports(svc):
            continue
        port = int(sp.get("port") or 0)
        have = by_port.get(port, 0)
        if not have:
            want = next((int(p.get("nodePort") or 0) for p in plist
                         if int(p.get("port") or 0) == port and p.get("nodePort")), 0)
            if want:
                err = ports.allocate(want)
                if err is not None:
                    raise _node_port_error(svc, i, want, err)
                sp["nodePort"] = want
                by_port[port] = want
            else:
                got = ports.allocate_next()
                if got is None:
                    from kubesim.errors import InternalError

                    raise InternalError("failed to allocate a nodePort: range is full")
                sp["nodePort"] = got
                by_port[port] = got
        elif np != have:
            if not np:
                sp["nodePort"] = have
            else:
                err = ports.allocate(np)
                if err is not None:
                    raise _node_port_error(svc, i, np, err)


def _update_node_ports(new: dict, old: dict, ports: PortAllocator) -> None:
    """updateNodePorts: node ports the old service held stay its own."""
    old_ports = {int(p.get("nodePort") or 0) for p in _ports(old)} - {0}
    done: set[int] = set()
    for i, sp in enumerate(_ports(new)):
        np = int(sp.get("nodePort") or 0)
        if not np and not _should_allocate_node_ports(new):
            continue
        if np:
            if np not in old_ports and np not in done:
                err = ports.allocate(np)
                if err is not None:
                    raise _node_port_error(new, i, np, err)
                done.add(np)
        else:
            got = ports.allocate_next()
            if got is None:
                from kubesim.errors import InternalError

                raise InternalError("failed to allocate a nodePort: range is full")
            sp["nodePort"] = got


def _health_check_node_port(svc: dict, ports: PortAllocator, old: dict | None) -> None:
    spec = spec_of(svc)
    if not needs_health_check(svc):
        return
    hc = int(spec.get("healthCheckNodePort") or 0)
    if hc:
        if old is not None and hc == int(spec_of(old).get("healthCheckNodePort") or 0):
            return
        err = ports.allocate(hc)
        if err is not None:
            from kubesim.errors import InternalError

            raise InternalError(f"failed to allocate requested HealthCheck NodePort {hc}: {err}")
    else:
        got = ports.allocate_next()
        spec["healthCheckNodePort"] = got


def allocate_create(svc: dict, services: list[dict], rng) -> None:
    """beginCreate: normalizeClusterIPs, then allocateCreate. ``services`` are the stored ones."""
    normalize_cluster_ips(svc, None)
    init_ip_family_fields(svc, None)
    others = _others(services, svc)
    _alloc_cluster_ips(svc, IPAllocator(allocated_ips(others), rng))
    ports = PortAllocator(allocated_node_ports(others), rng)
    if spec_of(svc).get("type") in ("NodePort", "LoadBalancer"):
        _init_node_ports(svc, ports)
    _health_check_node_port(svc, ports, None)


def allocate_update(new: dict, old: dict, services: list[dict], rng) -> None:
    """beginUpdate: patchAllocatedValues, normalizeClusterIPs, then allocateUpdate."""
    patch_allocated_values(new, old)
    normalize_cluster_ips(new, old)
    init_ip_family_fields(new, old)
    others = _others(services, new)
    spec, ospec = spec_of(new), spec_of(old)
    # txnUpdateClusterIPs: only a service that gains cluster IPs (from ExternalName, or a
    # secondary family) allocates; the IPs it keeps are its own
    if needs_cluster_ip(new) and (not needs_cluster_ip(old) or not ospec.get("clusterIPs")):
        _alloc_cluster_ips(new, IPAllocator(allocated_ips(others), rng))
    ports = PortAllocator(allocated_node_ports(others), rng)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        _update_node_ports(new, old, ports)
    _health_check_node_port(new, ports, old)


def drop_type_dependent_fields(new: dict, old: dict) -> None:
    """strategy.go's dropTypeDependentFields: what a type change leaves behind goes, unless the
    update itself set it to something new."""
    spec, ospec = spec_of(new), spec_of(old)
    if needs_cluster_ip(old) and not needs_cluster_ip(new):
        if _same_cluster_ips(old, new):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if (ospec.get("ipFamilies") or None) == (spec.get("ipFamilies") or None):
            spec.pop("ipFamilies", None)
        if ospec.get("ipFamilyPolicy") == spec.get("ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    old_np = {int(p.get("nodePort") or 0) for p in _ports(old)} - {0}
    new_np = {int(p.get("nodePort") or 0) for p in _ports(new)} - {0}
    if ospec.get("type") in ("NodePort", "LoadBalancer") and spec.get("type") not in ("NodePort", "LoadBalancer") \
            and new_np <= old_np:
        for p in _ports(new):
            p.pop("nodePort", None)
    if needs_health_check(old) and not needs_health_check(new) and \
            spec.get("healthCheckNodePort") == ospec.get("healthCheckNodePort"):
        spec.pop("healthCheckNodePort", None)
    if ospec.get("type") == "LoadBalancer" and spec.get("type") != "LoadBalancer":
        a, b = spec.get("allocateLoadBalancerNodePorts"), ospec.get("allocateLoadBalancerNodePorts")
        if a is not None and b is not None and a == b:
            spec.pop("allocateLoadBalancerNodePorts", None)
        if ospec.get("loadBalancerClass") == spec.get("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    from kubesim.api.core.service_validation import externally_accessible

    if externally_accessible(old) and not externally_accessible(new) and \
            ospec.get("externalTrafficPolicy") == spec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    if spec.get("type") != "LoadBalancer":
        new.setdefault("status", {})["loadBalancer"] = {}


__all__ = ["FieldError", "allocate_create", "allocate_update", "drop_type_dependent_fields"]
