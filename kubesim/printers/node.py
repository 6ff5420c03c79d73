"""kubectl's table columns and rows for node.k8s.io/v1's RuntimeClass.

Upstream: pkg/printers/internalversion/printers.go: ``printRuntimeClass`` (NAME, HANDLER, AGE).
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, object_meta


def print_runtime_class(rc: dict, ctx: PrintContext) -> list[str]:
    return [object_meta(rc).get("name", ""), str(rc.get("handler") or ""), age(rc, ctx)]


RUNTIME_CLASS_COLUMNS = [Column("Name", format="name"), Column("Handler"), Column("Age")]
