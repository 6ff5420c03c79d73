"""How a scheduling explanation is kept in the state (kubesim.controlplane.scheduling
save_explanation / load_explanation): its per-node verdicts deflated, read back unchanged,
keys in the order they were written (``explain-schedule -o json`` prints them so)."""

from __future__ import annotations

import json

import pytest

from kubesim.apiserver.context import Cluster
from kubesim.controlplane import scheduling
from kubesim.store import Store

POD = {"kind": "Pod", "metadata": {"name": "web", "namespace": "default"}}


def explanation(nodes: int) -> dict:
    return {"kind": "ScheduleExplanation", "apiVersion": "kubesim.io/v1alpha1", "pod": "default/web",
            "outcome": "Scheduled", "node": "node1",
            "nodes": {f"node{i}": {"filter": [{"plugin": "NodeResourcesFit", "code": "Success"}],
                                   "score": {"NodeResourcesFit": 50 + i % 7}, "total": 150 + i % 7}
                      for i in range(nodes)},
            "trace": [{"extensionPoint": "PreFilter"}]}


@pytest.mark.parametrize("nodes", [0, 1, 500])
def test_an_explanation_reads_back_as_written(tmp_path, nodes):
    store = Store(str(tmp_path / "state")).open()
    cluster = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    written = explanation(nodes)
    scheduling.save_explanation(cluster, POD, written)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    got, full = scheduling.load_explanation(Cluster(store, {}), "default", "web")
    assert full
    assert list(got) == list(written) and got == written
    stored = store._require().execute(
        "SELECT body FROM objects WHERE kind='ScheduleExplanation'").fetchone()[0]
    if nodes >= 500:
        assert '"node499"' not in stored
        assert len(stored) < len(json.dumps(written)) / 10
