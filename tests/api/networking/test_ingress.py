"""Ingress and IngressClass validation and defaults, after
pkg/apis/networking/validation/validation_test.go (TestValidateIngress,
TestValidateIngressRuleValue, TestValidateIngressCreate, TestValidateIngressTLS,
TestValidateIngressClass, TestValidateIngressClassUpdate); every text checked against a real
v1.35 API server (the conformance oracle)."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.networking.defaults import decode_ingress, set_defaults_ingress_class
from kubesim.api.networking.validation import (
    validate_ingress_class,
    validate_ingress_class_update,
    validate_ingress_create,
    validate_ingress_update,
)

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
WILDCARD = ("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist "
            "of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. "
            "'*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]"
            "([-a-z0-9]*[a-z0-9])?)*')")
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
           "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
           "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")

SVC = {"service": {"name": "s", "port": {"number": 80}}}


def ing(spec: dict, annotations: dict | None = None) -> dict:
    md: dict = {"name": "ing", "namespace": "default"}
    if annotations:
        md["annotations"] = annotations
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": md, "spec": spec}


def path(p: str | None = "/", path_type: str | None = "Exact", backend: dict | None = None) -> dict:
    out: dict = {"backend": SVC if backend is None else backend}
    if p is not None:
        out["path"] = p
    if path_type is not None:
        out["pathType"] = path_type
    return out


def rules(*paths, host: str = "") -> list[dict]:
    rule: dict = {"http": {"paths": list(paths)}}
    if host:
        rule["host"] = host
    return [rule]


def errors(obj) -> list[str]:
    return [str(e) for e in validate_ingress_create(obj)]


@pytest.mark.parametrize("spec", [
    {"defaultBackend": SVC},
    {"rules": rules(path("", "ImplementationSpecific"))},
    {"rules": rules(path("/foo/bar", "Prefix"), path("/foo", "Exact"), host="foo.bar.com")},
    {"rules": rules(path(), host="*.bar.com")},
    {"rules": [{"host": "foo.com"}], "defaultBackend": SVC},
    {"defaultBackend": {"resource": {"apiGroup": "example.com", "kind": "foo", "name": "bar"}}},
    {"rules": rules(path()), "tls": [{"hosts": ["*.bar.com", "foo.com"], "secretName": "tls"}],
     "ingressClassName": "nginx"},
    {"rules": rules(path("/(.*)", "ImplementationSpecific"))},
], ids=["a default backend only", "empty path (implementation specific)", "valid paths", "valid wildcard host",
        "a rule without http and a default backend", "a resource backend", "TLS and a class",
        "a regex path is ImplementationSpecific's business"])
def test_valid_ingresses(spec):
    assert errors(ing(spec)) == []


@pytest.mark.parametrize("spec, annotations, expected", [
    ({}, None, ["spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]),
    ({"rules": []}, None, ["spec: Invalid value: []: either `defaultBackend` or `rules` must be specified"]),
    ({"rules": rules(path(path_type=None))}, None,
     ["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"]),
    ({"rules": rules(path(path_type="Regex"))}, None,
     ['spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", '
      '"ImplementationSpecific", "Prefix"']),
    ({"rules": rules(path("", "Prefix"))}, None,
     ['spec.rules[0].http.paths[0].path: Invalid value: "": must be an absolute path']),
    ({"rules": rules(path("/a/./b/../%2fc/..", "Prefix"))}, None,
     ["spec.rules[0].http.paths[0].path: Invalid value: \"/a/./b/../%2fc/..\": must not contain '/./'",
      "spec.rules[0].http.paths[0].path: Invalid value: \"/a/./b/../%2fc/..\": must not contain '/../'",
      "spec.rules[0].http.paths[0].path: Invalid value: \"/a/./b/../%2fc/..\": must not contain '%2f'",
      "spec.rules[0].http.paths[0].path: Invalid value: \"/a/./b/../%2fc/..\": cannot end with '/..'"]),
    ({"rules": rules(path("rel", "ImplementationSpecific"))}, None,
     ['spec.rules[0].http.paths[0].path: Invalid value: "rel": must be an absolute path']),
    ({"rules": [{"http": {"paths": []}}]}, None, ["spec.rules[0].http.paths: Required value"]),
    ({"rules": rules(path(), host="127.0.0.1")}, None,
     ['spec.rules[0].host: Invalid value: "127.0.0.1": must be a DNS name, not an IP address']),
    ({"rules": rules(path(), host="foobar:80")}, None, [f'spec.rules[0].host: Invalid value: "foobar:80": {SUBDOMAIN}']),
    ({"rules": rules(path(), host="foo.*.bar.com")}, None,
     [f'spec.rules[0].host: Invalid value: "foo.*.bar.com": {WILDCARD}']),
    ({"rules": rules(path(backend={}))}, None,
     ['spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required']),
    ({"rules": rules(path(backend={**SVC, "resource": {"kind": "K", "name": "n"}}))}, None,
     ['spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends']),
    ({"defaultBackend": {"service": {"name": "1svc", "port": {"name": "http", "number": 80}}}}, None,
     [f'spec.defaultBackend.service.name: Invalid value: "1svc": {DNS1035}',
      'spec.defaultBackend: Invalid value: "": cannot set both port name & port number']),
    ({"defaultBackend": {"service": {"name": "", "port": {}}}}, None,
     ["spec.defaultBackend.service.name: Required value",
      "spec.defaultBackend: Required value: port name or number is required"]),
    ({"defaultBackend": {"service": {"name": "s", "port": {"number": 70000}}}}, None,
     ["spec.defaultBackend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive"]),
    ({"defaultBackend": {"resource": {"apiGroup": "Bad_G", "kind": "", "name": "a/b"}}}, None,
     [f'spec.defaultBackend.resource.apiGroup: Invalid value: "Bad_G": {SUBDOMAIN}',
      "spec.defaultBackend.resource.kind: Required value",
      "spec.defaultBackend.resource.name: Invalid value: \"a/b\": may not contain '/'"]),
    ({"defaultBackend": SVC, "tls": [{"hosts": ["bad_host", "*.*.x"], "secretName": "Bad_Secret"}]}, None,
     [f'spec.tls[0].hosts[0]: Invalid value: "bad_host": {SUBDOMAIN}',
      f'spec.tls[0].hosts[1]: Invalid value: "*.*.x": {WILDCARD}',
      f'spec.tls[0].secretName: Invalid value: "Bad_Secret": {SUBDOMAIN}']),
    ({"defaultBackend": SVC, "ingressClassName": "Bad_Class"}, None,
     [f'spec.ingressClassName: Invalid value: "Bad_Class": {SUBDOMAIN}']),
    ({"defaultBackend": SVC, "ingressClassName": "a"}, {"kubernetes.io/ingress.class": "b"},
     ['annotations.kubernetes.io/ingress.class: Invalid value: "b": must match `ingressClassName` when both are '
      "specified"]),
], ids=["no defaultBackend or rules specified", "empty rules", "no path type", "invalid path type",
        "empty path (prefix)", "bad sequences and suffix", "implementation specific: no leading slash", "no paths",
        "invalid host (127.0.0.1)", "invalid host (foobar:80)", "invalid wildcard host (foo.*.bar.com)",
        "backend with neither resource nor service", "path resource backend and service are not allowed together",
        "a DNS-1123 service name that is not DNS-1035, and both port name and number",
        "no service name and no port", "port out of range", "bad resource reference", "bad TLS hosts and secret",
        "bad class name", "class field and annotation set with different value"])
def test_invalid_ingresses(spec, annotations, expected):
    assert errors(ing(spec, annotations)) == expected


def test_updates_keep_what_the_old_ingress_had():
    """allowInvalidSecretName, allowInvalidWildcardHostRule and allowRelaxedServiceNameValidation."""
    old = ing({"rules": rules(path("rel", "Exact"), host="*.foo.com"), "tls": [{"secretName": "Bad_Secret"}],
               "defaultBackend": {"service": {"name": "1svc", "port": {"number": 80}}}})
    old["metadata"]["uid"] = "u"
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"x": "y"}
    assert validate_ingress_update(new, old) == []
    assert len(errors(new)) == 3


def test_decode_nulls_a_resource_backends_api_group():
    obj = ing({"defaultBackend": {"resource": {"kind": "K", "name": "n"}},
               "rules": rules(path(backend={"resource": {"apiGroup": "g", "kind": "K", "name": "n"}}))})
    decode_ingress(obj)
    assert obj["spec"]["defaultBackend"]["resource"] == {"kind": "K", "name": "n", "apiGroup": None}
    assert obj["spec"]["rules"][0]["http"]["paths"][0]["backend"]["resource"]["apiGroup"] == "g"


def ic(name: str = "ic", **spec) -> dict:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("obj, expected", [
    (ic(controller="example.com/foo"), []),
    (ic(controller="example.com/foo", parameters={"kind": "K", "name": "n", "scope": "Namespace", "namespace": "ns"}),
     []),
    (ic(controller="nodomain", parameters={"kind": "", "name": "", "scope": "Namespace"}),
     ['spec.controller: Invalid value: "nodomain": must be a domain-prefixed path (such as "acme.io/foo")',
      "spec.parameters.kind: Required value", "spec.parameters.name: Required value",
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]),
    (ic(parameters={"kind": "K", "name": "n", "scope": "Cluster", "namespace": "x"}),
     ["spec.controller: Required value", "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]),
    (ic(controller="example.com/Foo bar", parameters={"kind": "K", "name": "n", "scope": "Galaxy"}),
     ['spec.controller: Invalid value: "Foo bar": Invalid path (regex used for validation is '
      "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
      'spec.parameters.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespace"']),
    (ic(controller="example.com/" + "a" * 240), ["spec.controller: Too long: may not be more than 250 bytes"]),
    (ic(controller="example.com/x", parameters={"kind": "K", "name": "n"}), ["spec.parameters.scope: Required value"]),
], ids=["a controller", "namespaced parameters", "no domain, no kind, name or namespace",
        "no controller, a namespace with Cluster scope", "a bad path and scope", "a controller too long",
        "parameters without a scope (before defaulting)"])
def test_ingress_class_validation(obj, expected):
    assert [str(e) for e in validate_ingress_class(obj)] == expected


def test_ingress_class_defaults_and_immutable_controller():
    obj = ic(controller="example.com/a", parameters={"kind": "K", "name": "n"})
    set_defaults_ingress_class(obj)
    assert obj["spec"]["parameters"]["scope"] == "Cluster"
    new = copy.deepcopy(obj)
    new["spec"]["controller"] = "example.com/b"
    assert [str(e) for e in validate_ingress_class_update(new, obj)] == [
        'spec.controller: Invalid value: "example.com/b": field is immutable']
