"""The ReplicaSet controller: pods toward spec.replicas, and the ReplicaSet's status.

Upstream: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
getPodsToDelete, claimPods), replica_set_utils.go (calculateStatus, updateReplicaSetStatus),
pkg/controller/controller_utils.go (RealPodControl: the SuccessfulCreate/SuccessfulDelete events,
GetPodFromTemplate, FilterActivePods, ActivePodsWithRanks).

One ``sync`` is one pass of syncReplicaSet over every ReplicaSet: claim pods (adopt orphans that
match the selector, release owned pods that no longer do), create or delete the difference
(``burstReplicas`` 500 at a time; pods named ``<rs>-<5 random chars>``; the ones deleted first
ranked as ActivePodsWithRanks ranks them), then write the status computed from the pods as they
were at the start of the pass — like upstream, whose expectations make the next pass observe
the new pods. With the DeploymentReplicaSetTerminatingReplicas gate (beta, on in v1.35) the
status carries ``terminatingReplicas``.
"""

from __future__ import annotations

from kubesim.api import selectors
from kubesim.api.meta.helpers import (
    controller_ref,
    labels_of,
    meta,
    name_of,
    selector_of,
    uid_of,
)
from kubesim.controllers.base import (
    Change,
    Event,
    View,
    available_at,
    claim,
    deepcopy,
    get_condition,
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    is_pod_terminating,
    pod_from_template,
    rank_pods_for_deletion,
)

COMPONENT = "replicaset-controller"
BURST_REPLICAS = 500
SUCCESSFUL_CREATE = "SuccessfulCreate"
SUCCESSFUL_DELETE = "SuccessfulDelete"


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for rs in view.list("ReplicaSet"):
        if view.wants(rs):
            changes.extend(sync_replicaset(view, rs))
    return changes


def replicas_of(obj: dict) -> int:
    r = (obj.get("spec") or {}).get("replicas")
    return 1 if r is None else int(r)


def related_pods(view: View, rs: dict) -> list[dict]:
    """getIndirectlyRelatedPods: the pods of every ReplicaSet with the same controller (the
    Deployment's other ReplicaSets), for the same-node rank."""
    ns = meta(rs).get("namespace", "")
    ref = controller_ref(rs)
    siblings = [rs]
    if ref is not None:
        siblings = [o for o in view.list("ReplicaSet", ns) if (controller_ref(o) or {}).get("uid") == ref.get("uid")]
    return [p for s in siblings for p in view.owned_by("Pod", uid_of(s))]


def sync_replicaset(view: View, rs: dict) -> list[Change]:
    changes: list[Change] = []
    ns = meta(rs).get("namespace", "")
    selector = selector_of(rs)
    owned_or_orphan = sorted(view.owned_by("Pod", uid_of(rs)) + view.orphans("Pod", ns),
                             key=lambda p: name_of(p))
    active = [p for p in owned_or_orphan if is_pod_active(p)]
    active = claim(view, rs, active, selector, changes)
    terminating = [p for p in owned_or_orphan if is_pod_terminating(p) and (controller_ref(p) or {}).get("uid") == uid_of(rs)]

    manage_err = None
    if not meta(rs).get("deletionTimestamp"):
        manage_err = _manage_replicas(view, rs, active, changes)
    # whether the creates succeed is known once they are applied (failure_status then)
    creating = any(c.op == "create" for c in changes)

    status = calculate_status(rs, active, terminating, view.now, manage_err, creating)
    if _status_differs(rs, status):
        updated = deepcopy(rs)
        status["observedGeneration"] = meta(rs).get("generation", 1)
        updated["status"] = status
        changes.append(Change("update_status", updated))
    # resync after minReadySeconds when the pods are ready but not yet available
    mrs = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
    if mrs > 0 and status.get("readyReplicas", 0) == replicas_of(rs) and status.get("availableReplicas", 0) != replicas_of(rs):
        times = [available_at(p, mrs) for p in active if is_pod_ready(p) and not is_pod_available(p, mrs, view.now)]
        times = [t for t in times if t is not None]
        if times:
            changes.append(Change("wake", rs, at=min(times)))
    return changes


def _manage_replicas(view: View, rs: dict, active: list[dict], changes: list[Change]) -> str | None:
    diff = len(active) - replicas_of(rs)
    ns = meta(rs).get("namespace", "")
    if diff < 0:
        template = (rs.get("spec") or {}).get("template") or {}
        if not ((template.get("metadata") or {}).get("labels")):
            return "unable to create pods, no labels"
        taken: set[str] = set()
        for _ in range(min(-diff, BURST_REPLICAS)):
            name = view.generate_name(name_of(rs) + "-", "Pod", ns, taken)
            pod = pod_from_template(template, rs, ns, name)
            changes.append(Change("create", pod, [Event(rs, "Normal", SUCCESSFUL_CREATE, f"Created pod: {name}", COMPONENT)],
                                  slow_start=uid_of(rs)))
    elif diff > 0:
        diff = min(diff, BURST_REPLICAS)
        if diff < len(active):
            ordered = rank_pods_for_deletion(active, [p for p in related_pods(view, rs) if is_pod_active(p)] or active,
                                             view.now)
        else:
            ordered = list(active)
        for pod in ordered[:diff]:
            changes.append(Change("delete", pod, [Event(rs, "Normal", SUCCESSFUL_DELETE,
                                                        f"Deleted pod: {name_of(pod)}", COMPONENT)],
                                  propagation="Background"))
    return None


def calculate_status(rs: dict, active: list[dict], terminating: list[dict], now: float,
                     manage_err: str | None = None, creating: bool = False) -> dict:
    """replica_set_utils.go calculateStatus (without observedGeneration, set on update). With
    ``creating`` the pass's outcome is not known yet: a ReplicaFailure condition stays until
    :func:`failure_status` learns how the creates went."""
    old = dict(rs.get("status") or {})
    template_sel = selectors.selector_from_set((((rs.get("spec") or {}).get("template") or {}).get("metadata") or {})
                                               .get("labels"))
    mrs = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
    fully = sum(1 for p in active if template_sel.matches(labels_of(p)))
    ready = [p for p in active if is_pod_ready(p)]
    available = sum(1 for p in ready if is_pod_available(p, mrs, now))
    status: dict = {}
    conditions = list(old.get("conditions") or [])
    failure = get_condition(conditions, "ReplicaFailure")
    if manage_err and failure is None:
        reason = "FailedCreate" if len(active) < replicas_of(rs) else "FailedDelete"
        from kubesim.clock import format_time

        conditions.append({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": format_time(now),
                           "reason": reason, "message": manage_err})
    elif not manage_err and failure is not None and not creating:
        conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
    status["replicas"] = len(active)
    if fully:
        status["fullyLabeledReplicas"] = fully
    if ready:
        status["readyReplicas"] = len(ready)
    if available:
        status["availableReplicas"] = available
    status["terminatingReplicas"] = len(terminating)
    if "observedGeneration" in old:
        status["observedGeneration"] = old["observedGeneration"]
    if conditions:
        status["conditions"] = conditions
    return status


def failure_status(rs: dict | None, message: str | None, now: float, event_message: str = "") -> list[Change]:
    """The ReplicaFailure condition after a pass's creates were applied: ``message`` is the API
    server's refusal of one (calculateStatus with manageReplicasErr: reason FailedCreate, the
    error as message, kept as it is while the creates keep failing), None when they succeeded
    (the condition goes)."""
    if rs is None:
        return []
    conditions = list((rs.get("status") or {}).get("conditions") or [])
    failure = get_condition(conditions, "ReplicaFailure")
    if message is not None and failure is None:
        from kubesim.clock import format_time

        conditions.append({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": format_time(now),
                           "reason": "FailedCreate", "message": message})
    elif message is None and failure is not None:
        conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
    else:
        return []
    updated = deepcopy(rs)
    if conditions:
        updated.setdefault("status", {})["conditions"] = conditions
    else:
        updated.setdefault("status", {}).pop("conditions", None)
    return [Change("update_status", updated)]


def _status_differs(rs: dict, new: dict) -> bool:
    """updateReplicaSetStatus's steady-state check."""
    old = rs.get("status") or {}
    for k in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
        if int(old.get(k) or 0) != int(new.get(k) or 0):
            return True
    if old.get("terminatingReplicas") != new.get("terminatingReplicas"):
        return True
    if int(meta(rs).get("generation", 1)) != int(old.get("observedGeneration") or 0):
        return True
    return (old.get("conditions") or []) != (new.get("conditions") or [])
