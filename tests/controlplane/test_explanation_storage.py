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


def _passed(i: int) -> dict:
    return {"filter": {"NodeResourcesFit": "passed", "TaintToleration": "passed"}, "feasible": True}


def _scored(i: int) -> dict:
    return {"filter": {"NodeResourcesFit": "passed"}, "feasible": True,
            "score": {"NodeResourcesFit": {"raw": 50 + i % 3, "normalized": 50 + i % 3, "weight": 1,
                                           "final": 50 + i % 3}}, "total": 50 + i % 3}


def _rejected(i: int) -> dict:
    return {"filter": {"NodeResourcesFit": "Insufficient cpu", "TaintToleration": "passed"},
            "feasible": False, "rejectedBy": "NodeResourcesFit"}


@pytest.mark.parametrize("entry, distinct", [
    pytest.param(_passed, 1, id="nodes every filter passed share one entry"),
    pytest.param(_scored, 3, id="nodes scored alike share one entry a score"),
    pytest.param(lambda i: _rejected(i) if i % 2 else _passed(i), 2, id="rejected and passed nodes apart"),
    pytest.param(lambda i: {"feasible": True, "filter": {"NodeResourcesFit": "passed"}}
                 if i % 2 else {"filter": {"NodeResourcesFit": "passed"}, "feasible": True}, 2,
                 id="entries whose keys differ in order are kept apart"),
    pytest.param(lambda i: {"filter": [{"plugin": "NodeResourcesFit"}], "feasible": True}, 1,
                 id="an entry of another shape is told apart by its text"),
    pytest.param(lambda i: {"filter": {"NodeResourcesFit": "passed", "TaintToleration": "passed"},
                            "feasible": True}, 1,
                 id="filter verdicts alike in a dict each node share one entry"),
    pytest.param(lambda i: {"filter": {"NodeResourcesFit": "passed", "TaintToleration": "passed" if i % 3 else
                                       "node(s) had untolerated taint {a: b}"}, "feasible": bool(i % 3)}, 2,
                 id="filter verdicts differing in one plugin's are kept apart"),
    pytest.param(lambda i: {"filter": {"NodeResourcesFit": "passed", "TaintToleration": "passed"},
                            "feasible": False}, 1,
                 id="the same verdicts, infeasible: one entry"),
    pytest.param(lambda i: {"filter": {"NodeResourcesFit": ["passed", i % 2]}, "feasible": True}, 2,
                 id="a verdict of another shape is told apart by the entry's text"),
])
def test_an_explanation_keeps_each_distinct_node_entry_once(tmp_path, entry, distinct):
    store = Store(str(tmp_path / "state")).open()
    cluster = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    written = explanation(0)
    written["nodes"] = {f"node{i}": entry(i) for i in range(300)}
    scheduling.save_explanation(cluster, POD, written)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    got, _full = scheduling.load_explanation(Cluster(store, {}), "default", "web")
    assert json.dumps(got) == json.dumps(written)  # the same keys in the same order
    stored = store.get("ScheduleExplanation", "default", "web")
    _names, entries, _at = _unpacked(stored[scheduling.PACKED_NODES])
    assert len(entries) == distinct
    store.rollback()


def _unpacked(data: str):
    import base64
    import zlib

    return json.loads(zlib.decompress(base64.b64decode(data)))


def test_an_older_state_s_deflated_explanation_still_reads(tmp_path):
    import base64
    import zlib

    store = Store(str(tmp_path / "state")).open()
    written = explanation(3)
    obj = {k: v for k, v in written.items() if k != "nodes"}
    obj["nodesDeflated"] = base64.b64encode(zlib.compress(json.dumps(written["nodes"]).encode())).decode()
    obj["metadata"] = {"name": "web", "namespace": "default"}
    obj = {"kind": obj.pop("kind"), **obj}
    store.put(obj)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    got, full = scheduling.load_explanation(Cluster(store, {}), "default", "web")
    assert full and got["nodes"] == written["nodes"]
    store.rollback()
