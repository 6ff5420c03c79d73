"""metav1.Condition lists, as apimachinery's helper sets them.

Upstream: staging/src/k8s.io/apimachinery/pkg/api/meta/conditions.go (``SetStatusCondition``):
a new condition gets ``lastTransitionTime`` now; an existing one keeps it unless its status
changes; reason, message and observedGeneration are replaced. Fields are kept in
``metav1.Condition``'s serialisation order.
"""

from __future__ import annotations


def set_status_condition(conditions: list[dict], cond: dict, now_stamp: str) -> list[dict]:
    """apimeta.SetStatusCondition: the list with ``cond`` set (a new list; the input is unchanged)."""
    out = [dict(c) for c in conditions]
    for c in out:
        if c.get("type") == cond["type"]:
            if c.get("status") != cond["status"]:
                c["status"] = cond["status"]
                c["lastTransitionTime"] = now_stamp
            c["reason"] = cond["reason"]
            c["message"] = cond.get("message", "")
            if cond.get("observedGeneration"):
                c["observedGeneration"] = cond["observedGeneration"]
            else:
                c.pop("observedGeneration", None)
            return [_condition_fields(x) for x in out]
    new = {"type": cond["type"], "status": cond["status"], "lastTransitionTime": now_stamp,
           "reason": cond["reason"], "message": cond.get("message", "")}
    if cond.get("observedGeneration"):
        new["observedGeneration"] = cond["observedGeneration"]
    return [_condition_fields(x) for x in out + [new]]


def _condition_fields(c: dict) -> dict:
    """metav1.Condition's fields in their serialisation order."""
    order = ("type", "status", "observedGeneration", "lastTransitionTime", "reason", "message")
    return {k: c[k] for k in order if k in c} | {k: v for k, v in c.items() if k not in order}
