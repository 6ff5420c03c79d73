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
"""

from __future__ import annotations


def unready_volumes_message(pod: dict, get) -> str | None:
    """The FailedMount message for ``pod`` while one of its claims is not usable, else None.
    ``get(kind, namespace, name)`` reads a stored object."""
    md = pod.get("metadata") or {}
    ns = md.get("namespace") or "default"
    failed: list[str] = []
    errors: list[str] = []
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if vol.get("persistentVolumeClaim"):
            claim = vol["persistentVolumeClaim"].get("claimName", "")
        elif vol.get("ephemeral"):
            claim = f'{md.get("name", "")}-{vol.get("name", "")}'
        else:
            continue
        pvc = get("PersistentVolumeClaim", ns, claim)
        err = None
        if pvc is None:
            err = (f'error processing PVC {ns}/{claim}: failed to fetch PVC from API server: '
                   f'persistentvolumeclaims "{claim}" not found')
        elif (pvc.get("metadata") or {}).get("deletionTimestamp"):
            err = f"error processing PVC {ns}/{claim}: can't start pod because PVC {ns}/{claim} is being deleted"
        else:
            phase = (pvc.get("status") or {}).get("phase") or ""
            volume_name = (pvc.get("spec") or {}).get("volumeName") or ""
            if phase != "Bound" or not volume_name:
                err = (f'error processing PVC {ns}/{claim}: PVC {ns}/{claim} has non-bound phase ("{phase}") '
                       f'or empty pvc.Spec.VolumeName ("{volume_name}")')
        if err is not None:
            failed.append(vol.get("name", ""))
            errors.append(err)
    if not failed:
        return None
    names = " ".join(sorted(failed))
    return (f"Unable to attach or mount volumes: unmounted volumes=[{names}], unattached volumes=[], "
            f"failed to process volumes=[{names}]: {'; '.join(errors)}")


def waiting_status(pod: dict, node: dict, now_stamp: str) -> dict:
    """The status the kubelet reports while the pod waits for its volumes (generateAPIPodStatus
    before the sandbox exists): Pending, containers waiting (ContainerCreating, or
    PodInitializing with init containers), PodReadyToStartContainers False, the host IP.
    ``startTime`` is left to the sync that starts the containers, so their timeline begins
    then."""
    from kubesim.api.pods import qos_class
    from kubesim.kubelet import status as S
    from kubesim.kubelet.node import internal_ip

    spec = pod.get("spec") or {}
    init = spec.get("initContainers") or []
    wait = "PodInitializing" if init else "ContainerCreating"

    def cs(c: dict) -> dict:
        s = {"image": c.get("image") or "", "imageID": "", "lastState": {}, "name": c["name"], "ready": False,
             "restartCount": 0, "started": False, "state": {"waiting": {"reason": wait}}}
        mounts = []
        for vm in c.get("volumeMounts") or ():
            m = {"mountPath": vm.get("mountPath"), "name": vm.get("name")}
            if vm.get("readOnly"):
                m["readOnly"] = True
                m["recursiveReadOnly"] = "Disabled"
            mounts.append(m)
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
