"""TaintToleration: mirrors upstream taint_toleration_test.go (TestTaintTolerationScore,
TestTaintTolerationFilter), with the v1.35 filter message."""

import pytest

from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.plugins.tainttoleration import (ERR_REASON_UNTOLERATED, TaintToleration,
                                                       count_intolerable_prefer_no_schedule,
                                                       untolerated_taint)

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter, run_scores


def node(name, *taints):
    w = make_node(name)
    for key, value, effect in taints:
        w.taint(key, value, effect)
    return w.obj()


def pod(*tolerations):
    w = make_pod("pod1")
    for key, op, value, effect in tolerations:
        w.toleration(key, op, value, effect)
    return w.obj()


PNS = "PreferNoSchedule"

SCORE_CASES = [
    pytest.param(
        pod(("foo", "Equal", "bar", PNS)),
        [node("nodeA", ("foo", "bar", PNS)), node("nodeB", ("foo", "blah", PNS))],
        # raw intolerable counts [0, 1] -> reversed: 100 - 100*0/1, 100 - 100*1/1
        [100, 0],
        id="node with taints tolerated by the pod gets a higher score than one with intolerable "
           "taints"),
    pytest.param(
        pod(("cpu-type", "Equal", "arm64", PNS), ("disk-type", "Equal", "ssd", PNS)),
        [node("nodeA"), node("nodeB", ("cpu-type", "arm64", PNS)),
         node("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS))],
        # raw [0, 0, 0]: max 0 and reverse -> all MaxNodeScore
        [100, 100, 100],
        id="nodes whose taints are all tolerated score the same however many taints they have"),
    pytest.param(
        pod(("foo", "Equal", "bar", PNS)),
        [node("nodeA"), node("nodeB", ("cpu-type", "arm64", PNS)),
         node("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS))],
        # raw [0, 1, 2] -> 100 - 100*r/2 = [100, 50, 0]
        [100, 50, 0],
        id="the more intolerable taints a node has the lower score it gets"),
    pytest.param(
        pod(("cpu-type", "Equal", "arm64", "NoSchedule"), ("disk-type", "Equal", "ssd", "NoSchedule")),
        [node("nodeA"), node("nodeB", ("cpu-type", "arm64", "NoSchedule")),
         node("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS))],
        # only PreferNoSchedule taints/tolerations count: raw [0, 0, 2] -> [100, 100, 0]
        [100, 100, 0],
        id="only taints and tolerations with effect PreferNoSchedule are scored"),
    pytest.param(
        pod(),
        [node("nodeA"), node("nodeB", ("cpu-type", "arm64", PNS))],
        # raw [0, 1] -> [100, 0]
        [100, 0],
        id="without tolerations a node without taints wins"),
]


@pytest.mark.parametrize("p, nodes, expected", SCORE_CASES)
def test_score(p, nodes, expected):
    assert run_scores(TaintToleration(), p, nodes) == expected


UNTOLERATED = Status(Code.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)")

FILTER_CASES = [
    pytest.param(pod(), node("nodeA", ("dedicated", "user1", "NoSchedule")), UNTOLERATED,
                 id="a pod without tolerations cannot land on a tainted node"),
    pytest.param(pod(("dedicated", "", "user1", "NoSchedule")),
                 node("nodeA", ("dedicated", "user1", "NoSchedule")), None,
                 id="a pod tolerating the dedicated taint fits"),
    pytest.param(pod(("dedicated", "Equal", "user2", "NoSchedule")),
                 node("nodeA", ("dedicated", "user1", "NoSchedule")), UNTOLERATED,
                 id="a toleration for another value does not help"),
    pytest.param(pod(("foo", "Exists", "", "NoSchedule")),
                 node("nodeA", ("foo", "bar", "NoSchedule")), None,
                 id="operator Exists tolerates any value"),
    pytest.param(pod(("dedicated", "Equal", "user2", "NoSchedule"), ("foo", "Exists", "", "NoSchedule")),
                 node("nodeA", ("dedicated", "user2", "NoSchedule"), ("foo", "bar", "NoSchedule")),
                 None, id="all of several taints tolerated"),
    pytest.param(pod(("foo", "Equal", "bar", PNS)), node("nodeA", ("foo", "bar", "NoSchedule")),
                 UNTOLERATED, id="a toleration with a different non-empty effect does not match"),
    pytest.param(pod(("foo", "Equal", "bar", "")), node("nodeA", ("foo", "bar", "NoSchedule")),
                 None, id="a toleration with an empty effect matches every effect"),
    pytest.param(pod(("dedicated", "Equal", "user2", "NoSchedule")),
                 node("nodeA", ("dedicated", "user1", PNS)), None,
                 id="PreferNoSchedule taints never filter"),
    pytest.param(pod(), node("nodeA", ("dedicated", "user1", PNS)), None,
                 id="no tolerations and only a PreferNoSchedule taint fits"),
    pytest.param(pod(), node("nodeA", ("node.kubernetes.io/not-ready", "", "NoExecute")),
                 UNTOLERATED, id="NoExecute taints filter too"),
    pytest.param(pod(("", "Exists", "", "")), node("nodeA", ("anything", "x", "NoSchedule")), None,
                 id="an empty key with Exists tolerates every taint"),
]


@pytest.mark.parametrize("p, n, expected", FILTER_CASES)
def test_filter(p, n, expected):
    assert run_filter(TaintToleration(), p, n) == expected


def test_reason_constant_is_the_v135_text():
    assert ERR_REASON_UNTOLERATED == "node(s) had untolerated taint(s)"


def test_untolerated_taint_returns_the_first_offending_taint():
    taints = [{"key": "a", "effect": "PreferNoSchedule"}, {"key": "b", "value": "1", "effect": "NoSchedule"},
              {"key": "c", "effect": "NoExecute"}]
    assert untolerated_taint(taints, []) == taints[1]
    assert untolerated_taint(taints, [{"key": "b", "operator": "Exists"}]) == taints[2]


def test_count_intolerable_prefer_no_schedule():
    taints = [{"key": "a", "effect": PNS}, {"key": "b", "effect": PNS}, {"key": "c", "effect": "NoSchedule"}]
    assert count_intolerable_prefer_no_schedule(taints, [{"key": "a", "operator": "Exists"}]) == 1


# -- queueing hints (taint_toleration_test.go TestIsSchedulableAfterNodeChange,
#    Test_isSchedulableAfterPodTolerationChange; the wrong-object-type cases have no Python
#    counterpart) ---------------------------------------------------------------------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _tolerating_user2():
    return make_pod("pod1").toleration("dedicated", "Equal", "user2", "NoSchedule").obj()


def _tainted(*values):
    w = make_node("nodeA")
    for v in values:
        w.taint("dedicated", v, "NoSchedule")
    return w.obj()


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, _tainted("user1"), QUEUE_SKIP, id="skip-queue-on-untoleratedtaint-node-added"),
    pytest.param(None, _tainted("user2"), QUEUE, id="queue-on-toleratedtaint-node-added"),
    pytest.param(_tainted("user1"), _tainted("user1", "user3"), QUEUE_SKIP,
                 id="skip-unrelated-change"),
    pytest.param(_tainted("user1"), _tainted("user2"), QUEUE, id="queue-on-taint-change"),
    # kubesim: the taint removed (kubectl taint nodes nodeA dedicated-)
    pytest.param(_tainted("user1"), _tainted(), QUEUE, id="queue-on-taint-removed"),
])
def test_is_schedulable_after_node_change(old, new, want):
    assert TaintToleration().is_schedulable_after_node_change(_tolerating_user2(), old, new) == want


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(make_pod("pod-1", "ns-1").uid("uid0").obj(),
                 make_pod("pod-2", "ns-1").uid("uid1").obj(),
                 make_pod("pod-2", "ns-1").uid("uid1").toleration("foo", effect="NoSchedule").obj(),
                 QUEUE_SKIP, id="skip-updates-other-pod"),
    pytest.param(make_pod("pod-1", "ns-1").uid("uid0").obj(),
                 make_pod("pod-1", "ns-1").uid("uid0").obj(),
                 make_pod("pod-1", "ns-1").uid("uid0").toleration("foo", effect="NoSchedule").obj(),
                 QUEUE, id="queue-on-toleration-added"),
])
def test_is_schedulable_after_pod_toleration_change(pod, old, new, want):
    assert TaintToleration().is_schedulable_after_pod_toleration_change(pod, old, new) == want


def test_the_compiled_filter_remembers_a_verdict_per_taints_and_tolerations():
    """A tainted node keeps its verdict for the pods tolerating alike; another pod's
    tolerations, or new taints on the node, are decided again."""
    from kubesim.scheduler.framework.cycle_state import CycleState
    from kubesim.scheduler.framework.types import NodeInfo, PodInfo

    pl = TaintToleration()
    ni = NodeInfo(node("nodeA", ("dedicated", "user1", "NoSchedule")))
    tolerating = pod(("dedicated", "Equal", "user1", "NoSchedule"))
    plain = pod()
    untolerated = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED)
    steps = [(tolerating, None), (tolerating, None), (plain, untolerated), (plain, untolerated),
             (tolerating, None)]
    for p, want in steps:
        assert pl.filter_fn(CycleState(), PodInfo(p))(ni) == want
    ni.set_node(node("nodeA", ("other", "x", "NoExecute")))
    assert pl.filter_fn(CycleState(), PodInfo(tolerating))(ni) == untolerated
    ni.set_node(node("nodeA"))
    assert pl.filter_fn(CycleState(), PodInfo(plain))(ni) is None
