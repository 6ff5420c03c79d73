"""ControllerRevisions: no status; the data is immutable.

Upstream: pkg/registry/apps/controllerrevision/strategy.go (``strategy``: no status;
``ValidateControllerRevision``/``ValidateControllerRevisionUpdate``,
kubesim.api.apps.validation).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ControllerRevisionStrategy(Strategy):
    kind = "ControllerRevision"

    def validate(self, obj: dict) -> list:
        from kubesim.api.apps.validation import validate_controller_revision

        return validate_controller_revision(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.apps.validation import validate_controller_revision_update

        return validate_controller_revision_update(new, old)


strategy = ControllerRevisionStrategy()
