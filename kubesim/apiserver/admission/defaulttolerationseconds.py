"""DefaultTolerationSeconds: a pod tolerates a not-ready or unreachable node for 300 seconds.

Upstream: plugin/pkg/admission/defaulttolerationseconds/admission.go: unless the pod already
tolerates them (an empty key or an empty effect tolerates more), ``node.kubernetes.io/not-ready``
and ``node.kubernetes.io/unreachable`` NoExecute tolerations with ``tolerationSeconds: 300`` are
appended, so the taint eviction controller evicts the pod five minutes after its node goes.
Runs on pod creates and updates.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    CREATE,
    UPDATE,
    Attributes,
    MutationPlugin,
)

DEFAULT_TOLERATION_SECONDS = 300
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"


class DefaultTolerationSeconds(MutationPlugin):
    name = "DefaultTolerationSeconds"

    def admit(self, a: Attributes) -> None:
        if a.operation in (CREATE, UPDATE) and a.kind == "Pod":
            admit_pod(a.obj)


def admit_pod(pod: dict) -> None:
    """Tolerate not-ready/unreachable NoExecute taints for 300s, unless already tolerated."""
    spec = pod.setdefault("spec", {})
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = []
    not_ready = unreachable = False
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        key, effect = t.get("key") or "", t.get("effect") or ""
        if effect in ("NoExecute", ""):
            if key in (NOT_READY_TAINT, ""):
                not_ready = True
            if key in (UNREACHABLE_TAINT, ""):
                unreachable = True
    if not_ready and unreachable:
        return
    for flag, key in ((not_ready, NOT_READY_TAINT), (unreachable, UNREACHABLE_TAINT)):
        if not flag:
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
    spec["tolerations"] = tolerations
