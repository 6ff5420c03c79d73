"""Endpoints: no status, no generation; what the endpoints controller (or a user, for a Service
without a selector) writes.

Upstream: pkg/apis/core/v1/defaults.go ``SetDefaults_Endpoints``, pkg/registry/core/endpoint/strategy.go (``Validate``/``ValidateUpdate``:
``ValidateEndpointsCreate``/``ValidateEndpointsUpdate``, ``kubesim.api.core.endpoints_validation``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class EndpointsStrategy(Strategy):
    kind = "Endpoints"

    def set_defaults(self, obj: dict) -> None:
        """SetDefaults_Endpoints: a port's protocol is TCP."""
        for ss in obj.get("subsets") or []:
            for p in (ss or {}).get("ports") or [] if isinstance(ss, dict) else []:
                if isinstance(p, dict) and not p.get("protocol"):
                    p["protocol"] = "TCP"

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.endpoints_validation import validate_endpoints

        return validate_endpoints(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.endpoints_validation import validate_endpoints_update

        return validate_endpoints_update(new, old)


strategy = EndpointsStrategy()
