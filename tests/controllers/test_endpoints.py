"""The endpoints and EndpointSlice controllers, one sync at a time.

Cases after upstream's pkg/controller/endpoint/endpoints_controller_test.go
(TestSyncEndpointsItemsPreserveNoSelector, TestSyncEndpointsHeadlessService,
TestSyncEndpointsItemsWithLabels, TestPodToEndpointAddressForService, the
publishNotReadyAddresses and terminating-pod cases) and staging/src/k8s.io/endpointslice's
utils_test.go TestPodToEndpoint (ready/serving/terminating).
"""

import pytest

from kubesim.controllers import endpoints, endpointslice
from kubesim.controllers.base import View


def pod(name, ip="10.244.1.5", ready=True, labels=None, ports=None, node="node01", deleting=False, phase="Running",
        hostname=None, subdomain=None):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": labels or {"app": "web"}},
         "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx", "ports": ports or []}]},
         "status": {"phase": phase, "conditions": [
             {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": "2026-11-22T10:00:05Z"}]}}
    if ip:
        p["status"]["podIP"] = ip
        p["status"]["podIPs"] = [{"ip": ip}]
    if deleting:
        p["metadata"]["deletionTimestamp"] = "2026-11-22T10:01:00Z"
    if hostname:
        p["spec"]["hostname"] = hostname
        p["spec"]["subdomain"] = subdomain
    return p


def service(selector={"app": "web"}, ports=None, publish=False, cluster_ip="10.96.10.10", name="web"):
    spec = {"clusterIP": cluster_ip, "ports": ports if ports is not None else
            [{"port": 80, "protocol": "TCP", "targetPort": 8080}], "type": "ClusterIP"}
    if selector is not None:
        spec["selector"] = selector
    if publish:
        spec["publishNotReadyAddresses"] = True
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default", "uid": "uid-svc",
                         "creationTimestamp": "2026-11-22T10:00:00Z"}, "spec": spec}


def node(name="node01", zone="zone-a"):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "topology.kubernetes.io/zone": zone}}}


def endpoints_of(objs):
    view = View({"Service": [o for o in objs if o["kind"] == "Service"],
                 "Pod": [o for o in objs if o["kind"] == "Pod"], "Node": [node()], "Endpoints": []}, 0.0)
    changes = endpoints.sync(view)
    return [c.obj for c in changes if c.op == "create"]


def _ip(a):
    return a["ip"]


CASES = [
    ("a ready pod is an address on the service's resolved port",
     [service(), pod("a")], [{"addresses": ["10.244.1.5"], "ports": [{"port": 8080, "protocol": "TCP"}]}]),
    ("an unready pod is a not-ready address",
     [service(), pod("a", ready=False)], [{"notReadyAddresses": ["10.244.1.5"],
                                           "ports": [{"port": 8080, "protocol": "TCP"}]}]),
    ("publishNotReadyAddresses makes an unready pod ready",
     [service(publish=True), pod("a", ready=False)], [{"addresses": ["10.244.1.5"],
                                                        "ports": [{"port": 8080, "protocol": "TCP"}]}]),
    ("a pod without an IP is left out", [service(), pod("a", ip="")], []),
    ("a terminating pod is left out", [service(), pod("a", deleting=True)], []),
    ("a terminal pod is left out", [service(), pod("a", phase="Succeeded")], []),
    ("a pod the selector does not match is left out", [service(), pod("a", labels={"app": "db"})], []),
    ("addresses are sorted by IP as text",
     [service(), pod("a", ip="10.244.2.3"), pod("b", ip="10.244.10.1")],
     [{"addresses": ["10.244.10.1", "10.244.2.3"], "ports": [{"port": 8080, "protocol": "TCP"}]}]),
    ("a named target port is resolved per pod, and a pod without it is left out of that port",
     [service(ports=[{"name": "http", "port": 80, "protocol": "TCP", "targetPort": "web"}]),
      pod("a", ports=[{"name": "web", "containerPort": 8080, "protocol": "TCP"}]),
      pod("b", ip="10.244.1.6", ports=[{"name": "web", "containerPort": 9090, "protocol": "TCP"}]),
      pod("c", ip="10.244.1.7")],
     [{"addresses": ["10.244.1.5"], "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]},
      {"addresses": ["10.244.1.6"], "ports": [{"name": "http", "port": 9090, "protocol": "TCP"}]}]),
    ("a headless service without ports lists bare addresses",
     [service(ports=[], cluster_ip="None"), pod("a")], [{"addresses": ["10.244.1.5"]}]),
]


@pytest.mark.parametrize("objs,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_endpoints_subsets(objs, want):
    created = endpoints_of(objs)
    assert len(created) == 1
    got = []
    for ss in created[0].get("subsets") or []:
        g = {k: [a["ip"] for a in ss[k]] for k in ("addresses", "notReadyAddresses") if k in ss}
        if "ports" in ss:
            g["ports"] = ss["ports"]
        got.append(g)
    assert got == want


def test_a_service_without_a_selector_keeps_the_endpoints_its_user_wrote():
    view = View({"Service": [service(selector=None)], "Pod": [pod("a")], "Endpoints": [
        {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web", "namespace": "default"},
         "subsets": [{"addresses": [{"ip": "192.168.1.1"}]}]}]}, 0.0)
    assert endpoints.sync(view) == []
    assert endpointslice.sync(View({"Service": [service(selector=None)], "Pod": [pod("a")]}, 0.0)) == []


def test_the_endpoints_of_a_deleted_service_go():
    ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {
        "name": "web", "namespace": "default", "labels": {endpoints.MANAGED_BY_LABEL: endpoints.MANAGED_BY}}}
    changes = endpoints.sync(View({"Service": [], "Endpoints": [ep]}, 0.0))
    assert [(c.op, c.key) for c in changes] == [("delete", ("Endpoints", "default", "web"))]


def test_the_pods_hostname_is_kept_when_its_subdomain_is_the_service():
    created = endpoints_of([service(cluster_ip="None"), pod("a", hostname="a0", subdomain="web")])
    assert created[0]["subsets"][0]["addresses"][0]["hostname"] == "a0"
    assert created[0]["metadata"]["labels"][endpoints.HEADLESS_LABEL] == ""


SLICE_CASES = [
    ("a ready pod", dict(), {"ready": True, "serving": True, "terminating": False}),
    ("an unready pod", dict(ready=False), {"ready": False, "serving": False, "terminating": False}),
    ("a terminating ready pod is serving but not ready", dict(deleting=True),
     {"ready": False, "serving": True, "terminating": True}),
]


@pytest.mark.parametrize("kw,want", [c[1:] for c in SLICE_CASES], ids=[c[0] for c in SLICE_CASES])
def test_an_endpoint_slice_endpoints_conditions(kw, want):
    view = View({"Service": [service()], "Pod": [pod("a", **kw)], "Node": [node()]}, 0.0)
    (create,) = endpointslice.sync(view)
    ep = create.obj["endpoints"][0]
    assert ep["conditions"] == want
    assert (ep["nodeName"], ep["zone"], ep["targetRef"]["name"]) == ("node01", "zone-a", "a")
    assert create.obj["ports"] == [{"name": "", "port": 8080, "protocol": "TCP"}]
    assert create.obj["metadata"]["generateName"] == "web-"
    assert create.obj["metadata"]["ownerReferences"][0]["uid"] == "uid-svc"


def test_a_service_with_no_endpoints_has_one_placeholder_slice_which_is_reused():
    view = View({"Service": [service()], "Pod": []}, 0.0)
    (create,) = endpointslice.sync(view)
    assert (create.obj["ports"], create.obj["endpoints"]) == (None, None)
    placeholder = dict(create.obj)
    view = View({"Service": [service()], "Pod": [pod("a")], "Node": [node()], "EndpointSlice": [placeholder]}, 0.0)
    (update,) = endpointslice.sync(view)
    assert update.op == "update" and update.obj["metadata"]["name"] == placeholder["metadata"]["name"]
    assert update.obj["endpoints"][0]["addresses"] == ["10.244.1.5"]


def test_ports_are_ordered_by_their_hash_as_a_real_cluster_orders_them():
    # a real v1.35 cluster listed these four ports as zz, http, a, https
    svc = service(ports=[{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080},
                         {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 8443},
                         {"name": "a", "port": 1, "protocol": "UDP", "targetPort": 9000},
                         {"name": "zz", "port": 2, "protocol": "TCP", "targetPort": 7000}])
    (ep,) = endpoints_of([svc, pod("a")])
    assert [p["name"] for p in ep["subsets"][0]["ports"]] == ["zz", "http", "a", "https"]
