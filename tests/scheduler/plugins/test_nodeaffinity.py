"""NodeAffinity: mirrors upstream node_affinity_test.go (TestNodeAffinity filter/PreFilter cases,
TestNodeAffinityPriority score cases)."""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.nodeaffinity import (ERR_REASON_CONFLICT, ERR_REASON_ENFORCED,
                                                    ERR_REASON_POD, NodeAffinity,
                                                    RequiredNodeAffinity, preferred_score,
                                                    preferred_terms, required_node_names)

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import node_info, run_filter, run_scores

REJECT = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)


def expr(key, op, *values):
    r = {"key": key, "operator": op}
    if values:
        r["values"] = list(values)
    return r


def term(*exprs, fields=()):
    t = {}
    if exprs:
        t["matchExpressions"] = list(exprs)
    if fields:
        t["matchFields"] = list(fields)
    return t


def name_in(*names):
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def labelled(name="node1", **labels):
    w = make_node(name)
    for k, v in labels.items():
        w.label(k.replace("__", "-"), v)
    return w.obj()


def with_terms(*terms):
    return make_pod("p").required_terms(*terms).obj()


FILTER_CASES = [
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).obj(), labelled(), REJECT,
                 id="missing labels"),
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).obj(), labelled(foo="bar"), None,
                 id="same labels"),
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).obj(),
                 labelled(foo="bar", baz="blah"), None, id="node labels are a superset"),
    pytest.param(make_pod("p").node_selector({"foo": "bar", "baz": "blah"}).obj(),
                 labelled(foo="bar"), REJECT, id="node labels are a subset"),
    pytest.param(with_terms(term(expr("foo", "In", "bar", "value2"))), labelled(foo="bar"), None,
                 id="matchExpressions In matches the node"),
    pytest.param(with_terms(term(expr("kernel-version", "Gt", "0204"))),
                 labelled(kernel__version="0206"), None, id="matchExpressions Gt matches the node"),
    pytest.param(with_terms(term(expr("mem-type", "NotIn", "DDR", "DDR2"))),
                 labelled(mem__type="DDR3"), None, id="matchExpressions NotIn matches the node"),
    pytest.param(with_terms(term(expr("GPU", "Exists"))), labelled(GPU="NVIDIA-GRID-K1"), None,
                 id="matchExpressions Exists matches the node"),
    pytest.param(with_terms(term(expr("foo", "In", "value1", "value2"))), labelled(foo="bar"),
                 REJECT, id="affinity not matching the node's labels does not fit"),
    pytest.param(with_terms({"matchExpressions": []}), labelled(foo="bar"), REJECT,
                 id="an empty term matches no node"),
    pytest.param(make_pod("p").obj(), labelled(foo="bar"), "skipped",
                 id="a pod without affinity or selector skips the filter"),
    pytest.param(with_terms(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
                 labelled(GPU="NVIDIA-GRID-K1"), None, id="expressions in a term are ANDed"),
    pytest.param(with_terms(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))),
                 labelled(GPU="NVIDIA-GRID-K1"), REJECT,
                 id="ANDed expressions with one failing do not match"),
    pytest.param(with_terms(term(expr("foo", "In", "bar", "value2")),
                            term(expr("diffkey", "In", "wrong", "value2"))),
                 labelled(foo="bar"), None, id="terms are ORed"),
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).required_terms(
        term(expr("foo", "Exists"))).obj(), labelled(foo="bar"), None,
        id="affinity and nodeSelector both satisfied"),
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).required_terms(
        term(expr("foo", "Exists"))).obj(), labelled(foo="barrrrrr"), REJECT,
        id="affinity satisfied but nodeSelector not"),
    pytest.param(with_terms(term(expr("foo", "NotIn", "invalid value: ___@#$%^"))),
                 labelled(foo="bar"), REJECT, id="an invalid value makes the term match nothing"),
    pytest.param(with_terms(term(fields=[name_in("node1")])), labelled("node1"), None,
                 id="matchFields In matches the node's name"),
    pytest.param(with_terms(term(fields=[name_in("node1")])), labelled("node2"), REJECT,
                 id="matchFields In does not match another node"),
    pytest.param(with_terms(term(fields=[name_in("node1"), name_in("node2")]),
                            term(expr("foo", "In", "bar"))),
                 labelled("node2", foo="bar"), None,
                 id="two terms: matchFields fails but matchExpressions matches"),
    pytest.param(with_terms(term(expr("foo", "In", "bar"), fields=[name_in("node1")])),
                 labelled("node2", foo="bar"), REJECT,
                 id="one term: matchFields fails though matchExpressions matches"),
    pytest.param(make_pod("p").node_selector({}).obj(), labelled(), None,
                 id="an empty (non-nil) nodeSelector is not skipped and matches"),
]


@pytest.mark.parametrize("pod, node, expected", FILTER_CASES)
def test_filter(pod, node, expected):
    assert run_filter(NodeAffinity(), pod, node) == expected


PRE_FILTER_CASES = [
    pytest.param(with_terms(term(fields=[name_in("node1")])), {"node1"}, None,
                 id="matchFields metadata.name In narrows the nodes"),
    pytest.param(with_terms(term(fields=[name_in("node1", "node2"), name_in("node2", "node3")])),
                 {"node2"}, None, id="requirements in one term intersect"),
    pytest.param(with_terms(term(fields=[name_in("node1")]), term(fields=[name_in("node2")])),
                 {"node1", "node2"}, None, id="terms union"),
    pytest.param(with_terms(term(fields=[name_in("node1")]), term(expr("foo", "Exists"))),
                 None, None, id="a term without names leaves every node eligible"),
    pytest.param(with_terms(term(fields=[name_in("node1"), name_in("node2")])), None,
                 Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT),
                 id="conflicting names in one term are an unresolvable conflict"),
]


@pytest.mark.parametrize("pod, names, status", PRE_FILTER_CASES)
def test_pre_filter(pod, names, status):
    res, s = NodeAffinity().pre_filter(CycleState(), PodInfo(pod), [])
    assert s == status
    assert (None if res is None else res.node_names) == names


ENFORCED_ARGS = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [term(expr("zone", "In", "foo"))]}}}


@pytest.mark.parametrize("pod, node, expected", [
    pytest.param(make_pod("p").obj(), labelled(zone="foo"), None,
                 id="scheduler-enforced affinity matches"),
    pytest.param(make_pod("p").obj(), labelled(zone="bar"),
                 Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED),
                 id="scheduler-enforced affinity does not match"),
    pytest.param(make_pod("p").node_selector({"foo": "bar"}).obj(), labelled(zone="foo"), REJECT,
                 id="enforced affinity matches but the pod's selector does not"),
])
def test_filter_with_added_affinity(pod, node, expected):
    assert run_filter(NodeAffinity(ENFORCED_ARGS), pod, node) == expected


NODES = {
    "node1": labelled("node1", foo="bar"),
    "node2": labelled("node2", key="value"),
    "node3": labelled("node3", az="az1"),
    "node4": labelled("node4", abc="az11", def_="az22"),
    "node5": labelled("node5", foo="bar", key="value", az="az1"),
}

AFFINITY1 = [(2, term(expr("foo", "In", "bar")))]
AFFINITY2 = [(2, term(expr("foo", "In", "bar"))), (4, term(expr("key", "In", "value"))),
             (5, term(expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")))]


def preferring(terms):
    w = make_pod("p")
    for weight, t in terms:
        w.preferred(weight, t)
    return w.obj()


SCORE_CASES = [
    pytest.param(make_pod("p").obj(), ["node1", "node2", "node3"], "skipped",
                 id="without preferred affinity PreScore skips"),
    pytest.param(preferring(AFFINITY1), ["node2", "node3", "node4"], [0, 0, 0],
                 id="no node matches the preferred affinity: all zero"),
    pytest.param(preferring(AFFINITY1), ["node1", "node2", "node3"], [100, 0, 0],
                 # raw [2, 0, 0] -> 100*2/2 = 100
                 id="only node1 matches the preferred affinity"),
    pytest.param(preferring(AFFINITY2), ["node1", "node5", "node2"], [18, 100, 36],
                 # raw [2, 2+4+5=11, 4] -> 100*2/11 = 18, 100, 100*4/11 = 36
                 id="every node matches some terms: node5 matches all and scores highest"),
    pytest.param(preferring([(0, term(expr("foo", "In", "bar")))]), ["node1"], [0],
                 id="a zero-weight term counts nothing"),
]


@pytest.mark.parametrize("pod, names, expected", SCORE_CASES)
def test_score(pod, names, expected):
    assert run_scores(NodeAffinity(), pod, [NODES[n] for n in names]) == expected


def test_added_preferred_terms_score_with_the_pods():
    args = {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 3, "preference": term(expr("key", "In", "value"))}]}}
    # node1: pod 2 + added 0 = 2; node5: 11 + 3 = 14; node2: 4 + 3 = 7 -> 100*2/14=14, 100, 50
    got = run_scores(NodeAffinity(args), preferring(AFFINITY2),
                     [NODES["node1"], NODES["node5"], NODES["node2"]])
    assert got == [14, 100, 50]


def test_pure_helpers():
    assert required_node_names([term(fields=[name_in("a", "b")])]) == {"a", "b"}
    assert required_node_names([term(expr("x", "Exists"))]) is None
    terms = preferred_terms([{"weight": 2, "preference": {}}, {"weight": 3, "preference": term(
        expr("foo", "In", "bar"))}])
    assert terms == [(3, term(expr("foo", "In", "bar")))]
    assert preferred_score(terms, NODES["node1"]) == 3
    ra = RequiredNodeAffinity.of(make_pod("p").node_selector({"foo": "bar"}).obj())
    assert ra.match(NODES["node1"]) and not ra.match(NODES["node2"])
    assert node_info(NODES["node1"]).labels["foo"] == "bar"


# -- queueing hints (node_affinity_test.go Test_isSchedulableAfterNodeChange) ---------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402

_ENFORCED = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "foo", "operator": "In", "values": ["bar"]}]}]}}}


@pytest.mark.parametrize("args, old, new, want", [
    pytest.param({}, None, make_node().obj(), QUEUE_SKIP, id="skip-queue-on-add"),
    pytest.param({}, None, make_node().label("foo", "bar").obj(), QUEUE, id="queue-on-add"),
    pytest.param({}, make_node().obj(), make_node().capacity().obj(), QUEUE_SKIP,
                 id="skip-unrelated-changes"),
    pytest.param({}, make_node().obj(), make_node().label("k", "v").obj(), QUEUE_SKIP,
                 id="skip-unrelated-changes-on-labels"),
    pytest.param({}, make_node().label("foo", "bar").obj(), make_node().label("k", "v").obj(),
                 QUEUE_SKIP, id="skip-labels-changes-on-node-from-suitable-to-unsuitable"),
    pytest.param({}, make_node().obj(), make_node().label("foo", "bar").obj(), QUEUE,
                 id="queue-on-labels-change-makes-pod-schedulable"),
    pytest.param({}, make_node().label("foo", "bar").obj(),
                 make_node().capacity().label("foo", "bar").obj(), QUEUE_SKIP,
                 id="skip-unrelated-change-that-keeps-pod-schedulable"),
    pytest.param(_ENFORCED, None, make_node().obj(), QUEUE_SKIP,
                 id="skip-queue-on-add-scheduler-enforced-node-affinity"),
    pytest.param(_ENFORCED, None, make_node().label("foo", "bar").obj(), QUEUE,
                 id="queue-on-add-scheduler-enforced-node-affinity"),
])
def test_is_schedulable_after_node_change(args, old, new, want):
    pod = make_pod().node_affinity_in("foo", ["bar"]).obj()
    assert NodeAffinity(args).is_schedulable_after_node_change(pod, old, new) == want


def test_the_compiled_filter_remembers_a_verdict_per_node_object_and_selectors():
    """A node keeps its verdict for the pods selecting alike; another pod's selector, or a new
    node object (labels changed), is decided again."""
    from kubesim.scheduler.framework.types import NodeInfo

    pl = NodeAffinity({})
    ni = NodeInfo(labelled("n1", zone="foo"))
    foo = make_pod("p").node_selector({"zone": "foo"}).obj()
    bar = make_pod("q").node_selector({"zone": "bar"}).obj()
    for p, want in [(foo, None), (foo, None), (bar, REJECT), (bar, REJECT), (foo, None)]:
        state = CycleState()
        pl.pre_filter(state, PodInfo(p), [ni])
        assert pl.filter_fn(state, PodInfo(p))(ni) == want
    ni.set_node(labelled("n1", zone="bar"))
    for p, want in [(foo, REJECT), (bar, None)]:
        state = CycleState()
        pl.pre_filter(state, PodInfo(p), [ni])
        assert pl.filter_fn(state, PodInfo(p))(ni) == want
