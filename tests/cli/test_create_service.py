"""``create service clusterip|nodeport|loadbalancer|externalname``, byte for byte against the real
kubectl 1.36 (``--dry-run=client`` needs no server), and end to end through the API server.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_service.go and create_service_test.go
(port names ``port-target``, ``--clusterip=None``, the node port on every port, the refusals).
"""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import Harness, snapshot
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

CASES = [
    "clusterip my-cs --tcp=5678:8080 -o yaml",
    "clusterip my-cs --tcp=5678:8080 -o json",
    "clusterip my-cs --tcp=5678:8080",
    "clusterip my-cs --tcp=5678:8080 -o name",
    "clusterip my-cs --clusterip=None -o yaml",
    "clusterip my-cs --clusterip=10.96.0.50 --tcp=80 -o json",
    "svc clusterip x --tcp=80,81 --tcp 82:x -o yaml",
    "clusterip x --tcp=80 -n team-a -o yaml",
    "clusterip x --tcp=0:80 -o yaml",
    "nodeport my-ns --tcp=5678:8080,53 --node-port=30080 -o yaml",
    "nodeport my-ns --tcp=5678:8080 -o json",
    "loadbalancer lb --tcp=80:http -o yaml",
    "externalname en --external-name bar.com -o yaml",
    "externalname en --external-name bar.com. -o json",
    # refused, with kubectl's words
    "clusterip my-cs",
    "externalname en",
    "externalname en --external-name Bad_Name",
    "nodeport x --tcp=80 --clusterip=None",
    "loadbalancer x --tcp=80 --clusterip=None",
    "clusterip x --tcp=80 --node-port=30000",
    "clusterip x --tcp=80:Bad_N",
    "clusterip x --tcp=80:70000",
    "clusterip x --tcp=abc",
    "clusterip x --tcp=65536",
    "clusterip",
    "clusterip a b --tcp=1",
    "nodeport x --tcp=80 --node-port=abc",
    "foo x",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_create_service_prints_what_kubectl_prints(kubectl, tmp_path, line):
    words = shlex.split(line)
    argv = ["create"] + (words if words[0] == "svc" else ["service"] + words) + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


@needs_kubectl
def test_create_service_alone_prints_its_help_as_kubectl_does(kubectl, tmp_path):
    want = kubectl(["create", "service"])
    got = Harness(tmp_path / "state")(["create", "service"])
    assert (got.code, got.out, got.err) == want


def test_create_service_creates_it_and_the_server_refuses_a_taken_node_port(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    assert h.ok("create service nodeport web --tcp=80:8080 --node-port=30080") == "service/web created\n"
    assert h.ok("get svc web -o jsonpath={.spec.ports[0].nodePort}") == "30080"
    before = snapshot(tmp_path / "state")
    r = h("create service nodeport other --tcp=80 --node-port=30080")
    assert (r.code, r.err) == (1, 'error: failed to create NodePort service: Service "other" is invalid: '
                                  "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n")
    assert snapshot(tmp_path / "state") == before
    assert h.ok("create service clusterip hl --clusterip=None --dry-run=server") == \
        "service/hl created (server dry run)\n"
    assert h("get svc hl").code == 1
