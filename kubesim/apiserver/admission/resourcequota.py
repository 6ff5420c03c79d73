"""ResourceQuota: a create that would take a namespace past one of its quotas is refused.

Upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/admission.go and
controller.go (``CheckRequest``), with the evaluators of pkg/quota/v1/evaluator/core and
pkg/quota/v1/generic (``kubesim.api.quota``). The last plugin of the chain, validating only. For
each quota of the object's namespace whose ``status.hard`` names something the object uses and
whose scopes all match it: a pod must set the requests and limits the quota limits (``failed
quota: q: must specify limits.cpu for: c``), the quota's use must be known (``status unknown
for quota``), and the use plus the object's may not pass the hard limit (``exceeded quota: q,
requested: pods=1, used: pods=2, limited: pods=2``).

Where kubesim differs: upstream adds each admitted object's usage to the quota's
``status.used`` in the same request, and the resource quota controller recomputes it later;
kubesim computes the quota's use from the namespace's objects at each request (what both
arrive at), so ``status.used`` is the controller's alone. Updates are charged as upstream
charges them (a Service changing type, a claim growing, a pod becoming terminating: what the
new version adds to the old one's use).
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    Attributes,
    ValidationPlugin,
    forbidden,
)


class ResourceQuota(ValidationPlugin):
    name = "ResourceQuota"

    def validate(self, a: Attributes) -> None:
        if a.lister is None:
            return
        from kubesim.api import quota as q

        if not q.handles(a.operation, a.obj, a.old):
            return
        ns = (a.obj.get("metadata") or {}).get("namespace") or ""
        if not ns:
            return
        quotas = [rq for rq in a.lister("ResourceQuota") if (rq.get("metadata") or {}).get("namespace") == ns]
        if not quotas:
            return
        from kubesim.clock import parse_time

        stamp = (a.obj.get("metadata") or {}).get("creationTimestamp")
        now = parse_time(stamp) if stamp else 0.0

        def used_of(quota: dict) -> dict:
            hard = list((quota.get("status") or {}).get("hard") or {})
            objects = [o for kind in q.tracked_kinds(hard) for o in a.lister(kind)
                       if (o.get("metadata") or {}).get("namespace") == ns]
            spec_quota = {**quota, "spec": {**(quota.get("spec") or {}), "hard": (quota.get("status") or {}).get("hard")}}
            return q.calculate_used(spec_quota, objects, now)

        reason = q.check_request(quotas, a.obj, now, used_of, a.old)
        if reason:
            raise forbidden(a, reason)
