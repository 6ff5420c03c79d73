"""kubectl's table columns and rows for storage.k8s.io/v1's StorageClass and CSINode.

Upstream: pkg/printers/internalversion/printers.go: ``printStorageClass`` (`` (default)`` after the default class's name,
``storageutil.IsDefaultAnnotation``) and ``printCSINode``.
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, go_bool_cell, object_meta

DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")


def is_default_storage_class(sc: dict) -> bool:
    ann = object_meta(sc).get("annotations") or {}
    return any(ann.get(a) == "true" for a in DEFAULT_CLASS_ANNOTATIONS)


def print_storage_class(sc: dict, ctx: PrintContext) -> list[str]:
    name = object_meta(sc).get("name", "")
    if is_default_storage_class(sc):
        name += " (default)"
    return [name, sc.get("provisioner") or "", sc.get("reclaimPolicy") or "Delete",
            sc.get("volumeBindingMode") or "Immediate", go_bool_cell(sc.get("allowVolumeExpansion")),
            age(sc, ctx)]


STORAGE_CLASS_COLUMNS = [
    Column("Name", format="name"), Column("Provisioner"), Column("ReclaimPolicy"), Column("VolumeBindingMode"),
    Column("AllowVolumeExpansion"), Column("Age"),
]


def print_csinode(node: dict, ctx: PrintContext) -> list[str]:
    drivers = (node.get("spec") or {}).get("drivers") or []
    return [object_meta(node).get("name", ""), str(len(drivers)), age(node, ctx)]


CSINODE_COLUMNS = [Column("Name", format="name"), Column("Drivers"), Column("Age")]
