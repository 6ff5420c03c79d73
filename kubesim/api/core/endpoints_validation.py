"""Endpoints validation.

Upstream: pkg/apis/core/validation/validation.go (v1.35) ``ValidateEndpointsCreate``,
``ValidateEndpointsUpdate``, ``ValidateEndpoints`` (an update that leaves the subsets as they
were is not re-checked), ``validateEndpointSubsets``, ``validateEndpointAddress``,
``ValidateEndpointIP`` and ``validateEndpointPort``. Not modelled: the
``endpoints.kubernetes.io/last-change-trigger-time`` annotation's format.
"""

from __future__ import annotations

from kubesim.api.core.service_validation import SUPPORTED_PORT_PROTOCOLS, parse_ip
from kubesim.api.meta.validation import (
    is_dns1123_label,
    is_valid_ip,
    is_valid_port_num,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, invalid, required, unsupported


def validate_endpoint_ip(ip: str, path: str) -> list[FieldError]:
    """ValidateEndpointIP: no unspecified, loopback or link-local address."""
    a = parse_ip(ip)
    if a is None:
        return [invalid(path, ip, "must be a valid IP address")]
    errs = []
    if a.is_unspecified:
        errs.append(invalid(path, ip, f"may not be unspecified ({ip})"))
    if a.is_loopback:
        errs.append(invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if a.is_link_local and not a.is_multicast:
        errs.append(invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if a.is_multicast and (str(a).startswith("224.0.0.") or str(a).startswith("ff02:")):
        errs.append(invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def validate_endpoint_port(port: dict, require_name: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        errs.append(required(f"{path}.name"))
    elif name:
        errs.extend(invalid(f"{path}.name", name, m) for m in is_dns1123_label(name))
    p = int(port.get("port") or 0)
    errs.extend(invalid(f"{path}.port", p, m) for m in is_valid_port_num(p))
    proto = port.get("protocol") or ""
    if not proto:
        errs.append(required(f"{path}.protocol"))
    elif proto not in SUPPORTED_PORT_PROTOCOLS:
        errs.append(unsupported(f"{path}.protocol", proto, SUPPORTED_PORT_PROTOCOLS))
    return errs


def _validate_address(addr: dict, path: str) -> list[FieldError]:
    ip = str(addr.get("ip") or "")
    errs = is_valid_ip(f"{path}.ip", ip)
    if addr.get("hostname"):
        errs.extend(invalid(f"{path}.hostname", addr["hostname"], m) for m in is_dns1123_label(addr["hostname"]))
    if addr.get("nodeName") is not None:
        errs.extend(invalid(f"{path}.nodeName", addr["nodeName"], m)
                    for m in name_is_dns_subdomain(addr["nodeName"], False))
    return errs + validate_endpoint_ip(ip, f"{path}.ip")


def validate_endpoint_subsets(subsets: list, path: str = "subsets") -> list[FieldError]:
    errs: list[FieldError] = []
    for i, ss in enumerate(subsets or []):
        ss = ss if isinstance(ss, dict) else {}
        p = f"{path}[{i}]"
        if not ss.get("addresses") and not ss.get("notReadyAddresses"):
            errs.append(required(p, "must specify `addresses` or `notReadyAddresses`"))
        for j, a in enumerate(ss.get("addresses") or []):
            errs.extend(_validate_address(a or {}, f"{p}.addresses[{j}]"))
        for j, a in enumerate(ss.get("notReadyAddresses") or []):
            errs.extend(_validate_address(a or {}, f"{p}.notReadyAddresses[{j}]"))
        ports = ss.get("ports") or []
        for j, port in enumerate(ports):
            errs.extend(validate_endpoint_port(port or {}, len(ports) > 1, f"{p}.ports[{j}]"))
    return errs


def _validate(ep: dict, old: dict | None) -> list[FieldError]:
    errs = validate_object_meta(ep.get("metadata"), True, name_is_dns_subdomain)
    sub = validate_endpoint_subsets(ep.get("subsets") or [])
    if sub and old is not None and (old.get("subsets") or []) == (ep.get("subsets") or []):
        sub = []
    return errs + sub


def validate_endpoints(ep: dict) -> list[FieldError]:
    return _validate(ep, None)


def validate_endpoints_update(new: dict, old: dict) -> list[FieldError]:
    return validate_object_meta_update(new.get("metadata"), old.get("metadata")) + _validate(new, old)
