"""InterPodAffinity: mirrors upstream filtering_test.go (TestRequiredAffinitySingleNode,
TestRequiredAffinityMultipleNodes, TestPreFilterDisabled, TestPreFilterStateAddRemovePod,
TestPreFilterStateClone, TestGetTPMapMatchingIncomingAffinityAntiAffinity) and scoring_test.go
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight), v1.35.

Upstream's pods default to namespace ""; here they live in "default" (kubesim's default), so the
one term that lists "" lists "default" instead.
"""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle, NodeScore
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, PRE_FILTER_STATE_KEY, InterPodAffinity,
    incoming_affinity_anti_affinity_counts, normalize, pod_affinity_info, validate_args)

from .ipa_builders import (PREFERRED, affinity, expr, make_pod, node, selector, term,
                           weighted)

NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}

AFFINITY_UAU = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = Status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING_ANTI = Status(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
SKIP = Status(Code.Skip)


def setup(nodes, pods=(), args=None, namespaces=NAMESPACES):
    snap = Snapshot.build(nodes, list(pods))
    return InterPodAffinity(args or {}, Handle(snap), namespace_labels=namespaces), snap


def run_filters(pod, pods, nodes, namespaces=NAMESPACES):
    """(PreFilter status, Filter status per node — None when PreFilter did not succeed)."""
    pl, snap = setup(nodes, pods, namespaces=namespaces)
    state = CycleState()
    pi = PodInfo(pod)
    _, pre = pl.pre_filter(state, pi, snap.list())
    if pre is not None:
        return pre, None
    return None, [pl.filter(state, pi, snap.get(n["metadata"]["name"])) for n in nodes]


def run_scoring(pod, pods, nodes, args=None, namespaces=NAMESPACES):
    """PreScore's status when it does not succeed, else the normalized scores in node order."""
    pl, snap = setup(nodes, pods, args, namespaces)
    state = CycleState()
    pi = PodInfo(pod)
    s = pl.pre_score(state, pi, snap.list())
    if s is not None:
        return s
    scores = []
    for n in nodes:
        v, st = pl.score(state, pi, snap.get(n["metadata"]["name"]))
        assert st is None
        scores.append(NodeScore(n["metadata"]["name"], v))
    assert pl.normalize_score(state, pi, scores) is None
    return [x.score for x in scores]


def pod_with_terms(namespace, labels, affinity_terms=(), anti_terms=()):
    """Upstream's createPodWithAffinityTerms (unscheduled)."""
    return (make_pod("incoming", namespace).labels(labels)
            .affinity(affinity(required=affinity_terms, anti_required=anti_terms)).obj())


# -- TestRequiredAffinitySingleNode -----------------------------------------------------------
POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})
EXISTING = make_pod("existing").labels(POD_LABEL).node("node1").obj()
IN_SECURITYSCAN = selector(expr("service", "In", "securityscan", "value2"))
TEAM1 = selector(expr("team", "In", "team1"))
BAD_VALUE_MSG = (
    'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": '
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def incoming(labels=None, namespace="default"):
    return make_pod("incoming", namespace).labels(labels or {})


def existing(node_name, labels=None, namespace="default", name="existing"):
    return make_pod(name, namespace).labels(labels or {}).node(node_name)


SINGLE_NODE_CASES = [
    pytest.param(
        make_pod("incoming").obj(), [], SKIP, None,
        id="a pod that has no required pod affinity scheduling rules can schedule onto a node "
           "with no existing pods"),
    pytest.param(
        incoming(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"])
        .obj(), [EXISTING], None, None,
        id="satisfies required pod affinity using the In operator that matches the existing "
           "pod"),
    pytest.param(
        incoming(POD_LABEL2).pod_affinity_not_in("service", "region",
                                                 ["securityscan3", "value3"]).obj(),
        [EXISTING], None, None,
        id="satisfies required pod affinity using a NotIn selector that matches the existing "
           "pod"),
    pytest.param(
        pod_with_terms("default", POD_LABEL2, [
            term("", IN_SECURITYSCAN, namespaces=["DiffNameSpace"])]),
        [existing("node1", POD_LABEL, namespace="ns").obj()], None, AFFINITY_UAU,
        id="does not satisfy the pod affinity with a labelSelector because of a different "
           "namespace"),
    pytest.param(
        incoming(POD_LABEL).pod_affinity_in("service", "", ["antivirusscan", "value2"]).obj(),
        [EXISTING], None, AFFINITY_UAU,
        id="does not satisfy the pod affinity because of an unmatching labelSelector with the "
           "existing pod"),
    pytest.param(
        pod_with_terms("default", POD_LABEL2, [
            term("region", selector(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"))),
            term("region", selector(expr("service", "In", "securityscan"),
                                    expr("service", "NotIn", "WrongValue")))]),
        [EXISTING], None, None,
        id="satisfies the pod affinity with different label operators in multiple required "
           "terms"),
    pytest.param(
        pod_with_terms("default", POD_LABEL2, [
            term("region", selector(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"))),
            term("region", selector(expr("service", "In", "securityscan2"),
                                    expr("service", "NotIn", "WrongValue")))]),
        [EXISTING], None, AFFINITY_UAU,
        id="the matchExpressions of a selector are ANDed, so one unmatched item keeps the pod "
           "off the node"),
    pytest.param(
        incoming(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [EXISTING], None, None,
        id="satisfies the pod affinity and anti-affinity with the existing pod"),
    pytest.param(
        incoming(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [existing("node1", POD_LABEL)
         .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj()],
        None, None,
        id="satisfies the pod affinity, anti-affinity and anti-affinity symmetry with the "
           "existing pod"),
    pytest.param(
        incoming(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj(),
        [EXISTING], None, ANTI,
        id="satisfies the pod affinity but not the pod anti-affinity with the existing pod"),
    pytest.param(
        incoming(POD_LABEL).pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [existing("node1", POD_LABEL)
         .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj()],
        None, EXISTING_ANTI,
        id="satisfies the pod affinity and anti-affinity but not the anti-affinity symmetry "
           "with the existing pod"),
    pytest.param(
        incoming(POD_LABEL).pod_affinity_not_in("service", "region",
                                                ["securityscan", "value2"]).obj(),
        [make_pod("other").label("service", "securityscan").node("node2").obj()],
        None, AFFINITY_UAU,
        id="a pod whose affinity does not match its own labels is not the first of a series"),
    pytest.param(
        incoming(POD_LABEL).obj(),
        [existing("node1", POD_LABEL)
         .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"]).obj()],
        None, EXISTING_ANTI,
        id="an existing pod's anti-affinity is respected when the pod has none and the symmetry "
           "is violated"),
    pytest.param(
        incoming(POD_LABEL).obj(),
        [existing("node1", POD_LABEL)
         .pod_anti_affinity_not_in("service", "zone", ["securityscan", "value2"]).obj()],
        SKIP, None,
        id="an existing pod's anti-affinity is respected when the pod has none and the symmetry "
           "holds"),
    pytest.param(
        incoming(POD_LABEL).pod_anti_affinity_exists("service", "region")
        .pod_anti_affinity_exists("security", "region").obj(),
        [existing("node1", POD_LABEL2).pod_anti_affinity_exists("security", "zone").obj()],
        None, ANTI,
        id="satisfies the existing pod's anti-affinity but the incoming pod's anti-affinity "
           "rejects"),
    pytest.param(
        incoming(POD_LABEL).pod_anti_affinity_exists("service", "zone")
        .pod_anti_affinity_exists("security", "zone").obj(),
        [existing("node1", POD_LABEL2).pod_anti_affinity_exists("security", "zone").obj()],
        None, ANTI,
        id="anti-affinity symmetry a1: incoming and existing pod partially match each other"),
    pytest.param(
        incoming(POD_LABEL2).pod_anti_affinity_exists("security", "zone").obj(),
        [existing("node1", POD_LABEL).pod_anti_affinity_exists("service", "zone")
         .pod_anti_affinity_exists("security", "zone").obj()],
        None, EXISTING_ANTI,
        id="anti-affinity symmetry a2: incoming and existing pod partially match each other"),
    pytest.param(
        incoming({"abc": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
        .pod_anti_affinity_exists("def", "zone").obj(),
        [existing("node1", {"def": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
         .pod_anti_affinity_exists("def", "zone").obj()],
        None, ANTI,
        id="anti-affinity symmetry b1: incoming and existing pod partially match each other"),
    pytest.param(
        incoming({"def": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
        .pod_anti_affinity_exists("def", "zone").obj(),
        [existing("node1", {"abc": "", "xyz": ""}).pod_anti_affinity_exists("abc", "zone")
         .pod_anti_affinity_exists("def", "zone").obj()],
        None, ANTI,
        id="anti-affinity symmetry b2: incoming and existing pod partially match each other"),
    pytest.param(
        incoming(POD_LABEL).pod_affinity_in("service", "region", ["{{.bad-value.}}"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"]).obj(),
        [], Status(Code.UnschedulableAndUnresolvable, BAD_VALUE_MSG), None,
        id="an invalid value in the first affinity term fails PreFilter"),
    pytest.param(
        incoming(POD_LABEL).pod_affinity_in("service", "region", ["foo"])
        .pod_affinity_in("service", "node", ["{{.bad-value.}}"]).obj(),
        [], Status(Code.UnschedulableAndUnresolvable, BAD_VALUE_MSG), None,
        id="an invalid value in a later affinity term fails PreFilter"),
    pytest.param(
        pod_with_terms("default", POD_LABEL2, [
            term("region", IN_SECURITYSCAN, namespace_selector=TEAM1)]),
        [existing("node1", POD_LABEL, namespace="subteam1.team1").obj()], None, None,
        id="affinity with a matching namespaceSelector"),
    pytest.param(
        pod_with_terms("default", POD_LABEL2, [
            term("region", IN_SECURITYSCAN, namespace_selector=TEAM1)]),
        [existing("node1", POD_LABEL, namespace="subteam1.team2").obj()], None, AFFINITY_UAU,
        id="affinity with a non-matching namespaceSelector"),
    pytest.param(
        pod_with_terms("subteam1.team1", POD_LABEL2, anti_terms=[
            term("zone", IN_SECURITYSCAN, namespace_selector=TEAM1)]),
        [existing("node1", POD_LABEL, namespace="subteam2.team1").obj()], None, ANTI,
        id="anti-affinity with a matching namespaceSelector"),
    pytest.param(
        pod_with_terms("subteam1.team1", POD_LABEL2, anti_terms=[
            term("zone", IN_SECURITYSCAN, namespace_selector={})]),
        [existing("node1", POD_LABEL, namespace="subteam2.team1").obj()], None, ANTI,
        id="anti-affinity with an empty namespaceSelector matches all namespaces"),
    pytest.param(
        pod_with_terms("subteam1.team1", POD_LABEL2, anti_terms=[
            term("zone", IN_SECURITYSCAN, namespace_selector=TEAM1)]),
        [existing("node1", POD_LABEL, namespace="subteam1.team2").obj()], None, None,
        id="anti-affinity with a non-matching namespaceSelector"),
]


@pytest.mark.parametrize("pod, pods, want_pre_filter, want_filter", SINGLE_NODE_CASES)
def test_required_affinity_single_node(pod, pods, want_pre_filter, want_filter):
    pre, statuses = run_filters(pod, pods, [NODE1])
    assert pre == want_pre_filter
    if pre is None:
        assert statuses == [want_filter]


# -- TestRequiredAffinityMultipleNodes --------------------------------------------------------
RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}
A_B = [node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
       node("nodeB", {"region": "r1", "zone": "z1", "hostname": "nodeB"})]
A_B_Z2 = [node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
          node("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"})]

MULTIPLE_NODES_CASES = [
    pytest.param(
        incoming().pod_affinity_in("foo", "region", ["bar"]).obj(),
        [existing("node1", {"foo": "bar"}, name="p1").obj()],
        [node("node1", RG_CHINA), node("node2", RG_CHINA_AZ1), node("node3", RG_INDIA)],
        None, [None, None, AFFINITY_UAU],
        id="a pod can go to every node sharing the topology value of a node whose pod matches "
           "the affinity"),
    pytest.param(
        incoming({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]).obj(),
        [existing("nodeA", {"foo": "bar"}, name="p1").obj()],
        [node("nodeA", {"zone": "az1", "hostname": "h1"}),
         node("nodeB", {"zone": "az2", "hostname": "h2"})],
        None, [None, None],
        id="the first pod of a collection with affinity to itself is not blocked when no pod "
           "matches the rule anywhere"),
    pytest.param(
        incoming({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"]).obj(),
        [existing("nodeA", {"foo": "bar"}, name="p1").obj()],
        [node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
         node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
        None, [AFFINITY_UAU, AFFINITY_UAU],
        id="the first pod of a collection can only go to nodes labelled with the requested "
           "topology keys"),
    pytest.param(
        incoming().pod_anti_affinity_in("foo", "region", ["abc"]).obj(),
        [existing("nodeA", {"foo": "abc"}).obj()],
        [node("nodeA", {"region": "r1", "hostname": "nodeA"}),
         node("nodeB", {"region": "r1", "hostname": "nodeB"})],
        None, [ANTI, ANTI],
        id="a pod matching the anti-affinity on nodeA keeps the pod off nodeA and nodeB of the "
           "same region"),
    pytest.param(
        incoming().pod_anti_affinity_in("foo", "region", ["abc"])
        .pod_anti_affinity_in("service", "zone", ["securityscan"]).obj(),
        [existing("nodeA", {"foo": "abc", "service": "securityscan"}).obj()],
        [node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
         node("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"})],
        None, [ANTI, ANTI],
        id="anti-affinity matches a pod when any term of the rule matches it"),
    pytest.param(
        incoming().pod_anti_affinity_in("foo", "region", ["abc"]).obj(),
        [existing("nodeA", {"foo": "abc"}).obj()],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None, [ANTI, ANTI, None],
        id="a pod matching the anti-affinity on nodeA keeps the pod off its region but not off "
           "nodeC"),
    pytest.param(
        incoming({"foo": "123"}, namespace="NS1").pod_anti_affinity_in("foo", "region", ["bar"])
        .obj(),
        [existing("nodeA", {"foo": "bar"}, namespace="NS1").obj(),
         existing("nodeC", namespace="NS2", name="other")
         .pod_anti_affinity_in("foo", "region", ["123"]).obj()],
        [node("nodeA", RG_CHINA), node("nodeB", RG_CHINA_AZ1), node("nodeC", RG_INDIA)],
        None, [ANTI, ANTI, None],
        id="an existing pod's anti-affinity only covers its own namespace"),
    pytest.param(
        incoming({"foo": ""}).obj(),
        [existing("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label").obj()],
        A_B, SKIP, None,
        id="an existing pod's anti-affinity term is counted only when its topology key is a "
           "node label"),
    pytest.param(
        incoming().pod_anti_affinity_exists("foo", "invalid-node-label").obj(),
        [existing("nodeA", {"foo": ""}).obj()],
        A_B, None, [None, None],
        id="the incoming pod's anti-affinity also needs its topology key on the node"),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [existing("nodeA", name="e1").pod_anti_affinity_exists("foo", "zone").obj(),
         existing("nodeA", name="e2").pod_anti_affinity_exists("bar", "region").obj()],
        A_B_Z2, None, [EXISTING_ANTI, EXISTING_ANTI],
        id="the incoming pod violates an existing pod's term on every node"),
    pytest.param(
        incoming().pod_anti_affinity_exists("foo", "zone")
        .pod_anti_affinity_exists("bar", "region").obj(),
        [existing("nodeA", {"foo": ""}, name="e1").obj(),
         existing("nodeB", {"bar": ""}, name="e2").obj()],
        A_B_Z2, None, [ANTI, ANTI],
        id="the incoming pod's anti-affinity is violated when at least one term matches"),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [existing("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label")
         .pod_anti_affinity_exists("bar", "zone").obj()],
        A_B_Z2, None, [EXISTING_ANTI, None],
        id="an existing pod's term counts only when selector and topology key both match, one "
           "key missing"),
    pytest.param(
        incoming().pod_anti_affinity_exists("foo", "invalid-node-label")
        .pod_anti_affinity_exists("bar", "zone").obj(),
        [existing("nodeA", {"foo": "", "bar": ""}, name="podA").obj()],
        A_B_Z2, None, [ANTI, None],
        id="the incoming pod's term counts only when selector and topology key both match, one "
           "key missing"),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [existing("nodeA").pod_anti_affinity_exists("foo", "region")
         .pod_anti_affinity_exists("bar", "zone").obj()],
        A_B_Z2, None, [EXISTING_ANTI, EXISTING_ANTI],
        id="an existing pod's terms count only when selector and topology key both match, all "
           "keys present"),
    pytest.param(
        incoming().pod_anti_affinity_exists("foo", "region")
        .pod_anti_affinity_exists("bar", "zone").obj(),
        [existing("nodeA", {"foo": "", "bar": ""}).obj()],
        A_B_Z2, None, [ANTI, ANTI],
        id="the incoming pod's terms count only when selector and topology key both match, all "
           "keys present"),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [existing("nodeA", name="e1").pod_anti_affinity_exists("foo", "zone")
         .pod_anti_affinity_exists("labelA", "zone").obj(),
         existing("nodeB", name="e2").pod_anti_affinity_exists("bar", "zone")
         .pod_anti_affinity_exists("labelB", "zone").obj()],
        A_B_Z2 + [node("nodeC", {"region": "r1", "zone": "z3", "hostname": "nodeC"})],
        None, [EXISTING_ANTI, EXISTING_ANTI, None],
        id="existing pods on nodeA and nodeB each have a term matching the pod, so only nodeC "
           "fits"),
    pytest.param(
        incoming().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [existing("nodeA", {"foo": "", "bar": ""}, name="pod1").obj()],
        A_B, None, [None, None],
        id="incoming pod's affinity: all terms must match a pod, then all topology keys"),
    pytest.param(
        incoming().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [existing("nodeA", {"foo": ""}, name="pod1").obj(),
         existing("nodeB", {"bar": ""}, name="pod2").obj()],
        A_B_Z2, None, [AFFINITY_UAU, AFFINITY_UAU],
        id="incoming pod's affinity: all terms must be matched by the same pod"),
]


@pytest.mark.parametrize("pod, pods, nodes, want_pre_filter, want_filters",
                         MULTIPLE_NODES_CASES)
def test_required_affinity_multiple_nodes(pod, pods, nodes, want_pre_filter, want_filters):
    pre, statuses = run_filters(pod, pods, nodes, namespaces={"NS1": {}})
    assert pre == want_pre_filter
    if pre is None:
        assert statuses == want_filters


def test_filter_without_pre_filter_state_is_an_error():
    pl, snap = setup([node("n", {})])
    got = pl.filter(CycleState(), PodInfo(make_pod().obj()), snap.get("n"))
    assert got == Status(Code.Error,
                         err='error reading "PreFilterInterPodAffinity" from cycleState: '
                             'not found')


# -- TestPreFilterStateAddRemovePod -----------------------------------------------------------
SELECTOR1 = {"foo": "bar"}
ANTI_FOO_BAR = [term("region", selector(expr("foo", "In", "bar")))]
COMPLEX = [term("region", selector(expr("foo", "In", "bar", "buzz"))),
           term("zone", selector(expr("service", "NotIn", "bar", "security", "test")))]
ADD_REMOVE_NODES = [node("nodeA", {"region": "r1", "zone": "z11"}),
                    node("nodeB", {"region": "r1", "zone": "z12"}),
                    node("nodeC", {"region": "r2", "zone": "z21"})]


def _p(name, labels=None, node_name=None, aff=None):
    w = make_pod(name).labels(labels or {})
    if node_name:
        w.node(node_name)
    if aff:
        w.affinity(aff)
    return w.obj()


ADD_REMOVE_CASES = [
    pytest.param(
        _p("pending", SELECTOR1, aff=affinity(anti_required=ANTI_FOO_BAR)),
        [_p("p1", SELECTOR1, "nodeA"),
         _p("p2", None, "nodeC", affinity(anti_required=ANTI_FOO_BAR))],
        _p("addedPod", SELECTOR1, "nodeB", affinity(anti_required=ANTI_FOO_BAR)),
        {("region", "r1"): 2}, {},
        id="anti-affinity counts follow an added and removed pod"),
    pytest.param(
        _p("pending", SELECTOR1, aff=affinity(anti_required=COMPLEX)),
        [_p("p1", SELECTOR1, "nodeA"),
         _p("p2", None, "nodeC", affinity(anti_required=ANTI_FOO_BAR))],
        _p("addedPod", SELECTOR1, "nodeA", affinity(anti_required=COMPLEX)),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {},
        id="anti-affinity counts with several terms follow an added and removed pod"),
    pytest.param(
        _p("pending", SELECTOR1, aff=affinity(required=COMPLEX)),
        [_p("p1", SELECTOR1, "nodeA"),
         _p("p2", None, "nodeC", affinity(required=COMPLEX, anti_required=ANTI_FOO_BAR))],
        _p("addedPod", SELECTOR1, "nodeA", affinity(anti_required=COMPLEX)),
        {}, {("region", "r1"): 2, ("zone", "z11"): 2},
        id="affinity and anti-affinity counts follow an added and removed pod"),
]


def _counts(s):
    return (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)


@pytest.mark.parametrize("pending, existing_pods, added, want_anti, want_affinity",
                         ADD_REMOVE_CASES)
def test_pre_filter_state_add_remove_pod(pending, existing_pods, added, want_anti,
                                         want_affinity):
    def pre_filtered(pods):
        pl, snap = setup(ADD_REMOVE_NODES, pods)
        state = CycleState()
        _, s = pl.pre_filter(state, PodInfo(pending), snap.list())
        assert s is None
        return pl, state, snap

    _, all_state, _ = pre_filtered(existing_pods + [added])
    pl, state, snap = pre_filtered(existing_pods)
    original = state.read(PRE_FILTER_STATE_KEY).clone()
    node_info = snap.get(added["spec"]["nodeName"])

    assert pl.add_pod(state, PodInfo(pending), PodInfo(added), node_info) is None
    got = state.read(PRE_FILTER_STATE_KEY)
    assert got.anti_affinity_counts == want_anti
    assert got.affinity_counts == want_affinity
    assert _counts(got) == _counts(all_state.read(PRE_FILTER_STATE_KEY))

    assert pl.remove_pod(state, PodInfo(pending), PodInfo(added), node_info) is None
    assert _counts(state.read(PRE_FILTER_STATE_KEY)) == _counts(original)


def test_pre_filter_state_clone_copies_the_counts():
    pl, snap = setup([node("node1", {"name": "node1"})],
                     [existing("node1", {"a": "b"}).obj()])
    state = CycleState()
    pl.pre_filter(state, PodInfo(incoming({"a": "b"}).pod_affinity_exists("a", "name")
                                 .pod_anti_affinity_exists("a", "name").obj()), snap.list())
    source = state.read(PRE_FILTER_STATE_KEY)
    clone = state.clone().read(PRE_FILTER_STATE_KEY)
    assert clone is not source and _counts(clone) == _counts(source)
    clone.affinity_counts[("name", "node1")] += 1
    assert source.affinity_counts == {("name", "node1"): 1}


def test_filter_with_a_nominated_pod_added_sees_its_anti_affinity():
    # The pod needs a PreFilter state (it has an anti-affinity term of its own); the nominated
    # pod's required anti-affinity then matches it on nodeA's zone only.
    pl, snap = setup(A_B_Z2)
    pending = PodInfo(incoming({"app": "web"}).pod_anti_affinity_exists("db", "zone").obj())
    state = CycleState()
    _, s = pl.pre_filter(state, pending, snap.list())
    assert s is None
    nominated = PodInfo(existing("nodeA", {"other": ""})
                        .pod_anti_affinity_exists("app", "zone").obj())
    assert pl.add_pod(state, pending, nominated, snap.get("nodeA")) is None
    assert [pl.filter(state, pending, snap.get(n)) for n in ("nodeA", "nodeB")] == [
        EXISTING_ANTI, None]


# -- TestGetTPMapMatchingIncomingAffinityAntiAffinity -----------------------------------------
def _normal(*labels):
    w = make_pod("normal").node("nodeA")
    for lab in labels:
        w.label(lab, "")
    return w.obj()


NODE_A = node("nodeA", {"hostname": "nodeA"})
HOST_A = {("hostname", "nodeA"): 1}

INCOMING_COUNT_CASES = [
    pytest.param([], make_pod("aaa-normal").obj(), {}, {}, id="nil test"),
    pytest.param([_normal("aaa")], make_pod("aaa-normal").obj(), {}, {},
                 id="incoming pod without affinity or anti-affinity causes a no-op"),
    pytest.param([_normal("bbb")],
                 make_pod("aaa-anti").pod_affinity_exists("aaa", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname").obj(), {}, {},
                 id="no pod has a label that violates the incoming pod's affinity and "
                    "anti-affinity"),
    pytest.param([_normal("aaa")],
                 make_pod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname").obj(), HOST_A, HOST_A,
                 id="existing pod matches the incoming pod's affinity and anti-affinity, single "
                    "term"),
    pytest.param([_normal("aaa", "bbb")],
                 make_pod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
                 .pod_affinity_exists("bbb", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname").obj(),
                 {("hostname", "nodeA"): 2}, HOST_A,  # 2: one for each affinity term
                 id="existing pod matches the incoming pod's affinity and anti-affinity, "
                    "multiple terms"),
    pytest.param([_normal("aaa")],
                 make_pod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
                 .pod_affinity_exists("bbb", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname")
                 .pod_anti_affinity_exists("bbb", "hostname").obj(), {}, HOST_A,
                 id="existing pod does not match the incoming pod's affinity but matches its "
                    "anti-affinity"),
    pytest.param([_normal("aaa", "bbb")],
                 make_pod("anaffi-antiaffiti").pod_affinity_exists("aaa", "hostname")
                 .pod_affinity_exists("ccc", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname")
                 .pod_anti_affinity_exists("ccc", "hostname").obj(), {}, HOST_A,
                 id="incoming pod's anti-affinity has several terms and the existing pod "
                    "violates one, case 1"),
    pytest.param([_normal("bbb")],
                 make_pod("affi-antiaffi").pod_affinity_exists("aaa", "hostname")
                 .pod_affinity_exists("bbb", "hostname")
                 .pod_anti_affinity_exists("aaa", "hostname")
                 .pod_anti_affinity_exists("bbb", "hostname").obj(), {}, HOST_A,
                 id="incoming pod's anti-affinity has several terms and the existing pod "
                    "violates one, case 2"),
]


@pytest.mark.parametrize("pods, pod, want_affinity, want_anti", INCOMING_COUNT_CASES)
def test_incoming_affinity_anti_affinity_counts(pods, pod, want_affinity, want_anti):
    snap = Snapshot.build([NODE_A], pods)
    info = pod_affinity_info(PodInfo(pod))
    got = incoming_affinity_anti_affinity_counts(info.required_affinity,
                                                 info.required_anti_affinity, snap.list())
    assert got == (want_affinity, want_anti)


# -- TestPreferredAffinity --------------------------------------------------------------------
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}


def _pref(weight, topology_key, *expressions, **kw):
    return weighted(weight, term(topology_key, selector(*expressions), **kw))


STAY_WITH_S1_IN_REGION = affinity(preferred=[_pref(5, "region", expr("security", "In", "S1"))])
STAY_WITH_S2_IN_REGION = affinity(preferred=[_pref(6, "region", expr("security", "In", "S2"))])
AFFINITY3 = affinity(preferred=[
    _pref(8, "region", expr("security", "NotIn", "S1"), expr("security", "In", "S2")),
    _pref(2, "region", expr("security", "Exists"), expr("wrongkey", "DoesNotExist"))])
HARD_AFFINITY = affinity(required=[
    term("region", selector(expr("security", "In", "S1", "value2"))),
    term("region", selector(expr("security", "Exists"), expr("wrongkey", "DoesNotExist")))])
AWAY_FROM_S1_IN_AZ = affinity(anti_preferred=[_pref(5, "az", expr("security", "In", "S1"))])
AWAY_FROM_S2_IN_AZ = affinity(anti_preferred=[_pref(5, "az", expr("security", "In", "S2"))])
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = affinity(
    preferred=[_pref(8, "region", expr("security", "In", "S1"))],
    anti_preferred=[_pref(5, "az", expr("security", "In", "S2"))])
AFFINITY_NAMESPACE_SELECTOR = affinity(preferred=[
    _pref(5, "region", expr("security", "In", "S1"), namespaces=["subteam2.team2"],
          namespace_selector=TEAM1)])
ANTI_AFFINITY_NAMESPACE_SELECTOR = affinity(anti_preferred=[
    _pref(5, "region", expr("security", "In", "S1"), namespaces=["subteam2.team2"],
          namespace_selector=TEAM1)])
INVALID_AFFINITY_LABELS = affinity(preferred=[
    _pref(8, "region", expr("security", "In", "{{.bad-value.}}"))])
INVALID_ANTI_AFFINITY_LABELS = affinity(anti_preferred=[
    _pref(5, "az", expr("security", "In", "{{.bad-value.}}"))])


def _pod(labels=None, aff=None, namespace="default"):
    return _p("incoming", labels, None, aff) if namespace == "default" else (
        make_pod("incoming", namespace).labels(labels or {}).affinity(aff or {}).obj())


def _on(node_name, labels=None, aff=None, namespace="default"):
    w = make_pod("existing", namespace).labels(labels or {}).node(node_name)
    if aff:
        w.affinity(aff)
    return w.obj()


N_CHINA_INDIA_AZ1 = [node("node1", RG_CHINA), node("node2", RG_INDIA), node("node3", AZ1)]

PREFERRED_CASES = [
    pytest.param(
        _pod(S1), [], N_CHINA_INDIA_AZ1, {}, SKIP,
        id="all nodes have the same priority when there is no affinity"),
    # region China +5 (S1 pod on node1); node3's S1 pod has no region; India's pod is S2.
    # raw [5, 0, 0] -> min 0, max 5 -> [100, 0, 0]
    pytest.param(
        _pod(S1, STAY_WITH_S1_IN_REGION),
        [_on("node1", S1), _on("node2", S2), _on("node3", S1)], N_CHINA_INDIA_AZ1, {},
        [100, 0, 0],
        id="affinity: the node matching the topology key and the pods scores higher than nodes "
           "missing either"),
    # region China +5; node1 and node2 are both in China: raw [5, 5, 0] -> [100, 100, 0]
    pytest.param(
        _pod(None, STAY_WITH_S1_IN_REGION), [_on("node1", S1)],
        [node("node1", RG_CHINA), node("node2", RG_CHINA_AZ1), node("node3", RG_INDIA)], {},
        [100, 100, 0],
        id="all nodes sharing the topology value of a node with a matching pod get the same "
           "score"),
    # 4 S2 pods in China (node1 x2, node3, node4) -> 4*6 = 24; 2 in India -> 12.
    # raw [24, 12, 24, 24, 12] -> 100*(24-12)/12 = 100, 0
    pytest.param(
        _pod(S1, STAY_WITH_S2_IN_REGION),
        [_on("node1", S2), _on("node1", S2), _on("node2", S2), _on("node3", S2),
         _on("node4", S2), _on("node5", S2)],
        [node("node1", RG_CHINA), node("node2", RG_INDIA), node("node3", RG_CHINA),
         node("node4", RG_CHINA), node("node5", RG_INDIA)], {},
        [100, 0, 100, 100, 0],
        id="affinity: the region with more matching pods scores higher"),
    # node1's S1 pod matches only the weight-2 term -> China 2; node2's S2 pod matches both
    # -> India 8+2 = 10; node3 has no region. raw [2, 10, 0] -> 100*2/10 = 20, 100, 0
    pytest.param(
        _pod(S1, AFFINITY3), [_on("node1", S1), _on("node2", S2), _on("node3", S1)],
        N_CHINA_INDIA_AZ1, {}, [20, 100, 0],
        id="affinity: different label operators and values, including some match failures"),
    # the existing S2 pod in India prefers S2 in its region: India +6 -> raw [0, 6, 0]
    pytest.param(
        _pod(S2), [_on("node1", S1, STAY_WITH_S1_IN_REGION),
                   _on("node2", S2, STAY_WITH_S2_IN_REGION)],
        N_CHINA_INDIA_AZ1, {}, [0, 100, 0],
        id="affinity symmetry: an existing pod's preferred affinity the pod satisfies counts"),
    # node1's pod selects namespaces labelled team1; the pod's namespace subteam1.team1 is:
    # China +5. node2's term only covers its own namespace. raw [5, 0, 0]
    pytest.param(
        _pod(S1, namespace="subteam1.team1"),
        [_on("node1", S1, AFFINITY_NAMESPACE_SELECTOR), _on("node2", S2, STAY_WITH_S2_IN_REGION)],
        N_CHINA_INDIA_AZ1, {}, [100, 0, 0],
        id="affinity symmetry with a namespace selector"),
    # China -5 -> raw [-5, 0, 0] -> min -5, max 0 -> [0, 100*5/5, 100*5/5]
    pytest.param(
        _pod(S1, namespace="subteam1.team1"),
        [_on("node1", S1, ANTI_AFFINITY_NAMESPACE_SELECTOR),
         _on("node2", S2, STAY_WITH_S2_IN_REGION)],
        N_CHINA_INDIA_AZ1, {}, [0, 100, 100],
        id="anti-affinity symmetry with a namespace selector"),
    # both required terms of each existing pod match the S1 pod: hardPodAffinityWeight 1 each
    # -> China 2, India 2 -> raw [2, 2, 0] -> [100, 100, 0]
    pytest.param(
        _pod(S1), [_on("node1", S1, HARD_AFFINITY), _on("node2", S2, HARD_AFFINITY)],
        N_CHINA_INDIA_AZ1, {"hardPodAffinityWeight": 1}, [100, 100, 0],
        id="affinity symmetry: existing pods' required affinity counts with "
           "hardPodAffinityWeight"),
    # az1 -5 (S1 pod on node1); node2's pod is S2. raw [-5, 0] -> [0, 100]
    pytest.param(
        _pod(S1, AWAY_FROM_S1_IN_AZ), [_on("node1", S1), _on("node2", S2)],
        [node("node1", AZ1), node("node2", RG_CHINA)], {}, [0, 100],
        id="anti-affinity: a node without matching pods scores higher"),
    # az1 -5; node2's S1 pod is on a node without az. raw [-5, 0] -> [0, 100]
    pytest.param(
        _pod(S1, AWAY_FROM_S1_IN_AZ), [_on("node1", S1), _on("node2", S1)],
        [node("node1", AZ1), node("node2", RG_CHINA)], {}, [0, 100],
        id="anti-affinity: a node without the topology key scores higher than one with "
           "matching pods"),
    # az1 -10 (two S1 pods). raw [-10, 0] -> [0, 100]
    pytest.param(
        _pod(S1, AWAY_FROM_S1_IN_AZ), [_on("node1", S1), _on("node1", S1), _on("node2", S2)],
        [node("node1", AZ1), node("node2", RG_INDIA)], {}, [0, 100],
        id="anti-affinity: the node with more matching pods scores lower"),
    # node1's pod avoids S2 in its az: az1 -5; node2's pod avoids S1 (no match). raw [-5, 0]
    pytest.param(
        _pod(S2), [_on("node1", S1, AWAY_FROM_S2_IN_AZ), _on("node2", S2, AWAY_FROM_S1_IN_AZ)],
        [node("node1", AZ1), node("node2", AZ2)], {}, [0, 100],
        id="anti-affinity symmetry: an existing pod's preferred anti-affinity the pod matches "
           "counts"),
    # China +8 (S1 pod on node1); the az1 pod is S1, not S2. raw [8, 0] -> [100, 0]
    pytest.param(
        _pod(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_on("node1", S1), _on("node2", S1)],
        [node("node1", RG_CHINA), node("node2", AZ1)], {}, [100, 0],
        id="affinity and anti-affinity: only preferred terms are considered"),
    # China: 5 S1 pods * 8 = 40; India: 2 * 8 = 16; no S2 pods.
    # raw [40, 16, 40, 40, 16] -> [100, 0, 100, 100, 0]
    pytest.param(
        _pod(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_on("node1", S1), _on("node1", S1), _on("node2", S1), _on("node3", S1),
         _on("node3", S1), _on("node4", S1), _on("node5", S1)],
        [node("node1", RG_CHINA_AZ1), node("node2", RG_INDIA), node("node3", RG_CHINA),
         node("node4", RG_CHINA), node("node5", RG_INDIA)], {},
        [100, 0, 100, 100, 0],
        id="affinity and anti-affinity: pods of one service gather in a region"),
    # affinity 8 (China), anti-affinity -5 (az1), affinity symmetry 8 (India, node3's pod
    # prefers S1), anti-affinity symmetry -5 (az2, node4's pod avoids S1).
    # raw [8, -5, 8, -5] -> min -5, max 8, diff 13 -> [100, 0, 100, 0]
    pytest.param(
        _pod(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [_on("node1", S1), _on("node2", S2),
         _on("node3", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         _on("node4", None, AWAY_FROM_S1_IN_AZ)],
        [node("node1", RG_CHINA), node("node2", AZ1), node("node3", RG_INDIA),
         node("node4", AZ2)], {},
        [100, 0, 100, 0],
        id="affinity, anti-affinity and symmetry together"),
    # only node2 hosts a pod with affinity; it prefers S1 in its region: China +8.
    # raw [8, 8] -> max == min -> [0, 0]
    pytest.param(
        _pod(S1), [_on("node1", S1), _on("node2", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
        [node("node1", RG_CHINA), node("node2", RG_CHINA)], {}, [0, 0],
        id="nodes of a topology without pods with affinity still get its score"),
    pytest.param(
        _pod(None, INVALID_AFFINITY_LABELS), [],
        [node("node1", RG_CHINA), node("node2", RG_CHINA)], {},
        Status(Code.Error, 'Invalid value: "{{.bad-value.}}"'),
        id="an invalid preferred affinity fails PreScore"),
    pytest.param(
        _pod(None, INVALID_ANTI_AFFINITY_LABELS), [],
        [node("node1", RG_CHINA), node("node2", RG_CHINA)], {},
        Status(Code.Error, 'Invalid value: "{{.bad-value.}}"'),
        id="an invalid preferred anti-affinity fails PreScore"),
    # the selector unrolls to subteam1.team1 and subteam2.team1 (plus subteam2.team2 listed):
    # China +5 +5 (subteam1.team2 is not covered), India +5. raw [10, 5] -> [100, 0]
    pytest.param(
        _pod(S1, AFFINITY_NAMESPACE_SELECTOR, "subteam1.team1"),
        [_on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team2"),
         _on("node2", S1, namespace="subteam2.team1")],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)], {}, [100, 0],
        id="affinity with pods matching the namespaceSelector"),
    # China +5 +5 +5 (subteam2.team2 is listed), India +5. raw [15, 5] -> [100, 0]
    pytest.param(
        _pod(S1, AFFINITY_NAMESPACE_SELECTOR, "subteam1.team1"),
        [_on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam2.team2"),
         _on("node2", S1, namespace="subteam2.team1")],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)], {}, [100, 0],
        id="affinity with pods matching both the namespaceSelector and the namespaces"),
    # China -10, India -5. raw [-10, -5] -> [0, 100]
    pytest.param(
        _pod(S1, ANTI_AFFINITY_NAMESPACE_SELECTOR, "subteam1.team1"),
        [_on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team2"),
         _on("node2", S1, namespace="subteam2.team1")],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)], {}, [0, 100],
        id="anti-affinity with pods matching the namespaceSelector"),
    # China -15, India -5. raw [-15, -5] -> [0, 100]
    pytest.param(
        _pod(S1, ANTI_AFFINITY_NAMESPACE_SELECTOR, "subteam1.team1"),
        [_on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam1.team1"),
         _on("node1", S1, namespace="subteam2.team2"),
         _on("node2", S1, namespace="subteam2.team1")],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)], {}, [0, 100],
        id="anti-affinity with pods matching both the namespaceSelector and the namespaces"),
    pytest.param(
        _pod(S2), [_on("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                   _on("node2", S2, STAY_WITH_S2_IN_REGION)],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)],
        {"ignorePreferredTermsOfExistingPods": True}, SKIP,
        id="preferred terms of existing pods are ignored when asked to"),
    # node2's pod prefers S2 in India: +6; node1's anti term (S2 in az) finds no az on node1.
    # raw [0, 6] -> [0, 100]
    pytest.param(
        _pod(S2), [_on("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                   _on("node2", S2, STAY_WITH_S2_IN_REGION)],
        [node("node1", RG_CHINA), node("node2", RG_INDIA)],
        {"ignorePreferredTermsOfExistingPods": False}, [0, 100],
        id="preferred terms of existing pods count by default"),
    pytest.param(_pod(S2), [], [], {}, SKIP, id="no nodes to score"),
]


@pytest.mark.parametrize("pod, pods, nodes, args, want", PREFERRED_CASES)
def test_preferred_affinity(pod, pods, nodes, args, want):
    got = run_scoring(pod, pods, nodes, {"hardPodAffinityWeight": 1, **args})
    if isinstance(want, Status) and want.code == Code.Error:
        assert got.code == Code.Error and want.reasons[0] in got.message()
    else:
        assert got == want


def test_preferred_affinity_ignored_for_existing_pods_still_counts_when_the_pod_has_terms():
    # With ignorePreferredTermsOfExistingPods the existing pods' preferred terms still count
    # when the incoming pod has preferred terms of its own (only the shortcut skips).
    # China: +5 (incoming prefers S1, node1's pod is S1) +5 (node1's pod prefers S1 -> the
    # incoming S1 pod matches). raw [10, 0] -> [100, 0]
    got = run_scoring(_pod(S1, STAY_WITH_S1_IN_REGION),
                      [_on("node1", S1, STAY_WITH_S1_IN_REGION)],
                      [node("node1", RG_CHINA), node("node2", RG_INDIA)],
                      {"ignorePreferredTermsOfExistingPods": True})
    assert got == [100, 0]


# -- TestPreferredAffinityWithHardPodAffinitySymmetricWeight ----------------------------------
HARD_POD_AFFINITY = affinity(required=[
    term("region", selector(expr("service", "In", "S1")),
         namespaces=["default", "subteam2.team2"], namespace_selector=TEAM1)])
SERVICE_S1 = {"service": "S1"}
HARD_NODES = [node("node1", RG_CHINA), node("node2", RG_INDIA), node("node3", AZ1)]
HARD_PODS = [_on("node1", None, HARD_POD_AFFINITY), _on("node2", None, HARD_POD_AFFINITY)]

HARD_WEIGHT_CASES = [
    # each existing pod's required term matches the S1 pod: China +1, India +1.
    # raw [1, 1, 0] -> [100, 100, 0]
    pytest.param(_pod(SERVICE_S1), 1, [100, 100, 0], id="with the default weight"),
    pytest.param(_pod(SERVICE_S1), 0, SKIP, id="with zero weight"),
    pytest.param(_pod(SERVICE_S1, namespace="subteam1.team2"), 1, SKIP,
                 id="with no matching namespace"),
    # subteam1.team1 carries team=team1: raw [1, 1, 0] -> [100, 100, 0]
    pytest.param(_pod(SERVICE_S1, namespace="subteam1.team1"), 1, [100, 100, 0],
                 id="with a matching namespaceSelector"),
    # subteam2.team2 is listed: raw [1, 1, 0] -> [100, 100, 0]
    pytest.param(_pod(SERVICE_S1, namespace="subteam2.team2"), 1, [100, 100, 0],
                 id="with matching namespaces"),
]


@pytest.mark.parametrize("pod, weight, want", HARD_WEIGHT_CASES)
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(pod, weight, want):
    assert run_scoring(pod, HARD_PODS, HARD_NODES, {"hardPodAffinityWeight": weight}) == want


def test_hard_pod_affinity_weight_scales_the_symmetric_score():
    # weight 3: China +3 (node1 and node2 in China), India +3 (node3) -> raw [3, 3, 3, 0] is
    # flat on the labelled nodes: [100, 100, 100, 0]; the raw scores carry the weight.
    pods = [_on("node1", None, HARD_POD_AFFINITY), _on("node3", None, HARD_POD_AFFINITY)]
    nodes = [node("node1", RG_CHINA), node("node2", RG_CHINA), node("node3", RG_INDIA),
             node("node4", AZ1)]
    pl, snap = setup(nodes, pods, {"hardPodAffinityWeight": 3})
    state, pi = CycleState(), PodInfo(_pod(SERVICE_S1))
    assert pl.pre_score(state, pi, snap.list()) is None
    assert [pl.score(state, pi, snap.get(f"node{i}"))[0] for i in (1, 2, 3, 4)] == [3, 3, 3, 0]


# -- NormalizeScore arithmetic ----------------------------------------------------------------
NORMALIZE_CASES = [
    pytest.param([2, 10, 0], [20, 100, 0], id="scores map min..max onto 0..100"),
    pytest.param([8, -5, 8, -5], [100, 0, 100, 0], id="negative scores are shifted by the min"),
    # 100 * (1 / 3) = 33.33 -> 33; 100 * (2 / 3) = 66.67 -> 66 (truncated, not rounded)
    pytest.param([0, 1, 2, 3], [0, 33, 66, 100], id="fractions are truncated"),
    pytest.param([7, 7, 7], [0, 0, 0], id="when max equals min every node gets 0"),
    pytest.param([], [], id="no scores"),
]


@pytest.mark.parametrize("raw, want", NORMALIZE_CASES)
def test_normalize(raw, want):
    assert normalize(raw) == want


# -- args, namespaces, parsing ----------------------------------------------------------------
ARGS_CASES = [
    pytest.param({"hardPodAffinityWeight": 0}, [], id="weight 0 is allowed"),
    pytest.param({"hardPodAffinityWeight": 100}, [], id="weight 100 is allowed"),
    pytest.param({"hardPodAffinityWeight": 101},
                 ["args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"],
                 id="weight above 100 is rejected"),
    pytest.param({"hardPodAffinityWeight": -1},
                 ["args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
                 id="negative weight is rejected"),
]


@pytest.mark.parametrize("args, want", ARGS_CASES)
def test_validate_args(args, want):
    assert validate_args(args, "args") == want


def test_constructor_rejects_an_out_of_range_weight():
    with pytest.raises(ValueError, match=r"^hardPodAffinityWeight: Invalid value: 110: not in "
                                         r"valid range \[0, 100\]$"):
        InterPodAffinity({"hardPodAffinityWeight": 110})


def test_defaults_when_args_are_missing():
    pl = InterPodAffinity()
    assert (pl.hard_pod_affinity_weight, pl.ignore_preferred_terms_of_existing_pods) == (1, False)


def test_namespace_labels_can_come_from_the_handle():
    # No namespace_labels argument: the handle's mapping is read at PreFilter time.
    snap = Snapshot.build([NODE1], [existing("node1", POD_LABEL, namespace="subteam1.team1")
                                    .obj()])
    handle = Handle(snap)
    pl = InterPodAffinity({}, handle)
    handle.namespace_labels = NAMESPACES
    pod = PodInfo(pod_with_terms("default", POD_LABEL2, [
        term("region", IN_SECURITYSCAN, namespace_selector=TEAM1)]))
    state = CycleState()
    assert pl.pre_filter(state, pod, snap.list()) == (None, None)
    assert pl.filter(state, pod, snap.get("node1")) is None


def test_without_namespace_labels_a_label_selector_selects_no_namespace():
    pre, statuses = run_filters(
        pod_with_terms("default", POD_LABEL2, [
            term("region", IN_SECURITYSCAN, namespace_selector=TEAM1)]),
        [existing("node1", POD_LABEL, namespace="subteam1.team1").obj()], [NODE1],
        namespaces={})
    assert (pre, statuses) == (None, [AFFINITY_UAU])


def test_a_term_without_namespaces_or_selector_covers_the_pods_own_namespace():
    info = pod_affinity_info(PodInfo(incoming(namespace="ns1")
                                     .pod_affinity_exists("a", "zone").obj()))
    assert info.required_affinity[0].namespaces == frozenset({"ns1"})


def test_a_term_without_label_selector_matches_no_pod():
    pre, statuses = run_filters(
        pod_with_terms("default", POD_LABEL2, anti_terms=[term("region", None)]),
        [EXISTING], [NODE1])
    assert (pre, statuses) == (None, [None])


def test_equal_terms_of_different_pods_are_shared():
    a = pod_affinity_info(PodInfo(existing("n1", name="a").pod_anti_affinity_exists("x", "zone")
                                  .obj()))
    b = pod_affinity_info(PodInfo(existing("n2", name="b").pod_anti_affinity_exists("x", "zone")
                                  .obj()))
    assert a.required_anti_affinity[0] is b.required_anti_affinity[0]


def test_preferred_anti_affinity_of_the_incoming_pod_is_unused_by_filter():
    # A preferred term is a preference: PreFilter skips (nothing required anywhere).
    pre, _ = run_filters(incoming().pod_anti_affinity_exists("service", "zone", PREFERRED)
                         .obj(), [EXISTING], [NODE1])
    assert pre == SKIP


# -- queueing hints (plugin_test.go Test_isSchedulableAfterPodChange and
#    Test_isSchedulableAfterNodeChange) ------------------------------------------------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _aff():
    return make_pod("p").pod_affinity_in("service", "region", ["securityscan", "value2"]).obj()


def _anti():
    return make_pod("p").pod_anti_affinity_in("service", "region",
                                              ["securityscan", "value2"]).obj()


def _two_terms():
    return make_pod("p").pod_affinity_exists("aaa", "hostname").pod_affinity_exists(
        "bbb", "hostname").obj()


def _scheduled(labels, node="fake-node"):
    w = make_pod("other").labels(labels)
    if node:
        w.node(node)
    return w.obj()


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(_aff(), None, _scheduled({"service": "securityscan"}), QUEUE,
                 id="add a pod which matches the pod affinity"),
    pytest.param(_aff(), None, _scheduled({"service": "securityscan"}, node=None), QUEUE_SKIP,
                 id="add an un-scheduled pod"),
    pytest.param(_aff(), None, _scheduled({"aaa": "a"}), QUEUE_SKIP,
                 id="add a pod which doesn't match the pod affinity"),
    pytest.param(_aff(), _scheduled({"aaa": "a"}), _scheduled({"service": "securityscan"}), QUEUE,
                 id="update a pod from non-match to match pod affinity"),
    pytest.param(_aff(), _scheduled({"service": "value2"}), _scheduled({"service": "securityscan"}), QUEUE_SKIP,
                 id="the updating pod matches target pod's affinity both before and after"),
    pytest.param(_aff(), _scheduled({"service": "securityscan"}, node=None),
                 _scheduled({"service": "securityscan"}, node=None), QUEUE_SKIP,
                 id="update an un-scheduled pod"),
    pytest.param(_aff(), _scheduled({"service": "securityscan"}), _scheduled({"aaa": "a"}), QUEUE_SKIP,
                 id="update a pod from match to non-match the pod affinity"),
    pytest.param(_two_terms(), _scheduled({"aaa": "a"}), _scheduled({"service": "securityscan"}), QUEUE_SKIP,
                 id="update a pod from match to non-match pod's affinity - multiple terms case"),
    pytest.param(_two_terms(), _scheduled({"aaa": "a"}), _scheduled({"aaa": "", "bbb": ""}), QUEUE,
                 id="update a pod from non-match to match pod's affinity - multiple terms case"),
    pytest.param(_anti(), _scheduled({"service": "securityscan"}), _scheduled({"service": "aaaa"}), QUEUE,
                 id="modify pod label from satisfying anti-affinity to not satisfying it"),
    pytest.param(_anti(), _scheduled({"service": "bbb"}), _scheduled({"service": "securityscan"}), QUEUE_SKIP,
                 id="modify pod label from not satisfying anti-affinity to satisfying it"),
    pytest.param(_anti(), _scheduled({"aaa": "a"}), None, QUEUE_SKIP,
                 id="delete a pod which doesn't match pod's anti-affinity"),
    pytest.param(_anti(), _scheduled({"service": "securityscan"}), None, QUEUE,
                 id="delete a pod which matches pod's anti-affinity"),
])
def test_is_schedulable_after_pod_change(pod, old, new, want):
    assert InterPodAffinity().is_schedulable_after_pod_change(pod, old, new) == want


def _zone_aff():
    return make_pod("p").pod_affinity_in("service", "zone", ["securityscan", "value2"]).obj()


def _zone_anti():
    return make_pod("p").pod_anti_affinity(term("zone", {"matchLabels": {"another": "label"}})).obj()


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(_zone_aff(), None, node("node-a", {"zone": "zone1"}), QUEUE,
                 id="add a new node with matched pod affinity topologyKey"),
    pytest.param(_aff(), None, node("node-a", {"zone": "zone1"}), QUEUE_SKIP,
                 id="add a new node without matched topologyKey"),
    pytest.param(_zone_aff(), node("node-a", {"aaa": "a"}), node("node-a", {"aaa": "b"}),
                 QUEUE_SKIP, id="update node label but not topologyKey"),
    pytest.param(_zone_aff(), node("node-a", {"zone": "zone1"}),
                 node("node-a", {"zone": "zone1", "unrelated-label": "unrelated"}), QUEUE_SKIP,
                 id="update node label that isn't related to the pod affinity"),
    pytest.param(_zone_aff(), node("node-a", {"zone": "zone1"}), node("node-a", {"zone": "zone2"}),
                 QUEUE, id="update node with different affinity topologyKey value"),
    pytest.param(_zone_aff(), node("node-a", {"aaa": "a"}), node("node-a", {"zone": "zone1"}),
                 QUEUE, id="update node to have the affinity topology label"),
    pytest.param(_zone_anti(), None, node("node-a", {"zone": "zone1"}), QUEUE,
                 id="add a new node with matched pod anti-affinity topologyKey"),
    pytest.param(_zone_anti(), None, node("node-a"), QUEUE,
                 id="add a new node without matched pod anti-affinity topologyKey"),
    pytest.param(_zone_anti(), node("node-a", {"zone": "zone1"}),
                 node("node-a", {"zone": "zone1", "unrelated-label": "unrelated"}), QUEUE_SKIP,
                 id="update node label that isn't related to the pod anti-affinity"),
    pytest.param(_zone_anti(), node("node-a", {"zone": "zone1"}), node("node-a", {"zone": "zone2"}),
                 QUEUE, id="update node with different anti-affinity topologyKey value"),
    pytest.param(_zone_anti(), node("node-a", {"aaa": "a"}), node("node-a", {"zone": "zone1"}),
                 QUEUE_SKIP, id="update node to have the anti-affinity topology label"),
    pytest.param(_zone_anti(), node("node-a", {"zone": "zone1"}), node("node-a", {"aaa": "a"}),
                 QUEUE, id="update node label not to have anti-affinity topology label"),
])
def test_is_schedulable_after_node_change(pod, old, new, want):
    assert InterPodAffinity().is_schedulable_after_node_change(pod, old, new) == want


def test_a_pod_without_pod_affinity_has_the_terms_of_empty_ones():
    # (no term parsed at all for a pod without podAffinity/podAntiAffinity)
    from kubesim.scheduler.plugins.interpodaffinity import PodAffinityInfo

    def fields(info):
        return (info.required_affinity, info.required_anti_affinity, info.preferred_affinity,
                info.preferred_anti_affinity, info.error, info.scores_incoming, info.match_key,
                info.labels, info.namespace)

    empty = {"requiredDuringSchedulingIgnoredDuringExecution": [],
             "preferredDuringSchedulingIgnoredDuringExecution": []}
    for affinity in (None, {}, {"nodeAffinity": {}}, {"podAffinity": {}}):
        pod = {"metadata": {"name": "p", "labels": {"app": "web"}}, "spec": {}}
        if affinity is not None:
            pod["spec"]["affinity"] = affinity
        parsed = {"metadata": pod["metadata"],
                  "spec": {"affinity": {"podAffinity": empty, "podAntiAffinity": empty}}}
        assert fields(PodAffinityInfo(pod, "ns")) == fields(PodAffinityInfo(parsed, "ns"))
