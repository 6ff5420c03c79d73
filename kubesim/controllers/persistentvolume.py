"""The PersistentVolume controller (binder), with a simulated external provisioner.

Upstream: pkg/controller/volume/persistentvolume/pv_controller.go (syncClaim, syncUnboundClaim,
syncBoundClaim, syncVolume, bind, bindVolumeToClaim, bindClaimToVolume, updateClaimStatus,
updateVolumePhase, reclaimVolume, provisionClaim, findProvisionablePlugin, setClaimProvisioner),
pkg/controller/volume/persistentvolume/index.go (findBestMatchForClaim, via
kubesim/api/volumes.py), and the external provisioner library
(sigs.k8s.io/sig-storage-lib-external-provisioner controller.go: the Provisioning /
ProvisioningSucceeded events, PV ``pvc-<claim uid>`` pre-bound to the claim).

What it does, per sync:

- Claims not yet bound (no ``pv.kubernetes.io/bind-completed``): an Immediate claim binds to the
  best matching Available PV (the smallest that fits, fewest access modes first); a
  WaitForFirstConsumer claim waits (event WaitForFirstConsumer) until the scheduler picked a node
  (annotation ``volume.kubernetes.io/selected-node``) or bound a PV to it (claimRef), and binds
  then. No match: a claim with a class whose provisioner is not ``kubernetes.io/no-provisioner``
  is provisioned (ExternalProvisioning, then the simulated provisioner's Provisioning and
  ProvisioningSucceeded, a PV ``pvc-<uid>`` with the class's reclaimPolicy and mountOptions, the
  claim's size, access modes and volumeMode, node affinity from the class's allowedTopologies or
  else the selected node's hostname); ``kubernetes.io/no-provisioner`` gives ProvisioningFailed;
  no class gives FailedBinding.
- Binding is bidirectional: the PV gets ``claimRef`` (and ``pv.kubernetes.io/bound-by-controller``
  unless pre-bound by the user) and phase Bound; the claim gets ``spec.volumeName``,
  ``pv.kubernetes.io/bind-completed`` (and bound-by-controller unless pre-bound), phase Bound and
  the PV's capacity and access modes in its status.
- Volumes: no claimRef (or one without uid) is Available; a claim gone means Released, then the
  reclaim policy: Retain keeps it Released; Delete deletes a provisioned PV (the provisioner's
  job) and a static hostPath one under ``/tmp/`` (pkg/volume/hostpath host_path.go's deleter),
  and fails (VolumeFailedDelete, phase Failed) for other static ones: the hostPath deleter's
  refusal, or no deleter plugin at all.

The periodic resync (every 15 s, ``--pvclaimbinder-sync-period``) syncs every claim again, so a
pending claim's event repeats (``x2 over``). Upstream's ticks run from the controller's start,
for all claims at once; kubesim counts each event's from when it was first recorded (the phase
of a real controller's ticks is unknowable to a user anyway), so an event has repeated once 15 s
after it first happened, and a settle counts every repeat it missed in one go. Between resyncs
an event already recorded (the view's ``recorded_events``) is not repeated. The provisioner
is immediate and always succeeds; its events come from ``<provisioner>_kubesim``. A provisioned
PV uses a ``csi`` source (driver = provisioner) when the provisioner is a valid CSI driver name,
else a ``hostPath`` one.
"""

from __future__ import annotations

import re

from kubesim.api import volumes as V
from kubesim.api.meta.helpers import meta
from kubesim.clock import format_time, parse_timestamp
from kubesim.controllers.base import Change, Event, View, deepcopy

COMPONENT = "persistentvolume-controller"
RESYNC_PERIOD = 15  # kube-controller-manager's --pvclaimbinder-sync-period default
WFFC_MESSAGE = "waiting for first consumer to be created before binding"
NO_CLASS_MESSAGE = "no persistent volumes available for this claim and no storage class is set"
EXTERNAL_PROVISIONING = ("Waiting for a volume to be created either by the external provisioner '{}' or "
                         "manually by the system administrator. If volume creation is delayed, please verify "
                         "that the provisioner is running and correctly registered.")
CLAIM_LOST = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
CLAIM_MISBOUND = "Two claims are bound to the same volume, this one is bound incorrectly"
_CSI_DRIVER_NAME = re.compile(r"^[a-zA-Z0-9]([-a-zA-Z0-9.]{0,61}[a-zA-Z0-9])?$")


def provisioner_identity(provisioner: str) -> str:
    return f"{provisioner}_kubesim"


class _Sync:
    def __init__(self, view: View) -> None:
        self.view = view
        self.changes: list[Change] = []
        # the events already recorded, by (kind, namespace, name, reason, message): the Event (None
        # when it is gone or was folded into an aggregate)
        recorded = getattr(view, "recorded_events", None) or {}
        self.recorded: dict = dict(recorded) if isinstance(recorded, dict) else dict.fromkeys(recorded)
        self.classes = {meta(sc).get("name", ""): sc for sc in view.list("StorageClass")}
        self.pvs = {meta(pv).get("name", ""): pv for pv in view.list("PersistentVolume")}
        self.claims = {(meta(c).get("namespace", ""), meta(c).get("name", "")): c
                       for c in view.list("PersistentVolumeClaim")}
        self.dirty: dict[tuple[str, str, str], int] = {}  # object -> index of its write in changes
        self.created: set[str] = set()

    # -- writes ---------------------------------------------------------------------------
    def event(self, obj: dict, type_: str, reason: str, message: str, component: str = COMPONENT) -> None:
        md = meta(obj)
        key = (obj.get("kind", ""), md.get("namespace", ""), md.get("name", ""), reason, message)
        if key in self.recorded:
            self.repeat(self.recorded[key], obj, type_, reason, message, component)
            return
        self.recorded[key] = None
        self.changes.append(Change("event", obj, events=[Event(obj, type_, reason, message, component)]))

    def repeat(self, ev: dict | None, obj: dict, type_: str, reason: str, message: str, component: str) -> None:
        """The resync's repeats of an event still true: one per RESYNC_PERIOD since it was first
        recorded, those not counted yet."""
        first = parse_timestamp((ev or {}).get("firstTimestamp"))
        if first is None:
            return
        ticks = int((self.view.now - first) // RESYNC_PERIOD)
        missing = 1 + ticks - int(ev.get("count") or 1)
        if missing > 0:
            self.changes.append(Change("event", obj, events=[
                Event(obj, type_, reason, message, component, count=missing, at=first + ticks * RESYNC_PERIOD)]))

    def put(self, obj: dict) -> None:
        """Ask for ``obj`` to be written; a later put of the same object replaces the request
        in place, so writes keep the order in which they were first asked for."""
        md = meta(obj)
        if obj["kind"] == "PersistentVolume":
            self.pvs[md["name"]] = obj
        else:
            self.claims[(md.get("namespace", ""), md["name"])] = obj
        key = (obj["kind"], md.get("namespace", ""), md["name"])
        op = "update_status" if key[0] == "PersistentVolume" and key[2] in self.created else "update"
        if key in self.dirty:
            self.changes[self.dirty[key]].obj = obj
        else:
            self.dirty[key] = len(self.changes)
            self.changes.append(Change(op, obj))

    def flush(self) -> list[Change]:
        return self.changes

    def get_class(self, name: str) -> dict | None:
        return self.classes.get(name)

    # -- claims ---------------------------------------------------------------------------
    def set_claim_phase(self, claim: dict, phase: str, pv: dict | None = None) -> dict:
        st = claim.get("status") or {}
        want = dict(st)
        want["phase"] = phase
        if pv is not None:
            want["accessModes"] = list((pv.get("spec") or {}).get("accessModes") or [])
            want["capacity"] = dict((pv.get("spec") or {}).get("capacity") or {})
        if want == st:
            return claim
        new = deepcopy(claim)
        new["status"] = want
        self.put(new)
        return new

    def set_volume_phase(self, pv: dict, phase: str, message: str | None = None) -> dict:
        st = pv.get("status") or {}
        if st.get("phase") == phase and (message is None or st.get("message") == message):
            return pv
        new = deepcopy(pv)
        want = dict(st)
        if want.get("phase") != phase:
            want["lastPhaseTransitionTime"] = format_time(self.view.now)
        want["phase"] = phase
        if message is not None:
            want["message"] = message
        else:
            want.pop("message", None)
        new["status"] = want
        self.put(new)
        return new

    def bind(self, pv: dict, claim: dict) -> None:
        """bind: volume -> claim, volume phase Bound, claim -> volume, claim phase Bound."""
        new_pv, dirty = V.bind_volume_to_claim(pv, claim)
        if dirty:
            self.put(new_pv)
        new_pv = self.set_volume_phase(new_pv, "Bound")
        name = meta(new_pv)["name"]
        c = deepcopy(claim)
        changed = False
        ann = c.setdefault("metadata", {}).setdefault("annotations", {})
        if (c.get("spec") or {}).get("volumeName") != name:
            c.setdefault("spec", {})["volumeName"] = name
            ann.setdefault(V.ANN_BOUND_BY_CONTROLLER, "yes")
            changed = True
        if V.ANN_BIND_COMPLETED not in ann:
            ann[V.ANN_BIND_COMPLETED] = "yes"
            changed = True
        if changed:
            self.put(c)
        else:
            c = claim
        self.set_claim_phase(c, "Bound", new_pv)

    def sync_claim(self, claim: dict) -> None:
        if V.ANN_BIND_COMPLETED not in V.annotations(claim):
            self.sync_unbound_claim(claim)
        else:
            self.sync_bound_claim(claim)

    def candidate_volumes(self) -> list[dict]:
        return sorted(self.pvs.values(), key=lambda p: meta(p).get("name", ""))

    def sync_unbound_claim(self, claim: dict) -> None:
        spec = claim.get("spec") or {}
        if not spec.get("volumeName"):
            delay = V.is_delay_binding_mode(claim, self.get_class)
            pv = V.find_best_match_for_claim(claim, self.candidate_volumes(), delay)
            if pv is not None:
                self.bind(pv, claim)
                return
            cls = V.claim_class(claim)
            if delay and V.ANN_SELECTED_NODE not in V.annotations(claim):
                self.event(claim, "Normal", "WaitForFirstConsumer", WFFC_MESSAGE)
                self.set_claim_phase(claim, "Pending")
            elif cls:
                self.provision_claim(claim, cls)
            else:
                self.event(claim, "Normal", "FailedBinding", NO_CLASS_MESSAGE)
                self.set_claim_phase(claim, "Pending")
            return
        pv = self.pvs.get(spec["volumeName"])
        if pv is None:
            self.set_claim_phase(claim, "Pending")
            return
        ref = (pv.get("spec") or {}).get("claimRef")
        if not ref or V.is_volume_bound_to_claim(pv, claim):
            problem = volume_satisfies_claim(pv, claim)
            if problem:
                self.event(claim, "Warning", "VolumeMismatch",
                           f'Cannot bind to requested volume "{meta(pv)["name"]}": {problem}')
                self.set_claim_phase(claim, "Pending")
                return
            self.bind(pv, claim)
            return
        if V.ANN_BOUND_BY_CONTROLLER not in V.annotations(claim):
            self.event(claim, "Warning", "FailedBinding",
                       f'volume "{meta(pv)["name"]}" already bound to a different claim.')
            self.set_claim_phase(claim, "Pending")

    def sync_bound_claim(self, claim: dict) -> None:
        name = (claim.get("spec") or {}).get("volumeName")
        pv = self.pvs.get(name) if name else None
        if pv is None:
            if (claim.get("status") or {}).get("phase") != "Lost":
                self.event(claim, "Warning", "ClaimLost", CLAIM_LOST)
            self.set_claim_phase(claim, "Lost")
            return
        ref = (pv.get("spec") or {}).get("claimRef")
        if not ref or V.is_volume_bound_to_claim(pv, claim):
            self.bind(pv, claim)
            return
        if (claim.get("status") or {}).get("phase") != "Lost":
            self.event(claim, "Warning", "ClaimMisbound", CLAIM_MISBOUND)
        self.set_claim_phase(claim, "Lost")

    # -- provisioning ---------------------------------------------------------------------
    def provision_claim(self, claim: dict, cls_name: str) -> None:
        sc = self.classes.get(cls_name)
        if sc is None:
            self.event(claim, "Warning", "ProvisioningFailed",
                       f'storageclass.storage.k8s.io "{cls_name}" not found')
            self.set_claim_phase(claim, "Pending")
            return
        provisioner = sc.get("provisioner") or ""
        if provisioner == V.NOT_SUPPORTED_PROVISIONER:
            self.event(claim, "Warning", "ProvisioningFailed", f"no volume plugin matched name: {provisioner}")
            self.set_claim_phase(claim, "Pending")
            return
        # setClaimProvisioner, then the external provisioner's turn
        ann = V.annotations(claim)
        if ann.get(V.ANN_STORAGE_PROVISIONER) != provisioner or ann.get(V.ANN_BETA_STORAGE_PROVISIONER) != provisioner:
            claim = deepcopy(claim)
            a = claim.setdefault("metadata", {}).setdefault("annotations", {})
            a[V.ANN_STORAGE_PROVISIONER] = provisioner
            a[V.ANN_BETA_STORAGE_PROVISIONER] = provisioner
            self.put(claim)
        self.event(claim, "Normal", "ExternalProvisioning", EXTERNAL_PROVISIONING.format(provisioner))
        claim = self.set_claim_phase(claim, "Pending")
        selected = V.annotations(claim).get(V.ANN_SELECTED_NODE)
        node = self.view.get("Node", "", selected) if selected else None
        if selected and node is None:
            return  # the provisioner cannot place it; the scheduler will retry
        pv = provisioned_volume(claim, sc, node)
        name = meta(pv)["name"]
        if name in self.pvs:
            return
        identity = provisioner_identity(provisioner)
        self.changes.append(Change("create", pv, events=[
            Event(claim, "Normal", "Provisioning",
                  f'External provisioner is provisioning volume for claim "{V.claim_key(claim)}"', identity),
            Event(claim, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {name}", identity)]))
        self.created.add(name)
        self.pvs[name] = pv
        self.bind(pv, claim)

    # -- volumes --------------------------------------------------------------------------
    def sync_volume(self, pv: dict) -> None:
        ref = (pv.get("spec") or {}).get("claimRef")
        if not ref or not ref.get("uid"):
            if ((pv.get("status") or {}).get("phase") or "Pending") in ("Pending", "") or not ref and (pv.get("status") or {}).get("phase") == "Bound":
                self.set_volume_phase(pv, "Available")
            return
        claim = self.claims.get((ref.get("namespace") or "", ref.get("name") or ""))
        if claim is not None and meta(claim).get("uid") != ref.get("uid"):
            claim = None
        phase = (pv.get("status") or {}).get("phase")
        if claim is None:
            if phase in ("Released", "Failed"):
                return
            if phase == "Pending" and V.ANN_BOUND_BY_CONTROLLER not in V.annotations(pv) \
                    and V.ANN_DYNAMICALLY_PROVISIONED not in V.annotations(pv):
                pass  # pre-bound by the user to a claim that is gone: released as well
            pv = self.set_volume_phase(pv, "Released")
            self.reclaim(pv)
            return
        volume_name = (claim.get("spec") or {}).get("volumeName")
        if not volume_name:
            return  # the claim's sync binds it
        if volume_name == meta(pv)["name"]:
            self.set_volume_phase(pv, "Bound")
            return
        if V.ANN_BOUND_BY_CONTROLLER in V.annotations(pv):
            if V.ANN_DYNAMICALLY_PROVISIONED in V.annotations(pv) and \
                    (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete":
                pv = self.set_volume_phase(pv, "Released")
                self.reclaim(pv)
                return
            new = deepcopy(pv)
            new["spec"].pop("claimRef", None)
            new["metadata"].get("annotations", {}).pop(V.ANN_BOUND_BY_CONTROLLER, None)
            self.put(new)
            self.set_volume_phase(new, "Available")

    def reclaim(self, pv: dict) -> None:
        policy = (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") or "Retain"
        if policy != "Delete":
            return
        if V.ANN_DYNAMICALLY_PROVISIONED in V.annotations(pv):
            self.changes.append(Change("delete", pv))
            return
        host_path = (pv.get("spec") or {}).get("hostPath")
        if host_path is not None:  # the in-tree hostPath deleter, for testing only
            path = host_path.get("path") or ""
            if re.search(r"/tmp/.+", path):
                self.changes.append(Change("delete", pv))
                return
            msg = f"host_path deleter only supports /tmp/.+ but received provided {path}"
        else:
            msg = f'error getting deleter volume plugin for volume "{meta(pv)["name"]}": no deletable volume plugin matched'
        self.event(pv, "Warning", "VolumeFailedDelete", msg)
        self.set_volume_phase(pv, "Failed", msg)


def volume_satisfies_claim(pv: dict, claim: dict) -> str | None:
    """checkVolumeSatisfyClaim: why a pre-bound claim cannot use the volume, or None."""
    if meta(pv).get("deletionTimestamp"):
        return f'the volume is marked for deletion "{meta(pv).get("name", "")}"'
    if V.volume_capacity(pv) < V.requested_storage(claim):
        return "requested PV is too small"
    if V.volume_class(pv) != V.claim_class(claim):
        return "storageClassName does not match"
    if ((pv.get("spec") or {}).get("volumeAttributesClassName") or "") != \
            ((claim.get("spec") or {}).get("volumeAttributesClassName") or ""):
        return "volumeAttributesClassName does not match"
    if V.volume_mode_mismatch(claim, pv):
        return "incompatible volumeMode"
    if not V.check_access_modes(claim, pv):
        return "incompatible accessMode"
    return None


def provisioned_volume(claim: dict, sc: dict, node: dict | None) -> dict:
    """The PV the simulated external provisioner creates for ``claim`` (pre-bound to it)."""
    md = meta(claim)
    provisioner = sc.get("provisioner") or ""
    name = f'pvc-{md.get("uid", "")}'
    spec = claim.get("spec") or {}
    pv_spec: dict = {
        "accessModes": list(spec.get("accessModes") or []),
        "capacity": {"storage": V.requested_storage_text(claim) or "0"},
        "claimRef": V.claim_reference(claim),
        "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
        "storageClassName": meta(sc).get("name", ""),
        "volumeMode": spec.get("volumeMode") or "Filesystem",
    }
    if sc.get("mountOptions"):
        pv_spec["mountOptions"] = list(sc["mountOptions"])
    if _CSI_DRIVER_NAME.match(provisioner) and len(provisioner) <= 63:
        pv_spec["csi"] = {"driver": provisioner, "volumeHandle": name}
    else:
        pv_spec["hostPath"] = {"path": f"/var/lib/kubesim/volumes/{name}", "type": "DirectoryOrCreate"}
    affinity = provisioned_node_affinity(sc, node)
    if affinity is not None:
        pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": affinity}}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": {V.ANN_DYNAMICALLY_PROVISIONED: provisioner}},
            "spec": pv_spec}


def provisioned_node_affinity(sc: dict, node: dict | None) -> list[dict] | None:
    """Node affinity terms for a provisioned volume: the class's allowedTopologies (narrowed to
    the selected node's values when there is one), else the selected node's hostname."""
    topologies = sc.get("allowedTopologies") or []
    labels = (meta(node).get("labels") or {}) if node is not None else None
    terms = []
    for t in topologies:
        exprs = []
        for e in t.get("matchLabelExpressions") or ():
            values = list(e.get("values") or ())
            if labels is not None and labels.get(e.get("key")) in values:
                values = [labels[e["key"]]]
            exprs.append({"key": e.get("key"), "operator": "In", "values": values})
        if exprs and (labels is None or all(labels.get(x["key"]) in x["values"] for x in exprs)):
            terms.append({"matchExpressions": exprs})
    if terms:
        return terms[:1] if labels is not None else terms
    if node is not None:
        hostname = (meta(node).get("labels") or {}).get("kubernetes.io/hostname") or meta(node).get("name", "")
        return [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [hostname]}]}]
    return None


def _claim_order(c: dict):
    md = meta(c)
    return (md.get("creationTimestamp") or "", md.get("namespace", ""), md.get("name", ""))


def sync(view: View) -> list[Change]:
    s = _Sync(view)
    for name in sorted(s.pvs):  # new volumes become Available before claims look for them
        vol = s.pvs[name]
        if not (vol.get("spec") or {}).get("claimRef") and ((vol.get("status") or {}).get("phase") or "Pending") == "Pending":
            s.set_volume_phase(vol, "Available")
    for claim in sorted(view.list("PersistentVolumeClaim"), key=_claim_order):
        md = meta(claim)
        s.sync_claim(s.claims[(md.get("namespace", ""), md.get("name", ""))])
    for name in sorted(s.pvs):
        if name in s.created:
            continue
        s.sync_volume(s.pvs[name])
    return s.flush()
