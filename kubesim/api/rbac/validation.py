"""rbac.authorization.k8s.io/v1 validation, as the registry strategies run it.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/rbac/validation/validation.go``
(``ValidateRole``, ``ValidateClusterRole`` with its aggregationRule, ``ValidatePolicyRule``,
``ValidateRoleBinding``, ``ValidateClusterRoleBinding``, ``ValidateRoleBindingSubject`` and the
``...Update`` variants: a binding's roleRef cannot change). Names are path segments
(``ValidateRBACName`` is ``path.IsValidPathSegmentName``), so ``system:`` names are fine. Verbs
are not checked against a list (a rule may name any verb), and a binding may refer to a role
that does not exist.
"""

from __future__ import annotations

from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
    validate_path_segment_name,
)
from kubesim.api.rbac.defaults import GROUP_NAME
from kubesim.errors import FieldError, invalid, required, unsupported


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _str(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def validate_policy_rule(rule: dict, namespaced: bool, path: str) -> list[FieldError]:
    """ValidatePolicyRule."""
    rule = _dict(rule)
    errs: list[FieldError] = []
    if not _list(rule.get("verbs")):
        errs.append(required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = _list(rule.get("nonResourceURLs"))
    if urls:
        value = GoJSON([_str(u) for u in urls])
        if namespaced:
            errs.append(invalid(f"{path}.nonResourceURLs", value, "namespaced rules cannot apply to non-resource URLs"))
        if _list(rule.get("apiGroups")) or _list(rule.get("resources")) or _list(rule.get("resourceNames")):
            errs.append(invalid(f"{path}.nonResourceURLs", value,
                                "rules cannot apply to both regular resources and non-resource URLs"))
        return errs
    if not _list(rule.get("apiGroups")):
        errs.append(required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not _list(rule.get("resources")):
        errs.append(required(f"{path}.resources", "resource rules must supply at least one resource"))
    return errs


def validate_role(role: dict) -> list[FieldError]:
    """ValidateRole."""
    errs = validate_object_meta(role.get("metadata") or {}, True, validate_path_segment_name)
    for i, rule in enumerate(_list(role.get("rules"))):
        errs.extend(validate_policy_rule(rule, True, f"rules[{i}]"))
    return errs


def validate_role_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateRoleUpdate."""
    return validate_role(new) + validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})


def validate_cluster_role(role: dict, allow_invalid_label_value: bool = False) -> list[FieldError]:
    """ValidateClusterRole."""
    errs = validate_object_meta(role.get("metadata") or {}, False, validate_path_segment_name)
    for i, rule in enumerate(_list(role.get("rules"))):
        errs.extend(validate_policy_rule(rule, False, f"rules[{i}]"))
    agg = role.get("aggregationRule")
    if isinstance(agg, dict):
        selectors = _list(agg.get("clusterRoleSelectors"))
        if not selectors:
            errs.append(required("aggregationRule.clusterRoleSelectors",
                                 "at least one clusterRoleSelector required if aggregationRule is non-nil"))
        for i, sel in enumerate(selectors):
            errs.extend(validate_label_selector(sel, f"aggregationRule.clusterRoleSelectors[{i}]",
                                                allow_invalid_label_value))
    return errs


def validate_cluster_role_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateClusterRoleUpdate (the strategy allows an invalid label value in a selector the
    old object already had: hasInvalidLabelValueInLabelSelector)."""
    allow = _has_invalid_label_value(old)
    return (validate_cluster_role(new, allow)
            + validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {}))


def _has_invalid_label_value(role: dict) -> bool:
    for i, sel in enumerate(_list(_dict(role.get("aggregationRule")).get("clusterRoleSelectors"))):
        if validate_label_selector(sel, "x", False) != validate_label_selector(sel, "x", True):
            return True
    return False


def _validate_role_ref(ref: dict, kinds: tuple[str, ...]) -> list[FieldError]:
    errs: list[FieldError] = []
    group = _str(ref.get("apiGroup"))
    if group != GROUP_NAME:
        errs.append(unsupported("roleRef.apiGroup", group, [GROUP_NAME]))
    kind = _str(ref.get("kind"))
    if kind not in kinds:
        errs.append(unsupported("roleRef.kind", kind, list(kinds)))
    name = _str(ref.get("name"))
    if not name:
        errs.append(required("roleRef.name", ""))
    else:
        errs.extend(invalid("roleRef.name", name, m) for m in validate_path_segment_name(name, False))
    return errs


def validate_role_binding_subject(subject: dict, namespaced: bool, path: str) -> list[FieldError]:
    """ValidateRoleBindingSubject."""
    subject = _dict(subject)
    errs: list[FieldError] = []
    name, kind, group = _str(subject.get("name")), _str(subject.get("kind")), _str(subject.get("apiGroup"))
    if not name:
        errs.append(required(f"{path}.name", ""))
    if kind == "ServiceAccount":
        if name:
            errs.extend(invalid(f"{path}.name", name, m) for m in name_is_dns_subdomain(name, False))
        if group:
            errs.append(unsupported(f"{path}.apiGroup", group, [""]))
        if not namespaced and not _str(subject.get("namespace")):
            errs.append(required(f"{path}.namespace", ""))
    elif kind in ("User", "Group"):
        if group != GROUP_NAME:
            errs.append(unsupported(f"{path}.apiGroup", group, [GROUP_NAME]))
    else:
        errs.append(unsupported(f"{path}.kind", kind, ["ServiceAccount", "User", "Group"]))
    return errs


def _validate_binding(binding: dict, namespaced: bool) -> list[FieldError]:
    errs = validate_object_meta(binding.get("metadata") or {}, namespaced, validate_path_segment_name)
    errs.extend(_validate_role_ref(_dict(binding.get("roleRef")),
                                   ("Role", "ClusterRole") if namespaced else ("ClusterRole",)))
    for i, subject in enumerate(_list(binding.get("subjects"))):
        errs.extend(validate_role_binding_subject(subject, namespaced, f"subjects[{i}]"))
    return errs


def _role_ref_changed(new: dict, old: dict) -> list[FieldError]:
    a, b = _dict(new.get("roleRef")), _dict(old.get("roleRef"))
    key = [(k, _str(a.get(k))) for k in ("apiGroup", "kind", "name")]
    if key == [(k, _str(b.get(k))) for k in ("apiGroup", "kind", "name")]:
        return []
    value = GoJSON({"APIGroup": key[0][1], "Kind": key[1][1], "Name": key[2][1]})
    return [invalid("roleRef", value, "cannot change roleRef")]


def validate_role_binding(binding: dict) -> list[FieldError]:
    """ValidateRoleBinding."""
    return _validate_binding(binding, True)


def validate_role_binding_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateRoleBindingUpdate."""
    return (validate_role_binding(new)
            + validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
            + _role_ref_changed(new, old))


def validate_cluster_role_binding(binding: dict) -> list[FieldError]:
    """ValidateClusterRoleBinding."""
    return _validate_binding(binding, False)


def validate_cluster_role_binding_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateClusterRoleBindingUpdate."""
    return (validate_cluster_role_binding(new)
            + validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
            + _role_ref_changed(new, old))
