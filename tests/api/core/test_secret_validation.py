"""ValidateSecret/ValidateSecretUpdate and ValidateServiceAccount, mirroring upstream's
TestValidateSecret, TestValidateDockerConfigSecret, TestValidateBasicAuthSecret,
TestValidateSSHAuth and TestValidateSecretUpdate tables
(pkg/apis/core/validation/validation_test.go); the expected texts were checked against a real
v1.35 API server. Also Go's JSON scanner messages (api/gojsonscan.py) against Go itself."""

from __future__ import annotations

import base64

import pytest

from kubesim.api.core.secret_validation import (
    validate_secret,
    validate_secret_update,
    validate_service_account,
)
from kubesim.api.gojsonscan import unmarshal_into_map_error


def b64(s: str | bytes) -> str:
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def secret(type_="Opaque", data=None, name="foo", ns="bar", annotations=None, **extra) -> dict:
    md = {"name": name, "namespace": ns}
    if annotations is not None:
        md["annotations"] = annotations
    return {"kind": "Secret", "metadata": md, "type": type_,
            "data": {k: b64(v) for k, v in (data or {"data-1": "bar"}).items()}, **extra}


SA = "kubernetes.io/service-account.name"

CASES = [
    ("valid", secret(), []),
    ("empty name", secret(name=""), ["metadata.name: Required value: name or generateName is required"]),
    ("invalid name", secret(name="NoUppercaseOrSpecialCharsLike=Equals"),
     ['metadata.name: Invalid value: "NoUppercaseOrSpecialCharsLike=Equals": a lowercase RFC 1123 subdomain '
      "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ("empty namespace", secret(ns=""), ["metadata.namespace: Required value"]),
    ("over max size", secret(data={"over": b"\0" * (1024 * 1024 + 1)}),
     ["data: Too long: may not be more than 1048576 bytes"]),
    ("invalid key", secret(data={"a*b": "whoops"}),
     ['data[a*b]: Invalid value: "a*b": a valid config key must consist of alphanumeric characters, \'-\', '
      "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
      "'[-._a-zA-Z0-9]+')"]),
    ("leading dot key", secret(data={".key": "bar"}), []),
    ("dot key", secret(data={".": "bar"}), ['data[.]: Invalid value: ".": must not be \'.\'']),
    ("double dot key", secret(data={"..": "bar"}), ['data[..]: Invalid value: "..": must not be \'..\'']),
    ("valid service-account-token secret",
     secret("kubernetes.io/service-account-token", annotations={SA: "foo"}), []),
    ("empty service-account-token annotation",
     secret("kubernetes.io/service-account-token", annotations={SA: ""}),
     ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]),
    ("missing service-account-token annotations", secret("kubernetes.io/service-account-token"),
     ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]),
    ("valid dockerconfigjson", secret("kubernetes.io/dockerconfigjson",
                                      {".dockerconfigjson": '{"auths":{"reg.io":{"auth":"dTpw"}}}'}), []),
    ("missing dockerconfigjson", secret("kubernetes.io/dockerconfigjson", {}),
     ["data[.dockerconfigjson]: Required value"]),
    ("dockerconfigjson that is not JSON", secret("kubernetes.io/dockerconfigjson", {".dockerconfigjson": "not json"}),
     ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'o\' in literal '
      "null (expecting 'u')"]),
    ("dockerconfigjson that is not an object", secret("kubernetes.io/dockerconfigjson", {".dockerconfigjson": "[1]"}),
     ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go '
      "value of type map[string]interface {}"]),
    ("missing dockercfg", secret("kubernetes.io/dockercfg", {}), ["data[.dockercfg]: Required value"]),
    ("basic-auth with a username only", secret("kubernetes.io/basic-auth", {"username": "u"}), []),
    ("basic-auth with an empty password only", secret("kubernetes.io/basic-auth", {"password": ""}), []),
    ("basic-auth with neither", secret("kubernetes.io/basic-auth", {}),
     ["data[username]: Required value", "data[password]: Required value"]),
    ("ssh-auth with an empty key", secret("kubernetes.io/ssh-auth", {"ssh-privatekey": ""}),
     ["data[ssh-privatekey]: Required value"]),
    ("tls without its keys", secret("kubernetes.io/tls", {"foo": "bar"}),
     ["data[tls.crt]: Required value", "data[tls.key]: Required value"]),
    ("a bootstrap token is not checked by the API server", secret("bootstrap.kubernetes.io/token", {"x": "1"}), []),
    ("an unknown type is not checked", secret("example.com/mine", {}), []),
]


@pytest.mark.parametrize("obj,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_secret(obj, want):
    assert [str(e) for e in validate_secret(obj)] == want


def test_an_update_keeps_the_type_and_an_immutable_secrets_data():
    old = secret(immutable=True)
    new = secret("kubernetes.io/tls", {"a": "2"}, immutable=False)
    assert [str(e) for e in validate_secret_update(new, old)] == [
        'type: Invalid value: "kubernetes.io/tls": field is immutable',
        "immutable: Forbidden: field is immutable when `immutable` is set",
        "data: Forbidden: field is immutable when `immutable` is set",
        "data[tls.crt]: Required value", "data[tls.key]: Required value"]
    assert validate_secret_update(secret(data={"a": "2"}), secret(data={"a": "1"})) == []


def test_a_service_account_name_is_a_dns_subdomain():
    ok = {"metadata": {"name": "build-bot.v1", "namespace": "ns"}}
    bad = {"metadata": {"name": "Bot", "namespace": "ns"}}
    assert validate_service_account(ok) == []
    assert [e.field for e in validate_service_account(bad)] == ["metadata.name"]


# json.Unmarshal(data, &map[string]interface{}{}) as Go 1.25 answers (checked with `go run`)
JSON_CASES = [
    (b'{"a":1}', None),
    (b"null", None),
    (b"not json", "invalid character 'o' in literal null (expecting 'u')"),
    (b"[1]", "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    (b'"x"', "json: cannot unmarshal string into Go value of type map[string]interface {}"),
    (b"", "unexpected end of JSON input"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
    (b"nul", "invalid character ' ' in literal null (expecting 'l')"),
    (b"tru", "invalid character ' ' in literal true (expecting 'e')"),
    (b"1 2", "invalid character '2' after top-level value"),
    (b"{a}", "invalid character 'a' looking for beginning of object key string"),
    (b"[1 2]", "invalid character '2' after array element"),
    (b"-x", "invalid character 'x' in numeric literal"),
    (b"1.e", "invalid character 'e' after decimal point in numeric literal"),
]


@pytest.mark.parametrize("data,want", JSON_CASES, ids=[repr(c[0]) for c in JSON_CASES])
def test_go_json_messages(data, want):
    assert unmarshal_into_map_error(data) == want
