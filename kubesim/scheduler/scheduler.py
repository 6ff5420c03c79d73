"""The engine-facing scheduler: its profiles, its view of the cluster, and the entry points.

Upstream: pkg/scheduler/scheduler.go (``New``: one framework per profile of the
KubeSchedulerConfiguration, keyed by schedulerName, profile errors worded "initializing
profiles: creating profile for scheduler name X: ..."; the pod informer's filters: assigned
non-terminal pods fill the cache, unassigned ones are queued when a profile is responsible for
their schedulerName; the nominator fed from status.nominatedNodeName), pkg/scheduler/profile/
profile.go, pkg/scheduler/backend/cache (the cache, here a snapshot built once per command from
all nodes and pods) and pkg/scheduler/schedule_one.go (``ScheduleOne``, in
kubesim/scheduler/schedule_one.py). ``explain`` evaluates a pod without committing anything
(DESIGN §3.5, kubesim/scheduler/explain.py). Each profile's queueing hints are gathered as
scheduler.go's ``buildQueueingHintMap`` does, and ``unionedGVKs`` names the resources whose
events the scheduler watches (eventhandlers.go ``addAllEventHandlers``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kubesim.gcpause import collector_paused
from kubesim.scheduler import config as schedconfig
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.events import ClusterEvent
from kubesim.scheduler.framework.interface import Handle, contextual_kvs
from kubesim.scheduler.framework.runtime import Framework, FrameworkError
from kubesim.scheduler.framework.snapshot import TERMINAL_PHASES, Snapshot
from kubesim.scheduler.framework.types import PodInfo, pod_key
from kubesim.scheduler.plugins.registry import IN_TREE_PLUGINS, REGISTRY
from kubesim.scheduler.queue import PriorityQueue, QueueingHintMap
from kubesim.scheduler.schedule_one import ScheduleOne, ScheduleResult

LogFn = Callable[[int, str, str, dict], None]


class Scheduler(ScheduleOne):
    """kube-scheduler for one command: the profiles, the cache and the rotating start index;
    the scheduling cycle is :class:`~kubesim.scheduler.schedule_one.ScheduleOne`'s."""

    def __init__(self, config: dict | None, rng: random.Random, log: LogFn | None = None, *,
                 verbosity: int | None = None, explain: bool = True) -> None:
        """``config``: a KubeSchedulerConfiguration dict (None: defaults). ``log(level, site,
        message, kv)`` receives klog lines up to ``verbosity`` (all when None). ``explain=False``
        skips building explanations during ``schedule_one`` (for throughput runs)."""
        self.config = schedconfig.load(config)
        self.rng = rng
        self._log = log
        self.verbosity = verbosity
        self.explain_enabled = explain
        self.snapshot = Snapshot()
        self.handle = Handle(self.snapshot, log=self._emit if log is not None else None)
        self.handle.v = self._v
        self.profiles: dict[str, Framework] = {}
        for prof in self.config["profiles"]:
            name = prof.get("schedulerName") or ""
            try:
                self.profiles[name] = Framework(prof, REGISTRY, self.handle, IN_TREE_PLUGINS)
            except FrameworkError as e:
                raise schedconfig.ConfigError([
                    f"initializing profiles: creating profile for scheduler name {name}: {e}"
                ]) from None
        self.percentage_of_nodes_to_score: int = int(
            self.config.get("percentageOfNodesToScore") or 0)
        self.next_start_node_index = 0
        self.nominated: dict[str, list[PodInfo]] = {}
        self._pod_info_cache: dict[str, tuple[str, PodInfo]] = {}
        self.queueing_hint_map: QueueingHintMap = {
            name: build_queueing_hint_map(fwk.enqueue_extensions)
            for name, fwk in self.profiles.items()}
        # resource -> the action types some plugin registered (the informers to watch)
        self.gvk_map: dict[str, int] = unioned_gvks(self.queueing_hint_map)

    # -- logging ---------------------------------------------------------------------------
    def _v(self, level: int) -> bool:
        return self._log is not None and (self.verbosity is None or level <= self.verbosity)

    def _emit(self, level: int, site: str, message: str, kv: dict) -> None:
        if self._v(level):
            h = self.handle
            if h.log_name or h.log_values:
                kv = contextual_kvs(h.log_name, h.log_values, kv)
            self._log(level, site, message, kv)  # type: ignore[misc]

    # -- cache -----------------------------------------------------------------------------
    def _pod_info(self, pod: dict) -> PodInfo:
        meta = pod.get("metadata") or {}
        rv = meta.get("resourceVersion")
        if rv:
            key = meta.get("uid") or pod_key(pod)
            hit = self._pod_info_cache.get(key)
            if hit is not None and hit[0] == rv and hit[1].pod is pod and hit[1].node_name == (
                    (pod.get("spec") or {}).get("nodeName") or ""):
                return hit[1]
            pi = PodInfo(pod)
            self._pod_info_cache[key] = (rv, pi)
            return pi
        return PodInfo(pod)

    def set_cluster(self, nodes: list[dict], pods: list[dict]) -> None:
        """All nodes and all pods; assigned, non-terminal pods fill the nodes."""
        with collector_paused(freeze=True):
            # Snapshot.build(nodes, assigned pods), with the pods appended to their nodes as
            # they are read.
            snapshot = Snapshot.of_nodes(nodes)
            node_info_map = snapshot.node_info_map
            nominated: dict[str, list[PodInfo]] = {}
            pod_info = self._pod_info
            for p in pods:
                status = p.get("status")
                if status and status.get("phase") in TERMINAL_PHASES:  # is_terminal_pod
                    continue
                spec = p.get("spec") or {}
                node_name = spec.get("nodeName")
                if node_name:
                    pi = pod_info(p)
                    ni = node_info_map.get(node_name)
                    if ni is not None:
                        ni.pods.append(pi)
                    continue
                nnn = (p.get("status") or {}).get("nominatedNodeName")
                if nnn and self.responsible_for(p):
                    nominated.setdefault(nnn, []).append(pod_info(p))
            snapshot.account_appended_pods()
            self.snapshot = snapshot
            self.handle.snapshot = self.snapshot
            self.nominated = nominated
            self.handle.nominated = nominated

    def use_snapshot(self, snapshot: Snapshot, pending: list[dict]) -> None:
        """``set_cluster`` with the assigned pods already in ``snapshot`` (built from the
        scheduler's cache, kubesim/scheduler/framework/cache.py): ``pending`` are the unassigned
        pods, whose nominations fill the nominator."""
        nominated: dict[str, list[PodInfo]] = {}
        for p in pending:
            status = p.get("status")
            if status and status.get("phase") in TERMINAL_PHASES:
                continue
            nnn = (status or {}).get("nominatedNodeName")
            if nnn and not (p.get("spec") or {}).get("nodeName") and self.responsible_for(p):
                nominated.setdefault(nnn, []).append(self._pod_info(p))
        self.snapshot = snapshot
        self.handle.snapshot = snapshot
        self.nominated = nominated
        self.handle.nominated = nominated

    def responsible_for(self, pod: dict) -> bool:
        name = (pod.get("spec") or {}).get("schedulerName") or schedconfig.DEFAULT_SCHEDULER_NAME
        return name in self.profiles

    def framework_for(self, pod: dict) -> Framework | None:
        name = (pod.get("spec") or {}).get("schedulerName") or schedconfig.DEFAULT_SCHEDULER_NAME
        return self.profiles.get(name)

    def pre_enqueue(self, pod: dict) -> tuple[str, str] | None:
        """For the queue: None, or (plugin, message) when a PreEnqueue plugin gates the pod."""
        fwk = self.framework_for(pod)
        if fwk is None:
            return None
        s = fwk.run_pre_enqueue_plugins(self._pod_info(pod))
        if s is None:
            return None
        return s.plugin, s.message()

    def queue_sort_less(self):
        fwk = next(iter(self.profiles.values()))
        return fwk.queue_sort_less()

    def new_queue(self, saved: dict | None = None, pods: dict[str, dict] | None = None,
                  log=None) -> PriorityQueue:
        """The scheduling queue for these profiles (``NewSchedulingQueue``): the first profile's
        QueueSort, every profile's PreEnqueue plugins and queueing hints, the configured
        backoffs; filled from ``saved`` (``PriorityQueue.to_dict``) when given."""
        q = PriorityQueue(
            less=self.queue_sort_less(), pre_enqueue=self.pre_enqueue,
            queueing_hint_map=self.queueing_hint_map,
            pod_initial_backoff_seconds=float(self.config.get("podInitialBackoffSeconds", 1)),
            pod_max_backoff_seconds=float(self.config.get("podMaxBackoffSeconds", 10)),
            log=log, verbosity=self.verbosity,
            default_profile=schedconfig.DEFAULT_SCHEDULER_NAME)
        if saved:
            q.load(saved, pods)
        return q

    # -- entry points ----------------------------------------------------------------------
    def schedule_one(self, pod: dict, now: float, queue_position: int = 0) -> ScheduleResult:
        """One scheduling cycle for ``pod``; ``queue_position`` (1 = first) is where the
        queue's QueueSort put it among the pods popped in this round, for the trace."""
        h = self.handle
        if self._log is not None:
            # ScheduleOne's logger carries the pod (klog.LoggerWithValues(logger, "pod", ...))
            meta = pod.get("metadata") or {}
            h.log_values = {"pod": f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"}
        try:
            return self._cycle(pod, now, commit=True, queue_position=queue_position)
        finally:
            h.log_name, h.log_values = "", {}

    def explain(self, pod: dict, now: float) -> dict:
        return self._cycle(pod, now, commit=False).explanation


# -- queueing hints (scheduler.go) -------------------------------------------------------------
def build_queueing_hint_map(enqueue_extensions: list[tuple[str, list[ev.ClusterEventWithHint]]]
                            ) -> list[tuple[ClusterEvent, list[tuple[str, Callable | None]]]]:
    """``buildQueueingHintMap`` for one profile: event -> [(plugin, hint)]. A
    plugin registering Node/Add without Node/UpdateNodeTaint also gets UpdateNodeTaint with the
    default hint (always Queue), as upstream does (kubernetes#109437). A plugin registering
    nothing is left out: only its pods' own updates can move them."""
    order: list[ClusterEvent] = []
    fns: dict[ClusterEvent, list[tuple[str, Callable | None]]] = {}

    def register(event: ClusterEvent, plugin: str, fn) -> None:
        if event not in fns:
            fns[event] = []
            order.append(event)
        fns[event].append((plugin, fn))

    for plugin, events in enqueue_extensions:
        if not events:
            continue
        node_added = node_taint = False
        for e in events:
            if e.event.resource == ev.NODE:
                node_added = node_added or bool(e.event.action_type & ev.ADD)
                node_taint = node_taint or bool(e.event.action_type & ev.UPDATE_NODE_TAINT)
            register(e.event, plugin, e.hint_fn)
        if node_added and not node_taint:
            register(ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT), plugin, None)
    return [(e, fns[e]) for e in order]


def unioned_gvks(hint_map: QueueingHintMap) -> dict[str, int]:
    """``unionedGVKs``: resource -> the union of the action types registered for it."""
    out: dict[str, int] = {}
    for entries in hint_map.values():
        for event, _ in entries:
            out[event.resource] = out.get(event.resource, 0) | event.action_type
    return out
