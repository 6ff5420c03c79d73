"""NodeName: mirrors upstream node_name_test.go (TestNodeName)."""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.plugins.nodename import NodeName, fits

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter


@pytest.mark.parametrize("pod, node, expected", [
    pytest.param(make_pod("p").obj(), make_node("foo").obj(), None,
                 id="a pod without a node name fits any node"),
    pytest.param(make_pod("p").node("foo").obj(), make_node("foo").obj(), None,
                 id="a pod naming the node fits it"),
    pytest.param(make_pod("p").node("bar").obj(), make_node("foo").obj(),
                 Status(Code.UnschedulableAndUnresolvable,
                        "node(s) didn't match the requested node name"),
                 id="a pod naming another node does not fit"),
])
def test_filter(pod, node, expected):
    assert run_filter(NodeName(), pod, node) == expected


def test_fits():
    assert fits({"spec": {}}, "x") and not fits({"spec": {"nodeName": "y"}}, "x")
