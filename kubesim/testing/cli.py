"""Drive the CLI in-process with an injected Environment (httpie's MockEnvironment idea)."""

from __future__ import annotations

import io
import shlex
from dataclasses import dataclass

from kubesim.cli.main import Environment, find_verb, main

PINNED_NOW = "2026-11-22T10:00:00Z"
MEMO = None  # a kubesim.testing.memo.Memo while the test suite runs (tests/conftest.py)


@dataclass
class Result:
    code: int
    out: str
    err: str


class Harness:
    """A state directory plus a pinned clock and seed; ``h("get pods")`` runs a command."""

    def __init__(self, state_dir, now: str = PINNED_NOW, seed: str = "42", extra_env: dict | None = None):
        self.state_dir = str(state_dir)
        self.vars = {"KUBESIM_NOW": now, "KUBESIM_SEED": seed, "KUBESIM_STATE": self.state_dir}
        if extra_env:
            self.vars.update(extra_env)

    def __call__(self, command: str | list[str], stdin: str = "") -> Result:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if MEMO is not None:
            i = find_verb(argv)
            return MEMO.call(self, argv, stdin, lambda: self._run(argv, stdin), None if i is None else argv[i])
        return self._run(argv, stdin)

    def _run(self, argv: list[str], stdin: str) -> Result:
        out, err = io.StringIO(), io.StringIO()
        env = Environment(stdin=io.StringIO(stdin), stdout=out, stderr=err, vars=dict(self.vars))
        code = main(argv, env)
        return Result(code, out.getvalue(), err.getvalue())

    def ok(self, command: str | list[str], stdin: str = "") -> str:
        r = self(command, stdin)
        assert r.code == 0, f"{command!r} failed ({r.code}): {r.err}"
        return r.out

    def apply(self, manifest: str) -> str:
        """``apply -f -`` of a manifest's text."""
        return self.ok("apply -f -", stdin=manifest)

    def clock(self) -> str:
        """The simulated time, as ``cluster info`` prints it (RFC 3339)."""
        info = self.ok("cluster info").splitlines()
        return next(line.split()[2] for line in info if line.startswith("simulated time:"))


def snapshot(state_dir) -> list:
    """Every stored row (objects and metadata), to check that a failed command changed nothing."""
    import sqlite3
    from pathlib import Path

    db = Path(state_dir) / "kubesim.db"
    if not db.exists():
        return []
    conn = sqlite3.connect(str(db))
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'objects'").fetchone():
            return []  # the file exists, nothing was ever committed to it
        rows = conn.execute("SELECT kind, namespace, name, rv, body FROM objects ORDER BY 1, 2, 3").fetchall()
        rows += conn.execute("SELECT 'meta', key, '', 0, value FROM meta ORDER BY 2").fetchall()
    finally:
        conn.close()
    return rows
