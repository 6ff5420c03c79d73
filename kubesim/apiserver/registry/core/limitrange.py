"""LimitRanges: no status, no generation.

Upstream: pkg/registry/core/limitrange/strategy.go (``PrepareForCreate`` assigns no name-less
defaults; ``Validate``/``ValidateUpdate`` are ``ValidateLimitRange``,
``kubesim.api.core.limitrange_validation``), with the scheme's ``SetObjectDefaults_LimitRange``
(``kubesim.api.core.defaults.set_defaults_limit_range``). What a LimitRange does to pods and
claims is the LimitRanger admission plugin's (``kubesim.apiserver.admission.limitranger``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class LimitRangeStrategy(Strategy):
    kind = "LimitRange"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.core.defaults import set_defaults_limit_range

        set_defaults_limit_range(obj)

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.limitrange_validation import validate_limit_range

        return validate_limit_range(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.limitrange_validation import validate_limit_range_update

        return validate_limit_range_update(new, old)


strategy = LimitRangeStrategy()
