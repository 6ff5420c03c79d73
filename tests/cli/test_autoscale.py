"""``autoscale``, byte for byte against the real kubectl 1.36 (``--dry-run=client`` of targets
read from a file: kubectl asks the server only for discovery, the REST mapping and the scale
subresource, which a server of kubesim's own discovery documents answers), its refusals in
kubectl's words, and end to end on a cluster.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/autoscale/autoscale.go and autoscale_test.go
(TestValidate's min/max/cpu cases, TestParseResourceInput's percent, bare-number and quantity
inputs, TestCreateHorizontalPodAutoscalerV2's metric combinations).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubesim.kubectl.generate.autoscale import InputError, parse_resource_input
from kubesim.testing.cli import Harness, snapshot
from tests.cli.test_generate import KUBECTL, needs_kubectl

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
"""
STS = DEPLOY.replace("kind: Deployment", "kind: StatefulSet").replace("name: web}", "name: db}")
RS = DEPLOY.replace("kind: Deployment", "kind: ReplicaSet").replace("name: web}", "name: frontend}")
DS = DEPLOY.replace("kind: Deployment", "kind: DaemonSet").replace("name: web}", "name: agent}")
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, image: nginx}]}\n"


class _Discovery(BaseHTTPRequestHandler):
    """kubesim's own discovery documents (kubesim.server.discovery), scale subresources included."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        from kubesim.server import discovery

        path = self.path.split("?")[0]
        if path == "/api":
            body = discovery.api_versions("127.0.0.1:6443")
        elif path == "/apis":
            body = discovery.api_group_list()
        elif path == "/api/v1":
            body = discovery.api_resource_list("", "v1")
        elif path.startswith("/apis/") and path.count("/") == 3:
            _, _, group, version = path.split("/")
            body = discovery.api_resource_list(group, version)
        else:
            body = None
        data = json.dumps(body or {"kind": "Status", "status": "Failure", "code": 404}).encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Discovery)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "KUBECONFIG": str(home / "none"), "KUBERC": "off"}
    base = [KUBECTL, f"--server=http://127.0.0.1:{server.server_address[1]}", f"--cache-dir={home / 'cache'}"]

    def run(argv: list[str]):
        p = subprocess.run(base + argv, capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr.replace("kubectl", "kubesim")

    yield run
    server.shutdown()


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    for name, text in (("deploy", DEPLOY), ("sts", STS), ("rs", RS), ("ds", DS), ("pod", POD)):
        (d / f"{name}.yaml").write_text(text)
    return d


CASES = [
    "-f {d}/deploy.yaml --max=5 -o yaml",
    "-f {d}/deploy.yaml --max=5 -o json",
    "-f {d}/deploy.yaml --max=5",
    "-f {d}/deploy.yaml --max=5 -o name",
    "-f {d}/deploy.yaml --min=2 --max=5 --cpu-percent=50 -o yaml",
    "-f {d}/deploy.yaml --min=2 --max=5 --cpu-percent=50 -o json",
    "-f {d}/deploy.yaml --max=5 --cpu=70% --memory=200 -o yaml",
    "-f {d}/deploy.yaml --max=5 --cpu=500 --memory=60% --name=x -o json",
    "-f {d}/deploy.yaml --max=5 --cpu=1.5 -o yaml",
    "-f {d}/deploy.yaml --max=5 --cpu=250m --memory=1Gi -o yaml",
    "-f {d}/deploy.yaml --max=5 --cpu=0% -o yaml",
    "-f {d}/deploy.yaml --max=5 --cpu-percent=0 -o yaml",
    "-f {d}/deploy.yaml --max=5 --min=0 -o yaml -n team-a",
    "-f {d}/sts.yaml --max=3 -o yaml",
    "-f {d}/rs.yaml --max=3 -o yaml",
    # refused, with kubectl's words
    "-f {d}/deploy.yaml",
    "-f {d}/deploy.yaml --max=0",
    "-f {d}/deploy.yaml --max=-3",
    "-f {d}/deploy.yaml --min=5 --max=2",
    "-f {d}/deploy.yaml --max=3 --cpu-percent=50 --cpu=60%",
    "-f {d}/deploy.yaml --max=3 --cpu=abc",
    "-f {d}/deploy.yaml --max=3 --cpu=-5%",
    "-f {d}/deploy.yaml --max=3 --memory=x%",
    "-f {d}/deploy.yaml --max=3 --memory=1.5.5",
    "-f {d}/deploy.yaml --max=abc",
    "-f {d}/ds.yaml --max=3",
    "-f {d}/pod.yaml --max=3",
    "--max=3",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_autoscale_prints_what_kubectl_prints(kubectl, files, tmp_path, line):
    argv = ["autoscale"] + shlex.split(line.format(d=files)) + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    got = h(argv)
    assert (got.code, got.out, got.err) == want


@pytest.mark.parametrize("text,resource,want", [
    pytest.param("70%", "cpu", (None, 70, "Utilization"), id="a percentage is a utilization"),
    pytest.param("0%", "memory", (None, 0, "Utilization"), id="zero percent"),
    pytest.param("500", "cpu", ("500m", 0, "AverageValue"), id="a bare number is millicpu"),
    pytest.param("200", "memory", ("200Mi", 0, "AverageValue"), id="a bare number is mebibytes"),
    pytest.param("1.5", "cpu", ("1500u", 0, "AverageValue"), id="a bare fraction keeps its precision"),
    pytest.param(" 2Gi ", "memory", ("2Gi", 0, "AverageValue"), id="a quantity with spaces around it"),
])
def test_parse_resource_input(text, resource, want):
    assert parse_resource_input(text, resource) == want


@pytest.mark.parametrize("text,error", [
    pytest.param("", "empty input", id="empty"),
    pytest.param("x%", "invalid percentage value: x", id="a percentage that is no number"),
    pytest.param("-5%", "invalid percentage value: -5", id="a negative percentage"),
    pytest.param("abc", "invalid resource cpu value: abc", id="no quantity"),
])
def test_parse_resource_input_errors(text, error):
    with pytest.raises(InputError, match=error):
        parse_resource_input(text, "cpu")


BAD = [
    ("a pod has no scale subresource", "autoscale pod solo --max=3",
     "error: cannot autoscale a Pod: could not find scale subresource for /v1, Resource=pods in discovery "
     "information\n"),
    ("an unknown resource type", "autoscale foo web --max=3", 'error: the server doesn\'t have a resource type "foo"\n'),
    ("a deployment that does not exist", "autoscale deployment nope --max=3",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("a type without a name", "autoscale deployment --max=3",
     "error: resource(s) were provided, but no name was specified\n"),
    ("no --max", "autoscale deployment web", 'error: required flag(s) "max" not set\n'),
    ("min above max", "autoscale deployment web --min=5 --max=2",
     "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 5\n"),
    ("an autoscaler that exists, with no v1 fallback", "autoscale deployment web --max=3 --name=taken",
     "error: failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1: "
     "empty input\n"),
    ("an autoscaler that exists, through the v1 fallback", "autoscale deployment web --max=3 --name=taken --cpu=50%",
     'Error from server (AlreadyExists): horizontalpodautoscalers.autoscaling "taken" already exists\n'),
    ("an average cpu value cannot fall back to v1", "autoscale deployment web --max=3 --name=taken --cpu=500m",
     "error: failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1: "
     "%!w(<nil>)\n"),
]


@pytest.mark.parametrize("line,want", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_autoscale_is_refused_and_nothing_is_written(tmp_path, line, want):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.apply(DEPLOY)
    h.apply(POD)
    h.ok("autoscale deployment web --max=2 --name=taken")
    before = snapshot(tmp_path / "state")
    r = h(line)
    assert (r.code, r.err) == (1, want)
    assert snapshot(tmp_path / "state") == before


def test_autoscale_creates_the_v2_autoscaler_the_server_defaults(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.apply(DEPLOY)
    r = h("autoscale deployment web --cpu-percent=50 --min=1 --max=5")
    assert (r.out, r.err) == ("horizontalpodautoscaler.autoscaling/web autoscaled\n",
                              "Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource quantity "
                              "format (e.g., '70%' for utilization or '500m' for milliCPU).\n")
    assert h.ok("get hpa web -o jsonpath={.spec}") == (
        '{"maxReplicas":5,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":50,'
        '"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,'
        '"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}')
