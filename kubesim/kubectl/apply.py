"""kubectl apply (client-side) and create -f over prepared manifests.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go (create when absent, else the
three-way merge of the live object, the last-applied configuration and the new one, recorded in
``kubectl.kubernetes.io/last-applied-configuration``; ``configured``/``unchanged``) and
pkg/cmd/create/create.go. The merge itself is ``kubesim.api.merge``.

Unlike kubectl, a command here is all or nothing: every document is tried, and if any fails
nothing is written and the errors are printed in document order.
"""

from __future__ import annotations

import copy
import json

from kubesim.api.merge import LAST_APPLIED, last_applied_json, three_way
from kubesim.api.objcopy import deep_copy
from kubesim.errors import StatusError, WithSource
from kubesim.kubectl.resource import Prepared, aggregate

SCHEDULER_CONFIGURATION_REF = "kubeschedulerconfiguration.kubescheduler.config.k8s.io/kube-scheduler"


def apply(client, prepared: list[Prepared], pre_errors: list | None = None,
          objects: list | None = None) -> list[str]:
    """kubectl apply: create, or three-way merge into the live object. ``pre_errors`` are
    ``prepare``'s; all errors are raised together, in document order. ``objects`` collects
    what the server returned, for ``-o`` (None: nothing is kept)."""
    keep = objects is not None
    lines, errors = [], list(pre_errors or [])
    client.prefetch([(p.info, p.namespace, p.name) for p in prepared if p.info.served])  # (the GETs below)
    for p in prepared:
        desired = p.obj
        try:
            if not p.info.served:  # KubeSchedulerConfiguration: kubesim's own
                lines.append(f"{SCHEDULER_CONFIGURATION_REF} {client.apply_scheduler_configuration(desired)}")
                continue
            try:
                live = client.find(p.info, p.namespace, p.name)
            except StatusError as e:  # (Forbidden: the request's user may not get it)
                errors.append((p.position, WithSource(e, _retrieving(p), p.where)))
                continue
            cfg = last_applied_json(desired)
            if live is None:
                # what apply creates carries no null fields (the annotation keeps them), as the
                # oracle shows for a ConfigMap's data and a custom resource's spec
                obj = _without_nulls(desired)  # (new containers throughout: a copy)
                obj["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
                created = client.create(obj, p.info)
                if keep:
                    objects.append(deep_copy(created))
                lines.append(f"{p.info.ref}/{p.name} created")
                continue
            last_raw = (live["metadata"].get("annotations") or {}).get(LAST_APPLIED)
            last = json.loads(last_raw) if last_raw else {}
            desired_with = deep_copy(desired)
            desired_with["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
            desired_with.pop("status", None)
            before = live["metadata"].get("resourceVersion")
            stored = client.update(p.info, three_way(dict(live), last, desired_with))
            if keep:
                objects.append(deep_copy(stored))
            changed = stored["metadata"].get("resourceVersion") != before
            # a Secret's stringData is never stored, so kubectl's three-way patch always carries
            # it and is never empty: kubectl says configured even when nothing changed
            changed = changed or (p.info.kind == "Secret" and bool(desired.get("stringData")))
            lines.append(f"{p.info.ref}/{p.name} {'configured' if changed else 'unchanged'}")
        except StatusError as e:
            errors.append((p.position, WithSource(e, "creating", p.where)))
    raise_in_order(errors)
    return lines


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


# apply.go: the manager kubectl's server-side apply uses by default, and the one it moves the
# last-applied annotation to
FIELD_MANAGER_SERVER_SIDE_APPLY = "kubectl"
FIELD_MANAGER_LAST_APPLIED = "kubectl-last-applied"
CONFLICT_HELP = """
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts"""


def server_side_apply(client, prepared: list[Prepared], pre_errors: list | None = None,
                      objects: list | None = None, *, field_manager: str = FIELD_MANAGER_SERVER_SIDE_APPLY,
                      force: bool = False) -> list[str]:
    """kubectl apply --server-side (apply.go ``applyOneObject``): each object sent whole as an
    apply patch; a conflict gets kubectl's advice. With the default manager, an object that
    client-side apply managed is migrated afterwards: the last-applied annotation is given to
    its own applier (``saveLastApplyAnnotationIfNecessary``), the client-side apply managers'
    fields to ``kubectl`` (``migrateToSSAIfNecessary``, client-go's csaupgrade), and the
    configuration applied again."""
    from kubesim.errors import RawError

    objects = [] if objects is None else objects
    lines, errors = [], list(pre_errors or [])
    for p in prepared:
        config = p.obj
        try:
            obj, _ = client.apply(p.info, config, field_manager=field_manager, force=force)
            if field_manager == FIELD_MANAGER_SERVER_SIDE_APPLY:
                obj = _save_last_applied(client, p, obj)
                if _migrate_to_ssa(client, p, obj, field_manager):
                    obj, _ = client.apply(p.info, config, field_manager=field_manager, force=force)
            objects.append(copy.deepcopy(obj))
            lines.append(f"{p.info.ref}/{p.name} serverside-applied")
        except StatusError as e:
            # applyOneObject returns the patch's error as it is (no source), a conflict with advice
            if e.reason == "Conflict":
                errors.append((p.position, RawError(f"error: {e.message}{CONFLICT_HELP}")))
            else:
                errors.append((p.position, e))
    raise_in_order(errors)
    return lines


_LAST_APPLIED_PATH = ("f:metadata", "f:annotations", "f:" + LAST_APPLIED)


def _owners(obj: dict, operation: str) -> list[dict]:
    """csaupgrade ``FindFieldsOwners``: the entries of ``operation`` that own the annotation."""
    from kubesim.api import fieldpath

    return [e for e in (obj.get("metadata") or {}).get("managedFields") or ()
            if e.get("operation") == operation and fieldpath.has(e.get("fieldsV1") or {}, _LAST_APPLIED_PATH)]


def _save_last_applied(client, p: Prepared, obj: dict) -> dict:
    ann = (obj.get("metadata") or {}).get("annotations") or {}
    if LAST_APPLIED not in ann or _owners(obj, "Apply"):
        return obj
    md = {"annotations": {LAST_APPLIED: ann[LAST_APPLIED]}, "name": obj["metadata"]["name"]}
    if obj["metadata"].get("namespace"):
        md["namespace"] = obj["metadata"]["namespace"]
    just = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": md}
    stored, _ = client.apply(p.info, just, field_manager=FIELD_MANAGER_LAST_APPLIED, force=False)
    return stored


def upgrade_managed_fields(entries: list[dict], csa_managers: list[str], ssa_manager: str) -> list[dict]:
    """client-go util/csaupgrade ``UpgradeManagedFields``: each client-side apply manager's
    Update entry folded into ``ssa_manager``'s Apply entry (which it becomes when there is
    none)."""
    from kubesim.api import fieldpath

    entries = [dict(e) for e in entries]
    for csa in csa_managers:
        def is_csa(e, csa=csa):
            return e.get("manager") == csa and e.get("operation") == "Update" and not e.get("subresource")

        idx = next((i for i, e in enumerate(entries) if e.get("manager") == ssa_manager
                    and e.get("operation") == "Apply" and not e.get("subresource")), None)
        if idx is None:
            idx = next((i for i, e in enumerate(entries) if is_csa(e)), None)
            if idx is None:
                continue
            entries[idx]["operation"] = "Apply"
            entries[idx]["manager"] = ssa_manager
        target = entries[idx]
        src = next((e for e in entries if is_csa(e) and e.get("apiVersion") == target.get("apiVersion")), None)
        fields = target.get("fieldsV1") or {}
        if src is not None:
            fields = fieldpath.union(fields, src.get("fieldsV1") or {})
        target["fieldsV1"] = fieldpath.encode(fields)
        entries = [e for e in entries if not is_csa(e)]
    return entries


def _migrate_to_ssa(client, p: Prepared, obj: dict, ssa_manager: str) -> bool:
    names = sorted({e["manager"] for e in _owners(obj, "Update")})
    entries = (obj.get("metadata") or {}).get("managedFields") or []
    upgraded = upgrade_managed_fields(entries, names, ssa_manager)
    if upgraded == entries:
        return False
    md = obj["metadata"]
    patch = [{"op": "replace", "path": "/metadata/managedFields", "value": upgraded},
             {"op": "replace", "path": "/metadata/resourceVersion", "value": md.get("resourceVersion", "")}]
    new, _ = client.patch(p.info, md.get("namespace", ""), md["name"], "json", patch)
    client.update(p.info, new)
    return True


def _retrieving(p: Prepared) -> str:
    """apply.go's "error when retrieving current configuration of" preamble (the object's
    resource and kind as schema.GroupVersionResource/Kind print them)."""
    info = p.info
    return (f'retrieving current configuration of:\nResource: "{info.group}/{info.version}, Resource={info.plural}", '
            f'GroupVersionKind: "{info.group}/{info.version}, Kind={info.kind}"\n'
            f'Name: "{p.name}", Namespace: "{p.namespace if info.namespaced else ""}"\nfrom server for:')


def create(client, prepared: list[Prepared], pre_errors: list | None = None,
           objects: list | None = None) -> list[str]:
    """kubectl create -f: refuse what exists. ``objects`` collects the created objects (None:
    nothing is kept)."""
    lines, errors = [], list(pre_errors or [])
    for p in prepared:
        try:
            obj = client.create(deep_copy(p.obj), p.info)
            if objects is not None:
                objects.append(deep_copy(obj))
            lines.append(f"{p.info.ref}/{obj['metadata']['name']} created")
        except StatusError as e:
            errors.append((p.position, WithSource(e, "creating", p.where)))
    raise_in_order(errors)
    return lines


def raise_in_order(errors: list) -> None:
    """Raise ``(position, error)`` pairs as one error, in document order."""
    if errors:
        errors.sort(key=lambda pe: pe[0])
        raise aggregate([e for _, e in errors])
