"""The ephemeral volume controller: a pod's generic ephemeral volume gets its claim.

Upstream: pkg/controller/volume/ephemeral/controller.go (syncHandler, handleVolume) and
staging/src/k8s.io/component-helpers/storage/ephemeral/ephemeral.go (VolumeClaimName: the
claim is ``<pod name>-<volume name>``; VolumeIsForPod: the claim must be in the pod's
namespace and controlled by the pod).

For every pod not being deleted, each ``spec.volumes[].ephemeral`` volume whose claim is
missing gets one, created through the API server (so the DefaultStorageClass and
StorageObjectInUseProtection admission apply) from ``volumeClaimTemplate``: its labels,
annotations and spec, owned by the pod (``v1``/``Pod``, controller and blockOwnerDeletion).
A claim of that name the pod does not control is left alone, and the pod gets a Warning
``FailedBinding`` event from ``ephemeral_volume`` (``ephemeral volume <vol>: PVC <ns>/<claim>
was not created for pod <ns>/<pod> (pod is not owner)``); the pod's remaining volumes wait, as
upstream's sync stops at the first error. Upstream retries with back-off and repeats the event;
kubesim records it once (``view.recorded_events``, when the engine provides it).

The claim goes with the pod: the garbage collector deletes a claim whose owning pod is gone.
"""

from __future__ import annotations

from kubesim.api import volumes as V
from kubesim.api.meta.helpers import meta
from kubesim.api.pods import has_ephemeral_volumes
from kubesim.controllers.base import Change, Event, View, deepcopy

COMPONENT = "ephemeral_volume"
FAILED_BINDING = "FailedBinding"  # events.FailedBinding


def claim_for(pod: dict, volume: dict) -> dict:
    """The claim handleVolume creates for ``volume`` of ``pod``."""
    template = (volume.get("ephemeral") or {}).get("volumeClaimTemplate") or {}
    tmeta = template.get("metadata") or {}
    pmd = meta(pod)
    md: dict = {"name": V.ephemeral_claim_name(pod, volume), "namespace": pmd.get("namespace", ""),
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pmd.get("name", ""),
                                     "uid": pmd.get("uid", ""), "controller": True, "blockOwnerDeletion": True}]}
    if tmeta.get("annotations"):
        md["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("labels"):
        md["labels"] = dict(tmeta["labels"])
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md,
            "spec": deepcopy(template.get("spec") or {})}


def failed_event(pod: dict, volume: dict, err: str) -> Event:
    """syncHandler's event for a volume whose handling failed."""
    return Event(pod, "Warning", FAILED_BINDING, f'ephemeral volume {volume.get("name", "")}: {err}', COMPONENT)


def sync_pod(view: View, pod: dict) -> list[Change]:
    """syncHandler for one pod."""
    if meta(pod).get("deletionTimestamp"):
        return []
    changes: list[Change] = []
    recorded = getattr(view, "recorded_events", None)
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if not isinstance(vol, dict) or vol.get("ephemeral") is None:
            continue
        name = V.ephemeral_claim_name(pod, vol)
        existing = view.get("PersistentVolumeClaim", meta(pod).get("namespace", ""), name)
        if existing is None:
            changes.append(Change("create", claim_for(pod, vol)))
            continue
        err = V.volume_is_for_pod(pod, existing)
        if err is not None:
            ev = failed_event(pod, vol, err)
            if recorded is None or (meta(pod).get("namespace", ""), meta(pod).get("name", ""),
                                    meta(pod).get("uid", ""), ev.message) not in recorded:
                changes.append(Change("event", pod, events=[ev]))
            break
    return changes


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for pod in view.list("Pod"):
        if has_ephemeral_volumes(pod):
            changes.extend(sync_pod(view, pod))
    return changes
