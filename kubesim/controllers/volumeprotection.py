"""The PVC and PV protection controllers: a claim or volume being deleted stays (Terminating)
while it is in use, and goes once its protection finalizer is removed.

Upstream: pkg/controller/volume/pvcprotection/pvc_protection_controller.go (processPVC,
isBeingUsed, podUsesPVC: only scheduled pods count, a generic ephemeral volume only while its
pod is not shut down (podIsShutDown: deleted with a zero grace period) and controls the claim) and pkg/controller/volume/pvprotection/pv_protection_controller.go
(processPV, isBeingUsed: a volume is in use while its phase is Bound). The finalizers
themselves (``kubernetes.io/pvc-protection``, ``kubernetes.io/pv-protection``) are added on
create by the API server's StorageObjectInUseProtection admission.

An object whose last finalizer is removed is deleted (the API server's generic registry
deletes it on that update): the controller asks for the update, then the delete.
"""

from __future__ import annotations

from kubesim.api import volumes as V
from kubesim.api.meta.helpers import meta
from kubesim.controllers.base import Change, View, remove_finalizer


def _pod_shut_down(pod: dict) -> bool:
    """podIsShutDown: the kubelet is done with the pod, or it was force-deleted (a deletion
    with a zero grace period)."""
    md = meta(pod)
    return bool(md.get("deletionTimestamp")) and md.get("deletionGracePeriodSeconds") == 0


def pod_uses_claim(pod: dict, claim: dict) -> bool:
    """podUsesPVC: a scheduled pod with the claim as a persistentVolumeClaim volume, or as its
    generic ephemeral volume (a claim the pod controls) while the pod is not shut down."""
    if not (pod.get("spec") or {}).get("nodeName"):
        return False
    claim_name = meta(claim).get("name", "")
    for _, name, ephemeral in V.pod_claims(pod):
        if name != claim_name:
            continue
        if not ephemeral or (not _pod_shut_down(pod) and V.volume_is_for_pod(pod, claim) is None):
            return True
    return False


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    pods_by_ns: dict[str, list[dict]] | None = None
    for claim in view.list("PersistentVolumeClaim"):
        md = meta(claim)
        if not md.get("deletionTimestamp") or V.PVC_PROTECTION_FINALIZER not in (md.get("finalizers") or ()):
            continue
        if pods_by_ns is None:
            pods_by_ns = {}
            for p in view.list("Pod"):
                pods_by_ns.setdefault(meta(p).get("namespace", ""), []).append(p)
        if any(pod_uses_claim(p, claim) for p in pods_by_ns.get(md.get("namespace", ""), ())):
            continue
        changes.extend(remove_finalizer(claim, V.PVC_PROTECTION_FINALIZER))
    for pv in view.list("PersistentVolume"):
        md = meta(pv)
        if not md.get("deletionTimestamp") or V.PV_PROTECTION_FINALIZER not in (md.get("finalizers") or ()):
            continue
        if ((pv.get("status") or {}).get("phase")) == "Bound":
            continue
        changes.extend(remove_finalizer(pv, V.PV_PROTECTION_FINALIZER))
    return changes
