"""NodePorts: mirrors upstream node_ports_test.go (TestNodePorts) and HostPortInfo tests."""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import HostPortInfo, host_ports
from kubesim.scheduler.plugins.nodeports import ERR_REASON, NodePorts, fits_ports

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter

CONFLICT = Status(Code.Unschedulable, ERR_REASON)


def pod_with(*ports, node=None):
    """ports: "proto/ip/port" strings."""
    w = make_pod("p").container()
    for spec in ports:
        proto, ip, port = spec.split("/")
        w.host_port(int(port), proto, ip)
    if node:
        w.node(node)
    return w.obj()


CASES = [
    pytest.param(pod_with(), [], "skipped", id="a pod without host ports skips the filter"),
    pytest.param(pod_with("UDP/127.0.0.1/8080"), [pod_with("UDP/127.0.0.1/9090", node="n")], None,
                 id="another port is free"),
    pytest.param(pod_with("UDP/127.0.0.1/8080"), [pod_with("UDP/127.0.0.1/8080", node="n")],
                 CONFLICT, id="same UDP port conflicts"),
    pytest.param(pod_with("TCP/127.0.0.1/8080"), [pod_with("TCP/127.0.0.1/8080", node="n")],
                 CONFLICT, id="same TCP port conflicts"),
    pytest.param(pod_with("TCP/127.0.0.1/8080"), [pod_with("TCP/127.0.0.2/8080", node="n")], None,
                 id="a different host IP does not conflict"),
    pytest.param(pod_with("UDP/127.0.0.1/8080"), [pod_with("TCP/127.0.0.1/8080", node="n")], None,
                 id="a different protocol does not conflict"),
    pytest.param(pod_with("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
                 [pod_with("UDP/127.0.0.1/8080", node="n")], CONFLICT,
                 id="the second UDP port conflicts"),
    pytest.param(pod_with("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                 [pod_with("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081", node="n")], CONFLICT,
                 id="the first TCP port conflicts"),
    pytest.param(pod_with("TCP/0.0.0.0/8001"), [pod_with("TCP/127.0.0.1/8001", node="n")],
                 CONFLICT, id="0.0.0.0 in the pod conflicts with any IP"),
    pytest.param(pod_with("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
                 [pod_with("TCP/127.0.0.1/8001", node="n")], CONFLICT,
                 id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
    pytest.param(pod_with("TCP/127.0.0.1/8001"), [pod_with("TCP/0.0.0.0/8001", node="n")],
                 CONFLICT, id="0.0.0.0 on the node conflicts with a specific IP"),
    pytest.param(pod_with("UDP/127.0.0.1/8001"), [pod_with("TCP/0.0.0.0/8001", node="n")], None,
                 id="0.0.0.0 with another protocol does not conflict"),
    pytest.param(pod_with("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
                 [pod_with("TCP/127.0.0.1/8001", node="n")], CONFLICT,
                 id="UDP and TCP on 0.0.0.0 conflict through the TCP one"),
    pytest.param(pod_with("/127.0.0.1/8080"), [pod_with("TCP/127.0.0.1/8080", node="n")],
                 CONFLICT, id="an empty protocol means TCP"),
    pytest.param(pod_with("TCP//8080"), [pod_with("TCP/10.1.1.1/8080", node="n")], CONFLICT,
                 id="an empty host IP means 0.0.0.0"),
]


@pytest.mark.parametrize("pod, existing, expected", CASES)
def test_filter(pod, existing, expected):
    node = make_node("n").capacity(cpu="4").obj()
    assert run_filter(NodePorts(), pod, node, existing) == expected


def test_sidecar_ports_count_but_plain_init_container_ports_do_not():
    pod = make_pod("p").container().obj()
    pod["spec"]["initContainers"] = [
        {"name": "init", "ports": [{"containerPort": 1, "hostPort": 1000}]},
        {"name": "sidecar", "restartPolicy": "Always",
         "ports": [{"containerPort": 2, "hostPort": 2000, "protocol": "UDP"}]},
    ]
    assert host_ports(pod) == [("", "UDP", 2000)]


def test_container_ports_without_host_port_are_ignored():
    pod = make_pod("p").container(ports=[{"containerPort": 80}]).obj()
    assert host_ports(pod) == []


def test_fits_ports_pure():
    used = HostPortInfo()
    used.add("", "", 80)
    assert not fits_ports([("10.0.0.1", "TCP", 80)], used)
    assert fits_ports([("10.0.0.1", "UDP", 80)], used)
    used.remove("0.0.0.0", "TCP", 80)
    assert used == {}


# -- queueing hints (node_ports_test.go Test_isSchedulableAfterPodDeleted) ----------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


@pytest.mark.parametrize("deleted, want", [
    pytest.param(make_pod().obj(), QUEUE_SKIP, id="skip-queue-on-unscheduled"),
    pytest.param(make_pod().node("fake-node").obj(), QUEUE_SKIP, id="skip-queue-on-non-hostport"),
    pytest.param(make_pod().node("fake-node").host_port(8081).obj(), QUEUE_SKIP,
                 id="skip-queue-on-unrelated-hostport"),
    pytest.param(make_pod().node("fake-node").host_port(8080).obj(), QUEUE,
                 id="queue-on-released-hostport"),
    # kubesim: a pod nominated by preemption holds its ports too
    pytest.param(make_pod().nominated("fake-node").host_port(8080).obj(), QUEUE,
                 id="queue-on-released-hostport-of-a-nominated-pod"),
])
def test_is_schedulable_after_pod_deleted(deleted, want):
    pod = make_pod().host_port(8080).obj()
    assert NodePorts().is_schedulable_after_pod_deleted(pod, deleted, None) == want
