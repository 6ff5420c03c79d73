"""The downward API in a container's environment: ``env[].valueFrom.fieldRef`` resolved from the
pod, as the kubelet resolves it when it starts the container (an Indexed Job's
``JOB_COMPLETION_INDEX`` comes from the pod's completion index label this way).

Upstream: pkg/kubelet/kubelet_pods.go (makeEnvironmentVariables, podFieldSelectorRuntimeValue)
and pkg/fieldpath/fieldpath.go (ExtractFieldPathAsString, SplitMaybeSubscriptedPath):
``metadata.name``, ``metadata.namespace``, ``metadata.uid``, ``metadata.labels['k']``,
``metadata.annotations['k']``, ``spec.nodeName``, ``spec.serviceAccountName``,
``status.hostIP``, ``status.podIP``. A value kubesim cannot resolve stays empty, as before.
"""

from __future__ import annotations

import re

from kubesim.api.objcopy import deep_copy

_SUBSCRIPT = re.compile(r"^(metadata\.(?:labels|annotations))\['(.*)'\]$")


def field_value(pod: dict, path: str) -> str | None:
    """podFieldSelectorRuntimeValue for the paths kubesim knows (None for others)."""
    md, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    m = _SUBSCRIPT.match(path)
    if m:
        which = "labels" if m.group(1).endswith("labels") else "annotations"
        return str((md.get(which) or {}).get(m.group(2), ""))
    simple = {"metadata.name": md.get("name"), "metadata.namespace": md.get("namespace"),
              "metadata.uid": md.get("uid"), "spec.nodeName": spec.get("nodeName"),
              "spec.serviceAccountName": spec.get("serviceAccountName"), "status.hostIP": status.get("hostIP"),
              "status.podIP": status.get("podIP")}
    if path in simple:
        return str(simple[path] or "")
    return None


def with_field_refs(container: dict, pod: dict) -> dict:
    """``container`` with its fieldRef env values written in (the container itself when it has
    none)."""
    env = container.get("env") or ()
    if not any(isinstance(e, dict) and ((e.get("valueFrom") or {}).get("fieldRef")) for e in env):
        return container
    out = deep_copy(container)
    for e in out["env"]:
        ref = (e.get("valueFrom") or {}).get("fieldRef") if isinstance(e, dict) else None
        if ref:
            value = field_value(pod, ref.get("fieldPath") or "")
            if value is not None:
                e.pop("valueFrom", None)
                e["value"] = value
    return out
