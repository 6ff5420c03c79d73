"""DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a claim without a
class gets the default one; the claim as created carries the pvc-protection finalizer too."""

import pytest

from tests.api.builders import created, pvc


def _sc(name, created_at, default=True, beta=False):
    key = "storageclass.beta.kubernetes.io/is-default-class" if beta else "storageclass.kubernetes.io/is-default-class"
    return {"kind": "StorageClass", "metadata": {"name": name, "creationTimestamp": created_at,
                                                  "annotations": {key: "true" if default else "false"}}}


@pytest.mark.parametrize("claim, classes, expected", [
    (pvc(), [_sc("standard", "2026-01-01T00:00:00Z")], "standard"),
    (pvc(), [_sc("old", "2026-01-01T00:00:00Z"), _sc("new", "2026-02-01T00:00:00Z")], "new"),
    (pvc(), [_sc("b", "2026-01-01T00:00:00Z"), _sc("a", "2026-01-01T00:00:00Z")], "a"),
    (pvc(), [_sc("beta", "2026-01-01T00:00:00Z", beta=True)], "beta"),
    (pvc(), [_sc("standard", "2026-01-01T00:00:00Z", default=False)], None),
    (pvc(), [], None),
    (pvc({"storageClassName": ""}), [_sc("standard", "2026-01-01T00:00:00Z")], ""),
    (pvc({"storageClassName": "fast"}), [_sc("standard", "2026-01-01T00:00:00Z")], "fast"),
], ids=["a claim without a class gets the default one",
        "of several defaults the newest wins",
        "of defaults created together the first name wins",
        "the beta annotation marks a default too",
        "a class annotated false is no default",
        "without a default class the claim keeps none",
        "an empty class name asks for no class and is kept",
        "a named class is kept"])
def test_default_storage_class_admission(claim, classes, expected):
    obj = created(claim, lister=lambda kind: classes if kind == "StorageClass" else [])
    assert obj["spec"].get("storageClassName") == expected
    assert obj["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert obj["status"] == {"phase": "Pending"} and obj["spec"]["volumeMode"] == "Filesystem"
