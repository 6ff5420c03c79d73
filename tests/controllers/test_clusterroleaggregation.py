"""The ClusterRole aggregation controller (kubesim.controllers.clusterroleaggregation), with the
cases of upstream's clusterroleaggregation_controller_test.go (TestSyncClusterRole), and the
default cluster's admin, edit and view as a real v1.35 cluster aggregates them
(``testdata/aggregated-roles-v1.35.json``: ``kubectl get clusterrole admin edit view -o json``
from the conformance oracle)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesim.controllers import clusterroleaggregation as CRA
from kubesim.controllers.base import View
from kubesim.testing.cli import Harness

G = "rbac.authorization.k8s.io/v1"


def role(name, labels=None, rules=None, selectors=None):
    r = {"apiVersion": G, "kind": "ClusterRole", "metadata": {"name": name, "labels": labels or {}}}
    if rules is not None:
        r["rules"] = rules
    if selectors is not None:
        r["aggregationRule"] = {"clusterRoleSelectors": selectors}
    return r


def rule(*verbs):
    return {"apiGroups": [""], "resources": ["pods"], "verbs": list(verbs)}


CASES = [
    ("a role without aggregation rule is left alone",
     [role("hammer", rules=[rule("a")]), role("a", {"foo": "bar"}, [rule("b")])], "hammer", None),
    ("no role matches: nothing to change",
     [role("hammer", selectors=[{"matchLabels": {"foo": "bar"}}])], "hammer", None),
    ("the rules of the matching roles, by name, added",
     [role("hammer", selectors=[{"matchLabels": {"foo": "bar"}}]),
      role("b", {"foo": "bar"}, [rule("b")]), role("a", {"foo": "bar"}, [rule("a")]),
      role("c", {"foo": "other"}, [rule("c")])],
     "hammer", [rule("a"), rule("b")]),
    ("an equal rule is added once, and the role's own rules are not gathered",
     [role("hammer", {"foo": "bar"}, [rule("x")], [{"matchLabels": {"foo": "bar"}}]),
      role("a", {"foo": "bar"}, [rule("a"), rule("b")]), role("b", {"foo": "bar"}, [rule("b"), rule("a")])],
     "hammer", [rule("a"), rule("b")]),
    ("selectors gather in their order",
     [role("hammer", selectors=[{"matchLabels": {"z": "1"}}, {"matchLabels": {"a": "1"}}]),
      role("a", {"a": "1"}, [rule("a")]), role("z", {"z": "1"}, [rule("z")])],
     "hammer", [rule("z"), rule("a")]),
    ("rules already aggregated: no update",
     [role("hammer", rules=[rule("a")], selectors=[{"matchLabels": {"foo": "bar"}}]),
      role("a", {"foo": "bar"}, [rule("a")])], "hammer", None),
    ("the matching role lost its label: the rules go",
     [role("hammer", rules=[rule("a")], selectors=[{"matchLabels": {"foo": "bar"}}]),
      role("a", {}, [rule("a")])], "hammer", []),
]


@pytest.mark.parametrize("roles, name, want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_sync(roles, name, want):
    changes = CRA.sync(View({"ClusterRole": roles}, 0.0))
    updated = {ch.obj["metadata"]["name"]: ch.obj for ch in changes if ch.op == "update"}
    if want is None:
        assert name not in updated
    else:
        assert updated[name].get("rules", []) == want


def test_a_new_cluster_aggregates_admin_edit_and_view_as_a_real_one(tmp_path):
    h = Harness(tmp_path / "state")
    got = json.loads(h.ok("get clusterrole admin edit view -o json"))
    want = json.loads((Path(__file__).parent / "testdata" / "aggregated-roles-v1.35.json").read_text())
    assert {r["metadata"]["name"]: r["rules"] for r in got["items"]} == want


def test_a_user_role_with_an_aggregation_label_joins_view(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.apply(f"""apiVersion: {G}
kind: ClusterRole
metadata: {{name: widgets-view, labels: {{rbac.authorization.k8s.io/aggregate-to-view: "true"}}}}
rules: [{{apiGroups: [example.com], resources: [widgets], verbs: [get, list]}}]
""")
    widget = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list"]}
    for name in ("view", "edit", "admin"):  # edit and admin aggregate view's and edit's labels in turn
        rules = json.loads(h.ok(f"get clusterrole {name} -o json"))["rules"]
        assert widget in rules, name
    h.ok("delete clusterrole widgets-view")
    assert widget not in json.loads(h.ok("get clusterrole admin -o json"))["rules"]


def test_cluster_init_creates_the_default_roles_and_kubeadms_bindings(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    # 68 of the API server's bootstrap policy (as the oracle lists), kubeadm:get-nodes, and
    # CoreDNS's system:coredns (kubeadm's addon phase, even without nodes)
    assert len(h.ok("get clusterroles --no-headers").splitlines()) == 70
    # 49 of the bootstrap policy, 5 of kubeadm's, system:coredns and kubeadm:node-proxier
    assert len(h.ok("get clusterrolebindings --no-headers").splitlines()) == 56
    assert h.ok("get clusterrolebinding kubeadm:cluster-admins -o wide").splitlines()[1].split() == [
        "kubeadm:cluster-admins", "ClusterRole/cluster-admin", "0s", "kubeadm:cluster-admins"]
    # the bootstrap policy's and kubeadm's, plus the kube-proxy Role joining nodes read its ConfigMap with
    assert len(h.ok("get roles -A --no-headers").splitlines()) == 11
