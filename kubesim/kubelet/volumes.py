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
    expected = None  # (worked out for the first claim that fails: most pods have none)
    failed: list[str] = []
    errors: set[str] = set()
    for vol, claim, _ in pod_claims(pod):
        err = _claim_error(get("PersistentVolumeClaim", ns, claim), claim)
        if err is None:
            continue
        errors.add(f"error processing PVC {ns}/{claim}: {err}")
        if expected is None:
            expected = expected_volumes(pod)
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


# -- configMap, secret and projected volumes (the configmap, secret and projected volume plugins) --
#
# Upstream: pkg/volume/configmap/configmap.go and pkg/volume/secret/secret.go (SetUpAt: the
# object from the kubelet's watch-based manager, whose NotFound names the resource in the
# singular, ``configmap "x" not found``; a missing optional one mounts empty; MakePayload: an
# item naming a key the object lacks, ``configmap references non-existent config key: k`` /
# ``references non-existent secret key: k``, unless optional), pkg/volume/projected/projected.go
# (collectData: the sources' errors aggregated), pkg/volume/util/operationexecutor (the
# FailedMount event ``MountVolume.SetUp failed for volume "v" : <error>`` on every failed
# attempt) and pkg/util/goroutinemap/exponentialbackoff (a failed mount is retried after 500ms,
# doubling up to 2m2s). A pod waits (ContainerCreating) while a volume some container mounts
# fails; it starts at the first attempt after the object appears.

MOUNT_RETRY_INITIAL = 0.5
MOUNT_RETRY_MAX = 122.0


def mount_attempt_offset(k: int) -> float:
    """When the ``k``-th mount attempt (0: the first) comes, after the first."""
    total, delay = 0.0, MOUNT_RETRY_INITIAL
    for _ in range(k):
        total += delay
        delay = min(delay * 2, MOUNT_RETRY_MAX)
    return total


def _payload_errors(kind: str, source: dict, obj: dict | None, name: str) -> list[str]:
    optional = bool(source.get("optional"))
    if obj is None:
        return [] if optional else [f'{kind} "{name}" not found']
    keys = set(obj.get("data") or {}) | set(obj.get("binaryData") or {})
    errs = []
    for item in source.get("items") or ():
        key = (item or {}).get("key", "")
        if key not in keys and not optional:
            errs.append(f"configmap references non-existent config key: {key}" if kind == "configmap"
                        else f"references non-existent secret key: {key}")
            break  # MakePayload returns at the first
    return errs


def setup_errors(pod: dict, get) -> list[tuple[str, str]]:
    """(volume name, FailedMount message) of each configMap, secret or projected volume whose
    SetUp fails now. ``get(kind, namespace, name)`` reads a stored object."""
    ns = (pod.get("metadata") or {}).get("namespace") or "default"
    out = []
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        errs: list[str] = []
        if isinstance(vol.get("configMap"), dict):
            src = vol["configMap"]
            errs = _payload_errors("configmap", src, get("ConfigMap", ns, src.get("name", "")), src.get("name", ""))
        elif isinstance(vol.get("secret"), dict):
            src = vol["secret"]
            name = src.get("secretName", "")
            errs = _payload_errors("secret", src, get("Secret", ns, name), name)
        elif isinstance(vol.get("projected"), dict):
            for s in vol["projected"].get("sources") or ():
                if isinstance((s or {}).get("configMap"), dict):
                    src = s["configMap"]
                    errs += _payload_errors("configmap", src, get("ConfigMap", ns, src.get("name", "")),
                                            src.get("name", ""))
                elif isinstance((s or {}).get("secret"), dict):
                    src = s["secret"]
                    errs += _payload_errors("secret", src, get("Secret", ns, src.get("name", "")), src.get("name", ""))
        if errs:
            err = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"  # utilerrors aggregate
            out.append((vol.get("name", ""), f'MountVolume.SetUp failed for volume "{vol.get("name", "")}" : {err}'))
    return out
