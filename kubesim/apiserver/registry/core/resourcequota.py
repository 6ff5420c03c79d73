"""ResourceQuotas: the status is the resource quota controller's (and the ResourceQuota
admission plugin's) to set.

Upstream: pkg/registry/core/resourcequota/strategy.go (``PrepareForCreate`` empties the status,
``PrepareForUpdate`` keeps the stored one; ``Validate``/``ValidateUpdate`` are
``ValidateResourceQuota``/``ValidateResourceQuotaUpdate``, ``kubesim.api.core.resourcequota_validation``;
``WarningsOnCreate``: a request quota above its limit), with the scheme's
``SetObjectDefaults_ResourceQuota`` (``SetDefaults_ResourceList`` on the hard and used lists).
"""

from __future__ import annotations

import copy

from kubesim.apiserver.registry.rest import Strategy

# knownResourceNames: the resources whose request quota is checked against their limit quota
KNOWN_RESOURCE_NAMES = ("cpu", "memory", "storage", "ephemeral-storage")


class ResourceQuotaStrategy(Strategy):
    kind = "ResourceQuota"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.core.defaults import set_defaults_resource_list

        set_defaults_resource_list((obj.get("spec") or {}).get("hard"))
        status = obj.get("status")
        if isinstance(status, dict):
            set_defaults_resource_list(status.get("hard"))
            set_defaults_resource_list(status.get("used"))

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = {}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.resourcequota_validation import validate_resource_quota

        return validate_resource_quota(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.resourcequota_validation import (
            validate_resource_quota_update,
        )

        return validate_resource_quota_update(new, old)

    def warnings_on_create(self, obj: dict) -> list[str]:
        return warnings_on_create(obj)


def warnings_on_create(quota: dict) -> list[str]:
    """WarningsOnCreate: ``ResourceQuota requests.cpu (2) should be less than limits.cpu (1)``."""
    from kubesim.api.quantity import from_json

    hard = (quota.get("spec") or {}).get("hard") or {}
    warnings = []
    for name in KNOWN_RESOURCE_NAMES:
        request_name = f"requests.{name}"
        if request_name not in hard and name in ("cpu", "memory") and name in hard:
            request_name = name
        limit_name = f"limits.{name}"
        if request_name in hard and limit_name in hard:
            try:
                request, limit = from_json(hard[request_name]), from_json(hard[limit_name])
            except ValueError:
                continue
            if request.value > limit.value:
                warnings.append(f"ResourceQuota {request_name} ({request}) should be less than "
                                f"{limit_name} ({limit})")
    return warnings


strategy = ResourceQuotaStrategy()
