"""A file of many objects (more than 50): kubectl's GETs of them are hinted to the client
(``Client.prefetch``), which reads them together; what apply and delete print and store is the
same as with each object read on its own request."""

from __future__ import annotations

import shutil

from kubesim.testing import cli
from kubesim.testing.cli import Harness, snapshot


def _pods(names, image="nginx") -> str:
    return "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {n}, labels: {{app: bulk}}}}
spec:
  containers: [{{name: c, image: {image}}}]
""" for n in names)


def _history(tmp_path, monkeypatch, hinted: bool) -> tuple[list, list]:
    from kubesim.controlplane.client import LocalClient

    monkeypatch.setattr(cli, "MEMO", None)  # (every command run, not replayed)
    if not hinted:
        monkeypatch.setattr(LocalClient, "prefetch", lambda self, refs: None)
    state = tmp_path / "st"  # (one path: a Node's annotations name its static pod directory)
    shutil.rmtree(state, ignore_errors=True)
    h = Harness(state)
    h.ok("cluster init --nodes 3")
    outs = [h.ok("apply -f -", _pods([f"p{i:03d}" for i in range(0, 60, 2)]))]
    # some there already (unchanged; configured: a pod's image may change), some new
    mixed = _pods([f"p{i:03d}" for i in range(30)]) + _pods([f"p{i:03d}" for i in range(30, 61)], image="busybox")
    outs.append(h("apply -f -", mixed))
    outs.append(h("delete -f - --now", _pods([f"p{i:03d}" for i in range(70)])))
    outs.append(h.ok("get pods"))
    rows = [r for r in snapshot(h.state_dir) if r[:2] != ("meta", "settle.staticPods")]
    return outs, rows


def test_a_file_of_many_objects_is_applied_and_deleted_the_same_hinted_or_not(tmp_path, monkeypatch):
    want_outs, want_rows = _history(tmp_path, monkeypatch, hinted=False)
    assert "pod/p000 unchanged" in want_outs[1].out and "pod/p058 configured" in want_outs[1].out \
        and "pod/p031 created" in want_outs[1].out
    assert want_outs[2].code == 1 and 'pods "p061" not found' in want_outs[2].err
    outs, rows = _history(tmp_path, monkeypatch, hinted=True)
    assert outs == want_outs
    assert rows == want_rows
