"""Service validation: what the API server refuses in a Service, on create and on update.

Upstream: pkg/apis/core/validation/validation.go (v1.35) ``ValidateServiceCreate``,
``validateService``, ``validateServicePort``, ``ValidateServiceClusterIPsRelatedFields``,
``validateServiceExternalTrafficPolicy``, ``validateServiceInternalTrafficFieldsValue``,
``ValidateServiceUpdate``, ``validateUpgradeDowngradeClusterIPs``,
``validateUpgradeDowngradeIPFamilies`` and ``ValidateServiceName`` (a DNS-1035 label: the
RelaxedServiceNameValidation gate is off in v1.35), with pkg/api/service/util.go's
``ExternallyAccessible`` and ``NeedsHealthCheck``. Every text was checked against a real v1.35
API server.

Not modelled: the topology annotations' agreement, ``loadBalancerClass``, ``externalIPs``'
special-address checks, ``trafficDistribution`` beyond its supported values.
"""

from __future__ import annotations

import re

from kubesim.api.content import regex_error
from kubesim.api.gofmt import go_json
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    _parse_ip_sloppy,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_cidr,
    is_valid_ip,
    is_valid_port_name,
    is_valid_port_num,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
    unsupported,
)

CLUSTER_IP_NONE = "None"
SUPPORTED_SESSION_AFFINITY = ["ClientIP", "None"]
SUPPORTED_SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
SUPPORTED_PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"]
SUPPORTED_INTERNAL_TRAFFIC_POLICY = ["Cluster", "Local"]
SUPPORTED_EXTERNAL_TRAFFIC_POLICY = ["Cluster", "Local"]
SUPPORTED_IP_FAMILIES = ["IPv4", "IPv6"]
SUPPORTED_IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"]
SUPPORTED_TRAFFIC_DISTRIBUTION = ["PreferClose", "PreferSameZone", "PreferSameNode"]
MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 86400

_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character")


def is_dns1035_label(value: str) -> list[str]:
    """util/validation.IsDNS1035Label."""
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def validate_service_name(name: str, prefix: bool) -> list[str]:
    """ValidateServiceName: apimachinery's NameIsDNS1035Label."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-1] + "a"
    return is_dns1035_label(name)


# -- pkg/api/service/util.go -----------------------------------------------------------------

def spec_of(svc: dict) -> dict:
    s = svc.get("spec")
    return s if isinstance(s, dict) else {}


def ports_of(svc: dict) -> list[dict]:
    return [p if isinstance(p, dict) else {} for p in (spec_of(svc).get("ports") or [])]


def externally_accessible(svc: dict) -> bool:
    """ExternallyAccessible: LoadBalancer, NodePort, or ClusterIP with external IPs."""
    spec = spec_of(svc)
    t = spec.get("type")
    return t in ("LoadBalancer", "NodePort") or (t == "ClusterIP" and bool(spec.get("externalIPs")))


def needs_health_check(svc: dict) -> bool:
    """NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local."""
    spec = spec_of(svc)
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def is_headless(svc: dict) -> bool:
    """isHeadlessService: clusterIPs [None]."""
    ips = spec_of(svc).get("clusterIPs") or []
    return len(ips) == 1 and ips[0] == CLUSTER_IP_NONE


def _int(v) -> int:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


def _go_service_port(protocol: str, port: int) -> GoJSON:
    """``core.ServicePort{Protocol, Port}`` as json.Marshal writes it (the duplicate-port value)."""
    g = GoJSON.__new__(GoJSON)
    g.text = go_json({"Name": "", "Protocol": protocol, "AppProtocol": None, "Port": port, "TargetPort": 0,
                      "NodePort": 0}, None, sort_keys=False)
    return g


# -- ValidateService ---------------------------------------------------------------------------

def validate_service_port(sp: dict, require_name: bool, all_names: set, path: str) -> list[FieldError]:
    """validateServicePort."""
    errs: list[FieldError] = []
    name = sp.get("name") or ""
    if require_name and not name:
        errs.append(required(f"{path}.name"))
    elif name:
        errs.extend(invalid(f"{path}.name", name, m) for m in is_dns1123_label(name))
        if name in all_names:
            errs.append(duplicate(f"{path}.name", name))
        else:
            all_names.add(name)
    port = _int(sp.get("port"))
    errs.extend(invalid(f"{path}.port", port, m) for m in is_valid_port_num(port))
    proto = sp.get("protocol") or ""
    if not proto:
        errs.append(required(f"{path}.protocol"))
    elif proto not in SUPPORTED_PORT_PROTOCOLS:
        errs.append(unsupported(f"{path}.protocol", proto, SUPPORTED_PORT_PROTOCOLS))
    tp = sp.get("targetPort")
    if isinstance(tp, str):
        errs.extend(invalid(f"{path}.targetPort", tp, m) for m in is_valid_port_name(tp))
    else:
        tpn = _int(tp)
        errs.extend(invalid(f"{path}.targetPort", tpn, m) for m in is_valid_port_num(tpn))
    app = sp.get("appProtocol")
    if app is not None:
        from kubesim.api.meta.validation import is_qualified_name

        errs.extend(invalid(f"{path}.appProtocol", app, m) for m in is_qualified_name(str(app)))
    return errs


def validate_service_cluster_ips_related_fields(svc: dict, old: dict | None) -> list[FieldError]:
    """ValidateServiceClusterIPsRelatedFields."""
    spec = spec_of(svc)
    if spec.get("type") == "ExternalName":
        return []
    errs: list[FieldError] = []
    cip = spec.get("clusterIP") or ""
    cips = list(spec.get("clusterIPs") or [])
    if cip:
        if not cips:
            errs.append(required("spec.clusterIPs"))
        elif cips[0] != cip:
            errs.append(invalid("spec.clusterIPs", GoJSON(cips), "first value must match `clusterIP`"))
    elif cips:
        errs.append(invalid("spec.clusterIPs", GoJSON(cips), "must be empty when `clusterIP` is not specified"))
    seen: set = set()
    for i, fam in enumerate(spec.get("ipFamilies") or []):
        if fam not in SUPPORTED_IP_FAMILIES:
            errs.append(unsupported(f"spec.ipFamilies[{i}]", fam, SUPPORTED_IP_FAMILIES))
        if fam in seen:
            errs.append(duplicate(f"spec.ipFamilies[{i}]", fam))
        seen.add(fam)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in SUPPORTED_IP_FAMILY_POLICIES:
        errs.append(unsupported("spec.ipFamilyPolicy", policy, SUPPORTED_IP_FAMILY_POLICIES))
    existing = list(spec_of(old).get("clusterIPs") or []) if old is not None else []
    bad = False
    for i, ip in enumerate(cips):
        if i == 0 and ip == CLUSTER_IP_NONE:
            if len(cips) > 1:
                bad = True
                errs.append(invalid("spec.clusterIPs", GoJSON(cips), "'None' must be the first and only value"))
            continue
        if ip in existing:
            continue
        e = is_valid_ip(f"spec.clusterIPs[{i}]", str(ip))
        bad = bad or bool(e)
        errs.extend(e)
    if len(cips) > 2:
        errs.append(invalid("spec.clusterIPs", GoJSON(cips), "may only hold up to 2 values"))
    if bad:
        return errs
    if len(cips) > 1:
        fams = {":" in str(ip) for ip in cips}
        if len(fams) != len(cips):
            errs.append(invalid("spec.clusterIPs", GoJSON(cips), "may specify no more than one IP for each IP family"))
    fams_l = spec.get("ipFamilies") or []
    if not is_headless(svc) and cips and fams_l:
        for i, ip in enumerate(cips[:len(fams_l)]):
            v6 = ":" in str(ip)
            if fams_l[i] == "IPv4" and v6:
                errs.append(invalid(f"spec.clusterIPs[{i}]", ip, f"expected an IPv4 value as indicated by `ipFamilies[{i}]`"))
            if fams_l[i] == "IPv6" and not v6:
                errs.append(invalid(f"spec.clusterIPs[{i}]", ip, f"expected an IPv6 value as indicated by `ipFamilies[{i}]`"))
    return errs


def _validate_service(svc: dict, old: dict | None) -> list[FieldError]:
    """validateService."""
    spec = spec_of(svc)
    errs: list[FieldError] = []
    stype = spec.get("type") or ""
    ports = ports_of(svc)
    headless = is_headless(svc)
    if not ports and not headless and stype != "ExternalName":
        errs.append(required("spec.ports"))
    if stype == "LoadBalancer" and headless:
        errs.append(invalid("spec.clusterIPs[0]", spec["clusterIPs"][0], "may not be set to 'None' for LoadBalancer services"))
    elif stype == "NodePort" and headless:
        errs.append(invalid("spec.clusterIPs[0]", spec["clusterIPs"][0], "may not be set to 'None' for NodePort services"))
    elif stype == "ExternalName":
        if spec.get("clusterIPs"):
            errs.append(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        if spec.get("ipFamilies"):
            errs.append(forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy") is not None:
            errs.append(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        cname = str(spec.get("externalName") or "")
        cname = cname.removesuffix(".")
        if cname:
            errs.extend(invalid("spec.externalName", cname, m) for m in is_dns1123_subdomain(cname))
        else:
            errs.append(required("spec.externalName"))
    names: set = set()
    for i, p in enumerate(ports):
        errs.extend(validate_service_port(p, len(ports) > 1, names, f"spec.ports[{i}]"))
    if spec.get("selector") is not None:
        errs.extend(validate_labels(spec.get("selector"), "spec.selector"))
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        errs.append(required("spec.sessionAffinity"))
    elif affinity not in SUPPORTED_SESSION_AFFINITY:
        errs.append(unsupported("spec.sessionAffinity", affinity, SUPPORTED_SESSION_AFFINITY))
    cfg = spec.get("sessionAffinityConfig")
    if affinity == "ClientIP":
        timeout = ((cfg or {}).get("clientIP") or {}).get("timeoutSeconds")
        if timeout is None:
            errs.append(required("spec.sessionAffinityConfig.clientIP.timeoutSeconds"))
        elif not 0 < _int(timeout) <= MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS:
            errs.append(invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", _int(timeout),
                                f"must be greater than 0 and less than {MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS}"))
    elif affinity == "None" and cfg is not None:
        errs.append(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    errs.extend(validate_service_cluster_ips_related_fields(svc, old))
    old_ext = list(spec_of(old).get("externalIPs") or []) if old is not None else []
    for i, ip in enumerate(spec.get("externalIPs") or []):
        if ip in old_ext:
            continue
        errs.extend(is_valid_ip(f"spec.externalIPs[{i}]", str(ip)))
    if not stype:
        errs.append(required("spec.type"))
    elif stype not in SUPPORTED_SERVICE_TYPES:
        errs.append(unsupported("spec.type", stype, SUPPORTED_SERVICE_TYPES))
    if stype == "ClusterIP":
        for i, p in enumerate(ports):
            if _int(p.get("nodePort")):
                errs.append(forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'"))
    seen_np: set = set()
    for i, p in enumerate(ports):
        np = _int(p.get("nodePort"))
        if not np:
            continue
        key = (p.get("protocol"), np)
        if key in seen_np:
            errs.append(duplicate(f"spec.ports[{i}].nodePort", np))
        seen_np.add(key)
    seen_p: set = set()
    for i, p in enumerate(ports):
        key = (p.get("protocol") or "", _int(p.get("port")))
        if key in seen_p:
            errs.append(duplicate(f"spec.ports[{i}]", _go_service_port(*key)))
        seen_p.add(key)
    ranges = spec.get("loadBalancerSourceRanges") or []
    if ranges:
        if stype != "LoadBalancer":
            errs.append(forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"))
        for i, r in enumerate(ranges):
            errs.extend(is_valid_cidr(f"spec.LoadBalancerSourceRanges[{i}]", str(r).strip()))
    if spec.get("allocateLoadBalancerNodePorts") is not None and stype != "LoadBalancer":
        errs.append(forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"))
    if stype == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        errs.append(required("allocateLoadBalancerNodePorts"))
    errs.extend(_validate_external_traffic_policy(svc))
    itp = spec.get("internalTrafficPolicy")
    if itp is None:
        if stype in ("NodePort", "LoadBalancer", "ClusterIP"):
            errs.append(required("spec.internalTrafficPolicy"))
    elif itp not in SUPPORTED_INTERNAL_TRAFFIC_POLICY:
        errs.append(unsupported("spec.internalTrafficPolicy", itp, SUPPORTED_INTERNAL_TRAFFIC_POLICY))
    td = spec.get("trafficDistribution")
    if td is not None and td not in SUPPORTED_TRAFFIC_DISTRIBUTION:
        errs.append(unsupported("spec.trafficDistribution", td, SUPPORTED_TRAFFIC_DISTRIBUTION))
    return errs


def _validate_external_traffic_policy(svc: dict) -> list[FieldError]:
    """validateServiceExternalTrafficPolicy."""
    spec = spec_of(svc)
    errs: list[FieldError] = []
    etp = spec.get("externalTrafficPolicy") or ""
    if not externally_accessible(svc):
        if etp:
            errs.append(invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"))
    elif not etp:
        errs.append(required("spec.externalTrafficPolicy"))
    elif etp not in SUPPORTED_EXTERNAL_TRAFFIC_POLICY:
        errs.append(unsupported("spec.externalTrafficPolicy", etp, SUPPORTED_EXTERNAL_TRAFFIC_POLICY))
    hc = _int(spec.get("healthCheckNodePort"))
    if not needs_health_check(svc):
        if hc:
            errs.append(invalid("spec.healthCheckNodePort", hc,
                                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
    elif not hc:
        errs.append(required("spec.healthCheckNodePort"))
    else:
        errs.extend(invalid("spec.healthCheckNodePort", hc, m) for m in is_valid_port_num(hc))
    return errs


def validate_service(svc: dict) -> list[FieldError]:
    """ValidateServiceCreate."""
    errs = validate_object_meta(svc.get("metadata"), True, validate_service_name)
    return errs + _validate_service(svc, None)


def validate_service_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateServiceUpdate: the metadata's rules, the cluster IPs and IP families that may not
    change once set (but to, from or on ExternalName), then every rule of a create."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_validate_upgrade_downgrade_cluster_ips(old, new))
    errs.extend(_validate_upgrade_downgrade_ip_families(old, new))
    if needs_health_check(old) and needs_health_check(new) and \
            _int(spec_of(new).get("healthCheckNodePort")) != _int(spec_of(old).get("healthCheckNodePort")):
        errs.append(forbidden("spec.healthCheckNodePort", "field is immutable"))
    return errs + _validate_service(new, old)


def _validate_upgrade_downgrade_cluster_ips(old: dict, new: dict) -> list[FieldError]:
    if "ExternalName" in (spec_of(new).get("type"), spec_of(old).get("type")):
        return []
    if is_headless(old) and is_headless(new):
        return []
    o = list(spec_of(old).get("clusterIPs") or [])
    n = list(spec_of(new).get("clusterIPs") or [])
    errs: list[FieldError] = []
    if len(o) == len(n):
        for i, ip in enumerate(o):
            if ip != n[i]:
                errs.append(invalid(f"spec.clusterIPs[{i}]", GoJSON(n), "may not change once set"))
    elif len(o) > len(n):
        if not n:
            errs.append(invalid("spec.clusterIPs[0]", GoJSON(n or None), "primary clusterIP can not be unset"))
        if o and n and n[0] != o[0]:
            errs.append(invalid("spec.clusterIPs[0]", GoJSON(n), "may not change once set"))
        if len(n) == 1 and spec_of(new).get("ipFamilyPolicy") != "SingleStack":
            errs.append(invalid("spec.ipFamilyPolicy", spec_of(new).get("ipFamilyPolicy"),
                                "must be set to 'SingleStack' when releasing the secondary clusterIP"))
    elif o and n[0] != o[0]:
        errs.append(invalid("spec.clusterIPs[0]", GoJSON(n), "may not change once set"))
    return errs


def _validate_upgrade_downgrade_ip_families(old: dict, new: dict) -> list[FieldError]:
    if "ExternalName" in (spec_of(new).get("type"), spec_of(old).get("type")):
        return []
    if is_headless(old) or is_headless(new):
        return []
    o = list(spec_of(old).get("ipFamilies") or [])
    n = list(spec_of(new).get("ipFamilies") or [])
    errs: list[FieldError] = []
    if len(o) == len(n):
        for i, fam in enumerate(o):
            if fam != n[i]:
                errs.append(invalid("spec.ipFamilies[0]", GoJSON(n), "may not change once set"))
    elif len(o) > len(n):
        if not n:
            errs.append(invalid("spec.ipFamilies[0]", GoJSON(n or None), "primary ipFamily can not be unset"))
        if o and n and n[0] != o[0]:
            errs.append(invalid("spec.ipFamilies[0]", GoJSON(n), "may not change once set"))
    elif o and n[0] != o[0]:
        errs.append(invalid("spec.ipFamilies[0]", GoJSON(n), "may not change once set"))
    return errs


def parse_ip(value: str):
    """netutils.ParseIPSloppy (None when it does not parse)."""
    try:
        return _parse_ip_sloppy(str(value))
    except ValueError:
        return None
