"""The pod status the kubelet writes: each container's status from what it knows of the
container, then the pod's phase, conditions, IPs and QoS class.

Upstream: pkg/kubelet/kubelet_pods.go (convertToAPIContainerStatuses: a container not yet
created waits as ``ContainerCreating``, or ``PodInitializing`` in a pod with init containers;
``CrashLoopBackOff`` with ``back-off 10s restarting failed container=c pod=p_ns(uid)``;
``ErrImagePull`` then ``ImagePullBackOff``; ``lastState`` the previous instance's termination;
the status of a container blocked in its postStart hook is still the one from before; regular
containers' statuses sorted by name; volumeMounts, user, allocatedResources and resources of
the running container. generateAPIPodStatus: a pod that reached Succeeded or Failed stays
there; conditions not owned by the kubelet are kept; PodReadyToStartContainers False once the
pod's sandbox is stopped, GeneratePodReadyToStartContainersCondition with PodSandboxChanged) and pkg/kubelet/prober/prober_manager.go
(UpdatePodStatus: a regular init container is ready once it completed). The phase and the
conditions themselves are status.py.

:class:`PodStatuses` is a part of pod_workers.PodWorker.
"""

from __future__ import annotations

from kubesim.api.pods import qos_class
from kubesim.clock import format_duration
from kubesim.kubelet import status
from kubesim.kubelet.format import EPS, format_time, pod_ref
from kubesim.kubelet.pods import image_ref

RESOURCE_NAMES = ("cpu", "memory", "ephemeral-storage")  # what a container status reports of its resources


def volume_mount_statuses(container: dict) -> list[dict]:
    """A container status's volumeMounts (convertToAPIContainerStatuses): name and path, and
    for a read-only mount readOnly with recursiveReadOnly Disabled."""
    out = []
    for vm in container.get("volumeMounts") or ():
        m = {"mountPath": vm.get("mountPath"), "name": vm.get("name")}
        if vm.get("readOnly"):
            m["readOnly"] = True
            m["recursiveReadOnly"] = "Disabled"
        out.append(m)
    return out


def resources_status(container: dict) -> tuple[dict | None, dict | None]:
    """(allocatedResources, resources) of a running container's status: its requests, and its
    requests and limits of cpu, memory and ephemeral storage (None, None without any)."""
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    if not requests and not limits:
        return None, None
    out = {}
    if limits:
        out["limits"] = {k: v for k, v in limits.items() if k in RESOURCE_NAMES}
    if requests:
        out["requests"] = {k: v for k, v in requests.items() if k in RESOURCE_NAMES}
    return (dict(requests) if requests else None), out


def terminated_state(finished: dict | None) -> dict:
    """ContainerStateTerminated of a finished instance in a memory record."""
    if not finished:
        return {}
    out = {"containerID": finished["containerID"], "exitCode": finished["exitCode"],
           "finishedAt": format_time(finished["finishedAt"]), "reason": finished["reason"],
           "startedAt": format_time(finished["startedAt"])}
    if finished.get("message"):
        out["message"] = finished["message"]
    return out


class PodStatuses:
    """The status of a pod and its containers (a part of pod_workers.PodWorker)."""

    def container_status(self, name: str, t: float) -> dict:
        spec = self.container_specs[name]
        record = self.record_of(name)
        state = record.get("st") or "pending"
        image = spec.get("image") or ""
        out: dict = {"name": name}
        created = record.get("n", 0) > 0
        if created:
            out["image"], out["imageID"] = image_ref(image)
            out["containerID"] = self.container_id(name, record["n"])
        else:
            out["image"], out["imageID"] = image, ""
        restarts = max(record.get("n", 0) - 1, 0)
        out["restartCount"] = restarts
        out["started"] = bool(state == "running" and record.get("started"))
        out["ready"] = bool(state == "running" and record.get("ready"))
        last = record.get("last")
        finished = record.get("fin")
        default_wait = "PodInitializing" if self.init_containers else "ContainerCreating"
        if state == "running":
            out["state"] = {"running": {"startedAt": format_time(record["start"])}}
            out["lastState"] = {"terminated": terminated_state(last)} if last else {}
        elif state == "hook":
            # the pod worker is blocked in startContainer: the status is the one from before
            out["state"] = {"waiting": {"reason": default_wait}}
            out["lastState"] = {"terminated": terminated_state(last)} if last else {}
            out["started"] = out["ready"] = False
            if record.get("n", 0) <= 1:
                out.pop("containerID", None)
                out["image"], out["imageID"] = image, ""
                out["restartCount"] = 0
            else:
                out["containerID"] = self.container_id(name, record["n"] - 1)
                out["restartCount"] = restarts - 1
        elif state in ("backoff", "exited") and (record.get("rce") or [0])[0] > t + EPS:
            # the sync that failed to start it: the reason cache's RunContainerError
            out["state"] = {"waiting": {"message": record["rce"][1], "reason": "RunContainerError"}}
            out["lastState"] = {"terminated": terminated_state(finished)} if finished else {}
        elif state == "backoff":
            message = f"back-off {format_duration(record['bo'])} restarting failed container={name} pod={pod_ref(self.pod)}"
            out["state"] = {"waiting": {"message": message, "reason": "CrashLoopBackOff"}}
            out["lastState"] = {"terminated": terminated_state(finished)} if finished else {}
        elif state == "pullerr":
            if record.get("ipbo"):
                message = f'Back-off pulling image "{image}": ErrImagePull: ' + record["pullmsg"].split("desc = ", 1)[-1]
                out["state"] = {"waiting": {"message": message, "reason": "ImagePullBackOff"}}
            else:
                out["state"] = {"waiting": {"message": record["pullmsg"], "reason": "ErrImagePull"}}
            out["lastState"] = ({"terminated": terminated_state(finished)} if finished else
                                ({"terminated": terminated_state(last)} if last else {}))
        elif state == "configerr":
            out["state"] = {"waiting": {"message": record["cfgmsg"], "reason": record.get("cfgreason") or "CreateContainerConfigError"}}
            out["lastState"] = ({"terminated": terminated_state(finished)} if finished else
                                ({"terminated": terminated_state(last)} if last else {}))
        elif state == "exited" and finished:
            out["state"] = {"terminated": terminated_state(finished)}
            out["lastState"] = {"terminated": terminated_state(last)} if last else {}
        elif state == "pulling" and (finished or last):
            out["state"] = {"waiting": {"reason": default_wait}}
            out["lastState"] = {"terminated": terminated_state(finished or last)}
        else:
            out["state"] = {"waiting": {"reason": default_wait}}
            out["lastState"] = {"terminated": terminated_state(finished)} if finished else {}
        if self.container_type[name] == "init":
            # a regular init container is ready once it completed (prober_manager.UpdatePodStatus)
            out["ready"] = bool(state == "exited" and finished and finished["exitCode"] == 0)
        if self.container_type[name] == "sidecar":
            out["ready"] = bool(state == "running" and record.get("ready"))
        allocated, resources = resources_status(spec)
        if allocated is not None and state == "running":
            out["allocatedResources"] = allocated
            out["resources"] = resources
        if created and "containerID" in out:
            pod_security = self.spec.get("securityContext") or {}
            security = {**pod_security, **(spec.get("securityContext") or {})}
            uid = int(security.get("runAsUser") or 0)
            gid = int(security.get("runAsGroup") or 0)
            groups = sorted({gid, *[int(g) for g in pod_security.get("supplementalGroups") or ()]})
            out["user"] = {"linux": {"gid": gid, "supplementalGroups": groups, "uid": uid}}
        mounts = volume_mount_statuses(spec)
        if mounts:
            out["volumeMounts"] = mounts
        return out

    def generate_pod_status(self, t: float):
        """generateAPIPodStatus at ``t``: rewrites ``pod["status"]``."""
        pod, memory = self.pod, self.memory
        old = pod.setdefault("status", {})
        init_statuses = [self.container_status(c["name"], t) for c in self.init_containers]
        statuses = sorted((self.container_status(c["name"], t) for c in self.containers), key=lambda s: s["name"])
        terminal = bool(memory.get("removed")) or bool(memory.get("term") and all(
            self.record_of(n).get("st") not in ("running", "hook") for n in self.container_specs))
        phase = status.get_phase(pod, init_statuses + statuses, terminal, self.is_mirror)
        old_phase = old.get("phase")
        if old_phase in ("Succeeded", "Failed") and phase != old_phase:
            phase = old_phase
        # the sandbox is stopped once the pod is done (SyncTerminatingPod's KillPod): a pod that
        # reached Succeeded or Failed, or a deleted one whose containers all stopped
        done = terminal or (phase in ("Succeeded", "Failed") and all(
            self.record_of(n).get("st") not in ("running", "hook", "pulling") for n in self.container_specs))
        conditions = status.generate_conditions(pod, init_statuses, statuses, phase, sandbox_ready=not done)
        generation = (pod.get("metadata") or {}).get("generation")
        conditions = status.stamp_conditions(conditions, old.get("conditions") or [], format_time(t), generation)

        new = {}
        new["conditions"] = conditions
        new["containerStatuses"] = statuses
        host_ip = memory.get("hostIP") or ""
        new["hostIP"] = host_ip
        new["hostIPs"] = [{"ip": host_ip}] if host_ip else []
        if init_statuses:
            new["initContainerStatuses"] = init_statuses
        if old.get("nominatedNodeName"):
            new["nominatedNodeName"] = old["nominatedNodeName"]
        if generation is not None:
            new["observedGeneration"] = generation
        new["phase"] = phase
        if phase == old_phase:
            for key in ("reason", "message"):
                if old.get(key):
                    new[key] = old[key]
        pod_ip = memory.get("ip") or ""
        new["podIP"] = pod_ip
        new["podIPs"] = [{"ip": pod_ip}] if pod_ip else []
        new["qosClass"] = old.get("qosClass") or qos_class(pod)
        new["startTime"] = format_time(memory["epoch"])
        if not new["podIP"]:
            new.pop("podIP")
            new.pop("podIPs")
        pod["status"] = new


def env_config_error(pod: dict, container: dict, get) -> str | None:
    """makeEnvironmentVariables' refusal for ``container``, None when its environment can be
    built: a ConfigMap or Secret that ``envFrom`` or a ``valueFrom`` key reference names is
    missing (the kubelet's watch-based managers: ``configmap "x" not found``, ``secret "x" not
    found``), unless optional; a referenced key is missing (``couldn't find key k in ConfigMap
    ns/x``), unless optional. envFrom is read first, then env, in order. ``get(kind, namespace,
    name)`` reads the object as the kubelet sees it."""
    ns = (pod.get("metadata") or {}).get("namespace") or "default"
    for ef in container.get("envFrom") or ():
        for field, kind, word in (("configMapRef", "ConfigMap", "configmap"), ("secretRef", "Secret", "secret")):
            ref = (ef or {}).get(field)
            if isinstance(ref, dict) and get(kind, ns, ref.get("name", "")) is None and not ref.get("optional"):
                return f'{word} "{ref.get("name", "")}" not found'
    for ev in container.get("env") or ():
        vf = (ev or {}).get("valueFrom") or {}
        for field, kind, word in (("configMapKeyRef", "ConfigMap", "configmap"), ("secretKeyRef", "Secret", "secret")):
            ref = vf.get(field)
            if not isinstance(ref, dict):
                continue
            name, key, optional = ref.get("name", ""), ref.get("key", ""), bool(ref.get("optional"))
            obj = get(kind, ns, name)
            if obj is None:
                if optional:
                    continue
                return f'{word} "{name}" not found'
            if key not in (obj.get("data") or {}):
                if optional:
                    continue
                return f"couldn't find key {key} in {kind} {ns}/{name}"
    return None


def with_resolved_env(pod: dict, container: dict, get) -> dict:
    """``container`` with the environment makeEnvironmentVariables builds as literal values: each
    ``envFrom`` ConfigMap's and Secret's data keys (with their prefix) first, then ``env`` in
    order, a ``configMapKeyRef``/``secretKeyRef`` (decoded) or a pod ``fieldRef`` read now;
    what is missing (optional) is left out. The container itself is returned when it reads
    nothing."""
    import base64
    import binascii

    env, env_from = container.get("env") or [], container.get("envFrom") or []
    files = mounted_files(pod, container, get)
    if not env_from and not any(isinstance(e, dict) and e.get("valueFrom") for e in env):
        if not files:
            return container
        from kubesim.kubelet.behaviour import MOUNTED_FILES_KEY

        return {**container, MOUNTED_FILES_KEY: files}
    ns = (pod.get("metadata") or {}).get("namespace") or "default"

    def data_of(kind: str, name: str) -> dict:
        obj = get(kind, ns, name) or {}
        data = dict(obj.get("data") or {})
        if kind == "Secret":
            for k, v in data.items():
                try:
                    data[k] = base64.b64decode(v or "", validate=True).decode("utf-8", "replace")
                except (binascii.Error, ValueError):
                    data[k] = ""
        return data

    out: list[dict] = []
    for ef in env_from:
        for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
            ref = (ef or {}).get(field)
            if isinstance(ref, dict):
                prefix = (ef or {}).get("prefix") or ""
                out.extend({"name": prefix + k, "value": v} for k, v in sorted(data_of(kind, ref.get("name", "")).items()))
    for e in env:
        if not isinstance(e, dict):
            continue
        vf = e.get("valueFrom")
        if not isinstance(vf, dict):
            out.append(e)
            continue
        value = None
        for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
            ref = vf.get(field)
            if isinstance(ref, dict):
                value = data_of(kind, ref.get("name", "")).get(ref.get("key", ""))
        ref = vf.get("fieldRef")
        if isinstance(ref, dict):
            from kubesim.kubelet.envvars import field_value

            value = field_value(pod, ref.get("fieldPath") or "")
        if value is not None:
            out.append({"name": e.get("name", ""), "value": value})
    resolved = dict(container)
    resolved["env"] = out
    resolved.pop("envFrom", None)
    if files:
        from kubesim.kubelet.behaviour import MOUNTED_FILES_KEY

        resolved[MOUNTED_FILES_KEY] = files
    return resolved


def _volume_payload(pod: dict, vol: dict, get) -> dict[str, str]:
    """What a configMap, secret or projected volume holds: relative path -> text (the volume
    plugins' MakePayload: every key, or the listed items at their paths; secrets decoded)."""
    import base64
    import binascii

    ns = (pod.get("metadata") or {}).get("namespace") or "default"

    def payload(kind: str, name: str, items) -> dict[str, str]:
        obj = get(kind, ns, name) or {}
        data = dict(obj.get("data") or {})  # (a ConfigMap's binaryData is not modelled as files)
        if kind == "Secret":
            out = {}
            for k, v in data.items():
                try:
                    out[k] = base64.b64decode(v or "", validate=True).decode("utf-8", "replace")
                except (binascii.Error, ValueError):
                    out[k] = ""
            data = out
        if items:
            return {(i or {}).get("path", ""): data[(i or {}).get("key", "")] for i in items
                    if (i or {}).get("key", "") in data}
        return dict(data)

    if isinstance(vol.get("configMap"), dict):
        return payload("ConfigMap", vol["configMap"].get("name", ""), vol["configMap"].get("items"))
    if isinstance(vol.get("secret"), dict):
        return payload("Secret", vol["secret"].get("secretName", ""), vol["secret"].get("items"))
    out: dict[str, str] = {}
    if isinstance(vol.get("projected"), dict):
        for s in vol["projected"].get("sources") or ():
            for field, kind in (("configMap", "ConfigMap"), ("secret", "Secret")):
                if isinstance((s or {}).get(field), dict):
                    out.update(payload(kind, s[field].get("name", ""), s[field].get("items")))
    return out


def mounted_files(pod: dict, container: dict, get) -> dict[str, str]:
    """The files ``container`` sees in its configMap, secret and projected volumes: absolute
    path -> text (a ``subPath`` mount is the one file). Only mounts whose path the container's
    command or args name are read (its programs can open no other: kubesim's shell reads
    literal paths), which spares every other pod the work."""
    mounts = container.get("volumeMounts") or ()
    command, args = container.get("command"), container.get("args")
    if not mounts or not command and not args:  # (no path named: the image's own program reads none)
        return {}
    argv = " ".join(str(a) for a in (command or []) + (args or []))
    mounts = [m for m in mounts if isinstance(m, dict) and m.get("mountPath") and m["mountPath"] in argv]
    if not mounts:
        return {}
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or () if isinstance(v, dict)}
    files: dict[str, str] = {}
    for m in mounts:
        vol = volumes.get((m or {}).get("name"))
        if vol is None or not any(isinstance(vol.get(k), dict) for k in ("configMap", "secret", "projected")):
            continue
        payload = _volume_payload(pod, vol, get)
        base = (m.get("mountPath") or "").rstrip("/")
        if m.get("subPath"):
            if m["subPath"] in payload:
                files[base] = payload[m["subPath"]]
            continue
        for rel, text in payload.items():
            files[f"{base}/{rel}"] = text
    return files
