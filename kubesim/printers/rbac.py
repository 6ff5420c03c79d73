"""kubectl's table columns and rows for rbac.authorization.k8s.io/v1.

Upstream: pkg/printers/internalversion/printers.go (``roleBindingsColumnDefinitions``,
``printRoleBinding``, ``clusterRoleBindingsColumnDefinitions``, ``printClusterRoleBinding``;
the wide columns from pkg/apis/rbac/helpers.go ``SubjectsStrings``). Roles and ClusterRoles
have no printer there: the API server's default table convertor
(staging/src/k8s.io/apiserver/pkg/registry/rest/table.go) prints NAME and CREATED AT, the
creation time in RFC 3339.
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, object_meta


def print_role(role: dict, ctx: PrintContext) -> list[str]:
    meta = object_meta(role)
    return [meta.get("name", ""), str(meta.get("creationTimestamp") or "")]


ROLE_COLUMNS = [Column("Name", format="name"), Column("Created At")]


def subjects_strings(subjects) -> tuple[list[str], list[str], list[str], list[str]]:
    """SubjectsStrings: users, groups, ``namespace/name`` service accounts, and the others."""
    users: list[str] = []
    groups: list[str] = []
    sas: list[str] = []
    others: list[str] = []
    for s in subjects or ():
        s = s if isinstance(s, dict) else {}
        kind, ns, name = s.get("kind") or "", s.get("namespace") or "", s.get("name") or ""
        if kind == "ServiceAccount":
            sas.append(f"{ns}/{name}")
        elif kind == "User":
            users.append(name)
        elif kind == "Group":
            groups.append(name)
        else:
            others.append(f"{kind}/{ns}/{name}")
    return users, groups, sas, others


def print_role_binding(binding: dict, ctx: PrintContext) -> list[str]:
    ref = binding.get("roleRef") or {}
    users, groups, sas, _ = subjects_strings(binding.get("subjects"))
    return [object_meta(binding).get("name", ""), f"{ref.get('kind') or ''}/{ref.get('name') or ''}",
            age(binding, ctx), ", ".join(users), ", ".join(groups), ", ".join(sas)]


ROLE_BINDING_COLUMNS = [
    Column("Name", format="name"), Column("Role"), Column("Age"),
    Column("Users", priority=1), Column("Groups", priority=1), Column("ServiceAccounts", priority=1),
]
