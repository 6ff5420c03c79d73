"""PodInfo and NodeInfo resource accounting (after upstream framework/types_test.go and
component-helpers resource helpers_test.go)."""

import pytest

from kubesim.api.resource import EXACT, pod_requests
from kubesim.scheduler.framework.types import NodeInfo, PodInfo, Resource

from kubesim.testing.wrappers import make_node, make_pod

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


def test_changed_places_of_a_one_entry_journal_as_of_a_longer_one():
    # (a cycle's journal names the one node the last pod was assumed on: answered without
    # the set the general case builds)
    from kubesim.scheduler.framework.types import changed_places

    nodes = [NodeInfo(make_node(f"n{i}").obj()) for i in range(4)]
    seen, gens = list(nodes), [ni.generation for ni in nodes]
    where = {id(ni): i for i, ni in enumerate(nodes)}
    other = NodeInfo(make_node("elsewhere").obj())  # (another snapshot's)
    nodes[2].add_pod(PodInfo(make_pod("p").node("n2").obj()))
    replaced = NodeInfo(make_node("n3").obj())
    old3, nodes[3] = nodes[3], replaced  # (seen holds the one replaced)
    old3.add_pod(PodInfo(make_pod("q").node("n3").obj()))

    def general(journal):
        return sorted({i for ni in journal if (i := where.get(id(ni))) is not None
                       and seen[i] is ni and ni.generation != gens[i]})

    for journal in ([nodes[2]], [nodes[1]], [other], [old3], [replaced]):
        assert changed_places(journal, nodes, seen, gens, where) == general(journal)
    assert changed_places([nodes[2]], nodes, seen, gens, where) == [2]
    assert changed_places([nodes[1]], nodes, seen, gens, where) == []
