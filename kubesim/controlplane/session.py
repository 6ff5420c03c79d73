"""One command's session on a state: open it, let the control plane catch up with the time that
passed, serve the command's requests through a ``LocalClient``, settle and commit all or
nothing (DESIGN principles 4 and 5). Also kubesim's own ``cluster init|reset|info``, which act
on the state itself rather than through the API.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TextIO


@dataclass
class Options:
    """Where the state is and what the command's environment says about time and logs."""

    directory: str
    env: dict  # KUBESIM_NOW, KUBESIM_SEED
    verbosity: int = 0
    log_stream: TextIO | None = None


def _open(opts: Options):
    from kubesim.apiserver.context import Cluster, Logger
    from kubesim.apiserver.storage import open_storage

    store = open_storage(opts.directory)
    try:
        return Cluster(store, opts.env, Logger(verbosity=opts.verbosity, stream=opts.log_stream))
    except BaseException:
        store.rollback()
        raise


@contextlib.contextmanager
def session(opts: Options, settle_first: bool = True, commit: bool = True):
    """Yield a LocalClient on a settled cluster; settle again and commit when the block succeeds
    (with ``commit`` False, as for a what-if, everything is rolled back), roll back if it raises."""
    from kubesim.controlplane.bootstrap import ensure_initialized
    from kubesim.controlplane.client import LocalClient
    from kubesim.controlplane.settle import settle

    cluster = _open(opts)
    try:
        ensure_initialized(cluster)
        if settle_first:
            settle(cluster)
        yield LocalClient(cluster)
        if commit:
            settle(cluster)
    except BaseException:
        cluster.rollback()
        raise
    if commit:
        cluster.commit()
    else:
        cluster.rollback()


def init_cluster(opts: Options, reset: bool = False, nodes: int = 2, cpu: str | None = None,
                 memory: str | None = None, zones: str | None = None, empty: bool = False) -> str:
    """Replace the state's contents with a fresh cluster, in one transaction; the state's path."""
    from kubesim.controlplane.bootstrap import initialize
    from kubesim.controlplane.settle import settle

    cluster = _open(opts)
    store = cluster.store
    try:
        store.wipe()  # (initialize stages a new node tree: the old one goes at commit)
        if reset:
            initialize(cluster)
        else:
            initialize(cluster, nodes=nodes, cpu=cpu, memory=memory, zones=zones, empty=empty)
        settle(cluster, force=True)
    except BaseException:
        cluster.rollback()
        raise
    cluster.commit()
    return str(store.directory)


def state_directory(client) -> str:
    """The state directory a LocalClient serves (``cluster info``)."""
    return str(client.cluster.store.directory)
