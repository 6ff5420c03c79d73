"""The API server's handling of objects: create, update, delete, list with selectors.

Upstream: the apiserver's create/update path (decode strictly → admission and defaulting →
validation → store; ``PrepareForCreate`` resetting pod status, staging/src/k8s.io/apiserver/
pkg/registry/rest/create.go, pkg/registry/core/pod/strategy.go), the generic registry's delete
(graceful deletion, finalizers, propagation) and list filtering (label and field selectors).
"""

from __future__ import annotations

from kubesim.api import kinds
from kubesim.api.kinds import KindInfo
from kubesim.apiserver.context import Cluster
from kubesim.errors import AlreadyExists, BadRequest, Invalid, NotFound, UsageError

# Fields the server owns; comparing an applied object with the live one ignores them.
_SERVER_METADATA = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields",
                    "deletionTimestamp", "deletionGracePeriodSeconds")


def _validate(p_obj: dict, info: KindInfo, old: dict | None = None) -> None:
    from kubesim.api.validation import validate_object

    errs = validate_object(p_obj, old)
    if errs:
        raise Invalid(info.kind, p_obj["metadata"].get("name", ""), errs)


def _prepare_for_create(cluster: Cluster, obj: dict, info: KindInfo) -> dict:
    """Admission, defaulting and the registry strategy's PrepareForCreate."""
    from kubesim.api.defaults import apply_defaults

    md = obj["metadata"]
    if not md.get("name") and md.get("generateName"):
        md["name"] = md["generateName"] + cluster.random_suffix()
    for f in _SERVER_METADATA:
        md.pop(f, None)
    if info.kind == "Pod":
        obj.pop("status", None)  # PrepareForCreate (in apply_defaults) sets a fresh one
        rcn = (obj.get("spec") or {}).get("runtimeClassName")
        if rcn:
            from kubesim.api import runtimeclass

            runtimeclass.admit(obj, cluster.store.get("RuntimeClass", "", rcn))
    elif info.kind != "Node":  # a Node keeps the status it was given: the kubelet fills the rest
        obj.pop("status", None)
    apply_defaults(obj, rng=cluster.rng, lister=lambda kind: cluster.store.list(kind), now=cluster.stamp())
    return obj


def create_object(cluster: Cluster, obj: dict, info: KindInfo | None = None) -> dict:
    """The API server's create: admission, defaults, validation, store. Raises on conflict."""
    info = info or kinds.for_object(obj)
    assert info is not None
    obj = _prepare_for_create(cluster, obj, info)
    md = obj["metadata"]
    if info.namespaced and not cluster.namespace_exists(md["namespace"]):
        raise NotFound("namespaces", md["namespace"])
    if cluster.store.get(info.kind, md.get("namespace", ""), md["name"]) is not None:
        raise AlreadyExists(info.resource, md["name"])
    _validate(obj, info)
    from kubesim.api.defaults import validating_admission

    validating_admission(obj, None, lambda kind: cluster.store.list(kind))
    return cluster.store.create(obj, cluster.stamp())


def update_object(cluster: Cluster, new: dict, old: dict, info: KindInfo) -> bool:
    """The API server's update: validate against the old object, store if anything changed."""
    from kubesim.api.defaults import apply_update_defaults

    md = new["metadata"]
    for f in _SERVER_METADATA:
        if f in old["metadata"]:
            md[f] = old["metadata"][f]
        else:
            md.pop(f, None)
    if "status" in old:
        new["status"] = old["status"]  # status is a subresource: updates through the object ignore it
    apply_update_defaults(new, old)
    if _comparable(new) == _comparable(old):
        return False
    _validate(new, info, old)
    from kubesim.api.defaults import validating_admission

    validating_admission(new, old, lambda kind: cluster.store.list(kind))
    if info.kind == "Pod" and new.get("spec") != old.get("spec"):
        md["generation"] = int(old["metadata"].get("generation", 1)) + 1
    cluster.store.put(new)
    return True


def _comparable(obj: dict) -> dict:
    o = dict(obj)
    md = dict(o.get("metadata") or {})
    md.pop("resourceVersion", None)
    md.pop("managedFields", None)
    o["metadata"] = md
    return o


# -- reading -------------------------------------------------------------------------------

def list_objects(cluster: Cluster, info: KindInfo, namespace: str | None,
                 label_selector: str | None = None, field_selector: str | None = None) -> list[dict]:
    """LIST: the objects of one kind (in ``namespace``, None for all) that the selectors match,
    sorted by (namespace, name)."""
    from kubesim.api import selectors

    objs = cluster.store.list(info.kind, namespace if info.namespaced else None)
    if label_selector:
        try:
            sel = selectors.parse_label_selector(label_selector)
        except ValueError as e:
            raise UsageError(str(e)) from None
        objs = [o for o in objs if sel.matches(o["metadata"].get("labels") or {})]
    if field_selector:
        try:
            fsel = selectors.convert_field_selector(info.kind, selectors.parse_field_selector(field_selector))
        except ValueError as e:
            msg = str(e)
            if msg.startswith("field label not supported") or "is not a known field selector" in msg:
                raise BadRequest(f'Unable to find {{"{info.group}" "{info.version}" "{info.plural}"}} '
                                 f'that match label selector "{label_selector or ""}", field selector '
                                 f'"{field_selector}": {msg}') from None
            raise UsageError(msg) from None
        fields_of = selectors.fields_of(info.kind)
        objs = [o for o in objs if fsel.matches(fields_of(o))]
    return objs


# -- deleting ------------------------------------------------------------------------------

def delete_object(cluster: Cluster, info: KindInfo, namespace: str, name: str,
                  grace_seconds: float | None = None, force: bool = False,
                  propagation: str = "Background") -> dict:
    """The API server's delete. A pod running on a node is deleted gracefully: it gets its
    deletionTimestamp and the kubelet removes it when the grace period ends (pod strategy
    CheckGracefulDelete); ``force`` with grace 0 removes it at once. Owners follow the
    propagation policy (the garbage collector removes dependents). Other objects go at once,
    with the cascades a real cluster performs promptly."""
    store = cluster.store
    obj = store.get(info.kind, namespace, name)
    if obj is None:
        raise NotFound(info.resource, name)
    from kubesim.api.defaults import check_delete

    check_delete(info.kind, name)
    if info.kind == "Pod" and not (force and grace_seconds == 0):
        from kubesim.kubelet.pod_workers import start_termination

        before = (obj["metadata"].get("deletionTimestamp"), obj["metadata"].get("deletionGracePeriodSeconds"))
        if start_termination(obj, grace_seconds, cluster.now()) > 0:
            if (obj["metadata"].get("deletionTimestamp"), obj["metadata"].get("deletionGracePeriodSeconds")) != before:
                store.put(obj)  # a second delete that does not shorten the grace period writes nothing
            return obj
    if info.kind in ("Deployment", "ReplicaSet", "DaemonSet") and propagation != "Background":
        from kubesim.controllers.garbagecollector import begin_deletion

        marked = begin_deletion(obj, propagation, cluster.now())
        if marked is not None:
            store.put(marked)
            return obj
    if info.kind != "Pod" and (obj.get("metadata") or {}).get("finalizers"):
        # the generic registry: an object with finalizers is marked and stays until they are gone
        if not obj["metadata"].get("deletionTimestamp"):
            obj["metadata"]["deletionTimestamp"] = cluster.stamp()
            obj["metadata"]["deletionGracePeriodSeconds"] = 0
            store.put(obj)
        return obj
    if info.kind == "Namespace":
        if name in ("default", "kube-system", "kube-public", "kube-node-lease"):
            from kubesim.errors import Forbidden

            raise Forbidden(f'namespaces "{name}" is forbidden: this namespace may not be deleted')
        for k in kinds.REGISTRY.all():
            if k.namespaced:
                for o in store.list(k.kind, name):
                    store.delete(k.kind, name, o["metadata"]["name"])
    if info.kind == "Node":
        # PodGC deletes pods bound to a node that no longer exists
        for key in store.pod_keys_on_node(name):
            store.delete(*key)
        store.delete("CSINode", "", name)  # the garbage collector follows its owner reference
    if info.kind == "Pod":
        store.delete("ScheduleExplanation", namespace, name)
    store.delete(info.kind, namespace, name)
    return obj
