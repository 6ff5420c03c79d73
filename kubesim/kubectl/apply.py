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
from kubesim.errors import StatusError, WithSource
from kubesim.kubectl.resource import Prepared, aggregate

SCHEDULER_CONFIGURATION_REF = "kubeschedulerconfiguration.kubescheduler.config.k8s.io/kube-scheduler"


def apply(client, prepared: list[Prepared], pre_errors: list | None = None,
          objects: list | None = None) -> list[str]:
    """kubectl apply: create, or three-way merge into the live object. ``pre_errors`` are
    ``prepare``'s; all errors are raised together, in document order. ``objects`` collects
    what the server returned, for ``-o``."""
    objects = [] if objects is None else objects
    lines, errors = [], list(pre_errors or [])
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
                obj = _without_nulls(copy.deepcopy(desired))
                obj["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
                objects.append(copy.deepcopy(client.create(obj, p.info)))
                lines.append(f"{p.info.ref}/{p.name} created")
                continue
            last_raw = (live["metadata"].get("annotations") or {}).get(LAST_APPLIED)
            last = json.loads(last_raw) if last_raw else {}
            desired_with = copy.deepcopy(desired)
            desired_with["metadata"].setdefault("annotations", {})[LAST_APPLIED] = cfg
            desired_with.pop("status", None)
            before = live["metadata"].get("resourceVersion")
            stored = client.update(p.info, three_way(dict(live), last, desired_with))
            objects.append(copy.deepcopy(stored))
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


def _retrieving(p: Prepared) -> str:
    """apply.go's "error when retrieving current configuration of" preamble (the object's
    resource and kind as schema.GroupVersionResource/Kind print them)."""
    info = p.info
    return (f'retrieving current configuration of:\nResource: "{info.group}/{info.version}, Resource={info.plural}", '
            f'GroupVersionKind: "{info.group}/{info.version}, Kind={info.kind}"\n'
            f'Name: "{p.name}", Namespace: "{p.namespace if info.namespaced else ""}"\nfrom server for:')


def create(client, prepared: list[Prepared], pre_errors: list | None = None,
           objects: list | None = None) -> list[str]:
    """kubectl create -f: refuse what exists. ``objects`` collects the created objects."""
    lines, errors = [], list(pre_errors or [])
    objects = [] if objects is None else objects
    for p in prepared:
        try:
            obj = client.create(copy.deepcopy(p.obj), p.info)
            objects.append(copy.deepcopy(obj))
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
