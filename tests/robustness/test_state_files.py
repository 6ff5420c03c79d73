"""The node directories beside the database (kubesim.store.files): a new cluster's tree replaces
the old one only with its commit, so a command killed at any point leaves the old cluster or the
new one, whole (files included); and nothing is ever written through a symbolic link that a
state directory ships (issue 18, items 3 and 4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kubesim.store import files
from kubesim.testing.cli import Harness, snapshot


def node_names(h) -> list[str]:
    return sorted(line.split()[0] for line in h.ok("get nodes --no-headers").splitlines())


def whole(h) -> list[str]:
    """The cluster's nodes, after checking that the files are those of the same cluster: one
    directory per node, the control plane's manifests and their mirror pods, nothing staged."""
    state = Path(h.state_dir)
    names = node_names(h)
    assert sorted(p.name for p in (state / "nodes").iterdir() if not p.name.startswith(".")) == names
    assert sorted(os.listdir(state / "nodes" / "controlplane" / "manifests")) == [
        "etcd.yaml", "kube-apiserver.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml"]
    assert not os.path.lexists(state / files.STAGING) and not os.path.lexists(state / files.RETIRED)
    assert h.ok("get pods -n kube-system --no-headers").count("-controlplane ") == 4
    return names


def test_init_replaces_the_node_tree_with_its_commit(tmp_path):
    h = Harness(tmp_path / "state")
    assert whole(h) == ["controlplane", "node01", "node02"]
    h.ok("cluster init --nodes 3")
    assert whole(h) == ["controlplane", "node01", "node02", "node03"]


def test_a_failed_init_leaves_the_old_cluster_and_files(tmp_path, monkeypatch):
    h = Harness(tmp_path / "state")
    whole(h)
    before = snapshot(h.state_dir)
    from kubesim.controlplane import settle as settle_mod

    def fail(*a, **kw):
        raise RuntimeError("killed")

    monkeypatch.setattr(settle_mod, "settle", fail)
    r = h("cluster init --nodes 4")
    assert r.code == 1
    monkeypatch.undo()
    assert snapshot(h.state_dir) == before
    assert whole(h) == ["controlplane", "node01", "node02"]


def test_a_kill_between_the_commit_and_the_rename_is_finished_by_the_next_command(tmp_path, monkeypatch):
    h = Harness(tmp_path / "state")
    whole(h)
    monkeypatch.setattr(files, "finish", lambda directory: None)  # the process dies right after COMMIT
    assert h("cluster init --nodes 4").code == 0
    state = Path(h.state_dir)
    assert os.path.isdir(state / files.STAGING)  # the new tree, not yet in place
    monkeypatch.undo()
    assert whole(h) == ["controlplane", "node01", "node02", "node03", "node04"]


def test_a_staged_tree_the_database_never_committed_is_removed(tmp_path):
    h = Harness(tmp_path / "state")
    whole(h)
    staged = Path(h.state_dir) / files.STAGING
    (staged / "node09" / "manifests").mkdir(parents=True)
    (staged / files.MARK).write_text("not-the-committed-one\n")
    assert whole(h) == ["controlplane", "node01", "node02"]


@pytest.mark.parametrize("fraction", [0.15, 0.3, 0.45, 0.6, 0.75, 0.9])
def test_init_killed_at_any_moment_leaves_one_whole_cluster(tmp_path, fraction):
    """A real process, SIGKILLed part-way through ``cluster init --nodes 40`` (its duration
    measured first): old (3 nodes) or new (41), never a mix."""
    h = Harness(tmp_path / "state")
    whole(h)
    env = {**os.environ, **{k: str(v) for k, v in h.vars.items()}}
    cmd = [sys.executable, "-m", "kubesim", "cluster", "init", "--nodes", "40"]
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    took = time.monotonic() - t0
    h.ok("cluster init")  # back to the default cluster
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(took * fraction)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(whole(h)) in (3, 41)


def test_a_sliced_init_killed_at_any_moment_leaves_one_whole_cluster(tmp_path):
    """Above 500 workers ``cluster init`` writes each slice into the open transaction before
    the next (kubesim.controlplane.session): a SIGKILL in any slice still leaves the old
    cluster (3 nodes) or the new one (521), never the slices written so far."""
    from kubesim.controlplane.bootstrap import NODES_PER_SLICE

    workers = NODES_PER_SLICE + 20  # two slices
    h = Harness(tmp_path / "state")
    whole(h)
    env = {**os.environ, **{k: str(v) for k, v in h.vars.items()}}
    cmd = [sys.executable, "-m", "kubesim", "cluster", "init", "--nodes", str(workers)]
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    took = time.monotonic() - t0
    assert len(whole(h)) == workers + 1
    for fraction in (0.35, 0.65, 0.9):
        h.ok("cluster init")  # back to the default cluster
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(took * fraction)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert len(whole(h)) in (3, workers + 1), f"killed at {fraction:.0%} of {took:.2f} s"


@pytest.mark.parametrize("link, target_kind", [
    ("nodes/controlplane/manifests/etcd.yaml", "file"),
    ("nodes", "dir"),
    ("nodes/controlplane", "dir"),
    (files.STAGING, "dir"),
])
def test_a_shipped_link_is_never_written_through_on_first_use(tmp_path, link, target_kind):
    victim = tmp_path / "victim"
    if target_kind == "file":
        victim.write_text("precious\n")
    else:
        victim.mkdir()
    state = tmp_path / "state"
    (state / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(victim, state / link)
    h = Harness(state)
    assert whole(h) == ["controlplane", "node01", "node02"]
    if target_kind == "file":
        assert victim.read_text() == "precious\n"
    else:
        assert list(victim.iterdir()) == []


@pytest.mark.parametrize("name", files.DB_FILES + (files.LOCK,))
def test_a_linked_database_file_is_refused(tmp_path, name):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    state = tmp_path / "state"
    state.mkdir()
    os.symlink(victim, state / name)
    r = Harness(state)("get nodes")
    assert (r.code, r.out) == (1, "")
    assert r.err == (f"error: refusing to use state {state}: {name} is a symbolic link (to {victim}); "
                     "kubesim never writes through one\n")
    assert victim.read_text() == "precious\n"


def test_a_new_nodes_directory_is_not_made_through_a_link(tmp_path):
    h = Harness(tmp_path / "state")
    whole(h)
    victim = tmp_path / "victim"
    victim.mkdir()
    os.symlink(victim, Path(h.state_dir) / "nodes" / "node03")
    before = snapshot(h.state_dir)
    r = h("apply -f -", stdin="apiVersion: v1\nkind: Node\nmetadata:\n  name: node03\n")
    assert r.code == 1
    assert r.err == (f"error: refusing to write through a symbolic link in the state: {h.state_dir}/nodes/node03 -> "
                     f"{victim} (remove the link, or run `kubesim cluster reset`)\n")
    assert snapshot(h.state_dir) == before and list(victim.iterdir()) == []


def _run_killed(state: Path, env: dict, argv: list[str], after: float | None):
    cmd = [sys.executable, "-m", "kubesim", *argv]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    if after is None:
        assert proc.wait() == 0
        return
    time.sleep(after)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


BULK = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: bulk-{i}\nspec:\n  containers:\n"
               f"  - name: c\n    image: nginx\n" for i in range(300))


@pytest.mark.parametrize("argv", [
    ["apply", "-f", "{dir}/bulk.yaml"],
    ["advance", "2h"],
    ["drain", "node01", "--ignore-daemonsets", "--delete-emptydir-data", "--force"],
], ids=["a bulk apply", "advance", "drain"])
def test_a_command_killed_at_any_moment_commits_all_or_nothing(tmp_path, argv):
    """The database after a SIGKILL part-way through is either the one before the command or
    the one a complete run leaves (pinned clock and seed make that one repeatable)."""
    (tmp_path / "bulk.yaml").write_text(BULK)
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    base = tmp_path / "base"
    h = Harness(base)
    h.ok("create deployment web --image=busybox --replicas=4 -- sh -c 'sleep 600; exit 1'")
    before = snapshot(base)

    def copy(name):
        d = tmp_path / name
        subprocess.run(["cp", "-a", str(base), str(d)], check=True)
        return d, {**os.environ, **{k: str(v) for k, v in Harness(d).vars.items()}}

    full, env = copy("full")
    t0 = time.monotonic()
    _run_killed(full, env, argv, None)
    took = time.monotonic() - t0
    after = snapshot(full)
    assert after != before
    for i, fraction in enumerate((0.2, 0.5, 0.8)):
        state, env = copy(f"killed{i}")
        _run_killed(state, env, argv, took * fraction)
        got = snapshot(state)
        assert got in (before, after), f"killed at {fraction:.0%} of {took:.2f} s: a partial state"
        assert Harness(state).ok("get nodes")  # and the state works



def _interruptible() -> None:
    """In the child: Ctrl-C as a terminal delivers it. A shell starts background jobs with
    SIGINT ignored, and a child inherits that (CI run as `... &` would see no Ctrl-C at all)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

@pytest.mark.parametrize("argv", [
    ["cluster", "init", "--nodes", "3000"],
    ["apply", "-f", "{dir}/bulk.yaml"],
], ids=["cluster init", "a bulk apply"])
def test_ctrl_c_stops_a_command_promptly_and_keeps_the_last_commit(tmp_path, argv):
    """SIGINT part-way through: exit 130 soon after (within a second or two on a quiet machine,
    removing what was staged; the bound here only catches a command that ignores the signal
    and runs to its end), the state as the last commit left it, nothing staged."""
    (tmp_path / "bulk.yaml").write_text(BULK.replace("bulk-", "a-") + BULK.replace("bulk-", "b-") +
                                        BULK.replace("bulk-", "c-") + BULK.replace("bulk-", "d-"))
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    h = Harness(tmp_path / "state")
    whole(h)
    before = snapshot(h.state_dir)
    env = {**os.environ, **{k: str(v) for k, v in h.vars.items()}}
    proc = subprocess.Popen([sys.executable, "-m", "kubesim", *argv], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_interruptible)
    time.sleep(0.6)
    if proc.poll() is not None:
        pytest.skip("the command finished before it could be interrupted")
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()  # (to its end: the command exited)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 130 and "Traceback" not in err
    # A liveness guard, not a speed test: the CPU the command used, start-up and the rollback of
    # a staged tree included, is far below what running to its end takes (~10 CPU-s), however
    # busy the machine (wall time is not: CI's load once stretched a prompt stop past 10 s).
    assert usage.ru_utime + usage.ru_stime < 5, usage
    assert snapshot(h.state_dir) == before
    assert whole(h) == ["controlplane", "node01", "node02"]


def test_writers_wait_in_turn_on_the_lock_file_and_ctrl_c_ends_the_wait(tmp_path):
    """Writers queue on ``kubesim.lock`` (flock) before SQLite's write lock; a reader with
    nothing due does not; a waiting writer stops at Ctrl-C with nothing written."""
    import fcntl

    h = Harness(tmp_path / "state")
    whole(h)
    before = snapshot(h.state_dir)
    fd = os.open(Path(h.state_dir) / files.LOCK, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another command is writing
    env = {**os.environ, **{k: str(v) for k, v in h.vars.items()}}
    try:
        reader = subprocess.run([sys.executable, "-m", "kubesim", "get", "nodes"], env=env, capture_output=True,
                                text=True, timeout=30)
        assert reader.returncode == 0 and "node01" in reader.stdout
        writer = subprocess.Popen([sys.executable, "-m", "kubesim", "label", "node", "node01", "a=b"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_interruptible)
        time.sleep(1.5)
        assert writer.poll() is None  # waiting for its turn
        writer.send_signal(signal.SIGINT)
        _, err = writer.communicate(timeout=10)
        assert writer.returncode == 130 and "Traceback" not in err
    finally:
        os.close(fd)
    assert snapshot(h.state_dir) == before
    h.ok("label node node01 a=b")  # the lock is free again
