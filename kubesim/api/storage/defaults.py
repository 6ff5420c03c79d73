"""storage.k8s.io/v1 scheme defaulting: StorageClass.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/storage/v1/defaults.go``
(``SetDefaults_StorageClass``: reclaimPolicy ``Delete``, volumeBindingMode ``Immediate``).
"""

from __future__ import annotations


def set_defaults_storage_class(sc: dict) -> None:
    """SetDefaults_StorageClass."""
    if not sc.get("reclaimPolicy"):
        sc["reclaimPolicy"] = "Delete"
    if not sc.get("volumeBindingMode"):
        sc["volumeBindingMode"] = "Immediate"
