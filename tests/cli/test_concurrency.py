"""Concurrent kubesim processes on one state serialise and lose no update (DESIGN §3.2)."""

import json
import os
import subprocess
import sys

from kubesim.testing.cli import PINNED_NOW


def _run(state, *argv, stdin=None):
    env = dict(os.environ, KUBESIM_STATE=str(state), KUBESIM_NOW=PINNED_NOW)
    return subprocess.Popen([sys.executable, "-m", "kubesim", *argv], env=env, stdin=subprocess.PIPE if stdin else None,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_label_commands_on_one_node_keep_every_label(tmp_path):
    state = tmp_path / "state"
    assert _run(state, "get", "nodes").wait(timeout=60) == 0
    procs = [_run(state, "label", "node", "node01", f"k{i}=v{i}") for i in range(8)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    p = _run(state, "get", "node", "node01", "-o", "json")
    out, _ = p.communicate(timeout=60)
    labels = json.loads(out)["metadata"]["labels"]
    assert {f"k{i}": f"v{i}" for i in range(8)}.items() <= labels.items()


def test_concurrent_applies_all_land(tmp_path):
    state = tmp_path / "state"
    assert _run(state, "get", "nodes").wait(timeout=60) == 0
    procs = []
    for i in range(8):
        doc = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"},
                          "spec": {"nodeName": "node01", "containers": [{"name": "c", "image": "nginx"}]}})
        p = _run(state, "apply", "-f", "-", stdin=True)
        p.stdin.write(doc)
        p.stdin.close()
        procs.append(p)
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    p = _run(state, "get", "pods", "-o", "json")
    out, _ = p.communicate(timeout=60)
    pods = json.loads(out)["items"]
    assert sorted(x["metadata"]["name"] for x in pods) == [f"p{i}" for i in range(8)]
    assert len({x["status"]["podIP"] for x in pods}) == 8


def _hold_write_lock(state):
    """Another command in the middle of a long write: the database's write lock, held."""
    import sqlite3

    conn = sqlite3.connect(str(state / "kubesim.db"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE meta SET value = value WHERE key = 'cluster.initialized'")
    return conn


def test_reading_commands_do_not_wait_behind_a_writer_when_nothing_is_due(tmp_path):
    # issue 18: `get` used to queue on the write lock and fail after 60 s behind a long write;
    # with nothing due it reads the last commit's snapshot (WAL) instead
    state = tmp_path / "state"
    assert _run(state, "create", "deployment", "web", "--image=nginx").wait(timeout=60) == 0
    conn = _hold_write_lock(state)
    try:
        for argv in (["get", "pods"], ["describe", "deployment", "web"], ["events"]):
            out, err = _run(state, *argv).communicate(timeout=20)  # it would wait 60 s for the lock
            assert "web-" in out and err == "", (argv, err)
        # a command that writes still queues behind the writer (and then lands)
        writer = _run(state, "label", "node", "node01", "x=y")
        try:
            writer.wait(timeout=2)
            raise AssertionError("a writing command did not wait for the lock")
        except subprocess.TimeoutExpired:
            pass
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    assert writer.wait(timeout=60) == 0


def test_a_reading_command_with_something_due_takes_the_write_lock(tmp_path):
    state = tmp_path / "state"
    assert _run(state, "create", "deployment", "web", "--image=nginx").wait(timeout=60) == 0
    env = dict(os.environ, KUBESIM_STATE=str(state), KUBESIM_NOW="2026-11-22T10:05:00Z")  # time passed
    conn = _hold_write_lock(state)
    p = subprocess.Popen([sys.executable, "-m", "kubesim", "get", "pods"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        try:
            p.wait(timeout=2)
            raise AssertionError("settling five minutes did not wait for the write lock")
        except subprocess.TimeoutExpired:
            pass
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and "5m" in out
