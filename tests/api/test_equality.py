"""Semantic equality (apiequality.Semantic.DeepEqual on JSON)."""

import pytest

from kubesim.api.equality import semantic_equal


@pytest.mark.parametrize("a,b,equal", [
    pytest.param({"x": []}, {}, True, id="an empty list equals an absent field"),
    pytest.param({"x": 0, "y": False, "z": ""}, {"x": None}, True, id="zero values equal null"),
    pytest.param({"x": [1]}, {"x": [1, 2]}, False, id="lists of different lengths differ"),
    pytest.param({"x": {"y": 1}}, {"x": {"y": 2}}, False, id="nested values are compared"),
])
def test_semantic_equal(a, b, equal):
    assert semantic_equal(a, b) is equal
