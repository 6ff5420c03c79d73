"""For the test suite: replay a CLI harness's command sequence from a cache when another test
already ran exactly the same sequence on the same (pinned, seeded) starting point.

Most of a CLI test's time is its first command: on an empty state it builds the default cluster
(kubeadm's control plane, add-ons, the first settle) before doing its own work, and many tests
start with the same commands (one manifest applied for a whole parametrized table). A command
is a function of (the state, argv, stdin, the environment) once ``KUBESIM_NOW`` pins the clock and
``KUBESIM_SEED`` seeds the names, so its result can be kept and copied: the first test to run a
sequence runs it for real and its resulting state directory is kept; a later test whose
``Harness`` runs the same sequence from the same start gets a copy of that state (``cp -a``, the
state's own path rewritten in its database and files) and the same stdout, stderr and exit code.
Every command after the shared prefix runs for real on that copy, and every assertion reads real
output of kubesim for exactly its own command sequence.

What keeps it honest:

* a step is replayed only if the state directory is exactly as the harness left it after the
  previous step (every file's size and mtime): a test that edits files in the state, runs
  ``kubesim`` in a subprocess or points a second harness at it falls back to running for real;
* the key of a step is the previous step's key, argv, stdin, every harness variable but the state
  path, the process's environment (``TZ``, ``KUBESIM_IMAGES``) and the contents of every local file or directory an
  argument names;
* only pinned and seeded harnesses are replayed; commands with effects outside the state or on
  the wall clock (``cp``, ``edit``, ``diff``, ``cluster-info``, ``serve``, ``drill``, ``exam``,
  ``kustomize``, ``--state``, ``--kubeconfig``, a ``KUBECONFIG`` variable) always run for real;
* a local file an argument names counts by its basename and contents, not its directory (every
  test writes its manifests into its own tmp_path); a step whose output or resulting state names
  such a path, or the state's own path, is not kept (a table would be aligned to that path's
  length), and nothing raised is kept;
* a test never replays what it ran itself, so a test that runs one sequence twice to check that
  kubesim is deterministic still runs it twice;
* while a test has monkeypatched anything but environment variables, its commands run for real
  and are not kept (``tests/conftest.py`` hands pytest's ``monkeypatch`` to the replay);
* only the main thread takes part (``tests/cli/test_concurrency.py`` runs harnesses in threads).

Under pytest-xdist every worker has its Memo, all in one directory the controller made
(``shared``): a step kept by one worker is there for the others to replay, under its key (its
state directory complete before the ``<key>.json`` naming it is renamed into place).

``KUBESIM_TEST_MEMO=0`` turns it off (every command runs for real, as before).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

# what always runs for real: effects outside the state directory, or on the wall clock
UNCACHED_VERBS = frozenset({"cp", "edit", "diff", "cluster-info", "serve", "drill", "exam", "kustomize"})
UNCACHED_FLAGS = ("--state", "--kubeconfig", "-k", "--kustomize")
# a step is kept only when running it cost more CPU (seconds) than copying its state back will
KEEP_SLOWER_THAN = 0.05
MAX_ENTRIES = 4000
# what pytest sets for its own bookkeeping (the running test, which xdist worker): not an input
PYTEST_VARS = frozenset({"PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER"})
MAX_DIRECTORY_ENTRIES = 500  # an argument naming a bigger directory is not hashed: the step runs for real


@dataclass
class Entry:
    state: str  # the kept copy
    origin: str  # the state path it was made under (rewritten on a copy)
    code: int
    out: str
    err: str
    owner: str  # the test that ran it


@dataclass
class Chain:
    key: str
    fingerprint: tuple


def fingerprint(state: str) -> tuple | None:
    """Every file under the state with its size and mtime; None when the directory is absent."""
    if not os.path.isdir(state):
        return None
    rows = []
    for root, dirs, files in os.walk(state):
        dirs.sort()
        for name in sorted(files) + dirs:
            p = os.path.join(root, name)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            rows.append((os.path.relpath(p, state), st.st_size, st.st_mtime_ns, st.st_mode))
    return tuple(rows)


def _digest(path: str) -> str | None:
    """The basename and contents of a local file, or of a directory's tree; None for what is
    not worth reading (a fifo, a device, a tree of more than MAX_DIRECTORY_ENTRIES)."""
    h = hashlib.sha256(os.path.basename(os.path.normpath(path)).encode() + b"\0")
    try:
        if os.path.islink(path):
            h.update(b"link\0" + os.readlink(path).encode() + b"\0")
        if os.path.isdir(path):
            walked = 0
            for root, dirs, files in os.walk(path):
                walked += len(files) + len(dirs)
                if walked > MAX_DIRECTORY_ENTRIES:
                    return None
                dirs.sort()
                for name in sorted(files) + dirs:
                    p = os.path.join(root, name)
                    h.update(os.path.relpath(p, path).encode() + b"\0")
                    if os.path.islink(p):
                        h.update(b"link\0" + os.readlink(p).encode() + b"\0")
                    elif os.path.isfile(p):
                        h.update(Path(p).read_bytes())
        elif os.path.isfile(path):
            h.update(Path(path).read_bytes())
        else:
            return None
    except OSError:
        return None
    return h.hexdigest()


def _local_inputs(argv: list[str], state: str) -> tuple[list[str], list[str]] | None:
    """argv with every local file or directory an argument names (``-f /tmp/x/web.yaml``,
    ``--from-file=k=path``) standing as its basename and contents, and the paths so replaced
    (a test's files live in its own tmp_path, so the same manifest has another path in every
    test); None when an argument names something inside the state or not worth reading."""
    key, paths = [], []
    inside = os.path.realpath(state)
    for arg in argv:
        norm = arg
        for part in sorted({arg, *arg.split("=")[1:]}, key=len, reverse=True):
            try:
                if not part or len(part) > 4096 or not os.path.lexists(part):
                    continue
            except (ValueError, OSError):  # a NUL byte, a name too long
                continue
            real = os.path.realpath(part)
            if real == inside or real.startswith(inside + os.sep):
                return None
            digest = _digest(part)
            if digest is None:
                return None
            norm = norm.replace(part, f"<local {digest}>")
            if part not in paths:
                paths.append(part)
        key.append(norm)
    return key, paths


def _mentions(state: str, texts: list[str]) -> bool:
    """Whether any file of the state holds any of the texts."""
    needles = [t.encode() for t in texts if t]
    if not needles:
        return False
    for root, _dirs, files in os.walk(state):
        for name in files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                continue
            data = Path(p).read_bytes()
            if any(n in data for n in needles):
                return True
    return False


def _rewrite(state: str, old: str, new: str) -> None:
    """The copied state's own path, named inside it (the nodes' static-pod-path annotations),
    becomes the new path: in every text column of the database and in every text file."""
    db = os.path.join(state, "kubesim.db")
    if os.path.exists(db):
        conn = sqlite3.connect(db)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for t in tables:
                for col in conn.execute(f'PRAGMA table_info("{t}")').fetchall():
                    if "TEXT" in (col[2] or "").upper():
                        conn.execute(f'UPDATE "{t}" SET "{col[1]}" = replace("{col[1]}", ?, ?) '
                                     f'WHERE instr("{col[1]}", ?) > 0', (old, new, old))
            conn.commit()
        finally:
            conn.close()
    oldb, newb = old.encode(), new.encode()
    for root, _dirs, files in os.walk(state):
        for name in files:
            if name.startswith("kubesim.db"):
                continue
            p = os.path.join(root, name)
            if os.path.islink(p):
                continue
            data = Path(p).read_bytes()
            if oldb in data:
                st = os.stat(p)
                Path(p).write_bytes(data.replace(oldb, newb))
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))


def _creatable(path: str) -> bool:
    """Whether the nearest existing ancestor of ``path`` is a directory (its parents are made
    as a new state's are)."""
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    return os.path.isdir(parent)


PREFIX = "kubesim-test-memo-"


def _remove_stale() -> None:
    """The kept states of test runs that were killed before they could remove them."""
    base = tempfile.gettempdir()
    for name in os.listdir(base):
        if not name.startswith(PREFIX):
            continue
        try:
            pid = int(name[len(PREFIX):].split("-")[0])
            os.kill(pid, 0)
        except ValueError:
            continue
        except ProcessLookupError:
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        except PermissionError:
            continue  # another user's live process


class Memo:
    def __init__(self, directory: str | None = None, shared: bool = False):
        """``shared``: the directory is also other processes' (pytest-xdist's workers), and its
        maker removes it."""
        if directory is None:
            _remove_stale()
            directory = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        self.dir = directory
        self.shared = shared
        self.entries: dict[str, Entry] = {}
        self.chains: dict[str, Chain] = {}
        self.test = ""  # the running test's node id
        self.keep_slower_than = KEEP_SLOWER_THAN
        self.patches: list = []  # the running test's pytest MonkeyPatch objects
        self.hits = self.kept = 0
        self.lock = threading.Lock()

    def close(self) -> None:
        if not self.shared:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _entry(self, key: str) -> Entry | None:
        entry = self.entries.get(key)
        if entry is None and self.shared:
            try:
                with open(os.path.join(self.dir, f"{key}.json"), encoding="utf-8") as fh:
                    entry = self.entries[key] = Entry(**json.load(fh))
            except FileNotFoundError:
                pass
        return entry

    def _keep(self, key: str, state: str, result) -> None:
        if not self.shared:
            kept = os.path.join(self.dir, str(len(self.entries)))
            shutil.copytree(state, kept, symlinks=True)
            self.entries[key] = Entry(kept, state, result.code, result.out, result.err, self.test)
            return
        kept = os.path.join(self.dir, f"{key}-{os.getpid()}")
        shutil.copytree(state, kept, symlinks=True)
        entry = self.entries[key] = Entry(kept, state, result.code, result.out, result.err, self.test)
        meta = os.path.join(self.dir, f".{key}-{os.getpid()}.json")
        with open(meta, "w", encoding="utf-8") as fh:
            json.dump(entry.__dict__, fh)
        os.replace(meta, os.path.join(self.dir, f"{key}.json"))

    def _key(self, prev: str, argv: list[str], stdin: str, vars_: dict, state: str) -> tuple | None:
        """The step's key and the local paths its argv names (None: this step runs for real)."""
        inputs = _local_inputs(argv, state)
        if inputs is None:
            return None
        args, paths = inputs
        env = sorted((k, v) for k, v in vars_.items() if k != "KUBESIM_STATE")
        proc = sorted((k, v) for k, v in os.environ.items() if k not in PYTEST_VARS)
        h = hashlib.sha256(repr((prev, args, stdin, env, proc, os.getcwd())).encode())
        return h.hexdigest(), paths

    def eligible(self, argv: list[str], verb: str | None, vars_: dict, state: str) -> bool:
        if threading.current_thread() is not threading.main_thread() or self._patched():
            return False
        if "KUBESIM_NOW" not in vars_ or "KUBESIM_SEED" not in vars_ or "KUBECONFIG" in vars_:
            return False
        if vars_.get("KUBESIM_STATE") != state or not os.path.isabs(state):
            return False
        if any(a == f or a.startswith(f + "=") for a in argv for f in UNCACHED_FLAGS):
            return False
        return verb is not None and verb not in UNCACHED_VERBS

    def _patched(self) -> bool:
        """Whether a MonkeyPatch holds a change other than to ``os.environ`` (pytest keeps its
        undo records in ``_setattr`` and ``_setitem``)."""
        for mp in self.patches:
            if getattr(mp, "_setattr", None) or any(d is not os.environ for d, *_ in getattr(mp, "_setitem", ())):
                return True
        return False

    def _start(self, state: str) -> str | None:
        """The key the state directory stands at: where the last step left it, a fresh start,
        or None when something else has written to it since."""
        fp = fingerprint(state)
        chain = self.chains.get(state)
        if chain is not None and chain.fingerprint == fp:
            return chain.key
        if fp is None:
            # (a state the command can create: under a file, the command's own error is the
            # answer, never a copy of another run's new state)
            return "absent" if _creatable(state) else None
        if fp == ():
            return "empty"
        return None

    def call(self, harness, argv: list[str], stdin: str, run, verb: str | None):
        """``run()`` runs the command for real; ``verb`` is the command's verb (cli.main.find_verb)."""
        state = harness.state_dir
        with self.lock:
            if not self.eligible(argv, verb, harness.vars, state):
                self.chains.pop(state, None)
                return run()
            prev = self._start(state)
            keyed = None if prev is None else self._key(prev, argv, stdin, harness.vars, state)
            self.chains.pop(state, None)
            if keyed is None:
                return run()
            key, paths = keyed
            entry = self._entry(key)
            if entry is not None and entry.owner != self.test:
                self._copy(entry, state)
                self.hits += 1
                self.chains[state] = Chain(key, fingerprint(state))
                from kubesim.testing.cli import Result

                return Result(entry.code, entry.out, entry.err)
        import time

        t0 = time.process_time()  # CPU, not wall time: the machine may be busy with other work
        result = run()  # an exception leaves the chain broken: the next step runs for real
        elapsed = time.process_time() - t0
        with self.lock:
            if (entry is None and elapsed > self.keep_slower_than and len(self.entries) < MAX_ENTRIES
                    and not any(p in result.out or p in result.err for p in [state, *paths])
                    and os.path.isdir(state) and not _mentions(state, paths)):
                self._keep(key, state, result)
                self.kept += 1
            self.chains[state] = Chain(key, fingerprint(state))
        return result

    @staticmethod
    def _copy(entry: Entry, state: str) -> None:
        if os.path.lexists(state):
            shutil.rmtree(state)
        shutil.copytree(entry.state, state, symlinks=True)
        if entry.origin != state:
            _rewrite(state, entry.origin, state)
