"""NetworkPolicy defaults and validation, after pkg/apis/networking/v1/defaults_test.go and
pkg/apis/networking/validation/validation_test.go (TestValidateNetworkPolicy,
TestValidateNetworkPolicyUpdate); every text checked against a real v1.35 API server (the
conformance oracle)."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.networking.defaults import set_defaults_network_policy
from kubesim.api.networking.validation import validate_network_policy, validate_network_policy_update

CIDR_MSG = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def np(name="np", **spec) -> dict:
    spec.setdefault("podSelector", {})
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def ingress_from(*peers, ports=None) -> list[dict]:
    rule: dict = {"from": list(peers)}
    if ports is not None:
        rule["ports"] = ports
    return [rule]


@pytest.mark.parametrize("spec, policy_types, protocols", [
    ({"podSelector": {}}, ["Ingress"], []),
    ({"podSelector": {}, "policyTypes": []}, ["Ingress"], []),
    ({"podSelector": {}, "egress": [{}]}, ["Ingress", "Egress"], []),
    ({"podSelector": {}, "egress": [{}], "policyTypes": ["Egress"]}, ["Egress"], []),
    ({"podSelector": {}, "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
      "egress": [{"ports": [{}]}]}, ["Ingress", "Egress"], ["TCP", "UDP", "TCP"]),
], ids=["no policy types means Ingress", "an empty list of policy types is defaulted too",
        "egress rules add Egress", "given policy types are kept",
        "every port without a protocol gets TCP, in both directions"])
def test_defaults(spec, policy_types, protocols):
    obj = np(**spec)
    set_defaults_network_policy(obj)
    got = [p["protocol"] for d in ("ingress", "egress") for r in obj["spec"].get(d, []) for p in r.get("ports", [])]
    assert obj["spec"]["policyTypes"] == policy_types
    assert got == protocols


@pytest.mark.parametrize("obj", [
    np(),
    np(podSelector={"matchLabels": {"a": "b"}}, ingress=ingress_from({"podSelector": {}}, ports=[{"port": 80}])),
    np(ingress=ingress_from({"namespaceSelector": {"matchLabels": {"team": "a"}}, "podSelector": {}})),
    np(ingress=ingress_from({"ipBlock": {"cidr": "192.168.0.0/16", "except": ["192.168.3.0/24"]}})),
    np(egress=[{"to": [{"ipBlock": {"cidr": "fd00:192:168::/48", "except": ["fd00:192:168:3::/64"]}}]}]),
    np(ingress=[{"ports": [{"port": 30000, "endPort": 32768, "protocol": "TCP"}, {"port": "dns", "protocol": "UDP"}]}]),
    np(egress=[{}], policyTypes=["Ingress", "Egress"]),
    np(ingress=ingress_from({"ipBlock": {"cidr": "010.0.0.1/8"}})),
], ids=["an empty pod selector", "a pod selector and a port", "namespace and pod selector in one peer",
        "an IPv4 block with an exception", "an IPv6 block with an exception", "a port range and a named port",
        "both policy types", "a sloppy CIDR is only a warning upstream"])
def test_valid_policies(obj):
    assert validate_network_policy(obj) == []


@pytest.mark.parametrize("obj, errors", [
    (np(ingress=ingress_from({"ipBlock": {"cidr": "10.0.0.0/33"}})),
     [f'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": {CIDR_MSG}']),
    (np(ingress=ingress_from({"ipBlock": {"cidr": "fd00:192:168::/129"}})),
     [f'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "fd00:192:168::/129": {CIDR_MSG}']),
    (np(egress=[{"to": [{"ipBlock": {"cidr": ""}}]}]), ["spec.egress[0].to[0].ipBlock.cidr: Required value"]),
    (np(ingress=ingress_from({"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24", "10.0.0.0/16", "bogus", " "]}})),
     ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`',
      'spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`',
      f'spec.ingress[0].from[0].ipBlock.except[2]: Invalid value: "bogus": {CIDR_MSG}',
      f'spec.ingress[0].from[0].ipBlock.except[3]: Invalid value: " ": {CIDR_MSG}']),
    (np(ingress=ingress_from({"ipBlock": {"cidr": "fd00:192:168::/48", "except": ["fd00:192:169::/64"]}})),
     ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "fd00:192:169::/64": must be a strict subset of `cidr`']),
    (np(ingress=ingress_from({}, {"podSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}})),
     ["spec.ingress[0].from[0]: Required value: must specify a peer",
      "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer"]),
    (np(ingress=[{"ports": [{"port": 0}, {"port": 70000, "endPort": 80}, {"port": "http", "endPort": 90},
                            {"endPort": 100}, {"port": "Bad_Name", "protocol": "ICMP"}, {"port": 100, "endPort": 70000}]}]),
     ["spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ingress[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
      "spec.ingress[0].ports[1].endPort: Invalid value: 70000: must be greater than or equal to `port`",
      "spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
      "spec.ingress[0].ports[3].endPort: Invalid value: 100: may not be specified when `port` is not specified",
      'spec.ingress[0].ports[4].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[4].port: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), '
      "and hyphens (-)",
      "spec.ingress[0].ports[5].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive"]),
    (np(policyTypes=["Ingress", "Sideways"]),
     ['spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']),
    (np(policyTypes=["Ingress", "Egress", "Ingress"]),
     ['spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes']),
    (np(podSelector={"matchExpressions": [{"key": "x", "operator": "In"}]},
        ingress=ingress_from({"namespaceSelector": {"matchExpressions": [{"key": "yy", "operator": "Foo", "values": ["a"]}]}})),
     ["spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Foo": '
      "not a valid selector operator"]),
    (np("Bad_Name"),
     ['metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
      "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
      "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
], ids=["invalid cidr format", "invalid ipv6 cidr format", "missing cidr field",
        "except outside of, equal to, not a CIDR, a space string",
        "except IPv6 is outside of CIDR range", "no peer, and ipBlock with another peer",
        "port numbers, ranges, names and protocols", "invalid policyTypes", "too many policyTypes",
        "bad selectors", "a name that is not a DNS subdomain"])
def test_invalid_policies(obj, errors):
    assert [str(e) for e in validate_network_policy(obj)] == errors


def test_update_may_keep_what_the_old_policy_had():
    """ValidationOptionsForNetworking and ValidateNetworkPolicyUpdate: a pod selector whose label
    values were already invalid, and the old policy's CIDRs, pass again; a new bad one does not."""
    old = np(podSelector={"matchExpressions": [{"key": "a", "operator": "In", "values": ["b c"]}]})
    old["metadata"].update(uid="u1", resourceVersion="1")
    new = copy.deepcopy(old)
    new["spec"]["podSelector"]["matchExpressions"][0]["values"] = ["d e"]
    assert validate_network_policy_update(new, old) == []
    assert [str(e) for e in validate_network_policy(new)][0].startswith(
        'spec.podSelector.matchExpressions[0].values[0]: Invalid value: "d e"')
    renamed = copy.deepcopy(old)
    renamed["metadata"]["name"] = "other"
    assert [str(e) for e in validate_network_policy_update(renamed, old)] == [
        'metadata.name: Invalid value: "other": field is immutable']


@pytest.mark.parametrize("given, stored", [
    (None, {"podSelector": {}, "policyTypes": ["Ingress"]}),
    ({"ingress": [], "egress": [{"ports": [], "to": []}]},
     {"podSelector": {}, "egress": [{}], "policyTypes": ["Ingress", "Egress"]}),
    ({"podSelector": {"matchLabels": {}}, "ingress": [{"from": [{"podSelector": {"matchExpressions": []},
                                                                "ipBlock": None}]}]},
     {"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}]}], "policyTypes": ["Ingress"]}),
], ids=["no spec at all", "empty lists are not written back", "empty selectors are {} and null peers go"])
def test_decode_writes_back_what_the_typed_object_holds(given, stored):
    """Checked against a real v1.35 API server: spec and podSelector are structs, the lists omitempty."""
    from kubesim.api.networking.defaults import decode_network_policy

    obj = np()
    if given is None:
        del obj["spec"]
    else:
        obj["spec"] = given
    decode_network_policy(obj)
    set_defaults_network_policy(obj)
    assert obj["spec"] == stored
