"""PodDisruptionBudgets: a new budget has generation 1 and an all-zero status; an update keeps
the status and bumps the generation when the spec changes.

Upstream: pkg/registry/policy/poddisruptionbudget/strategy.go
(``podDisruptionBudgetStrategy``: ``PrepareForCreate`` resets the status, whose four counters
``policy/v1`` serialises as 0; ``PrepareForUpdate`` keeps it and compares the specs with
Semantic.DeepEqual; ``Validate``/``ValidateUpdate`` are ``kubesim.api.policy.validation``'s).
"""

from __future__ import annotations

import copy

from kubesim.api.equality import semantic_equal
from kubesim.apiserver.registry.rest import Strategy


def empty_status() -> dict:
    return {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}


class PodDisruptionBudgetStrategy(Strategy):
    kind = "PodDisruptionBudget"

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1
        obj["status"] = empty_status()

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or empty_status())
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        same = semantic_equal(new.get("spec") or {}, old.get("spec") or {})
        new.setdefault("metadata", {})["generation"] = gen if same else gen + 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.policy.validation import validate_pdb

        return validate_pdb(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.policy.validation import validate_pdb_update

        return validate_pdb_update(new, old)


strategy = PodDisruptionBudgetStrategy()
