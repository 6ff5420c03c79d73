"""The scheduler's cache as kept in the state: a digest per node and per bound pod.

Upstream: pkg/scheduler/backend/cache/cache.go (``cacheImpl``: kept up to date by the informers'
events — ``AddPod``/``UpdatePod``/``RemovePod``, ``AddNode``/``UpdateNode``/``RemoveNode`` —
so ``UpdateSnapshot`` copies only what changed since the last cycle) and
pkg/scheduler/framework/types.go (what ``NewPodInfo`` and ``NodeInfo.SetNode`` precompute).

kubesim's scheduler lives for one command, so its cache lives in the state: beside every Pod
and Node the store keeps the digest this module computes (``pod_digest``, ``node_digest``),
rewritten in the transaction of each write of the object. A command that schedules builds its
snapshot from the digests (``snapshot_from_digests``) and reads a pod's manifest only when a
plugin asks for it (``PodInfo.pod``): the requests, ports, affinity flags, labels and priority
of each bound pod, and each node's labels, taints, allocatable and images, come from the
digests. ``Snapshot.build`` from the full objects gives the same snapshot (the tests check it
on random histories).
"""

from __future__ import annotations

from kubesim.scheduler.framework.snapshot import TERMINAL_PHASES, Snapshot, gc_paused
from kubesim.scheduler.framework.types import NodeInfo, PodInfo


def pod_digest(pod: dict) -> list | None:
    """What the cache keeps of a pod: None for a terminal one (the scheduler's pod informer
    drops Succeeded and Failed pods), else ``PodInfo.digest``."""
    status = pod.get("status")
    if status and status.get("phase") in TERMINAL_PHASES:
        return None
    return PodInfo(pod).digest()


def node_digest(node: dict) -> dict:
    """What the cache keeps of a node: the fields the plugins read (name, labels, spec, the
    allocatable resources and the images), shaped as the Node itself so NodeInfo takes it."""
    meta = node.get("metadata") or {}
    status = node.get("status") or {}
    out_status = {}
    if "allocatable" in status:
        out_status["allocatable"] = status["allocatable"]
    if status.get("images"):
        out_status["images"] = status["images"]
    return {"metadata": {"name": meta.get("name", ""), "labels": meta.get("labels") or {}},
            "spec": node.get("spec") or {}, "status": out_status}


def snapshot_from_digests(nodes: list[dict], pods: list[tuple[str, str, list | None]],
                          loader) -> Snapshot:
    """``Snapshot.build`` from the cache: node digests in (name) order, and (namespace, name,
    digest) of the bound pods in (namespace, name) order; ``loader(pod_info)`` reads a pod's
    manifest when a plugin needs it."""
    with gc_paused():
        snap = Snapshot.of_nodes(nodes)
        node_info_map = snap.node_info_map
        from_digest = PodInfo.from_digest
        for ns, name, d in pods:
            if d is None:
                continue
            ni = node_info_map.get(d[2])
            if ni is not None:
                ni.pods.append(from_digest(d, ns, name, loader))
        snap.account_appended_pods()
    return snap


def node_infos_equal(a: NodeInfo, b: NodeInfo) -> bool:
    """Whether two NodeInfos hold the same aggregates and pods (for the cache == rebuild
    check)."""
    return _node_info_state(a) == _node_info_state(b)


def _node_info_state(ni: NodeInfo) -> tuple:
    return (ni.name, ni.labels, list(ni.taints), ni.unschedulable, ni.allocatable, ni.requested,
            ni.non_zero_requested, dict(ni.used_ports),
            sorted(p.key for p in ni.pods),
            sorted(p.key for p in ni.pods_with_affinity),
            sorted(p.key for p in ni.pods_with_required_anti_affinity),
            {k: (v.size, v.num_nodes) for k, v in ni.image_states.items()},
            sorted((p.key, p.namespace, p.name, p.priority, p.requests, p.non0_cpu, p.non0_mem,
                    p.host_ports, p.has_affinity, p.has_required_anti_affinity,
                    sorted(p.labels.items()), p.terminating) for p in ni.pods))
