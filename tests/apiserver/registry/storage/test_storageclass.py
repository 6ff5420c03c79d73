"""The StorageClass strategy (pkg/registry/storage/storageclass), with the scheme's defaults."""

from tests.api.builders import created, sc


def test_storage_class_defaults():
    obj = created(sc())
    assert (obj["reclaimPolicy"], obj["volumeBindingMode"]) == ("Delete", "Immediate")
