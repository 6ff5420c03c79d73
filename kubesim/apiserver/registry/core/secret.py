"""Secrets: no status, no generation; ``stringData`` merged into ``data``; the type and an
immutable Secret's data kept.

Upstream: pkg/registry/core/secret/strategy.go (``PrepareForUpdate``: an update without a type
keeps the old one; ``Validate``/``ValidateUpdate`` are ``ValidateSecret``/
``ValidateSecretUpdate``, ``kubesim.api.core.secret_validation``), with the scheme's
``SetDefaults_Secret`` and the v1 conversion's ``stringData`` merge
(``kubesim.api.core.defaults.set_defaults_secret``).

Not modelled: ``warningsForSecret`` (a TLS Secret whose key does not match its certificate is
stored with a ``Warning:``; kubesim stores it without one).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class SecretStrategy(Strategy):
    kind = "Secret"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.core.defaults import set_defaults_secret

        set_defaults_secret(obj)

    def prepare_for_update(self, new: dict, old: dict) -> None:
        if not new.get("type"):
            new["type"] = old.get("type")

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.secret_validation import validate_secret

        return validate_secret(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.secret_validation import validate_secret_update

        return validate_secret_update(new, old)


strategy = SecretStrategy()
