"""Nodes: a new node keeps the status it registers with.

Upstream: pkg/registry/core/node/strategy.go (``nodeStrategy``: ``PrepareForCreate`` keeps the
status, the kubelet's to report; ``Validate``/``ValidateUpdate`` are
``kubesim.api.core.validation``'s). Status updates go through the status subresource. A deleted
node's CSINode and its Lease in kube-node-lease go with it (the garbage collector follows
their owner references to the Node); its pods stay bound to it until the pod garbage
collector (kubesim.controllers.podgc) removes them, once the node has been missing for its
40 s quarantine.
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
        # the garbage collector follows the owner references of its CSINode and its Lease
        uid = (obj.get("metadata") or {}).get("uid")
        for kind, ns in (("CSINode", ""), ("Lease", "kube-node-lease")):
            dep = store.get(kind, ns, name)
            if dep is not None and any(r.get("uid") == uid for r in (dep.get("metadata") or {}).get(
                    "ownerReferences") or ()):
                store.delete(kind, ns, name)


strategy = NodeStrategy()
