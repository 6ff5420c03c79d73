"""One command's session on a state: open it, let the control plane catch up with the time that
passed, serve the command's requests through a ``LocalClient``, settle and commit all or
nothing (DESIGN principles 4 and 5). Also kubesim's own ``cluster init|reset|info``, which act
on the state itself rather than through the API.
"""

from __future__ import annotations

import contextlib
from typing import TextIO

from kubesim.api.record import Record


class Options(Record):
    """Where the state is and what the command's environment says about time and logs."""

    __slots__ = ("directory", "env", "field_manager", "impersonate", "log_stream", "verbosity")

    def __init__(self, directory: str, env: dict, verbosity: int = 0, log_stream: TextIO | None = None,
                 impersonate: tuple | None = None, field_manager: str = "kubectl"):
        self.directory = directory
        self.env = env  # KUBESIM_NOW, KUBESIM_SEED
        self.verbosity = verbosity
        self.log_stream = log_stream
        # (user, groups, uid) the requests impersonate (--as, --as-group, --as-uid); None: none
        self.impersonate = impersonate
        # the manager the requests' writes are recorded under in managedFields (kubectl's
        # --field-manager, or what the API server derives from the user agent)
        self.field_manager = field_manager


def _open(opts: Options, read_only: bool = False, snapshot: bool = False):
    from kubesim.apiserver.context import Cluster, Logger
    from kubesim.apiserver.storage import open_storage
    from kubesim.controlplane.scheduling import keep_scheduler_cache

    store = open_storage(opts.directory, read_only=read_only, snapshot=snapshot)
    keep_scheduler_cache(store)
    try:
        return Cluster(store, opts.env, Logger(verbosity=opts.verbosity, stream=opts.log_stream))
    except BaseException:
        store.rollback()
        raise


def _open_for_reading(opts: Options):
    """A cluster on a snapshot when nothing is due (the command then never waits behind a
    writer); else, or when the state needs the write lock, the usual write transaction."""
    from kubesim.controlplane.components import NODE_LEASES_META
    from kubesim.controlplane.settle import settle_pending

    cluster = _open(opts, read_only=True)
    store = cluster.store
    try:
        if (store.read_only and store.meta("cluster.initialized") and store.meta(NODE_LEASES_META) is not None
                and not settle_pending(cluster)):
            return cluster
    except BaseException:
        cluster.rollback()
        raise
    cluster.rollback()
    return _open(opts)


@contextlib.contextmanager
def session(opts: Options, settle_first: bool = True, commit: bool = True, read_only: bool = False):
    """Yield a LocalClient on a settled cluster; settle again and commit when the block succeeds
    (with ``commit`` False, as for a what-if, everything is rolled back), roll back if it raises.
    ``read_only`` (get, describe, logs): when nothing is due, serve the block from a snapshot
    of the last commit, without the write lock."""
    from kubesim.controlplane.audit import client_for
    from kubesim.controlplane.bootstrap import ensure_initialized
    from kubesim.controlplane.settle import settle

    cluster = _open_for_reading(opts) if read_only else _open(opts)
    if cluster.store.read_only:
        try:
            yield client_for(cluster, opts.impersonate, opts.field_manager)
        except BaseException:
            cluster.rollback()
            raise
        if cluster.store.dirty and commit:
            cluster.commit()  # (a reading command wrote after all: it takes the write lock now)
        else:
            cluster.rollback()
        return
    try:
        ensure_initialized(cluster)
        client = client_for(cluster, opts.impersonate, opts.field_manager)
        if settle_first:
            settle(cluster)
        yield client
        if commit:
            settle(cluster)
    except BaseException:
        cluster.rollback()
        raise
    if commit:
        cluster.commit()
    else:
        cluster.rollback()


@contextlib.contextmanager
def read_session(opts: Options):
    """A LocalClient on the state as last committed: no settle, no write, no write lock (what
    shell completion reads). The state must exist (``has_cluster``)."""
    from kubesim.controlplane.client import LocalClient

    cluster = _open(opts, snapshot=True)
    try:
        yield LocalClient(cluster, opts.impersonate, opts.field_manager)
    finally:
        cluster.rollback()


def init_cluster(opts: Options, reset: bool = False, nodes: int = 2, cpu: str | None = None,
                 memory: str | None = None, zones: str | None = None, empty: bool = False) -> str:
    """Replace the state's contents with a fresh cluster, in one transaction; the state's path.

    A cluster of more than ``NODES_PER_SLICE`` workers is built a slice at a time (at most
    ``MAX_SLICES``; kubesim.controlplane.bootstrap), as a real
    one grows when its kubelets join in waves: the control plane, the add-ons and the first
    slice of nodes settle, then each later slice of nodes is created and settles on what the
    earlier ones left. Between slices the transaction's writes go to the database
    (``Store.checkpoint``, still uncommitted: the init stays all or nothing) and every
    component's view of them is dropped, so memory holds one slice, not the cluster."""
    from kubesim.controlplane import bootstrap
    from kubesim.controlplane.settle import settle

    cluster = _open(opts)
    store = cluster.store
    try:
        store.wipe()  # (initialize stages a new node tree: the old one goes at commit)
        if reset:
            bootstrap.initialize(cluster)
            settle(cluster, force=True)
        else:
            step = bootstrap.slice_size(nodes)
            first = nodes if empty else min(nodes, step)
            if nodes > first and cluster.clock.pinned is None:
                # one instant for the whole init, as for an init at once (where the seconds the
                # slices take would have every earlier kubelet renew its lease and post its
                # status again, slice after slice)
                import time

                cluster.clock.pinned = time.time()
            bootstrap.initialize(cluster, nodes=first, cpu=cpu, memory=memory, zones=zones, empty=empty)
            settle(cluster, force=True)
            for start in range(first, nodes, step):
                cluster = _next_slice(cluster)
                bootstrap.add_worker_nodes(cluster, start, min(step, nodes - start), zones)
                settle(cluster, force=True)
            if nodes > first:
                from kubesim.controlplane.settle import record_static_pod_signature

                record_static_pod_signature(store)  # (with the later slices' directories)
    except BaseException:
        store.rollback()  # (Cluster.rollback: a slice's cluster may be half made)
        raise
    cluster.commit()
    return str(store.directory)


def _next_slice(cluster):
    """The written part of a new cluster checkpointed into the transaction and a fresh
    command's view of it (as the next command would open it: every component at rest), which
    goes on drawing from the same random source (names and uids stay unique)."""
    import gc

    from kubesim.apiserver.context import Cluster
    from kubesim.scheduler.framework.equivalence import forget_indexes
    from kubesim.scheduler.framework.types import forget_changes

    store = cluster.store
    store.checkpoint()
    fresh = Cluster(store, cluster.env, cluster.log)
    fresh.clock = cluster.clock
    fresh.rng = cluster.rng
    if "_explain_budget" in cluster.__dict__:  # (the command's, not a slice's: scheduling.py)
        fresh._explain_budget = cluster._explain_budget
    if getattr(cluster, "_static_pods_checked", False):
        # the static pod directories are checked once a command (settle.py): the slices add
        # empty ones (their kubelets have no static pods), recorded once the last has settled
        fresh._static_pods_checked = True
        if cluster.__dict__.get("_static_pod_dirs") is not None:
            fresh._static_pod_dirs = set(cluster._static_pod_dirs)
    store.rng = cluster.rng if "KUBESIM_SEED" in cluster.env else None
    # what the slice's components kept (their caches on the cluster, which refer back to it)
    # goes with it; the store's readers froze what they decoded out of the collector's reach
    # (store._decode_into): let it collect those cycles now
    cluster.__dict__.clear()
    forget_changes()  # (the scheduler's journal of the NodeInfos it changed: the slice's)
    forget_indexes()  # (and its equivalence classes' indexes of the slice's snapshots)
    gc.unfreeze()
    gc.collect()
    return fresh


def state_directory(client) -> str:
    """The state directory a LocalClient serves (``cluster info``)."""
    return str(client.cluster.store.directory)


CLUSTERS_DIR = "clusters"


def cluster_directory(state: str, name: str, default_name: str) -> str:
    """Where a named cluster's store lives in a state: the default cluster in the state
    directory itself (a one-cluster state is laid out as it always was), any other in
    ``clusters/NAME/``."""
    import os

    return state if name == default_name else os.path.join(state, CLUSTERS_DIR, name)


def has_cluster(directory: str) -> bool:
    from kubesim.apiserver.storage import storage_exists

    return storage_exists(directory)
