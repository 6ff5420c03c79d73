"""The API server's eviction subresource (``POST pods/<name>/eviction``).

Upstream: pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create, canIgnorePDB,
checkAndDecrement, getPodDisruptionBudgets, addConditionAndDeletePod) and
staging/src/k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go.

An eviction is a delete that respects the pod's PodDisruptionBudget:

- a pod that is Pending, has finished (Succeeded/Failed) or is already being deleted caused or
  causes no disruption: it is deleted without looking at budgets;
- a pod matched by more than one PDB cannot be evicted (a 500 the eviction API returns as is);
- an unready pod is deleted without spending the budget when its PDB says
  ``unhealthyPodEvictionPolicy: AlwaysAllow``, or (the default, ``IfHealthyBudget``) when the
  budget is currently met (``currentHealthy >= desiredHealthy > 0``);
- otherwise the budget must allow a disruption: a PDB whose status lags its spec
  (``observedGeneration < generation``) or allows none answers 429 TooManyRequests ("Cannot
  evict pod as it would violate the pod's disruption budget."); else ``disruptionsAllowed`` is
  decremented and the pod recorded in ``status.disruptedPods`` with the time, in the same
  transaction as the delete;
- the pod then gets the ``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``) and is
  deleted gracefully, as ``kubesim.apiserver.objects.delete_object`` deletes pods.

The retries upstream makes on write conflicts have no counterpart: a command holds the state's
write lock, so nothing can change between the read and the write.
"""

from __future__ import annotations

import copy

from kubesim.api import kinds, selectors
from kubesim.api.policy.helpers import (
    ordered_status,
    update_disruption_allowed_condition,
)
from kubesim.errors import Forbidden, NotFound, StatusError, TooManyRequests

MAX_DISRUPTED_POD_SIZE = 2000

VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
EVICTION_REASON = "EvictionByEvictionAPI"
EVICTION_MESSAGE = "Eviction API: evicting"


class EvictionFailure(StatusError):
    """A metav1.Status of failure the eviction subresource returns (code 500, no reason)."""

    reason = "InternalError"
    code = 500


class BudgetViolation(TooManyRequests):
    """The 429 of checkAndDecrement, with the DisruptionBudget cause upstream attaches."""

    def __init__(self, cause: str):
        super().__init__(VIOLATES_BUDGET)
        self.cause = cause


def can_ignore_pdb(pod: dict) -> bool:
    """canIgnorePDB: terminal, pending or already terminating pods."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def pod_disruption_budgets(cluster, pod: dict) -> list[dict]:
    """getPodDisruptionBudgets: the PDBs of the pod's namespace whose selector matches it (an
    unconvertible selector matches nothing; so does a missing one, an empty one matches all)."""
    md = pod.get("metadata") or {}
    labels = md.get("labels") or {}
    out = []
    for pdb in cluster.store.list("PodDisruptionBudget", md.get("namespace", "")):
        try:
            sel = selectors.from_label_selector((pdb.get("spec") or {}).get("selector"))
        except ValueError:
            continue
        if sel.matches(labels):
            out.append(pdb)
    return out


def _is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def evict(cluster, namespace: str, name: str, grace_seconds: int | None = None, dry_run: bool = False) -> None:
    """EvictionREST.Create for pod ``namespace/name``. Raises NotFound, TooManyRequests,
    Forbidden or EvictionFailure as the API server answers; returns when the pod was deleted
    (or, with ``dry_run``, would have been)."""
    store = cluster.store
    pod = store.get("Pod", namespace, name)
    if pod is None:
        raise NotFound("pods", name)
    if can_ignore_pdb(pod):
        _add_condition_and_delete(cluster, pod, grace_seconds, dry_run)
        return
    pdbs = pod_disruption_budgets(cluster, pod)
    if len(pdbs) > 1:
        raise EvictionFailure(MULTIPLE_PDBS)
    if pdbs:
        pdb = pdbs[0]
        if not _spares_unhealthy_pod(pdb, pod):
            check_and_decrement(cluster, pdb, name, dry_run)
    _add_condition_and_delete(cluster, pod, grace_seconds, dry_run)


def _spares_unhealthy_pod(pdb: dict, pod: dict) -> bool:
    """An unready pod that may go without spending the budget (unhealthyPodEvictionPolicy)."""
    if _is_ready(pod):
        return False
    policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy")
    if policy == "AlwaysAllow":
        return True
    status = pdb.get("status") or {}
    desired = int(status.get("desiredHealthy") or 0)
    return int(status.get("currentHealthy") or 0) >= desired > 0


def check_and_decrement(cluster, pdb: dict, pod_name: str, dry_run: bool) -> None:
    """checkAndDecrement: refuse when the budget allows no disruption, else spend one and record
    the pod in status.disruptedPods (written at once: same transaction as the delete)."""
    md, status = pdb.get("metadata") or {}, pdb.get("status") or {}
    name = md.get("name", "")
    if int(status.get("observedGeneration") or 0) < int(md.get("generation") or 0):
        raise BudgetViolation(f"The disruption budget {name} is still being processed by the server.")
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: pdb disruptions allowed is negative')
    if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_POD_SIZE:
        raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: DisruptedPods map too big - too many '
                        "evictions not confirmed by PDB controller")
    if allowed == 0:
        raise BudgetViolation(f"The disruption budget {name} needs {int(status.get('desiredHealthy') or 0)} healthy "
                              f"pods and has {int(status.get('currentHealthy') or 0)} currently")
    if dry_run:
        return
    new = copy.deepcopy(pdb)
    st = new.setdefault("status", {})
    st["disruptionsAllowed"] = allowed - 1
    if st["disruptionsAllowed"] == 0:
        update_disruption_allowed_condition(st, cluster.stamp())
    disrupted = dict(st.get("disruptedPods") or {})
    disrupted[pod_name] = cluster.stamp()
    st["disruptedPods"] = dict(sorted(disrupted.items()))
    _reorder_status(new)
    cluster.store.put(new)


def _reorder_status(pdb: dict) -> None:
    pdb["status"] = ordered_status(pdb["status"])


def _add_condition_and_delete(cluster, pod: dict, grace_seconds: int | None, dry_run: bool) -> None:
    """addConditionAndDeletePod: the DisruptionTarget condition (podutil.UpdatePodCondition),
    then the API server's graceful delete."""
    from kubesim.apiserver import objects

    md = pod["metadata"]
    if dry_run:
        return
    new = copy.deepcopy(pod)
    conds = new.setdefault("status", {}).setdefault("conditions", [])
    cond = {"lastProbeTime": None, "lastTransitionTime": cluster.stamp(), "message": EVICTION_MESSAGE,
            "reason": EVICTION_REASON, "status": "True", "type": "DisruptionTarget"}
    for i, c in enumerate(conds):
        if c.get("type") == "DisruptionTarget":
            if c.get("status") == "True" and c.get("lastTransitionTime"):
                cond["lastTransitionTime"] = c["lastTransitionTime"]
            conds[i] = cond
            break
    else:
        conds.append(cond)
    if new != pod:
        cluster.fields.handled(new)  # the eviction's storage update: managedFields stay
        cluster.store.put(new)
    objects.delete_object(cluster, kinds.by_kind("Pod"), md.get("namespace", ""), md["name"],
                          grace_seconds=grace_seconds)
