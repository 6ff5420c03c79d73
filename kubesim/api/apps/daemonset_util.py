"""DaemonSet helpers shared by the API server, the DaemonSet controller and kubectl.

Upstream: pkg/apis/apps/types.go (``DeprecatedTemplateGeneration``, the annotation the v1 API
keeps ``spec.templateGeneration`` in), pkg/controller/daemon/update.go (``getPatch``: what a
ControllerRevision stores, the pod template as a strategic-merge ``$patch: replace``) and
kubectl's polymorphichelpers/rollback.go (``getDaemonSetPatch``, the same, to compare a
DaemonSet with a revision).
"""

from __future__ import annotations

import copy

TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"


def get_patch(ds: dict) -> dict:
    """getPatch: the DaemonSet's pod template as a ControllerRevision's data."""
    template = copy.deepcopy((ds.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}
