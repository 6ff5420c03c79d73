"""Ingresses: a new one has generation 1 and an empty load-balancer status (nothing fills it:
kubesim runs no ingress controller, as a bare cluster has none); an update keeps the status and
bumps the generation when the spec changes.

Upstream: pkg/registry/networking/ingress/strategy.go (``ingressStrategy``: ``PrepareForCreate``
resets the status, ``PrepareForUpdate`` keeps it; ``Validate`` is ``ValidateIngressCreate``,
``ValidateUpdate`` ``ValidateIngressUpdate``, ``kubesim.api.networking.validation``'s). Its
``WarningsOnCreate`` (the deprecated ``kubernetes.io/ingress.class`` annotation) is not printed.
"""

from __future__ import annotations

import copy

from kubesim.api.equality import semantic_equal
from kubesim.apiserver.registry.rest import Strategy


def empty_status() -> dict:
    return {"loadBalancer": {}}


class IngressStrategy(Strategy):
    kind = "Ingress"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.networking.defaults import decode_ingress

        decode_ingress(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1
        obj["status"] = empty_status()

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or empty_status())
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        same = semantic_equal(new.get("spec") or {}, old.get("spec") or {})
        new.setdefault("metadata", {})["generation"] = gen if same else gen + 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.networking.validation import validate_ingress_create

        return validate_ingress_create(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.networking.validation import validate_ingress_update

        return validate_ingress_update(new, old)


strategy = IngressStrategy()
