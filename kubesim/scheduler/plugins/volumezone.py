"""VolumeZone: a pod's bound volumes must be in the node's zone and region.

Upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go (PreFilter getPVbyPod,
Filter, translateToGALabel) and component-helpers volume/helpers LabelZonesToSet (a PV label
may list several zones joined by ``__``).

PreFilter collects the topology labels (topology.kubernetes.io/zone and /region and their
failure-domain.beta.kubernetes.io forms) of the PVs the pod's claims are bound to; an unbound
claim of a WaitForFirstConsumer class is skipped (VolumeBinding handles it), an unbound claim
otherwise is "PersistentVolume had no name"; none found: Skip. Filter passes a node without any
of those labels; otherwise every PV topology label must be on the node (a beta key also matches
the node's GA label) with one of the PV's values, else "node(s) had no available volume zone"
(UnschedulableAndUnresolvable). EventsToRegister (queueing hints on): StorageClass Add, Queue for a
WaitForFirstConsumer class; Node Add|UpdateNodeLabel, without a QueueingHintFn;
PersistentVolumeClaim Add|Update, Queue for a claim the pod uses; PersistentVolume Add|Update,
Queue for a new volume or a change of its topology labels.
Legacy predicate name: NoVolumeZoneConflict.
"""

from __future__ import annotations

from kubesim.api import volumes as V
from kubesim.api.record import FrozenRecord
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "VolumeZone"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_TO_GA = {BETA_ZONE: GA_ZONE, BETA_REGION: GA_REGION}


class PVTopology(FrozenRecord):
    __slots__ = ("key", "pv_name", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset):
        self.pv_name = pv_name
        self.key = key
        self.values = values


def label_zones_to_set(value: str) -> frozenset:
    """LabelZonesToSet: zones joined by "__"."""
    return frozenset(z for z in value.split("__") if z) if value else frozenset()


def pv_topologies(pv: dict) -> list[PVTopology]:
    """``getPVTopologies``: the PV's topology labels, in ``topologyLabels`` order."""
    md = pv.get("metadata") or {}
    labels = md.get("labels") or {}
    return [PVTopology(md.get("name") or "", key, label_zones_to_set(labels[key]))
            for key in (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION) if key in labels]


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = NAME

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.STORAGE_CLASS, ev.ADD),
                                    self.is_schedulable_after_storage_class_added),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL)),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE),
                self.is_schedulable_after_persistent_volume_claim_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE),
                                    self.is_schedulable_after_persistent_volume_change),
        ]

    def is_schedulable_after_persistent_volume_claim_change(self, pod: dict, old: dict | None,
                                                            new: dict) -> int:
        md = new.get("metadata") or {}
        if md.get("namespace") != (pod.get("metadata") or {}).get("namespace"):
            return ev.QUEUE_SKIP
        for v in (pod.get("spec") or {}).get("volumes") or ():
            pvc = v.get("persistentVolumeClaim")
            if pvc is not None and pvc.get("claimName") == md.get("name"):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    def is_schedulable_after_storage_class_added(self, pod: dict, old: None, new: dict) -> int:
        return ev.QUEUE if new.get("volumeBindingMode") == "WaitForFirstConsumer" \
            else ev.QUEUE_SKIP

    def is_schedulable_after_persistent_volume_change(self, pod: dict, old: dict | None,
                                                      new: dict) -> int:
        if old is None:
            return ev.QUEUE
        return ev.QUEUE if pv_topologies(old) != pv_topologies(new) else ev.QUEUE_SKIP

    def _get(self, kind: str, ns: str, name: str) -> dict | None:
        getter = self.handle.get_object
        return getter(kind, ns, name) if getter is not None else None

    def get_pv_topologies(self, pod: dict) -> tuple[list[PVTopology], Status | None]:
        ns = (pod.get("metadata") or {}).get("namespace", "")
        out: list[PVTopology] = []
        for vol in (pod.get("spec") or {}).get("volumes") or ():
            src = vol.get("persistentVolumeClaim")
            if not src:
                continue
            claim_name = src.get("claimName") or ""
            if not claim_name:
                return out, Status(Code.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")
            pvc = self._get("PersistentVolumeClaim", ns, claim_name)
            if pvc is None:
                return out, Status(Code.UnschedulableAndUnresolvable,
                                   f'persistentvolumeclaim "{claim_name}" not found')
            pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
            if not pv_name:
                sc_name = V.claim_class(pvc)
                if not sc_name:
                    return out, Status(Code.UnschedulableAndUnresolvable,
                                       "PersistentVolumeClaim had no pv name and storageClass name")
                sc = self._get("StorageClass", "", sc_name)
                if sc is None:
                    return out, Status(Code.UnschedulableAndUnresolvable,
                                       f'storageclass.storage.k8s.io "{sc_name}" not found')
                if (sc.get("volumeBindingMode") or "Immediate") == V.WAIT_FOR_FIRST_CONSUMER:
                    continue
                return out, Status(Code.UnschedulableAndUnresolvable, "PersistentVolume had no name")
            pv = self._get("PersistentVolume", "", pv_name)
            if pv is None:
                return out, Status(Code.UnschedulableAndUnresolvable, f'persistentvolume "{pv_name}" not found')
            labels = (pv.get("metadata") or {}).get("labels") or {}
            for key in TOPOLOGY_LABELS:
                if key in labels:
                    out.append(PVTopology(pv_name, key, label_zones_to_set(labels[key])))
        return out, None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        if not (pod.pod.get("spec") or {}).get("volumes"):
            return None, SKIP
        topologies, s = self.get_pv_topologies(pod.pod)
        if s is not None:
            return None, s
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, tuple(topologies))
        return None, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not (pod.pod.get("spec") or {}).get("volumes"):
            return None
        topologies = state.get(PRE_FILTER_STATE_KEY)
        if topologies is None:
            topologies, s = self.get_pv_topologies(pod.pod)
            if s is not None:
                return s
        return volume_zone_fits(topologies, node.labels)


def volume_zone_fits(topologies, node_labels: dict) -> Status | None:
    """The Filter decision for node labels ``node_labels``."""
    if not topologies:
        return None
    if not any(k in node_labels for k in TOPOLOGY_LABELS):
        return None
    for t in topologies:
        v = node_labels.get(t.key)
        if v is None:
            v = node_labels.get(_TO_GA.get(t.key, ""))
        if v is None or v not in t.values:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
    return None
