"""ReplicaSets: a new one starts at generation 1 with ``status.replicas: 0``; an update keeps
the status and bumps the generation when the spec changes.

Upstream: pkg/registry/apps/replicaset/strategy.go (``rsStrategy``: ``PrepareForCreate``,
``PrepareForUpdate``; ``Validate``/``ValidateUpdate`` are ``kubesim.api.apps.validation``'s).
Specs are compared as the Deployment's strategy compares them
(``kubesim.apiserver.registry.apps.deployment``).
"""

from __future__ import annotations

import copy

from kubesim.api.apps.defaults import set_defaults_replicaset
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


class ReplicaSetStrategy(Strategy):
    kind = "ReplicaSet"
    propagates_deletion = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_replicaset(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1
        obj["status"] = {"replicas": 0}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        changed = drop_empty(new.get("spec")) != drop_empty(old.get("spec"))
        new.setdefault("metadata", {})["generation"] = gen + 1 if changed else gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.apps.validation import validate_replicaset

        return validate_replicaset(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apps.validation import validate_replicaset

        return validate_replicaset(new, old)


strategy = ReplicaSetStrategy()
