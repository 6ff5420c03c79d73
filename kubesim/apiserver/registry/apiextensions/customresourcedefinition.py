"""CustomResourceDefinitions: cluster-scoped; the status is the naming and establishing
controllers'; a first delete marks the CRD for the finalizer that removes its objects.

Upstream: k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition/strategy.go
(``PrepareForCreate``: an empty status with the storage version stored, generation 1;
``PrepareForUpdate``: the old status kept, the generation bumped on a spec change, a new
storage version added to ``storedVersions``; ``Validate``/``ValidateUpdate``:
``kubesim.api.apiextensions.validation``) and etcd.go (``REST.Delete``: on the first delete the
``customresourcecleanup.apiextensions.k8s.io`` finalizer and a Terminating condition).
"""

from __future__ import annotations

import copy

from kubesim.apiserver.registry.rest import Strategy


def _add_stored_version(obj: dict) -> None:
    status = obj.setdefault("status", {})
    for v in (obj.get("spec") or {}).get("versions") or ():
        if isinstance(v, dict) and v.get("storage"):
            stored = status.get("storedVersions") or []
            if v.get("name") not in stored:
                status["storedVersions"] = stored + [v.get("name")]
            break


class CustomResourceDefinitionStrategy(Strategy):
    kind = "CustomResourceDefinition"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.apiextensions.defaults import (
            set_defaults_custom_resource_definition,
        )

        set_defaults_custom_resource_definition(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = {"acceptedNames": {"kind": "", "plural": ""}, "conditions": None}
        obj["metadata"]["generation"] = 1
        _add_stored_version(obj)
        if "storedVersions" not in obj["status"]:
            obj["status"]["storedVersions"] = None

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        gen = old["metadata"].get("generation") or 1
        new["metadata"]["generation"] = gen + 1 if new.get("spec") != old.get("spec") else gen
        _add_stored_version(new)

    def validate(self, obj: dict) -> list:
        from kubesim.api.apiextensions.validation import (
            validate_custom_resource_definition,
        )

        return validate_custom_resource_definition(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apiextensions.validation import (
            validate_custom_resource_definition_update,
        )

        return validate_custom_resource_definition_update(new, old)

    def before_delete(self, obj: dict) -> None:
        """REST.Delete's first request: the cleanup finalizer and the Terminating condition (the
        generic registry then sets the deletionTimestamp and keeps the object)."""
        from kubesim.api.apiextensions.helpers import (
            FINALIZER,
            TERMINATING,
            set_condition,
        )

        md = obj["metadata"]
        if md.get("deletionTimestamp"):
            return
        if FINALIZER not in (md.get("finalizers") or []):
            md["finalizers"] = list(md.get("finalizers") or []) + [FINALIZER]
        set_condition(obj, {"type": TERMINATING, "status": "True", "reason": "InstanceDeletionPending",
                            "message": "CustomResourceDefinition marked for deletion; CustomResource deletion "
                                       "will begin soon"}, md.get("deletionTimestamp"))


strategy = CustomResourceDefinitionStrategy()
