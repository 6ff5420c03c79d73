"""networking.k8s.io/v1 validation, as the registry strategies run it.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/networking/validation/validation.go``:

- NetworkPolicy: ``ValidateNetworkPolicy`` / ``ValidateNetworkPolicySpec`` (the pod selector,
  ``ValidateNetworkPolicyPort``: protocol, port number or name, ``endPort``;
  ``ValidateNetworkPolicyPeer``: exactly one kind of peer when one is an ipBlock;
  ``ValidateIPBlock``: ``IsValidCIDRForLegacyField`` with StrictIPCIDRValidation off, as it is
  by default in v1.35, and every except a strict subset of the cidr; at most two policyTypes),
  ``ValidateNetworkPolicyUpdate`` and ``ValidationOptionsForNetworking`` (an update may keep an
  invalid label value its old pod selector had, and any CIDR the old policy had);
- Ingress: ``ValidateIngressCreate`` / ``ValidateIngressUpdate`` / ``ValidateIngressSpec`` (rules
  or a default backend; ``validateIngressRules``: a host is a DNS name, not an IP, wildcards as
  ``IsWildcardDNS1123Subdomain``; ``validateHTTPIngressPath``: pathType required, Exact and Prefix
  paths absolute without ``//``, ``/./``, ``/../``, ``%2f`` or a ``/..``/``/.`` suffix;
  ``validateIngressBackend``: a service (a DNS-1035 name, as RelaxedServiceNameValidation is off
  in v1.35, and a port name or number) or a resource, not both; ``validateIngressTLS``; the
  ``kubernetes.io/ingress.class`` annotation must match ``ingressClassName``); an update may keep
  an invalid TLS secret name, an invalid wildcard rule, or a relaxed service name its old
  object had (``allowInvalidSecretName``, ``allowInvalidWildcardHostRule``,
  ``allowRelaxedServiceNameValidation``);
- IngressClass: ``ValidateIngressClass`` / ``ValidateIngressClassUpdate`` (controller a
  domain-prefixed path of at most 250 characters, immutable; ``validateIngressClassParametersReference``).

apimachinery's ``IsDNS1035Label``, ``IsWildcardDNS1123Subdomain`` and ``IsDomainPrefixedPath``
(``pkg/util/validation/validation.go``) are here, their only users so far.

The CIDR checks are ``ParseCIDRSloppy``'s (``kubesim.api.meta.validation.is_valid_cidr``):
leading zeros in an IPv4 address are accepted. The warnings upstream's strategy returns for
ambiguous or non-standard CIDRs are not printed by kubesim.
"""

from __future__ import annotations

import ipaddress
import re

from kubesim.api.content import regex_error
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    _parse_ip_sloppy,
    is_dns1123_subdomain,
    is_valid_cidr,
    is_valid_port_name,
    is_valid_port_num,
    max_len_error,
    name_is_dns_label,
    name_is_dns_subdomain,
    too_long,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
    validate_path_segment_name,
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


# -- apimachinery helpers ------------------------------------------------------------------

DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE = re.compile(f"^{DNS1035_LABEL_FMT}\\Z")
_DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
WILDCARD_DNS1123_SUBDOMAIN_FMT = "\\*\\." + _DNS1123_SUBDOMAIN_FMT
_WILDCARD_RE = re.compile(f"^{WILDCARD_DNS1123_SUBDOMAIN_FMT}\\Z")
_WILDCARD_MSG = ("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must "
                 "consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character")
HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(f"^{HTTP_PATH_FMT}\\Z")


def is_dns1035_label(value: str) -> list[str]:
    """IsDNS1035Label (``NameIsDNS1035Label``, ``ValidateServiceName``)."""
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_LABEL_RE.match(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """IsWildcardDNS1123Subdomain."""
    errs = []
    if len(value) > 253:
        errs.append(max_len_error(253))
    if not _WILDCARD_RE.match(value):
        errs.append(regex_error(_WILDCARD_MSG, WILDCARD_DNS1123_SUBDOMAIN_FMT, "*.example.com"))
    return errs


def is_domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """IsDomainPrefixedPath."""
    if not value:
        return [required(path, "")]
    host, sep, rest = value.partition("/")
    if not sep or not host or not rest:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [invalid(path, host, m) for m in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.match(rest):
        errs.append(invalid(path, rest, regex_error("Invalid path", HTTP_PATH_FMT)))
    return errs


def _parses_as_ip(value: str) -> bool:
    try:
        _parse_ip_sloppy(value)
    except ValueError:
        return False
    return True


# -- Ingress -------------------------------------------------------------------------------

ANNOTATION_INGRESS_CLASS = "kubernetes.io/ingress.class"
SUPPORTED_PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]  # sets.NewString(...).List(): sorted
INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
INVALID_PATH_SUFFIXES = ("/..", "/.")


def _str(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def validate_ingress_typed_local_object_reference(ref: dict, path: str) -> list[FieldError]:
    """validateIngressTypedLocalObjectReference."""
    errs: list[FieldError] = []
    if ref.get("apiGroup") is not None:
        errs += [invalid(f"{path}.apiGroup", ref["apiGroup"], m) for m in is_dns1123_subdomain(_str(ref["apiGroup"]))]
    for key in ("kind", "name"):
        value = _str(ref.get(key))
        if not value:
            errs.append(required(f"{path}.{key}", ""))
        else:
            errs += [invalid(f"{path}.{key}", value, m) for m in validate_path_segment_name(value, False)]
    return errs


def validate_ingress_backend(backend: dict, path: str, relaxed_service_names: bool = False) -> list[FieldError]:
    """validateIngressBackend."""
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return validate_ingress_typed_local_object_reference(_dict(resource), f"{path}.resource")
    if service is None:
        return [invalid(path, "", "resource or service backend is required")]
    service = _dict(service)
    errs: list[FieldError] = []
    name = _str(service.get("name"))
    if not name:
        errs.append(required(f"{path}.service.name", ""))
    else:
        check = name_is_dns_label if relaxed_service_names else (lambda n, _prefix: is_dns1035_label(n))
        errs += [invalid(f"{path}.service.name", name, m) for m in check(name, False)]
    port = _dict(service.get("port"))
    port_name, number = _str(port.get("name")), port.get("number") or 0
    if port_name and number:
        errs.append(invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        errs += [invalid(f"{path}.service.port.name", port_name, m) for m in is_valid_port_name(port_name)]
    elif number:
        errs += [invalid(f"{path}.service.port.number", number, m) for m in is_valid_port_num(number)]
    else:
        errs.append(required(path, "port name or number is required"))
    return errs


def validate_http_ingress_path(p: dict, path: str, relaxed_service_names: bool = False) -> list[FieldError]:
    """validateHTTPIngressPath."""
    path_type = p.get("pathType")
    if path_type is None:
        return [required(f"{path}.pathType", "pathType must be specified")]
    errs: list[FieldError] = []
    value = _str(p.get("path"))
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(invalid(f"{path}.path", value, "must be an absolute path"))
        if value:
            errs += [invalid(f"{path}.path", value, f"must not contain '{seq}'")
                     for seq in INVALID_PATH_SEQUENCES if seq in value]
            errs += [invalid(f"{path}.path", value, f"cannot end with '{suffix}'")
                     for suffix in INVALID_PATH_SUFFIXES if value.endswith(suffix)]
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errs.append(invalid(f"{path}.path", value, "must be an absolute path"))
    else:
        errs.append(unsupported(f"{path}.pathType", path_type, SUPPORTED_PATH_TYPES))
    errs += validate_ingress_backend(_dict(p.get("backend")), f"{path}.backend", relaxed_service_names)
    return errs


def validate_ingress_rule_value(rule: dict, path: str, relaxed_service_names: bool = False) -> list[FieldError]:
    """validateIngressRuleValue / validateHTTPIngressRuleValue."""
    if rule.get("http") is None:
        return []
    http = _dict(rule["http"])
    paths = _list(http.get("paths"))
    errs: list[FieldError] = []
    if not paths:
        errs.append(required(f"{path}.http.paths", ""))
    for i, p in enumerate(paths):
        errs += validate_http_ingress_path(_dict(p), f"{path}.http.paths[{i}]", relaxed_service_names)
    return errs


def validate_ingress_spec(spec: dict, path: str = "spec", *, allow_invalid_secret_name: bool = False,
                          allow_invalid_wildcard_host_rule: bool = False,
                          relaxed_service_names: bool = False) -> list[FieldError]:
    """ValidateIngressSpec."""
    errs: list[FieldError] = []
    rules = _list(spec.get("rules"))
    if not rules and spec.get("defaultBackend") is None:
        errs.append(invalid(path, _rules_value(spec),
                            "either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend") is not None:
        errs += validate_ingress_backend(_dict(spec["defaultBackend"]), f"{path}.defaultBackend", relaxed_service_names)
    for i, rule in enumerate(rules):
        rule = _dict(rule)
        rpath = f"{path}.rules[{i}]"
        host = _str(rule.get("host"))
        wildcard = False
        if host:
            if _parses_as_ip(host):
                errs.append(invalid(f"{rpath}.host", host, "must be a DNS name, not an IP address"))
            if "*" in host:
                errs += [invalid(f"{rpath}.host", host, m) for m in is_wildcard_dns1123_subdomain(host)]
                wildcard = True
            else:
                errs += [invalid(f"{rpath}.host", host, m) for m in is_dns1123_subdomain(host)]
        if not wildcard or not allow_invalid_wildcard_host_rule:
            errs += validate_ingress_rule_value(rule, rpath, relaxed_service_names)
    for i, tls in enumerate(_list(spec.get("tls"))):
        tls = _dict(tls)
        for j, host in enumerate(_list(tls.get("hosts"))):
            host = _str(host)
            check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
            errs += [invalid(f"{path}.tls[{i}].hosts[{j}]", host, m) for m in check(host)]
        secret = _str(tls.get("secretName"))
        if not allow_invalid_secret_name and secret:
            errs += [invalid(f"{path}.tls[{i}].secretName", secret, m) for m in name_is_dns_subdomain(secret, False)]
    if spec.get("ingressClassName") is not None:
        name = _str(spec["ingressClassName"])
        errs += [invalid(f"{path}.ingressClassName", name, m) for m in name_is_dns_subdomain(name, False)]
    return errs


def _rules_value(spec: dict) -> GoJSON:
    """The bad value of the neither-rules-nor-backend error: the (empty) rules slice as
    ``json.Marshal`` writes it: ``null`` when absent, ``[]`` when given empty."""
    return GoJSON(spec.get("rules") if isinstance(spec.get("rules"), list) else None)


def validate_ingress(ing: dict, **opts) -> list[FieldError]:
    """validateIngress."""
    errs = validate_object_meta(ing.get("metadata") or {}, True, name_is_dns_subdomain)
    errs += validate_ingress_spec(_dict(ing.get("spec")), "spec", **opts)
    return errs


def validate_ingress_create(ing: dict) -> list[FieldError]:
    """ValidateIngressCreate."""
    errs = validate_ingress(ing)
    annotations = _dict((ing.get("metadata") or {}).get("annotations"))
    class_name = _dict(ing.get("spec")).get("ingressClassName")
    if ANNOTATION_INGRESS_CLASS in annotations and class_name is not None \
            and annotations[ANNOTATION_INGRESS_CLASS] != class_name:
        errs.append(invalid(f"annotations.{ANNOTATION_INGRESS_CLASS}", annotations[ANNOTATION_INGRESS_CLASS],
                            "must match `ingressClassName` when both are specified"))
    return errs


def _allow_invalid_secret_name(old: dict) -> bool:
    return any(_str(_dict(t).get("secretName")) and name_is_dns_subdomain(_str(_dict(t).get("secretName")), False)
               for t in _list(_dict(old.get("spec")).get("tls")))


def _allow_invalid_wildcard_host_rule(old: dict) -> bool:
    return any("*" in _str(_dict(r).get("host")) and validate_ingress_rule_value(_dict(r), "")
               for r in _list(_dict(old.get("spec")).get("rules")))


def _relaxed_name(backend) -> bool:
    name = _str(_dict(_dict(backend).get("service")).get("name")) if _dict(backend).get("service") else None
    return name is not None and not name_is_dns_label(name, False) and bool(is_dns1035_label(name))


def _allow_relaxed_service_names(old: dict) -> bool:
    spec = _dict(old.get("spec"))
    if spec.get("defaultBackend") is not None and _relaxed_name(spec["defaultBackend"]):
        return True
    for rule in _list(spec.get("rules")):
        for p in _list(_dict(_dict(rule).get("http")).get("paths")):
            if _relaxed_name(_dict(p).get("backend")):
                return True
    return False


def validate_ingress_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateIngressUpdate."""
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_ingress(new, allow_invalid_secret_name=_allow_invalid_secret_name(old),
                             allow_invalid_wildcard_host_rule=_allow_invalid_wildcard_host_rule(old),
                             relaxed_service_names=_allow_relaxed_service_names(old))
    return errs


# -- IngressClass --------------------------------------------------------------------------

MAX_LEN_INGRESS_CLASS_CONTROLLER = 250
PARAMETERS_SCOPES = ["Cluster", "Namespace"]


def validate_ingress_class_parameters_reference(params, path: str) -> list[FieldError]:
    """validateIngressClassParametersReference."""
    if params is None:
        return []
    params = _dict(params)
    errs = validate_ingress_typed_local_object_reference(params, path)
    scope = params.get("scope")
    if scope is None:
        errs.append(required(f"{path}.scope", ""))
        return errs
    if scope not in PARAMETERS_SCOPES:
        errs.append(unsupported(f"{path}.scope", scope, PARAMETERS_SCOPES))
        return errs
    ns = params.get("namespace")
    if scope == "Namespace":
        if ns is None:
            errs.append(required(f"{path}.namespace", "`parameters.scope` is set to 'Namespace'"))
        else:
            errs += [invalid(f"{path}.namespace", _str(ns), m) for m in name_is_dns_label(_str(ns), False)]
    if scope == "Cluster" and ns is not None:
        errs.append(forbidden(f"{path}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return errs


def validate_ingress_class_spec(spec: dict, path: str = "spec") -> list[FieldError]:
    """validateIngressClassSpec."""
    errs: list[FieldError] = []
    controller = _str(spec.get("controller"))
    if len(controller) > MAX_LEN_INGRESS_CLASS_CONTROLLER:
        errs.append(too_long(f"{path}.controller", MAX_LEN_INGRESS_CLASS_CONTROLLER))
    errs += is_domain_prefixed_path(f"{path}.controller", controller)
    errs += validate_ingress_class_parameters_reference(spec.get("parameters"), f"{path}.parameters")
    return errs


def validate_ingress_class(ic: dict) -> list[FieldError]:
    """ValidateIngressClass."""
    errs = validate_object_meta(ic.get("metadata") or {}, False, name_is_dns_subdomain)
    errs += validate_ingress_class_spec(_dict(ic.get("spec")))
    return errs


def validate_ingress_class_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateIngressClassUpdate."""
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    controller, old_controller = _str(_dict(new.get("spec")).get("controller")), _str(_dict(old.get("spec")).get("controller"))
    if controller != old_controller:
        errs.append(invalid("spec.controller", controller, FIELD_IMMUTABLE_ERROR))
    errs += validate_ingress_class(new)
    return errs
