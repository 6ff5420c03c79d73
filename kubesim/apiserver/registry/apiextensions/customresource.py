"""Custom resources: the objects a CustomResourceDefinition serves, validated by its schema.

Upstream: k8s.io/apiextensions-apiserver pkg/registry/customresource/strategy.go
(``customResourceStrategy``: scope from the CRD, ``PrepareForCreate``/``PrepareForUpdate``
drop status when the status subresource is enabled and keep generation as the generic
registry does, ``Validate``: ``ValidateObjectMetaAccessor`` and the schema validator) and
pkg/apiserver/customresource_handler.go (decoding: defaulting then pruning of unknown fields by
the structural schema, ``kubesim.api.apiextensions.schema``).
"""

from __future__ import annotations

from kubesim.api.kinds import KindInfo
from kubesim.apiserver.registry.rest import Strategy


class CustomResourceStrategy(Strategy):
    def __init__(self, info: KindInfo):
        self.info = info
        self.kind = info.kind
        self.crd = info.crd or {}

    @property
    def namespaced(self) -> bool:
        return self.info.namespaced

    def _schema(self, obj: dict):
        from kubesim.api.apiextensions.helpers import schema_for_version

        version = (obj.get("apiVersion") or "").rsplit("/", 1)[-1]
        return schema_for_version(self.crd, version)

    def _status_enabled(self, obj: dict) -> bool:
        from kubesim.api.apiextensions.helpers import subresources_for_version

        version = (obj.get("apiVersion") or "").rsplit("/", 1)[-1]
        return "status" in subresources_for_version(self.crd, version)

    @property
    def keeps_status_on_create(self) -> bool:  # type: ignore[override]
        return True

    def begin_create(self, obj: dict, store, rng) -> None:
        """customresource_handler.go: no new objects while the CRD is terminating."""
        from kubesim.api.apiextensions.helpers import TERMINATING, is_condition_true

        if is_condition_true(self.crd, TERMINATING):
            from kubesim.errors import Forbidden

            raise Forbidden(f'{self.info.resource} "{obj["metadata"].get("name", "")}" is forbidden: create not '
                            "allowed while custom resource definition is terminating")

    def set_defaults(self, obj: dict) -> None:
        """The handler's decode: unknown fields pruned, then the schema's defaults."""
        from kubesim.api.apiextensions.schema import default, prune

        schema = self._schema(obj)
        if schema is not None:
            prune(obj, schema)
            default(obj, schema)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        if self._status_enabled(obj):
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        if self._status_enabled(new):
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        gen = old["metadata"].get("generation") or 1
        changed = {k: v for k, v in new.items() if k not in ("metadata", "status")} != \
            {k: v for k, v in old.items() if k not in ("metadata", "status")}
        if not self._status_enabled(new) and new.get("status") != old.get("status"):
            changed = True
        new["metadata"]["generation"] = gen + 1 if changed else gen

    def canonicalize(self, obj: dict) -> None:
        """Stored at the storage version (conversion strategy None changes only apiVersion)."""
        from kubesim.api.apiextensions.helpers import storage_version

        version = storage_version(self.crd)
        if version:
            obj["apiVersion"] = f"{self.info.group}/{version}"

    def _scale(self, obj: dict) -> dict | None:
        from kubesim.api.apiextensions.helpers import subresources_for_version

        version = (obj.get("apiVersion") or "").rsplit("/", 1)[-1]
        scale = subresources_for_version(self.crd, version).get("scale")
        return scale if isinstance(scale, dict) else None

    def validate(self, obj: dict) -> list:
        """validator.go Validate: metadata, the schema, the scale subresource's paths."""
        from kubesim.api.apiextensions.schema import (
            validate_custom_resource,
            validate_scale,
        )

        return validate_custom_resource(obj, self._schema(obj), self.info.namespaced) + \
            validate_scale(obj, self._scale(obj))

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apiextensions.schema import (
            validate_custom_resource,
            validate_scale,
        )
        from kubesim.api.meta.validation import validate_object_meta_update

        return validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {}) + \
            validate_custom_resource(new, self._schema(new), self.info.namespaced, meta=False) + \
            validate_scale(new, self._scale(new))

    def prepare_for_status_update(self, new: dict, old: dict) -> None:
        """The status strategy: the status decoded as any write is (pruned, defaulted)."""
        self.set_defaults(new)

    def validate_status_update(self, new: dict, old: dict) -> list:
        """validator.go ValidateStatusUpdate: the status against the schema's status property
        (its messages name fields from the status down), then the scale's status path."""
        from kubesim.api.apiextensions.schema import validate_scale, validate_status

        schema = self._schema(new) or {}
        status_schema = (schema.get("properties") or {}).get("status")
        errs = validate_status(new["status"], status_schema) if "status" in new and status_schema else []
        return errs + validate_scale(new, self._scale(new), spec=False)
