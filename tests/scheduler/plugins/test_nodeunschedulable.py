"""NodeUnschedulable: mirrors upstream node_unschedulable_test.go (TestNodeUnschedulable)."""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE, NodeUnschedulable

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter

REJECT = Status(Code.UnschedulableAndUnresolvable, "node(s) were unschedulable")


@pytest.mark.parametrize("pod, node, expected", [
    pytest.param(make_pod("p").obj(), make_node("n").unschedulable().obj(), REJECT,
                 id="a cordoned node rejects a pod without tolerations"),
    pytest.param(make_pod("p").obj(), make_node("n").unschedulable(False).obj(), None,
                 id="a schedulable node admits the pod"),
    pytest.param(make_pod("p").toleration("node.kubernetes.io/unschedulable", "Exists", "",
                                          "NoSchedule").obj(),
                 make_node("n").unschedulable().obj(), None,
                 id="a pod tolerating the unschedulable taint may land on a cordoned node"),
    pytest.param(make_pod("p").toleration("node.kubernetes.io/unschedulable", "Exists", "",
                                          "NoExecute").obj(),
                 make_node("n").unschedulable().obj(), REJECT,
                 id="a toleration with another effect does not help"),
    pytest.param(make_pod("p").toleration("", "Exists").obj(),
                 make_node("n").unschedulable().obj(), None,
                 id="a tolerate-everything toleration helps"),
])
def test_filter(pod, node, expected):
    assert run_filter(NodeUnschedulable(), pod, node) == expected


def test_reason():
    assert ERR_REASON_UNSCHEDULABLE == "node(s) were unschedulable"
