"""LeastAllocated scoring: mirrors upstream least_allocated_test.go
(TestLeastAllocatedScoringStrategy), hand arithmetic above each case."""

import pytest

from kubesim.scheduler.plugins.noderesources.fit import Fit
from kubesim.scheduler.plugins.noderesources.least_allocated import (least_requested_score,
                                                                     least_resource_scorer)

from ...harness import run_scores
from .scoring_cases import (DEFAULT_RESOURCES, EXTENDED, EXTENDED_RESOURCE_SET, fit_args, node,
                            pod)

R1 = {"cpu": "1000", "memory": "2000"}
R2 = {"cpu": "2000", "memory": "3000"}

CASES = [
    # node1/node2: cpu (4000-0)*100/4000 = 100, memory 100 -> (100+100)/2 = 100
    pytest.param(pod(), [node("node1", "4000", "10000"), node("node2", "4000", "10000")], [],
                 DEFAULT_RESOURCES, [100, 100], id="nothing scheduled, nothing requested"),
    # node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 -> 37
    # node2: cpu (6000-3000)*100/6000 = 50, memory 50 -> 50
    pytest.param(pod(R1, R2), [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
                 [], DEFAULT_RESOURCES, [37, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    # pods without containers request nothing, not even the non-zero defaults -> 100, 100
    pytest.param(pod(), [node("node1", "4000", "10000"), node("node2", "4000", "10000")],
                 [pod(node_name="node1"), pod(node_name="node1"), pod(node_name="node2"),
                  pod(node_name="node2")], DEFAULT_RESOURCES, [100, 100],
                 id="no resources requested, pods scheduled"),
    # node1: cpu (10000-6000)*100/10000 = 40, memory (20000-0)/20000 = 100 -> 70
    # node2: cpu 40, memory (20000-5000)*100/20000 = 75 -> 57
    pytest.param(pod(), [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node2"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [70, 57], id="no resources requested, pods scheduled with resources"),
    # node1: cpu (10000-6000)*100/10000 = 40, memory (20000-5000)*100/20000 = 75 -> 57
    # node2: cpu 40, memory (20000-10000)*100/20000 = 50 -> 45
    pytest.param(pod(R1, R2), [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [57, 45], id="resources requested, pods scheduled with resources"),
    # node2: memory (50000-10000)*100/50000 = 80 -> (40+80)/2 = 60
    pytest.param(pod(R1, R2), [node("node1", "10000", "20000"), node("node2", "10000", "50000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [57, 60],
                 id="resources requested, pods scheduled with resources, differently sized nodes"),
    # cpu 3000+3000 > 4000 -> 0; node1 memory 100 -> 50; node2 memory 50 -> 25
    pytest.param(pod({"cpu": "3000", "memory": "0"}),
                 [node("node1", "4000", "10000"), node("node2", "4000", "10000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [50, 25], id="requested resources exceed node capacity"),
    # no allocatable at all: every resource skipped, weightSum 0 -> 0
    pytest.param(pod(), [node("node1"), node("node2")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [0, 0], id="zero node resources, pods scheduled with resources"),
    # node1: (25*1 + 50*2)/3 = 41; node2: (50*1 + 50*2)/3 = 50
    pytest.param(pod(R1, R2), [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
                 [], [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50],
                 id="different weights on cpu and memory, differently sized nodes"),
    # the extended resource is not requested: bypassed -> (50+50)/2 = 50 on both
    pytest.param(pod(R1, R2), [node("node1", "6000", "10000"),
                               node("node2", "6000", "10000", ext="4")],
                 [], EXTENDED_RESOURCE_SET, [50, 50],
                 id="bypass an extended resource the pod does not request"),
    # node1: ext (4-2)*100/4 = 50 -> (50+50+50)/3 = 50; node2: ext (10-2)*100/10 = 80 -> 60
    pytest.param(pod({"cpu": "3000", "memory": "5000", "ext": "2"}),
                 [node("node1", "6000", "10000", ext="4"), node("node2", "6000", "10000", ext="10")],
                 [], EXTENDED_RESOURCE_SET, [50, 60],
                 id="honor an extended resource the pod requests"),
    # cpu 50, memory 60; the extended resource (weight 2) is not requested -> (50+60)/2 = 55
    pytest.param(pod({"cpu": "3000", "memory": "4000"}),
                 [node("node1", "6000", "10000"), node("node2", "6000", "10000", ext="4")], [],
                 [{"name": EXTENDED, "weight": 2}, {"name": "cpu", "weight": 1},
                  {"name": "memory", "weight": 1}], [55, 55],
                 id="a node without the resource"),
]


@pytest.mark.parametrize("p, nodes, existing, resources, expected", CASES)
def test_least_allocated(p, nodes, existing, resources, expected):
    plugin = Fit(fit_args("LeastAllocated", resources))
    assert run_scores(plugin, p, nodes, existing) == expected


def test_non_zero_defaults_apply_to_containers_without_requests():
    # two existing containers without requests count 100m/200Mi each on node1:
    # cpu (250-300 incoming 100 -> 300 > 250) -> 0, memory (1000-600)*100/1000 = 40 -> 20
    # node2: cpu (250-100)*100/250 = 60, memory (1000-200)*100/1000 = 80 -> 70
    from kubesim.testing.wrappers import make_pod
    incoming = make_pod("p").container().obj()
    existing = [make_pod("a").node("node1").container().obj(),
                make_pod("b").node("node1").container().obj()]
    nodes = [node("node1", "250m", "1000Mi"), node("node2", "250m", "1000Mi")]
    assert run_scores(Fit(fit_args("LeastAllocated", DEFAULT_RESOURCES)), incoming, nodes,
                      existing) == [20, 70]


@pytest.mark.parametrize("requested, capacity, expected", [
    (0, 0, 0), (5, 4, 0), (3000, 4000, 25), (0, 10, 100),
])
def test_least_requested_score(requested, capacity, expected):
    assert least_requested_score(requested, capacity) == expected


def test_scorer_skips_resources_without_allocatable():
    assert least_resource_scorer([1, 1])([3000, 5], [4000, 0]) == 25
