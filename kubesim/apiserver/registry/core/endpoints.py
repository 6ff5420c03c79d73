"""Endpoints: no status, no generation; what the endpoints controller (or a user, for a Service
without a selector) writes.

Upstream: pkg/registry/core/endpoint/strategy.go (``Validate``/``ValidateUpdate``:
``ValidateEndpointsCreate``/``ValidateEndpointsUpdate``, ``kubesim.api.core.endpoints_validation``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class EndpointsStrategy(Strategy):
    kind = "Endpoints"

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.endpoints_validation import validate_endpoints

        return validate_endpoints(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.endpoints_validation import validate_endpoints_update

        return validate_endpoints_update(new, old)


strategy = EndpointsStrategy()
