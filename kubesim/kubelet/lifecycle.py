"""The simulated kubelet's pod lifecycle: a pod's status as a function of its spec, its node,
what happened so far and the simulated time.

The engine calls, for every pod bound to a node whose kubelet runs, once per settle round::

    result = sync_pod(pod, node, pods_on_node, now, record, memory=mem)
    # result.changed: pod["status"] was rewritten; result.next_wake: when to call again;
    # result.remove: the pod finished terminating, delete it from the store

and, for ``delete``, ``start_termination(pod, grace_seconds, now)`` (what the API server does:
deletionTimestamp and deletionGracePeriodSeconds; 0 means remove at once).

``memory`` is the kubelet's own bookkeeping for the pod (a JSON-serialisable dict the engine
keeps beside the pod, keyed by :func:`memory_key`): back-off entries, probe counters, the
termination in progress. Without it (``None``) the kubelet rebuilds it from the stored status,
as a restarted kubelet does, losing back-off and probe history.

Time only moves by ``now``: one call jumps from the last synced time to ``now`` through every
exit, restart, back-off, probe and kill in between (a bounded event loop that skips whole
crash-loop cycles once they repeat), and records each event at the simulated time it happened.

Upstream, read and re-expressed: pkg/kubelet/kubelet.go (SyncPod, rejectPod),
pkg/kubelet/kuberuntime/kuberuntime_manager.go (computePodActions: init containers in order,
sidecars, restart policy, the liveness/startup kill messages ``Container c failed liveness
probe, will be restarted``; doBackOff: ``back-off 10s restarting failed container=c
pod=p_ns(uid)`` and the BackOff event ``Back-off restarting failed container c in pod
p_ns(uid)``), kuberuntime_container.go (the ``Container created``/``Container started``/
``Stopping container c`` events of v1.34+, postStart blocking the pod worker, preStop inside the
grace period with a 2 s minimum after it), k8s.io/client-go/util/flowcontrol/backoff.go (10 s
doubling to 300 s; an entry expires when the container ran for more than twice the maximum),
pkg/kubelet/kubelet_pods.go (convertToAPIContainerStatuses: waiting ContainerCreating /
PodInitializing by default, lastState, app statuses sorted by name), pkg/kubelet/prober.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

from kubesim import clock
from kubesim.clock import parse_timestamp
from kubesim.kubelet import probes as P
from kubesim.kubelet import status as S
from kubesim.kubelet.behaviour import Behaviour, behaviour as derive_behaviour
from kubesim.kubelet.overrides import override_for
from kubesim.kubelet.shell import FOREVER, RunContext, run_program

EPS = 1e-6
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash"
DEFAULT_GRACE = 30


@dataclass(frozen=True)
class KubeletConfig:
    """Timings of the simulated kubelet (upstream defaults)."""
    backoff_initial: float = 10.0          # kuberuntime backOffPeriod
    backoff_max: float = 300.0             # MaxContainerBackOff
    sync_period: float = 10.0              # pod worker requeue after a sync error (BackOff events)
    image_pull_seconds: float = 0.0        # 0: every image is already present on every node
    minimum_grace: float = 2.0             # minimumGracePeriodInSeconds
    max_steps: int = 200000                # event-loop bound per call
    image_defaults: dict | None = None     # replaces images.IMAGES


DEFAULT_CONFIG = KubeletConfig()


class SyncResult(NamedTuple):
    changed: bool
    next_wake: float | None
    remove: bool = False


# --------------------------------------------------------------------------------------------
# formatting helpers


def format_time(t: float) -> str:
    """clock.format_time of a kubelet time, which float arithmetic may leave a hair (EPS) under
    the whole second it stands for."""
    return clock.format_time(t + EPS)


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String() for whole milliseconds: 10s, 1m20s, 5m0s, 500ms, 1.5s."""
    ms = int(round(seconds * 1000))
    if ms == 0:
        return "0s"
    if ms < 1000:
        return f"{ms}ms"
    h, rem = divmod(ms, 3600_000)
    m, rem = divmod(rem, 60_000)
    s = rem / 1000
    s_txt = (f"{s:.3f}".rstrip("0").rstrip(".")) + "s"
    if h:
        return f"{h}h{m}m{s_txt}"
    if m:
        return f"{m}m{s_txt}"
    return s_txt


def pod_ref(pod: dict) -> str:
    """format.Pod: ``name_namespace(uid)``."""
    md = pod.get("metadata") or {}
    return f"{md.get('name', '')}_{md.get('namespace') or 'default'}({md.get('uid', '')})"


def memory_key(pod: dict) -> str:
    """Where the engine keeps this pod's kubelet memory: a mirror pod's is its static pod's
    (the config hash), so deleting and recreating the mirror pod keeps the containers running."""
    md = pod.get("metadata") or {}
    ann = md.get("annotations") or {}
    if ann.get(MIRROR_ANNOTATION):
        return "static:" + (ann.get(CONFIG_HASH_ANNOTATION) or ann[MIRROR_ANNOTATION])
    return md.get("uid") or f"{md.get('namespace')}/{md.get('name')}"


def is_mirror_pod(pod: dict) -> bool:
    return bool(((pod.get("metadata") or {}).get("annotations") or {}).get(MIRROR_ANNOTATION))


def container_id(pod: dict, name: str, instance: int) -> str:
    uid = (pod.get("metadata") or {}).get("uid") or memory_key(pod)
    return "containerd://" + hashlib.sha256(f"{uid}/{name}/{instance}".encode()).hexdigest()


def image_ref(image: str) -> tuple[str, str]:
    from kubesim.kubelet.pods import _image_ref

    return _image_ref(image)


def image_size(image: str) -> int:
    return 2_000_000 + int(hashlib.sha256(image.encode()).hexdigest()[:8], 16) % 120_000_000


# --------------------------------------------------------------------------------------------
# events


class EventRecorder:
    """Events recorded during one sync, flushed in time order; repeated identical events in
    one stream are folded into one record with a count (the event correlator's job)."""

    def __init__(self):
        self.items: list[list] = []  # [first, seq, type, reason, message, field_path, last, count]
        self.seq = 0

    def add(self, at: float, type_: str, reason: str, message: str, field_path: str = "",
            count: int = 1, first: float | None = None):
        if count <= 0:
            return
        self.seq += 1
        self.items.append([first if first is not None else at, self.seq, type_, reason, message, field_path, at, count])

    def merged(self) -> list[list]:
        """One record per distinct event (what the event correlator would make of them):
        earliest first time, latest last time, summed count; in order of first occurrence."""
        out: dict[tuple, list] = {}
        for e in sorted(self.items, key=lambda e: (e[0], e[1])):
            key = (e[2], e[3], e[4], e[5])
            m = out.get(key)
            if m is None:
                out[key] = list(e)
            else:
                m[6] = max(m[6], e[6])
                m[7] += e[7]
        return list(out.values())

    def flush(self, pod: dict, record, host: str):
        if record is None:
            return
        caller = _adapt_recorder(record)
        for first, _seq, type_, reason, message, path, last, count in self.merged():
            caller(pod, type_, reason, message, host, path, first, last, count)


def _adapt_recorder(record) -> Callable:
    """Call ``record`` the engine's way (obj, type, reason, message, component, host,
    field_path), passing ``at``/``first``/``count`` when it accepts them."""
    try:
        params = inspect.signature(record).parameters
    except (TypeError, ValueError):
        params = {}
    kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
    has = {n for n in ("at", "first", "count") if n in params or kw}

    def call(pod, type_, reason, message, host, path, first, last, count):
        extra = {}
        if "at" in has:
            extra["at"] = last
        if "first" in has:
            extra["first"] = first
        if "count" in has:
            extra["count"] = count
            record(pod, type_, reason, message, "kubelet", host, path, **extra)
            return
        for _ in range(min(count, 1000)):
            record(pod, type_, reason, message, "kubelet", host, path, **extra)
    return call


# --------------------------------------------------------------------------------------------
# termination (the API server's part of a graceful delete)


def start_termination(pod: dict, grace_seconds: float | None, now: float) -> float:
    """Mark ``pod`` deleted as the API server does (pod strategy CheckGracefulDelete): the grace
    period is ``grace_seconds`` or the pod's terminationGracePeriodSeconds (30); 0 when the pod
    is not bound to a node, has finished (Succeeded/Failed) or is a mirror pod (the kubelet
    deletes and recreates those at once). A second delete can only shorten it. Returns the
    grace period: 0 means delete the object now."""
    spec = pod.get("spec") or {}
    md = pod.setdefault("metadata", {})
    period = grace_seconds
    if period is None:
        tg = spec.get("terminationGracePeriodSeconds")
        period = DEFAULT_GRACE if tg is None else tg
    period = max(float(period), 0.0)
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Succeeded", "Failed") or is_mirror_pod(pod):
        period = 0.0
    existing = parse_timestamp(md.get("deletionTimestamp"))
    deadline = now + period
    if existing is not None and existing <= deadline:
        # rest.BeforeDelete: graceful deletion is pending, do nothing; the object goes when its
        # kubelet confirms, even past its deletionTimestamp (a stopped kubelet never does)
        if md.get("deletionGracePeriodSeconds"):
            return max(existing - now, 1e-3)
        return max(existing - now, 0.0)
    md["deletionTimestamp"] = format_time(deadline)
    md["deletionGracePeriodSeconds"] = int(period)
    return period


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


# --------------------------------------------------------------------------------------------
# the simulation


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
        port = P._port(container, handler["httpGet"].get("port"))
        return 0.0, behaviour.ports is None or (port is not None and port in behaviour.ports)
    return 0.0, True


def resources_status(container: dict) -> tuple[dict | None, dict | None]:
    res = container.get("resources") or {}
    req, lim = res.get("requests") or {}, res.get("limits") or {}
    if not req and not lim:
        return None, None
    keep = ("cpu", "memory", "ephemeral-storage")
    out = {}
    if lim:
        out["limits"] = {k: v for k, v in lim.items() if k in keep}
    if req:
        out["requests"] = {k: v for k, v in req.items() if k in keep}
    return (dict(req) if req else None), out


class PodWorker:
    def __init__(self, pod: dict, node: dict, mem: dict, cfg: KubeletConfig, events: EventRecorder):
        self.pod, self.node, self.memory, self.config, self.events = pod, node, mem, cfg, events
        spec = pod.get("spec") or {}
        self.spec = spec
        self.restart_policy = spec.get("restartPolicy") or "Always"
        self.init_containers = list(spec.get("initContainers") or [])
        self.containers = list(spec.get("containers") or [])
        self.container_specs = {c["name"]: c for c in self.init_containers + self.containers}
        self.container_type = {}
        for c in self.init_containers:
            self.container_type[c["name"]] = "sidecar" if S.is_sidecar(c) else "init"
        for c in self.containers:
            self.container_type[c["name"]] = "app"
        self.field_path = {c["name"]: f"spec.initContainers{{{c['name']}}}" for c in self.init_containers}
        self.field_path.update({c["name"]: f"spec.containers{{{c['name']}}}" for c in self.containers})
        self.pod_name = (pod.get("metadata") or {}).get("name", "")
        self._behaviours: dict[str, Behaviour] = {}
        self._probe_answers: dict[tuple, list] = {}
        self.probe_specs = {n: P.probe_specs(c) for n, c in self.container_specs.items()}
        self.steps_taken = 0
        self.synced_from = mem.get("t", 0.0)

    # ---- derived data
    def behaviour_of(self, name: str) -> Behaviour:
        if name not in self._behaviours:
            self._behaviours[name] = derive_behaviour(self.container_specs[name], self.config.image_defaults, pod_name=self.pod_name,
                                               override=override_for(self.pod, name))
        return self._behaviours[name]

    def probe_answers(self, name: str, kind: str) -> list:
        key = (name, kind)
        if key not in self._probe_answers:
            self._probe_answers[key] = P.answers(self.probe_specs[name][kind], self.behaviour_of(name), self.container_specs[name], self.memory.get("ip") or "")
        return self._probe_answers[key]

    def termination_grace_period(self) -> float:
        tg = self.spec.get("terminationGracePeriodSeconds")
        return float(DEFAULT_GRACE if tg is None else tg)

    def record_of(self, name: str) -> dict:
        return self.memory["c"][name]

    def adopt_recovered_containers(self, t: float):
        """Containers found running in a stored status (memory rebuilt): their exit time and
        fresh probe workers."""
        for name in self.container_specs:
            record = self.record_of(name)
            if not record.pop("recovered", False):
                continue
            behaviour = self.behaviour_of(name)
            record["exitAt"] = None if behaviour.exits_after is None else record["start"] + behaviour.exits_after
            record["pr"] = {kind: {"run": 0, "last": None, "hold": False, "next": None,
                               "res": {"readiness": "S" if record.get("ready") else "F", "liveness": "S",
                                       "startup": "S" if record.get("started") else None}[kind]}
                        for kind in self.probe_specs[name]}
            if record["exitAt"] is not None and record["exitAt"] < t:
                record["exitAt"] = t
            self.schedule_probes(name, t)

    # ---- the container state machine
    def needs_image_pull(self, name: str) -> bool:
        c = self.container_specs[name]
        if self.behaviour_of(name).pull_error:
            return True
        if self.config.image_pull_seconds <= 0:
            return False
        policy = c.get("imagePullPolicy") or "IfNotPresent"
        if policy == "Never":
            return False
        if policy == "Always":
            return True
        return (c.get("image") or "") not in self.memory.setdefault("pulled", [])

    def start_container(self, name: str, t: float) -> bool:
        """The kubelet starts container ``name`` at ``t``; True when it blocks the pod worker
        (an image pull or a postStart hook in progress)."""
        record = self.record_of(name)
        spec = self.container_specs[name]
        image = spec.get("image") or ""
        path = self.field_path[name]
        if self.needs_image_pull(name):
            if self.behaviour_of(name).pull_error:
                self.image_pull_failed(name, t)
                return False
            self.events.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
            record.update(st="pulling", until=t + self.config.image_pull_seconds)
            return True
        self.events.add(t, "Normal", "Pulled",
                    f'Container image "{image}" already present on machine and can be accessed by the pod', path)
        return self.create_container(name, t)

    def image_pulled(self, name: str, t: float) -> bool:
        image = self.container_specs[name].get("image") or ""
        d = go_duration(self.config.image_pull_seconds)
        self.events.add(t, "Normal", "Pulled", f'Successfully pulled image "{image}" in {d} ({d} including waiting). '
                    f"Image size: {image_size(image)} bytes.", self.field_path[name])
        pulled = self.memory.setdefault("pulled", [])
        if image not in pulled:
            pulled.append(image)
        return self.create_container(name, t)

    def image_pull_failed(self, name: str, t: float):
        record = self.record_of(name)
        image = self.container_specs[name].get("image") or ""
        ref = image_ref(image)[0]
        err = (f'failed to pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found')
        msg = f'Failed to pull image "{image}": rpc error: code = NotFound desc = {err}'
        path = self.field_path[name]
        self.events.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
        self.events.add(t, "Warning", "Failed", msg, path)
        self.events.add(t, "Warning", "Failed", "Error: ErrImagePull", path)
        ibo = record.get("ibo")
        ibo = self.config.backoff_initial if not ibo else min(ibo * 2, self.config.backoff_max)
        record.update(st="pullerr", since=t, until=t + ibo, ibo=ibo, pullmsg=msg, evnext=t + self.config.sync_period)

    def create_container(self, name: str, t: float) -> bool:
        record = self.record_of(name)
        spec = self.container_specs[name]
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
        self.events.add(t, "Normal", "Started", "Container started", path)
        specs = self.probe_specs[name]
        record["started"] = "startup" not in specs
        record["ready"] = False
        record["pr"] = {}
        for kind in specs:
            record["pr"][kind] = {"run": 0, "last": None,
                              "res": {"readiness": "F", "liveness": "S", "startup": None}[kind], "hold": False,
                              "next": None}
        hook = (spec.get("lifecycle") or {}).get("postStart")
        if hook:
            d, ok = run_hook(hook, spec, behaviour)
            record.update(st="hook", until=t + d if d != FOREVER else None, hookok=ok)
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

    def schedule_probes(self, name: str, t: float):
        record = self.record_of(name)
        for kind, probe in record.get("pr", {}).items():
            if probe["next"] is None and self.probe_is_active(name, kind):
                spec = self.probe_specs[name][kind]
                probe["next"] = P.first_probing_tick(self.memory["epoch"], spec, record["start"], t if t > record["start"] else record["start"])
                if probe["next"] < t - EPS:
                    probe["next"] = P.first_tick_at_or_after(self.memory["epoch"], spec.period, t)
                probe["next"] = self._first_unspent_tick(name, kind, probe["next"])

    def probe_is_active(self, name: str, kind: str) -> bool:
        record = self.record_of(name)
        if record.get("st") != "running":
            return False
        probe = record["pr"][kind]
        if probe["hold"]:
            return False
        if kind in ("liveness", "startup") and (record.get("kill") or self.memory.get("term")):
            return False
        if kind == "startup":
            return not record["started"]
        return bool(record["started"])

    def container_exited(self, name: str, t: float, code: int, reason: str):
        record = self.record_of(name)
        record["fin"] = {"containerID": container_id(self.pod, name, record["n"]), "exitCode": code,
                     "finishedAt": t, "reason": reason, "startedAt": record["start"]}
        record.update(st="exited", ready=False, started=False, until=None, exitAt=None)
        record["restartAfterKill"] = (record.get("kill") or {}).get("restart", False)
        record["kill"] = None
        for probe in record.get("pr", {}).values():
            probe["next"] = None

    def kill_container(self, name: str, t: float, message: str, restart: bool, grace: float, event_reason: str = "Killing"):
        record = self.record_of(name)
        if record.get("kill"):
            return
        spec = self.container_specs[name]
        behaviour = self.behaviour_of(name)
        self.events.add(t, "Normal", event_reason, message, self.field_path[name])
        hook = (spec.get("lifecycle") or {}).get("preStop")
        hd = 0.0
        if hook:
            hd, ok = run_hook(hook, spec, behaviour)
            hd = min(hd, grace)
            if not ok:
                self.events.add(t + hd, "Warning", "FailedPreStopHook", "PreStopHook failed", self.field_path[name])
        remaining = grace - hd
        if remaining < self.config.minimum_grace and grace > 0:
            remaining = self.config.minimum_grace
        sig = t + hd
        if grace <= 0:
            exit_at, code = t, 137
        elif behaviour.sigterm == "exit":
            exit_at, code = sig, behaviour.sigterm_exit_code
        else:
            exit_at, code = sig + remaining, 137
        if record.get("st") == "hook":
            exit_at = max(exit_at, t)
        record["kill"] = {"at": t, "exitAt": exit_at, "code": code, "restart": restart}
        for kind in ("liveness", "startup"):
            if kind in record.get("pr", {}):
                record["pr"][kind]["next"] = None

    def enter_backoff(self, name: str, base: float, t: float):
        record = self.record_of(name)
        bo = record["bo"]
        record.update(st="backoff", until=base + bo, evnext=t)

    def in_backoff(self, record: dict, ts: float, t: float) -> bool:
        if record.get("bo") is None:
            return False
        if ts - record["boUpd"] > 2 * self.config.backoff_max:
            return False
        return t - ts < record["bo"] - EPS

    def advance_backoff(self, record: dict, ts: float, t: float):
        if record.get("bo") is None or ts - record["boUpd"] > 2 * self.config.backoff_max:
            record["bo"] = self.config.backoff_initial
        else:
            record["bo"] = min(record["bo"] * 2, self.config.backoff_max)
        record["boUpd"] = t

    def restart_container(self, name: str, t: float) -> bool:
        """doBackOff then start: returns True when the start blocks the pod worker."""
        record = self.record_of(name)
        fin = record.get("fin")
        if record.get("restartAfterKill"):
            # the kill and the start happened in one SyncPod, against the status from before
            record["restartAfterKill"] = False
            prev = (record.get("last") or {}).get("finishedAt") if record.get("last") else None
            if prev is not None:
                if self.in_backoff(record, prev, t):
                    self.enter_backoff(name, fin["finishedAt"], t)
                    return False
                self.advance_backoff(record, prev, t)
            return self.start_container(name, t)
        ts = fin["finishedAt"] if fin else None
        if ts is not None:
            if self.in_backoff(record, ts, t):
                self.enter_backoff(name, ts, t)
                return False
            self.advance_backoff(record, ts, t)
        return self.start_container(name, t)

    # ---- what should restart
    def should_restart(self, name: str) -> bool:
        record = self.record_of(name)
        if record.get("st") != "exited" or self.memory.get("term") or self.memory.get("done"):
            return False
        kind = self.container_type[name]
        if record.get("restartAfterKill"):
            return True
        code = (record.get("fin") or {}).get("exitCode", 0)
        if kind == "sidecar":
            return True
        if kind == "init":
            return code != 0 and self.restart_policy != "Never"
        if self.restart_policy == "Always":
            return True
        if self.restart_policy == "OnFailure":
            return code != 0
        return False

    # ---- one kubelet sync at time t (computePodActions + SyncPod)
    def sync_containers(self, t: float) -> bool:
        mem = self.memory
        changed = False
        if mem.get("term"):
            return self.sync_terminating_pod(t)
        if mem.get("done"):
            return self.stop_sidecars(t)
        # definition changes (a new image): kill and restart
        for name, spec in self.container_specs.items():
            record = self.record_of(name)
            if record.get("st") in ("running", "hook") and record.get("hash") != spec.get("image") and not record.get("kill"):
                self.kill_container(name, t, f"Container {name} definition changed, will be restarted", True, self.termination_grace_period())
                changed = True
        blocked = any(self.record_of(n).get("st") in ("pulling", "hook") for n in self.container_specs)
        # init containers, in order
        for spec in self.init_containers:
            name = spec["name"]
            record = self.record_of(name)
            st = record.get("st")
            kind = self.container_type[name]
            if kind == "init":
                if st == "exited" and (record.get("fin") or {}).get("exitCode", 0) == 0 and not record.get("restartAfterKill"):
                    continue
                if st == "exited" and self.restart_policy == "Never" and not record.get("restartAfterKill"):
                    mem["done"] = True
                    return self.stop_sidecars(t) or True
                if st in ("pending", "exited") and not blocked:
                    blocked = self.restart_container(name, t) if st == "exited" else self.start_container(name, t)
                    return True
                return changed
            # a sidecar: started before the next init container runs
            if st in ("pending", "exited") and not blocked:
                blocked = self.restart_container(name, t) if st == "exited" else self.start_container(name, t)
                changed = True
                if self.record_of(name).get("st") != "running" or not self.record_of(name).get("started"):
                    return True
                continue
            if st == "running" and record.get("started"):
                continue
            if self.any_regular_container_started():
                continue
            return changed
        # app containers
        for spec in self.containers:
            name = spec["name"]
            record = self.record_of(name)
            st = record.get("st")
            if blocked:
                break
            if st == "pending":
                blocked = self.start_container(name, t)
                changed = True
            elif st == "exited" and self.should_restart(name):
                blocked = self.restart_container(name, t)
                changed = True
        # sidecars that exited after initialization
        for spec in self.init_containers:
            name = spec["name"]
            if self.container_type[name] == "sidecar" and self.record_of(name).get("st") == "exited" and not blocked \
                    and self.any_regular_container_started():
                blocked = self.restart_container(name, t)
                changed = True
        # a pod whose regular containers are all done for good
        if self.restart_policy != "Always" and self.containers and all(
                self.record_of(s["name"]).get("st") == "exited" and not self.should_restart(s["name"]) for s in self.containers):
            mem["done"] = True
            self.stop_sidecars(t)
            changed = True
        return changed

    def any_regular_container_started(self) -> bool:
        return any(self.record_of(s["name"]).get("n", 0) > 0 for s in self.containers)

    def stop_sidecars(self, t: float) -> bool:
        """After the regular containers finished (or during termination), sidecars stop in
        reverse order, each once the ones after it have exited."""
        changed = False
        for spec in reversed(self.init_containers):
            name = spec["name"]
            if self.container_type[name] != "sidecar":
                continue
            record = self.record_of(name)
            if record.get("st") in ("running", "hook"):
                if not record.get("kill"):
                    term = self.memory.get("term")
                    grace = self.termination_grace_period()
                    if term:
                        grace = max(term["at"] + term["grace"] - t, self.config.minimum_grace)
                    self.kill_container(name, t, f"Stopping container {name}", False, grace)
                    changed = True
                return changed
            if record.get("st") in ("backoff", "pulling", "pullerr", "pending"):
                record["st"] = "exited" if record.get("fin") else "stopped"
                changed = True
        return changed

    def sync_terminating_pod(self, t: float) -> bool:
        term = self.memory["term"]
        changed = False
        if not term.get("begun"):
            term["begun"] = True
            changed = True
            for name in list(self.container_specs):
                record = self.record_of(name)
                if self.container_type[name] == "sidecar":
                    continue
                if record.get("st") in ("running", "hook"):
                    self.kill_container(name, t, f"Stopping container {name}", False, term["grace"])
                    if record.get("kill"):
                        record["kill"]["restart"] = False
                elif record.get("st") in ("backoff", "pulling", "pullerr", "pending"):
                    record["st"] = "exited" if record.get("fin") else "stopped"
        if all(self.record_of(n).get("st") not in ("running", "hook") for n in self.container_specs if self.container_type[n] != "sidecar"):
            changed = self.stop_sidecars(t) or changed
        if all(self.record_of(n).get("st") not in ("running", "hook") for n in self.container_specs):
            if not self.memory.get("removed"):
                self.memory["removed"] = t
                changed = True
        return changed

    # ---- timers
    def container_wake_time(self, name: str) -> float | None:
        record = self.record_of(name)
        st = record.get("st")
        times = []
        if st in ("pulling", "hook", "backoff", "pullerr") and record.get("until") is not None:
            times.append(record["until"])
        if st == "pullerr" and record.get("since") is not None and record["since"] + self.config.sync_period < record["until"] - EPS:
            if not record.get("ipbo"):
                times.append(record["since"] + self.config.sync_period)
        if st in ("running", "hook"):
            if record.get("exitAt") is not None:
                times.append(record["exitAt"])
            if record.get("kill"):
                times.append(record["kill"]["exitAt"])
        if st == "running":
            for kind in record.get("pr", {}):
                tc = self.scan_probe(name, kind, math.inf, apply=False)
                if tc is not None:
                    times.append(tc)
        return min(times) if times else None

    def next_wake_time(self) -> float | None:
        times = [x for x in (self.container_wake_time(n) for n in self.container_specs) if x is not None]
        term = self.memory.get("term")
        if term and not term.get("begun"):
            times.append(term["at"])
        return min(times) if times else None

    # ---- probes
    def scan_probe(self, name: str, kind: str, limit: float, apply: bool) -> float | None:
        """Walk the probe's ticks from its next one up to ``limit`` (inclusive): the time of the
        first tick that changes its result (None if none by ``limit``). With ``apply`` the
        ticks before the change (and the changing one, if within ``limit``) are taken, their
        failures recorded as Unhealthy events."""
        record = self.record_of(name)
        probe = record["pr"][kind]
        if probe["next"] is None or not self.probe_is_active(name, kind):
            return None
        spec = self.probe_specs[name][kind]
        segs = self.probe_answers(name, kind)
        start = record["start"]
        tick = probe["next"]
        run, last, res = probe["run"], probe["last"], probe["res"]
        period = spec.period
        change = None
        for i, (off, ok, out) in enumerate(segs):
            seg_end = start + segs[i + 1][0] if i + 1 < len(segs) else math.inf
            if tick >= seg_end - EPS:
                continue
            if tick > limit + EPS:
                break
            n = count_ticks(tick, period, seg_end, limit)
            threshold = spec.success_threshold if ok else spec.failure_threshold
            target = "S" if ok else "F"
            prior = run if last == ok else 0
            k_change = None
            if res != target:
                k_change = max(threshold - prior, 1)
            take = n if k_change is None else (k_change if n is None else min(n, k_change))
            if take is None:
                # an endless segment without a change
                if apply and not ok:
                    pass
                break
            if apply and take > 0:
                first_t, last_t = tick, tick + (take - 1) * period
                if not ok:
                    self.events.add(last_t, "Warning", "Unhealthy", P.event_message(kind, out), self.field_path[name],
                                count=take, first=first_t)
                run = prior + take
                last = ok
            if k_change is not None and n is not None and k_change <= n or (k_change is not None and n is None):
                change = tick + (k_change - 1) * period
                if apply:
                    probe.update(run=run, last=last, next=change + period)
                    self._mark_tick_spent(name, kind, change)
                return change
            tick = tick + take * period
            if not apply:
                run, last = prior + take, ok
        if apply:
            probe.update(run=run, last=last, next=tick)
            self._mark_tick_spent(name, kind, tick - period)
        return change

    def _mark_tick_spent(self, name: str, kind: str, tick: float):
        """The probe worker's ticker runs on across container instances: a tick spent on the
        old instance is not spent again on the new one."""
        last = self.record_of(name).setdefault("ticks", {})
        if tick > last.get(kind, -math.inf):
            last[kind] = tick

    def _first_unspent_tick(self, name: str, kind: str, t: float) -> float:
        last = self.record_of(name).get("ticks", {}).get(kind)
        if last is not None and t <= last + EPS:
            t = P.first_tick_at_or_after(self.memory["epoch"], self.probe_specs[name][kind].period, last + EPS)
        return t

    def flush_probe_ticks(self, name: str, limit: float):
        """Take (and record) the ticks up to ``limit`` that change nothing."""
        record = self.record_of(name)
        for kind in list(record.get("pr", {})):
            probe = record["pr"][kind]
            if probe["next"] is None or not self.probe_is_active(name, kind) or probe["next"] > limit + EPS:
                continue
            spec = self.probe_specs[name][kind]
            segs = self.probe_answers(name, kind)
            tick = probe["next"]
            start = record["start"]
            while tick <= limit + EPS:
                off = tick - start
                idx = max(i for i, s in enumerate(segs) if s[0] <= off + EPS)
                ok, out = segs[idx][1], segs[idx][2]
                seg_end = start + segs[idx + 1][0] if idx + 1 < len(segs) else math.inf
                n = count_ticks(tick, spec.period, seg_end, limit)
                if not n:
                    break
                if not ok:
                    self.events.add(tick + (n - 1) * spec.period, "Warning", "Unhealthy", P.event_message(kind, out),
                                self.field_path[name], count=n, first=tick)
                probe["run"] = (probe["run"] if probe["last"] == ok else 0) + n
                probe["last"] = ok
                tick += n * spec.period
                self._mark_tick_spent(name, kind, tick - spec.period)
            probe["next"] = tick

    def apply_probe_results(self, name: str, t: float) -> bool:
        record = self.record_of(name)
        changed = False
        for kind in P.KINDS:
            if kind not in record.get("pr", {}) or record.get("st") != "running":
                continue
            tc = self.scan_probe(name, kind, t, apply=False)
            if tc is None or abs(tc - t) > EPS:
                continue
            self.scan_probe(name, kind, t, apply=True)
            probe = record["pr"][kind]
            probe["res"] = "S" if probe["last"] else "F"
            changed = True
            if kind == "startup" and probe["res"] == "S":
                record["started"] = True
                if "readiness" not in self.probe_specs[name]:
                    record["ready"] = True
                for k in ("liveness", "readiness"):
                    if k in record["pr"]:
                        record["pr"][k]["next"] = None
                self.schedule_probes_after_startup(name, t)
            elif kind == "readiness":
                record["ready"] = probe["res"] == "S"
            elif kind in ("liveness", "startup") and probe["res"] == "F":
                probe["hold"] = True
                probe["run"] = 0
                restart = self.restart_policy != "Never"
                msg = f"Container {name} failed {kind} probe" + (", will be restarted" if restart else "")
                pg = self.probe_specs[name][kind].termination_grace
                self.kill_container(name, t, msg, restart, float(pg) if pg is not None else self.termination_grace_period())
        return changed

    def schedule_probes_after_startup(self, name: str, t: float):
        record = self.record_of(name)
        for kind, probe in record["pr"].items():
            if probe["next"] is None and self.probe_is_active(name, kind):
                spec = self.probe_specs[name][kind]
                nt = P.first_tick_at_or_after(self.memory["epoch"], spec.period, max(t + EPS, record["start"] + spec.initial_delay))
                probe["next"] = self._first_unspent_tick(name, kind, nt)

    # ---- lazy event streams (BackOff while waiting)
    def flush_waiting_events(self, name: str, limit: float):
        record = self.record_of(name)
        st = record.get("st")
        path = self.field_path[name]
        if st == "backoff" and record.get("evnext") is not None:
            n = count_ticks(record["evnext"], self.config.sync_period, record["until"], limit)
            if n:
                last = record["evnext"] + (n - 1) * self.config.sync_period
                self.events.add(last, "Warning", "BackOff",
                            f"Back-off restarting failed container {name} in pod {pod_ref(self.pod)}", path,
                            count=n, first=record["evnext"])
                record["evnext"] += n * self.config.sync_period
        if st == "pullerr" and record.get("evnext") is not None:
            n = count_ticks(record["evnext"], self.config.sync_period, record["until"], limit)
            if n:
                last = record["evnext"] + (n - 1) * self.config.sync_period
                image = self.container_specs[name].get("image") or ""
                self.events.add(last, "Normal", "BackOff", f'Back-off pulling image "{image}"', path, count=n, first=record["evnext"])
                self.events.add(last, "Warning", "Failed", "Error: ImagePullBackOff", path, count=n, first=record["evnext"])
                record["evnext"] += n * self.config.sync_period

    # ---- one step of simulated time
    def step_to(self, t: float):
        for name in self.container_specs:
            self.flush_probe_ticks(name, t - EPS * 10)
            self.flush_waiting_events(name, t)
        # processes that end now
        for name in self.container_specs:
            record = self.record_of(name)
            if record.get("st") not in ("running", "hook"):
                continue
            kill = record.get("kill")
            natural = record.get("exitAt")
            if natural is not None and natural <= t + EPS and (not kill or natural <= kill["exitAt"] + EPS):
                behaviour = self.behaviour_of(name)
                self.container_exited(name, t, behaviour.exit_code, behaviour.terminated_reason())
            elif kill and kill["exitAt"] <= t + EPS:
                code = kill["code"]
                self.container_exited(name, t, code, "Completed" if code == 0 else "Error")
        # probe results that change now
        for name in self.container_specs:
            self.apply_probe_results(name, t)
        # timers
        for name in self.container_specs:
            record = self.record_of(name)
            st = record.get("st")
            if st == "pullerr" and not record.get("ipbo") and record["since"] + self.config.sync_period <= t + EPS < record["until"]:
                record["ipbo"] = True
            if record.get("until") is None or record["until"] > t + EPS:
                continue
            if st == "pulling":
                self.image_pulled(name, t)
            elif st == "hook":
                if record.get("hookok", True):
                    self.container_running(name, t)
                else:
                    self.events.add(t, "Warning", "FailedPostStartHook", "PostStartHook failed", self.field_path[name])
                    record["st"] = "running"
                    self.kill_container(name, t, "FailedPostStartHook", self.restart_policy != "Never", self.termination_grace_period())
            elif st == "backoff":
                record["st"] = "exited"
                if self.memory.get("term") or self.memory.get("done"):
                    continue
                self.restart_container(name, t)
            elif st == "pullerr":
                record["ipbo"] = False
                if self.memory.get("term"):
                    record["st"] = "stopped"
                    continue
                self.start_container(name, t)
        # the kubelet syncs until nothing more happens at t
        for _ in range(4 * len(self.container_specs) + 4):
            if not self.sync_containers(t):
                break
        self.memory["t"] = t

    # ---- whole crash-loop cycles at once
    def cycle_signature(self, name: str, t: float) -> tuple:
        """What decides a container's future, relative to its start: equal at two consecutive
        starts (at the maximal back-off), the cycle in between repeats for ever."""
        record = self.record_of(name)
        phases = tuple(sorted((k, round((t - self.memory["epoch"]) % self.probe_specs[name][k].period, 6))
                              for k in record.get("pr", {})))
        rel = lambda v: None if v is None else round(t - v, 6)  # noqa: E731
        return (record.get("bo"), rel(record.get("boUpd")), rel(record.get("prevTs")), phases, record.get("st"))

    def note_cycle_start(self, name: str, t: float):
        record = self.record_of(name)
        hist = record.setdefault("cycs", [])
        # in JSON form: the engine stores memory as JSON, and a round trip must not break equality
        hist.append({"start": t, "sig": json.loads(json.dumps(self.cycle_signature(name, t)))})
        del hist[:-4]

    def skip_repeating_cycles(self, name: str, now: float) -> bool:
        """After container ``name`` (re)started: if its last cycle will repeat unchanged and
        nothing else in the pod is due, jump over whole cycles - restart count, times, events
        (counts multiplied) and condition transition times move on by whole periods."""
        record = self.record_of(name)
        hist = record.get("cycs") or []
        if len(hist) < 2 or record.get("bo") != self.config.backoff_max:
            return False
        cur = hist[-1]
        prev, per_cycle = None, 0
        for back, h in enumerate(reversed(hist[:-1]), 1):
            if h["sig"] == cur["sig"]:
                prev, per_cycle = h, back
                break
        if prev is None or prev["start"] <= self.synced_from + EPS:
            return False  # the cycle's events must all have been recorded by this call
        if self.memory.get("term") or self.memory.get("done") or record.get("st") != "running":
            return False
        if any(self.container_wake_time(n) is not None for n in self.container_specs if n != name):
            return False
        period = cur["start"] - prev["start"]
        if period <= 0:
            return False
        k = int(math.floor((now - cur["start"]) / period)) - 1
        if k < 1:
            return False
        shift = k * period
        path = self.field_path[name]
        for first, _seq, type_, reason, message, fp, last, count in list(self.events.items):
            if fp == path and prev["start"] - EPS <= first < cur["start"] - EPS:
                self.events.add(last + shift, type_, reason, message, fp, count=count * k, first=first + period)
        record["n"] += k * per_cycle
        for key in ("start", "exitAt", "until", "boUpd", "prevTs", "evnext"):
            if record.get(key) is not None:
                record[key] += shift
        for key in ("last", "fin"):
            if record.get(key):
                record[key] = dict(record[key], startedAt=record[key]["startedAt"] + shift, finishedAt=record[key]["finishedAt"] + shift)
                record[key]["containerID"] = container_id(self.pod, name, record["n"] - (1 if key == "last" else 0))
        if record.get("kill"):
            record["kill"] = dict(record["kill"], at=record["kill"]["at"] + shift, exitAt=record["kill"]["exitAt"] + shift)
        for probe in record.get("pr", {}).values():
            if probe.get("next") is not None:
                probe["next"] += shift
        for kind in list(record.get("ticks", {})):
            record["ticks"][kind] += shift
        cycle_start = prev["start"]
        for h in hist:
            h["start"] += shift
        for c in (self.pod.get("status") or {}).get("conditions") or []:
            ltt = parse_timestamp(c.get("lastTransitionTime"))
            if ltt is not None and ltt >= cycle_start - EPS and c.get("type") != "PodScheduled":
                c["lastTransitionTime"] = format_time(ltt + shift)
        self.memory["t"] = cur["start"]
        return True

    def run_until(self, now: float):
        while True:
            self.steps_taken += 1
            if self.steps_taken > self.config.max_steps:
                break
            tn = self.next_wake_time()
            if tn is None or tn > now + EPS:
                break
            tn = max(tn, self.memory["t"])
            self.step_to(tn)
            self.generate_pod_status(tn)
            if self.memory.get("removed"):
                return
            for name in self.container_specs:
                cycs = self.record_of(name).get("cycs")
                if cycs and abs(cycs[-1]["start"] - tn) < EPS and self.skip_repeating_cycles(name, now):
                    self.generate_pod_status(self.memory["t"])
        for name in self.container_specs:
            self.flush_probe_ticks(name, now)
            self.flush_waiting_events(name, now)
        self.memory["t"] = max(self.memory["t"], now)

    # ---- status
    def container_status(self, name: str, t: float) -> dict:
        spec = self.container_specs[name]
        record = self.record_of(name)
        st = record.get("st") or "pending"
        image = spec.get("image") or ""
        s: dict = {"name": name}
        created = record.get("n", 0) > 0
        if created:
            s["image"], s["imageID"] = image_ref(image)
            s["containerID"] = container_id(self.pod, name, record["n"])
        else:
            s["image"], s["imageID"] = image, ""
        restarts = max(record.get("n", 0) - 1, 0)
        s["restartCount"] = restarts
        s["started"] = bool(st == "running" and record.get("started"))
        s["ready"] = bool(st == "running" and record.get("ready"))
        last = record.get("last")
        fin = record.get("fin")
        default_wait = "PodInitializing" if self.init_containers else "ContainerCreating"
        if st == "running":
            s["state"] = {"running": {"startedAt": format_time(record["start"])}}
            s["lastState"] = {"terminated": terminated_state(last)} if last else {}
        elif st == "hook":
            # the pod worker is blocked in startContainer: the status is the one from before
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": terminated_state(last)} if last else {}
            s["started"] = s["ready"] = False
            if record.get("n", 0) <= 1:
                s.pop("containerID", None)
                s["image"], s["imageID"] = image, ""
                s["restartCount"] = 0
            else:
                s["containerID"] = container_id(self.pod, name, record["n"] - 1)
                s["restartCount"] = restarts - 1
        elif st == "backoff":
            msg = (f"back-off {go_duration(record['bo'])} restarting failed container={name} pod={pod_ref(self.pod)}")
            s["state"] = {"waiting": {"message": msg, "reason": "CrashLoopBackOff"}}
            s["lastState"] = {"terminated": terminated_state(fin)} if fin else {}
        elif st == "pullerr":
            if record.get("ipbo"):
                image_txt = spec.get("image") or ""
                msg = f'Back-off pulling image "{image_txt}": ErrImagePull: ' + record["pullmsg"].split("desc = ", 1)[-1]
                s["state"] = {"waiting": {"message": msg, "reason": "ImagePullBackOff"}}
            else:
                s["state"] = {"waiting": {"message": record["pullmsg"], "reason": "ErrImagePull"}}
            s["lastState"] = {"terminated": terminated_state(fin)} if fin else ({"terminated": terminated_state(last)} if last else {})
        elif st == "exited" and fin:
            s["state"] = {"terminated": terminated_state(fin)}
            s["lastState"] = {"terminated": terminated_state(last)} if last else {}
        elif st == "pulling" and (fin or last):
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": terminated_state(fin or last)}
        else:
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": terminated_state(fin)} if fin else {}
        if self.container_type[name] == "init":
            # a regular init container is ready once it completed (prober_manager.UpdatePodStatus)
            s["ready"] = bool(st == "exited" and fin and fin["exitCode"] == 0)
        if self.container_type[name] == "sidecar":
            s["ready"] = bool(st == "running" and record.get("ready"))
        alloc, res = resources_status(spec)
        if alloc is not None and st == "running":
            s["allocatedResources"] = alloc
            s["resources"] = res
        if created and "containerID" in s:
            sc = {**((self.spec.get("securityContext") or {})), **(spec.get("securityContext") or {})}
            uid = int(sc.get("runAsUser") or 0)
            gid = int(sc.get("runAsGroup") or 0)
            groups = sorted({gid, *[int(g) for g in (self.spec.get("securityContext") or {}).get("supplementalGroups") or ()]})
            s["user"] = {"linux": {"gid": gid, "supplementalGroups": groups, "uid": uid}}
        mounts = volume_mount_statuses(spec)
        if mounts:
            s["volumeMounts"] = mounts
        return s

    def generate_pod_status(self, t: float):
        pod, mem = self.pod, self.memory
        st = pod.setdefault("status", {})
        init_statuses = [self.container_status(c["name"], t) for c in self.init_containers]
        statuses = sorted((self.container_status(c["name"], t) for c in self.containers), key=lambda s: s["name"])
        terminal = bool(mem.get("removed")) or bool(mem.get("term") and all(
            self.record_of(n).get("st") not in ("running", "hook") for n in self.container_specs))
        phase = S.get_phase(pod, init_statuses + statuses, terminal, is_mirror_pod(pod))
        old_phase = st.get("phase")
        if old_phase in ("Succeeded", "Failed") and phase != old_phase:
            phase = old_phase
        conds = S.generate_conditions(pod, init_statuses, statuses, phase, sandbox_ready=True)
        gen = (pod.get("metadata") or {}).get("generation")
        conds = S.stamp_conditions(conds, st.get("conditions") or [], format_time(t), gen)
        from kubesim.api.pods import qos_class

        new = {}
        new["conditions"] = conds
        new["containerStatuses"] = statuses
        host_ip = mem.get("hostIP") or ""
        new["hostIP"] = host_ip
        new["hostIPs"] = [{"ip": host_ip}] if host_ip else []
        if init_statuses:
            new["initContainerStatuses"] = init_statuses
        if st.get("nominatedNodeName"):
            new["nominatedNodeName"] = st["nominatedNodeName"]
        if gen is not None:
            new["observedGeneration"] = gen
        new["phase"] = phase
        if phase == old_phase:
            for k in ("reason", "message"):
                if st.get(k):
                    new[k] = st[k]
        ip = mem.get("ip") or ""
        new["podIP"] = ip
        new["podIPs"] = [{"ip": ip}] if ip else []
        new["qosClass"] = st.get("qosClass") or qos_class(pod)
        new["startTime"] = format_time(mem["epoch"])
        if not new["podIP"]:
            new.pop("podIP")
            new.pop("podIPs")
        pod["status"] = new


def count_ticks(first: float, period: float, end_exclusive: float, limit_inclusive: float) -> int | None:
    """How many of ``first + k*period`` fall before ``end_exclusive`` and at or before
    ``limit_inclusive`` (None when both are infinite)."""
    bounds = []
    if end_exclusive != math.inf:
        bounds.append(max(math.ceil((end_exclusive - first) / period - 1e-7), 0))
    if limit_inclusive != math.inf:
        bounds.append(max(math.floor((limit_inclusive - first) / period + 1e-7) + 1, 0))
    return min(bounds) if bounds else None


def terminated_state(fin: dict | None) -> dict:
    if not fin:
        return {}
    out = {"containerID": fin["containerID"], "exitCode": fin["exitCode"],
           "finishedAt": format_time(fin["finishedAt"]), "reason": fin["reason"],
           "startedAt": format_time(fin["startedAt"])}
    return out


# --------------------------------------------------------------------------------------------
# memory


def new_memory(pod: dict, t: float) -> dict:
    spec = pod.get("spec") or {}
    names = [c["name"] for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])]
    return {"v": 1, "t": t, "epoch": t, "c": {n: {"st": "pending", "n": 0} for n in names}}


def recover_memory(pod: dict, now: float) -> dict | None:
    """Rebuild kubelet memory from a stored status (a restarted kubelet: back-off and probe
    history are lost, the containers keep running)."""
    st = pod.get("status") or {}
    start = parse_timestamp(st.get("startTime"))
    if start is None:
        return None
    mem = new_memory(pod, start)
    mem["ip"] = st.get("podIP") or ""
    mem["hostIP"] = st.get("hostIP") or ""
    if st.get("phase") == "Failed" and st.get("reason") and not st.get("containerStatuses"):
        mem["rejected"] = True
    latest = start
    for cs in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
        name = cs.get("name")
        if name not in mem["c"]:
            continue
        record = mem["c"][name]
        state = cs.get("state") or {}
        n = int(cs.get("restartCount") or 0) + (1 if cs.get("containerID") else 0)
        record["n"] = n
        record["hash"] = None
        last = (cs.get("lastState") or {}).get("terminated")
        if last:
            record["last"] = _termination_record(last)
        if state.get("running"):
            record.update(st="running", start=parse_timestamp(state["running"].get("startedAt")), started=bool(cs.get("started")),
                      ready=bool(cs.get("ready")), pr={}, exitAt=None, kill=None, recovered=True)
            latest = max(latest, record["start"])
        elif state.get("terminated"):
            record.update(st="exited", fin=_termination_record(state["terminated"]))
            latest = max(latest, record["fin"]["finishedAt"])
        elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff" and last:
            record["fin"] = record.pop("last")
            record.update(st="exited")
            latest = max(latest, record["fin"]["finishedAt"])
        else:
            record["st"] = "pending"
        for c in (pod.get("spec") or {}).get("initContainers") or []:
            if c["name"] == name:
                record["hash"] = c.get("image")
        for c in (pod.get("spec") or {}).get("containers") or []:
            if c["name"] == name:
                record["hash"] = c.get("image")
    for c in st.get("conditions") or []:
        ltt = parse_timestamp(c.get("lastTransitionTime"))
        if ltt is not None and ltt <= now:
            latest = max(latest, ltt)
    mem["t"] = min(max(latest, start), now)
    return mem


def _termination_record(term: dict) -> dict:
    return {"containerID": term.get("containerID", ""), "exitCode": int(term.get("exitCode") or 0),
            "finishedAt": parse_timestamp(term.get("finishedAt")) or 0.0, "reason": term.get("reason") or "",
            "startedAt": parse_timestamp(term.get("startedAt")) or 0.0}


# --------------------------------------------------------------------------------------------
# the entry points


def kubelet_running(node: dict) -> bool:
    from kubesim.kubelet.nodefailure import kubelet_stopped

    return not kubelet_stopped(node)


def sync_pod(pod: dict, node: dict, pods_on_node: list[dict], now: float, record=None, *,
             memory: dict | None = None, config: KubeletConfig = DEFAULT_CONFIG) -> SyncResult:
    """Bring ``pod`` (bound to ``node``) to simulated time ``now``; see the module docstring.

    ``pods_on_node`` are the other pods bound to the node (for admission and the pod IP).
    ``record`` is called as ``record(pod, type, reason, message, "kubelet", node_name,
    field_path[, at=..., first=..., count=...])`` for every event, in time order. ``memory``
    is updated in place (pass the same dict next time)."""
    from kubesim.kubelet.admission import admit
    from kubesim.kubelet.node import internal_ip
    from kubesim.kubelet.pods import allocate_ip

    if not kubelet_running(node):
        return SyncResult(False, None, False)
    before = json.dumps(pod.get("status"), sort_keys=True, default=str)
    events = EventRecorder()
    host = (node.get("metadata") or {}).get("name", "")
    mem = memory
    fresh = False
    if mem is None or not mem.get("c"):
        recovered = recover_memory(pod, now)
        if recovered is not None:
            mem = recovered if mem is None else (mem.update(recovered) or mem)
        else:
            mem = new_memory(pod, now) if mem is None else (mem.update(new_memory(pod, now)) or mem)
            fresh = True
    if mem.get("rejected"):
        return SyncResult(False, None, bool((pod.get("metadata") or {}).get("deletionTimestamp")))
    if fresh:
        # admission (pkg/kubelet/lifecycle/predicate.go) on the first sync
        others = [p for p in pods_on_node if p is not pod and _is_active(p)
                  and (p.get("metadata") or {}).get("uid") != (pod.get("metadata") or {}).get("uid")]
        verdict = admit(pod, node, others)
        if verdict is not None:
            reason, message = verdict
            from kubesim.api.pods import qos_class

            mem["rejected"] = True
            pod["status"] = {"message": "Pod was rejected: " + message, "phase": "Failed",
                             "qosClass": (pod.get("status") or {}).get("qosClass") or qos_class(pod),
                             "reason": reason, "startTime": format_time(now)}
            events.add(now, "Warning", reason, message)
            events.flush(pod, record, host)
            return SyncResult(True, None, False)
        host_ip = internal_ip(node)
        mem["hostIP"] = host_ip
        mem["ip"] = host_ip if (pod.get("spec") or {}).get("hostNetwork") else allocate_ip(node, pods_on_node)
    # containers added to memory for specs it does not know yet (defensive)
    for c in ((pod.get("spec") or {}).get("initContainers") or []) + ((pod.get("spec") or {}).get("containers") or []):
        mem["c"].setdefault(c["name"], {"st": "pending", "n": 0})
    # what the user changed since the last sync (annotations, images) changed now: the time in
    # between ran with the old values
    cur_inputs = _user_inputs(pod)
    old_inputs = mem.get("inputs")
    changed_inputs = old_inputs is not None and old_inputs != cur_inputs
    if changed_inputs and mem["t"] < now and not fresh:
        shadow = _with_user_inputs(pod, old_inputs)
        PodWorker(shadow, node, mem, config, events).run_until(now)
        pod["status"] = shadow.get("status") or pod.get("status")
    mem["inputs"] = cur_inputs
    sim = PodWorker(pod, node, mem, config, events)
    sim.adopt_recovered_containers(mem["t"])
    md = pod.get("metadata") or {}
    if md.get("deletionTimestamp") and not mem.get("term"):
        dl = parse_timestamp(md["deletionTimestamp"]) or now
        grace = float(md.get("deletionGracePeriodSeconds") if md.get("deletionGracePeriodSeconds") is not None
                      else sim.termination_grace_period())
        mem["term"] = {"at": max(min(dl - grace, now), mem["t"]), "grace": grace}
    if fresh or (changed_inputs and not mem.get("removed")):
        sim.step_to(now)
        sim.generate_pod_status(now)
    sim.run_until(now)
    if not mem.get("removed"):
        sim.generate_pod_status(mem["t"] if mem["t"] < now else now)
    events.flush(pod, record, host)
    remove = bool(mem.get("removed"))
    after = json.dumps(pod.get("status"), sort_keys=True, default=str)
    nxt = None if remove else sim.next_wake_time()
    if nxt is not None and nxt <= now + EPS:
        nxt = now  # the step budget ran out: come back at once
    return SyncResult(before != after or fresh or remove, nxt, remove)


def _user_inputs(pod: dict) -> dict:
    from kubesim.kubelet.overrides import BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION

    ann = (pod.get("metadata") or {}).get("annotations") or {}
    spec = pod.get("spec") or {}
    return {"ann": {k: ann[k] for k in (BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION) if k in ann},
            "images": {c["name"]: c.get("image") for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])}}


def _with_user_inputs(pod: dict, inputs: dict) -> dict:
    from kubesim.kubelet.overrides import BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION

    shadow = copy.deepcopy(pod)
    ann = shadow.setdefault("metadata", {}).setdefault("annotations", {})
    for k in (BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION):
        ann.pop(k, None)
    ann.update(inputs.get("ann") or {})
    spec = shadow.get("spec") or {}
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        if c["name"] in (inputs.get("images") or {}):
            c["image"] = inputs["images"][c["name"]]
    return shadow


def _is_active(p: dict) -> bool:
    st = p.get("status") or {}
    return st.get("phase") not in ("Succeeded", "Failed") and bool(st.get("startTime"))


def resume_pod(pod: dict, node: dict, now: float, memory: dict) -> None:
    """The node's kubelet starts again at ``now`` after being stopped: containers that exited
    meanwhile are seen as exited, back-off and probe history are forgotten (a new kubelet
    process), and syncing continues from ``now``."""
    sim = PodWorker(pod, node, memory, DEFAULT_CONFIG, EventRecorder())
    t0 = memory.get("t", now)
    for name in sim.container_specs:
        record = sim.record_of(name)
        if record.get("st") == "running" and record.get("exitAt") is not None and record["exitAt"] <= now:
            behaviour = sim.behaviour_of(name)
            sim.container_exited(name, record["exitAt"], behaviour.exit_code, behaviour.terminated_reason())
        record.pop("bo", None)
        record.pop("boUpd", None)
        for probe in record.get("pr", {}).values():
            probe.update(next=None, run=0, last=None, hold=False)
    memory["t"] = max(t0, now)


def logs(pod: dict, container: str | None, now: float, previous: bool = False,
         config: KubeletConfig = DEFAULT_CONFIG) -> list[str]:
    """What ``kubesim logs`` prints: the output of the container's current instance (or the
    previous one) by ``now``. Raises LookupError with kubectl's messages."""
    spec = pod.get("spec") or {}
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    name = container or ((spec.get("containers") or [{}])[0].get("name"))
    c = next((c for c in containers if c.get("name") == name), None)
    if c is None:
        md = pod.get("metadata") or {}
        raise LookupError(f'container {name} is not valid for pod {md.get("name")}')
    statuses = ((pod.get("status") or {}).get("initContainerStatuses") or []) + \
        ((pod.get("status") or {}).get("containerStatuses") or [])
    cs = next((s for s in statuses if s.get("name") == name), None) or {}
    state = cs.get("state") or {}
    if previous:
        term = (cs.get("lastState") or {}).get("terminated")
        if not term:
            raise LookupError(f'previous terminated container "{name}" in pod "{(pod.get("metadata") or {}).get("name")}" not found')
        started, until = parse_timestamp(term.get("startedAt")), parse_timestamp(term.get("finishedAt"))
    elif state.get("running"):
        started, until = parse_timestamp(state["running"].get("startedAt")), now
    elif state.get("terminated"):
        started, until = parse_timestamp(state["terminated"].get("startedAt")), parse_timestamp(state["terminated"].get("finishedAt"))
    elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff" and (cs.get("lastState") or {}).get("terminated"):
        term = cs["lastState"]["terminated"]
        started, until = parse_timestamp(term.get("startedAt")), parse_timestamp(term.get("finishedAt"))
    else:
        reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
        md = pod.get("metadata") or {}
        raise LookupError(f'container "{name}" in pod "{md.get("name")}" is waiting to start: {reason}')
    from kubesim.kubelet.logs import log_lines

    behaviour = derive_behaviour(c, config.image_defaults, pod_name=(pod.get("metadata") or {}).get("name", ""),
                         override=override_for(pod, name), start=started or 0.0)
    return log_lines(behaviour, started or 0.0, until if until is not None else now)


__all__ = ["KubeletConfig", "SyncResult", "sync_pod", "start_termination", "memory_key", "logs",
           "resume_pod", "go_duration", "pod_ref", "kubelet_running"]
