"""EndpointSlice validation.

Upstream: pkg/apis/discovery/validation/validation.go (v1.35) ``ValidateEndpointSliceCreate``,
``ValidateEndpointSliceUpdate`` (addressType immutable; endpoints left as they were are not
re-checked), ``validateEndpoints``, ``validatePorts`` and ``validateAddressType``. Not
modelled: the hints' limits.
"""

from __future__ import annotations

from kubesim.api.core.endpoints_validation import validate_endpoint_ip
from kubesim.api.core.service_validation import SUPPORTED_PORT_PROTOCOLS
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    is_dns1123_label,
    is_valid_ip,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, duplicate, invalid, required, unsupported

SUPPORTED_ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
MAX_ENDPOINTS = 1000
MAX_ADDRESSES = 100


def _validate_endpoints(endpoints: list, addr_type: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(endpoints) > MAX_ENDPOINTS:
        return [FieldError("endpoints", "Too many", f"must have at most {MAX_ENDPOINTS} items", len(endpoints), True)]
    for i, ep in enumerate(endpoints):
        ep = ep if isinstance(ep, dict) else {}
        path = f"endpoints[{i}].addresses"
        addrs = ep.get("addresses") or []
        if not addrs:
            errs.append(required(path, "must contain at least 1 address"))
        for j, a in enumerate(addrs):
            a = str(a)
            if addr_type in ("IPv4", "IPv6"):
                e = is_valid_ip(f"{path}[{j}]", a)
                if e:
                    errs.extend(e)
                    continue
                if (addr_type == "IPv4") == (":" in a):
                    errs.append(invalid(path, a, f"must be an {addr_type} address"))
                errs.extend(validate_endpoint_ip(a, f"{path}[{j}]"))
        if ep.get("nodeName") is not None:
            errs.extend(invalid(f"endpoints[{i}].nodeName", ep["nodeName"], m)
                        for m in name_is_dns_subdomain(ep["nodeName"], False))
        if ep.get("hostname") is not None:
            errs.extend(invalid(f"endpoints[{i}].hostname", ep["hostname"], m) for m in is_dns1123_label(ep["hostname"]))
    return errs


def _validate_ports(ports: list) -> list[FieldError]:
    errs: list[FieldError] = []
    names: list[str] = []
    for i, p in enumerate(ports):
        p = p if isinstance(p, dict) else {}
        name = p.get("name") or ""
        if name:
            errs.extend(invalid(f"ports[{i}].name", name, m) for m in is_dns1123_label(name))
        if name in names:
            errs.append(duplicate(f"ports[{i}].name", name))
        else:
            names.append(name)
        proto = p.get("protocol")
        if proto is None:
            errs.append(required(f"ports[{i}].protocol"))
        elif proto not in SUPPORTED_PORT_PROTOCOLS:
            errs.append(unsupported(f"ports[{i}].protocol", proto, SUPPORTED_PORT_PROTOCOLS))
    return errs


def _validate(eps: dict, old: dict | None) -> list[FieldError]:
    errs = validate_object_meta(eps.get("metadata"), True, name_is_dns_subdomain)
    at = eps.get("addressType") or ""
    if not at:
        errs.append(required("addressType"))
    elif at not in SUPPORTED_ADDRESS_TYPES:
        errs.append(unsupported("addressType", at, SUPPORTED_ADDRESS_TYPES))
    errs.extend(_validate_ports(eps.get("ports") or []))
    e = _validate_endpoints(eps.get("endpoints") or [], at)
    if e and old is not None and (old.get("endpoints") or []) == (eps.get("endpoints") or []):
        e = []
    return errs + e


def validate_endpoint_slice(eps: dict) -> list[FieldError]:
    return _validate(eps, None)


def validate_endpoint_slice_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata")) + _validate(new, old)
    if new.get("addressType") != old.get("addressType"):
        errs.append(invalid("addressType", new.get("addressType") or "", FIELD_IMMUTABLE_ERROR))
    return errs
