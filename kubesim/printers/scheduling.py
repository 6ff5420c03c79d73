"""kubectl's table columns and rows for scheduling.k8s.io/v1's PriorityClass.

Upstream: pkg/printers/internalversion/printers.go: ``printPriorityClass``.
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, go_bool_cell, object_meta


def print_priority_class(pc: dict, ctx: PrintContext) -> list[str]:
    value = pc.get("value")
    value = int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    return [object_meta(pc).get("name", ""), str(value), go_bool_cell(pc.get("globalDefault")), age(pc, ctx),
            str(pc.get("preemptionPolicy") or "")]


PRIORITY_CLASS_COLUMNS = [
    Column("Name", format="name"), Column("Value"), Column("Global-Default"), Column("Age"),
    Column("PreemptionPolicy"),
]
