"""NetworkPolicy semantics (kubesim.network.policy) through whole connections, mirroring the
cases of upstream's e2e suite test/e2e/network/netpol/network_policy.go: its model (namespaces
x, y, z labelled ``ns``; pods a, b, c labelled ``pod``, serving 80 and 81 over TCP and UDP) and
its reachability truth tables, every pod to every pod (itself included) on one port.
"""

import pytest

from kubesim.network.path import connect

from .builders import e2e_model, listens_everywhere, policy

PODS = [(ns, p) for ns in "xyz" for p in "abc"]


def ingress(ns, name, pod_labels, rules, types=("Ingress",)):
    return policy(ns, name, {"podSelector": {"matchLabels": pod_labels} if pod_labels is not None else {},
                             "ingress": rules, "policyTypes": list(types)})


def egress(ns, name, pod_labels, rules):
    return policy(ns, name, {"podSelector": {"matchLabels": pod_labels} if pod_labels is not None else {},
                             "egress": rules, "policyTypes": ["Egress"]})


def matrix(policies, port=80, protocol="TCP"):
    snap = e2e_model(policies)
    by_name = {(p["metadata"]["namespace"], p["metadata"]["name"]): p for p in snap.pods}
    out = {}
    for src in PODS:
        for dst in PODS:
            ip = by_name[dst]["status"]["podIP"]
            out[src, dst] = connect(snap, by_name[src], ip, port, protocol, listens_everywhere).outcome == "connected"
    return out


def expect(rule):
    return {(s, d): rule(s, d) for s in PODS for d in PODS}


X_A = ("x", "a")
ALL = {}  # a peer selecting every pod of every namespace

CASES = [
    pytest.param([ingress("x", "deny-ingress", None, [])], 80, "TCP",
                 lambda s, d: d[0] != "x", id="a default-deny-ingress policy isolates every pod of its namespace"),
    pytest.param([policy("x", "deny-all", {"podSelector": {}, "ingress": [], "egress": [],
                                           "policyTypes": ["Ingress", "Egress"]})], 80, "TCP",
                 lambda s, d: s[0] != "x" and d[0] != "x", id="a default-deny-all policy blocks both directions"),
    pytest.param([ingress("x", "x-a-allows-x-b", {"pod": "a"}, [{"from": [{"podSelector": {"matchLabels": {"pod": "b"}}}]}])],
                 80, "TCP", lambda s, d: d != X_A or s == ("x", "b"),
                 id="a podSelector peer admits the matching pods of the policy's namespace only"),
    pytest.param([ingress("x", "deny-all", None, []),
                  ingress("x", "allow-all-to-a", {"pod": "a"}, [{"from": [{"podSelector": {}, "namespaceSelector": {}}]}])],
                 80, "TCP", lambda s, d: d[0] != "x" or d == X_A,
                 id="policies add up: an allow-all for x/a opens it despite the namespace's deny-all"),
    pytest.param([ingress("x", "allow-from-another-ns", {"pod": "a"}, [{"from": [{"namespaceSelector": {"matchLabels": {}}}]}])],
                 80, "TCP", lambda s, d: True, id="an empty namespaceSelector admits pods of every namespace"),
    pytest.param([ingress("x", "allow-client-a-via-ns-selector", {"pod": "a"},
                          [{"from": [{"namespaceSelector": {"matchLabels": {"ns": "y"}}}]}])],
                 80, "TCP", lambda s, d: d != X_A or s[0] == "y",
                 id="a namespaceSelector peer admits every pod of the matching namespaces, not its own"),
    pytest.param([ingress("x", "x-a-allows-x-b", {"pod": "a"},
                          [{"from": [{"podSelector": {"matchExpressions": [{"key": "pod", "operator": "In", "values": ["b"]}]}}]}])],
                 80, "TCP", lambda s, d: d != X_A or s == ("x", "b"), id="a podSelector with matchExpressions"),
    pytest.param([ingress("x", "allow-ns-y-z-pod-b-c", {"pod": "a"},
                          [{"from": [{"namespaceSelector": {"matchExpressions": [{"key": "ns", "operator": "NotIn", "values": ["x", "y"]}]},
                                      "podSelector": {"matchExpressions": [{"key": "pod", "operator": "In", "values": ["b", "c"]}]}}]}])],
                 80, "TCP", lambda s, d: d != X_A or s in (("z", "b"), ("z", "c")),
                 id="a podSelector and a namespaceSelector in one peer must both match"),
    pytest.param([ingress("x", "allow-ns-y-match-selector", {"pod": "a"},
                          [{"from": [{"namespaceSelector": {"matchLabels": {"ns": "y"}}}, {"podSelector": {"matchLabels": {"pod": "b"}}}]}])],
                 80, "TCP", lambda s, d: d != X_A or s[0] == "y" or s == ("x", "b"),
                 id="two peers of one rule: either may match (podSelector OR namespaceSelector)"),
    pytest.param([ingress("x", "allow-port-81", {"pod": "a"}, [{"ports": [{"port": 81, "protocol": "TCP"}]}])],
                 80, "TCP", lambda s, d: d != X_A, id="a rule on port 81 leaves port 80 closed"),
    pytest.param([ingress("x", "allow-port-81", {"pod": "a"}, [{"ports": [{"port": 81, "protocol": "TCP"}]}])],
                 81, "TCP", lambda s, d: True, id="a rule on port 81 opens port 81 from everywhere"),
    pytest.param([ingress("x", "allow-named-port", {"pod": "a"}, [{"ports": [{"port": "serve-80-tcp"}]}])],
                 80, "TCP", lambda s, d: True, id="a named port resolves to the destination's container port"),
    pytest.param([ingress("x", "allow-named-port", {"pod": "a"}, [{"ports": [{"port": "serve-80-tcp"}]}])],
                 81, "TCP", lambda s, d: d != X_A, id="a named port does not open the other ports"),
    pytest.param([ingress("x", "allow-80-to-85", {"pod": "a"}, [{"ports": [{"port": 80, "endPort": 85}]}])],
                 81, "TCP", lambda s, d: True, id="endPort opens the range"),
    pytest.param([ingress("x", "allow-only-udp", {"pod": "a"}, [{"ports": [{"port": 81, "protocol": "UDP"}]}])],
                 81, "TCP", lambda s, d: d != X_A, id="a policy on UDP does not allow TCP"),
    pytest.param([ingress("x", "allow-tcp-any-port", {"pod": "a"}, [{"ports": [{"protocol": "TCP"}]}])],
                 81, "TCP", lambda s, d: True, id="a port-less entry allows every port of its protocol"),
    pytest.param([egress("x", "deny-egress-pod-a", {"pod": "a"}, [])], 80, "TCP",
                 lambda s, d: s != X_A, id="egress deny from pods selected by a PodSelector"),
    pytest.param([egress("x", "deny-all-egress", None, [])], 80, "TCP",
                 lambda s, d: s[0] != "x", id="egress deny from every pod of a namespace"),
    pytest.param([egress("x", "allow-to-ns-y-pod-a", {"pod": "a"},
                         [{"to": [{"namespaceSelector": {"matchLabels": {"ns": "y"}}, "podSelector": {"matchLabels": {"pod": "a"}}}]}])],
                 80, "TCP", lambda s, d: s != X_A or d == ("y", "a"),
                 id="egress to a pod of another namespace through podSelector and namespaceSelector"),
    pytest.param([egress("x", "a-to-b-cidr", {"pod": "a"}, [{"to": [{"ipBlock": {"cidr": "10.244.1.11/32"}}]}])],
                 80, "TCP", lambda s, d: s != X_A or d == ("x", "b"), id="egress allowed to a server in a CIDR block"),
    pytest.param([egress("x", "a-to-block-except-b", {"pod": "a"},
                         [{"to": [{"ipBlock": {"cidr": "10.244.0.0/16", "except": ["10.244.1.11/32"]}}]}])],
                 80, "TCP", lambda s, d: s != X_A or d != ("x", "b"), id="an except clause carves an address out of the block"),
    pytest.param([egress("x", "deny-client-egress", {"pod": "a"}, []),
                  ingress("y", "allow-all-ingress", None, [{}])],
                 80, "TCP", lambda s, d: s != X_A,
                 id="egress denied on the client side even when the server allows the traffic"),
    pytest.param([ingress("x", "deny-all", None, []), ingress("x", "allow-all", None, [{}])],
                 80, "TCP", lambda s, d: True, id="an ingress allow-all takes precedence over a deny-all"),
    pytest.param([policy("x", "ingress-only-types", {"podSelector": {"matchLabels": {"pod": "a"}}, "egress": []})],
                 80, "TCP", lambda s, d: d != X_A,
                 id="without policyTypes and egress rules a policy is an Ingress policy"),
]


@pytest.mark.parametrize("policies,port,protocol,rule", CASES)
def test_reachability_matches_the_e2e_truth_table(policies, port, protocol, rule):
    assert matrix(policies, port, protocol) == expect(rule)


def test_a_denied_connection_names_the_policies_that_select_the_destination():
    snap = e2e_model([ingress("x", "deny-ingress", None, [])])
    src = next(p for p in snap.pods if p["metadata"]["namespace"] == "y" and p["metadata"]["name"] == "a")
    trace = connect(snap, src, "10.244.1.10", 80, "TCP", listens_everywhere)
    assert trace.outcome == "timeout"
    assert [(h.step, h.verdict, h.policy) for h in trace.hops] == [
        ("egress", "pass", ""), ("ingress", "fail", "x/deny-ingress"), ("ingress", "fail", "")]
    assert trace.hops[1].detail == "selects the pod for Ingress and has no ingress rules: denies all"
