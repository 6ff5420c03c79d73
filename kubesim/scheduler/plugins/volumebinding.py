"""VolumeBinding: a pod's PersistentVolumeClaims must be bindable on the node; the scheduler
binds WaitForFirstConsumer claims to the node it picks.

Upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go (PreFilter,
podHasPVCs, Filter, PreScore, Score, Reserve, PreBind, Unreserve) and binder.go
(GetPodVolumeClaims, FindPodVolumes, checkBoundClaims, findMatchingVolumes,
checkVolumeProvisions, AssumePodVolumes, RevertAssumedPodVolumes, bindAPIUpdate, the
ConflictReason strings). The matching rules themselves are kubesim/api/volumes.py
(component-helpers storage/volume FindMatchingVolume, CheckNodeAffinity).

- PreFilter: Skip without claims; it never narrows the nodes (v1.35 returns no
  PreFilterResult: a bound local volume's node is Filter's business); a missing claim
  ('persistentvolumeclaim "x" not found'), a
  Lost or terminating claim, a generic ephemeral volume's claim the pod does not control
  (ephemeral.VolumeIsForPod), or an unbound Immediate claim ("pod has unbound immediate
  PersistentVolumeClaims") is UnschedulableAndUnresolvable.
- Filter: bound claims' PVs must admit the node ("node(s) had volume node affinity conflict";
  a PV that is gone: "node(s) unavailable due to one or more pvc(s) bound to non-existent
  pv(s)"); unbound WaitForFirstConsumer claims need an Available PV the node can reach, or a
  class that can provision there ("node(s) didn't find available persistent volumes to bind").
  Storage capacity (CSIStorageCapacity) is not modelled, so "node(s) did not have enough free
  storage" never appears.
- PreScore returns Skip: scoring needs the StorageCapacityScoring feature gate, alpha and off
  by default in v1.35.
- Reserve assumes the chosen PVs (claimRef set) and the claims to provision (selected-node
  annotation) in this plugin's cache, so the next pod of the same scheduler does not take the
  same PV; Unreserve reverts. PreBind asks the API server (Handle.request) to update the PVs
  and claims (bindAPIUpdate); the PV controller completes the binding. Upstream's PreBind then
  waits for it (up to bindTimeoutSeconds); kubesim's PV controller runs right after the
  scheduler in the same settle round, so the pod is bound at once.

EventsToRegister (queueing hints on): StorageClass Add|Update, Queue for a new class or changed
allowedTopologies; PersistentVolumeClaim Add|Update, Queue for a claim the pod uses (its own or
its generic ephemeral volumes'); PersistentVolume Add|Update and Node Add|UpdateNodeLabel,
without a QueueingHintFn; CSINode Add|Update, Queue for a new CSINode or a change of its
migrated-plugins annotation; CSIDriver Update and CSIStorageCapacity Add|Update (kinds kubesim
does not serve, so those never happen).

Legacy predicate name: CheckVolumeBinding.
"""

from __future__ import annotations

import copy

from kubesim.api import volumes as V
from kubesim.api.equality import semantic_equal
from kubesim.api.quantity import parse_quantity
from kubesim.api.record import Record
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

NAME = "VolumeBinding"
STATE_KEY = NAME

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

# upstream log sites (file:line of the release the messages come from; approximate)
SITE_PREBIND = "volume_binding.go:591"
SITE_PREBIND_FAILED = "volume_binding.go:594"
SITE_PREBIND_OK = "volume_binding.go:597"
SITE_ASSUME = "binder.go:407"
SITE_ASSUME_ALL_BOUND = "binder.go:415"
SITE_BIND_API = "binder.go:550"
SITE_CLAIM_BOUND = "binder.go:557"
SITE_TRIGGER_PROVISIONING = "binder.go:566"
SITE_NO_MATCH = "binder.go:894"


class _Error(Exception):
    """An error FindPodVolumes returns (framework.AsStatus: code Error)."""


class PodVolumes(Record):
    __slots__ = ("dynamic_provisions", "static_bindings")

    def __init__(self, static_bindings: list[tuple[dict, dict]] | None = None,
                 dynamic_provisions: list[dict] | None = None):
        self.static_bindings = [] if static_bindings is None else static_bindings  # (pv, pvc)
        self.dynamic_provisions = [] if dynamic_provisions is None else dynamic_provisions


class _State(Record):
    __slots__ = ("all_bound", "bound_claims", "by_node", "claims_to_bind", "pvs_by_class")

    def __init__(self, bound_claims: list[dict] | None = None, claims_to_bind: list[dict] | None = None,
                 pvs_by_class: dict[str, list[dict]] | None = None, by_node: dict[str, PodVolumes] | None = None,
                 all_bound: bool = False):
        self.bound_claims = [] if bound_claims is None else bound_claims
        self.claims_to_bind = [] if claims_to_bind is None else claims_to_bind
        self.pvs_by_class = {} if pvs_by_class is None else pvs_by_class
        self.by_node = {} if by_node is None else by_node
        self.all_bound = all_bound

    def clone(self) -> _State:
        return self  # shared across the cycle, as upstream's stateData


def _claim_key(claim: dict) -> tuple[str, str]:
    md = claim.get("metadata") or {}
    return (md.get("namespace", ""), md.get("name", ""))


def _size_key(claim: dict):
    return V.requested_storage(claim)


MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin,
                    PreBindPlugin, EnqueueExtensions):
    name = NAME

    # -- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.STORAGE_CLASS, ev.ADD | ev.UPDATE),
                                    self.is_schedulable_after_storage_class_change),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE),
                self.is_schedulable_after_persistent_volume_claim_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE)),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL)),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.CSI_NODE, ev.ADD | ev.UPDATE),
                                    self.is_schedulable_after_csi_node_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.CSI_DRIVER, ev.UPDATE),
                                    self.is_schedulable_after_csi_driver_change),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.CSI_STORAGE_CAPACITY, ev.ADD | ev.UPDATE),
                self.is_schedulable_after_csi_storage_capacity_change),
        ]

    def is_schedulable_after_csi_node_change(self, pod: dict, old: dict | None,
                                             new: dict) -> int:
        if old is None:
            return ev.QUEUE
        a = ((old.get("metadata") or {}).get("annotations") or {}).get(MIGRATED_PLUGINS_ANNOTATION)
        b = ((new.get("metadata") or {}).get("annotations") or {}).get(MIGRATED_PLUGINS_ANNOTATION)
        return ev.QUEUE if (a or "") != (b or "") else ev.QUEUE_SKIP

    def is_schedulable_after_persistent_volume_claim_change(self, pod: dict, old: dict | None,
                                                            new: dict) -> int:
        return ev.QUEUE if V.pod_uses_claim(pod, new) else ev.QUEUE_SKIP

    def is_schedulable_after_storage_class_change(self, pod: dict, old: dict | None,
                                                  new: dict) -> int:
        if old is None:
            return ev.QUEUE
        return ev.QUEUE_SKIP if semantic_equal(new.get("allowedTopologies"),
                                               old.get("allowedTopologies")) else ev.QUEUE

    def is_schedulable_after_csi_storage_capacity_change(self, pod: dict, old: dict | None,
                                                         new: dict) -> int:
        if old is None:
            return ev.QUEUE

        def limit(cap: dict):
            v = cap.get("maximumVolumeSize") or cap.get("capacity")
            return None if v is None else parse_quantity(v)

        old_limit, new_limit = limit(old), limit(new)
        return ev.QUEUE if new_limit is not None and (
            old_limit is None or new_limit > old_limit) else ev.QUEUE_SKIP

    def is_schedulable_after_csi_driver_change(self, pod: dict, old: dict, new: dict) -> int:
        name = (new.get("metadata") or {}).get("name")
        for v in (pod.get("spec") or {}).get("volumes") or ():
            csi = v.get("csi")
            if csi is None or csi.get("driver") != name:
                continue
            if (old.get("spec") or {}).get("storageCapacity") and \
                    not (new.get("spec") or {}).get("storageCapacity"):
                return ev.QUEUE
        return ev.QUEUE_SKIP

    def __init__(self, args: dict | None = None, handle=None) -> None:
        super().__init__(args, handle)
        self.assumed_pvs: dict[str, dict] = {}
        self.assumed_pvcs: dict[tuple[str, str], dict] = {}

    # -- informer-style reads with the assume cache over them ------------------------------
    def _get(self, kind: str, ns: str, name: str) -> dict | None:
        getter = self.handle.get_object
        return getter(kind, ns, name) if getter is not None else None

    def _list(self, kind: str) -> list[dict]:
        lister = self.handle.list_objects
        return list(lister(kind, None)) if lister is not None else []

    def get_pvc(self, ns: str, name: str) -> dict | None:
        return self.assumed_pvcs.get((ns, name)) or self._get("PersistentVolumeClaim", ns, name)

    def get_pv(self, name: str) -> dict | None:
        return self.assumed_pvs.get(name) or self._get("PersistentVolume", "", name)

    def list_pvs(self) -> list[dict]:
        pvs = {(p.get("metadata") or {}).get("name", ""): p for p in self._list("PersistentVolume")}
        pvs.update(self.assumed_pvs)
        return [pvs[k] for k in sorted(pvs)]

    def get_class(self, name: str) -> dict | None:
        return self._get("StorageClass", "", name)

    def _log(self, level: int, site: str, msg: str, kv: dict) -> None:
        log = self.handle.log
        if log is not None and self.handle.commit:
            log(level, site, msg, kv)

    # -- PreFilter --------------------------------------------------------------------------
    def _pod_claims(self, pod: dict) -> tuple[list[dict], Status | None]:
        ns = (pod.get("metadata") or {}).get("namespace", "")
        out = []
        for _, name, ephemeral in V.pod_claims(pod):
            pvc = self.get_pvc(ns, name)
            if pvc is None:
                msg = (f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                       if ephemeral else f'persistentvolumeclaim "{name}" not found')
                return out, Status(Code.UnschedulableAndUnresolvable, msg)
            if (pvc.get("status") or {}).get("phase") == "Lost":
                return out, Status(Code.UnschedulableAndUnresolvable,
                                   f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume '
                                   f'"{(pvc.get("spec") or {}).get("volumeName", "")}"')
            if (pvc.get("metadata") or {}).get("deletionTimestamp"):
                return out, Status(Code.UnschedulableAndUnresolvable, f'persistentvolumeclaim "{name}" is being deleted')
            if ephemeral:
                err = V.volume_is_for_pod(pod, pvc)
                if err is not None:
                    return out, Status(Code.UnschedulableAndUnresolvable, err)
            out.append(pvc)
        return out, None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        claims, s = self._pod_claims(pod.pod)
        if s is not None:
            return None, s
        if not claims:
            state.write(STATE_KEY, _State(all_bound=True))
            return None, SKIP
        st = _State()
        immediate = []
        for pvc in claims:
            if V.is_pvc_fully_bound(pvc):
                st.bound_claims.append(pvc)
            elif V.is_delay_binding_mode(pvc, self.get_class) and not (pvc.get("spec") or {}).get("volumeName"):
                st.claims_to_bind.append(pvc)
            else:
                immediate.append(pvc)
        if immediate:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_UNBOUND_IMMEDIATE)
        if st.claims_to_bind:
            for pv in self.list_pvs():
                st.pvs_by_class.setdefault(V.volume_class(pv), []).append(pv)
        state.write(STATE_KEY, st)
        return None, None

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return Status(Code.Error, err=f'reading "{STATE_KEY}" from cycleState: not found')
        try:
            pod_volumes, reasons = self.find_pod_volumes(pod, st, node.node)
        except _Error as e:
            return Status(Code.Error, err=str(e))
        if reasons:
            return Status(Code.UnschedulableAndUnresolvable, *reasons)
        st.by_node[node.name] = pod_volumes
        return None

    def find_pod_volumes(self, pod: PodInfo, st: _State, node: dict) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: the bindings and provisions for ``node``, or why it does not fit."""
        pv_out = PodVolumes()
        bound_ok, pvs_found, unbound_ok = True, True, True
        node_name = (node.get("metadata") or {}).get("name", "")
        labels = (node.get("metadata") or {}).get("labels") or {}

        def reasons() -> list[str]:
            out = []
            if not bound_ok:
                out.append(ERR_REASON_NODE_CONFLICT)
            if not unbound_ok:
                out.append(ERR_REASON_BIND_CONFLICT)
            if not pvs_found:
                out.append(ERR_REASON_PV_NOT_EXIST)
            return out

        for pvc in st.bound_claims:  # checkBoundClaims
            pv = self.get_pv((pvc.get("spec") or {}).get("volumeName", ""))
            if pv is None:
                pvs_found = False
                break
            if V.check_node_affinity(pv, labels) is not None:
                bound_ok = False
                break
        if not st.claims_to_bind:
            return pv_out, reasons()
        to_match, to_provision = [], []
        for claim in st.claims_to_bind:
            selected = V.annotations(claim).get(V.ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node_name:
                    unbound_ok = False
                    return pv_out, reasons()
                to_provision.append(claim)
            else:
                to_match.append(claim)
        if to_match:  # findMatchingVolumes
            chosen: set[str] = set()
            for pvc in sorted(to_match, key=_size_key):
                pv = V.find_matching_volume(pvc, st.pvs_by_class.get(V.claim_class(pvc), ()), node, chosen, True)
                if pv is None:
                    self._log(5, SITE_NO_MATCH, "No matching volumes for pod",
                              {"pod": pod.full_name, "PVC": "/".join(_claim_key(pvc)), "node": node_name})
                    to_provision.append(pvc)
                    unbound_ok = False
                    continue
                chosen.add((pv.get("metadata") or {}).get("name", ""))
                pv_out.static_bindings.append((pv, pvc))
        if to_provision:  # checkVolumeProvisions
            unbound_ok, provisions = self._check_provisions(to_provision, labels)
            pv_out.dynamic_provisions = provisions
        return pv_out, reasons()

    def _check_provisions(self, claims: list[dict], labels: dict) -> tuple[bool, list[dict]]:
        out = []
        for claim in claims:
            cls_name = V.claim_class(claim)
            if not cls_name:
                raise _Error(f'no class for claim "{V.claim_key(claim)}"')
            sc = self.get_class(cls_name)
            if sc is None:
                raise _Error(f'failed to find storage class "{cls_name}"')
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == V.NOT_SUPPORTED_PROVISIONER:
                return False, []
            if not V.match_topology_selector_terms(sc.get("allowedTopologies"), labels):
                return False, []
            out.append(claim)
        return True, out

    # -- PreScore / Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        return SKIP  # no scorer without StorageCapacityScoring

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo):
        return 0, None

    # -- Reserve / Unreserve ----------------------------------------------------------------
    def _all_bound(self, pod: dict) -> bool:
        ns = (pod.get("metadata") or {}).get("namespace", "")
        for _, name in V.pod_claim_names(pod):
            pvc = self.get_pvc(ns, name)
            if pvc is None or not V.is_pvc_fully_bound(pvc):
                return False
        return True

    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return Status(Code.Error, err=f'reading "{STATE_KEY}" from cycleState: not found')
        pv_in = st.by_node.get(node_name)
        if pv_in is None:
            st.all_bound = True
            return None
        self._log(4, SITE_ASSUME, "AssumePodVolumes", {"pod": pod.full_name, "node": node_name})
        if self._all_bound(pod.pod):
            self._log(4, SITE_ASSUME_ALL_BOUND, "AssumePodVolumes: all PVCs bound and nothing to do",
                      {"pod": pod.full_name, "node": node_name})
            st.all_bound = True
            return None
        bindings = []
        for pv, pvc in pv_in.static_bindings:
            new_pv, dirty = V.bind_volume_to_claim(pv, pvc)
            if dirty:
                self.assumed_pvs[new_pv["metadata"]["name"]] = new_pv
            bindings.append((new_pv, pvc))
        provisions = []
        for claim in pv_in.dynamic_provisions:
            clone = copy.deepcopy(claim)
            clone.setdefault("metadata", {}).setdefault("annotations", {})[V.ANN_SELECTED_NODE] = node_name
            self.assumed_pvcs[_claim_key(clone)] = clone
            provisions.append(clone)
        st.by_node[node_name] = PodVolumes(bindings, provisions)
        st.all_bound = False
        return None

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return
        pv_in = st.by_node.get(node_name)
        if pv_in is None:
            return
        for pv, _ in pv_in.static_bindings:
            self.assumed_pvs.pop((pv.get("metadata") or {}).get("name", ""), None)
        for claim in pv_in.dynamic_provisions:
            self.assumed_pvcs.pop(_claim_key(claim), None)

    # -- PreBind ----------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return Status(Code.Error, err=f'reading "{STATE_KEY}" from cycleState: not found')
        if st.all_bound:
            return None
        pv_in = st.by_node.get(node_name)
        if pv_in is None:
            return Status(Code.Error, err=f'no pod volumes found for node "{node_name}"')
        self._log(5, SITE_PREBIND, "Trying to bind volumes for pod", {"pod": pod.full_name})
        for pv, pvc in pv_in.static_bindings:  # bindAPIUpdate
            kv = {"pod": pod.full_name, "PV": pv["metadata"]["name"], "PVC": "/".join(_claim_key(pvc))}
            self._log(5, SITE_BIND_API, "Updating PersistentVolume: binding to claim", kv)
            self._log(2, SITE_CLAIM_BOUND, "Updated PersistentVolume with claim. Waiting for "
                      "binding to complete", kv)
            self.handle.request("update", pv)
        for claim in pv_in.dynamic_provisions:
            self._log(5, SITE_TRIGGER_PROVISIONING, "Updating claims objects to trigger volume provisioning",
                      {"pod": pod.full_name, "PVC": "/".join(_claim_key(claim))})
            self.handle.request("update", claim)
        self._log(5, SITE_PREBIND_OK, "Success binding volumes for pod", {"pod": pod.full_name})
        return None
