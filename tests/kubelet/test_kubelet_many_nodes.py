"""The kubelets' pass over many nodes (kubelet/steps.py ``sync_pods``, more than 50 nodes to
visit: a bulk apply's pods spread over the cluster) decodes their pods a piece at a time,
``LAZY_CHUNK`` pods to a read, without managedFields: the piece size changes no stored row."""

from __future__ import annotations

import shutil

from kubesim.testing import cli
from kubesim.testing.cli import Harness, snapshot

PODS = "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i:03d}, labels: {{app: many}}}}
spec:
  containers: [{{name: c, image: {"nginx" if i % 3 else "busybox"}, command: [sleep, "{i}"]}}]
""" for i in range(110))


def _history(tmp_path, monkeypatch, chunk: int) -> tuple[list, str]:
    from kubesim.kubelet import steps

    monkeypatch.setattr(cli, "MEMO", None)  # (every command run, not replayed)
    monkeypatch.setattr(steps, "LAZY_CHUNK", chunk)
    state = tmp_path / "st"  # (one path: a Node's annotations name its static pod directory)
    shutil.rmtree(state, ignore_errors=True)
    h = Harness(state)
    h.ok("cluster init --nodes 55")
    h.ok("apply -f -", PODS)
    h.ok("advance 30s")
    h.ok("delete pods -l app=many --now")
    h.ok("apply -f -", PODS)
    h.ok("advance 90s")
    # (but the static pod directory's fingerprint: its files' times are the wall clock's)
    rows = [r for r in snapshot(h.state_dir) if r[:2] != ("meta", "settle.staticPods")]
    return rows, h.ok("get pods -o wide")


def test_the_pass_over_many_nodes_stores_the_same_whatever_its_piece_size(tmp_path, monkeypatch):
    want_rows, want_table = _history(tmp_path, monkeypatch, 500)
    assert want_table.count(" Running ") > 50 and "CrashLoopBackOff" in want_table  # (pods restarted)
    for chunk in (3,):  # (a node or two a piece: every boundary case)
        rows, table = _history(tmp_path, monkeypatch, chunk)
        assert table == want_table
        assert rows == want_rows
