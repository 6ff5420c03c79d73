"""The taint eviction controller: pods on a node with NoExecute taints they do not tolerate are
deleted at once; pods that tolerate them for ``tolerationSeconds`` that long after the controller
saw the taints; pods that tolerate them for ever stay.

Upstream: pkg/controller/tainteviction/taint_eviction.go (Controller: NodeUpdated/PodUpdated
with their filters, handleNodeUpdate, handlePodUpdate, processPodOnNode, getMinTolerationTime,
deletePodHandler/addConditionAndDeletePod, the events ``TaintManagerEviction`` ``Marking for
deletion Pod <ns>/<name>`` and ``Cancelling deletion of Pod <ns>/<name>``), timed_workers.go
(TimedWorkerQueue: AddWork keeps an existing item, CancelWork) and
pkg/apis/core/v1/helper/helpers.go (GetMatchingTolerations: the first toleration of the pod that
tolerates each taint).

Timing is the controller's own: an eviction fires ``tolerationSeconds`` after the moment the
controller observed the node's NoExecute taints (its ``time.Now()``), whatever the taint's
``timeAdded`` says; the node lifecycle controller's taints carry one, ``kubectl taint``'s none.
Upstream keeps what it observed (``taintedNodes``, the queue of timed workers) in memory; a
kubesim command is a process of its own, so ``State`` is what the control plane keeps in the
store between commands.

Upstream's processPodOnNode replaces a scheduled eviction only when the one already queued was
created at the same instant (its ``CreatedAt`` not before now): between two distinct observations
that never happens, so here an eviction already queued is always kept (``lengthening toleration
shouldn't work``), even on a pinned clock where two commands share an instant.

Eviction: the ``DisruptionTarget`` condition (reason ``DeletionByTaintManager``, message
``Taint manager: deleting due to NoExecute taint``), then a graceful delete with the pod's own
grace period. The events name the pod without its uid (upstream builds the reference from the
namespaced name), so ``describe pod`` does not list them, as with kubectl against a real cluster.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesim.api.pods import tolerates
from kubesim.api.record import Record
from kubesim.controllers.base import Change, Event, deepcopy, update_pod_condition

TAINT_EVICTION_CONTROLLER = "taint-eviction-controller"
EVICTION_REASON = "TaintManagerEviction"
DISRUPTION_REASON = "DeletionByTaintManager"
DISRUPTION_MESSAGE = "Taint manager: deleting due to NoExecute taint"


def no_execute_taints(taints) -> list[dict]:
    """getNoExecuteTaints."""
    return [t for t in taints or () if t.get("effect") == "NoExecute"]


def matching_tolerations(taints: list[dict], tolerations: list[dict]) -> tuple[bool, list[dict]]:
    """v1helper.GetMatchingTolerations: (every taint tolerated, the first toleration tolerating
    each taint)."""
    if not taints:
        return True, []
    used = []
    for taint in taints:
        t = next((tol for tol in tolerations or () if tolerates(tol, taint)), None)
        if t is None:
            return False, []
        used.append(t)
    return True, used


def min_toleration_time(tolerations: list[dict]) -> float | None:
    """getMinTolerationTime: the smallest ``tolerationSeconds`` (0 when there are no
    tolerations or one is not positive), None (upstream's -1) when they all tolerate for ever."""
    if not tolerations:
        return 0.0
    best = None
    for t in tolerations:
        secs = t.get("tolerationSeconds")
        if secs is None:
            continue
        if secs <= 0:
            return 0.0
        best = secs if best is None else min(best, secs)
    return None if best is None else float(best)


def pod_key(pod: dict) -> str:
    md = pod.get("metadata") or {}
    return f"{md.get('namespace') or ''}/{md.get('name', '')}"


class State(Record):
    """What the controller has observed: each node's NoExecute taints (``taintedNodes``) and
    the scheduled evictions (the TimedWorkerQueue's timers: ``namespace/name`` -> createdAt,
    fireAt)."""
    __slots__ = ("tainted_nodes", "workers")

    def __init__(self, tainted_nodes: dict[str, list[dict]] | None = None,
                 workers: dict[str, dict[str, float]] | None = None):
        self.tainted_nodes = {} if tainted_nodes is None else tainted_nodes
        self.workers = {} if workers is None else workers

    @classmethod
    def from_dict(cls, d: dict | None) -> State:
        d = d or {}
        return cls({k: list(v) for k, v in (d.get("taintedNodes") or {}).items()},
                   {k: dict(v) for k, v in (d.get("workers") or {}).items()})

    def to_dict(self) -> dict:
        return {"taintedNodes": {k: self.tainted_nodes[k] for k in sorted(self.tainted_nodes)},
                "workers": {k: self.workers[k] for k in sorted(self.workers)}}

    def next_fire(self) -> float | None:
        return min((w["fireAt"] for w in self.workers.values()), default=None)


class TimedWorkerQueue:
    """timed_workers.go over ``workers`` (State.workers): ``work(key)`` runs no earlier than an
    item's fireAt. An item due at once (fireAt not after createdAt) runs as it is added and is
    not kept, as upstream's worker without a timer finishes before anything can cancel it."""

    def __init__(self, workers: dict[str, dict[str, float]], work: Callable[[str], None]):
        self.workers = workers
        self.work = work

    def add_work(self, key: str, created_at: float, fire_at: float) -> None:
        """AddWork: an item already queued under ``key`` is kept."""
        if key in self.workers:
            return
        if fire_at <= created_at:
            self.work(key)
            return
        self.workers[key] = {"createdAt": created_at, "fireAt": fire_at}

    def cancel_work(self, key: str) -> bool:
        """CancelWork: True when a scheduled item was cancelled."""
        return self.workers.pop(key, None) is not None

    def get_worker(self, key: str) -> dict[str, float] | None:
        """GetWorkerUnsafe."""
        return self.workers.get(key)

    def fire(self, now: float) -> None:
        """The timers that have gone off by ``now``, in time order; each item leaves the queue
        as it runs."""
        for _, key in sorted((w["fireAt"], k) for k, w in self.workers.items() if w["fireAt"] <= now + 1e-9):
            del self.workers[key]
            self.work(key)


class Controller:
    """One pass of the controller over what changed: ``node_updated`` and ``pod_updated`` are
    the informers' handlers (node updates first, as upstream's workers prefer them), ``fire``
    runs the evictions that are due. The changes to apply accumulate in ``changes``, in order.

    ``pods_on_node(name)`` lists the pods bound to a node (the ``spec.nodeName`` index) and
    ``get_pod(namespace, name)`` reads one (the pod lister)."""

    def __init__(self, state: State, now: float, pods_on_node: Callable[[str], list[dict]],
                 get_pod: Callable[[str, str], dict | None]):
        self.state = state
        self.now = now
        self.pods_on_node = pods_on_node
        self.get_pod = get_pod
        self.changes: list[Change] = []
        self.queue = TimedWorkerQueue(state.workers, self._evict)

    # -- the informers' handlers --------------------------------------------------------------
    def node_updated(self, name: str, node: dict | None) -> bool:
        """NodeUpdated + handleNodeUpdate: nothing when the node's NoExecute taints are the ones
        observed last; else remember them and look at every pod on the node. True when the
        node was handled."""
        taints = no_execute_taints(((node or {}).get("spec") or {}).get("taints"))
        if node is not None and taints == self.state.tainted_nodes.get(name, []):
            return False
        if node is None:
            self.state.tainted_nodes.pop(name, None)
            return True
        if taints:
            self.state.tainted_nodes[name] = taints
        else:
            self.state.tainted_nodes.pop(name, None)
        pods = self.pods_on_node(name)
        if not taints:
            for pod in pods:
                self._cancel_with_event(pod_key(pod))
            return True
        for pod in pods:
            self._process_pod_on_node(pod, taints)
        return True

    def pod_updated(self, old: dict | None, new: dict | None) -> bool:
        """PodUpdated + handlePodUpdate: a pod added or deleted, or whose node or tolerations
        changed; a deleted pod's eviction is cancelled, one on a tainted node looked at. True
        when the update passed the filter."""
        if old is not None and new is not None and _spec(old, "tolerations") == _spec(new, "tolerations") \
                and _spec(old, "nodeName") == _spec(new, "nodeName"):
            return False
        pod = new if new is not None else old
        if new is None:
            self._cancel_with_event(pod_key(pod))
            return True
        node = _spec(new, "nodeName")
        taints = self.state.tainted_nodes.get(node) if node else None
        if taints:
            self._process_pod_on_node(new, taints)
        return True

    # -- processPodOnNode ----------------------------------------------------------------------
    def _process_pod_on_node(self, pod: dict, taints: list[dict]) -> None:
        key = pod_key(pod)
        all_tolerated, used = matching_tolerations(taints, _spec(pod, "tolerations") or [])
        if not all_tolerated:
            self._cancel_with_event(key)
            self.queue.add_work(key, self.now, self.now)
            return
        min_time = min_toleration_time(used)
        if min_time is None:
            self._cancel_with_event(key)
            return
        if self.queue.get_worker(key) is not None:
            return  # created before now: the scheduled eviction stands
        self.queue.add_work(key, self.now, self.now + min_time)

    def _cancel_with_event(self, key: str) -> None:
        """cancelWorkWithEvent: a scheduled eviction is dropped, with the event saying so."""
        if not self.queue.cancel_work(key):
            return
        ns, name = key.split("/", 1)
        self.changes.append(Change("event", _ref(ns, name), events=[Event(
            _ref(ns, name), "Normal", EVICTION_REASON, f"Cancelling deletion of Pod {key}", TAINT_EVICTION_CONTROLLER)]))

    # -- the timed workers ---------------------------------------------------------------------
    def fire(self) -> None:
        """Run every scheduled eviction that is due."""
        self.queue.fire(self.now)

    def _evict(self, key: str) -> None:
        """deletePodHandler: the event, then addConditionAndDeletePod (a pod gone meanwhile
        makes the Get fail: nothing more)."""
        ns, name = key.split("/", 1)
        self.changes.append(Change("event", _ref(ns, name), events=[Event(
            _ref(ns, name), "Normal", EVICTION_REASON, f"Marking for deletion Pod {key}", TAINT_EVICTION_CONTROLLER)]))
        pod = self.get_pod(ns, name)
        if pod is None:
            return
        new = deepcopy(pod)
        if update_pod_condition(new, "DisruptionTarget", "True", DISRUPTION_REASON, DISRUPTION_MESSAGE, self.now):
            self.changes.append(Change("update_status", new))
        self.changes.append(Change("delete", new, propagation="Background"))


def _spec(pod: dict, field_: str):
    return (pod.get("spec") or {}).get(field_)


def _ref(namespace: str, name: str) -> dict:
    """The object reference upstream's events carry: kind, apiVersion and the namespaced name."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}}
