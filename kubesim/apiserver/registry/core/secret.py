"""Secrets: no status, no generation; ``stringData`` merged into ``data``; the type and an
immutable Secret's data kept.

Upstream: pkg/registry/core/secret/strategy.go (``PrepareForUpdate``: an update without a type
keeps the old one; ``Validate``/``ValidateUpdate`` are ``ValidateSecret``/
``ValidateSecretUpdate``, ``kubesim.api.core.secret_validation``), with the scheme's
``SetDefaults_Secret`` and the v1 conversion's ``stringData`` merge
(``kubesim.api.core.defaults.set_defaults_secret``).

``warningsForSecret``: a TLS Secret whose certificate and key do not load as a pair
(``tls.X509KeyPair``, ``kubesim.api.x509keypair``) is stored, with the error as a warning.
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

    def warnings_on_create(self, obj: dict) -> list[str]:
        return warnings_for_secret(obj)

    def warnings_on_update(self, new: dict, old: dict) -> list[str]:
        return warnings_for_secret(new)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.secret_validation import validate_secret_update

        return validate_secret_update(new, old)


def warnings_for_secret(secret: dict) -> list[str]:
    """warningsForSecret."""
    if secret.get("type") != "kubernetes.io/tls":
        return []
    from kubesim.api.core.secret_validation import decoded
    from kubesim.api.x509keypair import KeyPairError, check

    data = secret.get("data") or {}
    try:
        check(decoded(data.get("tls.crt")), decoded(data.get("tls.key")))
    except KeyPairError as e:
        return [str(e)]
    return []


strategy = SecretStrategy()
