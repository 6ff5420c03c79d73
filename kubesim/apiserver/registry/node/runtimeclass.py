"""RuntimeClasses: stored as written.

Upstream: pkg/registry/node/runtimeclass/strategy.go (``strategy``: generation 1 on create,
bumped on update; ``ValidateRuntimeClass``/``ValidateRuntimeClassUpdate``, kubesim.api.node.validation). What a class does to the pods naming it is the RuntimeClass admission plugin's
(``kubesim.apiserver.admission.runtimeclass``).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class RuntimeClassStrategy(Strategy):
    kind = "RuntimeClass"

    def validate(self, obj: dict) -> list:
        from kubesim.api.node.validation import validate_runtime_class

        return validate_runtime_class(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.node.validation import validate_runtime_class_update

        return validate_runtime_class_update(new, old)


strategy = RuntimeClassStrategy()
