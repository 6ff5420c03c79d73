"""The kubelet's volume manager, as far as kubesim needs it: a pod's containers start only once
every PersistentVolumeClaim it uses is bound.

Upstream: pkg/kubelet/volumemanager/volume_manager.go (WaitForAttachAndMount: the unmounted,
unattached and "failed to process" volume lists) and
pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go (createVolumeSpec /
getPVCExtractPV: the errors a claim that is missing, being deleted or not bound gives), and
pkg/kubelet/kubelet.go (SyncPod: event FailedMount "Unable to attach or mount volumes: ...").

The populator's error reaches WaitForAttachAndMount at once (the pod error is popped on the
first poll), so the event appears when the kubelet first syncs the pod, not after the 2m3s
timeout. Upstream repeats it on every sync; kubesim records it once per distinct message.
Only volumes a container mounts (volumeMounts or volumeDevices, init containers included) are
waited for (getExpectedVolumes); the populator's errors are listed sorted (PopPodErrors), and a
claim being deleted blocks the pod only once its pvc-protection finalizer is gone.
"""

from __future__ import annotations

from kubesim.api.volumes import pod_claims


def expected_volumes(pod: dict) -> set[str]:
    """getExpectedVolumes (util.GetPodVolumeNames): the volumes some container mounts or uses
    as a device, init and ephemeral containers included."""
    spec = pod.get("spec") or {}
    names: set[str] = set()
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            names.update(m.get("name", "") for m in c.get("volumeMounts") or ())
            names.update(d.get("name", "") for d in c.get("volumeDevices") or ())
    return names


def unready_volumes_message(pod: dict, get) -> str | None:
    """The FailedMount message for ``pod`` while one of the claims its containers use is not
    usable, else None. ``get(kind, namespace, name)`` reads a stored object."""
    md = pod.get("metadata") or {}
    ns = md.get("namespace") or "default"
    expected = expected_volumes(pod)
    failed: list[str] = []
    errors: set[str] = set()
    for vol, claim, _ in pod_claims(pod):
        err = _claim_error(get("PersistentVolumeClaim", ns, claim), claim)
        if err is None:
            continue
        errors.add(f"error processing PVC {ns}/{claim}: {err}")
        if vol.get("name", "") in expected:
            failed.append(vol.get("name", ""))
    if not failed:
        return None
    names = " ".join(sorted(failed))
    return (f"Unable to attach or mount volumes: unmounted volumes=[{names}], unattached volumes=[], "
            f"failed to process volumes=[{names}]: {'; '.join(sorted(errors))}")


def _claim_error(pvc: dict | None, claim: str) -> str | None:
    """getPVCExtractPV: why the claim cannot be used yet, or None."""
    if pvc is None:
        return f'failed to fetch PVC from API server: persistentvolumeclaims "{claim}" not found'
    md = pvc.get("metadata") or {}
    if md.get("deletionTimestamp") and "kubernetes.io/pvc-protection" not in (md.get("finalizers") or ()):
        return "PVC is being deleted"
    if (pvc.get("status") or {}).get("phase") != "Bound":
        return "PVC is not bound"
    if not (pvc.get("spec") or {}).get("volumeName"):
        return "PVC has empty pvc.Spec.VolumeName"
    return None


def waiting_status(pod: dict, node: dict, now_stamp: str) -> dict:
    """The status the kubelet reports while the pod waits for its volumes (generateAPIPodStatus
    before the sandbox exists): Pending, containers waiting (ContainerCreating, or
    PodInitializing with init containers), PodReadyToStartContainers False, the host IP.
    ``startTime`` is left to the sync that starts the containers, so their timeline begins
    then."""
    from kubesim.api.nodes import internal_ip
    from kubesim.api.pods import qos_class
    from kubesim.kubelet import status as S
    from kubesim.kubelet.kubelet_pods import volume_mount_statuses

    spec = pod.get("spec") or {}
    init = spec.get("initContainers") or []
    wait = "PodInitializing" if init else "ContainerCreating"

    def cs(c: dict) -> dict:
        s = {"image": c.get("image") or "", "imageID": "", "lastState": {}, "name": c["name"], "ready": False,
             "restartCount": 0, "started": False, "state": {"waiting": {"reason": wait}}}
        mounts = volume_mount_statuses(c)
        if mounts:
            s["volumeMounts"] = mounts
        return s

    init_statuses = [cs(c) for c in init]
    statuses = sorted((cs(c) for c in spec.get("containers") or []), key=lambda s: s["name"])
    old = pod.get("status") or {}
    conds = S.generate_conditions(pod, init_statuses, statuses, "Pending", sandbox_ready=False)
    gen = (pod.get("metadata") or {}).get("generation")
    new: dict = {"conditions": S.stamp_conditions(conds, old.get("conditions") or [], now_stamp, gen),
                 "containerStatuses": statuses}
    host_ip = internal_ip(node)
    new["hostIP"] = host_ip
    new["hostIPs"] = [{"ip": host_ip}] if host_ip else []
    if init_statuses:
        new["initContainerStatuses"] = init_statuses
    if gen is not None:
        new["observedGeneration"] = gen
    new["phase"] = "Pending"
    new["qosClass"] = old.get("qosClass") or qos_class(pod)
    return new
