"""NodeResourcesBalancedAllocation: mirrors upstream balanced_allocation_test.go
(TestNodeResourcesBalancedAllocation) with v1.35's std = |f1 - f2| / 2 and the best-effort Skip."""

import pytest

from kubesim.scheduler.plugins.noderesources.balanced_allocation import (
    BalancedAllocation, balanced_resource_score, validate_args)

from ...harness import run_scores
from .scoring_cases import EXTENDED, node, pod

CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})

CASES = [
    pytest.param(pod(), [node("machine1", "4", "10000"), node("machine2", "4", "10000")], [],
                 "skipped", id="a pod requesting nothing is skipped (best effort)"),
    # machine1: cpu 3/4 = 0.75, memory 5000/10000 = 0.5 -> std 0.125 -> int(87.5) = 87
    # machine2: cpu 3/6 = 0.5, memory 0.5 -> std 0 -> 100
    pytest.param(pod(*CPU_AND_MEMORY), [node("machine1", "4", "10000"), node("machine2", "6", "10000")],
                 [], [87, 100], id="nothing scheduled, resources requested, differently sized machines"),
    # machine1: cpu 6/10 = 0.6, memory 5000/20000 = 0.25 -> std 0.175 -> 82
    # machine2: cpu 0.6, memory 10000/20000 = 0.5 -> std 0.05 -> 95
    pytest.param(pod(*CPU_AND_MEMORY), [node("machine1", "10", "20000"), node("machine2", "10", "20000")],
                 [pod(*CPU_ONLY, node_name="machine1"), pod(*CPU_AND_MEMORY, node_name="machine2")],
                 [82, 95], id="resources requested, pods scheduled with resources"),
    # machine2: memory 10000/50000 = 0.2 -> std 0.2 -> 80
    pytest.param(pod(*CPU_AND_MEMORY), [node("machine1", "10", "20000"), node("machine2", "10", "50000")],
                 [pod(*CPU_ONLY, node_name="machine1"), pod(*CPU_AND_MEMORY, node_name="machine2")],
                 [82, 80], id="resources requested, pods scheduled with resources, differently sized"),
    # machine1: cpu 6/4 capped to 1, memory 0 -> std 0.5 -> 50
    # machine2: cpu capped 1, memory 5000/10000 = 0.5 -> std 0.25 -> 75
    pytest.param(pod(*CPU_ONLY), [node("machine1", "4", "10000"), node("machine2", "4", "10000")],
                 [pod(*CPU_ONLY, node_name="machine1"), pod(*CPU_AND_MEMORY, node_name="machine2")],
                 [50, 75], id="requested resources exceed node capacity"),
    # no allocatable: no fractions, std 0 -> 100
    pytest.param(pod(*CPU_AND_MEMORY), [node("machine1"), node("machine2")], [], [100, 100],
                 id="zero node resources"),
]


@pytest.mark.parametrize("p, nodes, existing, expected", CASES)
def test_score(p, nodes, existing, expected):
    assert run_scores(BalancedAllocation(), p, nodes, existing) == expected


def test_three_resources_use_the_standard_deviation():
    # fractions cpu 3/6 = 0.5, memory 5000/10000 = 0.5, ext 2/10 = 0.2; mean 0.4
    # variance (0.01 + 0.01 + 0.04) / 3 = 0.02 -> std 0.1414 -> int(85.86) = 85
    args = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                          {"name": EXTENDED, "weight": 1}]}
    p = pod({"cpu": "3", "memory": "5000", "ext": "2"})
    assert run_scores(BalancedAllocation(args), p, [node("n", "6", "10000", ext="10")]) == [85]


def test_requested_not_non_zero_is_used():
    # existing containers without requests count 0 here (NonZeroRequested is not used):
    # cpu 1/4 = 0.25, memory 2000/10000 = 0.2 -> std 0.025 -> 97
    from kubesim.testing.wrappers import make_pod
    existing = [make_pod("e").node("n").container().obj()]
    assert run_scores(BalancedAllocation(), pod({"cpu": "1", "memory": "2000"}),
                      [node("n", "4", "10000")], existing) == [97]


@pytest.mark.parametrize("requested, allocatable, expected", [
    ([3, 5], [4, 10], 87), ([0, 0], [0, 0], 100), ([1, 0], [1, 10], 50),
])
def test_balanced_resource_score(requested, allocatable, expected):
    assert balanced_resource_score(requested, allocatable) == expected


def test_args_weights_must_be_one():
    assert validate_args({"resources": [{"name": "cpu", "weight": 2}]}) == [
        "resources[0].weight: Invalid value: 2: must be 1"]
    with pytest.raises(ValueError):
        BalancedAllocation({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]})
