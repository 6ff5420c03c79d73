"""HorizontalPodAutoscalers: a create starts with an empty status, an update keeps the stored one.

Upstream: pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go (``autoscalerStrategy``:
``PrepareForCreate`` resets the status, ``PrepareForUpdate`` keeps the old one,
``Validate``/``ValidateUpdate`` with ``validationOptionsForHorizontalPodAutoscaler``;
``dropDisabledFields`` keeps ``tolerance``, as HPAConfigurableTolerance is on in v1.35). The
object is stored as autoscaling/v2; one sent as autoscaling/v1 is converted on decode
(``kubesim.api.autoscaling.conversion``), as the API server's scheme converts it. The status's
``currentMetrics`` and ``desiredReplicas`` have no ``omitempty`` in v2, so a new object's status
reads ``{currentMetrics: null, desiredReplicas: 0}``.
"""

from __future__ import annotations

import copy

from kubesim.api.autoscaling.defaults import set_defaults_horizontal_pod_autoscaler
from kubesim.apiserver.registry.rest import Strategy


def empty_status() -> dict:
    return {"currentMetrics": None, "desiredReplicas": 0}


class HorizontalPodAutoscalerStrategy(Strategy):
    kind = "HorizontalPodAutoscaler"

    def set_defaults(self, obj: dict) -> None:
        if obj.get("apiVersion") == "autoscaling/v1":
            from kubesim.api.autoscaling.conversion import v1_to_v2

            obj.update(v1_to_v2(obj))
        set_defaults_horizontal_pod_autoscaler(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = empty_status()

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or empty_status())

    def validate(self, obj: dict) -> list:
        from kubesim.api.autoscaling.validation import (
            validate_horizontal_pod_autoscaler,
        )

        return validate_horizontal_pod_autoscaler(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.autoscaling.validation import (
            validate_horizontal_pod_autoscaler,
        )

        return validate_horizontal_pod_autoscaler(new, old)


strategy = HorizontalPodAutoscalerStrategy()
