"""The ``status`` and ``pods/binding`` subresources' writes (what ``kubesim serve`` answers for
PUT/PATCH ``.../status`` and POST ``pods/NAME/binding``).

- status: the object as stored, with the status the request carries; everything else — spec and
  the metadata ResetObjectMetaForStatus keeps (labels, annotations, finalizers, owner references,
  generation, deletionTimestamp) — stays as it was. kubesim does not run the kinds' status
  validation (ValidatePodStatusUpdate and friends): a status write is stored as given.
- binding: the pod gets its node (BindingREST.setPodNodeAndMetadata, ``pod.bind``) and the
  PodScheduled=True condition; a pod that already has a node is a Conflict, a pod being deleted
  is refused, as upstream's assignPod refuses them.

Upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/meta.go ResetObjectMetaForStatus,
pkg/registry/core/pod/strategy.go podStatusStrategy.PrepareForUpdate (the spec kept),
pkg/registry/core/pod/storage/storage.go (BindingREST.Create, assignPod, setPodNodeAndMetadata).
"""

from __future__ import annotations

import copy

from kubesim.api.kinds import KindInfo
from kubesim.apiserver.context import Cluster
from kubesim.errors import BadRequest, Conflict, NotFound


def update_status(cluster: Cluster, info: KindInfo, namespace: str, name: str, new: dict) -> dict:
    """PUT ``.../status``: store ``new``'s status on the live object; the stored object."""
    live = cluster.store.get(info.kind, namespace if info.namespaced else "", name)
    if live is None:
        raise NotFound(info.resource, name)
    rv = (new.get("metadata") or {}).get("resourceVersion")
    if rv and rv != live["metadata"].get("resourceVersion"):
        raise Conflict(f'Operation cannot be fulfilled on {info.resource} "{name}": the object has been modified; '
                       "please apply your changes to the latest version and try again")
    stored = copy.deepcopy(live)
    if "status" in new:
        stored["status"] = copy.deepcopy(new["status"])
    else:
        stored.pop("status", None)
    from kubesim.apiserver.registry import for_kind

    strategy = for_kind(info.kind)
    if strategy is not None:
        strategy.prepare_for_status_update(stored, live)
    if stored == live:
        return live
    if strategy is not None and (errs := strategy.validate_status_update(stored, live)):
        from kubesim.errors import Invalid

        raise Invalid(info.kind, name, errs)
    return cluster.store.put(stored)


def bind(cluster: Cluster, namespace: str, name: str, binding: dict) -> None:
    """POST ``pods/NAME/binding``."""
    from kubesim.apiserver.registry.core.pod import bind as bind_pod

    target = binding.get("target") or {}
    if (binding.get("metadata") or {}).get("name", name) != name:
        raise BadRequest("name in URL does not match name in Binding object")
    node = target.get("name") or ""
    if target.get("kind") not in (None, "", "Node"):
        raise BadRequest(f"unsupported target kind: {target.get('kind')}")  # BindingREST.Create
    store = cluster.store
    pod = store.get("Pod", namespace, name)
    if pod is None:
        raise NotFound("pods", name)
    if pod["metadata"].get("deletionTimestamp"):
        raise Conflict(f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is being deleted, '
                       "cannot be assigned to a host")
    assigned = (pod.get("spec") or {}).get("nodeName")
    if assigned:
        raise Conflict(f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is already assigned '
                       f'to node "{assigned}"')
    pod = copy.deepcopy(pod)
    bind_pod(pod, node, store.get("Node", "", node))
    now = cluster.stamp()
    conds = pod.setdefault("status", {}).setdefault("conditions", [])
    cond = {"lastProbeTime": None, "lastTransitionTime": now, "status": "True", "type": "PodScheduled"}
    gen = pod["metadata"].get("generation")
    if gen:
        cond["observedGeneration"] = gen
    for i, c in enumerate(conds):
        if c.get("type") == "PodScheduled":
            conds[i] = cond
            break
    else:
        conds.append(cond)
    cluster.fields.handled(pod)  # assignPod writes the storage directly: managedFields stay
    store.put(pod)
