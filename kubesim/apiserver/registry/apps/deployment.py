"""Deployments: a new one starts at generation 1 with an empty status; an update keeps the
status and bumps the generation when the spec or the annotations change (annotations are copied
to the ReplicaSets).

Upstream: pkg/registry/apps/deployment/strategy.go (``deploymentStrategy``:
``PrepareForCreate``, ``PrepareForUpdate``; ``Validate``/``ValidateUpdate`` are
``kubesim.api.apps.validation``'s). kubesim compares specs with
``kubesim.api.equality.drop_empty`` (upstream: Semantic.DeepEqual, which also ignores an
explicit zero).
"""

from __future__ import annotations

import copy

from kubesim.api.apps.defaults import set_defaults_deployment
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


class DeploymentStrategy(Strategy):
    kind = "Deployment"
    propagates_deletion = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_deployment(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1
        obj["status"] = {}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        changed = drop_empty(new.get("spec")) != drop_empty(old.get("spec")) or \
            ((new.get("metadata") or {}).get("annotations") or {}) != \
            ((old.get("metadata") or {}).get("annotations") or {})
        new.setdefault("metadata", {})["generation"] = gen + 1 if changed else gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.apps.validation import validate_deployment

        return validate_deployment(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apps.validation import validate_deployment

        return validate_deployment(new, old)


strategy = DeploymentStrategy()
