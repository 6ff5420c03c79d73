"""TaintNodesByCondition: a new node is not ready until its kubelet says so.

Upstream: plugin/pkg/admission/nodetaint/admission.go: on a Node create, the
``node.kubernetes.io/not-ready:NoSchedule`` taint is added (once); the node lifecycle
controller removes it when the node reports Ready.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import CREATE, Attributes, MutationPlugin

NOT_READY_TAINT = "node.kubernetes.io/not-ready"


class TaintNodesByCondition(MutationPlugin):
    name = "TaintNodesByCondition"

    def admit(self, a: Attributes) -> None:
        if a.operation == CREATE and a.kind == "Node":
            admit_node(a.obj)


def admit_node(node: dict) -> None:
    """Add the not-ready NoSchedule taint, unless the node already has it."""
    spec = node.setdefault("spec", {})
    taints = spec.get("taints")
    if not isinstance(taints, list):
        taints = []
    for t in taints:
        if isinstance(t, dict) and t.get("key") == NOT_READY_TAINT and t.get("effect") == "NoSchedule":
            return
    taints.append({"key": NOT_READY_TAINT, "effect": "NoSchedule"})
    spec["taints"] = taints
