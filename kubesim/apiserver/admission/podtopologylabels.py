"""PodTopologyLabels: a pod bound to a node carries the node's zone and region labels.

Upstream: plugin/pkg/admission/podtopologylabels/admission.go (feature PodTopologyLabelsAdmission,
beta and on by default in v1.35): the labels ``topology.kubernetes.io/zone`` and
``topology.kubernetes.io/region`` of the pod's node are copied onto a pod created with a
``nodeName`` (existing pod labels win) and onto the Binding the scheduler creates, which the
binding registry (pkg/registry/core/pod/storage/storage.go, setPodNodeAndMetadata) then copies
onto the pod, overwriting. A node that does not exist contributes nothing.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import CREATE, Attributes, MutationPlugin

TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def topology_labels(node: dict | None) -> dict[str, str]:
    """topologyLabelsForNodeName: the node's labels the plugin copies."""
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return {k: v for k, v in labels.items() if k in TOPOLOGY_LABELS}


class PodTopologyLabels(MutationPlugin):
    name = "PodTopologyLabels"

    def admit(self, a: Attributes) -> None:
        if a.operation != CREATE or a.kind != "Pod" or a.lister is None:
            return
        node_name = (a.obj.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        node = next((n for n in a.lister("Node") if n["metadata"]["name"] == node_name), None)
        copied = topology_labels(node)
        if copied:
            labels = a.obj.setdefault("metadata", {}).setdefault("labels", {})
            for k, v in copied.items():
                labels.setdefault(k, v)  # mergeLabels: the pod's own labels win
