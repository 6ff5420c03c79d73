"""ServiceAccounts as a user meets them: ``default`` and ``kube-root-ca.crt`` in every namespace
(their controllers), a pod naming a missing account refused by the ServiceAccount admission plugin,
a Namespace and its Pod in one file (admitted, as a real cluster's plugin waits for ``default``),
``create serviceaccount`` against the real kubectl, ``create token`` (an RS256 JWT with upstream's
claims, verified here with the published key), and ``get``/``describe`` as kubectl 1.36 prints them
on a v1.35 cluster."""

from __future__ import annotations

import base64
import hashlib
import json
import shlex

import pytest

from kubesim.testing.cli import Harness
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)


def test_every_namespace_has_default_and_the_root_ca(tmp_path):
    h = Harness(tmp_path / "state")
    assert h.ok("get sa -A -o name").count("serviceaccount/default\n") == 4
    h.ok("create namespace dev")
    assert h.ok("get sa -n dev") == "NAME      AGE\ndefault   0s\n"
    assert h.ok("get cm -n dev") == "NAME               DATA   AGE\nkube-root-ca.crt   1      0s\n"
    assert h.ok("get cm kube-root-ca.crt -n dev -o 'jsonpath={.data.ca\\.crt}'").startswith(
        "-----BEGIN CERTIFICATE-----\n")
    h.ok("delete sa default -n dev")
    assert h.ok("get sa -n dev -o name") == "serviceaccount/default\n"  # the controller puts it back
    h.ok("patch cm kube-root-ca.crt -n dev -p '{\"data\":{\"ca.crt\":\"x\"}}'")
    assert h.ok("get cm kube-root-ca.crt -n dev -o 'jsonpath={.data.ca\\.crt}'").startswith("-----BEGIN")


def test_get_and_describe_a_service_account_as_kubectl_prints_them(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin="apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: bot}\n"
                             "imagePullSecrets: [{name: a}, {name: b}]\n")
    assert h.ok("get sa") == "NAME      AGE\nbot       0s\ndefault   0s\n"
    assert h.ok("describe sa bot") == (
        "Name:                bot\nNamespace:           default\nLabels:              <none>\n"
        "Annotations:         <none>\nImage pull secrets:  a\n                     b\nEvents:              <none>\n")


POD = "apiVersion: v1\nkind: Pod\nmetadata: {{name: p1{ns}}}\nspec:\n{sa}  containers: [{{name: c, image: nginx}}]\n"


def test_a_pod_naming_a_missing_account_is_refused(tmp_path):
    h = Harness(tmp_path / "state")
    r = h("apply -f -", stdin=POD.format(ns="", sa="  serviceAccountName: nobody\n"))
    assert (r.code, r.err) == (1, 'Error from server (Forbidden): error when creating "STDIN": pods "p1" is forbidden: '
                                  "error looking up service account default/nobody: serviceaccount \"nobody\" not "
                                  "found\n")
    h.ok("create sa nobody")
    assert h.ok("apply -f -", stdin=POD.format(ns="", sa="  serviceAccountName: nobody\n")) == "pod/p1 created\n"


def test_a_namespace_and_its_pod_in_one_file_are_both_created(tmp_path):
    h = Harness(tmp_path / "state")
    out = h.ok("apply -f -", stdin="apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n" +
               POD.format(ns=", namespace: team", sa=""))
    assert out == "namespace/team created\npod/p1 created\n"
    assert h.ok("get pod p1 -n team -o jsonpath={.spec.serviceAccountName}") == "default"
    assert h.ok("get sa -n team -o name") == "serviceaccount/default\n"


@needs_kubectl
@pytest.mark.parametrize("line", ["sa bot -o yaml", "serviceaccount bot -o json", "sa bot -n team -o yaml",
                                  "sa bot", "sa bot -o name", "sa", "sa a b", "sa bot --image=x"])
def test_create_serviceaccount_prints_what_kubectl_prints(kubectl, tmp_path, line):
    argv = ["create"] + shlex.split(line) + ["--dry-run=client"]
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))


def _b64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def test_create_token_is_an_rs256_jwt_with_upstreams_claims(tmp_path):
    from kubesim.apiserver.serviceaccounttoken import SIGNING_KEY_META
    from kubesim.store import Store

    h = Harness(tmp_path / "state")  # now: 2026-11-22T10:00:00Z
    token = h.ok("create token default --duration=2h --audience=vault")
    assert not token.endswith("\n")  # not a terminal: no newline, as kubectl
    head, payload, sig = token.split(".")
    claims = json.loads(_b64(payload))
    uid = h.ok("get sa default -o jsonpath={.metadata.uid}")
    assert claims == {"aud": ["vault"], "exp": 1795348800, "iat": 1795341600,
                      "iss": "https://kubernetes.default.svc.cluster.local", "jti": claims["jti"],
                      "kubernetes.io": {"namespace": "default", "serviceaccount": {"name": "default", "uid": uid}},
                      "nbf": 1795341600, "sub": "system:serviceaccount:default:default"}
    store = Store(tmp_path / "state").open(read_only=True)
    key = store.meta(SIGNING_KEY_META)
    store.rollback()
    n, e = int(key["n"], 16), int(key["e"], 16)
    assert json.loads(_b64(head))["alg"] == "RS256"
    em = pow(int.from_bytes(_b64(sig), "big"), e, n).to_bytes(256, "big")
    assert em.startswith(b"\x00\x01\xff") and em.endswith(hashlib.sha256(f"{head}.{payload}".encode()).digest())
    # the key is kept: a second token has the same key id
    assert json.loads(_b64(h.ok("create token default").split(".")[0])) == json.loads(_b64(head))


@pytest.mark.parametrize("line, err", [
    ("token nobody", 'error: failed to create token: serviceaccounts "nobody" not found\n'),
    ("token default --duration=5m", 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: '
                                    "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than "
                                    "10 minutes\n"),
    ("token default --bound-object-kind=Secret --bound-object-name=nope",
     'error: failed to create token: secrets "nope" not found\n'),
    ("token default --duration=1.5s", "error: --duration cannot be expressed in units less than seconds\n"),
    ("token default --duration=-1s", "error: --duration must be greater than or equal to 0\n"),
    ("token default --audience=", "error: --audience must not be an empty string\n"),
    ("token default --bound-object-name=y", "error: --bound-object-name can only be set if --bound-object-kind is "
                                            "provided\n"),
    ("token default --bound-object-kind=Foo", "error: supported --bound-object-kind values are Node, Pod, Secret\n"),
    ("token default --bound-object-kind=Pod", "error: --bound-object-name is required if --bound-object-kind is "
                                              "provided\n"),
    ("token", "error: exactly one NAME is required, got 0\nSee 'kubesim create token -h' for help and examples\n"),
], ids=lambda v: v if v.startswith("token") else "")
def test_create_token_refusals_as_kubectl_and_the_server_word_them(tmp_path, line, err):
    r = Harness(tmp_path / "state")("create " + line)
    assert (r.code, r.out, r.err) == (1, "", err)
