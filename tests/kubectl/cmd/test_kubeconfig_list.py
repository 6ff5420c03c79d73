"""``KUBECONFIG`` as a list of files, as client-go's clientcmd loading rules read and write it
(tools/clientcmd/loader.go ``Load``, config.go ``ModifyConfig``, ``writeCurrentContext``,
``writePreferences``; loader_test.go's merge cases): kubesim and the real kubectl 1.36 run the
same commands on two copies of the same files, and every file must end the same."""

from __future__ import annotations

import io
import shlex
import subprocess

import pytest

from kubesim.cli.main import Environment, main
from kubesim.kubectl.clientcmd import load_merged, precedence
from tests.kubectl.cmd.test_config import KUBECTL, needs_kubectl

A = """apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: https://a.example:6443}
contexts:
- name: ctx-a
  context: {cluster: c1, user: u}
users:
- name: u
  user: {token: from-a}
current-context: ctx-a
"""

B = """apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: https://b.example:6443}
- name: c2
  cluster: {server: https://c2.example:6443}
contexts:
- name: ctx-b
  context: {cluster: c2, user: u, namespace: dev}
users:
- name: u
  user: {token: from-b}
- name: v
  user: {username: v, password: pw}
current-context: ctx-b
"""

NO_CURRENT = B.replace("current-context: ctx-b\n", "")

SCENARIOS = [
    ("the first file wins for entries and the current context", ["a.yaml", "b.yaml"], [A, B],
     ["config view", "config get-contexts", "config current-context", "config get-clusters",
      "config view --minify --context ctx-b"]),
    ("changes go to the file an entry came from, new entries to the first file", ["a.yaml", "b.yaml"], [A, B],
     ["config set-context ctx-b --namespace=prod", "config set clusters.c2.server https://new.example",
      "config set clusters.c3.server https://c3.example", "config set-credentials w --token=t",
      "config use-context ctx-b", "config delete-context ctx-b", "config delete-cluster c1",
      "config rename-context ctx-a ctx-z", "config view"]),
    ("the current context goes to the first file that has one", ["b2.yaml", "a.yaml"], [NO_CURRENT, A],
     ["config current-context", "config use-context ctx-b", "config unset current-context",
      "config set current-context ctx-a", "config view"]),
    ("a missing first file is skipped, then made for what is new", ["missing.yaml", "a.yaml"], [None, A],
     ["config view", "config set-context new --cluster=c1", "config set preferences.colors true", "config view"]),
    ("nothing exists yet: the first file is made", ["one.yaml", "two.yaml"], [None, None],
     ["config view", "config set-cluster k --server=https://k.example", "config use-context nope",
      "config set-context k --cluster=k", "config use-context k", "config view"]),
]


def _files(d, names, texts):
    d.mkdir()
    for name, text in zip(names, texts, strict=True):
        if text is not None:
            (d / name).write_text(text)


def _kubesim(d, names, args):
    out, err = io.StringIO(), io.StringIO()
    kubeconfig = ":".join(str(d / n) for n in names)
    code = main(args, Environment(stdin=io.StringIO(""), stdout=out, stderr=err,
                                  vars={"KUBECONFIG": kubeconfig}, cwd=str(d)))
    return code, out.getvalue().replace(str(d), "DIR"), err.getvalue().replace(str(d), "DIR")


def _kubectl(d, names, args):
    kubeconfig = ":".join(str(d / n) for n in names)
    p = subprocess.run([KUBECTL, *args], cwd=d, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(d), "KUBECONFIG": kubeconfig})
    return p.returncode, p.stdout.replace(str(d), "DIR"), p.stderr.replace(str(d), "DIR")


@needs_kubectl
@pytest.mark.parametrize("name, names, texts, commands", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_kubeconfig_list_matches_the_real_kubectl(tmp_path, name, names, texts, commands):
    a, b = tmp_path / "kubesim", tmp_path / "kubectl"
    _files(a, names, texts)
    _files(b, names, texts)
    for command in commands:
        args = shlex.split(command)
        got, want = _kubesim(a, names, args), _kubectl(b, names, args)
        got = (got[0], got[1], got[2].replace("'kubesim config", "'kubectl config"))
        if command == "config get-clusters":  # kubectl prints Go's map order, kubesim sorts
            want = (want[0], "NAME\n" + "".join(sorted(want[1].splitlines(True)[1:])), want[2])
        assert got == want, command
        for n in names:
            assert (a / n).exists() == (b / n).exists(), (command, n)
            if (b / n).exists():
                assert (a / n).read_text() == (b / n).read_text(), (command, n)
    assert not (a / "state").exists()


@pytest.mark.parametrize("value, files", [
    ("a:b", ["a", "b"]), ("a::b:a", ["a", "b"]), ("", []), (":", []),
], ids=["two files", "empty entries and repeats dropped", "unset", "only separators"])
def test_precedence(value, files):
    assert precedence(value) == files


def test_merge_takes_whole_entries_from_the_first_file(tmp_path):
    (tmp_path / "a").write_text(A)
    (tmp_path / "b").write_text(B)
    c = load_merged([str(tmp_path / "missing"), str(tmp_path / "a"), str(tmp_path / "b")])
    assert c.clusters["c1"] == {"server": "https://a.example:6443"}
    assert c.users["u"] == {"token": "from-a"}
    assert sorted(c.clusters) == ["c1", "c2"] and sorted(c.users) == ["u", "v"]
    assert c.current_context == "ctx-a"
    assert c.origins[("clusters", "c2")] == str(tmp_path / "b")


def test_a_state_named_explicitly_ignores_kubeconfig(tmp_path):
    """$KUBECONFIG names the kubeconfig only where neither --state nor $KUBESIM_STATE names a state."""
    (tmp_path / "a").write_text(A)
    out = io.StringIO()
    code = main(["config", "current-context"], Environment(
        stdin=io.StringIO(""), stdout=out, stderr=io.StringIO(),
        vars={"KUBECONFIG": str(tmp_path / "a"), "KUBESIM_STATE": str(tmp_path / "state")}, cwd=str(tmp_path)))
    assert (code, out.getvalue()) == (0, "kubernetes-admin@kubernetes\n")
