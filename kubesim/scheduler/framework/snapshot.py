"""The scheduler's snapshot of the cluster for one scheduling cycle, in the node tree's order.

Upstream: pkg/scheduler/backend/cache/snapshot.go (``Snapshot``: the node infos in order, the
lookup by name, ``havePodsWithAffinityNodeInfoList`` and
``havePodsWithRequiredAntiAffinityNodeInfoList``, image states: the size from the first node
reporting an image name, NumNodes = the nodes having it), pkg/scheduler/backend/cache/
node_tree.go (``nodeTree.list``: the nodes interleaved zone by zone, zones in order of
appearance; ``utilnode.GetZoneKey``), pkg/scheduler/scheduler.go (the pod informer ignores
Succeeded and Failed pods).

kubesim builds a snapshot from all nodes and pods once per command instead of keeping a cache
up to date from informers.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesim.scheduler.framework.pod_groups import KeyFn, PodGroups
from kubesim.scheduler.framework.types import (
    NO_IMAGE_STATES,
    ImageStateSummary,
    NodeInfo,
    PodInfo,
    affinity_epoch,
)

# -- node tree ---------------------------------------------------------------------------------
_NO_LABEL = object()


def _zone_key(node: dict) -> str:
    """``utilnode.GetZoneKey``."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    zone = labels.get("topology.kubernetes.io/zone", _NO_LABEL)
    if zone is _NO_LABEL:
        zone = labels.get("failure-domain.beta.kubernetes.io/zone", "")
    region = labels.get("topology.kubernetes.io/region", _NO_LABEL)
    if region is _NO_LABEL:
        region = labels.get("failure-domain.beta.kubernetes.io/region", "")
    if not region and not zone:
        return ""
    return region + ":\x00:" + zone


def zone_interleaved(nodes: list[dict]) -> list[dict]:
    """The node tree's listing order: one node per zone in turn, zones in order of appearance."""
    zones: dict[str, list[dict]] = {}
    for n in nodes:
        zones.setdefault(_zone_key(n), []).append(n)
    if len(zones) <= 1:
        return list(nodes)
    out: list[dict] = []
    lists = list(zones.values())
    i = 0
    while len(out) < len(nodes):
        for lst in lists:
            if i < len(lst):
                out.append(lst[i])
        i += 1
    return out


# -- Snapshot ----------------------------------------------------------------------------------
TERMINAL_PHASES = ("Succeeded", "Failed")


def is_terminal_pod(pod: dict) -> bool:
    return ((pod.get("status") or {}).get("phase")) in TERMINAL_PHASES


class Snapshot:
    """The node infos of one scheduling cycle, in the node tree's order, plus lookups."""

    __slots__ = ("__weakref__", "_affinity_lists", "_pod_groups", "image_states", "node_info_list",
                 "node_info_map")

    def __init__(self, node_infos: list[NodeInfo] | None = None) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos or [])
        for ni in self.node_info_list:
            ni.journaled = True
        self.node_info_map: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_info_list}
        self.image_states: dict[str, ImageStateSummary] = {}
        # per list (with affinity, with required anti-affinity): (epoch, node list object, its
        # length, the nodes)
        self._affinity_lists: list | None = None
        self._pod_groups: dict[tuple, PodGroups] = {}

    @classmethod
    def build(cls, nodes: list[dict], pods: Iterable[dict | PodInfo] = ()) -> Snapshot:
        snap = cls.of_nodes(nodes)
        node_info_map = snap.node_info_map
        for p in pods:
            pi = p if isinstance(p, PodInfo) else None
            pod = pi.pod if pi is not None else p
            node_name = ((pod.get("spec") or {}).get("nodeName")) or ""
            if not node_name:
                continue
            status = pod.get("status")
            if status and status.get("phase") in TERMINAL_PHASES:
                continue
            ni = node_info_map.get(node_name)
            if ni is None:
                continue
            ni.pods.append(pi if pi is not None else PodInfo(pod))
        snap.account_appended_pods()
        return snap

    @classmethod
    def of_nodes(cls, nodes: list[dict], node_info=NodeInfo) -> Snapshot:
        """The first half of ``build``: the nodes (in node tree order) and images, no pods
        yet. Pods may then be appended to ``NodeInfo.pods`` in order, followed by
        ``account_appended_pods``, which makes it the same as ``build`` with those pods.
        ``node_info(node)`` makes each node's NodeInfo (the scheduler's cache gives its
        sums at once: cache.snapshot_from_sums)."""
        snap = cls([node_info(n) for n in zone_interleaved(list(nodes))])
        snap._build_images()
        return snap

    def account_appended_pods(self) -> None:
        """Account the pods appended to the nodes since ``of_nodes`` (call once)."""
        for ni in self.node_info_list:
            if ni.pods:
                ni._account_added_pods(ni.pods)

    def _build_images(self) -> None:
        states: dict[str, ImageStateSummary] = {}
        # nodes sharing one image list object (the scheduler's cache reads them so) share
        # their read-only image states: a list is walked once, at the first node having it,
        # so each image's size is still the first reporting node's
        shared: dict[int, tuple[list, dict[str, ImageStateSummary], list[int]]] = {}
        for ni in self.node_info_list:
            images = (ni.node.get("status") or {}).get("images")
            if not images:
                ni.image_states = NO_IMAGE_STATES
                continue
            seen = shared.get(id(images))
            if seen is not None:
                ni.image_states = seen[1]
                seen[2][0] += 1
                continue
            mine: dict[str, ImageStateSummary] = {}
            for image in images:
                size = int(image.get("sizeBytes") or 0)
                for name in image.get("names") or ():
                    st = states.get(name)
                    if st is None:
                        st = states[name] = ImageStateSummary(size, 0)
                    if name not in mine:
                        mine[name] = st
                        st.num_nodes += 1
            ni.image_states = mine
            shared[id(images)] = (images, mine, [0])
        for _images, mine, more in shared.values():
            if more[0]:
                for st in mine.values():
                    st.num_nodes += more[0]
        self.image_states = states

    def get(self, name: str) -> NodeInfo | None:
        return self.node_info_map.get(name)

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def _affinity_cache(self, which: int) -> list[NodeInfo]:
        """One of the two "nodes having pods with ..." lists (0: affinity, 1: required
        anti-affinity), recomputed only after some NodeInfo's such pods changed (or the node
        list was replaced or resized)."""
        caches = self._affinity_lists
        if caches is None:
            caches = self._affinity_lists = [None, None]
        c = caches[which]
        lst = self.node_info_list
        epoch = affinity_epoch(bool(which))
        if c is None or c[0] != epoch or c[1] is not lst or c[2] != len(lst):
            c = caches[which] = (
                epoch, lst, len(lst),
                [ni for ni in lst if ni.pods_with_affinity] if which == 0
                else [ni for ni in lst if ni.pods_with_required_anti_affinity])
        return c[3]

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return list(self._affinity_cache(0))

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return list(self._affinity_cache(1))

    def pod_groups(self, key_fn: KeyFn, affinity_only: bool = False) -> PodGroups:
        """The pods of every node counted by ``key_fn`` (kubesim/scheduler/framework/
        pod_groups.py), kept between cycles and brought up to date with the node list."""
        key = (key_fn, affinity_only)
        pg = self._pod_groups.get(key)
        if pg is None:
            pg = self._pod_groups[key] = PodGroups(key_fn, affinity_only)
        return pg.refresh(self.node_info_list)
