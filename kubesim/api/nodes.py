"""Reading a Node: its addresses and conditions.

Upstream: staging/src/k8s.io/component-helpers/node/util (GetNodeHostIPs' InternalIP first,
GetNodeCondition).
"""

from __future__ import annotations


def internal_ip(node: dict) -> str:
    """The node's InternalIP address ('' when it has none yet)."""
    for a in (node.get("status") or {}).get("addresses") or []:
        if a.get("type") == "InternalIP":
            return a.get("address", "")
    return ""
