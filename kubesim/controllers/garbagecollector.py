"""The garbage collector: dependents follow their owners (metadata.ownerReferences).

Upstream: pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem,
processDeletingDependentsItem, orphanDependents, classifyReferences) and the API server's
deletion of an object with finalizers (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/
store.go: ``deletionTimestamp`` set and the ``foregroundDeletion``/``orphan`` finalizer added for
those propagation policies; the object goes once its finalizers are gone).

How a delete with a propagation policy plays out here:

- ``Background`` (kubectl's default): the engine deletes the owner at once; on the next pass
  ``sync`` finds the dependents whose owners are all gone and deletes them (in the background,
  recursively: a Deployment's ReplicaSets, then their pods).
- ``Foreground``: the API server marks the owner (deletionTimestamp + ``foregroundDeletion``,
  ``kubesim.apiserver.objects.begin_deletion``); ``sync`` deletes its dependents with Foreground
  propagation too (as upstream's collector asks the API server to), and when no dependent with
  ``blockOwnerDeletion`` is left it removes the finalizer and the owner goes.
- ``Orphan``: the API server marks the owner with the ``orphan`` finalizer; ``sync`` removes
  the owner's references from its dependents, then the finalizer, and the owner goes.

An owner is looked up by kind, namespace and name and must have the referenced uid. Only
Deployments, ReplicaSets, DaemonSets, StatefulSets, Pods, Jobs and CronJobs count as owners that
can go missing
(``OWNER_KINDS``); owners of other kinds, or of a kind the view does not hold, are assumed to
exist. PersistentVolumeClaims are collected too: a generic ephemeral volume's claim
(controllers/ephemeral.py) is owned by its pod and goes when the pod is gone.
"""

from __future__ import annotations

from kubesim.api.meta.helpers import (
    FINALIZER_DELETE_DEPENDENTS,
    FINALIZER_ORPHAN_DEPENDENTS,
    meta,
    uid_of,
)
from kubesim.controllers.base import Change, View, deepcopy, remove_finalizer

COLLECTED_KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "Pod", "ControllerRevision", "PersistentVolumeClaim",
                   "Job", "CronJob", "StatefulSet")
# owners whose absence makes dependents garbage; a mirror pod's Node is the kubelet's business
# (and PodGC's), so a Node is never treated as a missing owner here
OWNER_KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "Pod", "Job", "CronJob", "StatefulSet")


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    objects = [o for k in COLLECTED_KINDS for o in view.list(k)]
    by_uid = {uid_of(o): o for o in objects if uid_of(o)}
    dependents: dict[str, list[dict]] = {}
    for o in objects:
        for ref in meta(o).get("ownerReferences") or ():
            dependents.setdefault(ref.get("uid", ""), []).append(o)
    handled: set[str] = set()

    for owner in objects:
        md = meta(owner)
        if not md.get("deletionTimestamp"):
            continue
        finalizers = list(md.get("finalizers") or [])
        deps = dependents.get(uid_of(owner), [])
        if FINALIZER_ORPHAN_DEPENDENTS in finalizers:
            for dep in deps:
                new = deepcopy(dep)
                refs = [r for r in new["metadata"].get("ownerReferences") or () if r.get("uid") != uid_of(owner)]
                if refs:
                    new["metadata"]["ownerReferences"] = refs
                else:
                    new["metadata"].pop("ownerReferences", None)
                changes.append(Change("update", new))
                handled.add(uid_of(dep))
            changes.extend(remove_finalizer(owner, FINALIZER_ORPHAN_DEPENDENTS))
            handled.add(uid_of(owner))
        elif FINALIZER_DELETE_DEPENDENTS in finalizers:
            blocking = [d for d in deps if any(r.get("uid") == uid_of(owner) and r.get("blockOwnerDeletion")
                                               for r in meta(d).get("ownerReferences") or ())]
            if not blocking:
                changes.extend(remove_finalizer(owner, FINALIZER_DELETE_DEPENDENTS))
            for dep in blocking:
                if meta(dep).get("deletionTimestamp"):
                    continue
                changes.append(Change("delete", dep, propagation="Foreground"))
                handled.add(uid_of(dep))
            handled.add(uid_of(owner))
        elif not finalizers and owner.get("kind") != "Pod":
            changes.append(Change("delete", owner, propagation="Background"))
            handled.add(uid_of(owner))
        else:
            # being deleted without the collector's finalizers: a pod's graceful deletion is
            # the kubelet's to finish (attemptToDeleteItem leaves such items alone)
            handled.add(uid_of(owner))

    for obj in objects:
        refs = meta(obj).get("ownerReferences") or []
        if not refs or uid_of(obj) in handled:
            continue
        absent = [r for r in refs if _owner_absent(view, obj, r, by_uid)]
        if not absent:
            continue
        if len(absent) == len(refs):
            changes.append(Change("delete", obj, propagation="Background"))
        else:
            new = deepcopy(obj)
            gone = {r.get("uid") for r in absent}
            new["metadata"]["ownerReferences"] = [r for r in refs if r.get("uid") not in gone]
            changes.append(Change("update", new))
    return changes


def _owner_absent(view: View, obj: dict, ref: dict, by_uid: dict[str, dict]) -> bool:
    kind = ref.get("kind", "")
    if kind not in OWNER_KINDS or kind not in view.objects:
        return False
    ns = meta(obj).get("namespace", "")
    owner = view.get(kind, ns, ref.get("name", ""))
    return owner is None or uid_of(owner) != ref.get("uid")
