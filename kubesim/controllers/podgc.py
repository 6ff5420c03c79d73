"""The pod garbage collector (PodGC): every ``gcCheckPeriod`` it force-deletes the pods nothing
else will ever remove.

Upstream: pkg/controller/podgc/gc_controller.go. One pass (``gc``) does, in this order:

- ``gcTerminated``: when more than ``--terminated-pod-gc-threshold`` (12500) pods have
  finished (phase neither Pending, Running nor Unknown), the excess, evicted pods first, then
  oldest first (``byEvictionAndCreationTimestamp``: creationTimestamp, then name);
- ``gcTerminating``: pods being deleted on a node that is not Ready and carries the
  ``node.kubernetes.io/out-of-service`` taint (any value or effect: non-graceful node shutdown);
- ``gcOrphaned``: pods bound to a node that does not exist, once the node has been missing for
  the ``quarantineTime`` (40 s; upstream's delaying queue of node names, ``AddAfter``), with
  the ``DisruptionTarget`` condition (reason ``DeletionByPodGC``, message ``PodGC: node no
  longer exists``);
- ``gcUnscheduledTerminating``: pods being deleted that never got a node.

Each pod is first marked ``Failed`` (markFailedAndDeletePod, unless it has finished already),
then deleted with a grace period of 0. PodGC records no events.

The pass runs on the ticks of a 20 s period (kubesim puts them at multiples of 20 s of the
simulated clock), but only at the ticks where it can find work: a pod or node written since it
last looked that one of the four could pick up, or a missing node's quarantine ending. A pod
pinned to a missing node at 10:00:05 is thus seen at 10:00:20 and deleted at 10:01:00. What the
controller keeps between passes (the quarantine and its next tick) is ``State``, kept in the
store between commands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from kubesim.api.meta.helpers import creation_time, meta, name_of
from kubesim.api.record import Record
from kubesim.controllers.base import Change, deepcopy, update_pod_condition

GC_CHECK_PERIOD = 20.0
QUARANTINE_TIME = 40.0
TERMINATED_POD_GC_THRESHOLD = 12500  # kube-controller-manager --terminated-pod-gc-threshold
OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service"
ORPHAN_REASON = "DeletionByPodGC"
ORPHAN_MESSAGE = "PodGC: node no longer exists"
EVICTED_REASON = "Evicted"  # pkg/kubelet/eviction: eviction.Reason


class State(Record):
    """The missing nodes in quarantine (name -> when it ends) and the next tick with work."""
    __slots__ = ("due", "quarantine")

    def __init__(self, quarantine: dict[str, float] | None = None, due: float | None = None):
        self.quarantine = {} if quarantine is None else quarantine
        self.due = due

    @classmethod
    def from_dict(cls, d: dict | None) -> State:
        d = d or {}
        return cls(dict(d.get("quarantine") or {}), d.get("due"))

    def to_dict(self) -> dict:
        return {"due": self.due, "quarantine": {k: self.quarantine[k] for k in sorted(self.quarantine)}}


def next_tick(t: float) -> float:
    """The first tick of the gc period at or after ``t``."""
    n = math.ceil(t / GC_CHECK_PERIOD - 1e-9)
    return n * GC_CHECK_PERIOD


# ---------------------------------------------------------------------------------------------
# predicates

def is_pod_terminated(pod: dict) -> bool:
    """isPodTerminated: any phase but Pending, Running and Unknown (an empty one included)."""
    return (pod.get("status") or {}).get("phase") not in ("Pending", "Running", "Unknown")


def is_pod_terminating(pod: dict) -> bool:
    return bool(meta(pod).get("deletionTimestamp"))


def pod_is_evicted(pod: dict) -> bool:
    """eviction.PodIsEvicted: Failed with reason Evicted (the kubelet's node-pressure eviction)."""
    st = pod.get("status") or {}
    return st.get("phase") == "Failed" and st.get("reason") == EVICTED_REASON


def is_node_ready(node: dict) -> bool:
    """nodeutil.IsNodeReady."""
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (node.get("status") or {}).get("conditions") or ())


def has_out_of_service_taint(node: dict) -> bool:
    """taints.TaintKeyExists(node's taints, node.kubernetes.io/out-of-service)."""
    return any(t.get("key") == OUT_OF_SERVICE_TAINT for t in (node.get("spec") or {}).get("taints") or ())


def _node_name(pod: dict) -> str:
    return (pod.get("spec") or {}).get("nodeName") or ""


def eviction_and_creation_order(pod: dict) -> tuple:
    """byEvictionAndCreationTimestamp: evicted pods first, then by creationTimestamp, then name."""
    return (not pod_is_evicted(pod), creation_time(pod), name_of(pod))


# ---------------------------------------------------------------------------------------------
# the four collections: which pods go

def gc_terminated(pods: Iterable[dict], threshold: int = TERMINATED_POD_GC_THRESHOLD) -> list[dict]:
    """gcTerminated: the finished pods beyond ``threshold`` (0 or less: none)."""
    if threshold <= 0:
        return []
    terminated = [p for p in pods if is_pod_terminated(p)]
    excess = len(terminated) - threshold
    if excess <= 0:
        return []
    return sorted(terminated, key=eviction_and_creation_order)[:excess]


def gc_terminating(pods: Iterable[dict], get_node: Callable[[str], dict | None]) -> list[dict]:
    """gcTerminating: pods being deleted on a not-ready node tainted out-of-service."""
    out = []
    for pod in pods:
        if not is_pod_terminating(pod):
            continue
        node = get_node(_node_name(pod)) if _node_name(pod) else None
        if node is not None and not is_node_ready(node) and has_out_of_service_taint(node):
            out.append(pod)
    return sorted(out, key=eviction_and_creation_order)


def gc_orphaned(pods: list[dict], node_exists: Callable[[str], bool], quarantine: dict[str, float],
                now: float, quarantine_time: float = QUARANTINE_TIME) -> list[dict]:
    """gcOrphaned: pods bound to a node whose quarantine ended with the node still missing.
    ``quarantine`` (node -> end) is upstream's delaying queue, changed in place: an entry whose
    time has come is taken out (discoverDeletedNodes), every missing node a pod names is put
    in (AddAfter: an entry already waiting keeps its earlier time)."""
    ready = {n for n, at in quarantine.items() if at <= now + 1e-9}
    for n in ready:
        del quarantine[n]
    for pod in pods:
        n = _node_name(pod)
        if n and n not in quarantine and not node_exists(n):
            quarantine[n] = now + quarantine_time
    deleted = {n for n in ready if not node_exists(n)}
    return [p for p in pods if _node_name(p) in deleted]


def gc_unscheduled_terminating(pods: Iterable[dict]) -> list[dict]:
    """gcUnscheduledTerminating: pods being deleted that were never bound to a node."""
    return [p for p in pods if is_pod_terminating(p) and not _node_name(p)]


# ---------------------------------------------------------------------------------------------

def mark_failed_and_delete(pod: dict, now: float, orphaned: bool = False) -> list[Change]:
    """markFailedAndDeletePod(WithCondition): a pod that has not finished is patched to Failed
    (status.observedGeneration its generation; an orphan also gets the DisruptionTarget
    condition), then deleted with grace period 0."""
    changes = []
    if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
        new = deepcopy(pod)
        status = new.setdefault("status", {})
        status["phase"] = "Failed"
        generation = meta(pod).get("generation") or 0
        if generation:
            status["observedGeneration"] = generation
        if orphaned:
            update_pod_condition(new, "DisruptionTarget", "True", ORPHAN_REASON, ORPHAN_MESSAGE, now)
        changes.append(Change("update_status", new))
        pod = new
    changes.append(Change("delete", pod, propagation="Background", grace_seconds=0))
    return changes


def gc(pods: list[dict], get_node: Callable[[str], dict | None], state: State, now: float,
       threshold: int = TERMINATED_POD_GC_THRESHOLD) -> list[Change]:
    """One pass at ``now`` (a tick): the changes, in upstream's order; ``state`` is updated (the
    quarantine, and ``due``: the tick at which a quarantine ends, None when none waits).

    ``pods`` may be only the candidates, as long as it holds every pod one of the four could
    pick: those being deleted, those bound to a node that does not exist and, when more than
    ``threshold`` pods exist, all of them."""
    changes: list[Change] = []
    for pod in gc_terminated(pods, threshold):
        changes += mark_failed_and_delete(pod, now)
    for pod in gc_terminating(pods, get_node):
        changes += mark_failed_and_delete(pod, now)
    for pod in gc_orphaned(pods, lambda n: get_node(n) is not None, state.quarantine, now):
        changes += mark_failed_and_delete(pod, now, orphaned=True)
    for pod in gc_unscheduled_terminating(pods):
        changes += mark_failed_and_delete(pod, now)
    state.due = next_tick(min(state.quarantine.values())) if state.quarantine else None
    return changes


def may_collect(pod: dict, get_node: Callable[[str], dict | None], many_pods: bool) -> bool:
    """Whether a pass could pick up this pod (``many_pods``: more than the threshold exist)."""
    n = _node_name(pod)
    node = get_node(n) if n else None
    if n and node is None:
        return True
    if is_pod_terminating(pod) and (not n or (not is_node_ready(node) and has_out_of_service_taint(node))):
        return True
    return many_pods and is_pod_terminated(pod)
