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


class _Events:
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
        caller = _adapt(record)
        for first, _seq, type_, reason, message, path, last, count in self.merged():
            caller(pod, type_, reason, message, host, path, first, last, count)


def _adapt(record) -> Callable:
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


def _hook_duration(handler: dict | None, container: dict, b: Behaviour) -> tuple[float, bool]:
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
        return 0.0, b.ports is None or (port is not None and port in b.ports)
    return 0.0, True


def _resources_status(container: dict) -> tuple[dict | None, dict | None]:
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


class _Sim:
    def __init__(self, pod: dict, node: dict, mem: dict, cfg: KubeletConfig, events: _Events):
        self.pod, self.node, self.mem, self.cfg, self.ev = pod, node, mem, cfg, events
        spec = pod.get("spec") or {}
        self.spec = spec
        self.policy = spec.get("restartPolicy") or "Always"
        self.init = list(spec.get("initContainers") or [])
        self.apps = list(spec.get("containers") or [])
        self.by_name = {c["name"]: c for c in self.init + self.apps}
        self.kind = {}
        for c in self.init:
            self.kind[c["name"]] = "sidecar" if S.is_sidecar(c) else "init"
        for c in self.apps:
            self.kind[c["name"]] = "app"
        self.fpath = {c["name"]: f"spec.initContainers{{{c['name']}}}" for c in self.init}
        self.fpath.update({c["name"]: f"spec.containers{{{c['name']}}}" for c in self.apps})
        self.pod_name = (pod.get("metadata") or {}).get("name", "")
        self._beh: dict[str, Behaviour] = {}
        self._answers: dict[tuple, list] = {}
        self.specs = {n: P.probe_specs(c) for n, c in self.by_name.items()}
        self.steps = 0
        self.call_start = mem.get("t", 0.0)

    # ---- derived data
    def b(self, name: str) -> Behaviour:
        if name not in self._beh:
            self._beh[name] = derive_behaviour(self.by_name[name], self.cfg.image_defaults, pod_name=self.pod_name,
                                               override=override_for(self.pod, name))
        return self._beh[name]

    def answers(self, name: str, kind: str) -> list:
        key = (name, kind)
        if key not in self._answers:
            self._answers[key] = P.answers(self.specs[name][kind], self.b(name), self.by_name[name], self.mem.get("ip") or "")
        return self._answers[key]

    def grace(self) -> float:
        tg = self.spec.get("terminationGracePeriodSeconds")
        return float(DEFAULT_GRACE if tg is None else tg)

    def c(self, name: str) -> dict:
        return self.mem["c"][name]

    def adopt_recovered(self, t: float):
        """Containers found running in a stored status (memory rebuilt): their exit time and
        fresh probe workers."""
        for name in self.by_name:
            cm = self.c(name)
            if not cm.pop("recovered", False):
                continue
            b = self.b(name)
            cm["exitAt"] = None if b.exits_after is None else cm["start"] + b.exits_after
            cm["pr"] = {kind: {"run": 0, "last": None, "hold": False, "next": None,
                               "res": {"readiness": "S" if cm.get("ready") else "F", "liveness": "S",
                                       "startup": "S" if cm.get("started") else None}[kind]}
                        for kind in self.specs[name]}
            if cm["exitAt"] is not None and cm["exitAt"] < t:
                cm["exitAt"] = t
            self.arm_probes(name, t)

    # ---- the container state machine
    def needs_pull(self, name: str) -> bool:
        c = self.by_name[name]
        if self.b(name).pull_error:
            return True
        if self.cfg.image_pull_seconds <= 0:
            return False
        policy = c.get("imagePullPolicy") or "IfNotPresent"
        if policy == "Never":
            return False
        if policy == "Always":
            return True
        return (c.get("image") or "") not in self.mem.setdefault("pulled", [])

    def start(self, name: str, t: float) -> bool:
        """The kubelet starts container ``name`` at ``t``; True when it blocks the pod worker
        (an image pull or a postStart hook in progress)."""
        cm = self.c(name)
        spec = self.by_name[name]
        image = spec.get("image") or ""
        path = self.fpath[name]
        if self.needs_pull(name):
            if self.b(name).pull_error:
                self.pull_failed(name, t)
                return False
            self.ev.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
            cm.update(st="pulling", until=t + self.cfg.image_pull_seconds)
            return True
        self.ev.add(t, "Normal", "Pulled",
                    f'Container image "{image}" already present on machine and can be accessed by the pod', path)
        return self.create(name, t)

    def pulled(self, name: str, t: float) -> bool:
        image = self.by_name[name].get("image") or ""
        d = go_duration(self.cfg.image_pull_seconds)
        self.ev.add(t, "Normal", "Pulled", f'Successfully pulled image "{image}" in {d} ({d} including waiting). '
                    f"Image size: {image_size(image)} bytes.", self.fpath[name])
        pulled = self.mem.setdefault("pulled", [])
        if image not in pulled:
            pulled.append(image)
        return self.create(name, t)

    def pull_failed(self, name: str, t: float):
        cm = self.c(name)
        image = self.by_name[name].get("image") or ""
        ref = image_ref(image)[0]
        err = (f'failed to pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found')
        msg = f'Failed to pull image "{image}": rpc error: code = NotFound desc = {err}'
        path = self.fpath[name]
        self.ev.add(t, "Normal", "Pulling", f'Pulling image "{image}"', path)
        self.ev.add(t, "Warning", "Failed", msg, path)
        self.ev.add(t, "Warning", "Failed", "Error: ErrImagePull", path)
        ibo = cm.get("ibo")
        ibo = self.cfg.backoff_initial if not ibo else min(ibo * 2, self.cfg.backoff_max)
        cm.update(st="pullerr", since=t, until=t + ibo, ibo=ibo, pullmsg=msg, evnext=t + self.cfg.sync_period)

    def create(self, name: str, t: float) -> bool:
        cm = self.c(name)
        spec = self.by_name[name]
        b = self.b(name)
        cm["n"] = cm.get("n", 0) + 1
        if cm.get("fin"):
            cm["last"] = cm["fin"]
            cm["prevTs"] = cm["fin"]["finishedAt"]
        cm["fin"] = None
        cm["start"] = t
        cm["hash"] = spec.get("image")
        restarted = cm["n"] > 1
        cm["kill"] = None
        cm["exitAt"] = None if b.exits_after is None else t + b.exits_after
        path = self.fpath[name]
        self.ev.add(t, "Normal", "Created", "Container created", path)
        self.ev.add(t, "Normal", "Started", "Container started", path)
        specs = self.specs[name]
        cm["started"] = "startup" not in specs
        cm["ready"] = False
        cm["pr"] = {}
        for kind in specs:
            cm["pr"][kind] = {"run": 0, "last": None,
                              "res": {"readiness": "F", "liveness": "S", "startup": None}[kind], "hold": False,
                              "next": None}
        hook = (spec.get("lifecycle") or {}).get("postStart")
        if hook:
            d, ok = _hook_duration(hook, spec, b)
            cm.update(st="hook", until=t + d if d != FOREVER else None, hookok=ok)
            return True
        self.running(name, t)
        if restarted:
            self.note_start(name, t)
        return False

    def running(self, name: str, t: float):
        cm = self.c(name)
        cm["st"] = "running"
        cm["until"] = None
        if cm["started"] and "readiness" not in self.specs[name]:
            cm["ready"] = True
        self.arm_probes(name, t)

    def arm_probes(self, name: str, t: float):
        cm = self.c(name)
        for kind, ps in cm.get("pr", {}).items():
            if ps["next"] is None and self.probe_active(name, kind):
                spec = self.specs[name][kind]
                ps["next"] = P.first_probing_tick(self.mem["epoch"], spec, cm["start"], t if t > cm["start"] else cm["start"])
                if ps["next"] < t - EPS:
                    ps["next"] = P.first_tick_at_or_after(self.mem["epoch"], spec.period, t)
                ps["next"] = self._not_consumed(name, kind, ps["next"])

    def probe_active(self, name: str, kind: str) -> bool:
        cm = self.c(name)
        if cm.get("st") != "running":
            return False
        ps = cm["pr"][kind]
        if ps["hold"]:
            return False
        if kind in ("liveness", "startup") and (cm.get("kill") or self.mem.get("term")):
            return False
        if kind == "startup":
            return not cm["started"]
        return bool(cm["started"])

    def exit(self, name: str, t: float, code: int, reason: str):
        cm = self.c(name)
        cm["fin"] = {"containerID": container_id(self.pod, name, cm["n"]), "exitCode": code,
                     "finishedAt": t, "reason": reason, "startedAt": cm["start"]}
        cm.update(st="exited", ready=False, started=False, until=None, exitAt=None)
        cm["restartAfterKill"] = (cm.get("kill") or {}).get("restart", False)
        cm["kill"] = None
        for ps in cm.get("pr", {}).values():
            ps["next"] = None

    def kill(self, name: str, t: float, message: str, restart: bool, grace: float, event_reason: str = "Killing"):
        cm = self.c(name)
        if cm.get("kill"):
            return
        spec = self.by_name[name]
        b = self.b(name)
        self.ev.add(t, "Normal", event_reason, message, self.fpath[name])
        hook = (spec.get("lifecycle") or {}).get("preStop")
        hd = 0.0
        if hook:
            hd, ok = _hook_duration(hook, spec, b)
            hd = min(hd, grace)
            if not ok:
                self.ev.add(t + hd, "Warning", "FailedPreStopHook", "PreStopHook failed", self.fpath[name])
        remaining = grace - hd
        if remaining < self.cfg.minimum_grace and grace > 0:
            remaining = self.cfg.minimum_grace
        sig = t + hd
        if grace <= 0:
            exit_at, code = t, 137
        elif b.sigterm == "exit":
            exit_at, code = sig, b.sigterm_exit_code
        else:
            exit_at, code = sig + remaining, 137
        if cm.get("st") == "hook":
            exit_at = max(exit_at, t)
        cm["kill"] = {"at": t, "exitAt": exit_at, "code": code, "restart": restart}
        for kind in ("liveness", "startup"):
            if kind in cm.get("pr", {}):
                cm["pr"][kind]["next"] = None

    def begin_backoff(self, name: str, base: float, t: float):
        cm = self.c(name)
        bo = cm["bo"]
        cm.update(st="backoff", until=base + bo, evnext=t)

    def in_backoff(self, cm: dict, ts: float, t: float) -> bool:
        if cm.get("bo") is None:
            return False
        if ts - cm["boUpd"] > 2 * self.cfg.backoff_max:
            return False
        return t - ts < cm["bo"] - EPS

    def next_backoff(self, cm: dict, ts: float, t: float):
        if cm.get("bo") is None or ts - cm["boUpd"] > 2 * self.cfg.backoff_max:
            cm["bo"] = self.cfg.backoff_initial
        else:
            cm["bo"] = min(cm["bo"] * 2, self.cfg.backoff_max)
        cm["boUpd"] = t

    def restart(self, name: str, t: float) -> bool:
        """doBackOff then start: returns True when the start blocks the pod worker."""
        cm = self.c(name)
        fin = cm.get("fin")
        if cm.get("restartAfterKill"):
            # the kill and the start happened in one SyncPod, against the status from before
            cm["restartAfterKill"] = False
            prev = (cm.get("last") or {}).get("finishedAt") if cm.get("last") else None
            if prev is not None:
                if self.in_backoff(cm, prev, t):
                    self.begin_backoff(name, fin["finishedAt"], t)
                    return False
                self.next_backoff(cm, prev, t)
            return self.start(name, t)
        ts = fin["finishedAt"] if fin else None
        if ts is not None:
            if self.in_backoff(cm, ts, t):
                self.begin_backoff(name, ts, t)
                return False
            self.next_backoff(cm, ts, t)
        return self.start(name, t)

    # ---- what should restart
    def wants_restart(self, name: str) -> bool:
        cm = self.c(name)
        if cm.get("st") != "exited" or self.mem.get("term") or self.mem.get("done"):
            return False
        kind = self.kind[name]
        if cm.get("restartAfterKill"):
            return True
        code = (cm.get("fin") or {}).get("exitCode", 0)
        if kind == "sidecar":
            return True
        if kind == "init":
            return code != 0 and self.policy != "Never"
        if self.policy == "Always":
            return True
        if self.policy == "OnFailure":
            return code != 0
        return False

    # ---- one kubelet sync at time t (computePodActions + SyncPod)
    def sync(self, t: float) -> bool:
        mem = self.mem
        changed = False
        if mem.get("term"):
            return self.sync_terminating(t)
        if mem.get("done"):
            return self.stop_sidecars(t)
        # definition changes (a new image): kill and restart
        for name, spec in self.by_name.items():
            cm = self.c(name)
            if cm.get("st") in ("running", "hook") and cm.get("hash") != spec.get("image") and not cm.get("kill"):
                self.kill(name, t, f"Container {name} definition changed, will be restarted", True, self.grace())
                changed = True
        blocked = any(self.c(n).get("st") in ("pulling", "hook") for n in self.by_name)
        # init containers, in order
        for spec in self.init:
            name = spec["name"]
            cm = self.c(name)
            st = cm.get("st")
            kind = self.kind[name]
            if kind == "init":
                if st == "exited" and (cm.get("fin") or {}).get("exitCode", 0) == 0 and not cm.get("restartAfterKill"):
                    continue
                if st == "exited" and self.policy == "Never" and not cm.get("restartAfterKill"):
                    mem["done"] = True
                    return self.stop_sidecars(t) or True
                if st in ("pending", "exited") and not blocked:
                    blocked = self.restart(name, t) if st == "exited" else self.start(name, t)
                    return True
                return changed
            # a sidecar: started before the next init container runs
            if st in ("pending", "exited") and not blocked:
                blocked = self.restart(name, t) if st == "exited" else self.start(name, t)
                changed = True
                if self.c(name).get("st") != "running" or not self.c(name).get("started"):
                    return True
                continue
            if st == "running" and cm.get("started"):
                continue
            if self.any_app_started():
                continue
            return changed
        # app containers
        for spec in self.apps:
            name = spec["name"]
            cm = self.c(name)
            st = cm.get("st")
            if blocked:
                break
            if st == "pending":
                blocked = self.start(name, t)
                changed = True
            elif st == "exited" and self.wants_restart(name):
                blocked = self.restart(name, t)
                changed = True
        # sidecars that exited after initialization
        for spec in self.init:
            name = spec["name"]
            if self.kind[name] == "sidecar" and self.c(name).get("st") == "exited" and not blocked \
                    and self.any_app_started():
                blocked = self.restart(name, t)
                changed = True
        # a pod whose regular containers are all done for good
        if self.policy != "Always" and self.apps and all(
                self.c(s["name"]).get("st") == "exited" and not self.wants_restart(s["name"]) for s in self.apps):
            mem["done"] = True
            self.stop_sidecars(t)
            changed = True
        return changed

    def any_app_started(self) -> bool:
        return any(self.c(s["name"]).get("n", 0) > 0 for s in self.apps)

    def stop_sidecars(self, t: float) -> bool:
        """After the regular containers finished (or during termination), sidecars stop in
        reverse order, each once the ones after it have exited."""
        changed = False
        for spec in reversed(self.init):
            name = spec["name"]
            if self.kind[name] != "sidecar":
                continue
            cm = self.c(name)
            if cm.get("st") in ("running", "hook"):
                if not cm.get("kill"):
                    term = self.mem.get("term")
                    grace = self.grace()
                    if term:
                        grace = max(term["at"] + term["grace"] - t, self.cfg.minimum_grace)
                    self.kill(name, t, f"Stopping container {name}", False, grace)
                    changed = True
                return changed
            if cm.get("st") in ("backoff", "pulling", "pullerr", "pending"):
                cm["st"] = "exited" if cm.get("fin") else "stopped"
                changed = True
        return changed

    def sync_terminating(self, t: float) -> bool:
        term = self.mem["term"]
        changed = False
        if not term.get("begun"):
            term["begun"] = True
            changed = True
            for name in list(self.by_name):
                cm = self.c(name)
                if self.kind[name] == "sidecar":
                    continue
                if cm.get("st") in ("running", "hook"):
                    self.kill(name, t, f"Stopping container {name}", False, term["grace"])
                    if cm.get("kill"):
                        cm["kill"]["restart"] = False
                elif cm.get("st") in ("backoff", "pulling", "pullerr", "pending"):
                    cm["st"] = "exited" if cm.get("fin") else "stopped"
        if all(self.c(n).get("st") not in ("running", "hook") for n in self.by_name if self.kind[n] != "sidecar"):
            changed = self.stop_sidecars(t) or changed
        if all(self.c(n).get("st") not in ("running", "hook") for n in self.by_name):
            if not self.mem.get("removed"):
                self.mem["removed"] = t
                changed = True
        return changed

    # ---- timers
    def container_next(self, name: str) -> float | None:
        cm = self.c(name)
        st = cm.get("st")
        times = []
        if st in ("pulling", "hook", "backoff", "pullerr") and cm.get("until") is not None:
            times.append(cm["until"])
        if st == "pullerr" and cm.get("since") is not None and cm["since"] + self.cfg.sync_period < cm["until"] - EPS:
            if not cm.get("ipbo"):
                times.append(cm["since"] + self.cfg.sync_period)
        if st in ("running", "hook"):
            if cm.get("exitAt") is not None:
                times.append(cm["exitAt"])
            if cm.get("kill"):
                times.append(cm["kill"]["exitAt"])
        if st == "running":
            for kind in cm.get("pr", {}):
                tc = self.scan_probe(name, kind, math.inf, apply=False)
                if tc is not None:
                    times.append(tc)
        return min(times) if times else None

    def next_time(self) -> float | None:
        times = [x for x in (self.container_next(n) for n in self.by_name) if x is not None]
        term = self.mem.get("term")
        if term and not term.get("begun"):
            times.append(term["at"])
        return min(times) if times else None

    # ---- probes
    def scan_probe(self, name: str, kind: str, limit: float, apply: bool) -> float | None:
        """Walk the probe's ticks from its next one up to ``limit`` (inclusive): the time of the
        first tick that changes its result (None if none by ``limit``). With ``apply`` the
        ticks before the change (and the changing one, if within ``limit``) are taken, their
        failures recorded as Unhealthy events."""
        cm = self.c(name)
        ps = cm["pr"][kind]
        if ps["next"] is None or not self.probe_active(name, kind):
            return None
        spec = self.specs[name][kind]
        segs = self.answers(name, kind)
        start = cm["start"]
        tick = ps["next"]
        run, last, res = ps["run"], ps["last"], ps["res"]
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
                    self.ev.add(last_t, "Warning", "Unhealthy", P.event_message(kind, out), self.fpath[name],
                                count=take, first=first_t)
                run = prior + take
                last = ok
            if k_change is not None and n is not None and k_change <= n or (k_change is not None and n is None):
                change = tick + (k_change - 1) * period
                if apply:
                    ps.update(run=run, last=last, next=change + period)
                    self._consumed(name, kind, change)
                return change
            tick = tick + take * period
            if not apply:
                run, last = prior + take, ok
        if apply:
            ps.update(run=run, last=last, next=tick)
            self._consumed(name, kind, tick - period)
        return change

    def _consumed(self, name: str, kind: str, tick: float):
        """The probe worker's ticker runs on across container instances: a tick spent on the
        old instance is not spent again on the new one."""
        last = self.c(name).setdefault("ticks", {})
        if tick > last.get(kind, -math.inf):
            last[kind] = tick

    def _not_consumed(self, name: str, kind: str, t: float) -> float:
        last = self.c(name).get("ticks", {}).get(kind)
        if last is not None and t <= last + EPS:
            t = P.first_tick_at_or_after(self.mem["epoch"], self.specs[name][kind].period, last + EPS)
        return t

    def flush_probes(self, name: str, limit: float):
        """Take (and record) the ticks up to ``limit`` that change nothing."""
        cm = self.c(name)
        for kind in list(cm.get("pr", {})):
            ps = cm["pr"][kind]
            if ps["next"] is None or not self.probe_active(name, kind) or ps["next"] > limit + EPS:
                continue
            spec = self.specs[name][kind]
            segs = self.answers(name, kind)
            tick = ps["next"]
            start = cm["start"]
            while tick <= limit + EPS:
                off = tick - start
                idx = max(i for i, s in enumerate(segs) if s[0] <= off + EPS)
                ok, out = segs[idx][1], segs[idx][2]
                seg_end = start + segs[idx + 1][0] if idx + 1 < len(segs) else math.inf
                n = count_ticks(tick, spec.period, seg_end, limit)
                if not n:
                    break
                if not ok:
                    self.ev.add(tick + (n - 1) * spec.period, "Warning", "Unhealthy", P.event_message(kind, out),
                                self.fpath[name], count=n, first=tick)
                ps["run"] = (ps["run"] if ps["last"] == ok else 0) + n
                ps["last"] = ok
                tick += n * spec.period
                self._consumed(name, kind, tick - spec.period)
            ps["next"] = tick

    def probe_changes_at(self, name: str, t: float) -> bool:
        cm = self.c(name)
        changed = False
        for kind in P.KINDS:
            if kind not in cm.get("pr", {}) or cm.get("st") != "running":
                continue
            tc = self.scan_probe(name, kind, t, apply=False)
            if tc is None or abs(tc - t) > EPS:
                continue
            self.scan_probe(name, kind, t, apply=True)
            ps = cm["pr"][kind]
            ps["res"] = "S" if ps["last"] else "F"
            changed = True
            if kind == "startup" and ps["res"] == "S":
                cm["started"] = True
                if "readiness" not in self.specs[name]:
                    cm["ready"] = True
                for k in ("liveness", "readiness"):
                    if k in cm["pr"]:
                        cm["pr"][k]["next"] = None
                self.arm_probes_after(name, t)
            elif kind == "readiness":
                cm["ready"] = ps["res"] == "S"
            elif kind in ("liveness", "startup") and ps["res"] == "F":
                ps["hold"] = True
                ps["run"] = 0
                restart = self.policy != "Never"
                msg = f"Container {name} failed {kind} probe" + (", will be restarted" if restart else "")
                pg = self.specs[name][kind].termination_grace
                self.kill(name, t, msg, restart, float(pg) if pg is not None else self.grace())
        return changed

    def arm_probes_after(self, name: str, t: float):
        cm = self.c(name)
        for kind, ps in cm["pr"].items():
            if ps["next"] is None and self.probe_active(name, kind):
                spec = self.specs[name][kind]
                nt = P.first_tick_at_or_after(self.mem["epoch"], spec.period, max(t + EPS, cm["start"] + spec.initial_delay))
                ps["next"] = self._not_consumed(name, kind, nt)

    # ---- lazy event streams (BackOff while waiting)
    def flush_waiting_events(self, name: str, limit: float):
        cm = self.c(name)
        st = cm.get("st")
        path = self.fpath[name]
        if st == "backoff" and cm.get("evnext") is not None:
            n = count_ticks(cm["evnext"], self.cfg.sync_period, cm["until"], limit)
            if n:
                last = cm["evnext"] + (n - 1) * self.cfg.sync_period
                self.ev.add(last, "Warning", "BackOff",
                            f"Back-off restarting failed container {name} in pod {pod_ref(self.pod)}", path,
                            count=n, first=cm["evnext"])
                cm["evnext"] += n * self.cfg.sync_period
        if st == "pullerr" and cm.get("evnext") is not None:
            n = count_ticks(cm["evnext"], self.cfg.sync_period, cm["until"], limit)
            if n:
                last = cm["evnext"] + (n - 1) * self.cfg.sync_period
                image = self.by_name[name].get("image") or ""
                self.ev.add(last, "Normal", "BackOff", f'Back-off pulling image "{image}"', path, count=n, first=cm["evnext"])
                self.ev.add(last, "Warning", "Failed", "Error: ImagePullBackOff", path, count=n, first=cm["evnext"])
                cm["evnext"] += n * self.cfg.sync_period

    # ---- one step of simulated time
    def step(self, t: float):
        for name in self.by_name:
            self.flush_probes(name, t - EPS * 10)
            self.flush_waiting_events(name, t)
        # processes that end now
        for name in self.by_name:
            cm = self.c(name)
            if cm.get("st") not in ("running", "hook"):
                continue
            kill = cm.get("kill")
            natural = cm.get("exitAt")
            if natural is not None and natural <= t + EPS and (not kill or natural <= kill["exitAt"] + EPS):
                b = self.b(name)
                self.exit(name, t, b.exit_code, b.terminated_reason())
            elif kill and kill["exitAt"] <= t + EPS:
                code = kill["code"]
                self.exit(name, t, code, "Completed" if code == 0 else "Error")
        # probe results that change now
        for name in self.by_name:
            self.probe_changes_at(name, t)
        # timers
        for name in self.by_name:
            cm = self.c(name)
            st = cm.get("st")
            if st == "pullerr" and not cm.get("ipbo") and cm["since"] + self.cfg.sync_period <= t + EPS < cm["until"]:
                cm["ipbo"] = True
            if cm.get("until") is None or cm["until"] > t + EPS:
                continue
            if st == "pulling":
                self.pulled(name, t)
            elif st == "hook":
                if cm.get("hookok", True):
                    self.running(name, t)
                else:
                    self.ev.add(t, "Warning", "FailedPostStartHook", "PostStartHook failed", self.fpath[name])
                    cm["st"] = "running"
                    self.kill(name, t, "FailedPostStartHook", self.policy != "Never", self.grace())
            elif st == "backoff":
                cm["st"] = "exited"
                if self.mem.get("term") or self.mem.get("done"):
                    continue
                self.restart(name, t)
            elif st == "pullerr":
                cm["ipbo"] = False
                if self.mem.get("term"):
                    cm["st"] = "stopped"
                    continue
                self.start(name, t)
        # the kubelet syncs until nothing more happens at t
        for _ in range(4 * len(self.by_name) + 4):
            if not self.sync(t):
                break
        self.mem["t"] = t

    # ---- whole crash-loop cycles at once
    def signature(self, name: str, t: float) -> tuple:
        """What decides a container's future, relative to its start: equal at two consecutive
        starts (at the maximal back-off), the cycle in between repeats for ever."""
        cm = self.c(name)
        phases = tuple(sorted((k, round((t - self.mem["epoch"]) % self.specs[name][k].period, 6))
                              for k in cm.get("pr", {})))
        rel = lambda v: None if v is None else round(t - v, 6)  # noqa: E731
        return (cm.get("bo"), rel(cm.get("boUpd")), rel(cm.get("prevTs")), phases, cm.get("st"))

    def note_start(self, name: str, t: float):
        cm = self.c(name)
        hist = cm.setdefault("cycs", [])
        # in JSON form: the engine stores memory as JSON, and a round trip must not break equality
        hist.append({"start": t, "sig": json.loads(json.dumps(self.signature(name, t)))})
        del hist[:-4]

    def maybe_skip(self, name: str, now: float) -> bool:
        """After container ``name`` (re)started: if its last cycle will repeat unchanged and
        nothing else in the pod is due, jump over whole cycles - restart count, times, events
        (counts multiplied) and condition transition times move on by whole periods."""
        cm = self.c(name)
        hist = cm.get("cycs") or []
        if len(hist) < 2 or cm.get("bo") != self.cfg.backoff_max:
            return False
        cur = hist[-1]
        prev, per_cycle = None, 0
        for back, h in enumerate(reversed(hist[:-1]), 1):
            if h["sig"] == cur["sig"]:
                prev, per_cycle = h, back
                break
        if prev is None or prev["start"] <= self.call_start + EPS:
            return False  # the cycle's events must all have been recorded by this call
        if self.mem.get("term") or self.mem.get("done") or cm.get("st") != "running":
            return False
        if any(self.container_next(n) is not None for n in self.by_name if n != name):
            return False
        period = cur["start"] - prev["start"]
        if period <= 0:
            return False
        k = int(math.floor((now - cur["start"]) / period)) - 1
        if k < 1:
            return False
        shift = k * period
        path = self.fpath[name]
        for first, _seq, type_, reason, message, fp, last, count in list(self.ev.items):
            if fp == path and prev["start"] - EPS <= first < cur["start"] - EPS:
                self.ev.add(last + shift, type_, reason, message, fp, count=count * k, first=first + period)
        cm["n"] += k * per_cycle
        for key in ("start", "exitAt", "until", "boUpd", "prevTs", "evnext"):
            if cm.get(key) is not None:
                cm[key] += shift
        for key in ("last", "fin"):
            if cm.get(key):
                cm[key] = dict(cm[key], startedAt=cm[key]["startedAt"] + shift, finishedAt=cm[key]["finishedAt"] + shift)
                cm[key]["containerID"] = container_id(self.pod, name, cm["n"] - (1 if key == "last" else 0))
        if cm.get("kill"):
            cm["kill"] = dict(cm["kill"], at=cm["kill"]["at"] + shift, exitAt=cm["kill"]["exitAt"] + shift)
        for ps in cm.get("pr", {}).values():
            if ps.get("next") is not None:
                ps["next"] += shift
        for kind in list(cm.get("ticks", {})):
            cm["ticks"][kind] += shift
        cycle_start = prev["start"]
        for h in hist:
            h["start"] += shift
        for c in (self.pod.get("status") or {}).get("conditions") or []:
            ltt = parse_timestamp(c.get("lastTransitionTime"))
            if ltt is not None and ltt >= cycle_start - EPS and c.get("type") != "PodScheduled":
                c["lastTransitionTime"] = format_time(ltt + shift)
        self.mem["t"] = cur["start"]
        return True

    def run(self, now: float):
        while True:
            self.steps += 1
            if self.steps > self.cfg.max_steps:
                break
            tn = self.next_time()
            if tn is None or tn > now + EPS:
                break
            tn = max(tn, self.mem["t"])
            self.step(tn)
            self.render(tn)
            if self.mem.get("removed"):
                return
            for name in self.by_name:
                cycs = self.c(name).get("cycs")
                if cycs and abs(cycs[-1]["start"] - tn) < EPS and self.maybe_skip(name, now):
                    self.render(self.mem["t"])
        for name in self.by_name:
            self.flush_probes(name, now)
            self.flush_waiting_events(name, now)
        self.mem["t"] = max(self.mem["t"], now)

    # ---- status
    def container_status(self, name: str, t: float) -> dict:
        spec = self.by_name[name]
        cm = self.c(name)
        st = cm.get("st") or "pending"
        image = spec.get("image") or ""
        s: dict = {"name": name}
        created = cm.get("n", 0) > 0
        if created:
            s["image"], s["imageID"] = image_ref(image)
            s["containerID"] = container_id(self.pod, name, cm["n"])
        else:
            s["image"], s["imageID"] = image, ""
        restarts = max(cm.get("n", 0) - 1, 0)
        s["restartCount"] = restarts
        s["started"] = bool(st == "running" and cm.get("started"))
        s["ready"] = bool(st == "running" and cm.get("ready"))
        last = cm.get("last")
        fin = cm.get("fin")
        default_wait = "PodInitializing" if self.init else "ContainerCreating"
        if st == "running":
            s["state"] = {"running": {"startedAt": format_time(cm["start"])}}
            s["lastState"] = {"terminated": _term(last)} if last else {}
        elif st == "hook":
            # the pod worker is blocked in startContainer: the status is the one from before
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": _term(last)} if last else {}
            s["started"] = s["ready"] = False
            if cm.get("n", 0) <= 1:
                s.pop("containerID", None)
                s["image"], s["imageID"] = image, ""
                s["restartCount"] = 0
            else:
                s["containerID"] = container_id(self.pod, name, cm["n"] - 1)
                s["restartCount"] = restarts - 1
        elif st == "backoff":
            msg = (f"back-off {go_duration(cm['bo'])} restarting failed container={name} pod={pod_ref(self.pod)}")
            s["state"] = {"waiting": {"message": msg, "reason": "CrashLoopBackOff"}}
            s["lastState"] = {"terminated": _term(fin)} if fin else {}
        elif st == "pullerr":
            if cm.get("ipbo"):
                image_txt = spec.get("image") or ""
                msg = f'Back-off pulling image "{image_txt}": ErrImagePull: ' + cm["pullmsg"].split("desc = ", 1)[-1]
                s["state"] = {"waiting": {"message": msg, "reason": "ImagePullBackOff"}}
            else:
                s["state"] = {"waiting": {"message": cm["pullmsg"], "reason": "ErrImagePull"}}
            s["lastState"] = {"terminated": _term(fin)} if fin else ({"terminated": _term(last)} if last else {})
        elif st == "exited" and fin:
            s["state"] = {"terminated": _term(fin)}
            s["lastState"] = {"terminated": _term(last)} if last else {}
        elif st == "pulling" and (fin or last):
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": _term(fin or last)}
        else:
            s["state"] = {"waiting": {"reason": default_wait}}
            s["lastState"] = {"terminated": _term(fin)} if fin else {}
        if self.kind[name] == "init":
            # a regular init container is ready once it completed (prober_manager.UpdatePodStatus)
            s["ready"] = bool(st == "exited" and fin and fin["exitCode"] == 0)
        if self.kind[name] == "sidecar":
            s["ready"] = bool(st == "running" and cm.get("ready"))
        alloc, res = _resources_status(spec)
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

    def render(self, t: float):
        pod, mem = self.pod, self.mem
        st = pod.setdefault("status", {})
        init_statuses = [self.container_status(c["name"], t) for c in self.init]
        statuses = sorted((self.container_status(c["name"], t) for c in self.apps), key=lambda s: s["name"])
        terminal = bool(mem.get("removed")) or bool(mem.get("term") and all(
            self.c(n).get("st") not in ("running", "hook") for n in self.by_name))
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


def _term(fin: dict | None) -> dict:
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
        cm = mem["c"][name]
        state = cs.get("state") or {}
        n = int(cs.get("restartCount") or 0) + (1 if cs.get("containerID") else 0)
        cm["n"] = n
        cm["hash"] = None
        last = (cs.get("lastState") or {}).get("terminated")
        if last:
            cm["last"] = _fin_from(last)
        if state.get("running"):
            cm.update(st="running", start=parse_timestamp(state["running"].get("startedAt")), started=bool(cs.get("started")),
                      ready=bool(cs.get("ready")), pr={}, exitAt=None, kill=None, recovered=True)
            latest = max(latest, cm["start"])
        elif state.get("terminated"):
            cm.update(st="exited", fin=_fin_from(state["terminated"]))
            latest = max(latest, cm["fin"]["finishedAt"])
        elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff" and last:
            cm["fin"] = cm.pop("last")
            cm.update(st="exited")
            latest = max(latest, cm["fin"]["finishedAt"])
        else:
            cm["st"] = "pending"
        for c in (pod.get("spec") or {}).get("initContainers") or []:
            if c["name"] == name:
                cm["hash"] = c.get("image")
        for c in (pod.get("spec") or {}).get("containers") or []:
            if c["name"] == name:
                cm["hash"] = c.get("image")
    for c in st.get("conditions") or []:
        ltt = parse_timestamp(c.get("lastTransitionTime"))
        if ltt is not None and ltt <= now:
            latest = max(latest, ltt)
    mem["t"] = min(max(latest, start), now)
    return mem


def _fin_from(term: dict) -> dict:
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
    events = _Events()
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
        others = [p for p in pods_on_node if p is not pod and _active(p)
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
    cur_inputs = _inputs(pod)
    old_inputs = mem.get("inputs")
    changed_inputs = old_inputs is not None and old_inputs != cur_inputs
    if changed_inputs and mem["t"] < now and not fresh:
        shadow = _with_inputs(pod, old_inputs)
        _Sim(shadow, node, mem, config, events).run(now)
        pod["status"] = shadow.get("status") or pod.get("status")
    mem["inputs"] = cur_inputs
    sim = _Sim(pod, node, mem, config, events)
    sim.adopt_recovered(mem["t"])
    md = pod.get("metadata") or {}
    if md.get("deletionTimestamp") and not mem.get("term"):
        dl = parse_timestamp(md["deletionTimestamp"]) or now
        grace = float(md.get("deletionGracePeriodSeconds") if md.get("deletionGracePeriodSeconds") is not None
                      else sim.grace())
        mem["term"] = {"at": max(min(dl - grace, now), mem["t"]), "grace": grace}
    if fresh or (changed_inputs and not mem.get("removed")):
        sim.step(now)
        sim.render(now)
    sim.run(now)
    if not mem.get("removed"):
        sim.render(mem["t"] if mem["t"] < now else now)
    events.flush(pod, record, host)
    remove = bool(mem.get("removed"))
    after = json.dumps(pod.get("status"), sort_keys=True, default=str)
    nxt = None if remove else sim.next_time()
    if nxt is not None and nxt <= now + EPS:
        nxt = now  # the step budget ran out: come back at once
    return SyncResult(before != after or fresh or remove, nxt, remove)


def _inputs(pod: dict) -> dict:
    from kubesim.kubelet.overrides import BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION

    ann = (pod.get("metadata") or {}).get("annotations") or {}
    spec = pod.get("spec") or {}
    return {"ann": {k: ann[k] for k in (BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION) if k in ann},
            "images": {c["name"]: c.get("image") for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])}}


def _with_inputs(pod: dict, inputs: dict) -> dict:
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


def _active(p: dict) -> bool:
    st = p.get("status") or {}
    return st.get("phase") not in ("Succeeded", "Failed") and bool(st.get("startTime"))


def resume_pod(pod: dict, node: dict, now: float, memory: dict) -> None:
    """The node's kubelet starts again at ``now`` after being stopped: containers that exited
    meanwhile are seen as exited, back-off and probe history are forgotten (a new kubelet
    process), and syncing continues from ``now``."""
    sim = _Sim(pod, node, memory, DEFAULT_CONFIG, _Events())
    t0 = memory.get("t", now)
    for name in sim.by_name:
        cm = sim.c(name)
        if cm.get("st") == "running" and cm.get("exitAt") is not None and cm["exitAt"] <= now:
            b = sim.b(name)
            sim.exit(name, cm["exitAt"], b.exit_code, b.terminated_reason())
        cm.pop("bo", None)
        cm.pop("boUpd", None)
        for ps in cm.get("pr", {}).values():
            ps.update(next=None, run=0, last=None, hold=False)
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

    b = derive_behaviour(c, config.image_defaults, pod_name=(pod.get("metadata") or {}).get("name", ""),
                         override=override_for(pod, name), start=started or 0.0)
    return log_lines(b, started or 0.0, until if until is not None else now)


__all__ = ["KubeletConfig", "SyncResult", "sync_pod", "start_termination", "memory_key", "logs",
           "resume_pod", "go_duration", "pod_ref", "kubelet_running"]
