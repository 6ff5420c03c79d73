"""Generic ephemeral volumes end to end: the ephemeral volume controller creates the pod's claim
``<pod>-<volume>``, the scheduler and the provisioner bind it, and the garbage collector deletes
it once the pod is gone; a claim of that name the pod does not own, or one the API server
refuses, leaves the pod Pending with upstream's FailedBinding event."""

from __future__ import annotations

import json

import pytest

from kubesim.controlplane import components
from kubesim.testing.cli import Harness, snapshot

LOCAL_PATH = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-path}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Delete
"""

SCRATCH = """apiVersion: v1
kind: Pod
metadata: {name: scratch}
spec:
  containers:
  - name: app
    image: nginx
    volumeMounts: [{name: data, mountPath: /data}]
  volumes:
  - name: data
    ephemeral:
      volumeClaimTemplate:
        metadata: {labels: {type: scratch}, annotations: {team: storage}}
        spec:
          accessModes: [ReadWriteOnce]
          storageClassName: local-path
          RESOURCES
"""

CLAIM = SCRATCH.replace("RESOURCES", "resources: {requests: {storage: 1Gi}}")
NO_SIZE = SCRATCH.replace("RESOURCES", "")

TAKEN = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: scratch-data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 1Gi}}
"""


def get(h, what):
    return json.loads(h.ok(f"get {what} -o json"))


def events_of(h, name):
    return [(e["type"], e["reason"], e["reportingComponent"], e["message"])
            for e in get(h, "events")["items"] if e["involvedObject"]["name"] == name]


def test_a_pod_with_an_ephemeral_volume_runs_with_its_own_bound_claim(kubesim):
    kubesim.ok("apply -f -", LOCAL_PATH)
    kubesim.ok("apply -f -", CLAIM)
    kubesim.ok("advance 10s")
    pod = get(kubesim, "pod scratch")
    assert pod["status"]["phase"] == "Running"
    claim = get(kubesim, "pvc scratch-data")
    assert claim["status"]["phase"] == "Bound"
    md = claim["metadata"]
    assert md["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "scratch",
                                      "uid": pod["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    assert md["labels"] == {"type": "scratch"} and md["annotations"]["team"] == "storage"
    assert md["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert claim["spec"]["volumeMode"] == "Filesystem"


@pytest.mark.parametrize("delete", [
    pytest.param("delete pod scratch", id="a graceful delete removes the pod, then its claim and volume"),
    pytest.param("delete pod scratch --now", id="a delete with --now removes the pod, then its claim and volume"),
])
def test_the_claim_goes_with_its_pod(kubesim, delete):
    kubesim.ok("apply -f -", LOCAL_PATH.replace("metadata: {name: local-path}", "metadata: {name: local-path, "
                                                "annotations: {storageclass.kubernetes.io/is-default-class: 'true'}}"))
    kubesim.ok("apply -f -", CLAIM.replace("storageClassName: local-path", ""))
    kubesim.ok("advance 10s")
    assert get(kubesim, "pvc scratch-data")["spec"]["storageClassName"] == "local-path"  # DefaultStorageClass
    assert len(get(kubesim, "pv")["items"]) == 1
    kubesim.ok(delete)
    kubesim.ok("advance 31s")
    assert get(kubesim, "pods")["items"] == []
    assert get(kubesim, "pvc")["items"] == []
    assert get(kubesim, "pv")["items"] == []


def test_a_claim_of_that_name_the_pod_does_not_own_keeps_it_pending(kubesim):
    kubesim.ok("apply -f -", LOCAL_PATH)
    kubesim.ok("apply -f -", TAKEN)
    kubesim.ok("apply -f -", CLAIM)
    kubesim.ok("advance 10s")
    assert get(kubesim, "pod scratch")["status"]["phase"] == "Pending"
    assert "ownerReferences" not in get(kubesim, "pvc scratch-data")["metadata"]
    msg = ("ephemeral volume data: PVC default/scratch-data was not created for pod default/scratch "
           "(pod is not owner)")
    assert [e for e in events_of(kubesim, "scratch") if e[1] == "FailedBinding"] == [
        ("Warning", "FailedBinding", "ephemeral_volume", msg)]


def test_a_claim_the_api_server_refuses_is_reported_on_the_pod(kubesim):
    kubesim.ok("apply -f -", NO_SIZE)
    kubesim.ok("advance 10s")
    assert get(kubesim, "pod scratch")["status"]["phase"] == "Pending"
    assert get(kubesim, "pvc")["items"] == []
    msg = ('ephemeral volume data: create PVC scratch-data: PersistentVolumeClaim "scratch-data" is invalid: '
           'spec.resources[storage]: Required value')
    assert [e for e in events_of(kubesim, "scratch") if e[1] == "FailedBinding"] == [
        ("Warning", "FailedBinding", "ephemeral_volume", msg)]


def test_a_recreated_pod_of_the_same_name_gets_a_new_claim(kubesim):
    kubesim.ok("apply -f -", LOCAL_PATH)
    kubesim.ok("apply -f -", CLAIM)
    kubesim.ok("advance 10s")
    kubesim.ok("delete pod scratch --now")
    kubesim.ok("apply -f -", CLAIM)
    kubesim.ok("advance 10s")
    pod, claim = get(kubesim, "pod scratch"), get(kubesim, "pvc scratch-data")
    assert pod["status"]["phase"] == "Running" and claim["status"]["phase"] == "Bound"
    assert claim["metadata"]["ownerReferences"][0]["uid"] == pod["metadata"]["uid"]


def ephemeral_pod_comes_and_goes(h):
    h.ok("apply -f -", LOCAL_PATH)
    h.ok("apply -f -", CLAIM)
    h.ok("advance 10s")
    h.ok("apply -f -", NO_SIZE.replace("name: scratch}", "name: unsized}"))
    h.ok("advance 10s")
    h.ok("delete pod scratch --wait=false")
    h.ok("advance 40s")
    h.ok("apply -f -", CLAIM)
    h.ok("advance 10s")


def test_gated_ephemeral_volume_controller_leaves_the_same_state_as_running_it_every_round(tmp_path, monkeypatch):
    import shutil

    h = Harness(tmp_path / "state")
    ephemeral_pod_comes_and_goes(h)
    gated = _rows(h)
    assert any(r[0] == "PersistentVolumeClaim" for r in gated if isinstance(r, tuple))
    shutil.rmtree(h.state_dir)
    monkeypatch.setattr(components, "_controller_due", lambda *a: True)
    monkeypatch.setattr(components, "_ephemeral_due", lambda *a: True)
    ephemeral_pod_comes_and_goes(h)
    assert gated == _rows(h)


def _rows(h):
    return [r for r in snapshot(h.state_dir)
            if r[1] not in ("settle.staticPods", components.SETTLED_RV_META, components.NODE_LIFECYCLE_QUIET_META)]


def test_pods_without_ephemeral_volumes_do_not_run_the_controller(kubesim, monkeypatch):
    from kubesim.controllers import ephemeral

    kubesim.ok("apply -f -", LOCAL_PATH)
    kubesim.ok("apply -f -", CLAIM)
    kubesim.ok("advance 10s")
    ran = []
    real = ephemeral.sync
    monkeypatch.setattr(ephemeral, "sync", lambda view: ran.append(1) or real(view))
    kubesim.ok("run plain --image=nginx")
    kubesim.ok("advance 10s")
    assert ran == []
    kubesim.ok("apply -f -", CLAIM.replace("name: scratch}", "name: second}"))
    assert ran
