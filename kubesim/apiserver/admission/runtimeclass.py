"""RuntimeClass: a pod naming a RuntimeClass gets its overhead and scheduling constraints.

Upstream: plugin/pkg/admission/runtimeclass/admission.go. For a pod naming a RuntimeClass:
``spec.overhead`` is set from the class's ``overhead.podFixed`` (a pod that already declares a
different overhead is refused), the class's ``scheduling.nodeSelector`` is merged into the pod's
(a conflicting key is refused) and its ``scheduling.tolerations`` are appended when not already
present. An unknown class is refused. The scheduler then counts the overhead
(NodeResourcesFit). Runs on pod creates.

Where kubesim differs: the chain runs this plugin first (``kubesim.apiserver.admission``), and
only where the request can read the stored RuntimeClasses (the kubelet's mirror pods skip it).
The class's overhead is stored in canonical form, as the pod's own overhead is.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    CREATE,
    Attributes,
    MutationPlugin,
    forbidden,
)


class RuntimeClass(MutationPlugin):
    name = "RuntimeClass"

    def admit(self, a: Attributes) -> None:
        if a.operation != CREATE or a.kind != "Pod" or a.lister is None:
            return
        name = (a.obj.get("spec") or {}).get("runtimeClassName") if isinstance(a.obj.get("spec"), dict) else None
        if name:
            rc = next((rc for rc in a.lister("RuntimeClass") if (rc.get("metadata") or {}).get("name") == name), None)
            admit_pod(a, rc)


def admit_pod(a: Attributes, runtime_class: dict | None) -> None:
    """Apply ``runtime_class`` (the class the pod names; None if there is none) to the pod, or
    raise Forbidden with the plugin's message."""
    from kubesim.api.core.defaults import set_defaults_resource_list

    spec = a.obj.setdefault("spec", {})
    name = spec.get("runtimeClassName")
    if not name:
        return
    if runtime_class is None:
        raise forbidden(a, f'pod rejected: RuntimeClass "{name}" not found')
    fixed = ((runtime_class.get("overhead") or {}).get("podFixed")) or None
    if fixed:
        fixed = dict(fixed)
        set_defaults_resource_list(fixed)
        if spec.get("overhead") and spec["overhead"] != fixed:
            raise forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
        spec["overhead"] = fixed
    elif spec.get("overhead"):
        raise forbidden(a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
    sched = runtime_class.get("scheduling") or {}
    selector = sched.get("nodeSelector") or {}
    if selector:
        merged = dict(spec.get("nodeSelector") or {})
        for k, v in selector.items():
            if k in merged and merged[k] != v:
                raise forbidden(a, f"conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; "
                                   f"pod.spec.nodeSelector[{k}] = {merged[k]}")
            merged[k] = v
        spec["nodeSelector"] = merged
    tolerations = list(spec.get("tolerations") or [])
    for t in sched.get("tolerations") or []:
        if t not in tolerations:
            tolerations.append(t)
    if tolerations:
        spec["tolerations"] = tolerations
