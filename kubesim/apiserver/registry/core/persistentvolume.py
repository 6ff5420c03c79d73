"""PersistentVolumes: a new volume is Pending; an update keeps the status.

Upstream: pkg/registry/core/persistentvolume/strategy.go (``persistentvolumeStrategy``:
``PrepareForCreate`` resets the status to phase ``Pending`` with ``lastPhaseTransitionTime``
now; ``PrepareForUpdate`` keeps the status, the status subresource's to change;
``Validate``/``ValidateUpdate`` are ``kubesim.api.core.persistentvolume_validation``'s).
"""

from __future__ import annotations

import copy

from kubesim.api.core.defaults import set_defaults_persistent_volume
from kubesim.apiserver.registry.rest import Strategy


class PersistentVolumeStrategy(Strategy):
    kind = "PersistentVolume"

    def set_defaults(self, obj: dict) -> None:
        set_defaults_persistent_volume(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        status = {"phase": "Pending"}
        if now:
            status["lastPhaseTransitionTime"] = now
        obj["status"] = status

    def prepare_for_update(self, new: dict, old: dict) -> None:
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.persistentvolume_validation import validate_pv

        return validate_pv(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.persistentvolume_validation import validate_pv_update

        return validate_pv_update(new, old)


strategy = PersistentVolumeStrategy()
