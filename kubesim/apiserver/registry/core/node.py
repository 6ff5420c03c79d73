"""Nodes: a new node keeps the status it registers with.

Upstream: pkg/registry/core/node/strategy.go (``nodeStrategy``: ``PrepareForCreate`` keeps the
status, the kubelet's to report; ``Validate``/``ValidateUpdate`` are
``kubesim.api.core.validation``'s). Status updates go through the status subresource. A deleted
node's CSINode goes with it (the garbage collector follows the owner reference); its pods stay
bound to it until the pod garbage collector (kubesim.controllers.podgc) removes them, once the
node has been missing for its 40 s quarantine.
"""

from __future__ import annotations

from kubesim.api.core.defaults import set_object_defaults_node
from kubesim.apiserver.registry.rest import Strategy


class NodeStrategy(Strategy):
    kind = "Node"
    keeps_status_on_create = True

    def set_defaults(self, obj: dict) -> None:
        set_object_defaults_node(obj)

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.validation import validate_node_create

        return validate_node_create(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.validation import validate_node_update

        return validate_node_update(new, old)

    def delete_dependents(self, store, obj: dict) -> None:
        name = (obj.get("metadata") or {}).get("name", "")
        store.delete("CSINode", "", name)  # the garbage collector follows its owner reference


strategy = NodeStrategy()
