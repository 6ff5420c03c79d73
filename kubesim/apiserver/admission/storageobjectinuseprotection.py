"""StorageObjectInUseProtection: claims and volumes in use are not removed under their users.

Upstream: plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go: a new
PersistentVolumeClaim gets the ``kubernetes.io/pvc-protection`` finalizer and a new
PersistentVolume ``kubernetes.io/pv-protection``; the protection controllers
(``kubesim.controllers.volumeprotection``) remove them once nothing uses the object.
"""

from __future__ import annotations

from kubesim.api.volumes import PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER
from kubesim.apiserver.admission.interfaces import CREATE, Attributes, MutationPlugin

_FINALIZERS = {"PersistentVolumeClaim": PVC_PROTECTION_FINALIZER, "PersistentVolume": PV_PROTECTION_FINALIZER}


class StorageObjectInUseProtection(MutationPlugin):
    name = "StorageObjectInUseProtection"

    def admit(self, a: Attributes) -> None:
        finalizer = _FINALIZERS.get(a.kind)
        if a.operation != CREATE or finalizer is None:
            return
        md = a.obj.setdefault("metadata", {})
        fins = md.get("finalizers")
        if not isinstance(fins, list):
            fins = []
        if finalizer not in fins:
            fins.append(finalizer)
        md["finalizers"] = fins
