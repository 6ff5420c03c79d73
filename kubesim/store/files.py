"""The files a state keeps beside its database: each node's machine directory (``nodes/<node>/``,
whose ``manifests/`` is the kubelet's staticPodPath), kept in step with the database and never
written through a symbolic link.

A new cluster (``cluster init``/``reset``, or a state's first use) builds its node directories in
``nodes.new/`` while its transaction runs, with a generation mark that the transaction also
stores. Only after the commit is ``nodes.new`` renamed to ``nodes`` (the old tree goes). A
process killed before the commit leaves the old database and the old ``nodes/`` (the staged tree
is removed by the next command); killed between the commit and the rename, the next command
finds the staged tree's mark equal to the committed generation and finishes the rename. Either
way the database and the files are of one cluster.

Writes inside the state go through :func:`make_dirs` and :func:`write_file`, which refuse a path
whose state-owned components are symbolic links (``lstat``; files are opened with
``O_NOFOLLOW`` and created new, then renamed into place), so a state directory that ships a link
(``nodes/controlplane/manifests/etcd.yaml -> ~/.bashrc``) cannot make kubesim write elsewhere.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kubesim.errors import StateError

NODES = "nodes"
STAGING = "nodes.new"
RETIRED = "nodes.old"
MARK = ".kubesim-generation"
GENERATION_META = "nodes.generation"
DB_FILES = ("kubesim.db", "kubesim.db-wal", "kubesim.db-shm")
LOCK = "kubesim.lock"


def refuse_links(directory: Path) -> None:
    """The database files and the lock must be the state's own: SQLite would follow a link."""
    for name in DB_FILES + (LOCK,):
        p = directory / name
        if p.is_symlink():
            raise StateError(f"refusing to use state {directory}: {name} is a symbolic link "
                             f"(to {os.readlink(p)}); kubesim never writes through one")


def _remove(path: Path) -> None:
    """Remove a file, a link (not what it points to) or a directory tree; gone already is fine."""
    _made.clear()
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _mark(path: Path) -> str | None:
    try:
        if (path / MARK).is_symlink():
            return None
        return (path / MARK).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def leftovers(directory: Path) -> bool:
    """Whether a staged or retired tree is there (what :func:`recover` deals with)."""
    return os.path.lexists(directory / STAGING) or os.path.lexists(directory / RETIRED)


def recover(directory: Path, committed_generation: str | None) -> None:
    """Finish or undo what a killed command left (see the module docstring)."""
    staged = directory / STAGING
    if os.path.lexists(staged):
        if (not staged.is_symlink() and staged.is_dir() and committed_generation is not None
                and _mark(staged) == committed_generation):
            _swap(directory)
        else:
            _remove(staged)
    if os.path.lexists(directory / RETIRED):
        _remove(directory / RETIRED)


def stage(directory: Path, generation: str) -> Path:
    """A fresh, empty ``nodes.new`` marked with ``generation`` (unique to the transaction that
    will commit it)."""
    staged = directory / STAGING
    _remove(staged)
    try:
        os.mkdir(staged)
    except OSError as e:
        raise StateError(f"cannot create {staged}: {e.strerror or e}") from None
    write_file(staged, MARK, generation + "\n")
    return staged


def _swap(directory: Path) -> None:
    """``nodes.new`` becomes ``nodes``; the previous tree (or a link in its place) goes."""
    _made.clear()
    current, staged, retired = directory / NODES, directory / STAGING, directory / RETIRED
    _remove(retired)
    if os.path.lexists(current):
        os.rename(current, retired)  # renames a link itself, never what it points to
    os.rename(staged, current)
    _remove(retired)


def discard(directory: Path) -> None:
    """A rolled-back transaction's staged tree."""
    _remove(directory / STAGING)


def finish(directory: Path) -> None:
    """After the commit of a transaction that staged a tree."""
    _swap(directory)


def _check_no_link(path: Path, root: Path) -> None:
    if path.is_symlink():
        raise StateError(f"refusing to write through a symbolic link in the state: {path} -> "
                         f"{os.readlink(path)} (remove the link, or run `kubesim cluster reset`)")
    if os.path.lexists(path) and not path.is_dir():
        raise StateError(f"cannot create directory {path} in the state: a file is in the way")


# Directories this transaction has made or found to be real ones: a cluster of 5,000 nodes
# asks for each node's directories several times while it is created (one lstat each, once).
# Forgotten when a transaction opens (between commands anything may have changed on disk) and
# when a tree is removed or renamed.
_made: set[str] = set()


def forget_dirs() -> None:
    _made.clear()


def _ensure_dir(path: str) -> None:
    """``path`` a directory, made if missing, never a link (one lstat when it exists)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        try:
            os.mkdir(path)
            _made.add(path)
            return
        except FileExistsError:
            mode = os.lstat(path).st_mode
        except OSError as e:
            raise StateError(f"cannot create directory {path}: {e.strerror or e}") from None
    if stat.S_ISLNK(mode):
        _check_no_link(Path(path), Path(path))  # raises, naming the link
    if not stat.S_ISDIR(mode):
        raise StateError(f"cannot create directory {path} in the state: a file is in the way")
    _made.add(path)


def make_dirs(root: Path, *parts: str) -> Path:
    """``root/parts...`` as directories, created as needed; no component (``root`` included)
    may be a symbolic link. Returns the path."""
    path = os.fspath(root)
    if path not in _made:
        _ensure_dir(path)
    for part in parts:
        path = os.path.join(path, part)
        if path not in _made:
            _ensure_dir(path)
    return Path(path)


def write_file(directory: Path, name: str, text: str) -> Path:
    """Write ``directory/name`` whole: a new temporary file (``O_EXCL | O_NOFOLLOW``) renamed
    over it, so a reader never sees half a file and a link there is replaced, not followed.
    ``directory`` must not be a link (callers make it with :func:`make_dirs`)."""
    _check_no_link(directory, directory)
    target = directory / name
    tmp = directory / f".{name}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except OSError as e:
        _remove(tmp)
        raise StateError(f"cannot write {target}: {e.strerror or e}") from None
    return target


def writer_lock(directory: Path) -> int:
    """Take the state's writer lock (``flock`` on ``kubesim.lock``, never through a link),
    waiting for it as long as it takes (Ctrl-C stops the wait); the descriptor holds it. The
    kernel queues waiting writers, where SQLite's own busy handler lets them poll and a
    late-comer can win again and again (one command starved for a minute behind 15 others)."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(directory / LOCK, flags, 0o644)
    except OSError as e:
        raise StateError(f"cannot open the lock file of state {directory}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd
