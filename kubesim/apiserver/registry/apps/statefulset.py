"""StatefulSets: a new one starts at generation 1 with an empty status; an update keeps the
status and bumps the generation when the spec changes.

Upstream: pkg/registry/apps/statefulset/strategy.go (``statefulSetStrategy``:
``PrepareForCreate``, ``PrepareForUpdate``, ``dropStatefulSetDisabledFields`` — the
MaxUnavailableStatefulSet gate is off by default in v1.35, so ``rollingUpdate.maxUnavailable``
is dropped unless the old object already used it; ``Validate``/``ValidateUpdate`` are
``kubesim.api.apps.validation``'s).
"""

from __future__ import annotations

import copy

from kubesim.api.apps.defaults import set_defaults_statefulset
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


def _max_unavailable_in_use(obj: dict | None) -> bool:
    ru = (((obj or {}).get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate")
    return isinstance(ru, dict) and ru.get("maxUnavailable") is not None


def drop_disabled_fields(new: dict, old: dict | None) -> None:
    """dropStatefulSetDisabledFields."""
    if _max_unavailable_in_use(old):
        return
    ru = ((new.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate")
    if isinstance(ru, dict):
        ru.pop("maxUnavailable", None)


class StatefulSetStrategy(Strategy):
    kind = "StatefulSet"
    propagates_deletion = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_statefulset(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1
        obj["status"] = {"availableReplicas": 0, "replicas": 0}
        drop_disabled_fields(obj, None)

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        drop_disabled_fields(new, old)
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        changed = drop_empty(new.get("spec")) != drop_empty(old.get("spec"))
        new.setdefault("metadata", {})["generation"] = gen + 1 if changed else gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.apps.validation import validate_statefulset

        return validate_statefulset(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apps.validation import validate_statefulset

        return validate_statefulset(new, old)


strategy = StatefulSetStrategy()
