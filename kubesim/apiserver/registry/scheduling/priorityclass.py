"""PriorityClasses: generation 1 on create and unchanged by updates; the system classes cannot
be deleted.

Upstream: pkg/registry/scheduling/priorityclass/strategy.go (``priorityClassStrategy``:
``PrepareForCreate`` sets generation 1, ``PrepareForUpdate`` keeps it;
``Validate``/``ValidateUpdate`` are ``kubesim.api.scheduling.validation``'s) and
``storage/storage.go`` (``Delete``: "this is a system priority class and cannot be deleted").
That only one class is the global default is the Priority admission plugin's check
(``kubesim.apiserver.admission.priority``).
"""

from __future__ import annotations

from kubesim.api.scheduling.defaults import set_defaults_priority_class
from kubesim.api.scheduling.helpers import SYSTEM_PRIORITY_CLASSES
from kubesim.apiserver.registry.rest import Strategy
from kubesim.errors import Forbidden


class PriorityClassStrategy(Strategy):
    kind = "PriorityClass"

    def set_defaults(self, obj: dict) -> None:
        set_defaults_priority_class(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        obj.setdefault("metadata", {})["generation"] = 1

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new.setdefault("metadata", {})["generation"] = (old.get("metadata") or {}).get("generation") or 1

    def validate(self, obj: dict) -> list:
        from kubesim.api.scheduling.validation import validate_priority_class

        return validate_priority_class(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.scheduling.validation import validate_priority_class_update

        return validate_priority_class_update(new, old)

    def before_delete(self, obj: dict) -> None:
        name = (obj.get("metadata") or {}).get("name") or ""
        if name in SYSTEM_PRIORITY_CLASSES:
            raise Forbidden(f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this is a system priority '
                            "class and cannot be deleted")


strategy = PriorityClassStrategy()
