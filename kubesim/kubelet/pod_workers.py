"""The simulated kubelet's pod worker: a pod's status as a function of its spec, its node, what
happened so far and the simulated time.

The engine calls, for every pod bound to a node whose kubelet runs, once per settle round::

    result = sync_pod(pod, node, pods_on_node, now, record, memory=mem)
    # result.changed: pod["status"] was rewritten; result.next_wake: when to call again;
    # result.remove: the pod finished terminating, delete it from the store

(A deleted pod arrives with the deletionTimestamp and deletionGracePeriodSeconds the API server
set: ``kubesim.apiserver.registry.core.pod.check_graceful_delete``.)

``memory`` is the kubelet's own bookkeeping for the pod (memory.py; a JSON-serialisable dict the
engine keeps beside the pod, keyed by :func:`memory_key`): back-off entries, probe counters, the
termination in progress. Without it (``None``) the kubelet rebuilds it from the stored status,
as a restarted kubelet does, losing back-off and probe history.

Time only moves by ``now``: one call jumps from the last synced time to ``now`` through every
exit, restart, back-off, probe and kill in between (a bounded event loop that skips whole
crash-loop cycles once they repeat), and records each event at the simulated time it happened.

Upstream: pkg/kubelet/pod_workers.go (one worker per pod, keyed by UID; it syncs the pod, then
the terminating pod once it is deleted, until the pod is terminated; a mirror pod's worker is
its static pod's), pkg/kubelet/kubelet.go (SyncPod; HandlePodAdditions and rejectPod: admission
on the first sync, ``Pod was rejected: <message>``; the pod IP from the network plugin, the host
IP from the node). A :class:`PodWorker` is made of one part per upstream room:
kuberuntime_manager.py (what SyncPod starts, restarts and kills; back-off),
kuberuntime_container.py (one container's start, hooks and kill), probe_workers.py (the probe
workers), crashloop.py (jumping over repeating crash-loop cycles) and kubelet_pods.py (the pod
status).
"""

from __future__ import annotations

import copy
import hashlib
import math
from typing import NamedTuple

from kubesim.api.nodes import kubelet_stopped
from kubesim.api.pods import MIRROR_POD_ANNOTATION, is_mirror_pod, qos_class
from kubesim.api.record import FrozenRecord
from kubesim.clock import parse_timestamp
from kubesim.kubelet import probes, status
from kubesim.kubelet.admission import admit
from kubesim.kubelet.behaviour import Behaviour, behaviour, canonical_text
from kubesim.kubelet.crashloop import CrashLoopSkipping
from kubesim.kubelet.envvars import with_field_refs
from kubesim.kubelet.format import EPS, format_time
from kubesim.kubelet.kubelet_pods import PodStatuses
from kubesim.kubelet.kuberuntime_container import ContainerRuntime
from kubesim.kubelet.kuberuntime_manager import ALIVE, RuntimeManager
from kubesim.kubelet.memory import new_memory, recover_memory
from kubesim.kubelet.node import internal_ip
from kubesim.kubelet.overrides import (
    BEHAVIOUR_ANNOTATION,
    PROBE_FAILURE_ANNOTATION,
    override_for,
)
from kubesim.kubelet.pods import allocate_ip
from kubesim.kubelet.probe_workers import ProbeWorkers
from kubesim.kubelet.recorder import EventRecorder

CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash"
DEFAULT_GRACE = 30


class KubeletConfig(FrozenRecord):
    """Timings of the simulated kubelet (upstream defaults)."""
    __slots__ = ("backoff_initial", "backoff_max", "image_defaults", "image_pull_seconds", "max_steps",
                 "minimum_grace", "sync_period")

    def __init__(self, backoff_initial: float = 10.0, backoff_max: float = 300.0, sync_period: float = 10.0,
                 image_pull_seconds: float = 0.0, minimum_grace: float = 2.0, max_steps: int = 200000,
                 image_defaults: dict | None = None):
        self.backoff_initial = backoff_initial          # kuberuntime backOffPeriod
        self.backoff_max = backoff_max                  # MaxContainerBackOff
        self.sync_period = sync_period                  # pod worker requeue after a sync error (BackOff events)
        self.image_pull_seconds = image_pull_seconds    # 0: every image is already present on every node
        self.minimum_grace = minimum_grace              # minimumGracePeriodInSeconds
        self.max_steps = max_steps                      # event-loop bound per call
        self.image_defaults = image_defaults            # replaces images.IMAGES


DEFAULT_CONFIG = KubeletConfig()


class SyncResult(NamedTuple):
    changed: bool
    next_wake: float | None
    remove: bool = False
    # the pod's status differs from what it was before the sync; None: not compared (a first
    # sync that keeps the pod is written whatever its status)
    status_changed: bool | None = False


def first_sync(mem: dict | None) -> bool:
    """Whether the kubelet's next sync of the pod with this memory is its first (admission runs,
    the pod gets its IP): no memory yet, or one without containers."""
    return mem is None or not mem.get("c")


def memory_key(pod: dict) -> str:
    """Where the engine keeps this pod's kubelet memory: a mirror pod's is its static pod's
    (the config hash), so deleting and recreating the mirror pod keeps the containers running."""
    md = pod.get("metadata") or {}
    ann = md.get("annotations") or {}
    if ann.get(MIRROR_POD_ANNOTATION):
        return "static:" + (ann.get(CONFIG_HASH_ANNOTATION) or ann[MIRROR_POD_ANNOTATION])
    return md.get("uid") or f"{md.get('namespace')}/{md.get('name')}"


def container_id(pod: dict, name: str, instance: int) -> str:
    """The runtime's ID of the ``instance``-th container ``name`` of the pod: stable, unique."""
    uid = (pod.get("metadata") or {}).get("uid") or memory_key(pod)
    return "containerd://" + hashlib.sha256(f"{uid}/{name}/{instance}".encode()).hexdigest()


class PodWorker(ContainerRuntime, RuntimeManager, ProbeWorkers, CrashLoopSkipping, PodStatuses):
    """One pod's worker for one sync: the pod, its node, the kubelet's memory of it (updated in
    place), the config and the events recorded; its parts (the base classes) share what
    ``__init__`` derives from the spec."""

    def __init__(self, pod: dict, node: dict, memory: dict, config: KubeletConfig, events: EventRecorder):
        self.pod, self.node, self.memory, self.config, self.events = pod, node, memory, config, events
        spec = pod.get("spec") or {}
        self.spec = spec
        self.restart_policy = spec.get("restartPolicy") or "Always"
        self.init_containers = list(spec.get("initContainers") or [])
        self.containers = list(spec.get("containers") or [])
        self.container_specs = {c["name"]: c for c in self.init_containers + self.containers}
        self.container_type = {}  # name -> "init" | "sidecar" | "app"
        for c in self.init_containers:
            self.container_type[c["name"]] = "sidecar" if status.is_sidecar(c) else "init"
        for c in self.containers:
            self.container_type[c["name"]] = "app"
        self.field_path = {c["name"]: f"spec.initContainers{{{c['name']}}}" for c in self.init_containers}
        self.field_path.update({c["name"]: f"spec.containers{{{c['name']}}}" for c in self.containers})
        self.pod_name = (pod.get("metadata") or {}).get("name", "")
        self.is_mirror = is_mirror_pod(pod)
        self._behaviours: dict[str, Behaviour] = {}
        self._probe_answers: dict[tuple, list] = {}
        self.probe_specs = {n: probes.probe_specs(c) for n, c in self.container_specs.items()}
        self.steps_taken = 0
        self.synced_from = memory.get("t", 0.0)
        self.get_object = None  # get(kind, namespace, name): the objects a container's config reads
        self.network = None  # network(pod, argv) -> (stdout, stderr, code): the cluster network's answers
        self.images = None  # the node's images (image_service.NodeImages); None: every image present

    # ---- derived data
    def behaviour_of(self, name: str) -> Behaviour:
        if name not in self._behaviours:
            spec = with_field_refs(self.container_specs[name], self.pod)
            if self.get_object is not None:
                from kubesim.kubelet.kubelet_pods import with_resolved_env

                spec = with_resolved_env(self.pod, spec, self.get_object)
            net = self.network
            self._behaviours[name] = behaviour(spec, self.config.image_defaults,
                                               pod_name=self.pod_name, override=override_for(self.pod, name),
                                               network=(lambda argv: net(self.pod, argv)) if net else None)
        return self._behaviours[name]

    def termination_grace_period(self) -> float:
        tg = self.spec.get("terminationGracePeriodSeconds")
        return float(DEFAULT_GRACE if tg is None else tg)

    def record_of(self, name: str) -> dict:
        """The memory record of container ``name`` (memory.py)."""
        return self.memory["c"][name]

    def container_id(self, name: str, instance: int) -> str:
        return container_id(self.pod, name, instance)

    def adopt_recovered_containers(self, t: float):
        """Containers found running in a stored status (memory rebuilt): their exit time and
        fresh probe workers."""
        for name in self.container_specs:
            record = self.record_of(name)
            if not record.pop("recovered", False):
                continue
            derived = self.behaviour_of(name)
            record["exitAt"] = None if derived.exits_after is None else record["start"] + derived.exits_after
            record["pr"] = {kind: {"run": 0, "last": None, "hold": False, "next": None,
                                   "res": {"readiness": "S" if record.get("ready") else "F", "liveness": "S",
                                           "startup": "S" if record.get("started") else None}[kind]}
                            for kind in self.probe_specs[name]}
            if record["exitAt"] is not None and record["exitAt"] < t:
                record["exitAt"] = t
            self.schedule_probes(name, t)

    # ---- timers
    def container_wake_time(self, name: str) -> float | None:
        """The next moment something happens to container ``name`` by itself (None: nothing)."""
        record = self.record_of(name)
        state = record.get("st")
        times = []
        if state in ("pulling", "hook", "backoff", "pullerr", "configerr") and record.get("until") is not None:
            times.append(record["until"])
        if state == "pullerr" and record.get("since") is not None \
                and record["since"] + self.config.sync_period < record["until"] - EPS and not record.get("ipbo"):
            times.append(record["since"] + self.config.sync_period)
        if record.get("rce") and record["rce"][0] > self.memory.get("t", 0.0) + EPS:
            times.append(record["rce"][0])  # RunContainerError gives way to CrashLoopBackOff
        if state in ALIVE:
            if record.get("exitAt") is not None:
                times.append(record["exitAt"])
            if record.get("kill"):
                times.append(record["kill"]["exitAt"])
        if state == "running":
            for kind in record.get("pr", {}):
                change_at = self.scan_probe(name, kind, math.inf, apply=False)
                if change_at is not None:
                    times.append(change_at)
        return min(times) if times else None

    def next_wake_time(self) -> float | None:
        times = [x for x in (self.container_wake_time(n) for n in self.container_specs) if x is not None]
        term = self.memory.get("term")
        if term and not term.get("begun"):
            times.append(term["at"])
        return min(times) if times else None

    # ---- simulated time
    def step_to(self, t: float):
        """Everything that happens at ``t``: exits, probe results, timers that end, then SyncPod
        until nothing more changes."""
        for name in self.container_specs:
            self.flush_probe_ticks(name, t - EPS * 10)
            self.flush_waiting_events(name, t)
        # processes that end now
        for name in self.container_specs:
            record = self.record_of(name)
            if record.get("st") not in ALIVE:
                continue
            kill = record.get("kill")
            natural = record.get("exitAt")
            if natural is not None and natural <= t + EPS and (not kill or natural <= kill["exitAt"] + EPS):
                derived = self.behaviour_of(name)
                self.container_exited(name, t, derived.exit_code, derived.terminated_reason())
            elif kill and kill["exitAt"] <= t + EPS:
                code = kill["code"]
                self.container_exited(name, t, code, "Completed" if code == 0 else "Error")
        # probe results that change now
        for name in self.container_specs:
            self.apply_probe_results(name, t)
        # timers
        for name in self.container_specs:
            record = self.record_of(name)
            state = record.get("st")
            if state == "pullerr" and not record.get("ipbo") \
                    and record["since"] + self.config.sync_period <= t + EPS < record["until"]:
                record["ipbo"] = True
            if record.get("until") is None or record["until"] > t + EPS:
                continue
            if state == "pulling":
                self.image_pulled(name, t)
            elif state == "hook":
                if record.get("hookok", True):
                    self.container_running(name, t)
                else:
                    self.events.add(t, "Warning", "FailedPostStartHook", "PostStartHook failed", self.field_path[name])
                    record["st"] = "running"
                    self.kill_container(name, t, "FailedPostStartHook", self.restart_policy != "Never",
                                        self.termination_grace_period())
            elif state == "backoff":
                record["st"] = "exited"
                if self.memory.get("term") or self.memory.get("done"):
                    continue
                self.restart_container(name, t)
            elif state == "pullerr":
                record["ipbo"] = False
                if self.memory.get("term"):
                    record["st"] = "stopped"
                    continue
                self.start_container(name, t)
            elif state == "configerr":
                # the pod worker's requeue after the failed sync: the start is tried again
                if self.memory.get("term"):
                    record["st"] = "stopped"
                    continue
                self.start_container(name, t)
        # the kubelet syncs until nothing more happens at t
        for _ in range(4 * len(self.container_specs) + 4):
            if not self.sync_containers(t):
                break
        self.memory["t"] = t

    def run_until(self, now: float) -> bool | None:
        """Step from one wake time to the next up to ``now`` (at most ``config.max_steps``).
        None when it took no step; False when the step budget ran out after one; True when the
        status it generated last is the pod's status at ``now`` too: nothing was due between,
        the status depends on the time only through what next_wake_time wakes for (the end of
        a RunContainerError), and what is flushed after the last step is not in it."""
        stepped = None
        while True:
            self.steps_taken += 1
            if self.steps_taken > self.config.max_steps:
                if stepped:
                    stepped = False  # (the status may be behind ``now``)
                break
            wake = self.next_wake_time()
            if wake is None or wake > now + EPS:
                break
            wake = max(wake, self.memory["t"])
            self.step_to(wake)
            self.generate_pod_status(wake)
            stepped = True
            if self.memory.get("removed"):
                return stepped
            for name in self.container_specs:
                cycles = self.record_of(name).get("cycs")
                if cycles and abs(cycles[-1]["start"] - wake) < EPS and self.skip_repeating_cycles(name, now):
                    self.generate_pod_status(self.memory["t"])
        for name in self.container_specs:
            self.flush_probe_ticks(name, now)
            self.flush_waiting_events(name, now)
        self.memory["t"] = max(self.memory["t"], now)
        return stepped


# --------------------------------------------------------------------------------------------
# the entry points


def kubelet_running(node: dict) -> bool:
    return not kubelet_stopped(node)


def sync_pod(pod: dict, node: dict, pods_on_node: list[dict], now: float, record=None, *,
             memory: dict | None = None, config: KubeletConfig = DEFAULT_CONFIG, get=None,
             network=None, images=None) -> SyncResult:
    """Bring ``pod`` (bound to ``node``) to simulated time ``now``; see the module docstring.

    ``pods_on_node`` are the other pods bound to the node (for admission and the pod IP).
    ``record`` is called as ``record(pod, type, reason, message, "kubelet", node_name,
    field_path[, at=..., first=..., count=...])`` for every event, in time order. ``memory``
    is updated in place (pass the same dict next time). ``get(kind, namespace, name)`` reads
    the ConfigMaps and Secrets a container's environment needs (None: every one exists).
    ``images`` is the node's image_service.NodeImages, updated in place as images are pulled
    (None: every image is present, unless ``config.image_pull_seconds`` is set)."""
    if not kubelet_running(node):
        return SyncResult(False, None, False)
    # (encoded only where it is compared, below: nothing here changes the dict in place, a
    # status is generated anew)
    old_status = pod.get("status")
    events = EventRecorder()
    host = (node.get("metadata") or {}).get("name", "")
    mem = memory
    fresh = False
    if first_sync(mem):
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
    inputs = _user_inputs(pod)
    old_inputs = mem.get("inputs")
    inputs_changed = old_inputs is not None and old_inputs != inputs
    if inputs_changed and mem["t"] < now and not fresh:
        shadow = _with_user_inputs(pod, old_inputs)
        shadow_worker = PodWorker(shadow, node, mem, config, events)
        shadow_worker.images = images
        shadow_worker.run_until(now)
        pod["status"] = shadow.get("status") or pod.get("status")
    mem["inputs"] = inputs
    worker = PodWorker(pod, node, mem, config, events)
    worker.get_object = get
    worker.network = network
    worker.images = images
    worker.adopt_recovered_containers(mem["t"])
    md = pod.get("metadata") or {}
    if md.get("deletionTimestamp") and not mem.get("term"):
        deadline = parse_timestamp(md["deletionTimestamp"]) or now
        grace = float(md.get("deletionGracePeriodSeconds") if md.get("deletionGracePeriodSeconds") is not None
                      else worker.termination_grace_period())
        mem["term"] = {"at": max(min(deadline - grace, now), mem["t"]), "grace": grace}
    generated = fresh or (inputs_changed and not mem.get("removed"))
    if generated:
        worker.step_to(now)
        worker.generate_pod_status(now)
    # the status is generated again at ``now`` unless the one generated last is the same (see
    # run_until; after no step, what it flushes, probe ticks and resync events, is not in it)
    stepped = worker.run_until(now)
    if not mem.get("removed") and (stepped is False or stepped is None and not generated):
        worker.generate_pod_status(min(now, mem["t"]))
    events.flush(pod, record, host)
    remove = bool(mem.get("removed"))
    status_changed = None  # (a first sync that keeps the pod: written in any case)
    if remove or not fresh:
        status_changed = _status_differs(old_status, pod.get("status"))
    wake = None if remove else worker.next_wake_time()
    if wake is not None and wake <= now + EPS:
        wake = now  # the step budget ran out: come back at once
    return SyncResult(bool(status_changed) or fresh or remove, wake, remove, status_changed)


def _status_differs(old, new) -> bool:
    """Whether the two statuses' ``canonical_text`` differ. Two whose phases are strings and
    differ do (the text of each holds its phase as it is, a string's text is its own), without
    encoding either: the sync that starts a pod's containers, most of a bulk apply's second."""
    if type(old) is dict and type(new) is dict:
        a, b = old.get("phase"), new.get("phase")
        if type(a) is str and type(b) is str and a != b:
            return True
    return canonical_text(old) != canonical_text(new)


def _user_inputs(pod: dict) -> dict:
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    spec = pod.get("spec") or {}
    return {"ann": {k: ann[k] for k in (BEHAVIOUR_ANNOTATION, PROBE_FAILURE_ANNOTATION) if k in ann},
            "images": {c["name"]: c.get("image") for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])}}


def _with_user_inputs(pod: dict, inputs: dict) -> dict:
    """A copy of ``pod`` with the annotations and images of an earlier sync."""
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
    worker = PodWorker(pod, node, memory, DEFAULT_CONFIG, EventRecorder())
    synced_to = memory.get("t", now)
    for name in worker.container_specs:
        record = worker.record_of(name)
        if record.get("st") == "running" and record.get("exitAt") is not None and record["exitAt"] <= now:
            derived = worker.behaviour_of(name)
            worker.container_exited(name, record["exitAt"], derived.exit_code, derived.terminated_reason())
        if record.get("st") == "backoff":
            # the back-off was the old process's: it ends now, and the restart finds no entry
            record["until"] = now
        record.pop("bo", None)
        record.pop("boUpd", None)
        for probe in record.get("pr", {}).values():
            probe.update(next=None, run=0, last=None, hold=False)
    memory["t"] = max(synced_to, now)
