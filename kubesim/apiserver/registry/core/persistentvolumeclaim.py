"""PersistentVolumeClaims: a new claim is Pending; an update keeps the status.

Upstream: pkg/registry/core/persistentvolumeclaim/strategy.go
(``persistentvolumeclaimStrategy``: ``PrepareForCreate`` resets the status to phase
``Pending``; ``PrepareForUpdate`` keeps the status; ``Validate``/``ValidateUpdate`` are
``kubesim.api.core.persistentvolume_validation``'s).
"""

from __future__ import annotations

import copy

from kubesim.api.core.defaults import set_defaults_persistent_volume_claim
from kubesim.apiserver.registry.rest import Strategy


class PersistentVolumeClaimStrategy(Strategy):
    kind = "PersistentVolumeClaim"

    def set_defaults(self, obj: dict) -> None:
        set_defaults_persistent_volume_claim(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = {"phase": "Pending"}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.persistentvolume_validation import validate_pvc

        return validate_pvc(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.persistentvolume_validation import validate_pvc_update

        return validate_pvc_update(new, old)


strategy = PersistentVolumeClaimStrategy()
