"""The EndpointSlice controller: the EndpointSlices (discovery.k8s.io/v1) of every Service with
a selector, one endpoint per pod the selector matches.

Upstream: pkg/controller/endpointslice/endpointslice_controller.go (``syncService``: no
slices for a Service without a selector or of type ExternalName) and the reconciler of
staging/src/k8s.io/endpointslice (reconciler.go ``reconcileByAddressType`` and
``finalize``; utils.go ``podToEndpoint``, ``newEndpointSlice``, ``getEndpointPorts``):

- an endpoint is a pod that has an IP and is not terminal (a terminating pod stays, with
  ``terminating: true``); ``ready`` and ``serving`` follow the pod's Ready condition (both true
  with ``publishNotReadyAddresses``), and a terminating pod is never ``ready`` unless the
  service publishes not-ready addresses; ``nodeName``, the node's
  ``topology.kubernetes.io/zone`` as ``zone``, the pod as ``targetRef``, and the pod's
  hostname for a headless service that is its subdomain;
- pods whose named target ports resolve to the same numbers share a slice; a service with no
  endpoints keeps one placeholder slice without ports or endpoints;
- a slice is named ``<service>-<5 random chars>`` (generateName), labelled with the service's
  labels plus ``kubernetes.io/service-name`` and
  ``endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io``, and owned by
  the Service (the garbage collector deletes it with the Service; kubesim's controller does
  so itself). A slice the reconciler would delete is reused for one it would create.

kubesim simplifications: no 100-endpoint limit per slice, endpoints in IP order, the trigger
time as ``kubesim.controllers.endpoints`` computes it.
"""

from __future__ import annotations

from kubesim.api.nodes import ZONE_LABEL
from kubesim.controllers.base import Change, View, deepcopy, is_pod_ready
from kubesim.controllers.endpoints import (
    HEADLESS_LABEL,
    TRIGGER_TIME_ANNOTATION,
    find_port,
    pod_ip,
    service_selects,
    should_pod_be_in_endpoints,
    trigger_time,
)

CONTROLLER_NAME = "endpointslice-controller.k8s.io"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"


def _md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def pod_to_endpoint(pod: dict, svc: dict, node: dict | None) -> dict:
    """podToEndpoint."""
    md, spec, sspec = _md(pod), pod.get("spec") or {}, svc.get("spec") or {}
    publish = bool(sspec.get("publishNotReadyAddresses"))
    ready = publish or is_pod_ready(pod)
    serving = ready
    terminating = bool(md.get("deletionTimestamp"))
    if terminating and not publish:
        ready = False
    ep: dict = {"addresses": [pod_ip(pod)],
                "conditions": {"ready": ready, "serving": serving, "terminating": terminating}}
    if sspec.get("clusterIP") == "None" and spec.get("hostname") and spec.get("subdomain") == _md(svc).get("name"):
        ep["hostname"] = spec["hostname"]
    if spec.get("nodeName"):
        ep["nodeName"] = spec["nodeName"]
    ep["targetRef"] = {"kind": "Pod", "name": md.get("name", ""), "namespace": md.get("namespace", ""),
                       "uid": md.get("uid", "")}
    zone = ((node or {}).get("metadata") or {}).get("labels", {}).get(ZONE_LABEL) if node else None
    if zone is not None:
        ep["zone"] = zone
    return ep


def endpoint_ports(svc: dict, pod: dict) -> list[dict]:
    """getEndpointPorts: the service's ports with each targetPort resolved for this pod."""
    out = []
    for sp in (svc.get("spec") or {}).get("ports") or []:
        num = find_port(pod, sp)
        if num is None:
            continue
        p: dict = {"name": sp.get("name") or "", "port": num, "protocol": sp.get("protocol") or "TCP"}
        if sp.get("appProtocol") is not None:
            p["appProtocol"] = sp["appProtocol"]
        out.append(p)
    return out


def _ports_key(ports: list[dict] | None) -> tuple:
    return tuple(tuple(sorted(p.items())) for p in ports or [])


def desired_slices(view: View, svc: dict, pods: list[dict]) -> list[tuple[list[dict] | None, list[dict] | None]]:
    """(ports, endpoints) of each slice the service should have: one per port mapping, or the
    placeholder (no ports, no endpoints)."""
    groups: dict[tuple, tuple[list[dict], list[dict]]] = {}
    order: list[tuple] = []
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, True):
            continue
        ports = endpoint_ports(svc, pod)
        key = _ports_key(ports)
        if key not in groups:
            groups[key] = (ports, [])
            order.append(key)
        node = view.get("Node", "", (pod.get("spec") or {}).get("nodeName") or "")
        groups[key][1].append(pod_to_endpoint(pod, svc, node))
    if not groups:
        return [(None, None)]  # the placeholder: ``ports: null``, ``endpoints: null``
    out = []
    for k in order:
        ports, eps = groups[k]
        eps.sort(key=lambda e: (e["addresses"][0].encode(), e["targetRef"]["uid"]))
        out.append((ports, eps))
    return out


def _labels(svc: dict) -> dict:
    labels = dict(_md(svc).get("labels") or {})
    labels[MANAGED_BY_LABEL] = CONTROLLER_NAME
    labels[SERVICE_NAME_LABEL] = _md(svc).get("name", "")
    if (svc.get("spec") or {}).get("clusterIP") == "None":
        labels[HEADLESS_LABEL] = ""
    else:
        labels.pop(HEADLESS_LABEL, None)
    return labels


def _owned_by(slice_: dict, svc: dict) -> bool:
    return any(r.get("kind") == "Service" and r.get("uid") == _md(svc).get("uid")
               for r in _md(slice_).get("ownerReferences") or [])


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    services = {(_md(s).get("namespace", ""), _md(s).get("name", "")): s for s in view.list("Service")}
    managed: dict[tuple[str, str], list[dict]] = {}
    for s in view.list("EndpointSlice"):
        labels = _md(s).get("labels") or {}
        if labels.get(MANAGED_BY_LABEL) != CONTROLLER_NAME:
            continue
        managed.setdefault((_md(s).get("namespace", ""), labels.get(SERVICE_NAME_LABEL, "")), []).append(s)
    for key, svc in services.items():
        spec = svc.get("spec") or {}
        if spec.get("selector") is None or spec.get("type") == "ExternalName":
            continue
        changes.extend(sync_service(view, svc, managed.pop(key, [])))
    for slices in managed.values():  # the garbage collector's: their Service is gone
        for s in slices:
            changes.append(Change("delete", s, propagation="Background"))
    return changes


def _with(slice_: dict, ports, endpoints, labels: dict, trigger: str) -> dict:
    new = deepcopy(slice_)
    new["metadata"]["labels"] = labels
    new["metadata"].setdefault("annotations", {})[TRIGGER_TIME_ANNOTATION] = trigger
    new["endpoints"] = endpoints
    new["ports"] = ports
    return new


def sync_service(view: View, svc: dict, existing: list[dict]) -> list[Change]:
    md = _md(svc)
    ns, name = md.get("namespace", ""), md.get("name", "")
    pods = service_selects(svc, view)
    desired = desired_slices(view, svc, pods)
    labels = _labels(svc)
    trigger = trigger_time(svc, pods)
    mine = sorted((s for s in existing if _owned_by(s, svc)), key=lambda s: _md(s).get("name", ""))
    stale = [s for s in existing if not _owned_by(s, svc)]
    changes: list[Change] = []
    to_create: list[tuple] = []
    for ports, eps in desired:
        match = next((s for s in mine if _ports_key(s.get("ports")) == _ports_key(ports)
                      and (s.get("ports") is None) == (ports is None)), None)
        if match is None:
            to_create.append((ports, eps))
            continue
        mine.remove(match)
        if match.get("endpoints") != eps or (_md(match).get("labels") or {}) != labels:
            changes.append(Change("update", _with(match, ports, eps, labels, trigger)))
    # finalize: a slice that would be deleted is reused for one that would be created
    while to_create and mine:
        ports, eps = to_create.pop()
        changes.append(Change("update", _with(mine.pop(0), ports, eps, labels, trigger)))
    for s in mine + stale:
        changes.append(Change("delete", s, propagation="Background"))
    taken: set[str] = set()
    for ports, eps in to_create:
        obj: dict = {"addressType": "IPv4", "apiVersion": "discovery.k8s.io/v1", "endpoints": eps,
                     "kind": "EndpointSlice",
                     "metadata": {"annotations": {TRIGGER_TIME_ANNOTATION: trigger},
                                  "generateName": f"{name}-", "labels": labels,
                                  "name": view.generate_name(f"{name}-", "EndpointSlice", ns, taken),
                                  "namespace": ns,
                                  "ownerReferences": [{"apiVersion": "v1", "blockOwnerDeletion": True,
                                                       "controller": True, "kind": "Service", "name": name,
                                                       "uid": md.get("uid", "")}]}}
        obj["ports"] = ports
        changes.append(Change("create", obj))
    return changes
