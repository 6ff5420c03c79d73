"""The kubelet's node Lease: its heartbeat, which the node lifecycle controller reads.

Upstream: staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go (the lease
controller: ``ensureLease`` creates the Lease when it is missing, ``newLease`` gives a new one
``holderIdentity`` and copies an existing one, and every sync sets ``leaseDurationSeconds`` and
``renewTime`` to now; ``sync`` runs every ``renewInterval``; a Lease deleted under it is created
again at the next sync), pkg/kubelet/kubelet.go (the kubelet's controller: holder and name are
the node's name, namespace ``kube-node-lease``, ``renewInterval`` = nodeLeaseRenewIntervalFraction
0.25 × nodeLeaseDurationSeconds 40 = 10 s; it runs with the kubelet and never deletes the
Lease) and pkg/kubelet/util/nodelease.go (``SetNodeOwnerFunc``: an owner reference to the Node,
set whenever the Lease has none).

Renewals are computed, not stored. A running kubelet renews its Lease every 10 s of simulated
time, for ever: writing each renewal would cost a write per node every 10 s (360 an hour per
node) for nothing anyone reads. kubesim stores the Lease as the kubelet last wrote it for a
reason other than a renewal (created, taken over when a stopped kubelet starts again, or as it
stood when the kubelet stopped) and :func:`renewed` gives what the renewals since then have made
of it: ``renewTime`` at the last 10 s tick of the grid that its stored ``renewTime`` starts
(``leaseDurationSeconds`` and the owner reference asserted again, as each renewal does). Every
reader — ``get``, ``describe node``, the node lifecycle controller — sees that. What differs from
a real cluster: the Lease's resourceVersion moves only on those writes, and the kubelet's
renewals come exactly 10 s apart (upstream's loop adds up to 4 % jitter and the time a sync
takes).

Pure functions of their arguments; times are epoch seconds.
"""

from __future__ import annotations

import copy
import math

from kubesim.clock import format_micro_time, parse_timestamp

NODE_LEASE_NAMESPACE = "kube-node-lease"  # v1.NamespaceNodeLease
LEASE_DURATION_SECONDS = 40               # KubeletConfiguration nodeLeaseDurationSeconds default
RENEW_INTERVAL_FRACTION = 0.25            # kubelet.go nodeLeaseRenewIntervalFraction
RENEW_INTERVAL = LEASE_DURATION_SECONDS * RENEW_INTERVAL_FRACTION
_EPS = 1e-6


def owner_reference(node: dict) -> dict:
    """SetNodeOwnerFunc's owner reference: the Node, by name and uid (not a controller)."""
    md = node.get("metadata") or {}
    return {"apiVersion": "v1", "kind": "Node", "name": md.get("name", ""), "uid": md.get("uid", "")}


def new_lease(node: dict, now: float) -> dict:
    """The Lease ``ensureLease`` creates at ``now`` for ``node`` (``newLease(nil)`` + the owner)."""
    name = (node.get("metadata") or {}).get("name", "")
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": NODE_LEASE_NAMESPACE,
                         "ownerReferences": [owner_reference(node)]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                     "renewTime": format_micro_time(now)}}


def renew(lease: dict, node: dict, now: float) -> dict:
    """One sync of the lease controller at ``now`` on a copy of ``lease`` (``newLease(base)``):
    the duration and renewTime set, the owner reference added if the Lease has none."""
    out = copy.deepcopy(lease)
    spec = out.setdefault("spec", {})
    spec["leaseDurationSeconds"] = LEASE_DURATION_SECONDS
    spec["renewTime"] = format_micro_time(now)
    md = out.setdefault("metadata", {})
    if not md.get("ownerReferences"):
        md["ownerReferences"] = [owner_reference(node)]
    return out


def _anchor(lease: dict) -> float | None:
    """Where the renewal grid starts: the last renewTime written, else the creation time."""
    spec = lease.get("spec") or {}
    try:
        return parse_timestamp(spec.get("renewTime")) or parse_timestamp((lease.get("metadata") or {}).get(
            "creationTimestamp"))
    except ValueError:
        return None


def last_renewal(lease: dict, now: float) -> float | None:
    """The last renewal at or before ``now`` of the grid the stored Lease starts (None before it)."""
    anchor = _anchor(lease)
    if anchor is None or now + _EPS < anchor:
        return None
    return anchor + RENEW_INTERVAL * math.floor((now - anchor) / RENEW_INTERVAL + _EPS)


def next_renewal(lease: dict, now: float) -> float:
    """The first renewal after ``now`` (when a deleted Lease is created again)."""
    last = last_renewal(lease, now)
    return now + RENEW_INTERVAL if last is None else last + RENEW_INTERVAL


def renewed(lease: dict, node: dict, now: float) -> dict:
    """``lease`` as the running kubelet of ``node`` has kept it up to ``now``: ``lease`` itself
    when no renewal came after its last write, else a renewed copy (:func:`renew` at the last
    renewal)."""
    last = last_renewal(lease, now)
    if last is None or last <= (_anchor(lease) or 0.0) + _EPS:
        return lease
    return renew(lease, node, last)

