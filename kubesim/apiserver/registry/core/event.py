"""Events: stored as they are written.

Upstream: pkg/registry/core/event/strategy.go (``eventStrategy``: no status, no generation;
``ValidateEvent`` checks the involved object and the reporting fields, which kubesim does not
model: its Events are written by its own components).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class EventStrategy(Strategy):
    kind = "Event"


strategy = EventStrategy()
