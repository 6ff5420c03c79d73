"""kube-proxy's choice of endpoints (kubesim.network.proxy), after pkg/proxy/topology.go
CategorizeEndpoints and the iptables proxier's REJECT/DROP rules."""

import pytest

from kubesim.network import proxy
from kubesim.network.cluster import Snapshot

from .builders import endpoint, endpoint_slice, pod, service

A = pod("default", "a", "10.244.1.2", node="node01")
B = pod("default", "b", "10.244.2.2", node="node02")
SVC = service("default", "web", "10.96.1.1", [{"name": "http", "port": 80, "targetPort": "web", "protocol": "TCP"}])


def categorize(endpoints, node="node01", local=False, ports=({"name": "http", "port": 8080, "protocol": "TCP"},)):
    snap = Snapshot(pods=[A, B], services=[SVC], slices=[endpoint_slice("default", "web", list(ports), endpoints)])
    backends, rule = proxy.categorize(snap, SVC, SVC["spec"]["ports"][0], node, local)
    return [(b.ip, b.port) for b in backends], rule


@pytest.mark.parametrize("endpoints,node,local,want", [
    pytest.param([endpoint(A), endpoint(B)], "node01", False, ([("10.244.1.2", 8080), ("10.244.2.2", 8080)], ""),
                 id="ready endpoints at the endpoint port of the Service port's name (its resolved targetPort)"),
    pytest.param([endpoint(A, ready=False), endpoint(B)], "node01", False, ([("10.244.2.2", 8080)], ""),
                 id="a not-ready endpoint gets no traffic"),
    pytest.param([endpoint(A, ready=False, serving=True, terminating=True)], "node01", False,
                 ([("10.244.1.2", 8080)], ""), id="with none ready, serving terminating endpoints are used"),
    pytest.param([endpoint(A, ready=False, serving=False)], "node01", False, ([], "reject"),
                 id="no usable endpoint: kube-proxy rejects (connection refused)"),
    pytest.param([], "node01", False, ([], "reject"), id="no endpoints at all: rejected"),
    pytest.param([endpoint(A), endpoint(B)], "node02", True, ([("10.244.2.2", 8080)], ""),
                 id="a Local traffic policy keeps the node's own endpoints"),
    pytest.param([endpoint(A)], "node02", True, ([], "drop"),
                 id="a Local traffic policy with endpoints only elsewhere drops the packet"),
])
def test_categorize(endpoints, node, local, want):
    assert categorize(endpoints, node, local) == want


def test_a_slice_port_of_another_name_is_not_this_service_port():
    assert categorize([endpoint(A)], ports=({"name": "metrics", "port": 9090, "protocol": "TCP"},)) == ([], "reject")


@pytest.mark.parametrize("port,protocol,node_port,found", [
    (80, "TCP", False, True), (80, "UDP", False, False), (81, "TCP", False, False), (30080, "TCP", True, True)])
def test_service_port_by_number_and_protocol(port, protocol, node_port, found):
    svc = service("default", "web", "10.96.1.1", [{"port": 80, "protocol": "TCP", "nodePort": 30080}], type_="NodePort")
    assert (proxy.service_port(svc, port, protocol, node_port) is not None) == found
