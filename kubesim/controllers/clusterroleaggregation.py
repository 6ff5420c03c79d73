"""The ClusterRole aggregation controller: an aggregated ClusterRole's rules are the rules of
every ClusterRole its selectors pick.

Upstream: pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
(``syncClusterRole``): for a ClusterRole with an ``aggregationRule``, each
``clusterRoleSelector`` in turn lists the ClusterRoles it matches, by name, itself left out,
and their rules are appended in that order unless an equal rule is already there
(``ruleExists``, semantic equality: an empty list is a missing one). When the result differs
from the role's rules, the controller applies it (server-side apply as
``clusterrole-aggregation-controller``; kubesim replaces ``rules``, dropped when empty). It
records no events.

``sync(view) -> list[Change]``, as every controller (``kubesim.controllers.base``).
"""

from __future__ import annotations

from kubesim.api import selectors
from kubesim.controllers.base import Change, View, deepcopy

RULE_FIELDS = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")


def _semantic(rule: dict) -> tuple:
    """A rule as equality.Semantic compares it: nil and empty lists alike."""
    return tuple(tuple(rule.get(f) or ()) for f in RULE_FIELDS)


def aggregated_rules(role: dict, cluster_roles: list[dict]) -> list[dict] | None:
    """The rules ``role``'s aggregationRule gathers from ``cluster_roles``; None when it has no
    aggregationRule or a selector is invalid (upstream returns that error and retries)."""
    rule = role.get("aggregationRule")
    if not isinstance(rule, dict):
        return None
    name = (role.get("metadata") or {}).get("name")
    out: list[dict] = []
    seen: set[tuple] = set()
    by_name = sorted(cluster_roles, key=lambda r: (r.get("metadata") or {}).get("name", ""))
    for sel in rule.get("clusterRoleSelectors") or ():
        try:
            selector = selectors.from_label_selector(sel)
        except ValueError:
            return None
        for other in by_name:
            md = other.get("metadata") or {}
            if md.get("name") == name or not selector.matches(md.get("labels") or {}):
                continue
            for r in other.get("rules") or ():
                key = _semantic(r)
                if key not in seen:
                    seen.add(key)
                    out.append(r)
    return out


def sync(view: View) -> list[Change]:
    cluster_roles = view.list("ClusterRole")
    changes: list[Change] = []
    for role in cluster_roles:
        rules = aggregated_rules(role, cluster_roles)
        if rules is None:
            continue
        if [_semantic(r) for r in rules] == [_semantic(r) for r in role.get("rules") or ()]:
            continue
        updated = deepcopy(role)
        if rules:
            updated["rules"] = deepcopy(rules)
        else:
            updated.pop("rules", None)
        changes.append(Change("update", updated))
    return changes
