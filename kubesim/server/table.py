"""Server-side printing: a ``meta.k8s.io/v1 Table`` of objects, from kubesim's own printers
(``kubesim.printers.tables``), so the real kubectl's ``get`` and ``get -o wide`` print what
``kubesim get`` prints. Every row carries all columns (the wide ones have priority 1; kubectl
drops them unless ``-o wide``), and the object as ``includeObject`` asks (``Metadata``, the
default: a PartialObjectMetadata; ``Object``; ``None``).

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (transformResponseObject,
asTable: PartialObjectMetadata rows), staging/src/k8s.io/apiserver/pkg/registry/rest/table.go and
pkg/printers/tablegenerator.go (column definitions: name, type, format, description, priority).
"""

from __future__ import annotations

from kubesim.printers.tables import PrintContext, table_of

TABLE_ACCEPT = "as=Table"


def wants_table(accept: str) -> bool:
    """The Accept header asks for a v1 (or v1beta1) Table before any other form."""
    first = accept.split(",")[0].replace(" ", "")
    return TABLE_ACCEPT in first and "g=meta.k8s.io" in first


def table_api_version(accept: str) -> str:
    first = accept.split(",")[0].replace(" ", "")
    return "meta.k8s.io/v1beta1" if "v=v1beta1" in first else "meta.k8s.io/v1"


def _row_object(obj: dict, include: str) -> dict | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}


def table(kind: str, objs: list[dict], now: float, resource_version: str, include: str = "Metadata",
          api_version: str = "meta.k8s.io/v1", list_meta: dict | None = None) -> dict:
    tdef = table_of(kind)
    ctx = PrintContext(now=now)
    columns = [{"name": c.name, "type": "string", "format": c.format, "description": "", "priority": c.priority}
               for c in tdef.columns]
    rows = []
    for obj in objs:
        row = {"cells": list(tdef.row(obj, ctx))}
        shown = _row_object(obj, include)
        if shown is not None:
            row["object"] = shown
        rows.append(row)
    metadata = {"resourceVersion": resource_version, **(list_meta or {})}
    return {"kind": "Table", "apiVersion": api_version, "metadata": metadata, "columnDefinitions": columns,
            "rows": rows}
