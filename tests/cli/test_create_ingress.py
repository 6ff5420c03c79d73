"""`create ingress|ing` byte for byte against the real kubectl 1.36
(staging/src/k8s.io/kubectl/pkg/cmd/create/create_ingress.go and its create_ingress_test.go
cases), the Ingress it creates through the API server (the DefaultIngressClass admission plugin,
the server's refusals: exit 1, state unchanged), and get/describe of Ingresses and
IngressClasses as a real v1.35 cluster prints them."""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import snapshot
from kubesim.testing.cli import Harness
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

SAME = [
    "create ingress simple --rule=foo.com/bar=svc1:8080,tls=my-cert --dry-run=client -o yaml",
    "create ingress catch-all --class=otheringress --rule=/path=svc:port --dry-run=client -o yaml",
    "create ingress annotated --class=default --rule=foo.com/bar=svc:port --annotation ingress.annotation1=foo "
    "--annotation ingress.annotation2=bla --dry-run=client -o yaml",
    "create ingress multipath --class=default --rule=foo.com/=svc:port --rule=foo.com/admin/=svcadmin:portadmin "
    "--dry-run=client -o yaml",
    "create ingress ingress1 --class=default --rule=foo.com/path*=svc:8080 --rule=bar.com/admin*=svc2:http "
    "--dry-run=client -o yaml",
    "create ingress ingtls --class=default --rule=foo.com/=svc:https,tls --rule=foo.com/path/subpath*=othersvc:8080 "
    "--dry-run=client -o yaml",
    "create ingress ingsecret --class=default --rule=foo.com/*=svc:8080,tls=secret1 --dry-run=client -o yaml",
    "create ingress ingdefault --class=default --default-backend=defaultsvc:http "
    "--rule=foo.com/*=svc:8080,tls=secret1 --dry-run=client -o yaml",
    "create ing x --default-backend=svc:80 --dry-run=client -o json -n team",
    "create ingress x --rule=/a=svc:99999999999,tls=a=b --rule=h/p*=s:-0,tls --rule=h/q=s:0,x --dry-run=client -o yaml",
    "create ingress x --rule=a.com/=s:1,tls=one --rule=b.com/=s:2,tls=one --rule=c.com/=s:3,tls=two "
    "--rule=a.com/x=s:4,tls=two --dry-run=client -o json",
    "create ingress x --rule=/=s:080 --annotation=a= --annotation=b=c=d --dry-run=client -o yaml",
    "create ingress x --rule=/=s:80 --dry-run=client",
    "create ingress x --rule=/=s:80 --dry-run=client -o name",
    # refused by the client
    "create ingress x --rule=bad --dry-run=client",
    "create ingress x --rule=foo.com=svc:80 --dry-run=client",
    "create ingress x --dry-run=client",
    "create ingress x --default-backend=a --dry-run=client",
    "create ingress x --default-backend=a:b:c --dry-run=client",
    "create ingress x --rule=/=a:1 --annotation=foo --dry-run=client",
    "create ingress --rule=/=a:1 --dry-run=client",
    "create ingress a b --rule=/=a:1 --dry-run=client",
    "create ingress x --rule=/=a:1 --image=nginx --dry-run=client",
    "create ingress x --rule=/=a:1 --dry-run=client -o wide",
    "create deployment x --image=nginx --rule=/=a:1 --dry-run=client",
]


@needs_kubectl
@pytest.mark.parametrize("line", SAME)
def test_prints_what_kubectl_prints(kubectl, tmp_path, line):  # noqa: F811
    argv = shlex.split(line)
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def test_a_rule_that_makes_kubectl_panic_exits_2(kubesim):
    r = kubesim("create ingress x --rule=/a=b=svc:80 --dry-run=client -o yaml")
    assert (r.code, r.out) == (2, "")
    assert r.err.startswith("panic: runtime error: index out of range [1] with length 1")


CLASSES = """apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: plain}
spec:
  controller: example.com/plain
"""


def test_create_ingress_then_get_and_describe(kubesim):
    assert kubesim.apply(CLASSES) == ("ingressclass.networking.k8s.io/nginx created\n"
                                      "ingressclass.networking.k8s.io/plain created\n")
    assert kubesim.ok("create ingress web --rule=shop.example.com/*=web:80,tls=shop-tls "
                      "--rule=shop.example.com/api=api:http --default-backend=fallback:8080") == \
        "ingress.networking.k8s.io/web created\n"
    assert kubesim.ok("create ing plain --class=plain --rule=/=x:80") == "ingress.networking.k8s.io/plain created\n"
    assert kubesim.ok("get ing") == (
        "NAME    CLASS   HOSTS              ADDRESS   PORTS     AGE\n"
        "plain   plain   *                            80        0s\n"
        "web     nginx   shop.example.com             80, 443   0s\n")
    assert kubesim.ok("get ingressclass") == (
        "NAME    CONTROLLER             PARAMETERS                                      AGE\n"
        "nginx   k8s.io/ingress-nginx   IngressParameters.k8s.example.com/external-lb   0s\n"
        "plain   example.com/plain      <none>                                          0s\n")
    assert kubesim.ok("get ingressclass nginx -o jsonpath={.spec.parameters.scope}") == "Cluster"
    assert kubesim.ok("get ing web -o jsonpath={.status}/{.metadata.generation}") == '{"loadBalancer":{}}/1'
    assert kubesim.ok("describe ing web") == (
        "Name:             web\n"
        "Labels:           <none>\n"
        "Namespace:        default\n"
        "Address:          \n"
        "Ingress Class:    nginx\n"
        'Default backend:  fallback:8080 (<error: services "fallback" not found>)\n'
        "TLS:\n"
        "  shop-tls terminates shop.example.com\n"
        "Rules:\n"
        "  Host              Path  Backends\n"
        "  ----              ----  --------\n"
        "  shop.example.com  \n"
        '                    /      web:80 (<error: services "web" not found>)\n'
        '                    /api   api:http (<error: services "api" not found>)\n'
        "Annotations:        <none>\n"
        "Events:             <none>\n")
    assert kubesim.ok("describe ingressclass plain") == (
        "Name:         plain\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "Controller:   example.com/plain\n"
        "Events:       <none>\n")


@pytest.mark.parametrize("setup, line, err", [
    ("", "create ingress x --rule=/=Bad_Svc:80 --class=Bad_C",
     'error: failed to create ingress: Ingress.networking.k8s.io "x" is invalid: [spec.rules[0].http.paths[0].'
     'backend.service.name: Invalid value: "Bad_Svc": a DNS-1035 label must consist of lower case alphanumeric '
     "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
     "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.ingressClassName: "
     'Invalid value: "Bad_C": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '
     "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
     "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"),
    ("", "create ingress x --default-backend=s:70000",
     'error: failed to create ingress: Ingress.networking.k8s.io "x" is invalid: spec.defaultBackend.service.port.'
     "number: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ("", "create ingress x --rule=/a//b=s:80",
     'error: failed to create ingress: Ingress.networking.k8s.io "x" is invalid: spec.rules[0].http.paths[0].path: '
     "Invalid value: \"/a//b\": must not contain '//'"),
    ("create ingress x --rule=/=s:80", "create ingress x --rule=/=s:80",
     'error: failed to create ingress: ingresses.networking.k8s.io "x" already exists'),
    ("", "create ingress x --rule=/=s:80 -n nowhere", 'error: failed to create ingress: namespaces "nowhere" not found'),
], ids=["a bad service name and class", "a port out of range", "a path with //", "an existing ingress",
        "a missing namespace"])
def test_the_server_refuses(kubesim, setup, line, err):
    if setup:
        kubesim.ok(setup)
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(line)
    assert (r.code, r.out, r.err) == (1, "", err + "\n")
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("classes, flags, expected", [
    ("", "", ""),
    (CLASSES, "", "nginx"),
    (CLASSES, "--class=plain", "plain"),
    (CLASSES, "--annotation=kubernetes.io/ingress.class=other", ""),
], ids=["no default class: none", "the default class is set", "a named class is kept",
        "the legacy annotation keeps it unset"])
def test_default_ingress_class_admission(kubesim, classes, flags, expected):
    if classes:
        kubesim.apply(classes)
    kubesim.ok(f"create ingress x --rule=/=s:80 {flags}")
    assert kubesim.ok("get ing x -o jsonpath={.spec.ingressClassName}") == expected
