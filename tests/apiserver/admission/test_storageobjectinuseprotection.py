"""StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection)."""

import pytest

from kubesim.apiserver.admission import CREATE, UPDATE, Attributes
from kubesim.apiserver.admission.storageobjectinuseprotection import StorageObjectInUseProtection
from tests.api.builders import pv, pvc


@pytest.mark.parametrize("obj, finalizer", [(pvc(), "kubernetes.io/pvc-protection"),
                                            (pv(), "kubernetes.io/pv-protection")],
                         ids=["a new claim is protected", "a new volume is protected"])
def test_a_new_claim_or_volume_gets_its_protection_finalizer_once(obj, finalizer):
    obj["metadata"]["finalizers"] = ["example.com/keep"]
    StorageObjectInUseProtection().admit(Attributes(CREATE, obj))
    StorageObjectInUseProtection().admit(Attributes(CREATE, obj))
    assert obj["metadata"]["finalizers"] == ["example.com/keep", finalizer]


def test_updates_are_left_alone():
    obj = pvc()
    StorageObjectInUseProtection().admit(Attributes(UPDATE, obj, pvc()))
    assert "finalizers" not in obj["metadata"]
