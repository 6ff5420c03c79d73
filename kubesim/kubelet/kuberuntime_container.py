"""One container's life in the simulated runtime: pull its image, create and start it, run its
postStart hook, see it exit, kill it (preStop hook, SIGTERM, SIGKILL at the end of the grace
period).

Upstream: pkg/kubelet/kuberuntime/kuberuntime_container.go (startContainer: the ``Created`` and
``Started`` events of v1.34+ - ``Container created``, ``Container started`` - and a postStart
hook that blocks the pod worker until it returns, a failed one killing the container with
``FailedPostStartHook``; killContainer: ``Killing`` with its message, the preStop hook inside the
grace period, then at least ``minimumGracePeriodInSeconds`` (2 s) before SIGKILL, exit code
137), pkg/kubelet/lifecycle/handlers.go (HandlerRunner: exec, httpGet and sleep handlers),
pkg/kubelet/images/image_manager.go (EnsureImageExists: the pull policy, the ``Pulling``,
``Pulled`` and ``Failed`` events, ``ErrImagePull`` then ``ImagePullBackOff`` with a doubling
back-off; ``ErrImageNeverPull`` for an absent image under the Never policy, retried as the pod
worker requeues; the node's images and the serial puller are image_service.py) and containerd's
CRI image service (the NotFound message of a reference that does not resolve); a command the
image lacks fails StartContainer (imagefiles.py): ``Failed`` ``Error: <runc's message>``, the
container terminated StartError 128, RunContainerError until the next PLEG relist.

:class:`ContainerRuntime` is a part of pod_workers.PodWorker and works on its state: the
container specs, behaviours and memory records (memory.py), the event recorder and the config.
A container's ``st`` moves pending -> (pulling | pullerr) -> hook -> running -> exited, with
``kill`` set while a kill is under way.
"""

from __future__ import annotations

from kubesim.clock import format_duration
from kubesim.kubelet.behaviour import Behaviour
from kubesim.kubelet.image_service import image_size
from kubesim.kubelet.pods import image_ref
from kubesim.kubelet.probes import resolve_container_port
from kubesim.kubelet.shell import FOREVER, RunContext, run_program

RELIST_PERIOD = 1.0  # pleg.go: the generic PLEG relists the runtime every second


def run_hook(handler: dict | None, container: dict, behaviour: Behaviour) -> tuple[float, bool]:
    """(seconds, succeeded) of a lifecycle hook handler."""
    if not isinstance(handler, dict):
        return 0.0, True
    if isinstance(handler.get("sleep"), dict):
        return float(handler["sleep"].get("seconds") or 0), True
    if isinstance(handler.get("exec"), dict):
        argv = [str(a) for a in handler["exec"].get("command") or []]
        if not argv:
            return 0.0, True
        run = run_program(argv, RunContext(env={}, max_steps=2000))
        if run.duration is None:
            return FOREVER, True
        return run.duration, run.exit_code == 0
    if isinstance(handler.get("httpGet"), dict):
        port = resolve_container_port(container, handler["httpGet"].get("port"))
        return 0.0, behaviour.ports is None or (port is not None and port in behaviour.ports)
    return 0.0, True


class ContainerRuntime:
    """Start, run and kill one container (a part of pod_workers.PodWorker)."""

    def needs_image_pull(self, name: str, t: float) -> bool:
        """EnsureImageExists's precheck: ``Always`` pulls, ``IfNotPresent`` pulls an image the
        node does not have at ``t``, ``Never`` never pulls. Without a node image cache
        (``self.images`` None) every image is present unless ``config.image_pull_seconds``
        asks for pulls, remembered per pod."""
        spec = self.container_specs[name]
        policy = spec.get("imagePullPolicy") or "IfNotPresent"
        if policy == "Never":
            return False
        if self.behaviour_of(name).pull_error:
            return True
        if self.images is not None:
            return policy == "Always" or not self.images.present(spec.get("image") or "", t)
        if self.config.image_pull_seconds <= 0:
            return False
        if policy == "Always":
            return True
        return (spec.get("image") or "") not in self.memory.setdefault("pulled", [])

    def image_absent_under_never(self, name: str, t: float) -> bool:
        spec = self.container_specs[name]
        if spec.get("imagePullPolicy") != "Never":
            return False
        if self.images is not None:
            return not self.images.present(spec.get("image") or "", t)
        return bool(self.behaviour_of(name).pull_error)

    def start_container(self, name: str, t: float) -> bool:
        """The kubelet starts container ``name`` at ``t``; True when it blocks the pod worker
        (an image pull or a postStart hook in progress)."""
        record = self.record_of(name)
        spec = self.container_specs[name]
        image = spec.get("image") or ""
        path = self.field_path[name]
        if self.image_absent_under_never(name, t):
            # image_manager.go EnsureImageExists: an absent image under the Never policy
            msg = f'Container image "{image}" is not present with pull policy of Never'
            self.events.add(t, "Warning", "ErrImageNeverPull", msg, path)
            self.events.add(t, "Warning", "Failed", "Error: ErrImageNeverPull", path)
            record.update(st="configerr", cfgmsg=msg, cfgreason="ErrImageNeverPull", until=t + self.config.sync_period)
            return False
        if self.needs_image_pull(name, t):
            if self.behaviour_of(name).pull_error:
                self.image_pull_failed(name, t)
                return False
            self.events.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
            if self.images is not None:
                begin, end = self.images.schedule_pull(image, t)
                record.update(st="pulling", until=end, pull=[t, begin])
            else:
                record.update(st="pulling", until=t + self.config.image_pull_seconds)
            return True
        self.events.add(t, "Normal", "Pulled",
                        f'Container image "{image}" already present on machine and can be accessed by the pod', path)
        return self.create_container(name, t)

    def container_config_failed(self, name: str, t: float) -> bool:
        """generateContainerConfig's refusal (startContainer): the environment cannot be built
        (``kubelet_pods.env_config_error``): event Failed ``Error: <err>``, the container waits
        as CreateContainerConfigError, and the pod worker, requeued after its sync error, tries
        again a sync period later. Objects created after ``t`` are not seen at ``t``."""
        if self.get_object is None:
            return False
        from kubesim.clock import parse_time
        from kubesim.kubelet.kubelet_pods import env_config_error

        def get_at(kind: str, namespace: str, obj_name: str):
            obj = self.get_object(kind, namespace, obj_name)
            created = ((obj or {}).get("metadata") or {}).get("creationTimestamp")
            return None if obj is None or (created and parse_time(created) > t + 1e-6) else obj

        err = env_config_error(self.pod, self.container_specs[name], get_at)
        if err is None:
            return False
        self.events.add(t, "Warning", "Failed", f"Error: {err}", self.field_path[name])
        self.record_of(name).update(st="configerr", cfgmsg=err, until=t + self.config.sync_period)
        self.record_of(name).pop("cfgreason", None)
        return True

    def image_pulled(self, name: str, t: float) -> bool:
        image = self.container_specs[name].get("image") or ""
        record = self.record_of(name)
        requested, begin = record.pop("pull", None) or (t - self.config.image_pull_seconds,) * 2
        took, waited = format_duration(round(t - begin, 3)), format_duration(round(t - requested, 3))
        if self.images is not None:
            self.images.add(image, t)
        self.events.add(t, "Normal", "Pulled", f'Successfully pulled image "{image}" in {took} ({waited} including '
                        f"waiting). Image size: {image_size(image)} bytes.", self.field_path[name])
        if self.images is None:
            pulled = self.memory.setdefault("pulled", [])
            if image not in pulled:
                pulled.append(image)
        return self.create_container(name, t)

    def image_pull_failed(self, name: str, t: float):
        record = self.record_of(name)
        image = self.container_specs[name].get("image") or ""
        from kubesim.kubelet.imagetags import pull_error

        ref = image_ref(image)[0]
        code, err = pull_error(image) or (
            "NotFound", f'failed to pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found')
        msg = f'Failed to pull image "{image}": rpc error: code = {code} desc = {err}'
        path = self.field_path[name]
        self.events.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
        self.events.add(t, "Warning", "Failed", msg, path)
        self.events.add(t, "Warning", "Failed", "Error: ErrImagePull", path)
        # the image puller's own back-off: doubling, no expiry
        pull_backoff = record.get("ibo")
        pull_backoff = self.config.backoff_initial if not pull_backoff else min(pull_backoff * 2, self.config.backoff_max)
        record.update(st="pullerr", since=t, until=t + pull_backoff, ibo=pull_backoff, pullmsg=msg,
                      evnext=t + self.config.sync_period)

    def create_container(self, name: str, t: float) -> bool:
        record = self.record_of(name)
        spec = self.container_specs[name]
        if self.container_config_failed(name, t):
            return False
        behaviour = self.behaviour_of(name)
        record["n"] = record.get("n", 0) + 1
        if record.get("fin"):
            record["last"] = record["fin"]
            record["prevTs"] = record["fin"]["finishedAt"]
        record["fin"] = None
        record["start"] = t
        record["hash"] = spec.get("image")
        restarted = record["n"] > 1
        record["kill"] = None
        record["exitAt"] = None if behaviour.exits_after is None else t + behaviour.exits_after
        path = self.field_path[name]
        self.events.add(t, "Normal", "Created", "Container created", path)
        if behaviour.start_error:
            # StartContainer failed (startContainer): the runtime's message as the event and the
            # terminated state (StartError, 128, never started: startedAt the zero time), and
            # RunContainerError until the next sync (a PLEG relist, 1 s, brings the death)
            self.events.add(t, "Warning", "Failed", f"Error: {behaviour.start_error}", path)
            record.update(started=False, ready=False, pr={})
            self.container_exited(name, t, 128, "StartError")
            record["fin"].update(startedAt=0.0, message=behaviour.start_error)
            record["rce"] = [t + RELIST_PERIOD, behaviour.start_error]
            return False
        self.events.add(t, "Normal", "Started", "Container started", path)
        probe_specs = self.probe_specs[name]
        record["started"] = "startup" not in probe_specs
        record["ready"] = False
        record["pr"] = {}
        for kind in probe_specs:
            # a new instance: fresh workers, with upstream's initial results
            record["pr"][kind] = {"run": 0, "last": None,
                                  "res": {"readiness": "F", "liveness": "S", "startup": None}[kind], "hold": False,
                                  "next": None}
        hook = (spec.get("lifecycle") or {}).get("postStart")
        if hook:
            seconds, succeeded = run_hook(hook, spec, behaviour)
            record.update(st="hook", until=t + seconds if seconds != FOREVER else None, hookok=succeeded)
            return True
        self.container_running(name, t)
        if restarted:
            self.note_cycle_start(name, t)
        return False

    def container_running(self, name: str, t: float):
        record = self.record_of(name)
        record["st"] = "running"
        record["until"] = None
        if record["started"] and "readiness" not in self.probe_specs[name]:
            record["ready"] = True
        self.schedule_probes(name, t)

    def container_exited(self, name: str, t: float, code: int, reason: str):
        record = self.record_of(name)
        record["fin"] = {"containerID": self.container_id(name, record["n"]), "exitCode": code,
                         "finishedAt": t, "reason": reason, "startedAt": record["start"]}
        record.update(st="exited", ready=False, started=False, until=None, exitAt=None)
        record["restartAfterKill"] = (record.get("kill") or {}).get("restart", False)
        record["kill"] = None
        for probe in record.get("pr", {}).values():
            probe["next"] = None

    def kill_container(self, name: str, t: float, message: str, restart: bool, grace: float,
                       event_reason: str = "Killing"):
        record = self.record_of(name)
        if record.get("kill"):
            return
        spec = self.container_specs[name]
        behaviour = self.behaviour_of(name)
        self.events.add(t, "Normal", event_reason, message, self.field_path[name])
        hook = (spec.get("lifecycle") or {}).get("preStop")
        hook_seconds = 0.0
        if hook:
            hook_seconds, succeeded = run_hook(hook, spec, behaviour)
            hook_seconds = min(hook_seconds, grace)
            if not succeeded:
                self.events.add(t + hook_seconds, "Warning", "FailedPreStopHook", "PreStopHook failed",
                                self.field_path[name])
        remaining = grace - hook_seconds
        if remaining < self.config.minimum_grace and grace > 0:
            remaining = self.config.minimum_grace
        sigterm_at = t + hook_seconds
        if grace <= 0:
            exit_at, code = t, 137
        elif behaviour.sigterm == "exit":
            exit_at, code = sigterm_at, behaviour.sigterm_exit_code
        else:
            exit_at, code = sigterm_at + remaining, 137
        if record.get("st") == "hook":
            exit_at = max(exit_at, t)
        record["kill"] = {"at": t, "exitAt": exit_at, "code": code, "restart": restart}
        for kind in ("liveness", "startup"):
            if kind in record.get("pr", {}):
                record["pr"][kind]["next"] = None
