"""The kubelet's wait for claims (kubesim/kubelet/volumes.py): the FailedMount message as v1.35's
volume manager builds it (desired_state_of_world_populator.go getPVCExtractPV,
volume_manager.go WaitForAttachAndMount / getExpectedVolumes, kubelet.go SyncPod)."""

import pytest

from kubesim.kubelet.volumes import unready_volumes_message

PREFIX = "Unable to attach or mount volumes: "


def pvc(name, phase="Bound", volume="pv-1", deleting=False, finalizers=("kubernetes.io/pvc-protection",)):
    md = {"name": name, "namespace": "default", "finalizers": list(finalizers)}
    if deleting:
        md["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    spec = {"volumeName": volume} if volume else {}
    return {"kind": "PersistentVolumeClaim", "metadata": md, "spec": spec, "status": {"phase": phase}}


def pod(volumes, mounted=None):
    vols = [{"name": v, "persistentVolumeClaim": {"claimName": c}} for v, c in volumes]
    mounted = [v for v, _ in volumes] if mounted is None else mounted
    return {"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                                     "volumeMounts": [{"name": v, "mountPath": f"/{v}"} for v in mounted]}],
                     "volumes": vols}}


def getter(*claims):
    store = {c["metadata"]["name"]: c for c in claims}
    return lambda kind, ns, name: store.get(name)


@pytest.mark.parametrize("volumes, mounted, claims, want", [
    pytest.param([("data", "data")], None, [pvc("data")], None, id="a bound claim lets the pod start"),
    pytest.param([("data", "data")], None, [pvc("data", phase="Pending", volume="")],
                 "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: "
                 "error processing PVC default/data: PVC is not bound",
                 id="a pending claim is not bound"),
    pytest.param([("data", "data")], None, [pvc("data", volume="")],
                 "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: "
                 "error processing PVC default/data: PVC has empty pvc.Spec.VolumeName",
                 id="a bound claim without a volume name"),
    pytest.param([("data", "gone")], None, [],
                 "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: "
                 'error processing PVC default/gone: failed to fetch PVC from API server: '
                 'persistentvolumeclaims "gone" not found',
                 id="a missing claim cannot be fetched"),
    pytest.param([("data", "data")], None, [pvc("data", deleting=True)], None,
                 id="a claim being deleted but kept by pvc-protection does not block the pod"),
    pytest.param([("data", "data")], None, [pvc("data", deleting=True, finalizers=())],
                 "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: "
                 "error processing PVC default/data: PVC is being deleted",
                 id="a claim being deleted without its finalizer blocks the pod"),
    pytest.param([("zz", "a"), ("aa", "b")], None, [pvc("b", phase="Pending", volume="")],
                 "unmounted volumes=[aa zz], unattached volumes=[], failed to process volumes=[aa zz]: "
                 'error processing PVC default/a: failed to fetch PVC from API server: persistentvolumeclaims '
                 '"a" not found; error processing PVC default/b: PVC is not bound',
                 id="several failures are listed sorted, volumes and errors alike"),
    pytest.param([("data", "data")], [], [pvc("data", phase="Pending", volume="")], None,
                 id="a claim no container mounts is not waited for"),
])
def test_the_failed_mount_message(volumes, mounted, claims, want):
    got = unready_volumes_message(pod(volumes, mounted), getter(*claims))
    assert got == (PREFIX + want if want is not None else None)
