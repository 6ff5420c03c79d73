"""ControllerRevisions: stored as written (their data is immutable upstream).

Upstream: pkg/registry/apps/controllerrevision/strategy.go (``strategy``: no status;
``ValidateControllerRevision``/``ValidateControllerRevisionUpdate``, which kubesim does not
model: its revisions are written by its DaemonSet controller).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ControllerRevisionStrategy(Strategy):
    kind = "ControllerRevision"


strategy = ControllerRevisionStrategy()
