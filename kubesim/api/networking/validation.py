"""networking.k8s.io/v1 validation, as the registry strategies run it.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/networking/validation/validation.go``:

- NetworkPolicy: ``ValidateNetworkPolicy`` / ``ValidateNetworkPolicySpec`` (the pod selector,
  ``ValidateNetworkPolicyPort``: protocol, port number or name, ``endPort``;
  ``ValidateNetworkPolicyPeer``: exactly one kind of peer when one is an ipBlock;
  ``ValidateIPBlock``: ``IsValidCIDRForLegacyField`` with StrictIPCIDRValidation off, as it is
  by default in v1.35, and every except a strict subset of the cidr; at most two policyTypes),
  ``ValidateNetworkPolicyUpdate`` and ``ValidationOptionsForNetworking`` (an update may keep an
  invalid label value its old pod selector had, and any CIDR the old policy had).

The CIDR checks are ``ParseCIDRSloppy``'s (``kubesim.api.meta.validation.is_valid_cidr``):
leading zeros in an IPv4 address are accepted. The warnings upstream's strategy returns for
ambiguous or non-standard CIDRs are not printed by kubesim.
"""

from __future__ import annotations

import ipaddress

from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    _parse_ip_sloppy,
    is_valid_cidr,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

PROTOCOLS = ["TCP", "UDP", "SCTP"]
POLICY_TYPES = ["Ingress", "Egress"]


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


# -- NetworkPolicy -------------------------------------------------------------------------

def validate_network_policy_port(port: dict, path: str) -> list[FieldError]:
    """ValidateNetworkPolicyPort."""
    errs: list[FieldError] = []
    proto = port.get("protocol")
    if proto is not None and proto not in PROTOCOLS:
        errs.append(unsupported(f"{path}.protocol", proto, PROTOCOLS))
    p, end = port.get("port"), port.get("endPort")
    if p is not None:
        if isinstance(p, int) and not isinstance(p, bool):
            errs.extend(invalid(f"{path}.port", p, m) for m in is_valid_port_num(p))
            if end is not None:
                if end < p:
                    errs.append(invalid(f"{path}.endPort", p, "must be greater than or equal to `port`"))
                errs.extend(invalid(f"{path}.endPort", end, m) for m in is_valid_port_num(end))
        else:
            if end is not None:
                errs.append(invalid(f"{path}.endPort", end, "may not be specified when `port` is non-numeric"))
            errs.extend(invalid(f"{path}.port", str(p), m) for m in is_valid_port_name(str(p)))
    elif end is not None:
        errs.append(invalid(f"{path}.endPort", end, "may not be specified when `port` is not specified"))
    return errs


def parse_cidr_sloppy(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """netutils.ParseCIDRSloppy's network (host bits cleared), None when it does not parse."""
    ip, _, bits = value.partition("/")
    if not bits.isdigit() or not bits.isascii():
        return None
    try:
        return ipaddress.ip_network(f"{_parse_ip_sloppy(ip)}/{int(bits)}", strict=False)
    except ValueError:
        return None


def validate_ip_block(ipb: dict, path: str, allowed_cidrs: tuple[str, ...] = ()) -> list[FieldError]:
    """ValidateIPBlock."""
    cidr = ipb.get("cidr") or ""
    if not cidr:
        return [required(f"{path}.cidr", "")]
    errs = [] if cidr in allowed_cidrs else is_valid_cidr(f"{path}.cidr", cidr)
    net = parse_cidr_sloppy(cidr)
    if net is None:
        return errs
    for i, exc in enumerate(_list(ipb.get("except"))):
        epath = f"{path}.except[{i}]"
        exc = exc if isinstance(exc, str) else str(exc)
        if exc not in allowed_cidrs:
            errs.extend(is_valid_cidr(epath, exc))
        enet = parse_cidr_sloppy(exc)
        if enet is None:
            continue
        contains = enet.version == net.version and enet.network_address in net
        if not contains or net.prefixlen >= enet.prefixlen:
            errs.append(invalid(epath, exc, "must be a strict subset of `cidr`"))
    return errs


def validate_network_policy_peer(peer: dict, path: str, allow_invalid_values: bool,
                                 allowed_cidrs: tuple[str, ...]) -> list[FieldError]:
    """ValidateNetworkPolicyPeer."""
    errs: list[FieldError] = []
    n = 0
    for key in ("podSelector", "namespaceSelector"):
        if peer.get(key) is not None:
            n += 1
            errs += validate_label_selector(peer[key], f"{path}.{key}", allow_invalid_values)
    if peer.get("ipBlock") is not None:
        n += 1
        errs += validate_ip_block(_dict(peer["ipBlock"]), f"{path}.ipBlock", allowed_cidrs)
    if n == 0:
        errs.append(required(path, "must specify a peer"))
    elif n > 1 and peer.get("ipBlock") is not None:
        errs.append(forbidden(path, "may not specify both ipBlock and another peer"))
    return errs


def validate_network_policy_spec(spec: dict, path: str = "spec", allow_invalid_values: bool = False,
                                 allowed_cidrs: tuple[str, ...] = ()) -> list[FieldError]:
    """ValidateNetworkPolicySpec."""
    errs = validate_label_selector(_dict(spec.get("podSelector")), f"{path}.podSelector", allow_invalid_values)
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(_list(spec.get(direction))):
            rule = _dict(rule)
            rpath = f"{path}.{direction}[{i}]"
            for j, port in enumerate(_list(rule.get("ports"))):
                errs += validate_network_policy_port(_dict(port), f"{rpath}.ports[{j}]")
            for j, peer in enumerate(_list(rule.get(peers))):
                errs += validate_network_policy_peer(_dict(peer), f"{rpath}.{peers}[{j}]", allow_invalid_values,
                                                     allowed_cidrs)
    types = _list(spec.get("policyTypes"))
    if len(types) > len(POLICY_TYPES):
        errs.append(invalid(f"{path}.policyTypes", GoJSON(types), "may not specify more than two policyTypes"))
        return errs
    for i, t in enumerate(types):
        if t not in POLICY_TYPES:
            errs.append(unsupported(f"{path}.policyTypes[{i}]", t, POLICY_TYPES))
    return errs


def validate_network_policy(np: dict, allow_invalid_values: bool = False) -> list[FieldError]:
    """ValidateNetworkPolicy."""
    errs = validate_object_meta(np.get("metadata") or {}, True, name_is_dns_subdomain)
    errs += validate_network_policy_spec(_dict(np.get("spec")), "spec", allow_invalid_values)
    return errs


def _old_cidrs(old: dict) -> tuple[str, ...]:
    spec = _dict(old.get("spec"))
    out: list[str] = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in _list(spec.get(direction)):
            for peer in _list(_dict(rule).get(peers)):
                ipb = _dict(_dict(peer).get("ipBlock"))
                if ipb:
                    out.append(ipb.get("cidr") or "")
                    out.extend(str(e) for e in _list(ipb.get("except")))
    return tuple(out)


def validate_network_policy_update(new: dict, old: dict) -> list[FieldError]:
    """The strategy's ValidateUpdate: ValidateNetworkPolicy, then ValidateNetworkPolicyUpdate
    (the server drops the errors the second pass repeats)."""
    allow = bool(validate_label_selector(_dict(_dict(old.get("spec")).get("podSelector")), "x"))
    errs = validate_network_policy(new, allow)
    errs += validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_network_policy_spec(_dict(new.get("spec")), "spec", allow, _old_cidrs(old))
    return errs
