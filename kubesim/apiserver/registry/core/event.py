"""Events: no status, no generation; core/v1 Events get only the legacy validation.

Upstream: pkg/registry/core/event/strategy.go (``eventStrategy``: ``ValidateEventCreate``/
``ValidateEventUpdate`` with the v1 request version, i.e. legacyValidateEvent alone, which does
not even check the name; kubesim.api.core.validation). kubesim's own components record their
Events through the storage interface, as trusted writers.
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class EventStrategy(Strategy):
    kind = "Event"

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.validation import validate_event

        return validate_event(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.validation import validate_event

        return validate_event(new)


strategy = EventStrategy()
