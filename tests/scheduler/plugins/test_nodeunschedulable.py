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


# -- queueing hints (node_unschedulable_test.go TestIsSchedulableAfterNodeChange,
#    TestIsSchedulableAfterPodTolerationChange) ---------------------------------------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, make_node().unschedulable(True).obj(), QUEUE_SKIP,
                 id="skip-queue-on-unschedulable-node-added"),
    pytest.param(None, make_node().unschedulable(False).obj(), QUEUE,
                 id="queue-on-schedulable-node-added"),
    pytest.param(make_node().unschedulable(True).obj(),
                 make_node().unschedulable(True).taint("node.kubernetes.io/not-ready",
                                                       effect="NoExecute").obj(),
                 QUEUE_SKIP, id="skip-unrelated-change-unschedulable-true"),
    pytest.param(make_node().unschedulable(False).obj(),
                 make_node().unschedulable(False).taint("node.kubernetes.io/not-ready",
                                                        effect="NoExecute").obj(),
                 QUEUE_SKIP, id="skip-unrelated-change-unschedulable-false"),
    pytest.param(make_node().unschedulable(True).obj(), make_node().unschedulable(False).obj(),
                 QUEUE, id="queue-on-unschedulable-field-change"),
])
def test_is_schedulable_after_node_change(old, new, want):
    assert NodeUnschedulable().is_schedulable_after_node_change(make_pod().obj(), old, new) == want


@pytest.mark.parametrize("new, want", [
    pytest.param(make_pod().uid("different-uid").toleration("node.kubernetes.io/unschedulable").obj(),
                 QUEUE_SKIP, id="skip-different-pod-update"),
    pytest.param(make_pod().uid("uid").toleration("node.kubernetes.io/unschedulable").obj(), QUEUE,
                 id="queue-when-the-unsched-pod-gets-toleration"),
    pytest.param(make_pod().uid("uid").toleration("unrelated-key").obj(), QUEUE_SKIP,
                 id="skip-when-the-unsched-pod-gets-unrelated-toleration"),
])
def test_is_schedulable_after_pod_toleration_change(new, want):
    old = dict(new, spec=dict(new["spec"], tolerations=[]))
    got = NodeUnschedulable().is_schedulable_after_pod_toleration_change(
        make_pod().uid("uid").obj(), old, new)
    assert got == want
