"""The RBAC authorizer (kubesim.apiserver.authorization.rbac) with upstream's tables:
plugin/pkg/auth/authorizer/rbac/rbac_test.go (TestRuleMatches), pkg/registry/rbac/validation/
rule_test.go (TestAppliesTo), and the impersonation filter's users
(pkg/endpoints/filters/impersonation/impersonation_test.go)."""

from __future__ import annotations

import pytest

from kubesim.apiserver.authorization import (
    Attributes,
    UserInfo,
    authorize,
    forbidden_error,
    impersonated_user,
)
from kubesim.apiserver.authorization import rbac as R

U = UserInfo("u", ("g",))


def res(verb, group, resource, subresource="", name=""):
    return Attributes(U, verb, True, group, resource, subresource, "ns", name)


def url(verb, path):
    return Attributes(U, verb, False, path=path)


def rule(verbs, groups=None, resources=None, urls=None, names=None):
    r = {"verbs": verbs}
    for k, v in (("apiGroups", groups), ("resources", resources), ("nonResourceURLs", urls), ("resourceNames", names)):
        if v is not None:
            r[k] = v
    return r


# (name, rule, [(request, expected)]) — TestRuleMatches
RULE_MATCHES = [
    ("star verb, exact match other", rule(["*"], ["group1"], ["resource1"]),
     [(res("verb1", "group1", "resource1"), True), (res("verb1", "group2", "resource1"), False),
      (res("verb1", "group1", "resource2"), False), (res("verb2", "group1", "resource1"), True)]),
    ("star group, exact match other", rule(["verb1"], ["*"], ["resource1"]),
     [(res("verb1", "group1", "resource1"), True), (res("verb1", "group2", "resource1"), True),
      (res("verb1", "group1", "resource2"), False), (res("verb2", "group1", "resource1"), False)]),
    ("star resource, exact match other", rule(["verb1"], ["group1"], ["*"]),
     [(res("verb1", "group1", "resource1"), True), (res("verb1", "group2", "resource1"), False),
      (res("verb1", "group1", "resource2"), True), (res("verb2", "group1", "resource1"), False)]),
    ("tuple expansion", rule(["verb1", "verb2"], ["group1", "group2"], ["resource1", "resource2"]),
     [(res(v, g, r), True) for v in ("verb1", "verb2") for g in ("group1", "group2") for r in ("resource1", "resource2")]),
    ("subresource expansion", rule(["*"], ["*"], ["resource1/subresource1"]),
     [(res("verb1", "group1", "resource1", "subresource1"), True),
      (res("verb1", "group2", "resource1", "subresource2"), False),
      (res("verb1", "group1", "resource2", "subresource1"), False),
      (res("verb1", "group1", "resource1"), False)]),
    ("a star subresource matches that subresource of any resource", rule(["get"], [""], ["*/log"]),
     [(res("get", "", "pods", "log"), True), (res("get", "", "pods", "exec"), False), (res("get", "", "pods"), False)]),
    ("resource names restrict the objects", rule(["get"], [""], ["pods"], names=["a"]),
     [(res("get", "", "pods", name="a"), True), (res("get", "", "pods", name="b"), False),
      (res("get", "", "pods"), False)]),
    ("star nonresource, exact match other", rule(["verb1"], urls=["*"]),
     [(url("verb1", "/foo"), True), (url("verb1", "/foo/bar/one"), True), (url("verb2", "/foo"), False)]),
    ("star nonresource subpath", rule(["verb1"], urls=["/foo/*"]),
     [(url("verb1", "/foo"), False), (url("verb1", "/foo/bar"), True), (url("verb1", "/foo/baz/one"), True),
      (url("verb1", "/notfoo"), False), (url("verb1", "/notfoo/bar"), False)]),
    ("star verb, exact nonresource", rule(["*"], urls=["/foo", "/foo/bar/one"]),
     [(url("verb1", "/foo"), True), (url("verb1", "/foo/bar"), False), (url("verb2", "/foo/bar/one"), True)]),
    ("a resource rule never allows a path", rule(["*"], ["*"], ["*"]), [(url("get", "/healthz"), False)]),
]


@pytest.mark.parametrize("r, requests", [c[1:] for c in RULE_MATCHES], ids=[c[0] for c in RULE_MATCHES])
def test_rule_allows(r, requests):
    assert [R.rule_allows(req, r) for req, _ in requests] == [want for _, want in requests]


def subject(kind, name, namespace=""):
    s = {"kind": kind, "name": name}
    if namespace:
        s["namespace"] = namespace
    return s


SA = UserInfo("system:serviceaccount:default:sa1", ("system:serviceaccounts",))
# (name, subject, user, binding namespace, applies) — TestAppliesTo
APPLIES_TO = [
    ("a user subject by name", subject("User", "foobar"), UserInfo("foobar"), "", True),
    ("another user", subject("User", "foobar"), UserInfo("foobaz"), "", False),
    ("a group the user is in", subject("Group", "bar"), UserInfo("foobar", ("foo", "bar")), "", True),
    ("a group the user is not in", subject("Group", "baz"), UserInfo("foobar", ("foo", "bar")), "", False),
    ("a user named like the group", subject("Group", "foobar"), UserInfo("foobar"), "", False),
    ("a service account in its namespace", subject("ServiceAccount", "sa1", "default"), SA, "", True),
    ("a service account without namespace takes the binding's", subject("ServiceAccount", "sa1"), SA, "default", True),
    ("a service account without namespace in a cluster binding", subject("ServiceAccount", "sa1"), SA, "", False),
    ("a service account of another namespace", subject("ServiceAccount", "sa1", "other"), SA, "", False),
    ("a user named as the service account is no service account subject",
     subject("User", "sa1"), SA, "default", False),
    ("an unknown subject kind", subject("Robot", "foobar"), UserInfo("foobar"), "", False),
]


@pytest.mark.parametrize("s, user, ns, want", [c[1:] for c in APPLIES_TO], ids=[c[0] for c in APPLIES_TO])
def test_applies_to_user(s, user, ns, want):
    assert R.applies_to_user(user, s, ns) is want


G = "rbac.authorization.k8s.io"
OBJECTS = {
    ("ClusterRole", "", "view-pods"): {"rules": [rule(["get", "list"], [""], ["pods"])]},
    ("Role", "ns", "edit-cm"): {"rules": [rule(["*"], [""], ["configmaps"])]},
    ("RoleBinding", "ns", "b1"): {"roleRef": {"kind": "Role", "name": "edit-cm"}, "subjects": [subject("User", "u")]},
    ("RoleBinding", "ns", "b2"): {"roleRef": {"kind": "Role", "name": "missing"}, "subjects": [subject("Group", "g")]},
    ("RoleBinding", "other", "b3"): {"roleRef": {"kind": "ClusterRole", "name": "view-pods"},
                                     "subjects": [subject("User", "u")]},
    ("ClusterRoleBinding", "", "c1"): {"roleRef": {"kind": "ClusterRole", "name": "gone"},
                                       "subjects": [subject("User", "u")]},
}


def lister(kind, ns):
    return [o for (k, n, _), o in sorted(OBJECTS.items()) if k == kind and (ns is None or n == ns)]


def getter(kind, ns, name):
    return OBJECTS.get((kind, ns, name))


AUTHORIZE = [
    ("a role bound in the namespace allows", res("delete", "", "configmaps"), (True, "")),
    ("a cluster role bound in another namespace does not",
     res("get", "", "pods"),
     (False, 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, '
             'role.rbac.authorization.k8s.io "missing" not found]')),
    ("a cluster role bound by a role binding applies in its namespace",
     Attributes(U, "list", True, "", "pods", namespace="other"),
     (True, "")),
    ("the privileged group may do anything",
     Attributes(UserInfo("x", ("system:masters",)), "delete", True, "", "nodes"), (True, "")),
]


@pytest.mark.parametrize("attrs, want", [c[1:] for c in AUTHORIZE], ids=[c[0] for c in AUTHORIZE])
def test_authorize(attrs, want):
    assert authorize(lister, getter, attrs) == want


def test_rules_for_splits_resource_and_non_resource_rules_and_reports_what_it_could_not_read():
    resource, non_resource, err = R.rules_for(lister, getter, U, "ns")
    assert resource == [rule(["*"], [""], ["configmaps"])]
    assert non_resource == []
    assert err == ('[clusterrole.rbac.authorization.k8s.io "gone" not found, '
                   'role.rbac.authorization.k8s.io "missing" not found]')


IMPERSONATE = [
    ("a user gets system:authenticated", ("jane", ()), ("jane", ("system:authenticated",))),
    ("asked-for groups come first", ("jane", ("a", "b")), ("jane", ("a", "b", "system:authenticated"))),
    ("system:authenticated asked for is not repeated", ("jane", ("system:authenticated",)),
     ("jane", ("system:authenticated",))),
    ("a service account gets its groups", ("system:serviceaccount:dev:foo", ()),
     ("system:serviceaccount:dev:foo",
      ("system:serviceaccounts", "system:serviceaccounts:dev", "system:authenticated"))),
    ("a service account with groups asked for gets only those", ("system:serviceaccount:dev:foo", ("x",)),
     ("system:serviceaccount:dev:foo", ("x", "system:authenticated"))),
    ("the anonymous user is unauthenticated", ("system:anonymous", ()),
     ("system:anonymous", ("system:unauthenticated",))),
]


@pytest.mark.parametrize("asked, want", [c[1:] for c in IMPERSONATE], ids=[c[0] for c in IMPERSONATE])
def test_impersonated_user(asked, want):
    user = impersonated_user(*asked)
    assert (user.name, user.groups) == want


FORBIDDEN = [
    ("a list in a namespace", Attributes(UserInfo("jane"), "list", True, "", "pods", namespace="default"),
     'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"'),
    ("a named object of a group at the cluster scope",
     Attributes(UserInfo("jane"), "get", True, "storage.k8s.io", "storageclasses", name="fast"),
     'storageclasses.storage.k8s.io "fast" is forbidden: User "jane" cannot get resource "storageclasses" in API '
     'group "storage.k8s.io" at the cluster scope'),
    ("a subresource", Attributes(UserInfo("jane"), "get", True, "", "pods", "log", "ns", "p"),
     'pods "p" is forbidden: User "jane" cannot get resource "pods/log" in API group "" in the namespace "ns"'),
    ("a path", Attributes(UserInfo("jane"), "get", False, path="/metrics"),
     'forbidden: User "jane" cannot get path "/metrics"'),
]


@pytest.mark.parametrize("attrs, want", [c[1:] for c in FORBIDDEN], ids=[c[0] for c in FORBIDDEN])
def test_forbidden_text(attrs, want):
    err = forbidden_error(attrs)
    assert (err.reason, err.message) == ("Forbidden", want)


# -- escalation (component-helpers policy_comparator_test.go, rule.go's ConfirmNoEscalation) ----

from kubesim.apiserver.authorization import escalation as E  # noqa: E402

COVERS = [
    ("a star owner covers everything", [rule(["*"], ["*"], ["*"])], [rule(["get"], [""], ["pods"])], []),
    ("verbs must all be held", [rule(["get"], [""], ["pods"])], [rule(["get", "delete"], [""], ["pods"])],
     [rule(["delete"], [""], ["pods"])]),
    ("a star subresource covers that subresource", [rule(["get"], [""], ["*/log"])],
     [rule(["get"], [""], ["pods/log"])], []),
    ("a named owner rule does not cover all names", [rule(["get"], [""], ["pods"], names=["a"])],
     [rule(["get"], [""], ["pods"])], [rule(["get"], [""], ["pods"])]),
    ("an unnamed owner rule covers every name", [rule(["get"], [""], ["pods"])],
     [rule(["get"], [""], ["pods"], names=["a", "b"])], []),
    ("a URL prefix covers the URLs under it", [rule(["get"], urls=["/logs/*"])], [rule(["get"], urls=["/logs/a"])], []),
]


@pytest.mark.parametrize("owner, wanted, missing", [c[1:] for c in COVERS], ids=[c[0] for c in COVERS])
def test_covers(owner, wanted, missing):
    assert E.covers(owner, wanted) == missing


def test_compact_string_quotes_as_go_does():
    r = rule(["get", "list"], [""], ["pods"], names=["a"])
    assert E.compact_string(r) == '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}'


def test_the_privileged_group_escalates_freely():
    admin = UserInfo("x", ("system:masters",))
    E.check(lister, getter, admin, {"kind": "ClusterRole", "metadata": {"name": "r"}, "rules": [rule(["*"], ["*"], ["*"])]})
