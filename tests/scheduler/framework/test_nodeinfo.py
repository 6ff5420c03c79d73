"""NodeInfo, PodInfo resource accounting, Snapshot ordering and image states, Status, CycleState
(after upstream framework/types_test.go and component-helpers resource helpers_test.go)."""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState, StateNotFound
from kubesim.api.resource import EXACT, pod_requests
from kubesim.scheduler.framework.nodeinfo import (NodeInfo, PodInfo, Resource, Snapshot,
                                                  is_scalar_resource_name, zone_interleaved)
from kubesim.scheduler.framework.status import (Code, Status, as_status, code_of, is_rejected,
                                                is_success)

from ..builders import make_node, make_pod

GI = 1024 ** 3
MI = 1024 ** 2


@pytest.mark.parametrize("pod, cpu, mem, non0_cpu, non0_mem", [
    pytest.param(make_pod("p").obj(), 0, 0, 0, 0, id="no containers request nothing"),
    pytest.param(make_pod("p").container().obj(), 0, 0, 100, 200 * MI,
                 id="a container without requests counts the non-zero defaults"),
    pytest.param(make_pod("p").req(cpu="0").obj(), 0, 0, 0, 200 * MI,
                 id="an explicit zero cpu request stays zero"),
    pytest.param(make_pod("p").req(cpu="1", memory="1Gi").req(cpu="500m").obj(), 1500, GI, 1500,
                 GI + 200 * MI, id="containers sum, defaults fill missing memory"),
    pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2").obj(), 2000, 0, 2000, 200 * MI,
                 id="an init container larger than the sum wins"),
    pytest.param(make_pod("p").init_req({"cpu": "500m"}, restart_policy="Always")
                 .init_req(cpu="1").req(cpu="1").obj(), 1500, 0, 1500, 400 * MI,
                 id="a sidecar runs alongside later init containers and the app"),
    pytest.param(make_pod("p").req(cpu="1").overhead(cpu="250m", memory="120Mi").obj(),
                 1250, 120 * MI, 1250, 320 * MI, id="overhead is added"),
    pytest.param(make_pod("p").req(cpu="1", memory="1Gi").pod_requests(cpu="3").obj(),
                 3000, GI, 3000, GI, id="pod-level requests replace the container sum"),
    pytest.param(make_pod("p").container().pod_requests(memory="1Gi").obj(), 0, GI, 100, GI,
                 id="with pod-level resources only missing cpu gets the default"),
])
def test_pod_info_requests(pod, cpu, mem, non0_cpu, non0_mem):
    pi = PodInfo(pod)
    assert (pi.requests.milli_cpu, pi.requests.memory, pi.non0_cpu, pi.non0_mem) == (
        cpu, mem, non0_cpu, non0_mem)


def test_resized_pods_count_the_larger_of_spec_and_status():
    pod = make_pod("p").node("n").req(cpu="1").obj()
    pod["status"]["containerStatuses"] = [
        {"name": "c0", "allocatedResources": {"cpu": "2"}, "resources": {"requests": {"cpu": "1500m"}}}]
    assert PodInfo(pod).requests.milli_cpu == 2000


def test_quantities_round_up():
    assert pod_requests(make_pod("p").req(cpu="0.0001").obj(), amounts=EXACT)["cpu"] > 0
    assert PodInfo(make_pod("p").req(cpu="0.0001", memory="0.5").obj()).requests.milli_cpu == 1
    assert PodInfo(make_pod("p").req(memory="0.5").obj()).requests.memory == 1


def test_node_info_add_and_remove_pods():
    node = make_node("n").capacity({"example.com/gpu": "2"}, cpu="4", memory="8Gi").obj()
    ni = NodeInfo(node)
    assert ni.allocatable == Resource(4000, 8 * GI, 0, 110, {"example.com/gpu": 2})
    a = PodInfo(make_pod("a").node("n").req({"example.com/gpu": "1"}, cpu="1").host_port(80).obj())
    b = PodInfo(make_pod("b").node("n").container().obj())
    ni.add_pod(a)
    ni.add_pod(b)
    assert ni.requested.milli_cpu == 1000 and ni.requested.scalar == {"example.com/gpu": 1}
    assert (ni.non_zero_requested.milli_cpu, ni.non_zero_requested.memory) == (1100, 400 * MI)
    assert ni.used_ports.check_conflict("", "TCP", 80)
    assert ni.remove_pod(a.key) is a
    assert ni.requested.milli_cpu == 0 and not ni.used_ports.check_conflict("", "TCP", 80)
    assert ni.remove_pod("missing") is None
    clone = ni.clone()
    clone.add_pod(a)
    assert len(ni.pods) == 1 and len(clone.pods) == 2


@pytest.mark.parametrize("name, scalar", [
    ("cpu", False), ("memory", False), ("pods", False), ("ephemeral-storage", False),
    ("example.com/gpu", True), ("hugepages-2Mi", True), ("kubernetes.io/something", True),
    ("attachable-volumes-csi-x", True), ("requests.example.com/x", False),
])
def test_scalar_resource_names(name, scalar):
    assert is_scalar_resource_name(name) is scalar


def test_snapshot_interleaves_zones_like_the_node_tree():
    nodes = [make_node(n).zone(z, "r").obj() for n, z in
             [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"), ("b2", "b")]]
    assert [n["metadata"]["name"] for n in zone_interleaved(nodes)] == [
        "a1", "b1", "c1", "a2", "b2", "a3"]


def test_snapshot_skips_terminal_and_unknown_node_pods():
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    pods = [make_pod("run").node("n1").req(cpu="100m").obj(),
            make_pod("done").node("n1").req(cpu="100m").phase("Succeeded").obj(),
            make_pod("ghost").node("gone").req(cpu="100m").obj(),
            make_pod("pending").req(cpu="100m").obj()]
    snap = Snapshot.build(nodes, pods)
    assert [p.name for p in snap.get("n1").pods] == ["run"]


def test_image_states_count_nodes_and_keep_the_first_size():
    nodes = [make_node("n1").image(100, "img:1", "img:latest").obj(),
             make_node("n2").image(200, "img:1").obj(),
             make_node("n3").obj()]
    snap = Snapshot.build(nodes)
    st = snap.get("n2").image_states["img:1"]
    assert (st.size, st.num_nodes) == (100, 2)
    assert snap.get("n1").image_states["img:latest"].num_nodes == 1
    assert snap.get("n3").image_states == {}


def test_status_basics():
    s = Status(Code.Unschedulable, "a", "b")
    assert s.message() == "a, b" and s.is_rejected() and not s.is_success()
    assert Status(Code.Error, "x", err="boom").all_reasons() == ["boom", "x"]
    assert as_status(None) is None and as_status("e").code == Code.Error
    assert code_of(None) == Code.Success and is_success(None) and not is_rejected(None)
    assert Status(Code.Pending).is_rejected()
    assert Status(Code.Skip).as_error() is None
    assert [c.name for c in Code] == ["Success", "Error", "Unschedulable",
                                      "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"]


def test_cycle_state_read_write_clone():
    class Counter:
        def __init__(self, n):
            self.n = n

        def clone(self):
            return Counter(self.n)

    st = CycleState()
    st.write("k", Counter(1))
    c = st.clone()
    c.read("k").n = 2
    assert st.read("k").n == 1 and "k" in st
    with pytest.raises(StateNotFound):
        st.read("missing")
