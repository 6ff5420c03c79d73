"""NodeVolumeLimits: a node takes at most its CSI drivers' volume limits.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits: PreFilter,
Filter, filterAttachableVolumes, getCSIDriverInfo, getCSIDriverInfoFromSC, getVolumeLimits).

The limits come from the node's CSINode: ``spec.drivers[].allocatable.count`` per driver
(kubesim's kubelet creates a CSINode without drivers at registration; apply a CSINode manifest
to give a node limits). A volume counts for a driver when its claim is bound to a PV with a
``csi`` source (driver/volumeHandle), or, unbound, by the claim's StorageClass provisioner; a
volume shared with a pod already on the node counts once. Over the limit: "node(s) exceed max
volume count" (Unschedulable). A missing claim of the incoming pod is UnschedulableAndUnresolvable.
In-tree volume types (CSI migration, which needs the CSINode migrated-plugins annotation) are
not translated. EventsToRegister (queueing hints on): CSINode Add, without a QueueingHintFn;
CSINode Update, Queue when a driver's limit rises; Pod Delete, Queue for a scheduled (or
nominated) pod with a claim, generic ephemeral or migratable in-tree volume; PersistentVolumeClaim
Add, Queue for a claim the pod uses; VolumeAttachment Delete (a kind kubesim does not serve).
Legacy predicate name: MaxCSIVolumeCountPred.
"""

from __future__ import annotations

from kubesim.api import volumes as V
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
SITE_LIMITS = "csi.go:344"
# upstream prefixes unbound claims' handles with a random string so they never equal a real
# volume id; a fixed one does the same here
UNBOUND_PREFIX = "kubesim-unbound"


class _NotFound(Exception):
    pass


def volume_limits(csi_node: dict | None) -> dict[str, int]:
    """getVolumeLimits: driver name -> allocatable.count."""
    out = {}
    for d in ((csi_node or {}).get("spec") or {}).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[d.get("name", "")] = int(count)
    return out


# csi-translation-lib's in-tree plugins (IsInlineMigratable: CanSupportInline of any of them)
_INLINE_MIGRATABLE = ("awsElasticBlockStore", "gcePersistentDisk", "cinder", "azureDisk",
                      "azureFile", "vsphereVolume", "portworxVolume")


def is_inline_migratable(vol: dict) -> bool:
    return any(vol.get(k) is not None for k in _INLINE_MIGRATABLE)


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = NAME

    # -- EnqueueExtensions (CSILimits) -----------------------------------------------------
    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.CSI_NODE, ev.ADD)),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.CSI_NODE, ev.UPDATE),
                                    self.is_schedulable_after_csi_node_updated),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.DELETE),
                                    self.is_schedulable_after_pod_deleted),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD),
                                    self.is_schedulable_after_pvc_added),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.VOLUME_ATTACHMENT, ev.DELETE),
                                    self.is_schedulable_after_volume_attachment_deleted),
        ]

    def is_schedulable_after_pod_deleted(self, pod: dict, old: dict, new: None) -> int:
        vols = (old.get("spec") or {}).get("volumes") or ()
        if not vols:
            return ev.QUEUE_SKIP
        if not (old.get("spec") or {}).get("nodeName") and \
                not (old.get("status") or {}).get("nominatedNodeName"):
            return ev.QUEUE_SKIP
        for v in vols:
            if v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None \
                    or is_inline_migratable(v):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    def is_schedulable_after_pvc_added(self, pod: dict, old: None, new: dict) -> int:
        return ev.QUEUE if V.pod_uses_claim(pod, new) else ev.QUEUE_SKIP

    def is_schedulable_after_volume_attachment_deleted(self, pod: dict, old: dict,
                                                       new: None) -> int:
        # An in-tree volume's translated CSI driver is not modelled: any migratable volume is
        # taken as the attacher's (Queue), which errs the way upstream's errors do.
        for v in (pod.get("spec") or {}).get("volumes") or ():
            if v.get("persistentVolumeClaim") is not None or is_inline_migratable(v):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    def is_schedulable_after_csi_node_updated(self, pod: dict, old: dict, new: dict) -> int:
        old_limits = {d.get("name", ""): int(((d.get("allocatable") or {}).get("count")) or 0)
                      for d in (old.get("spec") or {}).get("drivers") or ()}
        for d in (new.get("spec") or {}).get("drivers") or ():
            limit = int(((d.get("allocatable") or {}).get("count")) or 0)
            if limit > old_limits.get(d.get("name", ""), 0):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    def _get(self, kind: str, ns: str, name: str) -> dict | None:
        getter = self.handle.get_object
        return getter(kind, ns, name) if getter is not None else None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        for v in (pod.pod.get("spec") or {}).get("volumes") or ():
            if v.get("persistentVolumeClaim") or v.get("ephemeral"):
                return None, None
        return None, SKIP

    def _driver_info_from_class(self, ns: str, claim_name: str, pvc: dict) -> tuple[str, str]:
        sc_name = V.claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = self._get("StorageClass", "", sc_name)
        if sc is None:
            return "", ""
        return sc.get("provisioner") or "", f"{UNBOUND_PREFIX}-{ns}/{claim_name}"

    def attachable_volumes(self, pod: dict, new_pod: bool, out: dict[str, str]) -> None:
        """filterAttachableVolumes: unique volume name -> driver, into ``out``."""
        md = pod.get("metadata") or {}
        ns = md.get("namespace") or "default"
        for _, claim_name, ephemeral in V.pod_claims(pod):
            pvc = self._get("PersistentVolumeClaim", ns, claim_name)
            if pvc is None:
                if new_pod and not ephemeral:
                    raise _NotFound(f'persistentvolumeclaim "{claim_name}" not found')
                continue
            pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
            pv = self._get("PersistentVolume", "", pv_name) if pv_name else None
            if pv is None:
                driver, handle = self._driver_info_from_class(ns, claim_name, pvc)
            else:
                csi = (pv.get("spec") or {}).get("csi")
                driver, handle = ((csi.get("driver") or "", csi.get("volumeHandle") or "") if csi else ("", ""))
            if not driver or not handle:
                continue
            out[f"{driver}/{handle}"] = driver

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not (pod.pod.get("spec") or {}).get("volumes"):
            return None
        csi_node = self._get("CSINode", "", node.name)
        new: dict[str, str] = {}
        try:
            self.attachable_volumes(pod.pod, True, new)
        except _NotFound as e:
            return Status(Code.UnschedulableAndUnresolvable, str(e))
        if not new:
            return None
        limits = volume_limits(csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        for existing in node.pods:
            self.attachable_volumes(existing.pod, False, attached)
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in sorted(new_count.items()):
            limit = limits.get(driver)
            if limit is None:
                continue
            current = attached_count.get(driver, 0)
            log = self.handle.log
            if log is not None and self.handle.commit:
                log(5, SITE_LIMITS, "Found plugin volume limits",
                    {"node": node.name, "driverName": driver, "maxLimits": limit,
                     "currentVolumeCount": current, "newVolumeCount": count, "pod": pod.full_name})
            if current + count > limit:
                return Status(Code.Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None
