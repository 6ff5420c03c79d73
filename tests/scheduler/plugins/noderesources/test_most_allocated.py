"""MostAllocated scoring: mirrors upstream most_allocated_test.go
(TestMostAllocatedScoringStrategy), hand arithmetic above each case."""

import pytest

from kubesim.scheduler.plugins.noderesources.fit import Fit
from kubesim.scheduler.plugins.noderesources.most_allocated import most_requested_score

from kubesim.testing.wrappers import make_pod
from ...harness import run_scores
from .scoring_cases import (DEFAULT_RESOURCES, EXTENDED, EXTENDED_RESOURCE_SET, fit_args, node,
                            pod)

R1 = {"cpu": "1000", "memory": "2000"}
R2 = {"cpu": "2000", "memory": "3000"}

CASES = [
    # nothing used: 0*100/capacity = 0 on both resources and nodes
    pytest.param(pod(), [node("node1", "4000", "10000"), node("node2", "4000", "10000")], [],
                 DEFAULT_RESOURCES, [0, 0], id="nothing scheduled, nothing requested"),
    # node1: cpu 3000*100/4000 = 75, memory 5000*100/10000 = 50 -> 62
    # node2: cpu 3000*100/6000 = 50, memory 50 -> 50
    pytest.param(pod(R1, R2), [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
                 [], DEFAULT_RESOURCES, [62, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    # node1: cpu 6000*100/10000 = 60, memory 0 -> 30; node2: cpu 60, memory 5000*100/20000 = 25 -> 42
    pytest.param(pod(), [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node2"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [30, 42], id="no resources requested, pods scheduled with resources"),
    # node1: cpu 60, memory 5000*100/20000 = 25 -> 42; node2: cpu 60, memory 10000*100/20000 = 50 -> 55
    pytest.param(pod(R1, R2), [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 DEFAULT_RESOURCES, [42, 55], id="resources requested, pods scheduled with resources"),
    # node1: cpu 5000/5000 = 100, memory 9000*100/10000 = 90 -> 95
    # node2: cpu 5000*100/10000 = 50, memory 9000/9000 = 100 -> 75
    pytest.param(pod({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
                 [node("node1", "5000", "10000"), node("node2", "10000", "9000")], [],
                 DEFAULT_RESOURCES, [95, 75], id="resources requested equal node capacity"),
    # node1: (75*1 + 50*2)/3 = 58; node2: (50*1 + 50*2)/3 = 50
    pytest.param(pod(R1, R2), [node("node1", "4000", "10000"), node("node2", "6000", "10000")],
                 [], [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [58, 50],
                 id="different weights on cpu and memory"),
    # both nodes 50 on cpu and memory; the extended resource is not requested -> 50, 50
    pytest.param(pod(R1, R2), [node("node1", "6000", "10000"),
                               node("node2", "6000", "10000", ext="4")],
                 [], EXTENDED_RESOURCE_SET, [50, 50],
                 id="bypass an extended resource the pod does not request"),
    # node1: ext 2*100/4 = 50 -> 50; node2: ext 2*100/10 = 20 -> (50+50+20)/3 = 40
    pytest.param(pod({"cpu": "3000", "memory": "5000", "ext": "2"}),
                 [node("node1", "6000", "10000", ext="4"), node("node2", "6000", "10000", ext="10")],
                 [], EXTENDED_RESOURCE_SET, [50, 40],
                 id="honor an extended resource the pod requests"),
    # cpu 3000*100/6000 = 50, memory 4000*100/10000 = 40 -> 45
    pytest.param(pod({"cpu": "3000", "memory": "4000"}),
                 [node("node1", "6000", "10000"), node("node2", "6000", "10000", ext="4")], [],
                 [{"name": EXTENDED, "weight": 2}, {"name": "cpu", "weight": 1},
                  {"name": "memory", "weight": 1}], [45, 45],
                 id="a node without the resource"),
]


@pytest.mark.parametrize("p, nodes, existing, resources, expected", CASES)
def test_most_allocated(p, nodes, existing, resources, expected):
    plugin = Fit(fit_args("MostAllocated", resources))
    assert run_scores(plugin, p, nodes, existing) == expected


def test_non_zero_request_counts_and_caps_at_capacity():
    # node1: cpu 3 x 100m = 300m > 250m -> capped 100; memory 3 x 200Mi = 600/1000 -> 60 -> 80
    # node2: cpu 100/250 -> 40; memory 200/1000 -> 20 -> 30
    incoming = make_pod("p").container().obj()
    existing = [make_pod("a").node("node1").container().obj(),
                make_pod("b").node("node1").container().obj()]
    nodes = [node("node1", "250m", "1000Mi"), node("node2", "250m", "1000Mi")]
    assert run_scores(Fit(fit_args("MostAllocated", DEFAULT_RESOURCES)), incoming, nodes,
                      existing) == [80, 30]


@pytest.mark.parametrize("requested, capacity, expected", [(0, 0, 0), (5, 4, 100), (3, 4, 75)])
def test_most_requested_score(requested, capacity, expected):
    assert most_requested_score(requested, capacity) == expected
