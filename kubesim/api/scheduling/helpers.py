"""scheduling.k8s.io/v1 PriorityClass helpers: the system classes and the priority bounds.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/scheduling/types.go``
(``HighestUserDefinablePriority`` = 1e9, ``SystemCriticalPriority`` = 2e9, the ``system-`` prefix,
``SystemClusterCritical``/``SystemNodeCritical``) and ``pkg/apis/scheduling/v1/helpers.go``
(``SystemPriorityClasses``, ``IsKnownSystemPriorityClass``). The API server creates the system
classes at start-up (``pkg/registry/scheduling/rest/storage_scheduling.go``), validation
reserves the prefix, the Priority admission plugin always knows them and their REST storage
refuses to delete them.
"""

from __future__ import annotations

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]  # core ValidatePreemptionPolicy's order

# name -> (value, description): the classes every API server creates at start-up
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": (SYSTEM_CRITICAL_PRIORITY + 1000,
                             "Used for system critical pods that must not be moved from their current node."),
    "system-cluster-critical": (SYSTEM_CRITICAL_PRIORITY,
                                ("Used for system critical pods that must run in the cluster, but can be moved "
                                 "to another node if necessary.")),
}


def system_priority_class_manifests() -> list[dict]:
    """The system PriorityClasses as the API server's post-start hook creates them."""
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
             "value": value, "description": description}
            for name, (value, description) in SYSTEM_PRIORITY_CLASSES.items()]


def priority_value(pc: dict) -> int:
    """A PriorityClass's value (0 when it has none, or not a number)."""
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
