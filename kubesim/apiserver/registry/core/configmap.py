"""ConfigMaps: no status, no generation; an immutable ConfigMap keeps its data.

Upstream: pkg/registry/core/configmap/strategy.go (``strategy``: no PrepareForCreate work but
dropping disabled fields, ``Validate``/``ValidateUpdate`` are ``ValidateConfigMap``/
``ValidateConfigMapUpdate``, ``kubesim.api.core.validation``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ConfigMapStrategy(Strategy):
    kind = "ConfigMap"

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.validation import validate_config_map

        return validate_config_map(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.validation import validate_config_map_update

        return validate_config_map_update(new, old)


strategy = ConfigMapStrategy()
