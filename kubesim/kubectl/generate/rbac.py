"""kubectl's RBAC generators: ``create role``, ``create clusterrole``, ``create rolebinding``,
``create clusterrolebinding``.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_role.go (``CreateRoleOptions``:
Complete dedups verbs (``*`` alone wins), splits ``resource.group/subresource``, dedups resource
names; Validate and ``validateResource`` (the REST mapper resolves each resource, the special
verbs ``use``, ``bind``, ``escalate``, ``impersonate`` only go with their resources);
``generateResourcePolicyRules``: one rule per API group, groups sorted, then one rule of
non-resource URLs), create_clusterrole.go (non-resource URLs and their verbs, the aggregation
rule), create_rolebinding.go and create_clusterrolebinding.go (the roleRef, then users, groups
and ``namespace:name`` service accounts as subjects). Objects are built in Go struct order, as
kubectl's JSON printer writes the typed objects.

The REST mapper is kubesim's kind registry, then the v1.35 API's other resources (from the
OpenAPI documents kubesim ships: ``secrets``, ``services``, ... resolve by plural or singular
name, though not by short name, which those documents do not hold).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesim.errors import RawError, UsageError

RBAC_V1 = "rbac.authorization.k8s.io/v1"
RBAC_GROUP = "rbac.authorization.k8s.io"
VALID_RESOURCE_VERBS = ("*", "get", "delete", "list", "create", "update", "patch", "watch", "proxy",
                        "deletecollection", "use", "bind", "escalate", "impersonate")
VALID_NON_RESOURCE_VERBS = ("*", "get", "post", "put", "delete", "patch", "head", "options")
SPECIAL_VERBS = {
    "use": (("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")),
    "bind": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "escalate": ((RBAC_GROUP, "roles"), (RBAC_GROUP, "clusterroles")),
    "impersonate": (("", "users"), ("", "serviceaccounts"), ("", "groups"), ("authentication.k8s.io", "userextras")),
}


@dataclass(frozen=True)
class ResourceOptions:
    group: str
    resource: str
    subresource: str


def _dedup(values) -> list[str]:
    out: list[str] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def complete_verbs(verbs: list[str]) -> list[str]:
    """Complete's verbs: in order, once each; ``*`` alone when given."""
    return ["*"] if "*" in verbs else _dedup(verbs)


def complete_resources(resources: list[str]) -> list[ResourceOptions]:
    """Complete's ``resource.group/subresource`` parsing (a bare ``*`` stands for all)."""
    out: list[ResourceOptions] = []
    for r in resources:
        base, sep, sub = r.partition("/")
        resource, dot, group = base.partition(".")
        opt = ResourceOptions(group, resource, sub if sep else "")
        if resource == "*" and not dot and not sep:
            return [opt]
        out.append(opt)
    return out


def resource_for(resource: str, group: str) -> tuple[str, str] | None:
    """RESTMapper.ResourceFor(GroupVersionResource{Resource, Group}): (group, plural), None when
    no resource matches."""
    from kubesim.api import kinds

    try:
        info = kinds.lookup(f"{resource}.{group}" if group else resource)
        if info.served:
            return info.group, info.plural
    except UsageError:
        pass
    from kubesim.api import openapi

    name = resource.lower()
    for path, resources in sorted(openapi._document()["groupVersions"].items()):
        for plural, (g, _version, kind, _namespaced) in resources.items():
            if (not group or g == group) and name in (plural, kind.lower()):
                return g, plural
    return None


def _no_match(r: ResourceOptions) -> RawError:
    """CheckErr's text for the mapper's NoResourceMatchError (no ``error:`` prefix)."""
    where = f' in group "{r.group}"' if r.group else ""
    return RawError(f'the server doesn\'t have a resource type "{r.resource}"{where}')


def validate_resources(verbs: list[str], resources: list[ResourceOptions]) -> None:
    """validateResource."""
    for r in resources:
        if not r.resource:
            raise UsageError("resource must be specified if apiGroup/subresource specified")
        if r.resource == "*":
            return
        found = resource_for(r.resource, r.group)
        group, plural = found if found is not None else (r.group, r.resource)
        matched = False
        for v in verbs:
            if v in SPECIAL_VERBS:
                if (group, plural) not in SPECIAL_VERBS[v]:
                    raise UsageError(f"can not perform '{v}' on '{plural}' in group '{group}'")
                matched = True
        if found is None and not matched:
            raise _no_match(r)


def policy_rules(verbs: list[str], resources: list[ResourceOptions], resource_names: list[str],
                 non_resource_urls: list[str]) -> list[dict]:
    """generateResourcePolicyRules."""
    by_group: dict[str, list[str]] = {}
    for r in resources:
        found = resource_for(r.resource, r.group)
        group, plural = found if found is not None else (r.group, r.resource)
        if r.subresource:
            plural = f"{plural}/{r.subresource}"
        names = by_group.setdefault(group, [])
        if plural not in names:
            names.append(plural)
    rules = []
    for group in sorted(by_group, key=lambda g: g.encode()):
        rule: dict = {"verbs": list(verbs), "apiGroups": [group], "resources": by_group[group]}
        if resource_names:
            rule["resourceNames"] = list(resource_names)
        rules.append(rule)
    if non_resource_urls:
        rules.append({"verbs": list(verbs), "nonResourceURLs": list(non_resource_urls)})
    return rules


def _warn_verbs(verbs: list[str], warn) -> None:
    for v in verbs:
        if v not in VALID_RESOURCE_VERBS:
            warn(f"Warning: '{v}' is not a standard resource verb\n")


def role(name: str, namespace: str | None, verbs: list[str], resources: list[str], resource_names: list[str],
         warn) -> dict:
    """CreateRoleOptions: Complete, Validate, then the Role."""
    verbs, opts, names = complete_verbs(verbs), complete_resources(resources), _dedup(resource_names)
    if not name:
        raise UsageError("name must be specified")
    if not verbs:
        raise UsageError("at least one verb must be specified")
    _warn_verbs(verbs, warn)
    if not opts:
        raise UsageError("at least one resource must be specified")
    validate_resources(verbs, opts)
    meta: dict = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"kind": "Role", "apiVersion": RBAC_V1, "metadata": meta, "rules": policy_rules(verbs, opts, names, [])}


def parse_aggregation_rule(raw: list[str] | None, verb: str) -> dict[str, str]:
    """cliflag.MapStringString: ``k=v,k2=v2``, repeatable, keys and values trimmed."""
    from kubesim.kubectl.generate.flags import flag_error

    out: dict[str, str] = {}
    for value in raw or []:
        for pair in value.split(","):
            if not pair:
                continue
            k, sep, v = pair.partition("=")
            if not sep:
                raise flag_error(verb, value, "--aggregation-rule", "malformed pair, expect string=string")
            out[k.strip()] = v.strip()
    return out


def cluster_role(name: str, verbs: list[str], resources: list[str], resource_names: list[str],
                 non_resource_urls: list[str], aggregation: dict[str, str], warn) -> dict:
    """CreateClusterRoleOptions: Complete, Validate, then the ClusterRole."""
    urls = _dedup(non_resource_urls)
    verbs, opts, names = complete_verbs(verbs), complete_resources(resources), _dedup(resource_names)
    if not name:
        raise UsageError("name must be specified")
    obj: dict = {"kind": "ClusterRole", "apiVersion": RBAC_V1, "metadata": {"name": name}}
    if aggregation:
        if urls or verbs or opts or names:
            raise UsageError("aggregation rule must be specified without nonResourceURLs, verbs, resources or "
                             "resourceNames")
        obj["rules"] = None
        obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": dict(sorted(aggregation.items()))}]}
        return obj
    if not verbs:
        raise UsageError("at least one verb must be specified")
    if not opts and not urls:
        raise UsageError("one of resource or nonResourceURL must be specified")
    if opts:
        _warn_verbs(verbs, warn)
        validate_resources(verbs, opts)
    if urls:
        for v in verbs:
            if v not in VALID_NON_RESOURCE_VERBS:
                raise UsageError(f"invalid verb: '{v}' for nonResourceURL")
        for url in urls:
            if url == "*":
                continue
            if not url.startswith("/"):
                raise UsageError("nonResourceURL should start with /")
            if "*" in url[:-1]:
                raise UsageError("nonResourceURL only supports wildcard matches when '*' is at the end")
    obj["rules"] = policy_rules(verbs, opts, names, urls)
    return obj


def subjects(users: list[str], groups: list[str], service_accounts: list[str]) -> list[dict]:
    """The bindings' subjects: users, groups, then ``namespace:name`` service accounts."""
    out = [{"kind": "User", "apiGroup": RBAC_GROUP, "name": u} for u in users]
    out += [{"kind": "Group", "apiGroup": RBAC_GROUP, "name": g} for g in groups]
    for sa in service_accounts:
        tokens = sa.split(":")
        if len(tokens) != 2 or not tokens[0] or not tokens[1]:
            raise UsageError("serviceaccount must be <namespace>:<name>")
        out.append({"kind": "ServiceAccount", "name": tokens[1], "namespace": tokens[0]})
    return out


def role_binding(name: str, namespace: str | None, role_name: str, cluster_role_name: str, users: list[str],
                 groups: list[str], service_accounts: list[str]) -> dict:
    """RoleBindingOptions: Validate, then createRoleBinding."""
    if not name:
        raise UsageError("name must be specified")
    if bool(cluster_role_name) == bool(role_name):
        raise UsageError("exactly one of clusterrole or role must be specified")
    meta: dict = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    obj: dict = {"kind": "RoleBinding", "apiVersion": RBAC_V1, "metadata": meta}
    subs = subjects(users, groups, service_accounts)
    if subs:
        obj["subjects"] = subs
    kind, ref = ("Role", role_name) if role_name else ("ClusterRole", cluster_role_name)
    obj["roleRef"] = {"apiGroup": RBAC_GROUP, "kind": kind, "name": ref}
    return obj


def cluster_role_binding(name: str, cluster_role_name: str, users: list[str], groups: list[str],
                         service_accounts: list[str]) -> dict:
    """ClusterRoleBindingOptions: the ClusterRoleBinding (``--clusterrole`` is a required flag)."""
    obj: dict = {"kind": "ClusterRoleBinding", "apiVersion": RBAC_V1, "metadata": {"name": name}}
    subs = subjects(users, groups, service_accounts)
    if subs:
        obj["subjects"] = subs
    obj["roleRef"] = {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": cluster_role_name}
    return obj
