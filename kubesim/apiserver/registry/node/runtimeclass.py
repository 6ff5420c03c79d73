"""RuntimeClasses: stored as written.

Upstream: pkg/registry/node/runtimeclass/strategy.go (``strategy``: generation 1 on create,
bumped on update; ``ValidateRuntimeClass``: handler and overhead, which kubesim does not
model). What a class does to the pods naming it is the RuntimeClass admission plugin's
(``kubesim.apiserver.admission.runtimeclass``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class RuntimeClassStrategy(Strategy):
    kind = "RuntimeClass"


strategy = RuntimeClassStrategy()
