"""kubectl's table columns and rows for policy/v1's PodDisruptionBudget.

Upstream: pkg/printers/internalversion/printers.go: ``printPodDisruptionBudget`` (``N/A`` for an unset bound).
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, object_meta, status_int


def int_or_string(v: object) -> str:
    """``(*intstr.IntOrString).String()``."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def print_pdb(pdb: dict, ctx: PrintContext) -> list[str]:
    spec = pdb.get("spec") or {}
    min_a = spec.get("minAvailable")
    max_u = spec.get("maxUnavailable")
    return [object_meta(pdb).get("name", ""), "N/A" if min_a is None else int_or_string(min_a),
            "N/A" if max_u is None else int_or_string(max_u), str(status_int(pdb, "disruptionsAllowed")),
            age(pdb, ctx)]


PDB_COLUMNS = [
    Column("Name", format="name"), Column("Min Available"), Column("Max Unavailable"),
    Column("Allowed Disruptions"), Column("Age"),
]
