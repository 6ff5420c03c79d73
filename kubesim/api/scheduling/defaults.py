"""scheduling.k8s.io/v1 scheme defaulting: PriorityClass.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/scheduling/v1/defaults.go``
(``SetDefaults_PriorityClass``: preemptionPolicy ``PreemptLowerPriority``).
"""

from __future__ import annotations


def set_defaults_priority_class(pc: dict) -> None:
    """SetDefaults_PriorityClass."""
    if pc.get("preemptionPolicy") is None:
        pc["preemptionPolicy"] = "PreemptLowerPriority"
