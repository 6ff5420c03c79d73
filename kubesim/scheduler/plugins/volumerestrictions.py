"""VolumeRestrictions: disks that cannot be shared, and ReadWriteOncePod claims.

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go
(needsRestrictionsCheck, PreFilter with readWriteOncePodPVCsForPod and calPreFilterState,
the AddPod/RemovePod extensions, Filter: satisfyVolumeConflicts / isVolumeConflict and
satisfyReadWriteOncePod).

- Disk conflicts (Filter, Unschedulable, "node(s) had no available disk"): a GCE PD with the
  same pdName unless both mounts are read-only; an AWS EBS volume with the same volumeID; an
  RBD image (overlapping monitors, same pool and image) or an iSCSI IQN unless both read-only
  — against the pods already on the node.
- ReadWriteOncePod: PreFilter counts the pods (anywhere) that use one of the pod's
  ReadWriteOncePod claims; while any does, Filter rejects every node with "node has pod using
  PersistentVolumeClaim with the same name and ReadWriteOncePod access mode" (Unschedulable, so
  preemption may free it; the extensions keep the count while it simulates).

PreFilter returns Skip for a pod without such volumes or claims. EventsToRegister (queueing hints
on): Pod Delete, Queue when a pod of the pod's namespace whose volumes conflict with the pod's,
or which used one of its claims, is deleted (``isSchedulableAfterPodDeleted``); Node Add,
without a QueueingHintFn; PersistentVolumeClaim Add, Queue when a claim the pod uses is created
(``isSchedulableAfterPersistentVolumeClaimAdded``). Legacy predicate name: NoDiskConflict.
"""

from __future__ import annotations

from kubesim.api.record import FrozenRecord
from kubesim.scheduler.framework import events as cev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "VolumeRestrictions"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = ("node has pod using PersistentVolumeClaim with the same name and "
                            "ReadWriteOncePod access mode")


class _State(FrozenRecord):
    __slots__ = ("conflicting", "rwop_claims")

    def __init__(self, rwop_claims: frozenset, conflicting: int):
        self.rwop_claims = rwop_claims  # "namespace/name" of the pod's ReadWriteOncePod claims
        self.conflicting = conflicting

    def clone(self) -> _State:
        return self


def needs_restrictions_check(vol: dict) -> bool:
    return any(vol.get(k) for k in ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi",
                                    "persistentVolumeClaim"))


def _overlap(a, b) -> bool:
    return bool(set(a or ()) & set(b or ()))


def is_volume_conflict(vol: dict, pod: dict) -> bool:
    """isVolumeConflict: ``vol`` (of the incoming pod) against the volumes of ``pod``."""
    for ev in (pod.get("spec") or {}).get("volumes") or ():
        g, eg = vol.get("gcePersistentDisk"), ev.get("gcePersistentDisk")
        if g and eg and g.get("pdName") == eg.get("pdName") and not (g.get("readOnly") and eg.get("readOnly")):
            return True
        a, ea = vol.get("awsElasticBlockStore"), ev.get("awsElasticBlockStore")
        if a and ea and a.get("volumeID") == ea.get("volumeID"):
            return True
        i, ei = vol.get("iscsi"), ev.get("iscsi")
        if i and ei and i.get("iqn") == ei.get("iqn") and not (i.get("readOnly") and ei.get("readOnly")):
            return True
        r, er = vol.get("rbd"), ev.get("rbd")
        if r and er and _overlap(r.get("monitors"), er.get("monitors")) \
                and (r.get("pool") or "rbd") == (er.get("pool") or "rbd") and r.get("image") == er.get("image") \
                and not (r.get("readOnly") and er.get("readOnly")):
            return True
    return False


def satisfy_volume_conflicts(pod: dict, node: NodeInfo) -> bool:
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if not any(vol.get(k) for k in ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")):
            continue
        for existing in node.pods:
            if is_volume_conflict(vol, existing.pod):
                return False
    return True


def _claims_of(pod: dict) -> set[str]:
    ns = (pod.get("metadata") or {}).get("namespace") or "default"
    return {f'{ns}/{v["persistentVolumeClaim"].get("claimName", "")}'
            for v in (pod.get("spec") or {}).get("volumes") or () if v.get("persistentVolumeClaim")}


class _Extensions(PreFilterExtensions):
    def _update(self, state: CycleState, pod: PodInfo, delta: int) -> Status | None:
        s: _State | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status(Code.Error, err=f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        n = len(s.rwop_claims & _claims_of(pod.pod))
        if n:
            state.write(PRE_FILTER_STATE_KEY, s._replace(conflicting=s.conflicting + delta * n))
        return None

    def add_pod(self, state, pod_to_schedule, pod_to_add, node_info):
        return self._update(state, pod_to_add, 1)

    def remove_pod(self, state, pod_to_schedule, pod_to_remove, node_info):
        return self._update(state, pod_to_remove, -1)


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = NAME
    _extensions = _Extensions()

    def events_to_register(self) -> list[cev.ClusterEventWithHint]:
        return [
            # spec.volumes is immutable: pod updates are not registered
            cev.ClusterEventWithHint(cev.ClusterEvent(cev.POD, cev.DELETE),
                                    self.is_schedulable_after_pod_deleted),
            cev.ClusterEventWithHint(cev.ClusterEvent(cev.NODE, cev.ADD)),
            cev.ClusterEventWithHint(cev.ClusterEvent(cev.PERSISTENT_VOLUME_CLAIM, cev.ADD),
                                    self.is_schedulable_after_persistent_volume_claim_added),
        ]

    def is_schedulable_after_persistent_volume_claim_added(self, pod: dict, old: None,
                                                           new: dict) -> int:
        md = new.get("metadata") or {}
        if md.get("namespace") != (pod.get("metadata") or {}).get("namespace"):
            return cev.QUEUE_SKIP
        for v in (pod.get("spec") or {}).get("volumes") or ():
            pvc = v.get("persistentVolumeClaim")
            if pvc is not None and pvc.get("claimName") == md.get("name"):
                return cev.QUEUE
        return cev.QUEUE_SKIP

    def is_schedulable_after_pod_deleted(self, pod: dict, old: dict, new: None) -> int:
        if (old.get("metadata") or {}).get("namespace") != \
                (pod.get("metadata") or {}).get("namespace"):
            return cev.QUEUE_SKIP
        if not satisfy_volume_conflicts(pod, NodeInfo(pods=[PodInfo(old)])):
            return cev.QUEUE
        claims = {v["persistentVolumeClaim"].get("claimName")
                  for v in (pod.get("spec") or {}).get("volumes") or ()
                  if v.get("persistentVolumeClaim") is not None}
        for v in (old.get("spec") or {}).get("volumes") or ():
            pvc = v.get("persistentVolumeClaim")
            if pvc is not None and pvc.get("claimName") in claims:
                return cev.QUEUE
        return cev.QUEUE_SKIP

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        vols = (pod.pod.get("spec") or {}).get("volumes") or ()
        if not any(needs_restrictions_check(v) for v in vols):
            return None, SKIP
        getter = self.handle.get_object
        rwop = set()
        for v in vols:
            src = v.get("persistentVolumeClaim")
            if not src:
                continue
            name = src.get("claimName", "")
            pvc = getter("PersistentVolumeClaim", pod.namespace, name) if getter is not None else None
            if pvc is None:
                return None, Status(Code.UnschedulableAndUnresolvable, f'persistentvolumeclaim "{name}" not found')
            if "ReadWriteOncePod" in ((pvc.get("spec") or {}).get("accessModes") or ()):
                rwop.add(f"{pod.namespace}/{name}")
        conflicting = 0
        if rwop:
            for ni in self.handle.snapshot.list():
                for p in ni.pods:
                    conflicting += len(rwop & _claims_of(p.pod))
        state.write(PRE_FILTER_STATE_KEY, _State(frozenset(rwop), conflicting))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self._extensions

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod.pod, node):
            return Status(Code.Unschedulable, ERR_REASON_DISK_CONFLICT)
        s: _State | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status(Code.Error, err=f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if s.conflicting > 0:
            return Status(Code.Unschedulable, ERR_REASON_RWOP_CONFLICT)
        return None
