"""A long-lived ``kubesim serve`` frees what each request made: the request's cluster (and with
it the objects its session decoded) goes by reference counting when the request ends, not only
when a full collection finds its cycles (the field manager's Tracker holds its cluster weakly).
Before, every request that listed a few thousand pods kept tens of MB for good."""

import gc
import os
import weakref

import pytest

from kubesim.controlplane.session import Options
from kubesim.server.http import Backend
from kubesim.testing.cli import Harness


@pytest.fixture
def state(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok(["cluster", "init"])
    h.ok(["create", "deployment", "web", "--image=nginx", "--replicas=3"])
    return h.state_dir


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_a_served_request_leaves_nothing_for_the_collector(state, write):
    backend = Backend(Options(directory=str(state), env=dict(os.environ, KUBESIM_NOW="2026-11-27T10:00:00Z")))
    enabled = gc.isenabled()
    gc.disable()  # (only reference counting may free it)
    try:
        with backend.client(write=write) as c:
            assert len(c.cluster.store.list("Pod")) >= 3
            cluster = weakref.ref(c.cluster)
        del c
        assert cluster() is None
    finally:
        if enabled:
            gc.enable()
