"""``auth can-i``, ``auth whoami`` and ``--as``/``--as-group`` on every verb, against a real v1.35
cluster's answers.

``testdata/auth_oracle.txt`` is the transcript of the conformance oracle (a real v1.35 API
server with RBAC, kubectl 1.36) after ``kubectl apply -f testdata/auth_setup.yaml``: each
``$ kubectl ...`` command, what it printed (stderr, then stdout) and its exit code. kubesim runs
the same commands on a fresh cluster with the same objects and must print the same, byte for
byte (the SelfSubjectReview's creationTimestamp masked). Upstream: staging/src/k8s.io/kubectl/
pkg/cmd/auth/cani.go, whoami.go; plugin/pkg/auth/authorizer/rbac.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from kubesim.testing.cli import Harness, snapshot

DATA = Path(__file__).parent / "testdata"


def _transcript(name: str = "auth_oracle.txt") -> list[tuple[str, str, int]]:
    cases = []
    for block in DATA.joinpath(name).read_text().split("$ kubectl ")[1:]:
        command, _, rest = block.partition("\n")
        out, rc = re.fullmatch(r"(.*)\[rc=(\d+)\]\n", rest, re.S).groups()
        cases.append((command, out, int(rc)))
    return cases


CASES = _transcript()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("auth") / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'auth_setup.yaml'}")
    return h


@pytest.mark.parametrize("command, want, rc", CASES, ids=[c[0] for c in CASES])
def test_as_a_real_cluster_answers(cluster, command, want, rc):
    r = cluster(shlex.split(command))
    got = re.sub(r'"creationTimestamp": "[^"]+"', '"creationTimestamp": "<now>"', r.err + r.out)
    assert (got.replace("kubesim", "kubectl"), r.code) == (want, rc)


def test_kubesims_own_user_is_kubeadms_admin(cluster):
    out = cluster.ok("auth whoami")
    lines = out.splitlines()
    assert lines[:3] == ["ATTRIBUTE                                           VALUE",
                         "Username                                            kubernetes-admin",
                         "Groups                                              [kubeadm:cluster-admins system:authenticated]"]
    assert lines[3].startswith("Extra: authentication.kubernetes.io/credential-id   [X509SHA256=")


def test_the_admin_can_do_anything_through_kubeadms_binding(cluster):
    assert cluster.ok("auth can-i '*' '*' -A") == "yes\n"
    listed = cluster.ok("auth can-i --list").splitlines()
    assert listed[1].split() == ["*.*", "[]", "[]", "[*]"]


@pytest.mark.parametrize("command", [
    "create configmap c -n rbac-b --as=jane",
    "apply -f {setup} --as=jane",
    "delete pod x -n rbac-b --as=jane",
    "label ns rbac-b a=b --as=jane",
], ids=["a generator's create", "apply", "delete", "label"])
def test_a_refused_request_changes_nothing(tmp_path, command):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'auth_setup.yaml'}")
    before = snapshot(tmp_path / "state")
    r = h(command.format(setup=DATA / "auth_setup.yaml"))
    assert r.code == 1 and "is forbidden: User \"jane\" cannot" in r.err
    assert snapshot(tmp_path / "state") == before


def test_a_service_account_bound_to_a_role_reads_pods_but_cannot_delete_them(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'auth_setup.yaml'}")
    sa = "--as=system:serviceaccount:rbac-b:sa1"
    h.ok(f"run web --image=nginx -n rbac-b")
    assert h.ok(f"get pods -n rbac-b -o name {sa}") == "pod/web\n"
    r = h(f"delete pod web -n rbac-b {sa}")
    assert (r.code, r.err) == (1, 'Error from server (Forbidden): pods "web" is forbidden: User '
                                  '"system:serviceaccount:rbac-b:sa1" cannot delete resource "pods" in API group "" '
                                  'in the namespace "rbac-b"\n')


# RBAC escalation prevention (pkg/registry/rbac/escalation_check.go and the policybased
# storages): jane may create roles and role bindings in rbac-e but holds only pod-reader; a real
# v1.35 server's answers, in order (each command sees the objects the ones before it created)
ESCALATION = _transcript("escalation_oracle.txt")


def test_escalation_is_refused_as_a_real_cluster_refuses_it(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'escalation_setup.yaml'}")
    for command, want, rc in ESCALATION:
        r = h(shlex.split(command))
        assert (r.err + r.out, r.code) == (want, rc), command


@pytest.mark.parametrize("command, verb", [
    ("label pod web -n rbac-b a=b --as=jane", "patch"),
    ("replace -f - --as=jane", "update"),
], ids=["label is a PATCH", "replace is a PUT"])
def test_writes_are_authorized_as_the_request_kubectl_sends(tmp_path, command, verb):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'auth_setup.yaml'}")
    h.ok("run web --image=nginx -n rbac-b")
    r = h(command, stdin=h.ok("get pod web -n rbac-b -o yaml"))
    assert r.code == 1 and r.err.endswith(
        f'pods "web" is forbidden: User "jane" cannot {verb} resource "pods" in API group "" in the namespace '
        '"rbac-b"\n')


def test_a_partly_refused_get_prints_what_it_may_and_describe_skips_events(tmp_path):
    # as a real v1.35 cluster answers jane, who may only get and list pods in rbac-b
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.ok(f"apply -f {DATA / 'auth_setup.yaml'}")
    h.ok("run web --image=nginx -n rbac-b")
    r = h("get all -n rbac-b --as=jane")
    assert r.code == 1
    assert r.out.splitlines()[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert r.out.splitlines()[1].split()[0] == "web"  # one kind printed: no kind prefix
    assert [line.split(" is forbidden")[0] for line in r.err.splitlines()] == [
        "Error from server (Forbidden): services", "Error from server (Forbidden): daemonsets.apps",
        "Error from server (Forbidden): deployments.apps",
        "Error from server (Forbidden): replicasets.apps", "Error from server (Forbidden): statefulsets.apps",
        "Error from server (Forbidden): horizontalpodautoscalers.autoscaling",
        "Error from server (Forbidden): cronjobs.batch", "Error from server (Forbidden): jobs.batch"]
    r = h("describe pod web -n rbac-b --as=jane")
    assert (r.code, r.err, r.out.splitlines()[-1]) == (0, "", "Events:                      <none>")
