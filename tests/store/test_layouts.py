"""The objects table's two layouts: a state made before this release keeps its ``WITHOUT ROWID``
table (kubesim.store's SCHEMA comment), and every command must read and write it as it does a
new state's rowid table — same outputs, same rows, in the same order."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from kubesim.testing.cli import Harness, snapshot

# a Deployment "web" (app=web) whose pods start after an init container
WEB = Path(__file__).resolve().parents[2] / "manifests" / "waiting" / "web.yaml"

STEPS = [
    "get pods -A -o wide",
    "scale deployment web --replicas=7",
    "advance 20s",
    "get pods -o wide",
    "describe node node02",
    "cordon node01",
    "delete pod -l app=web --now",
    "advance 10s",
    "get pods -A -o wide",
    "get events -A",
]


def _to_old_layout(state: str) -> None:
    """The objects table as releases before this one made it."""
    conn = sqlite3.connect(f"{state}/kubesim.db", isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE objects_old (kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, "
                     "rv INTEGER NOT NULL, node TEXT NOT NULL DEFAULT '', body TEXT NOT NULL, "
                     "PRIMARY KEY (kind, namespace, name)) WITHOUT ROWID")
        conn.execute("INSERT INTO objects_old SELECT kind, namespace, name, rv, node, body FROM objects")
        conn.execute("DROP TABLE objects")
        conn.execute("ALTER TABLE objects_old RENAME TO objects")
        conn.execute("CREATE INDEX objects_node ON objects (kind, node)")
        conn.execute("COMMIT")
        assert "WITHOUT ROWID" in conn.execute("SELECT sql FROM sqlite_master WHERE name='objects'").fetchone()[0]
    finally:
        conn.close()


def _blank(text: str, *states: str) -> str:
    """The states' paths blanked (a copied state's nodes keep the static pod path they were
    made with)."""
    for state in states:
        text = text.replace(state, "STATE")
    return text


def test_a_new_state_makes_a_rowid_table(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("get nodes")
    conn = sqlite3.connect(f"{h.state_dir}/kubesim.db")
    try:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name='objects'").fetchone()[0]
    finally:
        conn.close()
    assert "WITHOUT ROWID" not in sql


def test_an_older_layout_answers_every_command_as_the_new_one(tmp_path):
    new = Harness(tmp_path / "new" / "state")
    new.ok("cluster init --nodes 3")
    new.ok(f"apply -f {WEB}")
    old_dir = tmp_path / "old" / "state"
    shutil.copytree(new.state_dir, old_dir)
    _to_old_layout(str(old_dir))
    old = Harness(old_dir)
    paths = (new.state_dir, old.state_dir)
    for step in STEPS:
        a, b = new(step), old(step)
        assert a.code == 0, (step, a.err)
        assert (b.code, _blank(b.out, *paths), _blank(b.err, *paths)) == \
            (a.code, _blank(a.out, *paths), _blank(a.err, *paths)), step
    assert [tuple(_blank(str(c), *paths) for c in row) for row in snapshot(old.state_dir)] == \
        [tuple(_blank(str(c), *paths) for c in row) for row in snapshot(new.state_dir)]
