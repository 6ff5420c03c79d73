"""Services: scheme defaults, the allocators the REST storage runs before the strategy, and
what a type change leaves behind.

Upstream: pkg/registry/core/service/strategy.go (``PrepareForCreate``: a new service's status
is empty; ``PrepareForUpdate``: the old status, ``dropTypeDependentFields``; ``Validate``/
``ValidateUpdate``: ``ValidateServiceCreate``/``ValidateServiceUpdate``, in
``kubesim.api.core.service_validation``) and pkg/registry/core/service/storage/storage.go,
whose ``beginCreate``/``beginUpdate`` hooks allocate cluster IPs and node ports before the
strategy runs (``kubesim.apiserver.registry.core.servicealloc``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ServiceStrategy(Strategy):
    kind = "Service"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.core.defaults import set_defaults_service

        set_defaults_service(obj)

    def begin_create(self, obj: dict, store, rng) -> None:
        from kubesim.apiserver.registry.core.servicealloc import allocate_create

        allocate_create(obj, store.list("Service"), rng)

    def begin_update(self, new: dict, old: dict, store, rng) -> None:
        from kubesim.apiserver.registry.core.servicealloc import allocate_update

        allocate_update(new, old, store.list("Service"), rng)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = {"loadBalancer": {}}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        import copy

        from kubesim.apiserver.registry.core.servicealloc import (
            drop_type_dependent_fields,
        )

        new["status"] = copy.deepcopy(old.get("status") or {"loadBalancer": {}})
        drop_type_dependent_fields(new, old)

    def canonicalize(self, obj: dict) -> None:
        """storage.go's defaultOnReadInternalTrafficPolicy, applied once on write: an
        ExternalName service is never shown with the internalTrafficPolicy defaulting gave it."""
        spec = obj.get("spec") or {}
        if spec.get("type") == "ExternalName":
            spec.pop("internalTrafficPolicy", None)

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.service_validation import validate_service

        return validate_service(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.service_validation import validate_service_update

        return validate_service_update(new, old)


strategy = ServiceStrategy()
