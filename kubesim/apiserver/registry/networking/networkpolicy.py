"""NetworkPolicies: stored as written with their scheme defaults; generation 1 on create and
bumped when an update changes the spec.

Upstream: pkg/registry/networking/networkpolicy/strategy.go (``networkPolicyStrategy``:
``PrepareForCreate`` sets generation 1, ``PrepareForUpdate`` bumps it on a spec change;
``Validate``/``ValidateUpdate`` are ``kubesim.api.networking.validation``'s). Its
``WarningsOnCreate``/``WarningsOnUpdate`` (ambiguous CIDRs) are not modelled.
"""

from __future__ import annotations

from kubesim.api.equality import semantic_equal
from kubesim.apiserver.registry.rest import Strategy


class NetworkPolicyStrategy(Strategy):
    kind = "NetworkPolicy"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.networking.defaults import (
            decode_network_policy,
            set_defaults_network_policy,
        )

        decode_network_policy(obj)
        set_defaults_network_policy(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        same = semantic_equal(new.get("spec") or {}, old.get("spec") or {})
        new.setdefault("metadata", {})["generation"] = gen if same else gen + 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.networking.validation import validate_network_policy

        return validate_network_policy(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.networking.validation import validate_network_policy_update

        return validate_network_policy_update(new, old)


strategy = NetworkPolicyStrategy()
