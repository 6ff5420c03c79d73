"""One command's session: open the state, settle, commit all or nothing."""

from __future__ import annotations

import contextlib
import os

from kubesim.controlplane.context import Cluster, Logger


def state_dir(args, env) -> str:
    return getattr(args, "state", None) or env.vars.get("KUBESIM_STATE") or os.path.join(env.cwd or os.getcwd(), "state")


def namespace(args) -> str:
    return getattr(args, "namespace", None) or "default"


@contextlib.contextmanager
def session(args, env, settle_first: bool = True):
    """Yield a settled Cluster; settle again and commit when the block succeeds, roll back if it raises."""
    from kubesim.controlplane.bootstrap import ensure_initialized
    from kubesim.controlplane.settle import settle
    from kubesim.store import Store

    store = Store(state_dir(args, env)).open()
    try:
        log = Logger(verbosity=getattr(args, "verbosity", 0) or 0, stream=env.stderr)
        cluster = Cluster(store, env.vars, log)
        ensure_initialized(cluster)
        if settle_first:
            settle(cluster)
        yield cluster
        settle(cluster)
    except BaseException:
        store.rollback()
        raise
    cluster.commit()
