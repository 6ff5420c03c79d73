"""Which StorageClass is the default.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/storage/util/helpers.go``
(``IsDefaultAnnotation``: either the GA or the beta annotation set to ``"true"``) and
``pkg/volume/util/storageclass.go`` (``GetDefaultClass``: of several defaults, the newest, then
by name). The DefaultStorageClass admission plugin gives a claim without a class this one.
"""

from __future__ import annotations

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"


def is_default_class(sc: dict) -> bool:
    """storageutil.IsDefaultAnnotation: either annotation set to "true"."""
    ann = (sc.get("metadata") or {}).get("annotations") or {}
    return ann.get(DEFAULT_CLASS_ANNOTATION) == "true" or ann.get(BETA_DEFAULT_CLASS_ANNOTATION) == "true"


def default_class(classes: list[dict]) -> dict | None:
    """GetDefaultClass: of the classes marked default, the newest (then by name)."""
    defaults = [c for c in classes if is_default_class(c)]
    if not defaults:
        return None
    defaults.sort(key=lambda c: (c["metadata"].get("name", "")))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return defaults[0]
