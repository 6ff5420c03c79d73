"""describe for rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``RoleDescriber``,
``ClusterRoleDescriber``: the rules broken down and compacted, then sorted, as
``pkg/util/rbac/rbac.go`` does (``BreakdownRule``, ``CompactRules``, ``SortableRuleSlice``:
ordered by the rule's protobuf ``String()``); ``CombineResourceGroup``; ``RoleBindingDescriber``,
``ClusterRoleBindingDescriber``). None of them prints events.
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    DescribeContext,
    PrefixWriter,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)


def _strs(v) -> list[str]:
    return [str(x) for x in v] if isinstance(v, list) else []


def breakdown_rule(rule: dict) -> list[dict]:
    """BreakdownRule: one rule per group, resource, verb and resource name; one per non-resource
    URL and verb."""
    verbs, names = _strs(rule.get("verbs")), _strs(rule.get("resourceNames"))
    out: list[dict] = []
    for group in _strs(rule.get("apiGroups")):
        for resource in _strs(rule.get("resources")):
            for verb in verbs:
                if names:
                    out.extend({"apiGroups": [group], "resources": [resource], "verbs": [verb],
                                "resourceNames": [n]} for n in names)
                else:
                    out.append({"apiGroups": [group], "resources": [resource], "verbs": [verb]})
    for url in _strs(rule.get("nonResourceURLs")):
        out.extend({"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs)
    return out


def _simple_key(rule: dict) -> tuple | None:
    """isSimpleResourceRule: one group, one resource, at most one name, nothing else."""
    names = rule.get("resourceNames") or []
    if len(names) > 1 or rule.get("nonResourceURLs"):
        return None
    if len(rule.get("apiGroups") or []) != 1 or len(rule.get("resources") or []) != 1:
        return None
    return (rule["apiGroups"][0], rule["resources"][0], bool(names), names[0] if names else "")


def compact_rules(rules: list[dict]) -> list[dict]:
    """CompactRules: simple rules that differ only by verb merge (verbs in first-seen order)."""
    compacted: list[dict] = []
    simple: dict[tuple, dict] = {}
    for rule in rules:
        key = _simple_key(rule)
        if key is None:
            compacted.append(rule)
        elif key in simple:
            verbs = simple[key]["verbs"]
            verbs.extend(v for v in rule.get("verbs") or [] if v not in verbs)
        else:
            simple[key] = {**rule, "verbs": list(rule.get("verbs") or [])}
    return compacted + list(simple.values())


def _go_slice(v) -> str:
    """``%v`` of a []string."""
    return "[" + " ".join(_strs(v)) + "]"


def policy_rule_string(rule: dict) -> str:
    """The generated PolicyRule.String() (k8s.io/api rbac/v1 generated.pb.go), the sort key."""
    return (f"&PolicyRule{{Verbs:{_go_slice(rule.get('verbs'))},APIGroups:{_go_slice(rule.get('apiGroups'))},"
            f"Resources:{_go_slice(rule.get('resources'))},ResourceNames:{_go_slice(rule.get('resourceNames'))},"
            f"NonResourceURLs:{_go_slice(rule.get('nonResourceURLs'))},}}")


def sorted_compact_rules(rules) -> list[dict]:
    """The describer's rules: broken down, compacted, stably sorted by String()."""
    broken: list[dict] = []
    for rule in rules if isinstance(rules, list) else ():
        broken.extend(breakdown_rule(rule if isinstance(rule, dict) else {}))
    return sorted(compact_rules(broken), key=lambda r: policy_rule_string(r).encode())


def combine_resource_group(resources: list[str], groups: list[str]) -> str:
    """CombineResourceGroup: ``pods``, ``deployments.apps``, ``pods.apps/log``."""
    if not resources:
        return ""
    resource, sep, sub = resources[0].partition("/")
    combined = resource
    if groups and groups[0] != "":
        combined += "." + groups[0]
    if sep:
        combined += "/" + sub
    return combined


def describe_role(role: dict, ctx: DescribeContext) -> str:
    """RoleDescriber and ClusterRoleDescriber."""
    meta = object_meta(role)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, "PolicyRule:\n")
    w.write(LEVEL_1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n")
    w.write(LEVEL_1, "---------\t-----------------\t--------------\t-----\n")
    for r in sorted_compact_rules(role.get("rules")):
        w.write(LEVEL_1, f"{combine_resource_group(_strs(r.get('resources')), _strs(r.get('apiGroups')))}\t"
                         f"{_go_slice(r.get('nonResourceURLs'))}\t{_go_slice(r.get('resourceNames'))}\t"
                         f"{_go_slice(r.get('verbs'))}\n")
    return w.text()


def describe_role_binding(binding: dict, ctx: DescribeContext) -> str:
    """RoleBindingDescriber and ClusterRoleBindingDescriber."""
    meta = object_meta(binding)
    ref = binding.get("roleRef") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, "Role:\n")
    w.write(LEVEL_1, f"Kind:\t{ref.get('kind') or ''}\n")
    w.write(LEVEL_1, f"Name:\t{ref.get('name') or ''}\n")
    w.write(LEVEL_0, "Subjects:\n")
    w.write(LEVEL_1, "Kind\tName\tNamespace\n")
    w.write(LEVEL_1, "----\t----\t---------\n")
    for s in binding.get("subjects") or ():
        s = s if isinstance(s, dict) else {}
        w.write(LEVEL_1, f"{s.get('kind') or ''}\t{s.get('name') or ''}\t{s.get('namespace') or ''}\n")
    return w.text()
