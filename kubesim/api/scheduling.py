"""scheduling.k8s.io/v1 PriorityClass: defaulting, validation and the Priority admission plugin's
checks on PriorityClass objects, as a v1.35 API server applies them.

Upstream (kubernetes/kubernetes):

- ``pkg/apis/scheduling/v1/defaults.go`` (``SetDefaults_PriorityClass``: preemptionPolicy
  ``PreemptLowerPriority``) and ``pkg/registry/scheduling/priorityclass/strategy.go``
  (``PrepareForCreate``: generation 1; nothing on update);
- ``pkg/apis/scheduling/validation/validation.go`` (``ValidatePriorityClass``,
  ``ValidatePriorityClassUpdate``: value and preemptionPolicy immutable) with
  ``pkg/apis/scheduling/v1/helpers.go`` (``SystemPriorityClasses``, ``IsKnownSystemPriorityClass``)
  and ``pkg/apis/scheduling/types.go`` (``HighestUserDefinablePriority`` = 1e9,
  ``SystemCriticalPriority`` = 2e9, the ``system-`` prefix);
- ``plugin/pkg/admission/priority/admission.go`` (``validatePriorityClass``: one globalDefault);
- ``pkg/registry/scheduling/priorityclass/storage/storage.go`` (``Delete``: system classes stay).

The pod side of the Priority plugin (resolving ``priorityClassName``) is
``kubesim.api.defaults.admit_priority``.
"""

from __future__ import annotations

from kubesim.errors import FieldError, Forbidden, forbidden

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]  # core ValidatePreemptionPolicy's order

# name -> (value, description): the classes every API server creates at start-up
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": (SYSTEM_CRITICAL_PRIORITY + 1000,
                             "Used for system critical pods that must not be moved from their current node."),
    "system-cluster-critical": (SYSTEM_CRITICAL_PRIORITY,
                                "Used for system critical pods that must run in the cluster, but can be moved "
                                "to another node if necessary."),
}


def system_priority_class_manifests() -> list[dict]:
    """The system PriorityClasses as the API server's post-start hook creates them."""
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
             "value": value, "description": description}
            for name, (value, description) in SYSTEM_PRIORITY_CLASSES.items()]


# ---------------------------------------------------------------------------------------------
# defaulting

def default_priority_class(pc: dict) -> None:
    """SetDefaults_PriorityClass + PrepareForCreate."""
    if pc.get("preemptionPolicy") is None:
        pc["preemptionPolicy"] = "PreemptLowerPriority"
    pc.setdefault("metadata", {})["generation"] = 1


def default_priority_class_update(new: dict, old: dict) -> None:
    if new.get("preemptionPolicy") is None:
        new["preemptionPolicy"] = "PreemptLowerPriority"
    new.setdefault("metadata", {})["generation"] = (old.get("metadata") or {}).get("generation") or 1


# ---------------------------------------------------------------------------------------------
# validation

def _value(pc: dict) -> int:
    v = pc.get("value")
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def is_known_system_priority_class(name: str, value: int, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass: None when it is one, else upstream's reason."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if known[0] != value:
        return f"value of {name} PriorityClass must be {known[0]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def validate_priority_class(pc: dict) -> list[FieldError]:
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta
    from kubesim.errors import required, unsupported

    meta = pc.get("metadata") or {}
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    name = meta.get("name") or ""
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        why = is_known_system_priority_class(name, _value(pc), bool(pc.get("globalDefault")))
        if why is not None:
            errs.append(forbidden("metadata.name", f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' "
                                                   f"prefix are reserved for system use only. error: {why}"))
    elif _value(pc) > HIGHEST_USER_DEFINABLE_PRIORITY:
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
    from kubesim.api.meta.validation import FIELD_IMMUTABLE_ERROR, validate_object_meta_update
    from kubesim.errors import invalid

    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    if _value(new) != _value(old):
        errs.append(forbidden("value", "may not be changed in an update."))
    if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
        errs.append(invalid("preemptionPolicy", new.get("preemptionPolicy"), FIELD_IMMUTABLE_ERROR))
    return errs


# ---------------------------------------------------------------------------------------------
# admission

def default_priority_class_of(classes: list[dict]) -> dict | None:
    """getDefaultPriorityClass: the globalDefault class; of several, the lowest value."""
    best = None
    for pc in classes:
        if pc.get("globalDefault") and (best is None or _value(best) > _value(pc)):
            best = pc
    return best


def admit_priority_class(pc: dict, old: dict | None, stored: list[dict]) -> None:
    """The Priority plugin's Validate for a PriorityClass create or update: only one default."""
    if not pc.get("globalDefault"):
        return
    name = (pc.get("metadata") or {}).get("name") or ""
    dpc = default_priority_class_of(stored)
    if dpc is None:
        return
    dname = (dpc.get("metadata") or {}).get("name") or ""
    if old is None or dname != name:
        raise Forbidden(f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: PriorityClass {dname} is '
                        "already marked as default. Only one default can exist")


def check_delete(name: str) -> None:
    """The PriorityClass REST storage's Delete: system classes cannot be deleted."""
    if name in SYSTEM_PRIORITY_CLASSES:
        raise Forbidden(f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this is a system priority '
                        "class and cannot be deleted")


DEFAULTERS = {"PriorityClass": default_priority_class}
UPDATE_DEFAULTERS = {"PriorityClass": default_priority_class_update}
VALIDATORS = {"PriorityClass": (validate_priority_class, validate_priority_class_update)}
