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

Per node the store also keeps the sum of its pods' digests (``pod_fold``: the requested and
non-zero requested resources, the used host ports, how many pods, how many with (anti-)affinity,
and a census of the pods by namespace, labels and termination — what PodTopologySpread and
InterPodAffinity count), changed with every digest in the same transaction, as upstream's
cache ``AddPod``/``RemovePod`` keep a NodeInfo. ``snapshot_from_sums`` builds the snapshot from
the node digests and these sums alone; a node's pods are read (``derived_on_node``, or all at
once after a few nodes) only when a plugin asks for them.
"""

from __future__ import annotations

from kubesim.gcpause import collector_paused
from kubesim.scheduler.framework.snapshot import TERMINAL_PHASES, Snapshot
from kubesim.scheduler.framework.types import (
    NodeInfo,
    PodInfo,
    census_entry,
    census_key,
)

__all__ = ["census_entry", "census_key", "node_digest", "pod_digest", "pod_fold", "snapshot_from_digests",
           "snapshot_from_sums"]


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
    with collector_paused(freeze=True):
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


def pod_fold(acc: dict | None, key: tuple, d: list | None, sign: int) -> dict | None:
    """A node's sum of pod digests (``pod_digest``) with one digest added (sign 1) or taken
    away (-1); None when no pod is left. Counted per distinct value, so that taking a pod away
    leaves what summing the others gives: host ports and scalar resources by how many pods
    use them, the census by (namespace, labels, terminating)."""
    if d is None:
        return acc
    if acc is None:
        acc = {"n": 0, "r": [0, 0, 0], "z": [0, 0], "a": 0, "x": 0}
    _uid, _prio, _node, r, non0_cpu, non0_mem, ports, aff, anti, labels, terminating = d
    acc["n"] += sign
    req = acc["r"]
    req[0] += sign * r[0]
    req[1] += sign * r[1]
    req[2] += sign * r[2]
    if r[4]:
        scalar = acc.setdefault("s", {})
        for k, v in r[4].items():
            e = scalar.setdefault(k, [0, 0])
            e[0] += sign * v
            e[1] += sign
            if not e[1]:
                del scalar[k]
        if not scalar:
            del acc["s"]
    z = acc["z"]
    z[0] += sign * non0_cpu
    z[1] += sign * non0_mem
    if ports:
        used = acc.setdefault("p", [])
        for ip, proto, port in ports:
            for e in used:
                if e[0] == ip and e[1] == proto and e[2] == port:
                    e[3] += sign
                    break
            else:
                used.append([ip, proto, port, sign])
        used[:] = [e for e in used if e[3]]
        used.sort(key=lambda e: (e[0], e[1], e[2]))
        if not used:
            del acc["p"]
    if aff:
        acc["a"] += sign
    if anti:
        acc["x"] += sign
    census = acc.setdefault("c", {})
    ck = census_key(key[1] or "default", labels, terminating)
    n = census.get(ck, 0) + sign
    if n:
        census[ck] = n
    else:
        census.pop(ck, None)
    if acc["n"] == 0:
        return None
    return acc


class _PodsOnDemand:
    """Reads a node's pods for a NodeInfo built from the sums: one node at a time for the
    first few, then every node's at once (a plugin walking all nodes' pods pays for one
    read, as ``snapshot_from_digests`` does)."""

    ONE_AT_A_TIME = 8

    __slots__ = ("all_pods", "calls", "loader", "on_node", "snapshot")

    def __init__(self, snapshot: Snapshot | None, on_node, all_pods, loader) -> None:
        self.snapshot = lambda: None
        if snapshot is not None:
            self.watch(snapshot)
        self.on_node = on_node
        self.all_pods = all_pods
        self.loader = loader
        self.calls = 0

    def watch(self, snapshot: Snapshot) -> None:
        """The snapshot whose nodes' pods this reads."""
        import weakref

        # (weakly: each NodeInfo holds this, which would hold every NodeInfo, a cycle only the
        # garbage collector frees; a new cluster built a slice at a time drops a snapshot of
        # every node each slice)
        self.snapshot = weakref.ref(snapshot)

    def __call__(self, ni: NodeInfo) -> list[PodInfo]:
        self.calls += 1
        from_digest = PodInfo.from_digest
        loader = self.loader
        snapshot = self.snapshot()
        if self.calls <= self.ONE_AT_A_TIME or snapshot is None:
            return [from_digest(d, ns, name, loader) for ns, name, d in self.on_node(ni.name)
                    if d is not None]
        with collector_paused(freeze=True):
            by_node: dict[str, list[PodInfo]] = {}
            for ns, name, d in self.all_pods():
                if d is not None:
                    by_node.setdefault(d[2], []).append(from_digest(d, ns, name, loader))
            for other in snapshot.node_info_list:
                if other is not ni and other._pods is None and other._lazy[0] is self:
                    other.set_loaded_pods(by_node.get(other.name, ()))
        return by_node.get(ni.name, [])


def snapshot_from_sums(nodes: list[dict], sums: dict[str, dict], on_node, all_pods,
                       loader) -> Snapshot:
    """``snapshot_from_digests`` from the node digests and each node's sum of its pods'
    digests (``pod_fold``): ``on_node(name)`` and ``all_pods()`` list (namespace, name,
    digest) of the bound pods of one node / of all, in (namespace, name) order, read only
    when a plugin asks for a node's pods."""
    with collector_paused(freeze=True):
        pods = _PodsOnDemand(None, on_node, all_pods, loader)
        from_cache = NodeInfo.from_cache
        get = sums.get
        snap = Snapshot.of_nodes(
            nodes, lambda n: from_cache(n, get((n.get("metadata") or {}).get("name", "")), pods))
        pods.watch(snap)
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
