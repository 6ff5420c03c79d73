"""kubectl's table columns and rows for EndpointSlices (discovery.k8s.io).

Upstream: pkg/printers/internalversion/printers.go ``printEndpointSlice``
(``formatDiscoveryPorts``, ``formatDiscoveryEndpoints``, ``listWithMoreString``: ``<unset>``
for none).
"""

from __future__ import annotations

from kubesim.printers.tables import Column, PrintContext, age, object_meta

UNSET = "<unset>"


def _list_with_more(shown: list[str], more: bool, count: int, limit: int) -> str:
    ret = ",".join(shown)
    if more:
        return f"{ret} + {count - limit} more..."
    return ret or UNSET


def format_discovery_ports(ports: list) -> str:
    shown: list[str] = []
    limit, more, count = 3, False, 0
    for p in ports or []:
        if len(shown) < limit:
            if p.get("port") is not None:
                shown.append(str(int(p["port"])))
            elif p.get("name") is not None:
                shown.append(p["name"])
            else:
                shown.append("*")
        elif len(shown) == limit:
            more = True
        count += 1
    return _list_with_more(shown, more, count, limit)


def format_discovery_endpoints(endpoints: list) -> str:
    shown: list[str] = []
    limit, more, count = 3, False, 0
    for ep in endpoints or []:
        for a in ep.get("addresses") or []:
            if len(shown) < limit:
                shown.append(a)
            elif len(shown) == limit:
                more = True
            count += 1
    return _list_with_more(shown, more, count, limit)


def print_endpoint_slice(eps: dict, ctx: PrintContext) -> list[str]:
    return [object_meta(eps).get("name", ""), eps.get("addressType") or "", format_discovery_ports(eps.get("ports")),
            format_discovery_endpoints(eps.get("endpoints")), age(eps, ctx)]


ENDPOINT_SLICE_COLUMNS = [Column("Name", format="name"), Column("AddressType"), Column("Ports"), Column("Endpoints"),
                          Column("Age")]
