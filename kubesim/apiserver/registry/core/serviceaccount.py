"""ServiceAccounts: metadata only (``secrets`` and ``imagePullSecrets`` are the user's).

Upstream: pkg/registry/core/serviceaccount/strategy.go (``Validate``/``ValidateUpdate`` are
``ValidateServiceAccount``/``ValidateServiceAccountUpdate``,
``kubesim.api.core.secret_validation``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ServiceAccountStrategy(Strategy):
    kind = "ServiceAccount"

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.secret_validation import validate_service_account

        return validate_service_account(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.secret_validation import validate_service_account_update

        return validate_service_account_update(new, old)


strategy = ServiceAccountStrategy()
