"""The garbage collector: background, foreground and orphan propagation."""

from kubesim.controllers import garbagecollector
from kubesim.testing.controllers import Sim, deployment_obj


def _settled():
    s = Sim()
    s.add(deployment_obj("web", 2))
    s.settle()
    return s


def test_background_deletion_removes_replicasets_then_pods():
    s = _settled()
    s.delete("Deployment", "web")
    s.settle()
    assert s.list("ReplicaSet") == [] and s.list("Pod") == []


def test_foreground_deletion_waits_for_the_dependents():
    s = _settled()
    s.delete("Deployment", "web", propagation="Foreground")
    d = s.get("Deployment", "web")
    assert d["metadata"]["finalizers"] == ["foregroundDeletion"] and d["metadata"]["deletionTimestamp"]
    s.run(garbagecollector.sync)
    assert s.get("Deployment", "web") is not None  # its ReplicaSet still blocks it
    s.settle()
    assert s.get("Deployment", "web") is None and s.list("ReplicaSet") == [] and s.list("Pod") == []


def test_orphan_deletion_leaves_the_replicaset_and_pods_without_owner():
    s = _settled()
    s.delete("Deployment", "web", propagation="Orphan")
    s.settle()
    assert s.get("Deployment", "web") is None
    rs = s.list("ReplicaSet")
    assert len(rs) == 1 and "ownerReferences" not in rs[0]["metadata"]
    assert len(s.list("Pod")) == 2


def test_a_dependent_with_one_owner_left_only_loses_the_dangling_reference():
    s = _settled()
    pod = s.list("Pod")[0]
    pod["metadata"]["ownerReferences"].append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "gone",
                                               "uid": "no-such-uid"})
    s._put(pod)
    s.run(garbagecollector.sync)
    refs = s.get("Pod", pod["metadata"]["name"])["metadata"]["ownerReferences"]
    assert [r["name"] for r in refs] == [pod["metadata"]["ownerReferences"][0]["name"]]


def test_a_pod_being_deleted_gracefully_is_left_to_the_kubelet():
    # attemptToDeleteItem: an item with a deletionTimestamp and none of the collector's
    # finalizers needs nothing from it (a repeated delete would rewrite the pod every pass)
    s = _settled()
    pod = s.list("Pod")[0]
    pod["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:30Z"
    pod["metadata"]["deletionGracePeriodSeconds"] = 30
    assert garbagecollector.sync(s.view()) == []
