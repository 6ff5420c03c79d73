"""The ephemeral volume controller (controllers/ephemeral.py), mirroring upstream's
pkg/controller/volume/ephemeral/controller_test.go TestSyncHandler table, plus the garbage
collector's part: a claim whose owning pod is gone is deleted."""

from __future__ import annotations

import pytest

from kubesim.controllers import ephemeral, garbagecollector
from kubesim.controllers.base import View

POD_NAME, NAMESPACE, POD_UID = "test-pod", "my-namespace", "uidpod1"
OTHER_NAMESPACE, VOLUME = "not-my-namespace", "ephemeral-volume"


def make_pod(*volumes, deleted=False, uid=POD_UID):
    md = {"name": POD_NAME, "namespace": NAMESPACE, "uid": uid}
    if deleted:
        md["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": {"containers": [], "volumes": list(volumes)}}


def ephemeral_volume(name=VOLUME, template=None):
    return {"name": name, "ephemeral": {"volumeClaimTemplate": template or {"spec": {}}}}


def owner_ref(uid=POD_UID):
    return {"apiVersion": "v1", "kind": "Pod", "name": POD_NAME, "uid": uid, "controller": True,
            "blockOwnerDeletion": True}


def make_pvc(name, namespace, owner=None):
    md = {"name": name, "namespace": namespace}
    if owner:
        md["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": {}}


POD_WITH_EPHEMERAL = make_pod(ephemeral_volume())
EPHEMERAL_CLAIM = make_pvc(f"{POD_NAME}-{VOLUME}", NAMESPACE, owner_ref())
CONFLICTING_CLAIM = make_pvc(f"{POD_NAME}-{VOLUME}", NAMESPACE)
OTHER_NAMESPACE_CLAIM = make_pvc(f"{POD_NAME}-{VOLUME}", OTHER_NAMESPACE)
NOT_OWNER = (f"ephemeral volume {VOLUME}: PVC {NAMESPACE}/{POD_NAME}-{VOLUME} was not created for pod "
             f"{NAMESPACE}/{POD_NAME} (pod is not owner)")


def sync(pods, pvcs):
    return ephemeral.sync(View({"Pod": pods, "PersistentVolumeClaim": pvcs}))


@pytest.mark.parametrize("pods, pvcs, created, events", [
    pytest.param([POD_WITH_EPHEMERAL], [], [EPHEMERAL_CLAIM], [], id="create: the missing claim is created, owned by the pod"),
    pytest.param([], [], [], [], id="no-such-pod: nothing to do"),
    pytest.param([make_pod(ephemeral_volume(), deleted=True)], [], [], [],
                 id="pod-deleted: a pod marked for deletion gets no claim"),
    pytest.param([make_pod()], [], [], [], id="no-volumes: a pod without ephemeral volumes is left alone"),
    pytest.param([POD_WITH_EPHEMERAL], [OTHER_NAMESPACE_CLAIM], [EPHEMERAL_CLAIM], [],
                 id="create-with-other-PVC: a claim of that name in another namespace does not count"),
    pytest.param([POD_WITH_EPHEMERAL], [CONFLICTING_CLAIM], [], [("Warning", "FailedBinding", NOT_OWNER)],
                 id="found-other-pvc: a claim the pod does not own is left alone and the pod gets an event"),
    pytest.param([POD_WITH_EPHEMERAL], [make_pvc(f"{POD_NAME}-{VOLUME}", NAMESPACE, owner_ref("uid-of-an-older-pod"))],
                 [], [("Warning", "FailedBinding", NOT_OWNER)],
                 id="found-other-pvc: a claim owned by an earlier pod of the same name is not the pod's"),
    pytest.param([POD_WITH_EPHEMERAL], [EPHEMERAL_CLAIM], [], [], id="found-pvc: the pod's own claim needs nothing"),
])
def test_sync_handler(pods, pvcs, created, events):
    changes = sync(pods, pvcs)
    assert [c.obj for c in changes if c.op == "create"] == created
    assert [(e.type, e.reason, e.message) for c in changes for e in c.events] == events
    assert all(e.component == "ephemeral_volume" and e.obj["metadata"]["name"] == POD_NAME
               for c in changes for e in c.events)
    assert {c.op for c in changes} <= {"create", "event"}


def test_the_claim_copies_the_template_labels_annotations_and_spec():
    template = {"metadata": {"labels": {"type": "scratch"}, "annotations": {"note": "x"}},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                         "resources": {"requests": {"storage": "1Gi"}}}}
    [change] = sync([make_pod(ephemeral_volume("data", template))], [])
    assert change.obj == {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": f"{POD_NAME}-data", "namespace": NAMESPACE, "ownerReferences": [owner_ref()],
                     "annotations": {"note": "x"}, "labels": {"type": "scratch"}},
        "spec": template["spec"]}
    assert change.obj["spec"] is not template["spec"]  # a copy: the view is never modified


def test_each_ephemeral_volume_gets_its_claim_and_other_volumes_none():
    pod = make_pod(ephemeral_volume("a"), {"name": "cfg", "configMap": {"name": "c"}}, ephemeral_volume("b"))
    assert [c.obj["metadata"]["name"] for c in sync([pod], [])] == [f"{POD_NAME}-a", f"{POD_NAME}-b"]


def test_a_volume_whose_claim_is_not_the_pods_stops_the_sync_of_the_later_ones():
    # syncHandler returns at the first volume that fails (and retries the whole pod later)
    pod = make_pod(ephemeral_volume(VOLUME), ephemeral_volume("later"))
    changes = sync([pod], [CONFLICTING_CLAIM])
    assert [c.op for c in changes] == ["event"]


def test_an_event_already_recorded_is_not_recorded_again():
    view = View({"Pod": [POD_WITH_EPHEMERAL], "PersistentVolumeClaim": [CONFLICTING_CLAIM]})
    view.recorded_events = {(NAMESPACE, POD_NAME, POD_UID, NOT_OWNER)}
    assert ephemeral.sync(view) == []


@pytest.mark.parametrize("pods, expected", [
    pytest.param([], ["delete"], id="the owning pod is gone: the claim is deleted"),
    pytest.param([make_pod(ephemeral_volume(), uid="a-new-pod")], ["delete"],
                 id="a new pod of the same name is not the owner: the claim is deleted"),
    pytest.param([POD_WITH_EPHEMERAL], [], id="the owning pod is there: the claim stays"),
    pytest.param([make_pod(ephemeral_volume(), deleted=True)], [],
                 id="the owning pod is still terminating: the claim stays"),
])
def test_the_garbage_collector_deletes_a_claim_whose_pod_is_gone(pods, expected):
    changes = garbagecollector.sync(View({"Pod": pods, "PersistentVolumeClaim": [EPHEMERAL_CLAIM]}))
    assert [(c.op, c.key) for c in changes] == [(op, ("PersistentVolumeClaim", NAMESPACE, f"{POD_NAME}-{VOLUME}"))
                                                 for op in expected]
