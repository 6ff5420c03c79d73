"""The StatefulSet controller: pods with stable ordinal identities and their own claims.

Upstream: pkg/controller/statefulset/stateful_set.go (sync: claim pods that are members,
requeue after minReadySeconds), stateful_set_control.go (UpdateStatefulSet, performUpdate,
getStatefulSetRevisions, updateStatefulSet, processReplica, processCondemned, runForAll,
truncateHistory, computeReplicaStatus, updateStatefulSetStatus), stateful_set_utils.go
(getParentNameAndOrdinal, getStart/EndOrdinal, identityMatches, storageMatches,
getPersistentVolumeClaims, updateStorage, initIdentity, newVersionedStatefulSetPod,
newRevision, nextRevision, inconsistentStatus, completeRollingUpdate, isClaimOwnerUpToDate,
updateClaimOwnerRefForSetAndPod), stateful_pod_control.go (CreateStatefulPod,
createPersistentVolumeClaims, DeleteStatefulPod, UpdatePodClaimForRetentionPolicy,
recordPodEvent, recordClaimEvent) and pkg/controller/history (revisions ``<set>-<hash>``
labelled ``controller.kubernetes.io/hash``; the hash is
``kubesim.api.apps.statefulset_util.hash_controller_revision``).

Pods are ``<set>-<ordinal>`` for ordinals ``spec.ordinals.start`` .. ``start+replicas-1``, labelled
``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and
``controller-revision-hash`` (the revision's name), with ``hostname`` = the pod's name and
``subdomain`` = ``spec.serviceName``. Each volumeClaimTemplate gives the pod a claim
``<template>-<set>-<ordinal>``, created before the pod and never deleted by this controller: the
retention policy only sets owner references (the set when whenDeleted is Delete; the pod once
scaled down when whenScaled is Delete) for the garbage collector to follow.

OrderedReady (``monotonic``) creates one pod at a time, each after its predecessors are Running,
Ready and available, and removes condemned pods from the highest ordinal, one at a time;
Parallel creates and deletes all at once. A RollingUpdate deletes the highest-ordinal pod not at
the update revision, down to the partition, one at a time once the others are available (the
MaxUnavailableStatefulSet gate is off in v1.35); OnDelete waits for the user to delete pods.

A claim is created with the owner references the retention policy gives it (upstream creates
it, then sets them once its lister has it, before the pod is seen again). Orphaned pods that are members of the set (``<set>-<n>``) and
orphaned ControllerRevisions its selector matches are adopted (after ``delete --cascade=orphan``
and a re-create, the pods stay).
"""

from __future__ import annotations

import re

from kubesim.api.apps.statefulset_util import (
    CONTROLLER_REVISION_HASH_LABEL,
    POD_INDEX_LABEL,
    POD_NAME_LABEL,
    STATEFULSET_REVISION_LABEL,
    apply_revision,
    get_patch,
    go_marshal_sorted,
    hash_controller_revision,
)
from kubesim.api.meta.helpers import (
    meta,
    name_of,
    new_controller_ref,
    selector_of,
    uid_of,
)
from kubesim.controllers.base import (
    Change,
    Event,
    View,
    available_at,
    claim,
    deepcopy,
    is_pod_available,
    is_pod_ready,
    pod_from_template,
)
from kubesim.controllers.hashing import omit_empty_pod_template

COMPONENT = "statefulset-controller"
_POD_NAME_RE = re.compile(r"^(.*)-([0-9]+)$")
_MAX_INT32 = 2**31 - 1


# ---------------------------------------------------------------------------------------------
# stateful_set_utils.go

def parent_and_ordinal(pod: dict) -> tuple[str, int]:
    """getParentNameAndOrdinal: ("", -1) for a name that is not ``<parent>-<n>``."""
    m = _POD_NAME_RE.match(name_of(pod))
    if not m:
        return "", -1
    n = int(m.group(2))
    return m.group(1), (n if n <= _MAX_INT32 else -1)


def get_ordinal(pod: dict) -> int:
    return parent_and_ordinal(pod)[1]


def start_ordinal(sts: dict) -> int:
    return int(((sts.get("spec") or {}).get("ordinals") or {}).get("start") or 0)


def spec_replicas(sts: dict) -> int:
    v = (sts.get("spec") or {}).get("replicas")
    return 1 if v is None else int(v)


def end_ordinal(sts: dict) -> int:
    return start_ordinal(sts) + spec_replicas(sts) - 1


def in_ordinal_range(pod: dict, sts: dict) -> bool:
    return start_ordinal(sts) <= get_ordinal(pod) <= end_ordinal(sts)


def pod_name(sts: dict, ordinal: int) -> str:
    return f"{name_of(sts)}-{ordinal}"


def claim_name(sts: dict, template: dict, ordinal: int) -> str:
    """getPersistentVolumeClaimName: ``<claim>-<set>-<ordinal>``."""
    return f"{(template.get('metadata') or {}).get('name', '')}-{name_of(sts)}-{ordinal}"


def is_member_of(sts: dict, pod: dict) -> bool:
    return parent_and_ordinal(pod)[0] == name_of(sts)


def identity_matches(sts: dict, pod: dict) -> bool:
    parent, ordinal = parent_and_ordinal(pod)
    return (ordinal >= 0 and parent == name_of(sts) and name_of(pod) == pod_name(sts, ordinal)
            and meta(pod).get("namespace") == meta(sts).get("namespace")
            and (meta(pod).get("labels") or {}).get(POD_NAME_LABEL) == name_of(pod))


def _claim_templates(sts: dict) -> list[dict]:
    return [t for t in (sts.get("spec") or {}).get("volumeClaimTemplates") or () if isinstance(t, dict)]


def storage_matches(sts: dict, pod: dict) -> bool:
    ordinal = get_ordinal(pod)
    if ordinal < 0:
        return False
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or ()}
    for t in _claim_templates(sts):
        v = volumes.get((t.get("metadata") or {}).get("name"))
        if v is None or (v.get("persistentVolumeClaim") or {}).get("claimName") != claim_name(sts, t, ordinal):
            return False
    return True


def persistent_volume_claims(sts: dict, ordinal: int) -> list[tuple[str, dict]]:
    """getPersistentVolumeClaims: (template name, claim) in template order; each claim is the
    template named for the pod, in the set's namespace, with the selector's matchLabels."""
    match_labels = ((sts.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    out = []
    for t in _claim_templates(sts):
        c = deepcopy(t)
        c.pop("status", None)
        md = c.setdefault("metadata", {})
        md["name"] = claim_name(sts, t, ordinal)
        md["namespace"] = meta(sts).get("namespace", "")
        labels = dict(md.get("labels") or {})
        labels.update(match_labels)
        if labels:
            md["labels"] = labels
        c["apiVersion"], c["kind"] = "v1", "PersistentVolumeClaim"
        out.append(((t.get("metadata") or {}).get("name", ""), c))
    return out


def update_storage(sts: dict, pod: dict) -> None:
    """updateStorage: a claim volume per template first, then the pod's other volumes."""
    claims = persistent_volume_claims(sts, get_ordinal(pod))
    names = {n for n, _ in claims}
    spec = pod.setdefault("spec", {})
    volumes = [{"name": n, "persistentVolumeClaim": {"claimName": c["metadata"]["name"]}} for n, c in claims]
    volumes += [v for v in spec.get("volumes") or () if v.get("name") not in names]
    if volumes:
        spec["volumes"] = volumes


def update_identity(sts: dict, pod: dict) -> None:
    ordinal = get_ordinal(pod)
    md = pod.setdefault("metadata", {})
    md["name"] = pod_name(sts, ordinal)
    md["namespace"] = meta(sts).get("namespace", "")
    labels = md.setdefault("labels", {})
    labels[POD_NAME_LABEL] = md["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)


def new_statefulset_pod(sts: dict, ordinal: int) -> dict:
    """newStatefulSetPod: GetPodFromTemplate, initIdentity, updateStorage."""
    name = pod_name(sts, ordinal)
    pod = pod_from_template((sts.get("spec") or {}).get("template") or {}, sts, meta(sts).get("namespace", ""), name)
    update_identity(sts, pod)
    pod["spec"]["hostname"] = name
    if (sts.get("spec") or {}).get("serviceName"):
        pod["spec"]["subdomain"] = sts["spec"]["serviceName"]
    update_storage(sts, pod)
    return pod


def pod_revision(pod: dict) -> str:
    return (meta(pod).get("labels") or {}).get(STATEFULSET_REVISION_LABEL, "")


def new_versioned_pod(current_set: dict, update_set: dict, current_rev: str, update_rev: str, ordinal: int) -> dict:
    """newVersionedStatefulSetPod: below the partition a pod is made at the current revision."""
    spec = current_set.get("spec") or {}
    us = spec.get("updateStrategy") or {}
    ru = us.get("rollingUpdate")
    current_replicas = int((current_set.get("status") or {}).get("currentReplicas") or 0)
    start = start_ordinal(current_set)
    if (us.get("type") == "RollingUpdate" and ru is None and ordinal < start + current_replicas) or \
            (ru is not None and ordinal < start + int(ru.get("partition") or 0)):
        pod, rev = new_statefulset_pod(current_set, ordinal), current_rev
    else:
        pod, rev = new_statefulset_pod(update_set, ordinal), update_rev
    pod["metadata"]["labels"][STATEFULSET_REVISION_LABEL] = rev
    return pod


def is_created(pod: dict) -> bool:
    return bool((pod.get("status") or {}).get("phase"))


def _phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def is_terminating(pod: dict) -> bool:
    return bool(meta(pod).get("deletionTimestamp"))


def is_running_and_ready(pod: dict) -> bool:
    return _phase(pod) == "Running" and is_pod_ready(pod)


def is_unavailable(pod: dict, mrs: int, now: float) -> bool:
    return not is_pod_available(pod, mrs, now) or is_terminating(pod)


# -- claim retention (isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod) -----------------

def retention_policy(sts: dict) -> tuple[str, str]:
    p = (sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return p.get("whenDeleted") or "Retain", p.get("whenScaled") or "Retain"


def _matches_ref(ref: dict, obj: dict, api_version: str, kind: str) -> bool:
    return ref.get("apiVersion") == api_version and ref.get("kind") == kind and ref.get("name") == name_of(obj)


def _has_unexpected_controller(claim_: dict, sts: dict, pod: dict) -> bool:
    if retention_policy(sts) == ("Retain", "Retain"):
        return False
    for ref in meta(claim_).get("ownerReferences") or ():
        if _matches_ref(ref, sts, "apps/v1", "StatefulSet"):
            if ref.get("uid") != uid_of(sts):
                return True
            continue
        if _matches_ref(ref, pod, "v1", "Pod"):
            if ref.get("uid") != uid_of(pod):
                return True
            continue
        if ref.get("controller"):
            return True
    return False


def _has_stale_ref(claim_: dict, obj: dict, api_version: str, kind: str) -> bool:
    for ref in meta(claim_).get("ownerReferences") or ():
        if _matches_ref(ref, obj, api_version, kind):
            return ref.get("uid") != uid_of(obj)
    return False


def _has_owner_ref(claim_: dict, owner: dict) -> bool:
    return any(r.get("uid") == uid_of(owner) for r in meta(claim_).get("ownerReferences") or ())


def claim_owner_up_to_date(claim_: dict, sts: dict, pod: dict) -> bool:
    """isClaimOwnerUpToDate."""
    if _has_stale_ref(claim_, sts, "apps/v1", "StatefulSet") or _has_stale_ref(claim_, pod, "v1", "Pod"):
        return True
    if _has_unexpected_controller(claim_, sts, pod):
        return not (_has_owner_ref(claim_, sts) or _has_owner_ref(claim_, pod))
    for ref in meta(claim_).get("ownerReferences") or ():
        if ref.get("uid") in (uid_of(sts), uid_of(pod)) and not ref.get("controller"):
            return False
    when_deleted, when_scaled = retention_policy(sts)
    has_set, has_pod = _has_owner_ref(claim_, sts), _has_owner_ref(claim_, pod)
    scaled_down = not in_ordinal_range(pod, sts)
    if when_scaled == "Delete" and when_deleted == "Delete":
        return scaled_down != has_set and scaled_down == has_pod
    if when_scaled == "Delete":
        return not has_set and scaled_down == has_pod
    if when_deleted == "Delete":
        return has_set and not has_pod
    return not has_set and not has_pod


def update_claim_owner_refs(claim_: dict, sts: dict, pod: dict) -> None:
    """updateClaimOwnerRefForSetAndPod (on ``claim_``, in place)."""
    unexpected = _has_unexpected_controller(claim_, sts, pod)
    refs = [r for r in meta(claim_).get("ownerReferences") or ()
            if not (_matches_ref(r, sts, "apps/v1", "StatefulSet") or _matches_ref(r, pod, "v1", "Pod"))]
    if not unexpected:
        when_deleted, when_scaled = retention_policy(sts)
        scaled_down = not in_ordinal_range(pod, sts)
        if when_deleted == "Delete" and (when_scaled == "Retain" or not scaled_down):
            refs.append(new_controller_ref(sts))
        if when_scaled == "Delete" and scaled_down:
            refs.append(new_controller_ref(pod))
    if refs:
        claim_["metadata"]["ownerReferences"] = refs
    else:
        claim_["metadata"].pop("ownerReferences", None)


# ---------------------------------------------------------------------------------------------
# the sync

def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for sts in view.list("StatefulSet"):
        changes.extend(_Sync(view, sts).run())
    return changes


def _status_counts(pods: list[dict], mrs: int, now: float, current: str, update: str) -> dict:
    """computeReplicaStatus summed over ``pods``."""
    s = {"replicas": 0, "readyReplicas": 0, "availableReplicas": 0, "currentReplicas": 0, "updatedReplicas": 0}
    for pod in pods:
        created = is_created(pod)
        if created:
            s["replicas"] += 1
        if is_running_and_ready(pod):
            s["readyReplicas"] += 1
            if is_pod_available(pod, mrs, now):
                s["availableReplicas"] += 1
        if created and not is_terminating(pod):
            rev = pod_revision(pod)
            if rev == current:
                s["currentReplicas"] += 1
            if rev == update:
                s["updatedReplicas"] += 1
    return s


class _Sync:
    def __init__(self, view: View, sts: dict):
        self.view, self.sts = view, sts
        self.ns = meta(sts).get("namespace", "")
        self.changes: list[Change] = []
        self.mrs = int((sts.get("spec") or {}).get("minReadySeconds") or 0)
        self.now = view.now
        # claims this sync re-owned: later checks in the same sync see them (the real
        # controller's claim lister has caught up by then: no pod update follows)
        self.claims_written: dict[str, dict] = {}
        self.claims_needed: list[tuple[str, str, str]] = []  # the keys of the new claims of the pod being created

    def event(self, type_: str, reason: str, message: str) -> Event:
        return Event(self.sts, type_, reason, message, COMPONENT)

    def run(self) -> list[Change]:
        sts = self.sts
        pods = self._pods()
        revisions = sorted(self._revisions_list(), key=lambda r: int(r.get("revision") or 0))
        current, update, collision = self._revisions(revisions)
        status = self._update_statefulset(current, update, collision, pods)
        self._update_status(status)
        self._truncate_history(pods, revisions, current, update)
        if self.mrs > 0 and status["availableReplicas"] != spec_replicas(sts):
            wakes = [available_at(p, self.mrs) for p in pods if is_pod_ready(p)]
            wakes = [t for t in wakes if t is not None and t > self.now]
            if wakes:
                self.changes.append(Change("wake", sts, at=min(wakes)))
        return self.changes

    def _revisions_list(self) -> list[dict]:
        """ListRevisions (history.ListControllerRevisions: the namespace's revisions the selector
        matches, ours or orphans), adopting the orphans first (adoptOrphanRevisions)."""
        sts, sel = self.sts, selector_of(self.sts)
        owned = [r for r in self.view.owned_by("ControllerRevision", uid_of(sts))
                 if sel.matches(meta(r).get("labels") or {})]
        orphans = [r for r in self.view.orphans("ControllerRevision", self.ns)
                   if sel.matches(meta(r).get("labels") or {})]
        if orphans and not meta(sts).get("deletionTimestamp"):
            for r in orphans:
                adopted = deepcopy(r)
                adopted["metadata"].setdefault("ownerReferences", []).append(new_controller_ref(sts))
                self.changes.append(Change("update", adopted))
        return owned + orphans

    def _pods(self) -> list[dict]:
        sts = self.sts
        orphans = [p for p in self.view.orphans("Pod", self.ns) if is_member_of(sts, p)]
        candidates = sorted(self.view.owned_by("Pod", uid_of(sts)) + orphans, key=name_of)
        return claim(self.view, sts, candidates, selector_of(sts), self.changes)

    # -- revisions (getStatefulSetRevisions) -------------------------------------------------
    def _revisions(self, revisions: list[dict]) -> tuple[dict, dict, int]:
        sts = self.sts
        collision = int((sts.get("status") or {}).get("collisionCount") or 0)
        next_revision = int(revisions[-1].get("revision") or 0) + 1 if revisions else 1
        patch = get_patch(sts, omit_empty_pod_template)
        raw = go_marshal_sorted(patch)
        equal = [r for r in revisions if go_marshal_sorted(r.get("data")) == raw]
        if equal and equal[-1] is revisions[-1]:
            update = revisions[-1]
        elif equal:
            update = deepcopy(equal[-1])
            update["revision"] = next_revision
            self.changes.append(Change("update", update))
        else:
            while True:
                update = self._new_revision(patch, next_revision, collision)
                existing = self.view.get("ControllerRevision", self.ns, name_of(update))
                if existing is None:
                    break
                collision += 1  # CreateControllerRevision: a name taken by other data
            self.changes.append(Change("create", update))
        current_name = (sts.get("status") or {}).get("currentRevision")
        current = next((r for r in revisions if name_of(r) == current_name), None) or update
        return current, update, collision

    def _new_revision(self, patch: dict, revision: int, collision: int) -> dict:
        """newRevision / history.NewControllerRevision."""
        sts = self.sts
        h = hash_controller_revision(patch, collision)
        labels = dict((((sts.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {})
        labels[CONTROLLER_REVISION_HASH_LABEL] = h
        md = {"name": f"{name_of(sts)}-{h}", "namespace": self.ns, "labels": labels,
              "ownerReferences": [new_controller_ref(sts)]}
        if meta(sts).get("annotations"):
            md["annotations"] = dict(meta(sts)["annotations"])
        return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": md, "data": patch,
                "revision": revision}

    def _truncate_history(self, pods: list[dict], revisions: list[dict], current: dict, update: dict) -> None:
        live = {name_of(current), name_of(update)} | {pod_revision(p) for p in pods}
        history = [r for r in revisions if name_of(r) not in live]
        limit = (self.sts.get("spec") or {}).get("revisionHistoryLimit")
        limit = 10 if limit is None else int(limit)
        if limit < 0 or len(history) <= limit:
            return
        for r in history[:len(history) - limit]:
            self.changes.append(Change("delete", r, propagation="Background"))

    # -- pod control (stateful_pod_control.go) ----------------------------------------------
    def _claims_of(self, sts: dict, pod: dict) -> list[tuple[dict, dict | None]]:
        return [(c, self.claims_written.get(c["metadata"]["name"])
                 or self.view.get("PersistentVolumeClaim", self.ns, c["metadata"]["name"]))
                for _, c in persistent_volume_claims(sts, get_ordinal(pod))]

    def _create_claims(self, sts: dict, pod: dict) -> bool:
        """createPersistentVolumeClaims: the missing claims; False when one is being deleted."""
        ok = True
        for c, stored in self._claims_of(sts, pod):
            if stored is None:
                # CreateStatefulPod's UpdatePodClaimForRetentionPolicy right after: by then the
                # real controller's lister has the claim, so it is created and re-owned at once
                if not claim_owner_up_to_date(c, sts, pod):
                    update_claim_owner_refs(c, sts, pod)
                claim, who = c["metadata"]["name"], f"Pod {name_of(pod)} in StatefulSet {name_of(sts)}"
                # recordClaimEvent's words, on the StatefulSet (a retained claim has no owner)
                self.changes.append(Change("create", c, [self.event("Normal", "SuccessfulCreate",
                                                                    f"Create Claim {claim} {who} success")],
                                           failure=f"Create Claim {claim} for {who} failed error: {{error}}",
                                           failure_owner=sts))
                self.claims_needed.append(("PersistentVolumeClaim", self.ns, claim))
            elif meta(stored).get("deletionTimestamp"):
                ok = False
        return ok

    def _claims_match_policy(self, sts: dict, pod: dict) -> bool:
        return all(stored is None or claim_owner_up_to_date(stored, sts, pod) for _, stored in self._claims_of(sts, pod))

    def _update_claims_for_policy(self, sts: dict, pod: dict) -> None:
        """UpdatePodClaimForRetentionPolicy."""
        for _, stored in self._claims_of(sts, pod):
            if stored is None:
                continue
            if _has_unexpected_controller(stored, sts, pod):
                self.changes.append(Change("event", sts, [self.event(
                    "Warning", "ConflictingController",
                    f"PersistentVolumeClaim {name_of(stored)} has a conflicting OwnerReference that acts as a manging "
                    "controller, the retention policy is ignored for this claim")]))
            if not claim_owner_up_to_date(stored, sts, pod):
                new = deepcopy(stored)
                update_claim_owner_refs(new, sts, pod)
                self.claims_written[name_of(new)] = new
                self.changes.append(Change("update", new))

    def _pod_event(self, verb: str, pod: dict) -> Event:
        title = verb.title()
        return self.event("Normal", f"Successful{title}",
                          f"{title} Pod {name_of(pod)} in StatefulSet {name_of(self.sts)} successful")

    def _create_pod(self, sts: dict, pod: dict) -> bool:
        self.claims_needed = []
        if not self._create_claims(sts, pod):
            return False
        # stateful_pod_control.go recordPodEvent's failure: reason FailedCreate
        failure = f"Create Pod {name_of(pod)} in StatefulSet {name_of(self.sts)} failed error: {{error}}"
        create = Change("create", pod, [self._pod_event("create", pod)], failure=failure)
        if self.claims_needed:  # CreateStatefulPod: no pod when a claim was refused
            create.needs = tuple(self.claims_needed)
            create.otherwise = lambda key, refusal: Change("event", self.sts, [self.event(
                "Warning", "FailedCreate", failure.format(error=f"failed to create PVC {key[2]}: {refusal}"))])
        self.changes.append(create)
        return True

    def _delete_pod(self, pod: dict) -> None:
        self.changes.append(Change("delete", pod, [self._pod_event("delete", pod)], propagation="Background"))

    def _claim_is_stale(self, sts: dict, pod: dict) -> bool:
        """PodClaimIsStale (only with whenScaled Delete): a claim still owned by an older pod."""
        if retention_policy(sts)[1] == "Retain":
            return False
        return any(stored is not None and _has_stale_ref(stored, pod, "v1", "Pod")
                   for _, stored in self._claims_of(sts, pod))

    # -- updateStatefulSet ------------------------------------------------------------------
    def _process_replica(self, update_set: dict, monotonic: bool, replicas: list[dict], i: int) -> bool:
        sts, pod = self.sts, replicas[i]
        if _phase(pod) in ("Failed", "Succeeded"):
            if not is_terminating(pod):
                self._delete_pod(pod)
            return True
        if not is_created(pod):
            if self._claim_is_stale(sts, pod):
                return True
            if not self._create_pod(sts, pod):
                return True
            return monotonic
        if _phase(pod) == "Pending":
            self._create_claims(sts, pod)
            self._update_claims_for_policy(sts, pod)
        if monotonic and (is_terminating(pod) or not is_running_and_ready(pod)
                          or not is_pod_available(pod, self.mrs, self.now)):
            return True
        retention_ok = self._claims_match_policy(update_set, pod)
        if identity_matches(sts, pod) and storage_matches(sts, pod) and retention_ok:
            return False
        new = deepcopy(pod)
        if not identity_matches(update_set, new):
            update_identity(update_set, new)
        if not retention_ok:
            self._update_claims_for_policy(update_set, new)
        self.changes.append(Change("update", new, [self._pod_event("update", new)]))
        return False

    def _process_condemned(self, first_unhealthy: dict | None, monotonic: bool, pod: dict) -> bool:
        if is_terminating(pod):
            return monotonic
        if monotonic and pod is not first_unhealthy and (
                not is_running_and_ready(pod) or not is_pod_available(pod, self.mrs, self.now)):
            return True
        self._delete_pod(pod)
        return True

    def _update_statefulset(self, current: dict, update: dict, collision: int, pods: list[dict]) -> dict:
        sts, now, mrs = self.sts, self.now, self.mrs
        current_set, update_set = apply_revision(sts, current), apply_revision(sts, update)
        cur_name, upd_name = name_of(current), name_of(update)
        status = {"observedGeneration": int(meta(sts).get("generation") or 0), "currentRevision": cur_name,
                  "updateRevision": upd_name, "collisionCount": collision}
        status.update(_status_counts(pods, mrs, now, cur_name, upd_name))
        start, count = start_ordinal(sts), spec_replicas(sts)
        replicas: list[dict | None] = [None] * max(count, 0)
        condemned = []
        for pod in pods:
            ordinal = get_ordinal(pod)
            if start <= ordinal <= end_ordinal(sts):
                replicas[ordinal - start] = pod
            elif ordinal >= 0:
                condemned.append(pod)
        for i in range(len(replicas)):
            if replicas[i] is None:
                replicas[i] = new_versioned_pod(current_set, update_set, cur_name, upd_name, start + i)
        condemned.sort(key=get_ordinal, reverse=True)
        first_unhealthy = next((p for p in replicas if is_unavailable(p, mrs, now)), None)
        if first_unhealthy is None:
            first_unhealthy = next((p for p in reversed(condemned) if is_unavailable(p, mrs, now)), None)
        if meta(sts).get("deletionTimestamp"):
            return status

        def finish() -> dict:
            status.update(_status_counts(replicas + condemned, mrs, now, cur_name, upd_name))
            return status

        monotonic = (sts.get("spec") or {}).get("podManagementPolicy") != "Parallel"
        if self._run_for_all(replicas, lambda i: self._process_replica(update_set, monotonic, replicas, i), monotonic):
            return finish()

        def fix_claim(i: int) -> bool:
            if not self._claims_match_policy(update_set, condemned[i]):
                self._update_claims_for_policy(update_set, condemned[i])
            return False

        if self._run_for_all(condemned, fix_claim, monotonic):
            return finish()
        if self._run_for_all(condemned, lambda i: self._process_condemned(first_unhealthy, monotonic, condemned[i]),
                             monotonic):
            return finish()
        finish()
        us = (sts.get("spec") or {}).get("updateStrategy") or {}
        if us.get("type") == "OnDelete":
            return status
        update_min = int((us.get("rollingUpdate") or {}).get("partition") or 0)
        for target in range(len(replicas) - 1, update_min - 1, -1):
            pod = replicas[target]
            if pod_revision(pod) != upd_name and not is_terminating(pod):
                self._delete_pod(pod)
                status["currentReplicas"] -= 1
                return status
            if is_unavailable(pod, mrs, now):
                return status
        return status

    @staticmethod
    def _run_for_all(pods: list, fn, monotonic: bool) -> bool:
        """runForAll: in order, stopping at the first that blocks (monotonic); else all of them."""
        if monotonic:
            return any(fn(i) for i in range(len(pods)))
        for i in range(len(pods)):
            fn(i)
        return False

    # -- updateStatefulSetStatus ------------------------------------------------------------
    def _update_status(self, status: dict) -> None:
        sts = self.sts
        old = sts.get("status") or {}
        us = (sts.get("spec") or {}).get("updateStrategy") or {}
        replicas = spec_replicas(sts)
        if us.get("type") == "RollingUpdate" and status["updatedReplicas"] == replicas and \
                status["readyReplicas"] == replicas and status["replicas"] == replicas:
            status["currentReplicas"] = status["updatedReplicas"]
            status["currentRevision"] = status["updateRevision"]
        inconsistent = status["observedGeneration"] > int(old.get("observedGeneration") or 0) or any(
            status[k] != (old.get(k) or (0 if k.endswith("eplicas") else ""))
            for k in ("replicas", "currentReplicas", "readyReplicas", "updatedReplicas", "currentRevision",
                      "availableReplicas", "updateRevision"))
        if not inconsistent:
            return
        new = deepcopy(sts)
        out = {k: v for k, v in status.items() if v or k in ("replicas", "availableReplicas", "collisionCount")}
        if old.get("conditions"):
            out["conditions"] = old["conditions"]
        new["status"] = out
        self.changes.append(Change("update_status", new))
