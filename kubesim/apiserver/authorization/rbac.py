"""The RBAC authorizer: which rules apply to a user, and whether one of them allows a request.

Upstream: plugin/pkg/auth/authorizer/rbac/rbac.go (``RBACAuthorizer.Authorize``: allowed as
soon as a rule allows; otherwise no opinion, with ``RBAC: <errors>`` as the reason when a
binding's role could not be read; ``RulesFor``; ``RuleAllows``),
pkg/apis/rbac/v1/evaluation_helpers.go (``VerbMatches``, ``APIGroupMatches``,
``ResourceMatches`` with ``*/subresource``, ``ResourceNameMatches``, ``NonResourceURLMatches``
with a trailing ``*``) and pkg/registry/rbac/validation/rule.go (``DefaultRuleResolver``:
``VisitRulesFor`` walks the ClusterRoleBindings, then the RoleBindings of the request's
namespace; ``appliesTo`` a User by name, a Group by membership, a ServiceAccount by its
``system:serviceaccount:NS:NAME`` username, the binding's namespace standing in for a missing
one; ``GetRoleReferenceRules``).

The bindings are visited by name (upstream's informer cache lists them in no set order).
Objects come from ``lister(kind, namespace)`` and ``getter(kind, namespace, name)``, so this
module reads no store itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kubesim.apiserver.authorization import Attributes, UserInfo

Lister = Callable[[str, "str | None"], list]
Getter = Callable[[str, str, str], "dict | None"]


def verb_matches(rule: dict, verb: str) -> bool:
    return any(v in ("*", verb) for v in rule.get("verbs") or ())


def api_group_matches(rule: dict, group: str) -> bool:
    return any(g in ("*", group) for g in rule.get("apiGroups") or ())


def resource_matches(rule: dict, combined: str, subresource: str) -> bool:
    for r in rule.get("resources") or ():
        if r in ("*", combined):
            return True
        if subresource and len(r) == len(subresource) + 2 and r.startswith("*/") and r.endswith(subresource):
            return True
    return False


def resource_name_matches(rule: dict, name: str) -> bool:
    names = rule.get("resourceNames") or ()
    return not names or name in names


def non_resource_url_matches(rule: dict, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or ():
        if url in ("*", path):
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def rule_allows(attrs: Attributes, rule: dict) -> bool:
    """RuleAllows."""
    if attrs.resource_request:
        combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
        return (verb_matches(rule, attrs.verb) and api_group_matches(rule, attrs.api_group)
                and resource_matches(rule, combined, attrs.subresource) and resource_name_matches(rule, attrs.name))
    return verb_matches(rule, attrs.verb) and non_resource_url_matches(rule, attrs.path)


def applies_to_user(user: UserInfo, subject: dict, namespace: str) -> bool:
    """appliesToUser."""
    kind, name = subject.get("kind"), subject.get("name") or ""
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        ns = subject.get("namespace") or namespace
        return bool(ns) and user.name == f"system:serviceaccount:{ns}:{name}"
    return False


def _not_found(kind: str, name: str) -> str:
    return f'{kind.lower()}.rbac.authorization.k8s.io "{name}" not found'


def role_reference_rules(getter: Getter, ref: dict, namespace: str) -> tuple[list[dict], str | None]:
    """GetRoleReferenceRules: the referenced role's rules, or the error reading it."""
    kind, name = ref.get("kind"), ref.get("name") or ""
    if kind == "Role":
        role = getter("Role", namespace, name)
        return ((role.get("rules") or []), None) if role is not None else ([], _not_found("Role", name))
    if kind == "ClusterRole":
        role = getter("ClusterRole", "", name)
        return ((role.get("rules") or []), None) if role is not None else ([], _not_found("ClusterRole", name))
    return [], f'unsupported role reference kind: "{kind}"'


def visit_rules_for(lister: Lister, getter: Getter, user: UserInfo, namespace: str) -> Iterator[tuple[dict | None, str | None]]:
    """VisitRulesFor: (rule, None) for every rule bound to ``user`` cluster-wide and in
    ``namespace``, (None, error) where a bound role could not be read."""
    for _source, rule, err in _visit_rules_with_source(lister, getter, user, namespace):
        yield rule, err


def _describe_subject(s: dict, binding_namespace: str) -> str:
    """describeSubject."""
    name = s.get("name") or ""
    if s.get("kind") == "ServiceAccount":
        name += "/" + (s.get("namespace") or binding_namespace)
    return f'{s.get("kind")} "{name}"'


def _visit_rules_with_source(lister: Lister, getter: Getter, user: UserInfo, namespace: str):
    """VisitRulesFor with its source: (the binding's description, as clusterRoleBindingDescriber
    and roleBindingDescriber write it; rule; error)."""
    scopes = [("ClusterRoleBinding", None, "")]
    if namespace:
        scopes.append(("RoleBinding", namespace, namespace))
    for kind, list_ns, ns in scopes:
        for binding in lister(kind, list_ns):
            subject = next((s for s in binding.get("subjects") or ()
                            if isinstance(s, dict) and applies_to_user(user, s, ns)), None)
            if subject is None:
                continue
            ref = binding.get("roleRef") or {}
            rules, err = role_reference_rules(getter, ref, ns)
            if err is not None:
                yield None, None, err
                continue
            name = ((binding.get("metadata") or {}).get("name") or "") + (f"/{ns}" if ns else "")
            source = f'{kind} "{name}" of {ref.get("kind")} "{ref.get("name") or ""}" to {_describe_subject(subject, ns)}'
            for rule in rules:
                yield source, rule, None


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one error as it is, several as ``[a, b]``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def authorize(lister: Lister, getter: Getter, attrs: Attributes) -> tuple[bool, str]:
    """RBACAuthorizer.Authorize: (allowed, reason)."""
    allowed, reason = authorize_with_reason(lister, getter, attrs)
    return allowed, "" if allowed else reason


def authorize_with_reason(lister: Lister, getter: Getter, attrs: Attributes) -> tuple[bool, str]:
    """RBACAuthorizer.Authorize with the reason of an allowed request too (``RBAC: allowed by
    ClusterRoleBinding "x" of ClusterRole "y" to Group "z"``, what the audit log records)."""
    errors: list[str] = []
    for source, rule, err in _visit_rules_with_source(lister, getter, attrs.user, attrs.namespace):
        if err is not None:
            errors.append(err)
        elif rule_allows(attrs, rule):
            return True, f"RBAC: allowed by {source}"
    return False, f"RBAC: {_aggregate(errors)}" if errors else ""


def rules_for(lister: Lister, getter: Getter, user: UserInfo, namespace: str) -> tuple[list[dict], list[dict], str]:
    """RBACAuthorizer.RulesFor: the resource rules, the non-resource rules, and the
    evaluation error (``""`` when none)."""
    resource_rules: list[dict] = []
    non_resource_rules: list[dict] = []
    errors: list[str] = []
    for rule, err in visit_rules_for(lister, getter, user, namespace):
        if err is not None:
            errors.append(err)
            continue
        if rule.get("resources"):
            resource_rules.append({k: list(rule[k]) for k in ("verbs", "apiGroups", "resources", "resourceNames")
                                   if rule.get(k)})
        if rule.get("nonResourceURLs"):
            non_resource_rules.append({"verbs": list(rule.get("verbs") or []),
                                       "nonResourceURLs": list(rule["nonResourceURLs"])})
    return resource_rules, non_resource_rules, _aggregate(errors) if errors else ""
