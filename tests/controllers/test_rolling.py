"""One rolling-update sync's steps, table-driven after pkg/controller/deployment/rolling_test.go
(TestDeploymentController_reconcileNewReplicaSet, _reconcileOldReplicaSets,
_cleanupUnhealthyReplicas, _scaleDownOldReplicaSetsForRollingUpdate), driven through the
controller's working copy of one syncDeployment (``deployment._Sync``): the updates it makes are
the changes it returns, as upstream's are the fake clientset's actions."""

from __future__ import annotations

import pytest

from kubesim.controllers import deployment
from kubesim.controllers.base import View
from kubesim.testing.controllers import T0


def new_deployment(replicas, max_surge=0, max_unavailable=0):
    """newDeployment (deployment_controller_test.go): RollingUpdate with the given fenceposts."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "foo", "namespace": "default", "uid": "d-uid", "generation": 1, "annotations": {}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"foo": "bar"}},
                     "strategy": {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxSurge": max_surge, "maxUnavailable": max_unavailable}},
                     "template": {"metadata": {"labels": {"foo": "bar"}},
                                  "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}}}


def rs(name, replicas, available=0, created="2026-11-22T10:00:00Z", spec_status=None):
    """rs (deployment_controller_test.go) with status.availableReplicas."""
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid", "generation": 1,
                         "creationTimestamp": created},
            "spec": {"replicas": replicas}, "status": {"availableReplicas": available}}


def controller(d):
    return deployment._Sync(View({}, T0), d)


def updates(sync) -> list[tuple[str, int]]:
    return [(c.obj["metadata"]["name"], c.obj["spec"]["replicas"]) for c in sync.changes if c.op == "update"]


@pytest.mark.parametrize("deployment_replicas,max_surge,old_replicas,new_replicas,expected", [
    (10, 0, 10, 0, None),
    (10, 2, 10, 0, 2),
    (10, 2, 5, 0, 7),
    (10, 2, 10, 2, None),
    (10, 2, 2, 11, 10),
], ids=["should not scale up", "surge 2 over 10 old", "room left by a smaller old one",
        "surge already used", "should scale down"])
def test_reconcile_new_replicaset(deployment_replicas, max_surge, old_replicas, new_replicas, expected):
    new, old = rs("foo-v2", new_replicas), rs("foo-v1", old_replicas)
    sync = controller(new_deployment(deployment_replicas, max_surge, 0))
    scaled = sync._reconcile_new_rs([new, old], new)
    assert scaled is (expected is not None)
    assert updates(sync) == ([] if expected is None else [("foo-v2", expected)])


@pytest.mark.parametrize("deployment_replicas,max_unavailable,old_replicas,new_replicas,ready_old,ready_new,expected", [
    (10, 0, 10, 0, 10, 0, 9),
    (10, 2, 10, 0, 10, 0, 8),
    (10, 2, 10, 0, 8, 0, 8),
    (10, 2, 10, 0, 9, 0, 8),
    (10, 2, 8, 2, 8, 0, None),
], ids=["maxUnavailable 0 still lets one go (the fencepost)", "two may go",
        "unhealthy replicas of old replica sets are cleaned up",
        "one unhealthy replica cleaned up, one ready pod scaled down",
        "the new replica set's unavailable pods hold the old ones back"])
def test_reconcile_old_replicasets(deployment_replicas, max_unavailable, old_replicas, new_replicas, ready_old,
                                   ready_new, expected):
    new, old = rs("foo-new", new_replicas, ready_new), rs("foo-old", old_replicas, ready_old)
    sync = controller(new_deployment(deployment_replicas, 0, max_unavailable))
    scaled = sync._reconcile_old_rss([old, new], [old], new)
    assert scaled is (expected is not None)
    if expected is not None:
        assert updates(sync)[-1] == ("foo-old", expected)


@pytest.mark.parametrize("old_replicas,ready_pods,max_cleanup,expected", [
    (10, 8, 1, 1),
    (10, 8, 3, 2),
    (10, 8, 0, 0),
    (10, 10, 3, 0),
])
def test_cleanup_unhealthy_replicas(old_replicas, ready_pods, max_cleanup, expected):
    sync = controller(new_deployment(10, 2, 2))
    _, cleaned = sync._cleanup_unhealthy([rs("foo-v2", old_replicas, ready_pods)], max_cleanup)
    assert cleaned == expected
    assert updates(sync) == ([("foo-v2", old_replicas - expected)] if expected else [])


@pytest.mark.parametrize("deployment_replicas,max_unavailable,ready_pods,old_replicas,expected", [
    (10, 0, 10, 10, 9),
    (10, 2, 10, 10, 8),
    (10, 2, 8, 10, None),
    (10, 2, 10, 0, None),
    (10, 2, 1, 10, None),
])
def test_scale_down_old_replicasets_for_rolling_update(deployment_replicas, max_unavailable, ready_pods,
                                                       old_replicas, expected):
    old = rs("foo-v2", old_replicas, ready_pods)
    sync = controller(new_deployment(deployment_replicas, 0, max_unavailable))
    scaled = sync._scale_down_old_for_rolling([old], [old])
    assert (scaled != 0) is (expected is not None)
    assert updates(sync) == ([] if expected is None else [("foo-v2", expected)])


def test_an_old_replicaset_reporting_more_available_than_it_wants_is_not_scaled_up():
    # The ReplicaSet controller writes the status it computed from the pods it had before
    # deleting the ones a scale-down (2 -> 1) made surplus: spec 1, 2 available. Upstream's
    # cleanupUnhealthyReplicas refuses the negative "scale down" (1 -> 2) and the sync scales
    # nothing down; the next one, with the status caught up, takes the old one to 0.
    d = new_deployment(5, "25%", "25%")
    new, old = rs("web-new", 5, 5), rs("web-old", 1, 2)
    sync = controller(d)
    assert sync._reconcile_old_rss([old, new], [old], new) is False
    assert updates(sync) == []
    old["status"]["availableReplicas"] = 1
    sync = controller(d)
    assert sync._reconcile_old_rss([old, new], [old], new) is True
    assert updates(sync) == [("web-old", 0)]
    assert [e.message for c in sync.changes for e in c.events] == ["Scaled down replica set web-old from 1 to 0"]
