"""The API server's storage interface: the one way into the state.

Only the API server holds the ``Store`` (the SQLite-backed state, ``kubesim.store``); the
control plane opens it through here and hands it to its components as the storage they read
and write through (their writes are the API server's: a component never opens the state
itself). kubectl never sees it: it talks to the API server through the client interface.

Upstream: the generic registry's storage layer (staging/src/k8s.io/apiserver/pkg/registry/
generic/registry/store.go over storage.Interface): objects keyed by resource, namespace and
name, with a global resourceVersion.
"""

from __future__ import annotations


def open_storage(directory, read_only: bool = False, snapshot: bool = False):
    """Open the state in ``directory`` (creating it) for one transaction; ``read_only`` reads
    a snapshot without taking the write lock, where the state allows it (``store.read_only``);
    ``snapshot``: an existing state, read-only for SQLite itself (shell completion)."""
    from kubesim.api.tablefields import TABLE_FIELDS, projector, version
    from kubesim.store import Store

    store = Store(directory).open(read_only=read_only, snapshot=snapshot)
    for kind in TABLE_FIELDS:  # what a table of the kind reads, kept beside each object
        store.project(kind, projector(kind), version(kind))
    return store


def storage_exists(directory) -> bool:
    """Whether ``directory`` already holds a state (a command there opens a cluster, not a new one)."""
    import os

    from kubesim.store import DB_NAME

    return os.path.exists(os.path.join(directory, DB_NAME))


def make_state_dirs(root, *parts: str):
    """Directories inside the state (a node's machine directory), never through a symbolic
    link (kubesim.store.files.make_dirs)."""
    from kubesim.store import files

    return files.make_dirs(root, *parts)


def write_state_file(directory, name: str, text: str):
    """A whole file inside the state, never through a symbolic link (kubesim.store.files)."""
    from kubesim.store import files

    return files.write_file(directory, name, text)


def new_uid(rng=None) -> str:
    """A version-4 UUID for an object the API server creates, from ``rng`` (the command's
    seeded random source) when given, as the store gives one to an object stored without."""
    from kubesim.store import new_uid as uid

    return uid(rng)
