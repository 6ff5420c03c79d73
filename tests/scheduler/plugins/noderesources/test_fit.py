"""NodeResourcesFit filter: mirrors upstream fit_test.go (TestEnoughRequests and friends) with the
v1.35 rule that a request larger than the node's whole allocatable is UnschedulableAndUnresolvable.

The node of upstream's table: allocatable 10m cpu, 20 bytes memory, 32 pods, 5 example.com/aaa,
20 bytes ephemeral-storage, 5 bytes hugepages-2Mi.
"""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import Resource
from kubesim.scheduler.plugins.noderesources.fit import (Fit, InsufficientResource,
                                                         compute_pod_resource_request,
                                                         fits_request, validate_args)

from kubesim.testing.wrappers import make_node, make_pod
from ...harness import node_info, run_filter

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def node(pods="32"):
    return make_node("n").capacity({EXT_A: "5", HUGE_A: "5"}, cpu="10m", memory="20", pods=pods,
                                   ephemeral_storage="20").obj()


def res(cpu=0, mem=0, eph=0, **scalars):
    r = {"cpu": f"{cpu}m", "memory": str(mem)}
    if eph:
        r["ephemeral-storage"] = str(eph)
    for k, v in scalars.items():
        r[{"a": EXT_A, "b": EXT_B, "k8s": K8S_IO_A, "huge": HUGE_A}[k]] = str(v)
    return r


def pod(*containers, init=(), overhead=None):
    w = make_pod("p")
    for c in containers:
        w.req(c)
    for c in init:
        w.init_req(c)
    if overhead:
        w.overhead(**overhead)
    return w.obj()


def used(*containers):
    w = make_pod("existing").node("n")
    for c in containers:
        w.req(c)
    return [w.obj()]


def status(*reasons, code=Code.Unschedulable):
    return Status(code, *reasons)


CPU, MEM = "Insufficient cpu", "Insufficient memory"
UNRESOLVABLE = Code.UnschedulableAndUnresolvable

CASES = [
    pytest.param(make_pod("p").obj(), used(res(10, 20)), None,
                 id="no resources requested always fits"),
    pytest.param(pod(res(1, 1)), used(res(10, 20)), status(CPU, MEM),
                 id="too many resources fails"),
    pytest.param(pod(res(1, 1), init=[res(3, 1)]), used(res(8, 19)), status(CPU),
                 id="too many resources fails due to init container cpu"),
    pytest.param(pod(res(1, 1), init=[res(3, 1), res(2, 1)]), used(res(8, 19)), status(CPU),
                 id="too many resources fails due to highest init container cpu"),
    pytest.param(pod(res(1, 1), init=[res(1, 3)]), used(res(9, 19)), status(MEM),
                 id="too many resources fails due to init container memory"),
    pytest.param(pod(res(1, 1), init=[res(1, 3), res(1, 2)]), used(res(9, 19)), status(MEM),
                 id="too many resources fails due to highest init container memory"),
    pytest.param(pod(res(1, 1), init=[res(1, 1)]), used(res(9, 19)), None,
                 id="init container fits because it is the max not the sum"),
    pytest.param(pod(res(1, 1), init=[res(1, 1), res(1, 1)]), used(res(9, 19)), None,
                 id="multiple init containers fit because it is the max not the sum"),
    pytest.param(pod(res(1, 1)), used(res(5, 5)), None, id="both resources fit"),
    pytest.param(pod(res(2, 1)), used(res(9, 5)), status(CPU), id="memory fits, cpu does not"),
    pytest.param(pod(res(1, 2)), used(res(5, 19)), status(MEM), id="cpu fits, memory does not"),
    pytest.param(pod(res(5, 1)), used(res(5, 19)), None, id="equal edge case"),
    pytest.param(pod(res(4, 1), init=[res(5, 1)]), used(res(5, 19)), None,
                 id="equal edge case for init container"),
    pytest.param(pod(res(a=1)), used(res()), None, id="extended resource fits"),
    pytest.param(pod(res(), init=[res(a=1)]), used(res()), None,
                 id="extended resource fits for init container"),
    pytest.param(pod(res(1, 1, a=10)), used(res(a=0)),
                 status(f"Insufficient {EXT_A}", code=UNRESOLVABLE),
                 id="extended resource capacity enforced (request beyond allocatable)"),
    pytest.param(pod(res(), init=[res(1, 1, a=10)]), used(res(a=0)),
                 status(f"Insufficient {EXT_A}", code=UNRESOLVABLE),
                 id="extended resource capacity enforced for init container"),
    pytest.param(pod(res(1, 1, a=1)), used(res(a=5)), status(f"Insufficient {EXT_A}"),
                 id="extended resource allocatable enforced"),
    pytest.param(pod(res(1, 1, a=3), res(1, 1, a=3)), used(res(a=2)),
                 status(f"Insufficient {EXT_A}", code=UNRESOLVABLE),
                 id="extended resource allocatable enforced for multiple containers"),
    pytest.param(pod(res(), init=[res(1, 1, a=3), res(1, 1, a=3)]), used(res(a=2)), None,
                 id="extended resource allocatable admits multiple init containers"),
    pytest.param(pod(res(), init=[res(1, 1, a=6), res(1, 1, a=3)]), used(res(a=2)),
                 status(f"Insufficient {EXT_A}", code=UNRESOLVABLE),
                 id="extended resource allocatable enforced for multiple init containers"),
    pytest.param(pod(res(1, 1, b=1)), used(res()),
                 status(f"Insufficient {EXT_B}", code=UNRESOLVABLE),
                 id="extended resource the node does not have"),
    pytest.param(pod(res(1, 1, k8s=10)), used(res()),
                 status(f"Insufficient {K8S_IO_A}", code=UNRESOLVABLE),
                 id="kubernetes.io resources are not extended resources and are checked"),
    pytest.param(pod(res(1, 1, huge=10)), used(res(huge=0)),
                 status(f"Insufficient {HUGE_A}", code=UNRESOLVABLE),
                 id="hugepages capacity enforced"),
    pytest.param(pod(res(1, 1, huge=3), res(1, 1, huge=3)), used(res(huge=2)),
                 status(f"Insufficient {HUGE_A}", code=UNRESOLVABLE),
                 id="hugepages for multiple containers enforced"),
    pytest.param(pod(res(1, 1), overhead={"cpu": "3m", "memory": "13"}), used(res(5, 5)), None,
                 id="resources plus pod overhead fits"),
    pytest.param(pod(res(1, 1), overhead={"cpu": "1m", "memory": "15"}), used(res(5, 5)),
                 status(MEM), id="requests plus overhead does not fit for memory"),
    pytest.param(pod(res(11, 1)), used(res()), status(CPU, code=UNRESOLVABLE),
                 id="a request larger than the whole node is unresolvable"),
    pytest.param(pod(res(3, 1, eph=25)), used(res()),
                 status("Insufficient ephemeral-storage", code=UNRESOLVABLE),
                 id="ephemeral storage beyond allocatable"),
    pytest.param(pod(res(3, 1, eph=10)), used(res(eph=15)),
                 status("Insufficient ephemeral-storage"), id="ephemeral storage used up"),
]


@pytest.mark.parametrize("p, existing, expected", CASES)
def test_filter(p, existing, expected):
    assert run_filter(Fit(), p, node(), existing) == expected


def test_too_many_pods_even_without_requests():
    existing = [make_pod(f"e{i}").node("n").obj() for i in range(32)]
    got = run_filter(Fit(), make_pod("p").obj(), node(), existing)
    assert got == Status(Code.Unschedulable, "Too many pods")


def test_too_many_pods_and_cpu_are_both_reported():
    existing = [make_pod(f"e{i}").node("n").req(cpu="1m").obj() for i in range(10)]
    got = run_filter(Fit(), pod(res(1)), node(pods="10"), existing)
    assert got == Status(Code.Unschedulable, "Too many pods", CPU)


@pytest.mark.parametrize("args, p, expected", [
    pytest.param({"ignoredResources": [EXT_B]}, pod(res(1, 1, b=1)), None,
                 id="an ignored extended resource is skipped"),
    pytest.param({"ignoredResourceGroups": ["example.com"]}, pod(res(1, 1, b=1)), None,
                 id="an ignored resource group is skipped"),
    pytest.param({"ignoredResources": [K8S_IO_A]}, pod(res(1, 1, k8s=1)),
                 status(f"Insufficient {K8S_IO_A}", code=UNRESOLVABLE),
                 id="only extended resources can be ignored"),
])
def test_ignored_resources(args, p, expected):
    assert run_filter(Fit(args), p, node(), used(res())) == expected


def test_sidecar_requests_accumulate_for_later_init_containers():
    # sidecar 2m runs alongside init 3m (5m) and alongside the app 1m (3m) -> max 5m
    p = make_pod("p").init_req({"cpu": "2m"}, restart_policy="Always").init_req(
        {"cpu": "3m"}).req(cpu="1m").obj()
    assert compute_pod_resource_request(p).milli_cpu == 5


def test_pod_level_requests_override_container_requests():
    p = make_pod("p").req(cpu="1", memory="1Gi").pod_requests(cpu="2").obj()
    r = compute_pod_resource_request(p)
    assert (r.milli_cpu, r.memory) == (2000, 1024 ** 3)


def test_fits_request_reports_requested_used_and_capacity():
    ni = node_info(node(), used(res(8, 19)))
    got = fits_request(compute_pod_resource_request(pod(res(3, 1))), ni)
    assert got == [InsufficientResource("cpu", CPU, 3, 8, 10, False)]
    assert fits_request(Resource(), ni) == []


@pytest.mark.parametrize("args, error", [
    pytest.param({"scoringStrategy": {"type": "Fancy"}},
                 'scoringStrategy.type: Unsupported value: "Fancy": supported values: '
                 '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
                 id="unknown strategy"),
    pytest.param({"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "memory", "weight": -1}]}},
        "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not "
        "in valid range (0, 100]", id="negative resource weight"),
    pytest.param({"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 101}]}},
        "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in "
        "valid range (0, 100]", id="resource weight above 100"),
    pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": [
        {"name": "cpu", "weight": 1}], "requestedToCapacityRatio": {"shape": [
            {"utilization": 50, "score": 1}, {"utilization": 40, "score": 2}]}}},
        "scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 40: "
        "utilization values must be sorted in increasing order", id="unsorted shape"),
])
def test_args_validation(args, error):
    assert error in validate_args(args)
    with pytest.raises(ValueError):
        Fit(args)


# -- queueing hints (fit_test.go Test_isSchedulableAfterPodChange with
#    InPlacePodVerticalScaling enabled, as in v1.35, and Test_isSchedulableAfterNodeChange) ----
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _p(name, node=None, uid=None, level=False, **req):
    w = make_pod(name).uid(uid or name)
    w.pod_requests(**req) if level else w.req(**req)
    if node:
        w.node(node)
    return w.obj()


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(_p("pod1", cpu="1"), _p("pod2", node="fake", cpu="1"), None, QUEUE,
                 id="queue-on-other-pod-deleted"),
    pytest.param(make_pod().obj(), make_pod().obj(), None, QUEUE_SKIP,
                 id="skip-queue-on-unscheduled-pod-deleted"),
    pytest.param(_p("pod1", uid="uid0", cpu="1"), _p("pod2", uid="uid1", cpu="2"),
                 _p("pod2", uid="uid1", cpu="1"), QUEUE_SKIP,
                 id="skip-queue-on-other-unscheduled-pod"),
    pytest.param(_p("pod1", cpu="1"), _p("pod2", node="fake", memory="2"),
                 _p("pod2", node="fake", memory="1"), QUEUE_SKIP,
                 id="skip-queue-on-other-pod-unrelated-resource-scaled-down"),
    pytest.param(_p("pod1", level=True, cpu="1"), _p("pod2", node="fake", level=True, memory="2"),
                 _p("pod2", node="fake", level=True, memory="1"), QUEUE_SKIP,
                 id="skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down"),
    pytest.param(_p("pod1", cpu="1"), _p("pod2", node="fake", cpu="2"),
                 _p("pod2", node="fake", cpu="1"), QUEUE,
                 id="queue-on-other-pod-some-resource-scale-down"),
    pytest.param(_p("pod1", level=True, cpu="1"), _p("pod2", node="fake", level=True, cpu="2"),
                 _p("pod2", node="fake", level=True, cpu="1"), QUEUE,
                 id="queue-on-other-pod-some-pod-level-resource-scale-down"),
    pytest.param(_p("pod1", cpu="1"), _p("pod1", cpu="2"), _p("pod1", cpu="1"), QUEUE,
                 id="queue-on-target-pod-some-resource-scale-down"),
    pytest.param(_p("pod1", level=True, cpu="1"), _p("pod1", level=True, cpu="2"),
                 _p("pod1", level=True, cpu="1"), QUEUE,
                 id="queue-on-target-pod-some-pod-level-resource-scale-down"),
    # kubesim: a deleted pod only nominated (preemption) held room on its node too
    pytest.param(_p("pod1", cpu="1"), make_pod("pod2").nominated("fake").obj(), None, QUEUE,
                 id="queue-on-nominated-pod-deleted"),
])
def test_is_schedulable_after_pod_event(pod, old, new, want):
    assert Fit().is_schedulable_after_pod_event(pod, old, new) == want


_POD_MEM2_A1 = make_pod().req({"memory": "2", EXT_A: "1"}).obj()


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(make_pod().req(memory="2").obj(), None, make_node().capacity(memory="1").obj(), QUEUE_SKIP,
                 id="skip-queue-on-node-add-without-sufficient-resources"),
    pytest.param(make_pod().req({EXT_A: "1"}).obj(), None, make_node().capacity({EXT_B: "1"}).obj(),
                 QUEUE_SKIP, id="skip-queue-on-node-add-without-required-resource-type"),
    pytest.param(_POD_MEM2_A1, None, make_node().capacity({"memory": "4", EXT_A: "2"}).obj(), QUEUE,
                 id="queue-on-node-add-with-sufficient-resources"),
    pytest.param(_POD_MEM2_A1, make_node().capacity({"memory": "2", EXT_A: "2"}).obj(),
                 make_node().capacity({"memory": "2", EXT_A: "1", EXT_B: "2"}).obj(), QUEUE_SKIP,
                 id="skip-queue-on-node-unrelated-changes"),
    pytest.param(_POD_MEM2_A1, make_node().capacity({"memory": "2", EXT_A: "1"}).obj(),
                 make_node().capacity({"memory": "2", EXT_A: "2"}).obj(), QUEUE,
                 id="queue-on-pod-requested-resources-increase"),
    pytest.param(_POD_MEM2_A1, make_node().capacity({"memory": "4", EXT_A: "2"}).obj(),
                 make_node().capacity({"memory": "1", EXT_A: "2"}).obj(), QUEUE_SKIP,
                 id="skip-queue-on-node-changes-from-suitable-to-unsuitable"),
    pytest.param(_POD_MEM2_A1, make_node().capacity({"memory": "1", EXT_A: "2"}).obj(),
                 make_node().capacity({"memory": "4", EXT_A: "2"}).obj(), QUEUE,
                 id="queue-on-node-changes-from-unsuitable-to-suitable"),
])
def test_is_schedulable_after_node_change(pod, old, new, want):
    assert Fit().is_schedulable_after_node_change(pod, old, new) == want


def test_simple_fit_status_is_status_for_fits_request_without_scalar_resources():
    """The Filter's fast path for cpu/memory/ephemeral-storage requests gives the same status
    as the InsufficientResource records, on random nodes and requests."""
    import random

    from kubesim.scheduler.framework.types import NodeInfo, PodInfo
    from kubesim.scheduler.plugins.noderesources.fit import simple_fit_status, status_for

    rng = random.Random(5)
    for i in range(400):
        res = {"cpu": str(rng.choice([0, 1, 2])), "memory": f"{rng.choice([0, 1, 2])}Gi",
               "pods": str(rng.choice([0, 1, 2, 3]))}
        if rng.random() < 0.5:
            res["ephemeral-storage"] = f"{rng.choice([0, 1, 2])}Gi"
        w = make_node("n").capacity(res)
        existing = [PodInfo(make_pod(f"e{j}").node("n").req(
            cpu=f"{rng.choice([0, 500, 1000])}m", memory=f"{rng.choice([0, 512])}Mi").obj())
            for j in range(rng.randint(0, 2))]
        ni = NodeInfo(w.obj(), existing)
        req = Resource(rng.choice([0, 100, 1500, 3000]), rng.choice([0, 1 << 29, 3 << 30]),
                       rng.choice([0, 0, 1 << 30, 3 << 30]))
        assert simple_fit_status(req, ni) == status_for(fits_request(req, ni)), i
