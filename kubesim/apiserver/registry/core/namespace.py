"""Namespaces: a new namespace is Active with the ``kubernetes`` finalizer and its name label.

Upstream: pkg/registry/core/namespace/strategy.go (``namespaceStrategy``: ``PrepareForCreate``
sets phase ``Active`` and adds the ``kubernetes`` finalizer to ``spec.finalizers``;
``PrepareForUpdate`` keeps the finalizers and the status, both the finalize and status
subresources' to change; ``Canonicalize`` sets the ``kubernetes.io/metadata.name`` label, as
``SetDefaults_Namespace`` already does for a namespace whose name is known when it is decoded).
A deleted namespace's objects go with it at once (upstream: the namespace controller,
pkg/controller/namespace, empties it while it is Terminating, then removes the ``kubernetes``
finalizer); which namespaces cannot be deleted is the NamespaceLifecycle admission plugin's.
"""

from __future__ import annotations

import copy

from kubesim.api.core.defaults import set_defaults_namespace
from kubesim.apiserver.registry.rest import Strategy

FINALIZER_KUBERNETES = "kubernetes"


class NamespaceStrategy(Strategy):
    kind = "Namespace"

    def set_defaults(self, obj: dict) -> None:
        set_defaults_namespace(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        finalizers = spec.get("finalizers")
        if not isinstance(finalizers, list):
            finalizers = []
        if FINALIZER_KUBERNETES not in finalizers:
            finalizers.append(FINALIZER_KUBERNETES)
        spec["finalizers"] = finalizers
        obj["status"] = {"phase": "Active"}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new.setdefault("spec", {})["finalizers"] = list((old.get("spec") or {}).get("finalizers") or [])
        new["status"] = copy.deepcopy(old.get("status") or {})

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.validation import validate_namespace_create

        return validate_namespace_create(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.validation import validate_namespace_update

        return validate_namespace_update(new, old)

    def canonicalize(self, obj: dict) -> None:
        set_defaults_namespace(obj)

    def delete_dependents(self, store, obj: dict) -> None:
        from kubesim.api import kinds

        name = (obj.get("metadata") or {}).get("name", "")
        for k in kinds.REGISTRY.all():
            if k.namespaced:
                for o in store.list(k.kind, name):
                    store.delete(k.kind, name, o["metadata"]["name"])


strategy = NamespaceStrategy()
