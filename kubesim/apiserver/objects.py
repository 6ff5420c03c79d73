"""The API server's handling of objects: create, update, delete, list with selectors.

Upstream: the apiserver's create and update handlers and the generic registry
(staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go;
pkg/registry/generic/registry/store.go; pkg/registry/rest/create.go, update.go): the request's
object is decoded with the scheme's defaults, mutated by admission, given what its
strategy's PrepareForCreate/PrepareForUpdate set, validated by its strategy, checked by the
validating admission plugins and stored. Each kind's rules are its strategy's
(``kubesim.apiserver.registry``), the plugins ``kubesim.apiserver.admission``'s; nothing here
is particular to a kind. Deletion follows the generic registry too (graceful deletion,
finalizers, propagation), and list filtering applies label and field selectors.
"""

from __future__ import annotations

from kubesim.api import kinds
from kubesim.api.kinds import KindInfo
from kubesim.apiserver.context import Cluster
from kubesim.errors import AlreadyExists, BadRequest, FieldError, Invalid, NotFound

# Fields the server owns; comparing an applied object with the live one ignores them.
_SERVER_METADATA = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields",
                    "deletionTimestamp", "deletionGracePeriodSeconds")


# -- the steps of a write ------------------------------------------------------------------

def prepare_for_create(obj: dict, *, rng=None, lister=None, now: str | None = None, manage=None) -> None:
    """What the API server does to a new object before validating it, in place: the scheme's
    defaults, the mutating admission plugins, then ``rest.BeforeCreate`` (metadata the client
    may not set, the generated name) with the strategy's PrepareForCreate.

    ``lister(kind)`` returns the stored objects of a kind, for the plugins that read them
    (Priority, DefaultStorageClass, RuntimeClass); without it they see none. ``rng`` draws the
    generated names (the service-account token volume's, ``generateName``'s); ``now`` (RFC 3339)
    is the request's time. Raises ``Forbidden`` where admission refuses. A kind the API server
    does not serve is left as it is. ``manage(obj)`` records the write in managedFields, after
    the defaults and before admission, where the create handler calls the field manager."""
    from kubesim.apiserver import admission
    from kubesim.apiserver.registry import for_kind, rest

    strategy = for_kind(obj.get("kind", ""))
    if strategy is None:
        return
    strategy.set_defaults(obj)
    if manage is not None:
        manage(obj)
    admission.admit(admission.Attributes(admission.CREATE, obj, None, lister, rng))
    rest.before_create(strategy, obj, rng, now)


def prepare_for_update(new: dict, old: dict, store=None, rng=None, manage=None) -> None:
    """What the API server does to an update of ``old`` to ``new`` before validating it, in
    place: the scheme's defaults, the mutating admission plugins, the REST storage's
    BeginUpdate (with ``store``: the Service allocators), the strategy's PrepareForUpdate."""
    from kubesim.apiserver import admission
    from kubesim.apiserver.registry import for_kind

    strategy = for_kind(new.get("kind", ""))
    if strategy is None:
        return
    strategy.set_defaults(new)
    if manage is not None:
        manage(new)
    admission.admit(admission.Attributes(admission.UPDATE, new, old))
    if store is not None:
        strategy.begin_update(new, old, store, rng)
    strategy.prepare_for_update(new, old)


def validate(obj: dict, old: dict | None = None) -> list[FieldError]:
    """The strategy's verdict on a create (``old`` is None) or an update of ``obj``: its field
    errors, [] for a kind without rules. Expects a prepared object, as the server validates
    after defaulting and admission. Errors repeating an earlier message are dropped, as
    ``field.ErrorList.ToAggregate`` does for the server's message."""
    from kubesim.apiserver.registry import for_kind

    strategy = for_kind(obj.get("kind", ""))
    if strategy is None:
        return []
    errs = strategy.validate(obj) if old is None else strategy.validate_update(obj, old)
    seen: set[str] = set()
    out = []
    for e in errs:
        text = str(e)
        if text not in seen:
            seen.add(text)
            out.append(e)
    return out


def validating_admission(obj: dict, old: dict | None, lister, warnings: list[str] | None = None,
                         audit_annotations: dict | None = None) -> None:
    """The validating admission plugins, after validation (Priority: one default class).
    Raises ``Forbidden``. ``audit_annotations``: where the plugins' audit annotations go (the
    request's audit event; None: not audited)."""
    from kubesim.apiserver import admission

    admission.validate(admission.Attributes(admission.UPDATE if old is not None else admission.CREATE,
                                            obj, old, lister, warnings=warnings,
                                            audit_annotations=audit_annotations))


def _validate(obj: dict, info: KindInfo, old: dict | None = None) -> None:
    errs = validate(obj, old)
    if errs:
        raise Invalid(info.kind, obj["metadata"].get("name", ""), errs)


# -- writing -------------------------------------------------------------------------------

def create_object(cluster: Cluster, obj: dict, info: KindInfo | None = None, applied: bool = False) -> dict:
    """The API server's create: admission, defaults, validation, store. Raises on conflict.
    ``applied``: a server-side apply's, whose managedFields the apply has set."""
    from kubesim.apiserver.registry import for_kind

    info = info or kinds.for_object(obj)
    assert info is not None
    strategy = for_kind(info.kind)
    md = obj["metadata"]
    applied_fields = md.get("managedFields") if applied else None
    # kubesim draws the name first (upstream: in BeforeCreate, after admission, whose messages
    # then name no object); seeded runs depend on this order of draws (name, then token volume)
    if not md.get("name") and md.get("generateName"):
        md["name"] = md["generateName"] + cluster.random_suffix()
    for f in _SERVER_METADATA:
        md.pop(f, None)
    if strategy is None or not strategy.keeps_status_on_create:
        obj.pop("status", None)
    prepare_for_create(obj, rng=cluster.rng, lister=cluster.store.list, now=cluster.stamp(),
                       manage=None if applied else _field_manager(cluster, None))
    if applied_fields:
        md["managedFields"] = applied_fields
    # NamespaceLifecycle's other rule, checked after mutation as kubesim always has (upstream:
    # first in the chain, so a missing namespace is reported before what admission refuses)
    if info.namespaced and not cluster.namespace_exists(md["namespace"]):
        raise NotFound("namespaces", md["namespace"])
    if cluster.store.get(info.kind, md.get("namespace", ""), md["name"]) is not None:
        raise AlreadyExists(info.resource, md["name"])
    if strategy is not None:
        strategy.begin_create(obj, cluster.store, cluster.rng)
    _validate(obj, info)
    if strategy is not None:
        cluster.__dict__.setdefault("warnings", []).extend(strategy.warnings_on_create(obj))
        strategy.canonicalize(obj)
    validating_admission(obj, None, cluster.store.list, cluster.__dict__.setdefault("warnings", []),
                         cluster.__dict__.get("audit_annotations"))
    if cluster.field_manager or applied:
        cluster.fields.handled(obj)
    return cluster.store.create(obj, cluster.stamp())


def create_mirror_pod(cluster: Cluster, pod: dict) -> dict:
    """The kubelet's create of a mirror pod: the defaults and admission of any create (without
    the cluster's objects: the Priority plugin knows the system classes only), stored without
    validation (the kubelet has read the manifest)."""
    prepare_for_create(pod)
    return cluster.store.create(pod, cluster.stamp())


def update_object(cluster: Cluster, new: dict, old: dict, info: KindInfo, applied: bool = False,
                  subresource: str = "") -> bool:
    """The API server's update: validate against the old object, store if anything changed.
    ``applied``: a server-side apply's, whose managedFields the apply has set; ``subresource``:
    the one the write came through (``scale``), as managedFields record it."""
    from kubesim.apiserver.registry import for_kind

    md = new["metadata"]
    client_fields = md.get("managedFields")
    for f in _SERVER_METADATA:
        if f in old["metadata"]:
            md[f] = old["metadata"][f]
        else:
            md.pop(f, None)
    if "status" in old:
        new["status"] = old["status"]  # status is a subresource: updates through the object ignore it
    if applied:
        if client_fields:
            md["managedFields"] = client_fields
        else:
            md.pop("managedFields", None)
    prepare_for_update(new, old, cluster.store, cluster.rng,
                       manage=None if applied else _field_manager(cluster, old, client_fields, subresource))
    # a request that sets managedFields (csaupgrade's JSON patch, a reset) writes them
    fields_set = applied or (client_fields is not None and client_fields != old["metadata"].get("managedFields"))
    if _comparable(new, fields_set) == _comparable(old, fields_set):
        strategy = for_kind(info.kind)
        if strategy is not None:  # BeforeUpdate's warnings come before the store finds no change
            cluster.__dict__.setdefault("warnings", []).extend(strategy.warnings_on_update(new, old))
        return False
    _validate(new, info, old)
    strategy = for_kind(info.kind)
    if strategy is not None:
        cluster.__dict__.setdefault("warnings", []).extend(strategy.warnings_on_update(new, old))
        strategy.canonicalize(new)
    validating_admission(new, old, cluster.store.list, cluster.__dict__.setdefault("warnings", []),
                         cluster.__dict__.get("audit_annotations"))
    if _should_delete_during_update(new):
        # the generic registry's ShouldDeleteDuringUpdate: the last finalizer of an object
        # marked for deletion is gone, so the update removes it
        strategy = for_kind(info.kind)
        if strategy is not None:
            strategy.delete_dependents(cluster.store, new)
        cluster.store.delete(info.kind, md.get("namespace", "") if info.namespaced else "", md["name"])
        return True
    if cluster.field_manager or applied:
        cluster.fields.handled(new)
    cluster.store.put(new)
    return True


def _should_delete_during_update(obj: dict) -> bool:
    """staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go ShouldDeleteDuringUpdate:
    marked for deletion, no finalizers left, no grace period to wait for."""
    md = obj.get("metadata") or {}
    return bool(md.get("deletionTimestamp")) and not md.get("finalizers") and \
        not md.get("deletionGracePeriodSeconds")


def _field_manager(cluster: Cluster, old: dict | None, client_fields=None, subresource: str = ""):
    """The field manager's Update for the request's manager (None: the write is not tracked)."""
    manager = cluster.field_manager
    if not manager:
        return None

    def manage(obj: dict) -> None:
        from kubesim.apiserver import fieldmanager

        fieldmanager.update(old, obj, manager, cluster.stamp(), subresource, client_fields=client_fields)

    return manage


def _comparable(obj: dict, with_fields: bool = False) -> dict:
    o = dict(obj)
    md = dict(o.get("metadata") or {})
    md.pop("resourceVersion", None)
    if not with_fields:
        md.pop("managedFields", None)
    o["metadata"] = md
    return o


def apply_object(cluster: Cluster, info: KindInfo, config: dict, live: dict | None, manager: str,
                 force: bool = False) -> bool:
    """Server-side apply of ``config`` (PATCH application/apply-patch+yaml) by ``manager``:
    creates the object when ``live`` is None, else updates it; True when it was created.
    Raises the field manager's Conflict (409), or what create or update raise.

    Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (``applyPatcher``,
    ``forceAllowCreate``) over the field manager (``kubesim.apiserver.fieldmanager``)."""
    import copy

    from kubesim.apiserver import fieldmanager

    md = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    if md.get("managedFields") is not None:
        raise BadRequest("metadata.managedFields must be nil")
    config = copy.deepcopy(config)
    if "status" in config and _has_status_subresource(info):
        config.pop("status")  # the main resource never writes status
    obj = fieldmanager.apply(copy.deepcopy(live) if live is not None else None, config, manager, cluster.stamp(), force)
    saved = cluster.field_manager
    cluster.field_manager = None  # the apply recorded the write
    try:
        if live is None:
            if info.namespaced:
                obj["metadata"].setdefault("namespace", md.get("namespace"))
            create_object(cluster, obj, info, applied=True)
            return True
        update_object(cluster, obj, live, info, applied=True)
        return False
    finally:
        cluster.field_manager = saved


def _has_status_subresource(info: KindInfo) -> bool:
    from kubesim.api import typed

    t = typed.kind_type(info.api_version, info.kind)
    return t is not None and "status" in t[1]


# -- reading -------------------------------------------------------------------------------

def list_objects(cluster: Cluster, info: KindInfo, namespace: str | None,
                 label_selector: str | None = None, field_selector: str | None = None,
                 omit: tuple[str, ...] = ()) -> list[dict]:
    """LIST: the objects of one kind (in ``namespace``, None for all) that the selectors match,
    sorted by (namespace, name). ``omit``: dotted paths the caller does not read (a table's
    printer: ``metadata.managedFields``), which the objects may then lack (``Store.list``);
    they are read-only."""
    objs = _list(cluster, info, namespace, label_selector, field_selector, omit)
    if info.kind == "Event":
        from kubesim.apiserver import events

        objs = events.live(cluster, objs)
    return objs


def list_pieces(cluster: Cluster, info: KindInfo, namespace: str | None, label_selector: str | None = None,
                field_selector: str | None = None, omit: tuple[str, ...] = (), size: int = 500,
                table: bool = False):
    """``list_objects`` in pieces of at most ``size`` objects, each read from the store only
    when reached (``Store.list_pieces``), as a LIST answered page by page (``limit`` and
    ``continue``, what kubectl's chunked reads ask); with selectors, one piece. ``table``:
    the caller prints the kind's table and reads nothing else, so the objects of a kind the
    store keeps projected (``api.tablefields``) may come as that projection alone."""
    ns = namespace if info.namespaced else None
    store = cluster.store
    if table and not field_selector and store.projects(info.kind):
        yield from _projected_pieces(store, info, ns, label_selector, size)
        return
    if label_selector and not field_selector and info.kind != "Event":
        from kubesim.api import selectors

        try:
            sel = selectors.parse_label_selector(label_selector)
        except ValueError as e:
            raise BadRequest(str(e)) from None
        keys = _labelled_keys(cluster.store, info.kind, ns, sel)
        if keys is not None:  # the index's candidates, read a piece at a time
            for i in range(0, len(keys), size):
                yield [o for o in cluster.store.objects(keys[i:i + size], omit)
                       if sel.matches(o["metadata"].get("labels") or {})]
            return
    if label_selector or field_selector:
        yield list_objects(cluster, info, namespace, label_selector, field_selector, omit)
        return
    for piece in cluster.store.list_pieces(info.kind, ns, omit, size):
        if info.kind == "Event":
            from kubesim.apiserver import events

            piece = events.live(cluster, piece)
        yield piece


def _projected_pieces(store, info: KindInfo, namespace: str | None, label_selector: str | None, size: int):
    """``list_pieces`` of a projected kind for its table (``Store.projected_pieces``): with a
    label selector, the index's candidates that match (a projection keeps the labels)."""
    if not label_selector:
        yield from store.projected_pieces(info.kind, namespace, size=size)
        return
    from kubesim.api import selectors

    try:
        sel = selectors.parse_label_selector(label_selector)
    except ValueError as e:
        raise BadRequest(str(e)) from None
    keys = _labelled_keys(store, info.kind, namespace, sel)
    pieces = store.projected_pieces(info.kind, namespace, size=size) if keys is None else \
        store.projected_pieces(info.kind, keys=keys, size=size)
    for piece in pieces:
        yield [o for o in piece if sel.matches(o["metadata"].get("labels") or {})]


def _list(cluster: Cluster, info: KindInfo, namespace: str | None, label_selector: str | None,
          field_selector: str | None, omit: tuple[str, ...] = ()) -> list[dict]:
    store = cluster.store
    ns = namespace if info.namespaced else None
    if not (label_selector or field_selector):
        return store.list(info.kind, ns, omit)
    from kubesim.api import selectors  # only a list with selectors pays for the parser

    fsel = None
    if field_selector:
        try:
            fsel = selectors.convert_field_selector(info.kind, selectors.parse_field_selector(field_selector))
        except ValueError as e:
            raise BadRequest(str(e)) from None
    sel = None
    if label_selector:
        try:
            sel = selectors.parse_label_selector(label_selector)
        except ValueError as e:
            raise BadRequest(str(e)) from None
    objs = _candidates(store, info.kind, ns, fsel) if fsel is not None else None
    if objs is None and sel is not None:
        objs = _labelled(store, info.kind, ns, sel, omit if fsel is None else ())
    if objs is None:
        objs = store.list(info.kind, ns, omit if fsel is None else ())
    if sel is not None:
        objs = [o for o in objs if sel.matches(o["metadata"].get("labels") or {})]
    if fsel is not None:
        fields_of = selectors.fields_of(info.kind)
        objs = [o for o in objs if fsel.matches(fields_of(o))]
    return objs


# Exact-match field selectors the store can answer without decoding the whole kind, as the
# apiserver's watch cache indexes them (pods by spec.nodeName; describe's event lookups by
# involvedObject): the kind's field, and how a value appears in the stored JSON.
_NARROWING_FIELDS = {"Event": ("involvedObject.name", "involvedObject.uid"), "": ("metadata.name",)}
_INDEXED_FIELDS = {"involvedObject.name"}  # (the others: the bodies that contain the value)


def _candidates(store, kind: str, namespace: str | None, fsel) -> list[dict] | None:
    """A superset of the objects ``fsel`` can match, decoding only those; None when no term
    narrows the search (the caller lists the kind)."""
    keys = None
    if kind == "Pod" and (node := fsel.requires_exact_match("spec.nodeName")) is not None:
        keys = store.pod_keys_on_node(node)
    else:
        import json

        for name in _NARROWING_FIELDS.get(kind, ()) + _NARROWING_FIELDS[""]:
            value = fsel.requires_exact_match(name)
            if value:  # "" also matches objects without the field: no narrowing
                if name in _INDEXED_FIELDS:  # the index of events by involved object
                    keys = store.keys_of_events_involving(value)
                if keys is None:
                    keys = store.keys_containing(kind, json.dumps(value))
                break
    if keys is None:
        return None
    out = []
    for k in keys:
        if namespace is not None and k[1] != namespace:
            continue
        obj = store.get(*k)
        if obj is not None:
            out.append(obj)
    out.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
    return out


def _labelled(store, kind: str, namespace: str | None, sel, omit: tuple[str, ...]) -> list[dict] | None:
    """A superset of the objects a label selector can match (``_labelled_keys``), decoding
    only those; None when the caller must list the kind."""
    keys = _labelled_keys(store, kind, namespace, sel)
    return None if keys is None else store.objects(keys, omit)


def _labelled_keys(store, kind: str, namespace: str | None, sel) -> list | None:
    """The keys of a superset of the objects a label selector can match, sorted, from the
    store's index of labels (as the watch cache's indexers answer a LIST): those with the
    label of its first requirement that names values (``k=v``, ``k in (a,b)``) or asks for
    the key (``k``); None when no requirement narrows the search (or the index cannot
    answer: an older state opened read-only)."""
    from kubesim.api import selectors

    for r in sel.requirements:
        if r.operator in (selectors.OP_EQUALS, selectors.OP_DOUBLE_EQUALS, selectors.OP_IN):
            values: tuple = r.values
        elif r.operator == selectors.OP_EXISTS:
            values = (None,)
        else:
            continue
        keys: set = set()
        for v in values:
            found = store.keys_labelled(kind, r.key, v, namespace)
            if found is None:
                return None
            keys.update(found)
        return sorted(keys)
    return None


# -- deleting ------------------------------------------------------------------------------

def delete_object(cluster: Cluster, info: KindInfo, namespace: str, name: str,
                  grace_seconds: float | None = None, force: bool = False,
                  propagation: str = "Background") -> dict:
    """The API server's delete, as the generic registry does it for the strategy of ``info``.
    A pod running on a node is deleted gracefully: it gets its deletionTimestamp and the kubelet
    removes it when the grace period ends (the pod strategy's CheckGracefulDelete); ``force``
    with grace 0 removes it at once. An owner deleted with Foreground or Orphan propagation is
    marked, and the garbage collector removes or orphans its dependents; an object with
    finalizers is marked and stays until they are gone. Other objects go at once, with what a
    real cluster removes promptly along with them (the strategy's ``delete_dependents``)."""
    from kubesim.apiserver import admission
    from kubesim.apiserver.registry import for_kind, rest

    store = cluster.store
    obj = store.get(info.kind, namespace, name)
    if obj is None:
        raise NotFound(info.resource, name)
    strategy = for_kind(info.kind) or rest.Strategy()  # kubesim's own kinds have no rules
    admission.validate(admission.Attributes(admission.DELETE, obj))
    strategy.before_delete(obj)
    if strategy.graceful_delete and not (force and grace_seconds == 0):
        before = (obj["metadata"].get("deletionTimestamp"), obj["metadata"].get("deletionGracePeriodSeconds"))
        if strategy.check_graceful_delete(obj, grace_seconds, cluster.now()) > 0:
            if (obj["metadata"].get("deletionTimestamp"), obj["metadata"].get("deletionGracePeriodSeconds")) != before:
                cluster.fields.handled(obj)  # the storage's own update: managedFields stay
                store.put(obj)  # a second delete that does not shorten the grace period writes nothing
            return obj
    if strategy.propagates_deletion:
        marked = begin_deletion(obj, propagation, cluster.now())
        if marked is not None:
            cluster.fields.handled(marked)
            store.put(marked)
            return obj
    if not strategy.graceful_delete and (obj.get("metadata") or {}).get("finalizers"):
        # the generic registry: an object with finalizers is marked and stays until they are gone
        if not obj["metadata"].get("deletionTimestamp"):
            obj["metadata"]["deletionTimestamp"] = cluster.stamp()
            obj["metadata"]["deletionGracePeriodSeconds"] = 0
            if obj["metadata"].get("generation"):  # rest.BeforeDelete
                obj["metadata"]["generation"] += 1
            cluster.fields.handled(obj)
            store.put(obj)
        return obj
    strategy.delete_dependents(store, obj)
    store.delete(info.kind, namespace, name)
    return obj


def begin_deletion(obj: dict, propagation: str, now: float) -> dict | None:
    """What the API server stores for a delete with ``propagation``: None (delete it now) for
    Background, or a copy of the object marked for deletion with the policy's finalizer
    (``foregroundDeletion``: the garbage collector deletes the dependents first; ``orphan``: it
    removes their owner references), which the collector removes when it is done.

    Upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
    (``deletionFinalizersForGarbageCollection``, ``updateForGracefulDeletionAndFinalizers``)."""
    if propagation not in ("Foreground", "Orphan"):
        return None
    import copy

    from kubesim.api.meta.helpers import (
        FINALIZER_DELETE_DEPENDENTS,
        FINALIZER_ORPHAN_DEPENDENTS,
    )
    from kubesim.clock import format_time

    new = copy.deepcopy(obj)
    md = new.setdefault("metadata", {})
    md.setdefault("deletionTimestamp", format_time(now))
    md.setdefault("deletionGracePeriodSeconds", 0)
    fin = FINALIZER_DELETE_DEPENDENTS if propagation == "Foreground" else FINALIZER_ORPHAN_DEPENDENTS
    if fin not in (md.get("finalizers") or []):
        md["finalizers"] = list(md.get("finalizers") or []) + [fin]
    return new
