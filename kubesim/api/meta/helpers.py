"""Reading an object's metadata: names, owner references, its selector, its age.

Upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go
(``GetControllerOf``, ``NewControllerRef``, ``IsControlledBy``), ``helpers.go``
(``LabelSelectorAsSelector``) and ``types.go`` (the ``orphan`` and ``foregroundDeletion``
finalizers the garbage collector honours).

Objects are the JSON-shaped dicts as stored; nothing here changes them. Controllers, the API
server and kubectl all read metadata through these.
"""

from __future__ import annotations

from datetime import UTC

from kubesim.api import selectors

# metav1.FinalizerOrphanDependents and FinalizerDeleteDependents
FINALIZER_ORPHAN_DEPENDENTS = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"


def meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def name_of(obj: dict) -> str:
    return meta(obj).get("name", "")


def uid_of(obj: dict) -> str:
    return meta(obj).get("uid", "")


def labels_of(obj: dict) -> dict:
    return meta(obj).get("labels") or {}


def creation_time(obj: dict) -> float:
    """metadata.creationTimestamp as epoch seconds (0 when unset: Go's zero time sorts first).
    RFC 3339 as ``kubesim.clock.parse_time`` reads it; api/ imports nothing of the clock."""
    ts = meta(obj).get("creationTimestamp")
    if not ts:
        return 0.0
    from datetime import datetime

    s = ts.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    dt = datetime.fromisoformat(s)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def controller_ref(obj: dict) -> dict | None:
    """metav1.GetControllerOf."""
    for ref in meta(obj).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def new_controller_ref(owner: dict) -> dict:
    """metav1.NewControllerRef: controller and blockOwnerDeletion both true."""
    return {"apiVersion": owner.get("apiVersion", ""), "kind": owner.get("kind", ""), "name": name_of(owner),
            "uid": uid_of(owner), "controller": True, "blockOwnerDeletion": True}


def is_controlled_by(obj: dict, owner: dict) -> bool:
    """metav1.IsControlledBy."""
    ref = controller_ref(obj)
    return ref is not None and ref.get("uid") == uid_of(owner)


def selector_of(obj: dict) -> selectors.LabelSelector:
    """metav1.LabelSelectorAsSelector of spec.selector (an invalid one selects nothing)."""
    try:
        return selectors.from_label_selector((obj.get("spec") or {}).get("selector"))
    except ValueError:
        return selectors.LabelSelector.nothing()
