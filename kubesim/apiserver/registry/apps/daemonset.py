"""DaemonSets: a new one starts at generation 1 and template generation 1; an update keeps the
status and bumps both when the pod template changes (the generation alone when the rest of the
spec does).

Upstream: pkg/registry/apps/daemonset/strategy.go (``daemonSetStrategy``: ``PrepareForCreate``
sets ``spec.templateGeneration``, kept in the v1 API as the
``deprecated.daemonset.template.generation`` annotation; ``PrepareForUpdate``;
``Validate``/``ValidateUpdate`` are ``kubesim.api.apps.validation``'s). Specs are compared as
the Deployment's strategy compares them (``kubesim.apiserver.registry.apps.deployment``).
"""

from __future__ import annotations

import copy

from kubesim.api.apps.daemonset_util import TEMPLATE_GENERATION_ANNOTATION
from kubesim.api.apps.defaults import set_defaults_daemonset
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


class DaemonSetStrategy(Strategy):
    kind = "DaemonSet"
    propagates_deletion = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_daemonset(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        md = obj.setdefault("metadata", {})
        md.setdefault("annotations", {})[TEMPLATE_GENERATION_ANNOTATION] = "1"
        md["generation"] = 1
        obj["status"] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                         "numberReady": 0}

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        md, omd = new.setdefault("metadata", {}), old.get("metadata") or {}
        gen = int(omd.get("generation") or 1)
        md["generation"] = gen
        ann = md.setdefault("annotations", {})
        old_tg = (omd.get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION, "1")
        if drop_empty((new.get("spec") or {}).get("template")) != drop_empty((old.get("spec") or {}).get("template")):
            ann[TEMPLATE_GENERATION_ANNOTATION] = str(int(old_tg) + 1)
            md["generation"] = gen + 1
            return
        ann[TEMPLATE_GENERATION_ANNOTATION] = old_tg
        if drop_empty(new.get("spec")) != drop_empty(old.get("spec")):
            md["generation"] = gen + 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.apps.validation import validate_daemonset

        return validate_daemonset(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apps.validation import validate_daemonset

        return validate_daemonset(new, old)


strategy = DaemonSetStrategy()
