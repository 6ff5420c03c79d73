"""Leases: stored as written, but for the CoordinatedLeaderElection fields.

Upstream: pkg/registry/coordination/lease/strategy.go (``leaseStrategy``: PrepareForCreate drops
``spec.strategy`` and ``spec.preferredHolder`` while the CoordinatedLeaderElection gate is off,
as it is by default in v1.35; PrepareForUpdate drops them unless the old lease had them;
``ValidateLease``/``ValidateLeaseUpdate`` are ``kubesim.api.coordination.validation``'s). The
API server decodes ``acquireTime`` and ``renewTime`` as MicroTimes and encodes them back in UTC
with six fractional digits (k8s.io/apimachinery pkg/apis/meta/v1/micro_time.go): Canonicalize
does that here.

The node Leases in ``kube-node-lease`` are the kubelets' (kubesim.kubelet.nodelease).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy

_GATED = ("strategy", "preferredHolder")  # CoordinatedLeaderElection's fields
MICRO_TIMES = ("acquireTime", "renewTime")


class LeaseStrategy(Strategy):
    kind = "Lease"

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            for f in _GATED:
                spec.pop(f, None)

    def prepare_for_update(self, new: dict, old: dict) -> None:
        spec, old_spec = new.get("spec"), old.get("spec") or {}
        if isinstance(spec, dict):
            for f in _GATED:
                if old_spec.get(f) is None:
                    spec.pop(f, None)

    def validate(self, obj: dict) -> list:
        from kubesim.api.coordination.validation import validate_lease

        return validate_lease(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.coordination.validation import validate_lease_update

        return validate_lease_update(new, old)

    def canonicalize(self, obj: dict) -> None:
        from kubesim.clock import format_micro_time, parse_timestamp

        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        for f in MICRO_TIMES:
            if isinstance(spec.get(f), str):
                try:
                    spec[f] = format_micro_time(parse_timestamp(spec[f]))
                except (TypeError, ValueError):
                    pass  # the decoder refuses what does not parse


strategy = LeaseStrategy()
