"""The scheduler's turn in the settle loop: watch what changed, queue the pending pods,
schedule the ready ones, and write back what kube-scheduler and the API server would.

What a real cluster writes, and where kubesim writes it:
- binding (pods/binding, pkg/registry/core/pod/storage/storage.go setPodHostAndAnnotations):
  ``spec.nodeName`` and the PodScheduled=True condition;
- a failed attempt (schedule_one.go handleSchedulingFailure / updatePod): PodScheduled=False with
  reason Unschedulable (or SchedulerError) and the FailedScheduling message, plus the event;
- events: ``Scheduled`` / ``FailedScheduling`` from ``default-scheduler``.

The scheduling queue (kubesim/scheduler/queue.py: activeQ, backoffQ, the unschedulable pool)
survives between commands in the state's metadata, keyed by pod. The scheduler sees the cluster
as its informers do (pkg/scheduler/eventhandlers.go): every write of a kind some plugin
registered events for (pods and nodes always; volumes, claims, storage classes, CSINodes) since
it last looked becomes cluster events — NodeAdd, the UpdateNode* events of
``NodeSchedulingPropertiesChange``, AssignedPod Add/Update*/Delete, an unscheduled pod's Add,
Update and Delete, a terminal pod leaving the informer as a Delete — computed from the object as
the scheduler last saw it (its copy from earlier in this command, else the committed one) and
as it is now. The queue moves an unschedulable pod only on an event a plugin that rejected it
registered and whose QueueingHint answers Queue. Then it pops pods one at a time — activeQ
first, then backoffQ regardless of the remaining backoff (SchedulerPopFromBackoffQ) — and the
writes of each cycle are events before the next pop. Each attempt's explanation (DESIGN §3.5)
is kept for ``explain-schedule``, with what sent the pod to it (``queue``).
"""

from __future__ import annotations

import json

from kubesim.apiserver.context import Cluster
from kubesim.errors import StatusError

# Full per-node explanations cost (nodes × plugins) work and storage per attempt (running every
# filter on every node, where scheduling stops at the first failure and scores a sample). One
# command records at most this many node entries in full (a pod on 5,000 nodes is 5,000: one
# such pod a command); attempts past the budget, as in a bulk apply of thousands of pods or a
# Deployment on a large cluster, are recorded as a summary, and explain-schedule evaluates
# those afresh (and says so). The budget is the command's, across its settle rounds.
EXPLAIN_NODE_BUDGET = 10_000
SUMMARY_MARK = "kubesim.io/explanation"

QUEUE_META = "scheduler.queue"
SEEN_META = "scheduler.seenResourceVersion"
CONFIG_META = "scheduler.config"
EXPLANATION_KIND = "ScheduleExplanation"  # stored beside the objects, never served by `get`

# eventhandlers.go log sites (v1.35.4)
SITE_ADD_NODE = "eventhandlers.go:64"
SITE_UPDATE_NODE = "eventhandlers.go:83"
SITE_DELETE_NODE = "eventhandlers.go:124"
SITE_ADD_UNSCHEDULED_POD = "eventhandlers.go:233"
SITE_UPDATE_UNSCHEDULED_POD = "eventhandlers.go:332"
SITE_DELETE_UNSCHEDULED_POD = "eventhandlers.go:352"
SITE_ADD_SCHEDULED_POD = "eventhandlers.go:391"
SITE_UPDATE_SCHEDULED_POD = "eventhandlers.go:424"
SITE_DELETE_SCHEDULED_POD = "eventhandlers.go:461"

_TERMINAL = ("Succeeded", "Failed")


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


# -- kube-scheduler's own log ------------------------------------------------------------------
# The kube-scheduler static pod's container log shows the klog lines the scheduler writes at the
# ``--v`` of its manifest (``scheduler_verbosity`` keeps it in VERBOSITY_META): they
# are kept, with the time each was written, in LOG_META, the newest MAX_LOG_LINES.

VERBOSITY_META = "kube-scheduler.verbosity"
LOG_META = "kube-scheduler.log"
MAX_LOG_LINES = 10000


class SchedulerLog:
    """The scheduler's klog sink: lines up to the command's ``--v`` to stderr, as before, and
    lines up to its manifest's ``--v`` into its container's log (PID 1 inside the container)."""

    def __init__(self, cluster: Cluster, verbosity: int) -> None:
        from kubesim.apiserver.context import Logger

        self.command = cluster.log
        self.v = verbosity
        self.verbosity = max(self.command.verbosity, verbosity)
        self.lines: list[list] = []
        self._now = cluster.now
        self._format = Logger(verbosity=verbosity, stream=self, now=cluster.now, pid=1)

    def enabled(self, level: int) -> bool:
        return self.verbosity >= level

    def __call__(self, level: int, where: str, msg: str, kv: dict | None = None, severity: str = "I") -> None:
        if self.command.verbosity >= level:
            self.command(level, where, msg, kv, severity)
        if self.v >= level:
            self._format(level, where, msg, kv, severity)

    def write(self, text: str) -> None:
        self.lines.append([self._now(), text.rstrip("\n")])

    def save(self, store) -> None:
        if self.lines:
            kept = (store.meta(LOG_META) or []) + self.lines
            store.set_meta(LOG_META, kept[-MAX_LOG_LINES:])
            self.lines = []


def scheduler_log(cluster: Cluster):
    """The logger the scheduler writes to: the command's, or a SchedulerLog when its manifest
    asks for a verbosity."""
    store = cluster.store
    if any(k[0] == "Pod" and k[1] == "kube-system" for k in store.changed_keys()):
        scheduler_verbosity(cluster)  # a static pod may have been (re)created with other flags
    v = int(store.meta(VERBOSITY_META, 0) or 0)
    return SchedulerLog(cluster, v) if v > 0 else cluster.log


MIRROR_ANNOTATION = "kubernetes.io/config.mirror"


def scheduler_verbosity(cluster: Cluster) -> None:
    """The ``--v`` of the kube-scheduler static pods' command (the highest, 0 without one)."""
    v = 0
    store = cluster.store
    keys = store.keys_annotated("Pod", MIRROR_ANNOTATION)  # (not every pod of kube-system)
    pods = store.list("Pod", "kube-system") if keys is None else store.objects(
        [k for k in keys if k[1] == "kube-system"])
    for pod in pods:
        if not ((pod.get("metadata") or {}).get("annotations") or {}).get(MIRROR_ANNOTATION):
            continue
        for c in (pod.get("spec") or {}).get("containers") or []:
            argv = list(c.get("command") or []) + list(c.get("args") or [])
            if argv and argv[0].rsplit("/", 1)[-1] == "kube-scheduler":
                v = max(v, _klog_verbosity(argv[1:]))
    cluster.store.set_meta(VERBOSITY_META, v or None)


def _klog_verbosity(args: list[str]) -> int:
    """klog's ``-v``/``--v`` flag: ``--v=4``, ``--v 4``, ``-v=4``, ``-v 4`` (the last wins)."""
    v = 0
    for i, a in enumerate(args):
        name, eq, value = a.partition("=")
        if name in ("-v", "--v"):
            if not eq and i + 1 < len(args):
                value = args[i + 1]
            try:
                v = int(value)
            except ValueError:
                pass
    return v


def recorded_log(cluster: Cluster) -> list[tuple[float, str]]:
    return [(t, line) for t, line in cluster.store.meta(LOG_META) or []]


def make_scheduler(cluster: Cluster, explain: bool = True, log=None):
    """A Scheduler for this command, with the informer-style views its plugins use."""
    from kubesim.scheduler.scheduler import Scheduler

    log = log if log is not None else cluster.log
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


# -- the scheduler's informers (eventhandlers.go) ------------------------------------------------
def _copy(kind: str, obj: dict | None) -> bytes | None:
    """The object as the informer saw it, kept packed (a writer may change the stored dict in
    place later): unpacked by ``_seen`` only for an object written again, so a command that
    writes 100,000 objects once each pays for no copy of them. A Pod is kept without its
    ``metadata.managedFields``, as the scheduler's pod informer drops them (scheduler.go
    newPodInformer's transform): no event handler reads them, and they are half of what a
    pod's copy costs to pack and unpack."""
    import marshal

    if obj is None:
        return None
    md = obj.get("metadata")
    if kind == "Pod" and md and "managedFields" in md:
        obj = dict(obj, metadata={k: v for k, v in md.items() if k != "managedFields"})
    return marshal.dumps(obj)


def _seen(packed: bytes | _Deferred | None) -> dict | None:
    import marshal

    if isinstance(packed, _Deferred):
        packed = packed.pack()
    return None if packed is None else marshal.loads(packed)


class _Deferred:
    """The informer's view of an object not packed yet: the object itself, which nothing has
    changed since the informer looked (``Informers.pack_deferred`` packs it before anything
    may). A bulk apply's new pods are bound in the same step, and the binding's delivery
    reads no view of the pending pod (``_BOUND``): 1,000 copies never packed (~9 ms)."""

    __slots__ = ("kind", "obj")

    def __init__(self, kind: str, obj: dict) -> None:
        self.kind = kind
        self.obj = obj

    def pack(self) -> bytes | None:
        return _copy(self.kind, self.obj)


_BOUND = object()  # sync's stand-in for the view of a pod the cycle bound (never unpacked)


def _visible_pod(pod: dict | None) -> dict | None:
    """The pod informer lists only non-terminal pods (scheduler.go newPodInformer)."""
    if pod is None or (pod.get("status") or {}).get("phase") in _TERMINAL:
        return None
    return pod


def _uid(obj: dict | None) -> str:
    return ((obj or {}).get("metadata") or {}).get("uid") or ""


def _full(obj: dict) -> str:
    md = obj.get("metadata") or {}
    ns = md.get("namespace") or ""
    return f"{ns}/{md.get('name', '')}" if ns else md.get("name", "")


class Informers:
    """What the scheduler's event handlers see of this command's writes, delivered to its
    queue as cluster events. ``sync`` looks at every write since the last call."""

    def __init__(self, cluster: Cluster, scheduler, queue, log=None) -> None:
        from kubesim.scheduler.framework import events as ev

        self.deferred: list = []  # the keys of the views ``sync(defer=True)`` left unpacked
        self.cluster = cluster
        self.scheduler = scheduler
        self.queue = queue
        self.ev = ev
        self.kinds = {"Pod", "Node"} | {ev.KIND_OF_RESOURCE[r] for r in scheduler.gvk_map
                                         if r in ev.KIND_OF_RESOURCE}
        log = log if log is not None else cluster.log
        self._log = log if log.verbosity > 0 else None

    def _emit(self, level: int, site: str, msg: str, kv: dict) -> None:
        if self._log is not None and self._log.verbosity >= level:
            self._log(level, site, msg, kv)

    def sync(self, now: float, bound: tuple[tuple, str] | None = None,
             defer: bool = False) -> None:
        """``bound``: (the key, the uid) of the pod the cycle just bound, popped from the queue.
        The informer saw it last as the queue holds it, pending (an update it saw before the
        pop would have replaced or dropped the queue's copy): its binding is delivered as
        ``_pod`` delivers a pending pod's binding, without unpacking that copy (at a bulk
        apply, 1,000 of them: ~20 ms). ``defer``: the views are kept unpacked (``_Deferred``)
        until ``pack_deferred``, which the caller calls before anything may change an object
        in place, except the binding of a popped pod whose binding ``sync`` delivers next."""
        cluster = self.cluster
        store = cluster.store
        view: dict = cluster.__dict__.setdefault("_sched_view", {})
        position = cluster.__dict__.get("_sched_writes")
        if position is None:
            position = 0
            seen = store.committed_meta(SEEN_META)
            if seen is not None and not store.wiped:
                kinds = store.committed_kind_resource_versions()
                if any(kinds.get(k, 0) > int(seen) for k in self.kinds):
                    # written after the scheduler last looked, before this command: what
                    # changed cannot be told apart any more
                    self.queue.move_all_to_active_or_backoff_queue(
                        self.ev.EVENT_UNOBSERVED_CHANGES, None, None, now)
        keys, cluster._sched_writes = store.writes_since(position)
        if len(keys) > 50:
            # what the objects were before this command, for those the view has not seen: read
            # together (a bulk apply's new pods have none), not one statement each
            store.prefetch_committed(k for k in keys if k[0] in self.kinds and k not in view)
        changes = []
        for k in keys:
            if k[0] not in self.kinds:
                continue
            cur = store.get(*k)
            if cur is None:
                gone = store.deleted(*k)
                rv = gone[0] if gone is not None else 0
            else:
                rv = int((cur.get("metadata") or {}).get("resourceVersion") or 0)
                if bound is not None and k == bound[0] and view.get(k) is not None \
                        and _uid(cur) == bound[1] \
                        and (cur.get("spec") or {}).get("nodeName") and _visible_pod(cur):
                    changes.append((rv, k, _BOUND, cur))
                    continue
            old = _seen(view[k]) if k in view else store.committed(*k)
            changes.append((rv, k, old, cur))
        changes.sort(key=lambda c: c[0])
        for _, k, old, cur in changes:
            if defer and cur is not None:
                view[k] = _Deferred(k[0], cur)
                self.deferred.append(k)
            else:
                view[k] = _copy(k[0], cur)
            if old is _BOUND:
                self._bound(cur, now)
            elif old is not None and cur is not None and _uid(old) != _uid(cur):
                self.deliver(k[0], old, None, now)
                self.deliver(k[0], None, cur, now)
            else:
                self.deliver(k[0], old, cur, now)

    def pack_deferred(self) -> None:
        """Pack the views ``sync(defer=True)`` left unpacked (those not replaced since)."""
        view = self.cluster.__dict__.get("_sched_view") or {}
        for k in self.deferred:
            v = view.get(k)
            if isinstance(v, _Deferred):
                view[k] = v.pack()
        self.deferred = []

    def _idle(self) -> bool:
        """No pod waits in the pool and none is in flight: cluster events move nothing (only
        pods' own Add/Update/Delete matter), so they are not worked out."""
        return not self.queue.unschedulable_pods and not self.queue.in_flight_pods

    def deliver(self, kind: str, old: dict | None, new: dict | None, now: float) -> None:
        if kind == "Pod":
            self._pod(_visible_pod(old), _visible_pod(new), now)
        elif kind == "Node":
            self._node(old, new, now)
        else:
            self._other(kind, old, new, now)

    def _node(self, old: dict | None, new: dict | None, now: float) -> None:
        ev, q = self.ev, self.queue
        if old is None and new is not None:
            self._emit(3, SITE_ADD_NODE, "Add event for node", {"node": _full(new)})
            q.move_all_to_active_or_backoff_queue(ev.ClusterEvent(ev.NODE, ev.ADD), None, new,
                                                  now)
        elif old is not None and new is not None:
            self._emit(4, SITE_UPDATE_NODE, "Update event for node", {"node": _full(new)})
            if self._idle():
                return
            for e in ev.node_scheduling_properties_change(new, old):
                q.move_all_to_active_or_backoff_queue(e, old, new, now)
        elif old is not None:
            q.move_all_to_active_or_backoff_queue(ev.ClusterEvent(ev.NODE, ev.DELETE), old, None,
                                                  now)
            self._emit(3, SITE_DELETE_NODE, "Delete event for node", {"node": _full(old)})

    def _other(self, kind: str, old: dict | None, new: dict | None, now: float) -> None:
        ev = self.ev
        resource = ev.RESOURCE_OF_KIND.get(kind)
        at = self.scheduler.gvk_map.get(resource, 0) if resource else 0
        if old is None and new is not None:
            if at & ev.ADD:
                self.queue.move_all_to_active_or_backoff_queue(
                    ev.ClusterEvent(resource, ev.ADD), None, new, now)
        elif old is not None and new is not None:
            if at & ev.UPDATE:
                self.queue.move_all_to_active_or_backoff_queue(
                    ev.ClusterEvent(resource, ev.UPDATE), old, new, now)
        elif old is not None and at & ev.DELETE:
            self.queue.move_all_to_active_or_backoff_queue(
                ev.ClusterEvent(resource, ev.DELETE), old, None, now)

    def _pod(self, old: dict | None, new: dict | None, now: float) -> None:
        ev, q = self.ev, self.queue
        responsible = self.scheduler.responsible_for
        if old is None and new is None:
            return
        if old is None:  # addPod
            if (new.get("spec") or {}).get("nodeName"):
                self._assigned_pod_added(new, now)
            elif responsible(new):
                self._emit(3, SITE_ADD_UNSCHEDULED_POD, "Add event for unscheduled pod",
                           {"pod": _full(new)})
                if _schedulable(new):
                    q.add(new, now)
            return
        if new is None:  # deletePod
            if (old.get("spec") or {}).get("nodeName"):
                self._emit(3, SITE_DELETE_SCHEDULED_POD, "Delete event for scheduled pod",
                           {"pod": _full(old)})
                q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, old, None,
                                                      now)
            elif responsible(old):
                self._emit(3, SITE_DELETE_UNSCHEDULED_POD, "Delete event for unscheduled pod",
                           {"pod": _full(old)})
                q.delete(old)
                if (old.get("status") or {}).get("nominatedNodeName"):
                    q.move_all_to_active_or_backoff_queue(
                        ev.EVENT_ASSIGNED_POD_DELETE, old, None, now,
                        pre_check=_le_priority(old))
            return
        # updatePod
        if (old.get("spec") or {}).get("nodeName"):
            self._emit(4, SITE_UPDATE_SCHEDULED_POD, "Update event for scheduled pod",
                       {"pod": _full(old)})
            if self._idle():
                return
            for e in ev.pod_scheduling_properties_change(new, old):
                q.move_all_to_active_or_backoff_queue(e, old, new, now)
        elif (new.get("spec") or {}).get("nodeName"):
            self._assigned_pod_added(new, now)
            if responsible(old):
                q.delete(old)  # bound: out of the queue (deletePodFromSchedulingQueue, inBinding)
        elif responsible(old):
            self._emit(4, SITE_UPDATE_UNSCHEDULED_POD, "Update event for unscheduled pod",
                       {"pod": _full(new)})
            if not _schedulable(new):
                q.delete(new)  # being deleted: kubesim drops it from the queue
            else:
                q.update(old, new, now)
            nnn = (old.get("status") or {}).get("nominatedNodeName")
            if nnn and nnn != (new.get("status") or {}).get("nominatedNodeName"):
                q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, old, None,
                                                      now, pre_check=_le_priority(old))

    def _bound(self, pod: dict, now: float) -> None:
        """``_pod``'s update of a pending pod, visible, to ``pod``, the same pod bound."""
        self._assigned_pod_added(pod, now)
        if self.scheduler.responsible_for(pod):  # (schedulerName does not change)
            self.queue.delete(pod)

    def _assigned_pod_added(self, pod: dict, now: float) -> None:
        self._emit(3, SITE_ADD_SCHEDULED_POD, "Add event for scheduled pod", {"pod": _full(pod)})
        self.queue.move_all_to_active_or_backoff_queue(self.ev.EVENT_ASSIGNED_POD_ADD, None, pod,
                                                       now)


def _schedulable(pod: dict) -> bool:
    """A pending pod kubesim keeps in the queue: not being deleted (upstream would pop one and
    skip it with "skip schedule deleting pod")."""
    return not (pod.get("metadata") or {}).get("deletionTimestamp") and \
        (pod.get("status") or {}).get("phase", "Pending") == "Pending"


def _le_priority(pod: dict):
    """``getLEPriorityPreCheck``: pods of no higher priority than ``pod``."""
    from kubesim.scheduler.framework.types import pod_priority

    limit = pod_priority(pod)
    return lambda p: pod_priority(p) <= limit


def _waiting_for(scheduler, pod: dict, plugins) -> dict[str, list[str]]:
    """The events each rejecting plugin registered (what may move the pod), by label, in the
    plugin's own order (then Node/UpdateNodeTaint where the queue added it to a Node/Add)."""
    fwk = scheduler.framework_for(pod)
    hint_map = scheduler.queueing_hint_map.get(fwk.profile_name if fwk else "", [])
    registered = dict(fwk.enqueue_extensions) if fwk else {}
    out: dict[str, list[str]] = {}
    for plugin in sorted(plugins):
        events = [e.event for e in registered.get(plugin, ())]
        events += [e for e, fns in hint_map if any(p == plugin for p, _ in fns)]
        labels: list[str] = []
        for e in events:
            for lab in e.labels():
                if lab not in labels:
                    labels.append(lab)
        out[plugin] = labels
    return out


def _idle(cluster: Cluster) -> bool:
    """Nothing waits in the queue: every change so far is seen. The event handlers still log
    what they receive when asked to (--v=3 and up); else the scheduler is not even built."""
    store = cluster.store
    log = scheduler_log(cluster)
    if log.verbosity >= 3:
        scheduler = make_scheduler(cluster, log=log)
        queue = scheduler.new_queue(log=log)
        Informers(cluster, scheduler, queue, log=log).sync(cluster.now())
        if isinstance(log, SchedulerLog):
            log.save(store)
    store.set_meta(SEEN_META, store.resource_version())
    return False


def _derive_pod(pod: dict):
    from kubesim.scheduler.framework.cache import pod_digest

    return pod_digest(pod)


def _derive_node(node: dict):
    from kubesim.scheduler.framework.cache import node_digest

    return node_digest(node)


def _fold_pod(acc, key, digest, sign):
    from kubesim.scheduler.framework.cache import pod_fold

    return pod_fold(acc, key, digest, sign)


def keep_scheduler_cache(store) -> None:
    """Have the store keep the scheduler's cache (a digest of every Pod and Node, rewritten
    with each write of it, and per node the sum of its pods' digests:
    kubesim/scheduler/framework/cache.py)."""
    store.derive("Pod", _derive_pod, _fold_pod)
    store.derive("Node", _derive_node)
    store.before_commit(keep_node_digests)


def cached_snapshot(cluster: Cluster):
    """The scheduler's snapshot from its cache in the state: the node digests and, per node,
    the sums of its pods; a node's pods are read (their digests, their bodies later still)
    only when a plugin asks for them."""
    from kubesim.scheduler.framework.cache import snapshot_from_sums

    store = cluster.store
    keep_scheduler_cache(store)
    nodes = node_digests(store)
    sums = store.derived_sums("Pod")

    def on_node(name: str) -> list:
        return [(k[1], k[2], d) for k, d in store.derived_on_node("Pod", name)]

    def all_pods() -> list:
        return [(k[1], k[2], d) for k, d in store.derived("Pod", bound=True)]

    return snapshot_from_sums(nodes, sums, on_node, all_pods, _loader(store))


# The node digests of the scheduler's cache kept one metadata value a node, without their image
# lists, which are stored once each (at 5,000 nodes four fifths of the digests' text is the same
# few image lists): what ``node_digests`` reads, in one statement, with the Nodes written since
# they were kept put in their place and kept again one value each (a churn that changed the
# images of a thousand nodes rewrites those thousand, not a single value of every node).
NODE_DIGESTS_META = "scheduler/nodeDigests"  # {"v": the format, "rv": the Nodes' resourceVersion}
NODE_DIGEST_PREFIX = "scheduler/nodeDigest/"  # + a node's name: [its digest without images, image key]
NODE_IMAGES_META = "scheduler/nodeImages"  # image key -> an image list
NODE_DIGESTS_VERSION = 2
LEGACY_NODE_DIGESTS_META = "scheduler.nodeDigests"  # (an older state's: every digest in one value)


def _image_key(images: list) -> str:
    import hashlib

    return hashlib.sha1(json.dumps(images, separators=(",", ":")).encode()).hexdigest()[:16]


def _kept_digest(digest: dict, image_keys: dict[int, str], images: dict[str, list]) -> list:
    """[the digest without its image list, the list's key (None: no images)], the list added to
    ``images``."""
    st = digest.get("status") or {}
    lst = st.get("images")
    if not lst:
        return [digest, None]
    key = image_keys.get(id(lst))
    if key is None:
        key = image_keys[id(lst)] = _image_key(lst)
        images.setdefault(key, lst)
    return [dict(digest, status={k: v for k, v in st.items() if k != "images"}), key]


def _with_images(rows, images: dict[str, list], kept_now=()) -> list[dict]:
    """The digests of kept ``rows`` ([digest, image key]) with their image lists in place: a
    row read for this call alone gets its list itself; one being kept now (its node's name in
    ``kept_now``) is copied, so the row stays without it."""
    out = []
    for d, key in rows:
        if key is not None:
            if d["metadata"]["name"] in kept_now:
                d = dict(d, status=dict(d["status"], images=images[key]))
            else:
                d["status"]["images"] = images[key]
        out.append(d)
    return out


def node_digests(store) -> list[dict]:
    """Every Node's digest (kubesim/scheduler/framework/cache.py: ``node_digest``), in name
    order: from the kept ones (``NODE_DIGEST_PREFIX``) with those of the Nodes written since
    in their place, else from the ``derived`` rows (and kept, for the next command). Nodes with
    the same image list share one list object (read-only)."""
    if store.wiped or "Node" in store.changed_kinds():
        return [d for _, d in store.derived("Node")]
    rv = store.committed_kind_resource_versions().get("Node", 0)
    marker = store.meta(NODE_DIGESTS_META)
    kept = isinstance(marker, dict) and marker.get("v") == NODE_DIGESTS_VERSION
    images: dict[str, list] = dict(store.meta(NODE_IMAGES_META) or {}) if kept else {}
    kept_rows: list[list] = store.meta_prefixed(NODE_DIGEST_PREFIX) if kept else []
    if kept and any(row[1] is not None and row[1] not in images for row in kept_rows):
        kept, kept_rows = False, []  # (an image list missing: every row again)
    if kept and marker.get("rv") == rv:
        return _with_images(kept_rows, images)
    rows = {row[0]["metadata"]["name"]: row for row in kept_rows}
    since = store.derived_since("Node", int(marker.get("rv") or 0), rows) if kept else None
    if since is None:  # nothing kept yet (or a snapshot that cannot be completed): every row
        present = None
        changed = store.derived("Node")
    else:
        present, changed = since
    image_keys: dict[int, str] = {}
    changed_rows = {k[2]: _kept_digest(d, image_keys, images) for k, d in changed}
    changed_rows.update((n, None) for n in rows
                        if n not in changed_rows and (present is None or n not in present))
    added = False
    for n, row in changed_rows.items():
        if row is None:
            del rows[n]
        else:
            added = added or n not in rows
            rows[n] = row
    if added:
        rows = {n: rows[n] for n in sorted(rows)}
    out = _with_images(rows.values(), images, changed_rows)
    if changed_rows and not store.read_only:
        used = {row[1] for row in rows.values()}
        if not kept:
            store.replace_meta({LEGACY_NODE_DIGESTS_META: None})
        store.replace_meta({NODE_DIGEST_PREFIX + n: row for n, row in changed_rows.items()})
        store.set_meta(NODE_IMAGES_META, {k: v for k, v in images.items() if k in used})
        store.set_meta(NODE_DIGESTS_META, {"v": NODE_DIGESTS_VERSION, "rv": rv})
    return out


def keep_node_digests(store) -> None:
    """At the commit of a transaction that wrote Nodes (``Store.before_commit``): keep again
    the digests of those whose digest changed, in the same commit, as kube-scheduler's cache
    takes each Node update from its informer. The next command's ``node_digests`` then finds
    every digest kept, instead of keeping again those of every Node written since (after a
    churn that pulled an image on a thousand nodes, that was the next scheduling command's
    cost). A Node written without a change of its digest (a heartbeat, a condition) keeps its
    row. Nothing is done when the kept digests were already behind the committed Nodes: the
    next ``node_digests`` brings them up to date as before."""
    if store.wiped or store.read_only or "Node" not in store.changed_kinds():
        return
    marker = store.meta(NODE_DIGESTS_META)
    if not (isinstance(marker, dict) and marker.get("v") == NODE_DIGESTS_VERSION) \
            or marker.get("rv") != store.committed_kind_resource_versions().get("Node", 0):
        return
    names = sorted({k[2] for k in store.changed_keys() if k[0] == "Node"})
    keys = [NODE_DIGEST_PREFIX + n for n in names]
    store.prefetch_meta(keys)
    images: dict[str, list] = store.meta(NODE_IMAGES_META) or {}
    lists: dict[str, list] = {}  # (the image lists of the changed rows)
    image_keys: dict[int, str] = {}
    rows: dict[str, list | None] = {}
    dropped: set[str] = set()
    for name, key in zip(names, keys, strict=True):
        obj = store.get("Node", "", name)
        row = _kept_digest(_derive_node(obj), image_keys, lists) if obj is not None else None
        old = store.meta(key)
        if row != old:
            rows[key] = row
            if old is not None and old[1] is not None and (row is None or row[1] != old[1]):
                dropped.add(old[1])
    if rows:
        store.replace_meta(rows)
        kept = dict(images)
        kept.update((k, v) for k, v in lists.items() if k not in kept)
        if dropped:  # a list no node has any more is not kept
            # (the rows as this transaction leaves them: those it kept, these and any that
            # node_digests kept before, in place of what the last commit left)
            mine = set(store.changed_meta_keys(NODE_DIGEST_PREFIX))
            used = {row[1] for k in mine if (row := store.meta(k)) is not None}
            # the other lists looked for in the other rows, in a read that stops once each is
            # found: the list a pull replaced is, as a rule, still most nodes' (their preloaded
            # images), found at once where extracting every row's key was a fourth of this hook
            used |= store.meta_prefixed_among(NODE_DIGEST_PREFIX, "$[1]", (k for k in kept if k not in used), mine)
            kept = {k: v for k, v in kept.items() if k in used}
        if kept != images:
            store.set_meta(NODE_IMAGES_META, kept)
    store.set_meta(NODE_DIGESTS_META, {"v": NODE_DIGESTS_VERSION, "rv": store.kind_resource_version("Node")})


def use_cached_cluster(cluster: Cluster, scheduler, without_uid: str | None = None,
                       without_node: str | None = None) -> None:
    """``scheduler.set_cluster`` with every node and pod, from the scheduler's cache (the
    bound pods' bodies undecoded); ``without_uid``: as if that pod were not there
    (``without_node``: the node it is bound to, the only one to look at)."""
    store = cluster.store
    snapshot = cached_snapshot(cluster)
    pending = [p for k in store.pod_keys_on_node("") if (p := store.get(*k)) is not None]
    if without_uid:
        pending = [p for p in pending if (p.get("metadata") or {}).get("uid") != without_uid]
        holder = snapshot.get(without_node) if without_node else None
        for ni in [holder] if holder is not None else snapshot.node_info_list:
            if any(pi.key == without_uid for pi in ni.pods):
                ni.remove_pod(without_uid)
    scheduler.use_snapshot(snapshot, pending)


def _loader(store):
    def load(pi) -> dict:
        pod = store.get("Pod", pi.namespace, pi.name)
        if pod is None:  # (a pod stored without a namespace: PodInfo says "default")
            pod = store.get("Pod", "", pi.name)
        return pod if pod is not None else {"metadata": {"name": pi.name, "namespace": pi.namespace}}

    return load


def step(cluster: Cluster) -> bool:
    store = cluster.store
    saved = store.meta(QUEUE_META)
    unbound = store.pod_keys_on_node("")  # from the index: no pod bodies loaded
    if not unbound and not saved:
        return _idle(cluster)
    pods = [p for p in (store.get(*k) for k in unbound) if p is not None]
    pending = {_key(p): p for p in pods if is_pending(p)}
    if not pending and not saved:
        return _idle(cluster)

    now = cluster.now()
    sink = scheduler_log(cluster)
    scheduler = make_scheduler(cluster, log=sink)
    log = sink if sink.verbosity > 0 else None
    mine = {k: p for k, p in pending.items() if scheduler.responsible_for(p)}
    queue = scheduler.new_queue(saved, pods=mine, log=log)
    informers = Informers(cluster, scheduler, queue, log=sink)
    informers.sync(now, defer=True)  # (packed before a write other than a binding below)
    for k, p in mine.items():  # the informer's initial list: pods the queue does not hold
        if k not in queue:
            queue.add(p, now)
    queue.flush(now)
    if len(mine) > 50:
        # the explanations this step will write, as the field manager compares them with what
        # was stored: read together (most pods are new and have none), not one at a time
        store.prefetch_committed((EXPLANATION_KIND, p["metadata"].get("namespace", ""), p["metadata"]["name"])
                                 for p in mine.values())
    changed = False
    nodes = None
    budget = cluster.__dict__.get("_explain_budget")
    position = 0  # QueueSort's order: the how-manieth pod this round pops
    from kubesim.gcpause import collector_paused

    # The cycles build objects by the thousand that live as long as the command (pods bound,
    # events, explanations, the nodes' memos), acyclic: the collector off meanwhile, as for
    # the snapshot, instead of a collection every 10,000 allocations finding nothing (at
    # 1,000 pods on 5,000 nodes: eleven, 20 ms).
    try:
        with collector_paused(freeze=True):
            while True:
                entry = queue.pop()
                if entry is None:
                    break
                position += 1
                if nodes is None:
                    snapshot = cached_snapshot(cluster)
                    nodes = snapshot.node_info_list
                    scheduler.use_snapshot(snapshot, pods)
                pod = entry.pod
                moved_by = dict(entry.last_move)
                if budget is None:
                    budget = EXPLAIN_NODE_BUDGET
                scheduler.explain_enabled = budget >= len(nodes)
                if scheduler.explain_enabled:
                    budget -= len(nodes)
                cluster._explain_budget = budget
                result = scheduler.schedule_one(pod, now, queue_position=position)
                record = {"attempt": entry.attempts, "poppedFrom": entry.popped_from}
                if moved_by:
                    record["movedBy"] = moved_by
                if result.outcome in ("Scheduled", "Bypassed", "NotResponsible"):
                    queue.done(entry.key)
                else:
                    entry.unschedulable_plugins = set(result.unschedulable_plugins)
                    entry.pending_plugins = set(result.pending_plugins)
                    where = queue.add_unschedulable_if_not_present(entry, now)
                    after = {"queue": where}
                    rejectors = entry.unschedulable_plugins | entry.pending_plugins
                    if where == "Unschedulable" and rejectors:
                        after["waitingFor"] = _waiting_for(scheduler, pod, rejectors)
                    record["after"] = after
                if result.explanation:
                    result.explanation["queue"] = record
                if informers.deferred and (result.outcome != "Scheduled" or result.writes):
                    informers.pack_deferred()  # (what the informer saw, before it is changed)
                _write_back(cluster, pod, result, full=scheduler.explain_enabled, snapshot=snapshot)
                md = pod["metadata"]
                # this cycle's writes, as the informers deliver them
                informers.sync(now, bound=(("Pod", md.get("namespace") or "", md["name"]), _uid(pod))
                               if result.outcome == "Scheduled" else None)
                changed = True
    finally:
        informers.pack_deferred()  # (the objects' next writers may change them in place)
    _save_queue(store, queue)
    if nodes is not None:
        # (the scheduler, its framework and handle refer to each other: without this, the
        # snapshot of every node would wait for the garbage collector's cycle search)
        scheduler.snapshot = scheduler.handle.snapshot = None
    if isinstance(sink, SchedulerLog):
        sink.save(store)
    store.set_meta(START_INDEX_META, scheduler.next_start_node_index)
    store.set_meta(SEEN_META, store.resource_version())
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


def _write_back(cluster: Cluster, pod: dict, result, full: bool = True, snapshot=None) -> None:
    """The scheduler's writes for one cycle. ``snapshot``: the cycle's, whose node digests
    (their labels: all the binding copies) stand for the Node, which is then not decoded."""
    store = cluster.store
    now = cluster.stamp()
    nominated_before = (pod.get("status") or {}).get("nominatedNodeName")
    if result.outcome == "Scheduled":
        from kubesim.apiserver.registry.core.pod import bind

        ni = snapshot.get(result.node) if snapshot is not None else None
        bind(pod, result.node, ni.node if ni is not None and ni.node is not None
             else store.get("Node", "", result.node))
        _set_condition(pod, {"lastProbeTime": None, "status": "True", "type": "PodScheduled"}, now)
        pod["status"].pop("nominatedNodeName", None)
        cluster.fields.handled(pod)  # the binding's write keeps managedFields as they are
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
    elif obj.get("nodes"):  # in its place: `-o json` prints the keys in stored order
        obj = {(PACKED_NODES if k == "nodes" else k): (_pack(v) if k == "nodes" else v)
               for k, v in obj.items()}
    cluster.store.put(obj)


# One verdict per node differs from the next by a score or two: deflated, an explanation of
# 5,000 nodes takes 29 KB in the state instead of 2.3 MB (and decodes as fast).
COMPRESSED_NODES = "nodesDeflated"  # (an older state's: the nodes' entries deflated)
# Most nodes' entries are the same as others' (every filter passed, not scored; or scored alike
# on nodes alike): the names, each distinct entry once and the place of each node's, deflated.
# An explanation of 5,000 nodes then encodes and decodes as a few hundred entries.
PACKED_NODES = "nodesPacked"


def _entry_key(entry: dict, filters: dict[int, tuple], alike: dict[tuple, int]):
    """What tells two nodes' entries apart (their keys in order included). A filter verdict
    stands in the key for a number, the same for verdicts alike (``alike``: items -> number),
    so a key hashed per node holds no tuple of every filter's verdict; ``filters``: (verdict,
    number) by the id of the verdict's dict (nodes every filter passed share one)."""
    try:
        f = entry["filter"]
        fk = filters.get(id(f))
        if fk is None:
            fk = filters[id(f)] = (f, alike.setdefault(tuple(f.items()), len(alike)))
        score = entry.get("score")
        key = (tuple(entry), fk[1], entry["feasible"], entry.get("rejectedBy"),
               entry.get("total"), None if score is None else tuple((p, tuple(v.items())) for p, v in score.items()))
        hash(key)
        return key
    except (AttributeError, KeyError, TypeError):  # (another shape)
        return json.dumps(entry, separators=(",", ":"))


def _pack(nodes: dict) -> str:
    import base64
    import zlib

    index: dict = {}
    filters: dict[int, tuple] = {}  # (holding each dict, so that its id is not reused meanwhile)
    alike: dict[tuple, int] = {}
    entries: list[dict] = []
    at = []
    for entry in nodes.values():
        k = _entry_key(entry, filters, alike)
        i = index.get(k)
        if i is None:
            i = index[k] = len(entries)
            entries.append(entry)
        at.append(i)
    text = json.dumps([list(nodes), entries, at], separators=(",", ":"))
    return base64.b64encode(zlib.compress(text.encode(), 1)).decode("ascii")


def _unpack(data: str) -> dict:
    """The nodes' entries (read-only: nodes whose entries are alike share one)."""
    import base64
    import zlib

    names, entries, at = json.loads(zlib.decompress(base64.b64decode(data)))
    return dict(zip(names, [entries[i] for i in at], strict=True))


def _decompress(data: str) -> dict:
    import base64
    import zlib

    return json.loads(zlib.decompress(base64.b64decode(data)))


def load_explanation(cluster: Cluster, namespace: str, name: str) -> tuple[dict, bool] | None:
    """The recorded explanation and whether it is complete (False: a summary without nodes)."""
    obj = cluster.store.get(EXPLANATION_KIND, namespace, name)
    if obj is None:
        return None
    out = {}
    for k, v in obj.items():
        if k == PACKED_NODES:
            out["nodes"] = _unpack(v)
        elif k == COMPRESSED_NODES:
            out["nodes"] = _decompress(v)
        elif k != "metadata":
            out[k] = v
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
