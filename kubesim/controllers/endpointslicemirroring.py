"""The EndpointSlice mirroring controller: EndpointSlices for the Endpoints a user writes for a
Service without a selector, so that what reads slices (kube-proxy, ``kubectl describe svc``)
sees them.

Upstream: pkg/controller/endpointslicemirroring (endpointslicemirroring_controller.go
``syncEndpoints``: only Endpoints whose Service exists without a selector and that are not
labelled ``endpointslice.kubernetes.io/skip-mirror: "true"``; utils.go ``newEndpointSlice``:
the Endpoints' labels and annotations (but the last-applied configuration and the trigger time)
plus ``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
endpointslicemirroring-controller.k8s.io``, owned by the Endpoints, named
``<endpoints>-<5 random chars>``; ``addressToEndpoint``: ``ready`` from the address being a
ready or a not-ready one; reconciler.go: one slice per subset's ports). Mirrored slices of
Endpoints no longer mirrored are deleted.

kubesim simplifications: IPv4 addresses only; no 1000-endpoint limit.
"""

from __future__ import annotations

from kubesim.controllers.base import Change, View, deepcopy

CONTROLLER_NAME = "endpointslicemirroring-controller.k8s.io"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror"
_DROPPED_ANNOTATIONS = ("endpoints.kubernetes.io/last-change-trigger-time",
                        "kubectl.kubernetes.io/last-applied-configuration")


def _md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def should_mirror(ep: dict, view: View) -> bool:
    md = _md(ep)
    if (md.get("labels") or {}).get(SKIP_MIRROR_LABEL) == "true":
        return False
    svc = view.get("Service", md.get("namespace", ""), md.get("name", ""))
    return svc is not None and (svc.get("spec") or {}).get("selector") is None


def _endpoint(addr: dict, ready: bool) -> dict:
    ep: dict = {"addresses": [addr.get("ip", "")], "conditions": {"ready": ready}}
    if addr.get("hostname"):
        ep["hostname"] = addr["hostname"]
    if addr.get("nodeName") is not None:
        ep["nodeName"] = addr["nodeName"]
    if addr.get("targetRef") is not None:
        ep["targetRef"] = addr["targetRef"]
    return ep


def desired_slices(ep: dict) -> list[tuple[list[dict], list[dict]]]:
    """(ports, endpoints) per distinct set of ports of the Endpoints' subsets."""
    groups: dict = {}
    for ss in ep.get("subsets") or []:
        ports = [{"name": p.get("name") or "", "port": int(p.get("port") or 0), "protocol": p.get("protocol") or "TCP",
                  **({"appProtocol": p["appProtocol"]} if p.get("appProtocol") is not None else {})}
                 for p in ss.get("ports") or []]
        key = tuple(tuple(sorted(p.items())) for p in ports)
        eps = groups.setdefault(key, (ports, []))[1]
        eps.extend(_endpoint(a, True) for a in ss.get("addresses") or [] if ":" not in a.get("ip", ""))
        eps.extend(_endpoint(a, False) for a in ss.get("notReadyAddresses") or [] if ":" not in a.get("ip", ""))
    return [g for g in groups.values() if g[1]]


def _meta(ep: dict) -> tuple[dict, dict]:
    md = _md(ep)
    labels = dict(md.get("labels") or {})
    labels[SERVICE_NAME_LABEL] = md.get("name", "")
    labels[MANAGED_BY_LABEL] = CONTROLLER_NAME
    annotations = {k: v for k, v in (md.get("annotations") or {}).items() if k not in _DROPPED_ANNOTATIONS}
    return labels, annotations


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    mirrored: dict[tuple[str, str], list[dict]] = {}
    for s in view.list("EndpointSlice"):
        labels = _md(s).get("labels") or {}
        if labels.get(MANAGED_BY_LABEL) == CONTROLLER_NAME:
            mirrored.setdefault((_md(s).get("namespace", ""), labels.get(SERVICE_NAME_LABEL, "")), []).append(s)
    for ep in view.list("Endpoints"):
        md = _md(ep)
        key = (md.get("namespace", ""), md.get("name", ""))
        if not should_mirror(ep, view):
            continue
        changes.extend(sync_endpoints(view, ep, mirrored.pop(key, [])))
    for slices in mirrored.values():
        changes.extend(Change("delete", s, propagation="Background") for s in slices)
    return changes


def sync_endpoints(view: View, ep: dict, existing: list[dict]) -> list[Change]:
    md = _md(ep)
    ns, name = md.get("namespace", ""), md.get("name", "")
    labels, annotations = _meta(ep)
    changes: list[Change] = []
    mine = sorted(existing, key=lambda s: _md(s).get("name", ""))
    to_create = []
    for ports, eps in desired_slices(ep):
        match = next((s for s in mine if (s.get("ports") or []) == ports), None)
        if match is None:
            to_create.append((ports, eps))
            continue
        mine.remove(match)
        if match.get("endpoints") != eps or (_md(match).get("labels") or {}) != labels or \
                (_md(match).get("annotations") or {}) != annotations:
            changes.append(Change("update", _with(match, ports, eps, labels, annotations)))
    while to_create and mine:
        ports, eps = to_create.pop()
        changes.append(Change("update", _with(mine.pop(0), ports, eps, labels, annotations)))
    changes.extend(Change("delete", s, propagation="Background") for s in mine)
    taken: set[str] = set()
    for ports, eps in to_create:
        meta: dict = {}
        if annotations:
            meta["annotations"] = annotations
        meta.update({"generateName": f"{name}-", "labels": labels,
                     "name": view.generate_name(f"{name}-", "EndpointSlice", ns, taken), "namespace": ns,
                     "ownerReferences": [{"apiVersion": "v1", "blockOwnerDeletion": True, "controller": True,
                                          "kind": "Endpoints", "name": name, "uid": md.get("uid", "")}]})
        changes.append(Change("create", {"addressType": "IPv4", "apiVersion": "discovery.k8s.io/v1", "endpoints": eps,
                                         "kind": "EndpointSlice", "metadata": meta, "ports": ports}))
    return changes


def _with(slice_: dict, ports, eps, labels: dict, annotations: dict) -> dict:
    new = deepcopy(slice_)
    new["metadata"]["labels"] = labels
    if annotations:
        new["metadata"]["annotations"] = annotations
    else:
        new["metadata"].pop("annotations", None)
    new["ports"] = ports
    new["endpoints"] = eps
    return new
