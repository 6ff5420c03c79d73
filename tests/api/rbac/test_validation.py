"""RBAC validation (pkg/apis/rbac/validation, its cases in validation_test.go), with the API
server's messages as a real v1.35 server printed them, on the objects as the server defaults them."""

import pytest

from tests.api.builders import errors_of, set_path, update_errors

G = "rbac.authorization.k8s.io/v1"
DNS_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def role(*rules, name="r", kind="Role"):
    md = {"name": name, "namespace": "default"} if kind == "Role" else {"name": name}
    return {"apiVersion": G, "kind": kind, "metadata": md, "rules": list(rules)}


def binding(*subjects, kind="RoleBinding", ref=None):
    md = {"name": "b", "namespace": "default"} if kind == "RoleBinding" else {"name": "b"}
    return {"apiVersion": G, "kind": kind, "metadata": md,
            "roleRef": ref if ref is not None else {"kind": "ClusterRole", "name": "view"},
            "subjects": list(subjects)}


PODS = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}

CREATE = [
    ("a role that may get pods", role(PODS), []),
    ("a verb no API server knows is allowed", role({**PODS, "verbs": ["frobnicate"]}), []),
    ("a name with colons, as the system roles have", role(PODS, name="system::leader-locking"), []),
    ("a role name with a slash", role(PODS, name="a/b"), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]),
    ("a rule without verbs, groups or resources", role({"verbs": []}),
     ["rules[0].verbs: Required value: verbs must contain at least one value",
      "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
      "rules[0].resources: Required value: resource rules must supply at least one resource"]),
    ("a namespaced rule for a non-resource URL that also names a group", role(
        {"verbs": ["get"], "nonResourceURLs": ["/healthz"], "apiGroups": [""]}),
     ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and '
      "non-resource URLs"]),
    ("a cluster role may name non-resource URLs", role({"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
                                                       kind="ClusterRole"), []),
    ("an aggregation rule without selectors", {**role(kind="ClusterRole"), "aggregationRule": {}},
     ["aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if "
      "aggregationRule is non-nil"]),
    ("an aggregation selector with a bad operator", {**role(kind="ClusterRole"), "aggregationRule": {
        "clusterRoleSelectors": [{"matchExpressions": [{"key": "a", "operator": "Near"}]}]}},
     ['aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": '
      "not a valid selector operator"]),
    ("a binding to a role that does not exist", binding({"kind": "User", "name": "jane"},
                                                        ref={"kind": "Role", "name": "missing"}), []),
    ("a binding's roleRef without apiGroup is defaulted", binding(ref={"kind": "ClusterRole", "name": "view"}), []),
    ("a binding with a bad roleRef and bad subjects", binding(
        {"kind": "ServiceAccount", "name": "Bad_SA", "apiGroup": "foo"}, {"kind": "User", "name": ""},
        {"kind": "Robot", "name": "r"}, ref={"kind": "Foo", "name": "a/b", "apiGroup": "x"}),
     ['roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Foo": supported values: "Role", "ClusterRole"',
      "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
      f'subjects[0].name: Invalid value: "Bad_SA": {DNS_SUBDOMAIN}',
      'subjects[0].apiGroup: Unsupported value: "foo": supported values: ""',
      "subjects[1].name: Required value",
      'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']),
    ("a binding without a role name", binding(ref={"kind": "Role", "name": ""}), ["roleRef.name: Required value"]),
    ("a user subject of another API group", binding({"kind": "User", "name": "u", "apiGroup": "x"}),
     ['subjects[0].apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"']),
    ("a namespaced binding's service account may leave out its namespace",
     binding({"kind": "ServiceAccount", "name": "sa"}), []),
    ("a cluster binding to a Role, its service account without namespace", binding(
        {"kind": "ServiceAccount", "name": "sa"}, kind="ClusterRoleBinding", ref={"kind": "Role", "name": "x"}),
     ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "subjects[0].namespace: Required value"]),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


UPDATE = [
    ("a binding's role cannot change", binding(), set_path(["roleRef", "name"], "edit"),
     ['roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: '
      "cannot change roleRef"]),
    ("a cluster binding's role cannot change", binding(kind="ClusterRoleBinding"),
     set_path(["roleRef", "name"], "edit"),
     ['roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: '
      "cannot change roleRef"]),
    ("a binding's subjects may change", binding(), set_path(["subjects"], [{"kind": "Group", "name": "g"}]), []),
    ("a role's rules may change", role(PODS), set_path(["rules"], []), []),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    assert update_errors(obj, mutate) == expected
