"""Secrets through the API server as a user meets them: ``stringData`` merged into ``data``,
malformed base64 refused when the request is decoded, the per-type checks, immutability; every
text as a real v1.35 API server gives it (conformance/scenarios/secrets.yaml repeats them against
the oracle)."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import Harness

REFUSED = [
    ("malformed base64 in data",
     "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: 'not*base64'}\n",
     'Error from server (BadRequest): error when creating "STDIN": Secret in version "v1" cannot be handled as a '
     "Secret: illegal base64 data at input byte 3\n"),
    ("a TLS secret without its keys",
     "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/tls\nstringData: {foo: bar}\n",
     'The Secret "s" is invalid: \n* data[tls.crt]: Required value\n* data[tls.key]: Required value\n'),
    ("a basic-auth secret with a bad key and neither username nor password",
     "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/basic-auth\n"
     "data: {'bad key': YQ==}\nstringData: {x: '1'}\n",
     'The Secret "s" is invalid: \n* data[bad key]: Invalid value: "bad key": a valid config key must consist of '
     "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
     "validation is '[-._a-zA-Z0-9]+')\n* data[username]: Required value\n* data[password]: Required value\n"),
    ("a docker config that is not JSON",
     "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/dockerconfigjson\n"
     "data: {.dockerconfigjson: bm90IGpzb24=}\n",
     'The Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid '
     "character 'o' in literal null (expecting 'u')\n"),
    ("a service-account-token secret without its account",
     "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/service-account-token\n",
     'The Secret "s" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value\n'),
]


@pytest.mark.parametrize("manifest,err", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_bad_secret_is_refused_with_the_servers_text_and_nothing_is_stored(tmp_path, manifest, err):
    h = Harness(tmp_path / "state")
    r = h("apply -f -", stdin=manifest)
    assert (r.code, r.out, r.err) == (1, "", err)
    got = h("get secrets")
    assert (got.out, got.err) == ("", "No resources found in default namespace.\n")


def test_string_data_is_merged_into_data_and_not_stored(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin="apiVersion: v1\nkind: Secret\nmetadata: {name: sd}\ndata: {a: YQ==, b: Yg==}\n"
                             "stringData: {a: override, c: new}\n")
    assert h.ok("get secret sd -o jsonpath={.data}") == '{"a":"b3ZlcnJpZGU=","b":"Yg==","c":"bmV3"}'
    assert h.ok("get secret sd -o jsonpath={.type}") == "Opaque"
    assert "stringData" not in h.ok("get secret sd -o yaml").split("last-applied-configuration")[0]
    # as on a real cluster: the patch kubectl computes always carries stringData
    again = "apiVersion: v1\nkind: Secret\nmetadata: {name: sd}\ndata: {a: YQ==, b: Yg==}\nstringData: {a: override, c: new}\n"
    assert h.ok("apply -f -", stdin=again) == "secret/sd configured\n"
    assert h.ok("get secret sd -o jsonpath={.data.a}") == "b3ZlcnJpZGU="


def test_an_immutable_secret_keeps_its_data_and_type(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin="apiVersion: v1\nkind: Secret\nmetadata: {name: imm}\nimmutable: true\n"
                             "stringData: {a: '1'}\n")
    r = h("apply -f -", stdin="apiVersion: v1\nkind: Secret\nmetadata: {name: imm}\ntype: kubernetes.io/tls\n"
                              "immutable: false\nstringData: {a: '2'}\n")
    assert (r.code, r.err) == (1, 'The Secret "imm" is invalid: \n'
                                  '* type: Invalid value: "kubernetes.io/tls": field is immutable\n'
                                  "* immutable: Forbidden: field is immutable when `immutable` is set\n"
                                  "* data: Forbidden: field is immutable when `immutable` is set\n"
                                  "* data[tls.crt]: Required value\n* data[tls.key]: Required value\n")
    assert h.ok("get secret imm -o jsonpath={.data.a}") == "MQ=="
    assert h.ok("label secret imm team=a") == "secret/imm labeled\n"  # metadata may change


def test_secrets_are_selected_by_type(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("create secret generic a --from-literal=x=y")
    h.ok("create secret docker-registry reg --docker-username=u --docker-password=p")
    assert h.ok("get secrets --field-selector type=kubernetes.io/dockerconfigjson -o name") == "secret/reg\n"
    r = h("get secrets --field-selector foo=bar")
    assert (r.code, r.err) == (1, 'Error from server (BadRequest): Unable to find "/v1, Resource=secrets" that match '
                                  'label selector "", field selector "foo=bar": field label not supported: foo\n')


def test_a_tls_secret_whose_pair_does_not_load_is_stored_with_the_servers_warning(tmp_path):
    h = Harness(tmp_path / "state")
    bad = ("apiVersion: v1\nkind: Secret\nmetadata: {name: tlsbad}\ntype: kubernetes.io/tls\n"
           "stringData: {tls.crt: garbage, tls.key: garbage}\n")
    for verb in ("created", "configured"):
        r = h("apply -f -", stdin=bad)
        assert (r.code, r.out, r.err) == (0, f"secret/tlsbad {verb}\n",
                                          "Warning: tls: failed to find any PEM data in certificate input\n")
    r = h("apply -f -", stdin="apiVersion: v1\nkind: Secret\nmetadata: {name: plain}\nstringData: {a: b}\n")
    assert (r.code, r.err) == (0, "")
