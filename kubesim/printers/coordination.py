"""kubectl's table columns and rows for coordination.k8s.io/v1's Lease.

Upstream: pkg/printers/internalversion/printers.go (``leaseColumnDefinitions``: Name, Holder,
Age; ``printLease``: the holder identity, empty when unset).
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, object_meta


def print_lease(lease: dict, ctx: PrintContext) -> list[str]:
    holder = (lease.get("spec") or {}).get("holderIdentity") or ""
    return [object_meta(lease).get("name", ""), holder, age(lease, ctx)]


LEASE_COLUMNS = [Column("Name", format="name"), Column("Holder"), Column("Age")]
