"""Reading a Node: its addresses, its Ready condition, and whether its (simulated) kubelet runs.

Upstream: staging/src/k8s.io/component-helpers/node/util (GetNodeHostIPs' InternalIP first,
GetNodeCondition). kubesim marks a stopped kubelet with the node annotation
``kubesim.io/kubelet-stopped``, its value the RFC 3339 time it stopped (``kubesim node stop``
sets it, ``node start`` removes it): the simulated kubelets skip such a node, and its Lease is
no longer renewed.
"""

from __future__ import annotations

KUBELET_STOPPED_ANNOTATION = "kubesim.io/kubelet-stopped"

# kubesim's control-plane node: where the static control-plane pods run, and so the hostname in
# their components' identities (the scheduler's reportingInstance)
CONTROL_PLANE_NODE = "controlplane"

# LabelTopologyZone (k8s.io/api/core/v1 well_known_labels.go): the zone a node is in
ZONE_LABEL = "topology.kubernetes.io/zone"


def internal_ip(node: dict) -> str:
    """The node's InternalIP address ('' when it has none yet)."""
    for a in (node.get("status") or {}).get("addresses") or []:
        if a.get("type") == "InternalIP":
            return a.get("address", "")
    return ""


def ready_condition(node: dict) -> dict | None:
    return next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None)


def kubelet_stopped(node: dict) -> bool:
    return bool(((node.get("metadata") or {}).get("annotations") or {}).get(KUBELET_STOPPED_ANNOTATION))
