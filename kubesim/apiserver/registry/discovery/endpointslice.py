"""EndpointSlices: generation 1 on create, bumped by an update that changes anything but the
metadata (or changes the labels).

Upstream: pkg/registry/discovery/endpointslice/strategy.go (``PrepareForCreate``,
``PrepareForUpdate``; ``Validate``/``ValidateUpdate``: ``kubesim.api.discovery.validation``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class EndpointSliceStrategy(Strategy):
    kind = "EndpointSlice"

    def set_defaults(self, obj: dict) -> None:
        """SetDefaults_EndpointPort (pkg/apis/discovery/v1/defaults.go): name "", protocol TCP."""
        for p in obj.get("ports") or []:
            if isinstance(p, dict):
                if p.get("name") is None:
                    p["name"] = ""
                if p.get("protocol") is None:
                    p["protocol"] = "TCP"

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        nm, om = new.setdefault("metadata", {}), old.get("metadata") or {}
        body = {k: v for k, v in new.items() if k != "metadata"}
        old_body = {k: v for k, v in old.items() if k != "metadata"}
        gen = int(om.get("generation") or 0)
        if body != old_body or (nm.get("labels") or {}) != (om.get("labels") or {}):
            gen += 1
        nm["generation"] = gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.discovery.validation import validate_endpoint_slice

        return validate_endpoint_slice(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.discovery.validation import validate_endpoint_slice_update

        return validate_endpoint_slice_update(new, old)


strategy = EndpointSliceStrategy()
