"""DefaultStorageClass: a claim that names no class gets the cluster's default one.

Upstream: plugin/pkg/admission/storage/storageclass/setdefault/admission.go (plugin name
``DefaultStorageClass``): on a PersistentVolumeClaim create whose ``storageClassName`` is nil
(not ``""``, which asks for no class) and without the beta ``volume.beta.kubernetes.io/storage-class``
annotation, ``storageClassName`` is set to the default class (``kubesim.api.storage.util``:
the newest of several defaults). No default class: the claim is left as it is.
"""

from __future__ import annotations

from kubesim.api.storage.util import default_class
from kubesim.api.volumes import ANN_BETA_STORAGE_CLASS
from kubesim.apiserver.admission.interfaces import CREATE, Attributes, MutationPlugin


class DefaultStorageClass(MutationPlugin):
    name = "DefaultStorageClass"

    def admit(self, a: Attributes) -> None:
        if a.operation != CREATE or a.kind != "PersistentVolumeClaim":
            return
        spec = a.obj.get("spec") if isinstance(a.obj.get("spec"), dict) else {}
        ann = (a.obj.get("metadata") or {}).get("annotations") or {}
        if spec.get("storageClassName") is not None or ANN_BETA_STORAGE_CLASS in ann or a.lister is None:
            return
        dc = default_class(a.lister("StorageClass"))
        if dc is not None:
            a.obj.setdefault("spec", {})["storageClassName"] = dc["metadata"]["name"]
