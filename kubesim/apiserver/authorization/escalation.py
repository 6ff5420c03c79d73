"""RBAC escalation prevention: a user may only write a role, or bind one, granting what they
hold themselves, unless they may ``escalate`` (roles) or ``bind`` (the referenced role).

Upstream: pkg/registry/rbac/escalation_check.go (``EscalationAllowed``: system:masters;
``RoleEscalationAuthorized``; ``BindingAuthorized``), the policybased storages of
pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding} (checked before the object
is stored; a ClusterRole's aggregationRule needs ``*`` on everything: "must have cluster-admin
privileges to use the aggregationRule"; a binding's role must exist), pkg/registry/rbac/
validation/rule.go (``ConfirmNoEscalation``: the missing rights, compacted
(policy_compact.go), each as ``CompactString`` (pkg/apis/rbac/v1/evaluation_helpers.go), sorted)
and k8s.io/component-helpers auth/rbac/validation/policy_comparator.go (``Covers``,
``BreakdownRule``, ``ruleCovers``).
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote
from kubesim.apiserver.authorization import (
    SYSTEM_PRIVILEGED_GROUP,
    Attributes,
    UserInfo,
    authorize,
)
from kubesim.apiserver.authorization import rbac as R

RBAC_GROUP = "rbac.authorization.k8s.io"
FULL_AUTHORITY = [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                  {"verbs": ["*"], "nonResourceURLs": ["*"]}]


def breakdown_rule(rule: dict) -> list[dict]:
    """BreakdownRule: one rule per group, resource, verb (and name); per URL and verb."""
    verbs, names = list(rule.get("verbs") or ()), list(rule.get("resourceNames") or ())
    out: list[dict] = []
    for g in rule.get("apiGroups") or ():
        for r in rule.get("resources") or ():
            for v in verbs:
                if names:
                    out.extend({"apiGroups": [g], "resources": [r], "verbs": [v], "resourceNames": [n]} for n in names)
                else:
                    out.append({"apiGroups": [g], "resources": [r], "verbs": [v]})
    for url in rule.get("nonResourceURLs") or ():
        out.extend({"nonResourceURLs": [url], "verbs": [v]} for v in verbs)
    return out


def _has_all(owned, wanted) -> bool:
    return set(wanted) <= set(owned)


def _resources_cover_all(owned: list[str], wanted: list[str]) -> bool:
    if "*" in owned or _has_all(owned, wanted):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _urls_cover_all(owned: list[str], wanted: list[str]) -> bool:
    return all(any(o == p or (o.endswith("*") and p.startswith(o.rstrip("*"))) for o in owned) for p in wanted)


def rule_covers(owner: dict, sub: dict) -> bool:
    """ruleCovers."""
    verbs, groups = owner.get("verbs") or [], owner.get("apiGroups") or []
    owner_names, sub_names = owner.get("resourceNames") or [], sub.get("resourceNames") or []
    names_ok = not owner_names if not sub_names else (not owner_names or _has_all(owner_names, sub_names))
    return (("*" in verbs or _has_all(verbs, sub.get("verbs") or []))
            and ("*" in groups or _has_all(groups, sub.get("apiGroups") or []))
            and _resources_cover_all(owner.get("resources") or [], sub.get("resources") or [])
            and names_ok
            and _urls_cover_all(owner.get("nonResourceURLs") or [], sub.get("nonResourceURLs") or []))


def covers(owner_rules: list[dict], rules: list[dict]) -> list[dict]:
    """Covers: the broken-down rules no owner rule covers."""
    return [sub for rule in rules for sub in breakdown_rule(rule) if not any(rule_covers(o, sub) for o in owner_rules)]


def compact_rules(rules: list[dict]) -> list[dict]:
    """pkg/registry/rbac/validation CompactRules: verbs of the same simple rule appended."""
    compacted: list[dict] = []
    simple: dict[tuple, dict] = {}
    for rule in rules:
        names = rule.get("resourceNames") or []
        if (len(names) > 1 or rule.get("nonResourceURLs") or len(rule.get("apiGroups") or []) != 1
                or len(rule.get("resources") or []) != 1):
            compacted.append(rule)
            continue
        key = (rule["apiGroups"][0], rule["resources"][0], bool(names), names[0] if names else "")
        if key in simple:
            simple[key]["verbs"].extend(rule.get("verbs") or [])
        else:
            simple[key] = {**rule, "verbs": list(rule.get("verbs") or [])}
    return compacted + list(simple.values())


def _q(values) -> str:
    """``%q`` of a []string."""
    return "[" + " ".join(go_quote(str(v)) for v in values) + "]"


def compact_string(rule: dict) -> str:
    """CompactString."""
    parts = [f"{label}:{_q(rule[key])}" for label, key in (
        ("APIGroups", "apiGroups"), ("Resources", "resources"), ("NonResourceURLs", "nonResourceURLs"),
        ("ResourceNames", "resourceNames"), ("Verbs", "verbs")) if rule.get(key)]
    return "{" + ", ".join(parts) + "}"


def confirm_no_escalation(lister, getter, user: UserInfo, namespace: str, rules: list[dict]) -> str | None:
    """ConfirmNoEscalation: None, or the error's text."""
    resource_rules, non_resource_rules, err = R.rules_for(lister, getter, user, namespace)
    missing = covers(resource_rules + non_resource_rules, rules)
    if not missing:
        return None
    descriptions = sorted({compact_string(r) for r in compact_rules(missing)}, key=lambda s: s.encode())
    msg = (f"user {go_quote(user.name)} (groups={_q(user.groups)}) is attempting to grant RBAC permissions not "
           "currently held:\n" + "\n".join(descriptions))
    if err:
        msg += f"; resolution errors: [{err}]"
    return msg


def _allowed(lister, getter, user: UserInfo, verb: str, resource: str, namespace: str, name: str) -> bool:
    return authorize(lister, getter, Attributes(user, verb, True, RBAC_GROUP, resource, "", namespace, name))[0]


def check(lister, getter, user: UserInfo, obj: dict, old: dict | None = None) -> None:
    """The policybased storage's check of a create (``old`` None) or update of a Role,
    ClusterRole, RoleBinding or ClusterRoleBinding by ``user``: Forbidden (or NotFound, for a
    binding's missing role) when it would escalate."""
    from kubesim.errors import Forbidden, NotFound

    if SYSTEM_PRIVILEGED_GROUP in user.groups:
        return
    kind = obj.get("kind", "")
    md = obj.get("metadata") or {}
    name, ns = md.get("name") or "", md.get("namespace") or "" if kind in ("Role", "RoleBinding") else ""
    plural = {"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings",
              "ClusterRoleBinding": "clusterrolebindings"}.get(kind)
    if plural is None:
        return
    resource = f"{plural}.{RBAC_GROUP}"
    if kind in ("Role", "ClusterRole"):
        if _allowed(lister, getter, user, "escalate", plural, ns, name):
            return
        msg = confirm_no_escalation(lister, getter, user, ns, obj.get("rules") or [])
        if msg is not None:
            raise Forbidden(f'{resource} "{name}" is forbidden: {msg}')
        aggregated = [o for o in (obj, old) if o and ((o.get("aggregationRule") or {}).get("clusterRoleSelectors"))]
        if kind == "ClusterRole" and aggregated and \
                confirm_no_escalation(lister, getter, user, ns, FULL_AUTHORITY) is not None:
            raise Forbidden(f'{resource} "{name}" is forbidden: must have cluster-admin privileges to use the '
                            "aggregationRule")
        return
    ref = obj.get("roleRef") or {}
    ref_kind, ref_name = ref.get("kind"), ref.get("name") or ""
    ref_plural = {"Role": "roles", "ClusterRole": "clusterroles"}.get(ref_kind or "")
    if ref_plural and _allowed(lister, getter, user, "bind", ref_plural, ns, ref_name):
        return
    rules, err = R.role_reference_rules(getter, ref, ns)
    if err is not None:
        raise NotFound(resource, ref_name)
    msg = confirm_no_escalation(lister, getter, user, ns, rules)
    if msg is not None:
        raise Forbidden(f'{resource} "{name}" is forbidden: {msg}')
