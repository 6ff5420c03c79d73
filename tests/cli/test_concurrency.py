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
