"""RuntimeClass (node.k8s.io/v1) and the RuntimeClass admission plugin.

Upstream: plugin/pkg/admission/runtimeclass/admission.go. For a pod naming a RuntimeClass:
``spec.overhead`` is set from the class's ``overhead.podFixed`` (a pod that already declares a
different overhead is refused), the class's ``scheduling.nodeSelector`` is merged into the pod's
(a conflicting key is refused) and its ``scheduling.tolerations`` are appended when not already
present. An unknown class is refused. The scheduler then counts the overhead
(NodeResourcesFit), which is why the scheduler issue brings this kind.
"""

from __future__ import annotations

from kubesim.errors import Forbidden


def _forbidden(pod: dict, detail: str) -> Forbidden:
    name = (pod.get("metadata") or {}).get("name", "")
    return Forbidden(f'pods "{name}" is forbidden: {detail}')


def admit(pod: dict, runtime_class: dict | None) -> None:
    """Apply the class to ``pod`` in place, or raise Forbidden with the plugin's message."""
    spec = pod.setdefault("spec", {})
    name = spec.get("runtimeClassName")
    if not name:
        return
    if runtime_class is None:
        raise _forbidden(pod, f'pod rejected: RuntimeClass "{name}" not found')
    fixed = ((runtime_class.get("overhead") or {}).get("podFixed")) or None
    if fixed:
        if spec.get("overhead") and spec["overhead"] != fixed:
            raise _forbidden(pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
        spec["overhead"] = dict(fixed)
    elif spec.get("overhead"):
        raise _forbidden(pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
    sched = runtime_class.get("scheduling") or {}
    selector = sched.get("nodeSelector") or {}
    if selector:
        merged = dict(spec.get("nodeSelector") or {})
        for k, v in selector.items():
            if k in merged and merged[k] != v:
                raise _forbidden(pod, f"conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; "
                                      f"pod.spec.nodeSelector[{k}] = {merged[k]}")
            merged[k] = v
        spec["nodeSelector"] = merged
    tolerations = list(spec.get("tolerations") or [])
    for t in sched.get("tolerations") or []:
        if t not in tolerations:
            tolerations.append(t)
    if tolerations:
        spec["tolerations"] = tolerations
