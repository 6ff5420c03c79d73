"""PodTopologySpread the plugin: default constraints and where their selector comes from,
PodTopologySpreadArgs (defaults and validation), and a run through the framework runtime."""

import pytest

from kubesim.api.selectors import from_label_selector
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread.plugin import (SYSTEM_DEFAULT_CONSTRAINTS,
                                                                PodTopologySpread, validate_args)
from kubesim.scheduler.plugins.podtopologyspread.scoring import PRE_SCORE_STATE_KEY

from .builders import FOO, HARD, HOSTNAME, NODE, SOFT, TOPOLOGY_ZONE, ZONE, node, pod, replica_set
from .harness import FOUR_ZONE_NODES, PODS_2_1_0_3, RS_FOO, SYSTEM, pre_filter, pre_score, setup


def test_system_default_constraints_need_a_selector_from_the_pods_owners():
    nodes = [node("node-a", {HOSTNAME: "node-a", TOPOLOGY_ZONE: "z1"})]
    bare = pod(foo="bar").obj()
    owned = pod(foo="bar").owner("ReplicaSet", "rs1").obj()
    pl, snap = setup(nodes, [], SYSTEM, [RS_FOO])
    assert pre_score(pl, snap, bare, nodes)[0] == Status(Code.Skip)
    status, state, _ = pre_score(pl, snap, owned, nodes)
    assert status is None
    assert [(c.topology_key, c.max_skew) for c in state.read(PRE_SCORE_STATE_KEY).constraints] \
        == [(HOSTNAME, 3), (TOPOLOGY_ZONE, 5)]
    # system defaults are all ScheduleAnyway: nothing to filter
    assert pre_filter(pl, snap, owned)[0] == Status(Code.Skip)


def test_the_default_constraints_kept_per_action_are_those_of_each_pod():
    # the plugin keeps the default constraints per action when no default constraint has
    # matchLabelKeys (then the pod's labels do not enter them); each pod gets what a plugin
    # computing them afresh gives it
    nodes = [node("node-a", {HOSTNAME: "node-a", TOPOLOGY_ZONE: "z1"})]
    listed = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT,
         "matchLabelKeys": ["tier"]}]}
    rs_tier = replica_set("rs2", {"matchLabels": {"tier": "db"}})

    def seen(pl, snap, p):
        status, state, _ = pre_score(pl, snap, p, nodes)
        if status is not None:
            return status
        return [(c.topology_key, c.max_skew, str(c.selector))
                for c in state.read(PRE_SCORE_STATE_KEY).constraints]

    for args in (SYSTEM, listed):
        kept, snap = setup(nodes, [], args, [RS_FOO, rs_tier])
        for _ in range(2):
            for p in (pod(foo="bar", tier="web").owner("ReplicaSet", "rs1").obj(),
                      pod(tier="db").owner("ReplicaSet", "rs2").obj(), pod(foo="bar").obj()):
                afresh, snap2 = setup(nodes, [], args, [RS_FOO, rs_tier])
                assert seen(kept, snap, p) == seen(afresh, snap2, p)
    assert seen(kept, snap, pod(tier="db").owner("ReplicaSet", "rs2").obj()) == \
        [(ZONE, 1, "tier=db")]


def test_a_default_selector_callable_replaces_the_listers():
    nodes = [node("node-a", {HOSTNAME: "node-a"})]
    snap = Snapshot.build(nodes, [])
    pl = PodTopologySpread({}, Handle(snap),
                           default_selector=lambda p: from_label_selector({"matchLabels": {
                               "app": "web"}}))
    status, state, _ = pre_score(pl, snap, pod(app="web").obj(), nodes)
    assert status is None
    assert str(state.read(PRE_SCORE_STATE_KEY).constraints[0].selector) == "app=web"


def test_without_listers_no_default_constraints_apply():
    nodes = [node("node-a", {HOSTNAME: "node-a"})]
    snap = Snapshot.build(nodes, [])
    pl = PodTopologySpread({}, Handle(snap))
    owned = pod(foo="bar").owner("ReplicaSet", "rs1").obj()
    assert pre_score(pl, snap, owned, nodes)[0] == Status(Code.Skip)


# -- PodTopologySpreadArgs -----------------------------------------------------------------------
ARGS_CASES = [
    pytest.param({}, [], id="empty args default to System"),
    pytest.param({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]}, [],
        id="listed default constraints"),
    pytest.param({"defaultingType": "Foo"},
                 ['defaultingType: Unsupported value: "Foo": supported values: "System", "List"'],
                 id="an unknown defaulting type"),
    pytest.param({"defaultingType": "System", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]},
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
        id="System defaulting with listed constraints"),
    pytest.param({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Maybe",
         "labelSelector": {}},
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": SOFT},
        {"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": SOFT}]},
        ["defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
         "defaultConstraints[0].topologyKey: Required value: can not be empty",
         'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported '
         'values: "DoNotSchedule", "ScheduleAnyway"',
         "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
         "selector, as they deduced for each pod",
         'defaultConstraints[2]: Duplicate value: "{zone, ScheduleAnyway}"'],
        id="invalid listed constraints"),
]


@pytest.mark.parametrize("args, want", ARGS_CASES)
def test_validate_args(args, want):
    from kubesim.scheduler.plugins.podtopologyspread.plugin import default_args
    assert validate_args(default_args(args)) == want


def test_invalid_args_refuse_the_plugin():
    with pytest.raises(ValueError, match=r"^\[defaultConstraints\[0\]\.maxSkew"):
        PodTopologySpread({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": SOFT}]})


def test_system_default_constraints():
    assert SYSTEM_DEFAULT_CONSTRAINTS == (
        {"topologyKey": HOSTNAME, "whenUnsatisfiable": SOFT, "maxSkew": 3},
        {"topologyKey": TOPOLOGY_ZONE, "whenUnsatisfiable": SOFT, "maxSkew": 5})


# -- through the framework runtime ---------------------------------------------------------------
def test_the_runtime_runs_every_extension_point():
    from kubesim.scheduler.framework.runtime import Framework
    from kubesim.scheduler.plugins.defaultbinder import DefaultBinder
    from kubesim.scheduler.plugins.prioritysort import PrioritySort

    nodes = FOUR_ZONE_NODES
    snap = Snapshot.build(nodes, PODS_2_1_0_3)
    registry = {"PrioritySort": PrioritySort, "DefaultBinder": DefaultBinder,
                "PodTopologySpread": PodTopologySpread}
    fw = Framework({"schedulerName": "s", "plugins": {"multiPoint": {"enabled": [
        {"name": "PrioritySort"}, {"name": "DefaultBinder"},
        {"name": "PodTopologySpread", "weight": 2}]}}}, registry, Handle(snap))
    p = PodInfo(pod(foo="").spread(1, NODE, HARD, FOO).spread(1, ZONE, SOFT, FOO).obj())
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, p, snap.list())
    assert status is None
    feasible = [ni for ni in snap.list() if fw.run_filter_plugins(state, p, ni) is None]
    assert [ni.name for ni in feasible] == ["node-x"]
    assert fw.run_pre_score_plugins(state, p, snap.list()) is None
    table, status = fw.run_score_plugins(state, p, snap.list())
    assert status is None
    # zone1 3, zone2 3 (w ln 4 = 1.39): raw 4.16 -> 4 everywhere -> normalized 100, weight 2
    assert table.normalized["PodTopologySpread"] == [100, 100, 100, 100]
    assert table.totals == [200, 200, 200, 200]


# -- queueing hints (plugin_test.go Test_isSchedulableAfterNodeChange and
#    Test_isSchedulableAfterPodChange, with ListDefaulting and no default constraints) -------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402

from .builders import BAR, HONOR, IGNORE  # noqa: E402


def _one():
    return pod("p").uid("p").labels(foo="").spread(1, ZONE, HARD, FOO).obj()


def _two():
    return pod("p").uid("p").labels(foo="").spread(1, ZONE, HARD, FOO).spread(
        1, NODE, HARD, FOO).obj()


def _tainted(labels, key):
    return node("node-a", labels, (key, "bbb", "NoSchedule"))


@pytest.mark.parametrize("p, old, new, want", [
    pytest.param(_one(), node("node-a", {ZONE: "zone1"}), node("node-a", {ZONE: "zone2"}), QUEUE,
                 id="node updates label which matches topologyKey"),
    pytest.param(_one(), node("node-a", {"foo": "bar1"}), node("node-a", {"foo": "bar2"}),
                 QUEUE_SKIP,
                 id="node that doesn't match topologySpreadConstraints updates non-related label"),
    pytest.param(_two(), node("node-a", {ZONE: "zone1", NODE: "node1", "foo": "bar"}),
                 node("node-a", {ZONE: "zone1", NODE: "node1"}), QUEUE_SKIP,
                 id="node that match topologySpreadConstraints adds non-related label"),
    pytest.param(_one(), None, node("node-a", {"foo": "bar"}), QUEUE_SKIP,
                 id="create node with non-related labels"),
    pytest.param(_one(), None, node("node-a", {ZONE: "zone1"}), QUEUE,
                 id="create node with related labels"),
    pytest.param(_one(), node("node-a", {"foo": "bar"}), None, QUEUE_SKIP,
                 id="delete node with non-related labels"),
    pytest.param(_one(), node("node-a", {ZONE: "zone1"}), None, QUEUE,
                 id="delete node with related labels"),
    pytest.param(_two(), None, node("node-a", {ZONE: "zone1"}), QUEUE_SKIP,
                 id="add node with related labels that only match one of the constraints"),
    pytest.param(_two(), None, node("node-a", {ZONE: "zone1", NODE: "node1"}), QUEUE,
                 id="add node with related labels that match all topologySpreadConstraints"),
    pytest.param(_two(), node("node-a", {ZONE: "zone1"}), node("node-a", {ZONE: "zone1"}),
                 QUEUE_SKIP,
                 id="update node with related labels that only match one of the constraints"),
    pytest.param(_two(), node("node-a", {ZONE: "zone1", NODE: "node1"}),
                 node("node-a", {ZONE: "zone1", NODE: "node2"}), QUEUE,
                 id="update node with related labels that match all topologySpreadConstraints"),
    pytest.param(_two(), _tainted({ZONE: "zone1", NODE: "node1"}, "aaa"),
                 _tainted({ZONE: "zone1", NODE: "node1"}, "ccc"), QUEUE,
                 id="update node with different taints that match all the constraints"),
    pytest.param(_two(), _tainted({NODE: "node1"}, "aaa"), _tainted({NODE: "node1"}, "ccc"),
                 QUEUE_SKIP,
                 id="update node with different taints that only match one of the constraints"),
])
def test_is_schedulable_after_node_change(p, old, new, want):
    pl, _ = setup([])
    assert pl.is_schedulable_after_node_change(p, old, new) == want


def _p2(node_name="fake-node", namespace="default", **kw):
    w = pod("p2", namespace, **kw).uid("p2")
    if node_name:
        w.node(node_name)
    return w.obj()


def _multi(honor=None):
    return pod("p").uid("p").labels(foo="").spread(1, ZONE, HARD, FOO, taints_policy=honor).spread(
        1, NODE, HARD, BAR).obj()


def _self(**kw):
    w = pod("p").uid("p").labels(**kw)
    return w


@pytest.mark.parametrize("p, old, new, want", [
    pytest.param(_one(), None, _p2(foo=""), QUEUE,
                 id="add pod with labels match topologySpreadConstraints selector"),
    pytest.param(_one(), None, _p2(None, foo=""), QUEUE_SKIP, id="add un-scheduled pod"),
    pytest.param(_one(), _p2(None, bar=""), _p2(None, foo=""), QUEUE_SKIP,
                 id="update un-scheduled pod"),
    pytest.param(_one(), _p2(None, foo=""), None, QUEUE_SKIP, id="delete un-scheduled pod"),
    pytest.param(_one(), None, _p2(namespace="fake-namespace", foo=""), QUEUE_SKIP,
                 id="add pod with different namespace"),
    pytest.param(_one(), None, _p2(bar=""), QUEUE_SKIP,
                 id="add pod with labels don't match topologySpreadConstraints selector"),
    pytest.param(_one(), _p2(foo=""), None, QUEUE,
                 id="delete pod with labels that match topologySpreadConstraints selector"),
    pytest.param(_one(), _p2(bar=""), None, QUEUE_SKIP,
                 id="delete pod with labels that don't match topologySpreadConstraints selector"),
    pytest.param(_one(), _p2(foo="", bar="bar1"), _p2(foo="", bar="bar2"), QUEUE_SKIP,
                 id="update pod's non-related label"),
    pytest.param(_one(), _p2(), _p2(foo=""), QUEUE,
                 id="add pod's label that matches topologySpreadConstraints selector"),
    pytest.param(_one(), _p2(foo=""), _p2(), QUEUE,
                 id="delete pod label that matches topologySpreadConstraints selector"),
    pytest.param(_one(), _p2(foo="foo1"), _p2(foo="foo2"), QUEUE_SKIP,
                 id="change pod's label that matches topologySpreadConstraints selector"),
    pytest.param(_multi(), _p2(foo=""), _p2(foo="", bar="bar2"), QUEUE,
                 id="add pod's label that matches the selector with multi constraints"),
    pytest.param(_multi(), _p2(foo=""), _p2(foo="", baz=""), QUEUE_SKIP,
                 id="change pod's label that doesn't match the selector with multi constraints"),
    pytest.param(_multi(), _p2(foo="", bar=""), _p2(foo="", bar="bar2"), QUEUE_SKIP,
                 id="change pod's label that match the selector with multi constraints"),
    pytest.param(_multi(HONOR), _self(foo="").obj(),
                 _self(foo="").toleration("node.kubernetes.io/unschedulable").obj(), QUEUE,
                 id="the pod has a NodeTaintsPolicy:Honor constraint and got a new toleration"),
    pytest.param(_multi(IGNORE), _self(foo="").obj(),
                 _self(foo="").toleration("node.kubernetes.io/unschedulable").obj(), QUEUE_SKIP,
                 id="the pod has no NodeTaintsPolicy:Honor constraint and got a new toleration"),
    pytest.param(_multi(IGNORE), _self().obj(), _self(foo="").obj(), QUEUE,
                 id="the pod has got a new label matching the selector of the constraint"),
    pytest.param(_multi(IGNORE), _self().obj(), _self(unrelated="").obj(), QUEUE_SKIP,
                 id="the pod has got a new unrelated label"),
])
def test_is_schedulable_after_pod_change(p, old, new, want):
    pl, _ = setup([])
    assert pl.is_schedulable_after_pod_change(p, old, new) == want
