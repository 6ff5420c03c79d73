"""``cluster init`` builds the same cluster however it is made fast (issue 18 item 5, issue 19):
every row of every table of the state — objects with their resourceVersions, managedFields
and statuses, Events, the event correlator's index, the object index, the scheduler's derived
rows, metadata — and the static pod files, for a pinned clock and seed, equal what the code
wrote before its cluster init was optimised (the golden digests in
``testdata/cluster_init_digests.json`` were made by that code: main before the fast init
was merged, with the object index's ControllerRef facet; regenerated when the scheduler's cache
gained its per-node sums, which changed only the ``derived_sums`` table and one meta key, and
when the kubelet began keeping what it made of each static pod file, one meta key per node
with static pods; and when the scheduler's explanations began keeping each distinct node entry
once, which changed only the ScheduleExplanation rows, their nodes' content the same; and
when the event index's core/v1 keys began with the involved object, which changed only those
keys, each the same fields in another order, and added one meta key; and when the event
aggregator began keeping an object's groups in one row, which changed only those meta rows,
the same groups with the same messages and times; and when the object index stopped
indexing Events by their involved object's uid, which removed only those rows and changed the
index's version in one meta key).

The store's projections of objects for their tables (the ``projected`` table and its
``store.projectedSynced`` mark), which that code did not keep, are left out of the digests
and checked instead against the objects they project.

A change that means to change what a new cluster holds regenerates them:
``KUBESIM_UPDATE_GOLDEN=1 python -m pytest tests/controlplane/test_cluster_init_equivalence.py``."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

from kubesim.testing.cli import Harness

GOLDEN = Path(__file__).parent / "testdata" / "cluster_init_digests.json"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN") == "1"
STATE_MARK = "<state>"
CASES = ["--nodes 2", "--nodes 9 --zones 2", "--nodes 0", "--empty", "--nodes 3 --cpu 2 --memory 4Gi"]


def digests(state_dir: str) -> dict:
    """Per table: rows and a digest of them, sorted; the state's path (in the nodes'
    static-pod-path annotation) and the static pod directories' mtime fingerprint left out."""
    conn = sqlite3.connect(str(Path(state_dir) / "kubesim.db"))
    out: dict = {}
    try:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
            if table == "projected":
                continue  # (see the module's docstring)
            rows = []
            for row in conn.execute(f"SELECT * FROM {table}"):
                if table == "meta" and row[0] == "settle.staticPods":
                    row = (row[0], "<mtime fingerprint>")
                if table == "meta" and row[0] == "store.projectedSynced":
                    continue
                rows.append(json.dumps(row).replace(state_dir, STATE_MARK))
            rows.sort()
            out[table] = [len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()]
    finally:
        conn.close()
    files = sorted(p for p in Path(state_dir, "nodes").rglob("*") if p.is_file())
    out["nodes/"] = [len(files), hashlib.sha256("\n".join(
        f"{p.relative_to(state_dir)} {hashlib.sha256(p.read_bytes()).hexdigest()}" for p in files).encode()).hexdigest()]
    return out


def cluster_digests(tmp_path: Path, args: str) -> dict:
    state = tmp_path / "st"
    Harness(state, now="2026-01-01T00:00:00Z", seed="7").ok(f"cluster init {args}")
    return digests(str(state))


def _golden() -> dict:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


@pytest.mark.parametrize("args", CASES)
def test_a_new_cluster_is_what_it_was_before_init_was_made_fast(tmp_path, args):
    got = cluster_digests(tmp_path, args)
    if UPDATE:
        golden = _golden()
        golden[args] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        return
    want = _golden().get(args)
    assert want is not None, f"no digests for {args!r}: KUBESIM_UPDATE_GOLDEN=1 to record them"
    assert got == want
    _assert_projections_are_the_objects(tmp_path / "st")


def _assert_projections_are_the_objects(state_dir: Path) -> None:
    """Each projected row is its object's projection (api.tablefields), at its resourceVersion."""
    from kubesim.api.tablefields import TABLE_FIELDS, projector

    conn = sqlite3.connect(str(state_dir / "kubesim.db"))
    try:
        for kind in TABLE_FIELDS:
            project = projector(kind)
            want = {(ns, name): (rv, project(json.loads(body))) for ns, name, rv, body in conn.execute(
                "SELECT namespace, name, rv, body FROM objects WHERE kind=?", (kind,))}
            got = {(ns, name): (rv, json.loads(data)) for ns, name, rv, data in conn.execute(
                "SELECT namespace, name, rv, data FROM projected WHERE kind=?", (kind,))}
            assert got == want
    finally:
        conn.close()
