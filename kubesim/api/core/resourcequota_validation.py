"""ResourceQuota validation.

Upstream: pkg/apis/core/validation/validation.go (``ValidateResourceQuota``,
``ValidateResourceQuotaSpec``, ``ValidateResourceQuotaStatus``, ``validateResourceQuotaScopes``,
``validateScopedResourceSelectorRequirement``, ``ValidateResourceQuotaResourceName``,
``ValidateResourceQuantityValue``, ``ValidateResourceQuotaUpdate``) and
pkg/apis/core/helper/helpers.go (``standardQuotaResources``, ``standardResourceQuotaScopes``,
``IsResourceQuotaScopeValidForResource``). Where upstream walks Go maps (random order), kubesim
goes in resource name order.
"""

from __future__ import annotations

import json

from kubesim.api.core.container_validation import (
    _validate_resource_name,
    parse_or_error,
    validate_resource_quantity_value,
)
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    _dict,
    _list,
    _str,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, invalid, required

IS_INVALID_QUOTA_RESOURCE = "must be a standard resource for quota"

STANDARD_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
    "configmaps", "services.nodeports", "services.loadbalancers",
})
STANDARD_RESOURCE_QUOTA_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort",
                                  "PriorityClass", "VolumeAttributesClass")
CROSS_NAMESPACE_POD_AFFINITY = "CrossNamespacePodAffinity"

_POD_OBJECT_COUNT = frozenset({"pods"})
_POD_COMPUTE = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"})
_PVC_OBJECT_COUNT = frozenset({"persistentvolumeclaims"})
_PVC_STORAGE = frozenset({"requests.storage"})
_CONFLICTING = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
_EXISTS_ONLY = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", CROSS_NAMESPACE_POD_AFFINITY)


def is_standard_quota_resource_name(name: str) -> bool:
    return name in STANDARD_QUOTA_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def is_standard_resource_quota_scope(scope: str) -> bool:
    return scope in STANDARD_RESOURCE_QUOTA_SCOPES or scope == CROSS_NAMESPACE_POD_AFFINITY


def is_resource_quota_scope_valid_for_resource(scope: str, resource: str) -> bool:
    """IsResourceQuotaScopeValidForResource."""
    if scope in ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", CROSS_NAMESPACE_POD_AFFINITY):
        return resource in _POD_OBJECT_COUNT or resource in _POD_COMPUTE
    if scope == "BestEffort":
        return resource in _POD_OBJECT_COUNT
    if scope == "VolumeAttributesClass":
        return resource in _PVC_OBJECT_COUNT or resource in _PVC_STORAGE
    return True


def validate_resource_quota_resource_name(name: str, path: str) -> list[FieldError]:
    """ValidateResourceQuotaResourceName."""
    errs = _validate_resource_name(name, path)
    if "/" not in name and not is_standard_quota_resource_name(name):
        errs.append(invalid(path, name, IS_INVALID_QUOTA_RESOURCE))
    return errs


def _validate_resource_list(rl, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    rl = _dict(rl)
    for name in sorted(rl):
        fld = f"{path}[{name}]"
        errs.extend(validate_resource_quota_resource_name(name, fld))
        q = parse_or_error(rl[name], fld, errs)
        if q is not None:
            errs.extend(validate_resource_quantity_value(name, q, fld))
    return errs


def _scope_selector_json(selector: dict) -> GoJSON:
    """The internal ``core.ScopeSelector`` as json.Marshal writes it (no json tags)."""
    exprs = []
    for e in _list(selector.get("matchExpressions")):
        e = _dict(e)
        values = e.get("values")
        exprs.append({"ScopeName": _str(e.get("scopeName")), "Operator": _str(e.get("operator")),
                      "Values": values if isinstance(values, list) else None})
    text = json.dumps({"MatchExpressions": exprs if selector.get("matchExpressions") is not None else None},
                      separators=(",", ":"))
    return _Raw(text)


class _Raw(GoJSON):
    def __init__(self, text: str):
        self.text = text


def _validate_scopes(spec: dict, hard: list[str]) -> list[FieldError]:
    """validateResourceQuotaScopes."""
    scopes = [_str(s) for s in _list(spec.get("scopes"))]
    if not scopes:
        return []
    value = GoJSON(scopes)
    errs: list[FieldError] = []
    for scope in scopes:
        if not is_standard_resource_quota_scope(scope):
            errs.append(invalid("spec.scopes", value, "unsupported scope"))
        for k in hard:
            if is_standard_quota_resource_name(k) and not is_resource_quota_scope_valid_for_resource(scope, k):
                errs.append(invalid("spec.scopes", value, "unsupported scope applied to resource"))
    for pair in _CONFLICTING:
        if all(p in scopes for p in pair):
            errs.append(invalid("spec.scopes", value, "conflicting scopes"))
    return errs


def _validate_scope_selector(spec: dict, hard: list[str]) -> list[FieldError]:
    """validateScopeSelector / validateScopedResourceSelectorRequirement."""
    selector = spec.get("scopeSelector")
    if not isinstance(selector, dict):
        return []
    path = "spec.scopeSelector.matchExpressions"
    errs: list[FieldError] = []
    seen: set[str] = set()
    for raw in _list(selector.get("matchExpressions")):
        req = _dict(raw)
        scope, op = _str(req.get("scopeName")), _str(req.get("operator"))
        values = _list(req.get("values"))
        if not is_standard_resource_quota_scope(scope):
            errs.append(invalid(f"{path}.scopeName", scope, "unsupported scope"))
        for k in hard:
            if is_standard_quota_resource_name(k) and not is_resource_quota_scope_valid_for_resource(scope, k):
                errs.append(invalid(path, _scope_selector_json(selector), "unsupported scope applied to resource"))
        if scope in _EXISTS_ONLY and op != "Exists":
            errs.append(invalid(f"{path}.operator", op,
                                "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                                "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                                "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{path}.values",
                                     "must be at least one value when `operator` is 'In' or 'NotIn' for scope "
                                     "selector"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(invalid(f"{path}.values", GoJSON([_str(v) for v in values]),
                                    "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope "
                                    "selector"))
        else:
            errs.append(invalid(f"{path}.operator", op, "not a valid selector operator"))
        seen.add(scope)
    scopes = spec.get("scopes")
    for pair in _CONFLICTING:
        if all(p in seen for p in pair):
            errs.append(invalid(path, GoJSON([_str(s) for s in scopes] if isinstance(scopes, list) else None),
                                "conflicting scopes"))
    return errs


def validate_resource_quota_spec(spec: dict) -> list[FieldError]:
    """ValidateResourceQuotaSpec."""
    hard = sorted(_dict(spec.get("hard")))
    errs = _validate_resource_list(spec.get("hard"), "spec.hard")
    errs.extend(_validate_scopes(spec, hard))
    errs.extend(_validate_scope_selector(spec, hard))
    return errs


def validate_resource_quota(quota: dict) -> list[FieldError]:
    """ValidateResourceQuota (the status a client sends is dropped before, by the strategy)."""
    errs = validate_object_meta(_dict(quota.get("metadata")), True, name_is_dns_subdomain)
    errs.extend(validate_resource_quota_spec(_dict(quota.get("spec"))))
    status = _dict(quota.get("status"))
    errs.extend(_validate_resource_list(status.get("hard"), "status.hard"))
    errs.extend(_validate_resource_list(status.get("used"), "status.used"))
    return errs


def validate_resource_quota_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateResourceQuotaUpdate: the spec again, and the scopes may not change."""
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    spec = _dict(new.get("spec"))
    errs.extend(validate_resource_quota_spec(spec))
    new_scopes = {_str(s) for s in _list(spec.get("scopes"))}
    old_scopes = {_str(s) for s in _list(_dict(old.get("spec")).get("scopes"))}
    if new_scopes != old_scopes:
        scopes = spec.get("scopes")
        errs.append(invalid("spec.scopes", GoJSON([_str(s) for s in scopes] if isinstance(scopes, list) else None),
                            "field is immutable"))
    return errs
