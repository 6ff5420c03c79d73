"""The kubelets' pass over many nodes (kubelet/steps.py ``sync_pods``, more than 50 nodes to
visit: a bulk apply's pods spread over the cluster) decodes their pods a piece at a time,
``LAZY_CHUNK`` pods to a read, without managedFields; of the nodes whose every pod it passes
over (synced at its resourceVersion, no wake due) it reads only the pods' resourceVersions
(``_passed_over_unread``), as of the pods it passes over on a node where it syncs others but
admits none (a restart, a deletion); the other pods of a node where it admits one it reads as
admission reads them (``ADMITTED``): neither the piece size nor what is left out changes a
stored row."""

from __future__ import annotations

import json
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


PASSED_OVER_UNREAD: list[str] = []  # the pods passed over from their resourceVersion alone


def _history(tmp_path, monkeypatch, chunk: int, unread: tuple, admitted: tuple | None = None) -> tuple[list, str]:
    from kubesim.kubelet import steps

    monkeypatch.setattr(cli, "MEMO", None)  # (every command run, not replayed)
    monkeypatch.setattr(steps, "LAZY_CHUNK", chunk)
    monkeypatch.setattr(steps, "UNREAD", unread)
    monkeypatch.setattr(steps, "ADMITTED", admitted if admitted is not None else steps.ADMITTED)
    passed_over_unread = steps._passed_over_unread

    def counting(memories, keys, rvs, now):
        out = passed_over_unread(memories, keys, rvs, now)
        PASSED_OVER_UNREAD.extend(k[2] for k in out)
        return out

    monkeypatch.setattr(steps, "_passed_over_unread", counting)
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
    want_rows, want_table = _history(tmp_path, monkeypatch, 500, ("metadata.managedFields",))
    assert want_table.count(" Running ") > 50 and "CrashLoopBackOff" in want_table  # (pods restarted)
    assert len(PASSED_OVER_UNREAD) > 50  # (rounds after the kubelets' own writes pass over their nodes)
    # a node or two a piece (every boundary case): the same rows, byte for byte
    rows, table = _history(tmp_path, monkeypatch, 3, ("metadata.managedFields",))
    assert table == want_table
    assert rows == want_rows
    # the other pods of a node where a pod is admitted read as whole as the others': the same rows
    rows, table = _history(tmp_path, monkeypatch, 500, ("metadata.managedFields",), ("metadata.managedFields",))
    assert table == want_table
    assert rows == want_rows
    # the pods read whole: what the pass leaves out of them (managedFields, which the API
    # server's field manager recomputes at each write) changes no object, only where its
    # metadata's key ``managedFields`` sits in the stored text (every printer sorts keys)
    rows, table = _history(tmp_path, monkeypatch, 500, ())
    assert table == want_table
    assert [(*r[:4], json.loads(r[4])) for r in rows] == [(*r[:4], json.loads(r[4])) for r in want_rows]
