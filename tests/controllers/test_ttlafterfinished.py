"""The TTL-after-finished controller (ttlafterfinished_controller_test.go TestTimeLeft's cases:
not finished, no TTL, expiring later, expired)."""

import pytest

from kubesim.clock import parse_time
from kubesim.controllers import ttlafterfinished
from kubesim.controllers.base import View

NOW = parse_time("2026-11-22T12:00:00Z")


def job(ttl=None, finished_at=None, cond="Complete"):
    j = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default", "uid": "u"},
         "spec": {}, "status": {}}
    if ttl is not None:
        j["spec"]["ttlSecondsAfterFinished"] = ttl
    if finished_at is not None:
        j["status"]["conditions"] = [{"type": cond, "status": "True", "lastTransitionTime": finished_at}]
    return j


@pytest.mark.parametrize("obj,expected", [
    (job(ttl=10), []),
    (job(finished_at="2026-11-22T11:00:00Z"), []),
    (job(ttl=3600, finished_at="2026-11-22T11:30:00Z"), [("wake", NOW + 1800)]),
    (job(ttl=3600, finished_at="2026-11-22T11:00:00Z"), [("delete", None)]),
    (job(ttl=0, finished_at="2026-11-22T12:00:00Z", cond="Failed"), [("delete", None)]),
], ids=["an unfinished job is kept", "a job without a TTL is kept", "a TTL not yet expired is a wake",
        "an expired job is deleted", "a failed job with TTL 0 goes at once"])
def test_ttl_after_finished(obj, expected):
    changes = ttlafterfinished.sync(View({"Job": [obj]}, NOW))
    assert [(c.op, c.at) for c in changes] == expected
    assert all(c.propagation == "Foreground" for c in changes if c.op == "delete")
