"""A PreFilterResult that names nodes: the framework filters only those (upstream
pkg/scheduler/schedule_one.go ``findNodesThatFitPod``, which gets each of ``preRes.NodeNames``
from the snapshot; NodeAffinity's PreFilter returns the names of a ``matchFields
metadata.name`` term, pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go).

This is what keeps a DaemonSet's pods cheap on a large cluster (the DaemonSet controller pins
each pod to its node that way, pkg/controller/daemon/util ``ReplaceDaemonSetPodNodeNameNodeAffinity``):
``cluster init --nodes 5000`` schedules 5,000 kube-proxy pods, each looked at on one node."""

import random

import pytest

from kubesim.scheduler.scheduler import Scheduler
from kubesim.testing.wrappers import make_node, make_pod

NODES = 200


def _name_term(name: str) -> dict:
    return {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}


@pytest.mark.parametrize("names, filtered, outcome, node", [
    pytest.param(["node042"], ["node042"], "Scheduled", "node042",
                 id="a DaemonSet pod's one node is the only node its filters evaluate"),
    pytest.param(["node150", "node007"], ["node007", "node150"], "Scheduled", None,
                 id="the nodes of several terms are filtered in the node tree's order"),
    pytest.param(["gone"], [], "Unschedulable", None,
                 id="a named node that does not exist leaves nothing to filter"),
])
def test_a_prefilter_result_limits_the_nodes_filtered(monkeypatch, names, filtered, outcome, node):
    nodes = [make_node(f"node{i:03d}").capacity(cpu="4", memory="8Gi").obj() for i in range(NODES)]
    s = Scheduler(None, random.Random(0))
    s.set_cluster(nodes, [])
    seen: list[list[str]] = []
    real = Scheduler._find_nodes_that_pass_filters

    def spy(self, fwk, state, pod, diagnosis, nodes, verdicts):
        seen.append([ni.name for ni in nodes])
        return real(self, fwk, state, pod, diagnosis, nodes, verdicts)

    monkeypatch.setattr(Scheduler, "_find_nodes_that_pass_filters", spy)
    r = s.schedule_one(make_pod("kube-proxy-x").required_terms(*(_name_term(n) for n in names)).obj(), 0.0)
    assert seen == [filtered]
    assert r.outcome == outcome
    if node is not None:
        assert r.node == node
    if outcome == "Unschedulable":
        assert r.message == (f"0/{NODES} nodes are available: {NODES} node(s) didn't satisfy plugin(s) "
                             "[NodeAffinity]. no new claims to deallocate, preemption: 0/200 nodes are available: 200 Preemption is not "
                             "helpful for scheduling.")
