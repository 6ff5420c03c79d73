"""The scheduler's turn in the settle loop: queue the pending pods, schedule the ready ones,
and write back what kube-scheduler and the API server would.

What a real cluster writes, and where kubesim writes it:
- binding (pods/binding, pkg/registry/core/pod/storage/storage.go setPodHostAndAnnotations):
  ``spec.nodeName`` and the PodScheduled=True condition;
- a failed attempt (schedule_one.go handleSchedulingFailure / updatePod): PodScheduled=False with
  reason Unschedulable (or SchedulerError) and the FailedScheduling message, plus the event;
- events: ``Scheduled`` / ``FailedScheduling`` from ``default-scheduler``.

The scheduling queue (backoff, unschedulable pool) survives between commands in the state's
metadata, keyed by pod; "a cluster event" is a write of a kind the scheduler watches
(``WATCHED_KINDS``) since it last looked, which moves unschedulable pods back (to backoff while
their backoff lasts), as upstream does without queueing hints; a pending pod's own update
requeues it only when more than its status changed (queue.py ``pod_update_digest``). Each attempt's explanation (DESIGN §3.5) is kept for ``explain-schedule``.
"""

from __future__ import annotations

from kubesim.apiserver.context import Cluster
from kubesim.errors import StatusError

# Full per-node explanations cost (nodes × plugins) work and storage per attempt. One command
# records at most this many node entries in full (a pod on 5,000 nodes is 5,000); attempts past
# the budget, as in a bulk apply of thousands of pods, are recorded as a summary, and
# explain-schedule evaluates those afresh (and says so).
EXPLAIN_NODE_BUDGET = 100_000
SUMMARY_MARK = "kubesim.io/explanation"

# The kinds whose changes are cluster events for the scheduling queue (the informers
# kube-scheduler's plugins register events for: eventhandlers.go). Writes of other kinds —
# Events, ReplicaSets, Deployments, PDBs — never move unschedulable pods.
WATCHED_KINDS = ("Pod", "Node", "Namespace", "PersistentVolume", "PersistentVolumeClaim",
                 "StorageClass", "CSINode")

QUEUE_META = "scheduler.queue"
SEEN_META = "scheduler.seenResourceVersion"
CONFIG_META = "scheduler.config"
EXPLANATION_KIND = "ScheduleExplanation"  # stored beside the objects, never served by `get`


def is_pending(pod: dict) -> bool:
    spec = pod.get("spec") or {}
    st = pod.get("status") or {}
    return not spec.get("nodeName") and not (pod.get("metadata") or {}).get("deletionTimestamp") \
        and st.get("phase", "Pending") == "Pending"


def _key(pod: dict) -> str:
    from kubesim.scheduler.framework.types import (
        pod_key,  # the queue's own key (the uid)
    )

    return pod_key(pod)


START_INDEX_META = "scheduler.nextStartNodeIndex"


def make_scheduler(cluster: Cluster, explain: bool = True):
    """A Scheduler for this command, with the informer-style views its plugins use."""
    from kubesim.scheduler.scheduler import Scheduler

    log = cluster.log
    s = Scheduler(cluster.store.meta(CONFIG_META), cluster.rng, log if log.verbosity > 0 else None,
                  verbosity=log.verbosity, explain=explain)
    store = cluster.store
    s.handle.namespace_labels = namespace_labels(cluster)
    s.handle.list_objects = lambda kind, ns: store.list(kind, ns)
    s.handle.get_object = store.get
    s.next_start_node_index = int(store.meta(START_INDEX_META, 0) or 0)
    return s



def namespace_labels(cluster: Cluster) -> dict[str, dict]:
    return {ns["metadata"]["name"]: ns["metadata"].get("labels") or {} for ns in cluster.store.list("Namespace")}


def step(cluster: Cluster) -> bool:
    store = cluster.store
    saved = store.meta(QUEUE_META)
    unbound = store.pod_keys_on_node("")  # from the index: no pod bodies loaded
    if not unbound and not saved:
        return False
    pods = list(store.iter_kind("Pod"))
    pending = {_key(p): p for p in pods if is_pending(p)}
    if not pending and not saved:
        return False
    from kubesim.scheduler.queue import SchedulingQueue

    now = cluster.now()
    scheduler = make_scheduler(cluster)
    mine = {k: p for k, p in pending.items() if scheduler.responsible_for(p)}
    less = scheduler.queue_sort_less()
    queue = SchedulingQueue.from_dict(saved, less=less, pre_enqueue=scheduler.pre_enqueue, pods=mine) \
        if saved else SchedulingQueue(less=less, pre_enqueue=scheduler.pre_enqueue)
    queue.initial_backoff = float(scheduler.config.get("podInitialBackoffSeconds", 1))
    queue.max_backoff = float(scheduler.config.get("podMaxBackoffSeconds", 10))
    seen = store.meta(SEEN_META)
    if seen is not None and max(store.kind_resource_version(k) for k in WATCHED_KINDS) > int(seen):
        queue.move_all_to_active_or_backoff(now)
    for p in mine.values():
        queue.add(p, now)
    ready = queue.pop_all_ready(now)
    changed = False
    if ready:
        nodes = store.list("Node")
        scheduler.set_cluster(nodes, pods)
        budget = EXPLAIN_NODE_BUDGET
        for pod in ready:
            scheduler.explain_enabled = budget >= len(nodes)
            if scheduler.explain_enabled:
                budget -= len(nodes)
            result = scheduler.schedule_one(pod, now)
            _write_back(cluster, pod, result, full=scheduler.explain_enabled)
            if result.outcome == "Scheduled":
                queue.done(_key(pod))
            elif result.outcome == "Error":
                queue.add_error(pod, now)
            else:
                queue.add_unschedulable(pod, now, result.unschedulable_plugins)
            changed = True
    _save_queue(store, queue)
    store.set_meta(START_INDEX_META, scheduler.next_start_node_index)
    store.set_meta(SEEN_META, int(store.meta("resourceVersion", 0)))
    t = queue.next_event_time()
    if t is not None:
        cluster.wake_at(t)
    return changed


def _save_queue(store, queue) -> None:
    d = queue.to_dict()
    for e in d["entries"]:
        md = e["pod"]["metadata"]
        e["pod"] = {"metadata": {k: md[k] for k in ("namespace", "name", "uid") if k in md}}
    store.set_meta(QUEUE_META, d if d["entries"] else None)


def _set_condition(pod: dict, cond: dict, now: str) -> None:
    """UpdatePodCondition: lastTransitionTime moves only when the status changes. The condition
    carries the pod's generation as observedGeneration (PodObservedGenerationTracking, GA in
    v1.35: CalculatePodConditionObservedGeneration), as the binding and the scheduler's failure
    handling write it."""
    gen = (pod.get("metadata") or {}).get("generation")
    if gen:
        cond = dict(cond, observedGeneration=gen)
    st = pod.setdefault("status", {})
    conds = st.setdefault("conditions", [])
    for i, c in enumerate(conds):
        if c.get("type") == cond["type"]:
            new = dict(cond)
            new["lastTransitionTime"] = c.get("lastTransitionTime") if c.get("status") == cond["status"] else now
            if c.get("lastTransitionTime") is None:
                new["lastTransitionTime"] = now
            conds[i] = new
            return
    new = dict(cond)
    new["lastTransitionTime"] = now
    conds.append(new)


def _write_back(cluster: Cluster, pod: dict, result, full: bool = True) -> None:
    store = cluster.store
    now = cluster.stamp()
    nominated_before = (pod.get("status") or {}).get("nominatedNodeName")
    if result.outcome == "Scheduled":
        from kubesim.apiserver.registry.core.pod import bind

        bind(pod, result.node, store.get("Node", "", result.node))
        _set_condition(pod, {"lastProbeTime": None, "status": "True", "type": "PodScheduled"}, now)
        pod["status"].pop("nominatedNodeName", None)
    elif result.outcome in ("Unschedulable", "Error"):
        _set_condition(pod, {"lastProbeTime": None, "message": result.message,
                             "reason": result.reason or ("SchedulerError" if result.outcome == "Error" else "Unschedulable"),
                             "status": "False", "type": "PodScheduled"}, now)
        if result.nominated_node is not None:
            if result.nominated_node:
                pod["status"]["nominatedNodeName"] = result.nominated_node
            else:
                pod["status"].pop("nominatedNodeName", None)
    apply_writes(cluster, result.writes)
    store.put(pod)
    for ev in result.events:
        cluster.record(pod, ev.get("type", "Normal"), ev["reason"], ev["message"], "default-scheduler",
                       action=ev["action"])
    explanation = result.explanation
    if nominated_before and explanation:
        explanation = _with_earlier_preemption(cluster, pod, explanation, nominated_before,
                                               result)
    save_explanation(cluster, pod, explanation, full)


def _with_earlier_preemption(cluster: Cluster, pod: dict, explanation: dict, node: str,
                             result) -> dict:
    """Keep the analysis of the preemption that nominated ``node`` (marked ``earlierAttempt``),
    so explain-schedule still shows why room was made: when the pod lands there, and while it
    waits for the victims ("not eligible due to a terminating pod on the nominated node.")."""
    pre_now = explanation.get("preemption")
    if result.outcome == "Scheduled":
        if result.node != node or pre_now is not None:
            return explanation
    elif not (pre_now and pre_now.get("eligible") is False
              and "terminating pod on the nominated node" in (pre_now.get("reason") or "")):
        return explanation
    md = pod["metadata"]
    old = load_explanation(cluster, md.get("namespace", ""), md["name"])
    pre = (old[0].get("preemption") if old else None) or None
    if pre and pre.get("earlier"):
        pre = pre["earlier"]
    if not pre or pre.get("chosen") != node:
        return explanation
    earlier = {k: v for k, v in pre.items() if k != "earlierAttempt"}
    earlier["earlierAttempt"] = True
    out = dict(explanation)
    if result.outcome == "Scheduled":
        out["preemption"] = earlier
    else:
        out["preemption"] = dict(pre_now, earlier=earlier)
    return out


def apply_writes(cluster: Cluster, writes: list[dict]) -> bool:
    """Carry out what the scheduler's plugins asked of the API server (Handle.request)."""
    if not writes:
        return False
    from kubesim.controllers.base import Change, Event
    from kubesim.controlplane.components import apply_changes

    changes = [Change(w["op"], w["obj"], events=[Event(w["obj"], t, r, m, "default-scheduler", action, related)
                                                 for t, r, action, m, related in w.get("events") or ()])
               for w in writes]
    return apply_changes(cluster, changes)


def save_explanation(cluster: Cluster, pod: dict, explanation: dict, full: bool = True) -> None:
    if not explanation:
        return
    md = pod["metadata"]
    obj = dict(explanation)
    obj["kind"] = EXPLANATION_KIND
    obj["metadata"] = {"name": md["name"], "namespace": md.get("namespace", "")}
    if not full:
        obj["nodes"] = {}
        obj["metadata"]["annotations"] = {SUMMARY_MARK: "summary"}
    cluster.store.put(obj)


def load_explanation(cluster: Cluster, namespace: str, name: str) -> tuple[dict, bool] | None:
    """The recorded explanation and whether it is complete (False: a summary without nodes)."""
    obj = cluster.store.get(EXPLANATION_KIND, namespace, name)
    if obj is None:
        return None
    out = {k: v for k, v in obj.items() if k != "metadata"}
    out["kind"] = EXPLANATION_KIND
    full = ((obj.get("metadata") or {}).get("annotations") or {}).get(SUMMARY_MARK) != "summary"
    return out, full


# -- the scheduler's configuration (kubesim.io: applied like a manifest, DESIGN §1.3) --------

def apply_scheduler_configuration(cluster: Cluster, cfg: dict) -> str:
    """Store a KubeSchedulerConfiguration as the cluster's, refusing what kube-scheduler would
    refuse to start with (validation, then building every profile's framework); what happened:
    ``created``, ``configured`` or ``unchanged``."""
    from kubesim.scheduler import config as schedconfig
    from kubesim.scheduler.scheduler import Scheduler

    try:
        schedconfig.load(cfg)
        Scheduler(cfg, cluster.rng)
    except schedconfig.ConfigError as e:
        raise InvalidConfiguration(e.errors) from None
    old = cluster.store.meta(CONFIG_META)
    if old == cfg:
        return "unchanged"
    cluster.store.set_meta(CONFIG_META, cfg)
    return "configured" if old else "created"


def scheduler_configuration(cluster: Cluster) -> dict:
    """The configuration in force, defaulted as kube-scheduler defaults it."""
    from kubesim.scheduler import config as schedconfig

    return schedconfig.complete(cluster.store.meta(CONFIG_META))


class InvalidConfiguration(StatusError):
    """kube-scheduler's refusal of a configuration, with its field errors."""

    reason = "Invalid"

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("; ".join(errors))

    def __str__(self) -> str:
        head = "The KubeSchedulerConfiguration is invalid: "
        if len(self.errors) == 1:
            return head + self.errors[0]
        return head + "\n" + "\n".join("* " + e for e in self.errors)
