"""CSINodes: stored as written (the kubelet creates one per node, owned by the Node).

Upstream: pkg/registry/storage/csinode/strategy.go (``csiNodeStrategy``;
``Validate``/``ValidateUpdate`` are ``kubesim.api.storage.validation``'s).
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class CSINodeStrategy(Strategy):
    kind = "CSINode"

    def validate(self, obj: dict) -> list:
        from kubesim.api.storage.validation import validate_csinode

        return validate_csinode(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.storage.validation import validate_csinode_update

        return validate_csinode_update(new, old)


strategy = CSINodeStrategy()
