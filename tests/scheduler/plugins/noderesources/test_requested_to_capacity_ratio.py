"""RequestedToCapacityRatio scoring: mirrors upstream requested_to_capacity_ratio_test.go and
helper/shape_score_test.go."""

import pytest

from kubesim.scheduler.plugins.helper import build_broken_linear_function
from kubesim.scheduler.plugins.noderesources.fit import Fit
from kubesim.scheduler.plugins.noderesources.requested_to_capacity_ratio import (
    go_round, requested_to_capacity_ratio_scorer, scaled_shape)

from ...harness import run_scores
from .scoring_cases import DEFAULT_RESOURCES, EXTENDED, fit_args, node, pod

LEAST_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
MOST_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]

CASES = [
    # utilization 0 on both resources -> shape score 10 * 10 = 100 -> 100
    pytest.param(pod(), [node("node1", "4000", "10000"), node("node2", "4000", "10000")], [],
                 [100, 100], id="nothing scheduled, nothing requested"),
    # node1: cpu 75% -> 100 - 75 = 25, memory 50% -> 50 -> round(37.5) = 38
    # node2: cpu 50% -> 50, memory 50% -> 50 -> 50
    pytest.param(pod({"cpu": "3000", "memory": "5000"}),
                 [node("node1", "4000", "10000"), node("node2", "6000", "10000")], [],
                 [38, 50], id="nothing scheduled, resources requested, differently sized nodes"),
    # node1: cpu 60% -> 40, memory 0% -> 100 -> 70; node2: cpu 40, memory 25% -> 75 -> round(57.5) = 58
    pytest.param(pod(), [node("node1", "10000", "20000"), node("node2", "10000", "20000")],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "0"}, node_name="node2"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
                 [70, 58], id="no resources requested, pods scheduled with resources"),
]


@pytest.mark.parametrize("p, nodes, existing, expected", CASES)
def test_least_shaped(p, nodes, existing, expected):
    plugin = Fit(fit_args("RequestedToCapacityRatio", DEFAULT_RESOURCES, LEAST_SHAPE))
    assert run_scores(plugin, p, nodes, existing) == expected


def test_bin_packing_with_an_extended_resource():
    # resources: ext weight 3, cpu weight 5 (memory not scored)
    # node1 (ext 4, 1 used + 2 requested = 75% -> 75; cpu 2/4 = 50% -> 50):
    #   round((75*3 + 50*5) / 8) = round(59.375) = 59
    # node2 (ext 8, 0 used + 2 requested = 25% -> 25; cpu 1/4 = 25% -> 25): 25
    resources = [{"name": EXTENDED, "weight": 3}, {"name": "cpu", "weight": 5}]
    plugin = Fit(fit_args("RequestedToCapacityRatio", resources, MOST_SHAPE))
    existing = [pod({"cpu": "1", "ext": "1"}, node_name="node1")]
    got = run_scores(plugin, pod({"cpu": "1", "ext": "2"}),
                     [node("node1", "4", "10000", ext="4"), node("node2", "4", "10000", ext="8")],
                     existing)
    assert got == [59, 25]


def test_zero_scores_do_not_count_in_the_weighted_average():
    # most shape: cpu 0% -> 0 (ignored), memory 50% -> 50 -> 50 (not 25)
    scorer = requested_to_capacity_ratio_scorer([1, 1], scaled_shape(MOST_SHAPE))
    assert scorer([0, 50], [100, 100]) == 50


@pytest.mark.parametrize("p, expected", [
    (0, 1), (10, 1), (15, 2), (30, 5), (50, 4), (70, 2), (71, 2),
])
def test_broken_linear_function(p, expected):
    # between (30, 5) and (70, 2) at 50: 5 + (-3 * 20) / 40 = 5 + trunc(-1.5) = 4 (Go division)
    f = build_broken_linear_function([(10, 1), (30, 5), (70, 2)])
    assert f(p) == expected


def test_go_round_is_half_away_from_zero():
    assert (go_round(37.5), go_round(57.5), go_round(2.4)) == (38, 58, 2)
