"""coordination.k8s.io/v1 validation: Lease, as its registry strategy runs it.

Upstream (v1.35): pkg/apis/coordination/validation/validation.go (``ValidateLease``: the object
meta with a DNS-subdomain name, then ``ValidateLeaseSpec``; ``ValidateLeaseUpdate``: the meta
update, then the spec again). The spec's rules: ``leaseDurationSeconds`` greater than 0,
``leaseTransitions`` not negative, a ``preferredHolder`` only with a ``strategy``. ``strategy``
and ``preferredHolder`` belong to CoordinatedLeaderElection (beta, off by default in v1.35): the
strategy drops them before validation, so their own checks never run here. ``acquireTime`` and
``renewTime`` are MicroTimes the decoder has already parsed.
"""

from __future__ import annotations

from kubesim.api.meta.validation import (
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, forbidden, invalid


def validate_lease(lease: dict) -> list[FieldError]:
    errs = validate_object_meta(lease.get("metadata") or {}, True, name_is_dns_subdomain)
    return errs + validate_lease_spec(lease.get("spec"))


def validate_lease_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    return errs + validate_lease_spec(new.get("spec"))


def validate_lease_spec(spec, path: str = "spec") -> list[FieldError]:
    spec = spec if isinstance(spec, dict) else {}
    errs: list[FieldError] = []
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errs.append(invalid(f"{path}.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errs.append(invalid(f"{path}.leaseTransitions", transitions, "must be greater than or equal to 0"))
    if spec.get("preferredHolder") and not spec.get("strategy"):
        errs.append(forbidden(f"{path}.preferredHolder", "may only be specified if `strategy` is defined"))
    return errs
