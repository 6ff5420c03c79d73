"""The endpoints controller: one Endpoints object per Service with a selector, listing the
pods the selector matches.

Upstream: pkg/controller/endpoint/endpoints_controller.go (``syncService``,
``podToEndpointAddressForService``, ``addEndpointSubset``), pkg/api/v1/endpoints/util.go
(``RepackSubsets``, ``SortSubsets``: addresses by IP then UID, ports and subsets by the
fnv-128a hash of their spew dump, ``kubesim.controllers.hashing``), pkg/api/v1/pod/util.go
(``FindPort``: a named targetPort resolved in each pod's containers) and
staging/src/k8s.io/endpointslice/util (``ShouldPodBeInEndpoints``, the
``TriggerTimeTracker`` behind ``endpoints.kubernetes.io/last-change-trigger-time``).

``sync(view)`` looks at every Service: one without a selector is left alone (its Endpoints are
the user's, as the ``kubernetes`` Service's are the API server's); the Endpoints of a Service
that is gone are deleted. A pod counts once it has an IP, is not terminal and (unless the
Service publishes not-ready addresses) not terminating: ready ones under ``addresses``, the
others under ``notReadyAddresses``. A service port whose named targetPort a pod does not
declare leaves that pod out of that port.

kubesim simplifications: the trigger time is the latest of the Service's creation and the
selected pods' Ready transitions (upstream: the earliest of those that changed since the
controller's last sync, which is the same whenever one thing changes at a time).
"""

from __future__ import annotations

from kubesim.api import selectors
from kubesim.controllers.base import Change, View, deepcopy, is_pod_ready, pod_condition
from kubesim.controllers.hashing import hash_object_128

COMPONENT = "endpoint-controller"
MANAGED_BY_LABEL = "endpoints.kubernetes.io/managed-by"
MANAGED_BY = "endpoint-controller"
HEADLESS_LABEL = "service.kubernetes.io/headless"
TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"


def _md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def service_selects(svc: dict, view: View) -> list[dict]:
    """The pods of the service's namespace its selector matches (labels.SelectorFromSet)."""
    sel = selectors.selector_from_set((svc.get("spec") or {}).get("selector"))
    return view.selected("Pod", _md(svc).get("namespace", ""), sel)


def is_pod_terminal(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded")


def pod_ip(pod: dict) -> str:
    st = pod.get("status") or {}
    ips = st.get("podIPs") or []
    return (ips[0].get("ip") if ips else "") or st.get("podIP") or ""


def should_pod_be_in_endpoints(pod: dict, include_terminating: bool) -> bool:
    """ShouldPodBeInEndpoints."""
    if not pod_ip(pod):
        return False
    if not include_terminating and _md(pod).get("deletionTimestamp"):
        return False
    return not is_pod_terminal(pod)


def find_port(pod: dict, service_port: dict) -> int | None:
    """podutil.FindPort: a numeric targetPort as it is; a named one looked up in the pod's
    containers (name and protocol); None when the pod has no such port."""
    tp = service_port.get("targetPort")
    if isinstance(tp, str):
        proto = service_port.get("protocol") or "TCP"
        for c in (pod.get("spec") or {}).get("containers") or []:
            for p in c.get("ports") or []:
                if p.get("name") == tp and (p.get("protocol") or "TCP") == proto:
                    return int(p.get("containerPort") or 0)
        return None
    return int(tp or 0)


def trigger_time(svc: dict, pods: list[dict]) -> str:
    times = [_md(svc).get("creationTimestamp") or ""]
    for p in pods:
        c = pod_condition(p, "Ready")
        if c is not None and c.get("lastTransitionTime"):
            times.append(c["lastTransitionTime"])
    return max(times)


def endpoint_address(pod: dict, svc: dict) -> dict:
    """podToEndpointAddressForService (with the pod's hostname when its subdomain is the service)."""
    md, spec = _md(pod), pod.get("spec") or {}
    addr: dict = {"ip": pod_ip(pod)}
    if spec.get("hostname") and spec.get("subdomain") == _md(svc).get("name") and \
            _md(svc).get("namespace") == md.get("namespace"):
        addr["hostname"] = spec["hostname"]
    if spec.get("nodeName"):
        addr["nodeName"] = spec["nodeName"]
    addr["targetRef"] = {"kind": "Pod", "name": md.get("name", ""), "namespace": md.get("namespace", ""),
                         "uid": md.get("uid", "")}
    return addr


def _addr_key(a: dict):
    return (a.get("ip", "").encode(), (a.get("targetRef") or {}).get("uid", ""))


def desired_subsets(svc: dict, pods: list[dict]) -> list[dict]:
    """The service's subsets: addresses grouped by the ports they serve (RepackSubsets)."""
    spec = svc.get("spec") or {}
    tolerate = bool(spec.get("publishNotReadyAddresses"))
    ports = spec.get("ports") or []
    # (ready, address) per port; the port key None for a headless service without ports
    by_port: dict = {}
    order: list = []
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, tolerate):
            continue
        addr = endpoint_address(pod, svc)
        ready = tolerate or is_pod_ready(pod)
        keys = []
        if not ports and spec.get("clusterIP") == "None":
            keys.append(None)
        for sp in ports:
            num = find_port(pod, sp)
            if num is None:
                continue
            epp = {}
            if sp.get("name"):
                epp["name"] = sp["name"]
            epp["port"] = num
            epp["protocol"] = sp.get("protocol") or "TCP"
            if sp.get("appProtocol") is not None:
                epp["appProtocol"] = sp["appProtocol"]
            keys.append(tuple(sorted(epp.items())))
        for k in keys:
            if k not in by_port:
                by_port[k] = {}
                order.append(k)
            prev = by_port[k].get(_addr_key(addr))
            if prev is None or prev[0]:
                by_port[k][_addr_key(addr)] = (ready, addr)
    # ports with the same addresses share a subset
    groups: dict = {}
    group_order: list = []
    for k in order:
        sig = tuple(sorted((key, r) for key, (r, _a) in by_port[k].items()))
        if sig not in groups:
            groups[sig] = []
            group_order.append(sig)
        groups[sig].append(k)
    subsets = []
    for sig in group_order:
        keys = groups[sig]
        addrs = by_port[keys[0]]
        ready = sorted((a for r, a in addrs.values() if r), key=_addr_key)
        not_ready = sorted((a for r, a in addrs.values() if not r), key=_addr_key)
        ss: dict = {}
        if ready:
            ss["addresses"] = ready
        if not_ready:
            ss["notReadyAddresses"] = not_ready
        port_list = [dict(k) for k in keys if k is not None]
        if port_list:
            ss["ports"] = sorted((_ordered_port(p) for p in port_list),
                                 key=lambda p: hash_object_128(p, "v1.EndpointPort"))
        subsets.append(ss)
    # SortSubsets: the ports of a subset, then the subsets, by the hash of their spew dump
    return sorted(subsets, key=lambda ss: hash_object_128(ss, "v1.EndpointSubset"))


def _ordered_port(p: dict) -> dict:
    out = {}
    for f in ("name", "port", "protocol", "appProtocol"):
        if f in p:
            out[f] = p[f]
    return out


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    services = {(_md(s).get("namespace", ""), _md(s).get("name", "")): s for s in view.list("Service")}
    for svc in services.values():
        if (svc.get("spec") or {}).get("selector") is None:
            continue
        changes.extend(sync_service(view, svc))
    # the Endpoints of a deleted service go: those of a Service deleted since the last sync
    # (``view.deleted_services``, (namespace, name)) whoever wrote them, and any left over
    # that this controller manages (checkLeftoverEndpoints)
    deleted = getattr(view, "deleted_services", set())
    for ep in view.list("Endpoints"):
        md = _md(ep)
        key = (md.get("namespace", ""), md.get("name", ""))
        if key in deleted and key not in services:
            changes.append(Change("delete", ep, propagation="Background"))
            continue
        if (md.get("labels") or {}).get(MANAGED_BY_LABEL) != MANAGED_BY:
            continue
        if (md.get("namespace", ""), md.get("name", "")) not in services or \
                (services[(md.get("namespace", ""), md.get("name", ""))].get("spec") or {}).get("selector") is None:
            changes.append(Change("delete", ep, propagation="Background"))
    return changes


def sync_service(view: View, svc: dict) -> list[Change]:
    md = _md(svc)
    ns, name = md.get("namespace", ""), md.get("name", "")
    pods = service_selects(svc, view)
    subsets = desired_subsets(svc, pods)
    labels = dict(md.get("labels") or {})
    labels[MANAGED_BY_LABEL] = MANAGED_BY
    if (svc.get("spec") or {}).get("clusterIP") == "None":
        labels[HEADLESS_LABEL] = ""
    else:
        labels.pop(HEADLESS_LABEL, None)
    current = view.get("Endpoints", ns, name)
    if current is not None:
        cur_labels = _md(current).get("labels") or {}
        if (current.get("subsets") or []) == subsets and cur_labels == labels:
            return []
        new = deepcopy(current)
        new["metadata"]["labels"] = labels
        new["metadata"].setdefault("annotations", {})[TRIGGER_TIME_ANNOTATION] = trigger_time(svc, pods)
        if subsets:
            new["subsets"] = subsets
        else:
            new.pop("subsets", None)
        return [Change("update", new)]
    obj: dict = {"apiVersion": "v1", "kind": "Endpoints",
                 "metadata": {"annotations": {TRIGGER_TIME_ANNOTATION: trigger_time(svc, pods)},
                              "labels": labels, "name": name, "namespace": ns}}
    if subsets:
        obj["subsets"] = subsets
    return [Change("create", obj)]
