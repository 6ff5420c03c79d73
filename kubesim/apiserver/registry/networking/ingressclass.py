"""IngressClasses: cluster-scoped, generation 1 on create and bumped on a spec change; which
class is the default is read by the DefaultIngressClass admission plugin.

Upstream: pkg/registry/networking/ingressclass/strategy.go (``ingressClassStrategy``;
``Validate``/``ValidateUpdate`` are ``kubesim.api.networking.validation``'s: the controller is
immutable).
"""

from __future__ import annotations

from kubesim.api.equality import semantic_equal
from kubesim.apiserver.registry.rest import Strategy


class IngressClassStrategy(Strategy):
    kind = "IngressClass"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.networking.defaults import set_defaults_ingress_class

        set_defaults_ingress_class(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        same = semantic_equal(new.get("spec") or {}, old.get("spec") or {})
        new.setdefault("metadata", {})["generation"] = gen if same else gen + 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.networking.validation import validate_ingress_class

        return validate_ingress_class(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.networking.validation import validate_ingress_class_update

        return validate_ingress_class_update(new, old)


strategy = IngressClassStrategy()
