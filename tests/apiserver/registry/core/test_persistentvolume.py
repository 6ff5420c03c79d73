"""The PersistentVolume strategy (pkg/registry/core/persistentvolume): a new volume, with its
scheme defaults and the StorageObjectInUseProtection finalizer."""

from tests.api.builders import created, pv


def test_pv_defaults_and_protection_finalizer():
    obj = created(pv({"capacity": {"storage": "1024Mi"}}))
    assert obj["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert obj["spec"]["volumeMode"] == "Filesystem"
    assert obj["spec"]["hostPath"] == {"path": "/data", "type": ""}
    assert obj["spec"]["capacity"] == {"storage": "1Gi"}
    assert obj["status"] == {"phase": "Pending", "lastPhaseTransitionTime": "2026-11-22T10:00:00Z"}
    assert obj["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
