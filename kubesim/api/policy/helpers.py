"""PodDisruptionBudget helpers shared by the disruption controller and the eviction subresource.

Upstream: staging/src/k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go
(``UpdateDisruptionAllowedCondition``, ``ConditionsAreUpToDate``) and the field order of
``policy/v1.PodDisruptionBudgetStatus`` (``ordered_status``: how the API server serialises it,
empty optional fields left out). The condition list is set as apimachinery's
``SetStatusCondition`` sets it (``kubesim.api.meta.conditions``).
"""

from __future__ import annotations

from kubesim.api.meta.conditions import set_status_condition
from kubesim.api.meta.helpers import meta

DISRUPTION_ALLOWED = "DisruptionAllowed"
SUFFICIENT_PODS = "SufficientPods"
INSUFFICIENT_PODS = "InsufficientPods"


def update_disruption_allowed_condition(status: dict, now_stamp: str) -> None:
    """pdbhelper.UpdateDisruptionAllowedCondition."""
    allowed = int(status.get("disruptionsAllowed") or 0) > 0
    cond = {"type": DISRUPTION_ALLOWED, "status": "True" if allowed else "False",
            "reason": SUFFICIENT_PODS if allowed else INSUFFICIENT_PODS, "message": "",
            "observedGeneration": status.get("observedGeneration") or 0}
    status["conditions"] = set_status_condition(status.get("conditions") or [], cond, now_stamp)


def conditions_are_up_to_date(pdb: dict) -> bool:
    """pdbhelper.ConditionsAreUpToDate."""
    status = pdb.get("status") or {}
    cond = next((c for c in status.get("conditions") or () if c.get("type") == DISRUPTION_ALLOWED), None)
    if cond is None:
        return False
    if int(status.get("observedGeneration") or 0) != int(meta(pdb).get("generation") or 0):
        return False
    if int(status.get("disruptionsAllowed") or 0) > 0:
        return cond.get("status") == "True" and cond.get("reason") == SUFFICIENT_PODS
    return cond.get("status") == "False" and cond.get("reason") == INSUFFICIENT_PODS


def ordered_status(status: dict) -> dict:
    """PodDisruptionBudgetStatus in its serialisation order (observedGeneration, disruptedPods
    and conditions omitted when empty)."""
    out: dict = {}
    if status.get("observedGeneration"):
        out["observedGeneration"] = status["observedGeneration"]
    if status.get("disruptedPods"):
        out["disruptedPods"] = dict(sorted(status["disruptedPods"].items()))
    for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        out[k] = int(status.get(k) or 0)
    if status.get("conditions"):
        out["conditions"] = status["conditions"]
    return out
