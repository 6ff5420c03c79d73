"""Proportional scaling (sync.go ``scale``), table-driven after
pkg/controller/deployment/sync_test.go TestScale: the replica sets carry the desired-replicas and
max-replicas annotations the deployment before the scaling event left on them, and the sizes
after ``scale`` are read from the updates the controller makes (a replica set named in
``wasnt_updated`` keeps its size, as the Go test ignores its update)."""

from __future__ import annotations

import pytest

from kubesim.api.apps import deployment_util as adu
from kubesim.controllers import deployment
from kubesim.controllers import deployment_util as du
from kubesim.controllers.base import View
from kubesim.testing.controllers import T0

NEW, OLD, OLDER = "2016-05-20T02:00:00Z", "2016-05-20T01:00:00Z", "2016-05-20T00:00:00Z"


def new_deployment(replicas, max_surge=None, max_unavailable=None, template_labels=None):
    ru = {}
    if max_surge is not None:
        ru["maxSurge"] = max_surge
    if max_unavailable is not None:
        ru["maxUnavailable"] = max_unavailable
    labels = template_labels or {"foo": "bar"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "foo", "namespace": "default", "uid": "d-uid", "generation": 1, "annotations": {}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"foo": "bar"}},
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": ru},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}}}


def rs(name, replicas, created, available=0):
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid", "generation": 1,
                         "creationTimestamp": created},
            "spec": {"replicas": replicas}, "status": {"availableReplicas": available}}


CASES = [
    # name, deployment, old deployment, new rs, old rss, expected new, expected old, wasn't updated, desired annotations
    ("normal scaling event: 10 -> 12", new_deployment(12), new_deployment(10),
     ("foo-v1", 10, NEW), [], 12, [], (), {}),
    ("normal scaling event: 10 -> 5", new_deployment(5), new_deployment(10),
     ("foo-v1", 10, NEW), [], 5, [], (), {}),
    ("proportional scaling: 5 -> 10", new_deployment(10), new_deployment(5),
     ("foo-v2", 2, NEW), [("foo-v1", 3, OLD)], 4, [6], (), {}),
    ("proportional scaling: 5 -> 3", new_deployment(3), new_deployment(5),
     ("foo-v2", 2, NEW), [("foo-v1", 3, OLD)], 1, [2], (), {}),
    ("proportional scaling: 9 -> 4", new_deployment(4), new_deployment(9),
     ("foo-v2", 8, NEW), [("foo-v1", 1, OLD)], 4, [0], (), {}),
    ("proportional scaling: 7 -> 10", new_deployment(10), new_deployment(7),
     ("foo-v3", 2, NEW), [("foo-v2", 3, OLD), ("foo-v1", 2, OLDER)], 3, [4, 3], (), {}),
    ("proportional scaling: 13 -> 8", new_deployment(8), new_deployment(13),
     ("foo-v3", 2, NEW), [("foo-v2", 8, OLD), ("foo-v1", 3, OLDER)], 1, [5, 2], (), {}),
    ("leftover distribution: 3 -> 4", new_deployment(4), new_deployment(3),
     ("foo-v3", 1, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 2, [1, 1], (), {}),
    ("leftover distribution: 3 -> 2", new_deployment(2), new_deployment(3),
     ("foo-v3", 1, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 1, [1, 0], (), {}),
    ("proportional scaling (no new rs): 4 -> 5", new_deployment(5), new_deployment(4),
     None, [("foo-v2", 2, OLD), ("foo-v1", 2, OLDER)], None, [3, 2], (), {}),
    ("proportional scaling: 6 -> 0", new_deployment(0), new_deployment(6),
     ("foo-v3", 3, NEW), [("foo-v2", 2, OLD), ("foo-v1", 1, OLDER)], 0, [0, 0], (), {}),
    ("proportional scaling: 0 -> 6", new_deployment(6), new_deployment(6),
     ("foo-v3", 0, NEW), [("foo-v2", 0, OLD), ("foo-v1", 0, OLDER)], 6, [0, 0], ("foo-v2", "foo-v1"), {}),
    ("failed rs update", new_deployment(5), new_deployment(5),
     ("foo-v3", 2, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 2, [2, 1], ("foo-v3", "foo-v1"),
     {"foo-v2": 3}),
    ("deployment with surge pods", new_deployment(20, 2), new_deployment(10, 2),
     ("foo-v2", 6, NEW), [("foo-v1", 6, OLD)], 11, [11], (), {}),
    ("change both surge and size", new_deployment(50, 6), new_deployment(10, 3),
     ("foo-v2", 5, NEW), [("foo-v1", 8, OLD)], 22, [34], (), {}),
    ("change both size and template", new_deployment(14, template_labels={"foo": "bar", "another": "label"}),
     new_deployment(10), None, [("foo-v2", 7, NEW), ("foo-v1", 3, OLD)], None, [10, 4], (), {}),
    ("saturated but broken new replica set does not affect old pods", new_deployment(2, 1, 1),
     new_deployment(2, 1, 1), ("foo-v2", 2, NEW), [("foo-v1", 1, OLD)], 2, [1], (), {}),
]


@pytest.mark.parametrize("d,old_d,new_rs,old_rss,expected_new,expected_old,wasnt_updated,desired",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_scale(d, old_d, new_rs, old_rss, expected_new, expected_old, wasnt_updated, desired):
    new_rs = rs(*new_rs) if new_rs else None
    old_rss = [rs(*o) for o in old_rss]
    for r in ([new_rs] if new_rs else []) + old_rss:
        want = desired.get(r["metadata"]["name"], du.replicas(old_d))
        du.set_replicas_annotations(r, want, want + du.max_surge(old_d))
    sync = deployment._Sync(View({}, T0), d)
    sync._scale(new_rs, old_rss)
    sizes = {r["metadata"]["name"]: du.replicas(r) for r in ([new_rs] if new_rs else []) + old_rss}
    for c in sync.changes:
        if c.op == "update" and c.obj["metadata"]["name"] not in wasnt_updated:
            sizes[c.obj["metadata"]["name"]] = c.obj["spec"]["replicas"]
    if new_rs is not None and expected_new is not None:
        assert sizes[new_rs["metadata"]["name"]] == expected_new
    assert [sizes[o["metadata"]["name"]] for o in old_rss] == expected_old


def test_scaled_replicasets_carry_the_new_size_annotations():
    # scaleReplicaSet writes desired-replicas = spec.replicas and max-replicas = it + maxSurge
    d = new_deployment(10, 3)
    new_rs, old = rs("foo-v2", 2, NEW), rs("foo-v1", 3, OLD)
    for r in (new_rs, old):
        du.set_replicas_annotations(r, 5, 8)
    sync = deployment._Sync(View({}, T0), d)
    sync._scale(new_rs, [old])
    anns = {c.obj["metadata"]["name"]: c.obj["metadata"]["annotations"] for c in sync.changes if c.op == "update"}
    assert anns == {n: {adu.DESIRED_REPLICAS: "10", adu.MAX_REPLICAS: "13"} for n in ("foo-v1", "foo-v2")}
