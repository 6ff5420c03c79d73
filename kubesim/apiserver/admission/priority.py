"""Priority: a pod's priority comes from its PriorityClass; only one class is the global default.

Upstream: plugin/pkg/admission/priority/admission.go:

- ``admitPod`` on create: ``priorityClassName`` resolved to ``priority`` and
  ``preemptionPolicy`` (the system classes are always known; no name: the global default class,
  the lowest-valued one if several claim it, else priority 0); an unknown class, or a
  ``priority``/``preemptionPolicy`` in the spec that contradicts the class, is refused;
- ``admitPod`` on update: the priority and preemption policy the pod had are kept when the
  update leaves them out (validation refuses changing them);
- ``validatePriorityClass`` on a PriorityClass create or update: a second ``globalDefault``
  class is refused (``getDefaultPriorityClass``: of several defaults, the lowest value).
"""

from __future__ import annotations

from kubesim.api.scheduling.helpers import SYSTEM_PRIORITY_CLASSES, priority_value
from kubesim.apiserver.admission.interfaces import (
    CREATE,
    UPDATE,
    Attributes,
    MutationPlugin,
    ValidationPlugin,
    forbidden,
)


class Priority(MutationPlugin, ValidationPlugin):
    name = "Priority"

    def admit(self, a: Attributes) -> None:
        if a.kind != "Pod":
            return
        if a.operation == CREATE:
            classes = None
            if a.lister is not None and _needs_priority_classes(a.obj):
                classes = {pc["metadata"]["name"]: pc for pc in a.lister("PriorityClass")}
            admit_pod(a, classes)
        elif a.operation == UPDATE:
            spec, old_spec = a.obj.setdefault("spec", {}), (a.old or {}).get("spec") or {}
            for key in ("priority", "preemptionPolicy"):
                if spec.get(key) is None and old_spec.get(key) is not None:
                    spec[key] = old_spec[key]

    def validate(self, a: Attributes) -> None:
        if a.kind == "PriorityClass" and a.operation in (CREATE, UPDATE) and a.obj.get("globalDefault") \
                and a.lister is not None:
            others = [pc for pc in a.lister("PriorityClass") if pc["metadata"].get("name") != a.name or a.old is not None]
            validate_priority_class(a, others)


def _needs_priority_classes(pod: dict) -> bool:
    """A pod naming a system class resolves without the store; any other pod needs the stored
    classes (its class, or the globalDefault one)."""
    name = (pod.get("spec") or {}).get("priorityClassName") if isinstance(pod.get("spec"), dict) else None
    return name not in SYSTEM_PRIORITY_CLASSES


def _class_fields(pc) -> tuple[int, str, bool]:
    if isinstance(pc, (int, float)) and not isinstance(pc, bool):
        return int(pc), "PreemptLowerPriority", False
    pc = pc or {}
    return (int(pc.get("value") or 0), pc.get("preemptionPolicy") or "PreemptLowerPriority",
            bool(pc.get("globalDefault")))


def admit_pod(a: Attributes, priority_classes=None) -> None:
    """Resolve the pod's spec.priority from its class. ``priority_classes`` maps PriorityClass
    names to PriorityClass objects (or dicts with ``value``, ``globalDefault``,
    ``preemptionPolicy``, or bare values); the two system classes are always known."""
    spec = a.obj.setdefault("spec", {})
    classes = {name: {"value": value} for name, (value, _) in SYSTEM_PRIORITY_CLASSES.items()}
    for name, pc in (priority_classes or {}).items():
        classes[name] = pc
    pc_name = spec.get("priorityClassName") or ""
    if not pc_name:
        default = None
        for name, pc in classes.items():
            value, policy, global_default = _class_fields(pc)
            if global_default and (default is None or value < default[1]):
                default = (name, value, policy)
        if default is None:
            default = ("", 0, "PreemptLowerPriority")
        pc_name, priority, policy = default
        if pc_name:
            spec["priorityClassName"] = pc_name
    else:
        if pc_name not in classes:
            raise forbidden(a, f"no PriorityClass with name {pc_name} was found")
        priority, policy, _ = _class_fields(classes[pc_name])
    given = spec.get("priority")
    if given is not None and given != priority:
        raise forbidden(a, f"the integer value of priority ({given}) must not be provided in pod spec; "
                           f"priority admission controller computed {priority} from the given PriorityClass name")
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise forbidden(a, f"the string value of PreemptionPolicy ({given_policy}) must not be provided in "
                           f"pod spec; priority admission controller computed {policy} from the given "
                           "PriorityClass name")
    spec["preemptionPolicy"] = policy


def default_priority_class_of(classes: list[dict]) -> dict | None:
    """getDefaultPriorityClass: the globalDefault class; of several, the lowest value."""
    best = None
    for pc in classes:
        if pc.get("globalDefault") and (best is None or priority_value(best) > priority_value(pc)):
            best = pc
    return best


def validate_priority_class(a: Attributes, stored: list[dict]) -> None:
    """validatePriorityClass: only one default (an update may keep the class that is it)."""
    if not a.obj.get("globalDefault"):
        return
    dpc = default_priority_class_of(stored)
    if dpc is None:
        return
    dname = (dpc.get("metadata") or {}).get("name") or ""
    if a.old is None or dname != a.name:
        raise forbidden(a, f"PriorityClass {dname} is already marked as default. Only one default can exist")
