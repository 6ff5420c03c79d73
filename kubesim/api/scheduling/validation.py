"""scheduling.k8s.io/v1 PriorityClass validation, as its registry strategy runs it.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/scheduling/validation/validation.go``
(``ValidatePriorityClass``: the ``system-`` prefix is reserved for the known system classes,
user classes stay at or below ``HighestUserDefinablePriority``; ``ValidatePriorityClassUpdate``:
value and preemptionPolicy are immutable). That only one class may be the global default is the
Priority admission plugin's check (``kubesim.apiserver.admission.priority``).
"""

from __future__ import annotations

from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.api.scheduling.helpers import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    PREEMPTION_POLICIES,
    SYSTEM_PRIORITY_CLASS_PREFIX,
    is_known_system_priority_class,
    priority_value,
)
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported


def validate_priority_class(pc: dict) -> list[FieldError]:
    """ValidatePriorityClass."""
    meta = pc.get("metadata") or {}
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    name = meta.get("name") or ""
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        why = is_known_system_priority_class(name, priority_value(pc), bool(pc.get("globalDefault")))
        if why is not None:
            errs.append(forbidden("metadata.name", f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' "
                                                   f"prefix are reserved for system use only. error: {why}"))
    elif priority_value(pc) > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden("value", f"maximum allowed value of a user defined priority is "
                                       f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = pc.get("preemptionPolicy")
    if policy is not None:
        if policy == "":
            errs.append(required("preemptionPolicy", ""))
        elif policy not in PREEMPTION_POLICIES:
            errs.append(unsupported("preemptionPolicy", policy, PREEMPTION_POLICIES))
    return errs


def validate_priority_class_update(new: dict, old: dict) -> list[FieldError]:
    """ValidatePriorityClassUpdate."""
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    if priority_value(new) != priority_value(old):
        errs.append(forbidden("value", "may not be changed in an update."))
    if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
        errs.append(invalid("preemptionPolicy", new.get("preemptionPolicy"), FIELD_IMMUTABLE_ERROR))
    return errs
