"""CronJobs: generation 1 and an empty status on create; an update keeps the status and bumps
the generation when the spec changes.

Upstream: pkg/registry/batch/cronjob/strategy.go (``cronJobStrategy``: ``PrepareForCreate``,
``PrepareForUpdate``, ``Validate``, ``ValidateUpdate``; the default garbage collection policy
of batch/v1 is to delete dependents in the background).
"""

from __future__ import annotations

import copy

from kubesim.api.batch.defaults import set_defaults_cronjob
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


class CronJobStrategy(Strategy):
    kind = "CronJob"
    propagates_deletion = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_cronjob(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj["status"] = {}
        obj.setdefault("metadata", {})["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        changed = drop_empty(new.get("spec")) != drop_empty(old.get("spec"))
        new.setdefault("metadata", {})["generation"] = gen + 1 if changed else gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.batch.validation import validate_cronjob

        return validate_cronjob(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.batch.validation import validate_cronjob

        return validate_cronjob(new, old)


strategy = CronJobStrategy()
