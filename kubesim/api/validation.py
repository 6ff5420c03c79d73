"""The API server's validation of an object, by kind (a transitional table: the per-resource
strategies take it over).

Adding a kind is one entry in ``VALIDATORS``: ``Kind -> (create_fn(obj), update_fn(new, old))``.
"""

from __future__ import annotations

from kubesim.api.core.validation import (validate_namespace_create, validate_namespace_update, validate_node_create,
                                         validate_node_update, validate_pod_create, validate_pod_update)
from kubesim.errors import FieldError

# ---------------------------------------------------------------------------------------------
# dispatch

VALIDATORS = {
    "Pod": (validate_pod_create, validate_pod_update),
    "Node": (validate_node_create, validate_node_update),
    "Namespace": (validate_namespace_create, validate_namespace_update),
}


_APPS_KINDS = ("Deployment", "ReplicaSet", "DaemonSet")  # validated by kubesim.api.apps


def _apps_validators() -> dict:
    from kubesim.api import apps

    return apps.VALIDATORS


def _group_validators() -> dict:
    from kubesim.api import policy, scheduling, storage

    return {**scheduling.VALIDATORS, **policy.VALIDATORS, **storage.VALIDATORS}


# validated by kubesim.api.scheduling, .policy and .storage
_GROUP_KINDS = ("PriorityClass", "PodDisruptionBudget", "PersistentVolume", "PersistentVolumeClaim",
                "StorageClass", "CSINode")


def validate_object(obj: dict, old: dict | None = None) -> list[FieldError]:
    """The API server's verdict on a create (``old`` is None) or an update of ``obj``.

    Returns [] for kinds without validation here. Expects a defaulted object, as the server
    validates after defaulting and admission. Errors repeating an earlier message are dropped,
    as ``field.ErrorList.ToAggregate`` does for the server's message."""
    kind = obj.get("kind", "")
    entry = VALIDATORS.get(kind) or (_apps_validators().get(kind) if kind in _APPS_KINDS else None) or \
        (_group_validators().get(kind) if kind in _GROUP_KINDS else None)
    if entry is None:
        return []
    create, update = entry
    errs = create(obj) if old is None else update(obj, old)
    # the server's message comes from ErrorList.ToAggregate(), which drops repeated messages
    seen: set[str] = set()
    out = []
    for e in errs:
        text = str(e)
        if text not in seen:
            seen.add(text)
            out.append(e)
    return out
