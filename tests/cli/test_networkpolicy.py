"""NetworkPolicy end to end: apply, get (POD-SELECTOR), describe, and the API server's refusals
(exit 1, state unchanged); outputs as a real v1.35 cluster and kubectl 1.36 print them."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

DENY = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny}
spec:
  podSelector: {}
"""

ALLOW = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-web}
spec:
  podSelector:
    matchLabels: {app: web}
  ingress:
  - from:
    - podSelector:
        matchLabels: {role: client}
    ports:
    - port: 80
"""


def test_default_deny_and_allow_from_a_label(kubesim):
    assert kubesim.apply(DENY + "---\n" + ALLOW) == (
        "networkpolicy.networking.k8s.io/default-deny created\nnetworkpolicy.networking.k8s.io/allow-web created\n")
    assert kubesim.ok("get netpol") == (
        "NAME           POD-SELECTOR   AGE\n"
        "allow-web      app=web        0s\n"
        "default-deny   <none>         0s\n")
    assert kubesim.ok("get networkpolicy allow-web -o jsonpath="
                      "{.spec.policyTypes}/{.spec.ingress[0].ports[0].protocol}/{.metadata.generation}") == \
        '["Ingress"]/TCP/1'
    out = kubesim.ok("describe netpol allow-web")
    assert out.split("\n", 3)[3] == (
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "Spec:\n"
        "  PodSelector:     app=web\n"
        "  Allowing ingress traffic:\n"
        "    To Port: 80/TCP\n"
        "    From:\n"
        "      PodSelector: role=client\n"
        "  Not affecting egress traffic\n"
        "  Policy Types: Ingress\n")
    assert kubesim.apply(ALLOW) == "networkpolicy.networking.k8s.io/allow-web unchanged\n"
    assert kubesim.apply(ALLOW.replace("port: 80", "port: 8080")) == \
        "networkpolicy.networking.k8s.io/allow-web configured\n"
    assert kubesim.ok("get netpol allow-web -o jsonpath={.metadata.generation}") == "2"


@pytest.mark.parametrize("spec, err", [
    ("  podSelector: {}\n  ingress:\n  - from:\n    - ipBlock: {cidr: 10.0.0.0/33}\n",
     'The NetworkPolicy "bad" is invalid: spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": '
     "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"),
    ("  podSelector: {}\n  egress:\n  - to:\n    - ipBlock: {cidr: 10.0.0.0/16, except: [10.1.0.0/24]}\n",
     'The NetworkPolicy "bad" is invalid: spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": '
     "must be a strict subset of `cidr`"),
    ("  podSelector: {}\n  ingress:\n  - ports:\n    - {port: http, endPort: 90}\n    - {port: 100, endPort: 70000}\n",
     'The NetworkPolicy "bad" is invalid: \n'
     "* spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric\n"
     "* spec.ingress[0].ports[1].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ("  podSelector: {}\n  policyTypes: [Ingress, Sideways]\n",
     'The NetworkPolicy "bad" is invalid: spec.policyTypes[1]: Unsupported value: "Sideways": '
     'supported values: "Ingress", "Egress"'),
], ids=["a bad CIDR", "an except outside the block", "endPort with a named port and out of range",
        "an unknown policy type"])
def test_the_server_refuses(kubesim, tmp_path, spec, err):
    f = tmp_path / "np.yaml"
    f.write_text("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad}\nspec:\n" + spec)
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"create -f {f}")
    assert (r.code, r.out, r.err) == (1, "", err + "\n")
    assert snapshot(kubesim.state_dir) == before
