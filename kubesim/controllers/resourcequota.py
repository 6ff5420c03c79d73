"""The resource quota controller: each ResourceQuota's ``status.hard`` is its spec's, and its
``status.used`` what its namespace's objects use.

Upstream: pkg/controller/resourcequota/resource_quota_controller.go (``syncResourceQuota``: the
new status is ``hard`` = ``spec.hard`` and ``used`` = the previous use overwritten by
``quota.CalculateUsage`` over the quota's matching evaluators, masked to the hard resources;
written only when it differs from the stored status) and pkg/quota/v1/resources.go
(``CalculateUsage``), whose evaluation is ``kubesim.api.quota``.

``sync(view)`` reads the ResourceQuotas and the objects of the kinds they count; the engine
(``kubesim.controlplane.components.resource_quota``) runs it only when a quota, or an object of
a kind some quota counts in its namespace, was written or deleted.
"""

from __future__ import annotations

from kubesim.controllers.base import Change, View


def new_status(quota: dict, objects: list[dict], now: float) -> dict:
    """syncResourceQuota's status: the spec's hard limits and the use of each."""
    from kubesim.api import quota as q

    hard = dict((quota.get("spec") or {}).get("hard") or {})
    previous = (quota.get("status") or {}).get("used") or {}
    used = {k: v for k, v in previous.items() if k in hard}
    used.update({k: str(v) for k, v in q.calculate_used(quota, objects, now).items()})
    return {"hard": hard, "used": {k: used[k] for k in sorted(used)}}


def sync(view: View) -> list[Change]:
    from kubesim.api import quota as q

    changes = []
    for quota in view.list("ResourceQuota"):
        md = quota.get("metadata") or {}
        if md.get("deletionTimestamp"):
            continue
        ns = md.get("namespace", "")
        kinds = q.tracked_kinds((quota.get("spec") or {}).get("hard") or {})
        objects = [o for kind in kinds for o in view.list(kind) if (o.get("metadata") or {}).get("namespace") == ns]
        status = new_status(quota, objects, view.now)
        if status != (quota.get("status") or {}):
            changes.append(Change("update_status", {**quota, "status": status}))
    return changes
