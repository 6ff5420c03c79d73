"""What the API server and kubectl do with objects: create, apply, delete, select.

Upstream: the apiserver's create/update path (decode strictly → admission and defaulting →
validation → store; ``PrepareForCreate`` resetting pod status, staging/src/k8s.io/apiserver/
pkg/registry/rest/create.go, pkg/registry/core/pod/strategy.go) and kubectl's apply/create/delete
loops (staging/src/k8s.io/kubectl/pkg/cmd/apply, create, delete) for the lines they print.

Unlike kubectl, a command here is all or nothing: every document is checked, and if any fails
nothing is written and only the errors are printed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from kubesim.api import kinds
from kubesim.api.kinds import KindInfo
from kubesim.api.merge import LAST_APPLIED, last_applied_json, three_way
from kubesim.codec.load import Document
from kubesim.engine.context import Cluster
from kubesim.errors import (AlreadyExists, BadRequest, ClientValidationError, Invalid, KubesimError,
                            NotFound, RawError, StatusError, UsageError, WithSource, required)

# Fields the server owns; comparing an applied object with the live one ignores them.
_SERVER_METADATA = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields",
                    "deletionTimestamp", "deletionGracePeriodSeconds")


@dataclass
class Prepared:
    doc: Document
    info: KindInfo
    obj: dict
    where: str  # '"f.yaml"' or '"f.yaml" (document 2)'
    position: int = 0  # index among all documents of the command

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.obj["metadata"].get("namespace", "") if self.info.namespaced else ""


def _where(doc: Document, multi: bool) -> str:
    return f'"{doc.source}" (document {doc.index})' if multi else f'"{doc.source}"'


def prepare(docs: list[Document], namespace_flag: str | None, verb: str,
            explicit_namespace: bool = False, collect: bool = False):
    """Client-side checks for every document: kind known, schema-valid, namespace consistent.

    Raises the errors; with ``collect`` returns ``(prepared, errors)`` instead, errors as
    ``(position, error)`` so a command can report them with the server's, in document order."""
    from kubesim.codec.schema import format_bad_request, validate_structure

    counts: dict[str, int] = {}
    for d in docs:
        counts[d.source] = counts.get(d.source, 0) + 1
    out: list[Prepared] = []
    errors: list = []
    for position, doc in enumerate(docs):
        obj = doc.obj
        where = _where(doc, counts[doc.source] > 1)
        missing = [f for f in ("apiVersion", "kind") if not obj.get(f)]
        if missing:
            detail = f"{missing[0]} not set" if len(missing) == 1 else "[" + ", ".join(f"{m} not set" for m in missing) + "]"
            errors.append((position, _client_error(doc, counts[doc.source] > 1, detail)))
            continue
        info = kinds.for_object(obj)
        if info is None:
            name = (obj.get("metadata") or {}).get("name", "") if isinstance(obj.get("metadata"), dict) else ""
            errors.append((position, UsageError(
                f'resource mapping not found for name: "{name}" namespace: "{namespace_flag or ""}" from {where}: '
                f'no matches for kind "{obj["kind"]}" in version "{obj["apiVersion"]}"\n'
                "ensure CRDs are installed first")))
            continue
        if not info.served:
            out.append(Prepared(doc, info, copy.deepcopy(obj), where, position))
            continue
        messages = validate_structure(obj)
        if messages:
            line = format_bad_request(doc.source, obj, messages, verb)
            if counts[doc.source] > 1:
                line = line.replace(f'"{doc.source}"', where, 1)
            errors.append((position, RawError(line)))
            continue
        obj = copy.deepcopy(obj)
        md = obj.setdefault("metadata", {})
        if info.namespaced:
            if md.get("namespace") and explicit_namespace and namespace_flag and md["namespace"] != namespace_flag:
                errors.append((position, UsageError(
                    f'the namespace from the provided object "{md["namespace"]}" does not match the namespace '
                    f'"{namespace_flag}". You must pass \'--namespace={md["namespace"]}\' to perform this operation.')))
                continue
            md["namespace"] = md.get("namespace") or namespace_flag or "default"
        else:
            md.pop("namespace", None)
        if not md.get("name") and not md.get("generateName"):
            errors.append((position, Invalid(info.kind, "", [required("metadata.name", "name or generateName is required")])))
            continue
        out.append(Prepared(doc, info, obj, where, position))
    if collect:
        return out, errors
    if errors:
        raise _aggregate([e for _, e in errors])
    return out


def _client_error(doc: Document, multi: bool, detail: str) -> KubesimError:
    if multi:
        return RawError(f'error: error validating "{doc.source}" (document {doc.index}): error validating data: '
                    f'{detail}; if you choose to ignore these errors, turn validation off with --validate=false')
    return ClientValidationError(doc.source, detail)


def _aggregate(errors: list[KubesimError]) -> KubesimError:
    from kubesim.errors import Aggregate

    return errors[0] if len(errors) == 1 else Aggregate(errors)


def _check_namespace(cluster: Cluster, p: Prepared) -> None:
    if p.info.namespaced and not cluster.namespace_exists(p.namespace):
        raise NotFound("namespaces", p.namespace)


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


def apply(cluster: Cluster, prepared: list[Prepared], pre_errors: list | None = None) -> list[str]:
    """kubectl apply (client-side): create, or three-way merge into the live object.

    ``pre_errors`` are ``prepare``'s; all errors are raised together, in document order."""
    lines, errors = [], list(pre_errors or [])
    for p in prepared:
        desired = p.obj
        try:
            if p.info.kind == "KubeSchedulerConfiguration":
                lines.append(apply_scheduler_configuration(cluster, desired))
                continue
            _check_namespace(cluster, p)
            live = cluster.store.get(p.info.kind, p.namespace, p.name)
            cfg = last_applied_json(desired)
            if live is None:
                obj = copy.deepcopy(desired)
                obj["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
                create_object(cluster, obj, p.info)
                lines.append(f"{p.info.ref}/{p.name} created")
                continue
            import json

            last_raw = (live["metadata"].get("annotations") or {}).get(LAST_APPLIED)
            last = json.loads(last_raw) if last_raw else {}
            desired_with = copy.deepcopy(desired)
            desired_with["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
            desired_with.pop("status", None)
            merged = three_way({k: v for k, v in live.items()}, last, desired_with)
            changed = update_object(cluster, merged, live, p.info)
            lines.append(f"{p.info.ref}/{p.name} {'configured' if changed else 'unchanged'}")
        except StatusError as e:
            errors.append((p.position, WithSource(e, "creating", p.where)))
    _raise_in_order(errors)
    return lines


def apply_scheduler_configuration(cluster: Cluster, cfg: dict) -> str:
    """Store a KubeSchedulerConfiguration as the cluster's, refusing what kube-scheduler would
    refuse to start with (validation, then building every profile's framework)."""
    from kubesim.scheduler import config as schedconfig
    from kubesim.scheduler.scheduler import Scheduler

    from kubesim.engine.scheduling import CONFIG_META

    try:
        schedconfig.load(cfg)
        Scheduler(cfg, cluster.rng)
    except schedconfig.ConfigError as e:
        raise InvalidConfiguration(e.errors) from None
    ref = "kubeschedulerconfiguration.kubescheduler.config.k8s.io/kube-scheduler"
    old = cluster.store.meta(CONFIG_META)
    if old == cfg:
        return f"{ref} unchanged"
    cluster.store.set_meta(CONFIG_META, cfg)
    return f"{ref} {'configured' if old else 'created'}"


def scheduler_configuration(cluster: Cluster) -> dict:
    """The configuration in force, defaulted as kube-scheduler defaults it."""
    from kubesim.engine.scheduling import CONFIG_META
    from kubesim.scheduler import config as schedconfig

    return schedconfig.complete(cluster.store.meta(CONFIG_META))


class InvalidConfiguration(StatusError):
    """kube-scheduler's refusal of a configuration, with its field errors."""

    reason = "Invalid"

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("; ".join(errors))

    def __str__(self) -> str:
        head = "The KubeSchedulerConfiguration is invalid: "
        if len(self.errors) == 1:
            return head + self.errors[0]
        return head + "\n" + "\n".join("* " + e for e in self.errors)


def create(cluster: Cluster, prepared: list[Prepared], pre_errors: list | None = None) -> list[str]:
    """kubectl create -f: refuse what exists."""
    lines, errors = [], list(pre_errors or [])
    for p in prepared:
        try:
            _check_namespace(cluster, p)
            obj = create_object(cluster, copy.deepcopy(p.obj), p.info)
            lines.append(f"{p.info.ref}/{obj['metadata']['name']} created")
        except StatusError as e:
            errors.append((p.position, WithSource(e, "creating", p.where)))
    _raise_in_order(errors)
    return lines


def _raise_in_order(errors: list) -> None:
    if errors:
        errors.sort(key=lambda pe: pe[0])
        raise _aggregate([e for _, e in errors])


# -- reading -------------------------------------------------------------------------------

def select(cluster: Cluster, info: KindInfo, names: list[str], namespace: str | None,
           label_selector: str | None = None, field_selector: str | None = None) -> tuple[list[dict], list[KubesimError]]:
    """Objects of one kind: by name (NotFound errors for the missing) or by selectors."""
    from kubesim.api import selectors

    if info.kind == "KubeSchedulerConfiguration":
        return [scheduler_configuration(cluster)], []
    ns = namespace if info.namespaced else None
    errors: list[KubesimError] = []
    if names:
        found = []
        for n in names:
            obj = cluster.store.get(info.kind, ns or "", n)
            if obj is None:
                errors.append(NotFound(info.resource, n))
            else:
                found.append(obj)
        objs = found
    else:
        objs = cluster.store.list(info.kind, ns)
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
    return objs, errors


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


def delete_line(info: KindInfo, obj: dict, force: bool = False) -> str:
    op = "force deleted" if force else "deleted"
    ns = obj["metadata"].get("namespace")
    if info.namespaced and ns:
        return f'{info.ref} "{obj["metadata"]["name"]}" {op} from {ns} namespace'
    return f'{info.ref} "{obj["metadata"]["name"]}" {op}'
