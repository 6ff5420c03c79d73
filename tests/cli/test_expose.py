"""``expose``, byte for byte against the real kubectl 1.36 (``--dry-run=client`` of objects read
from a file: kubectl asks the server only for their REST mapping, which the discovery-only
server of test_generate answers), and end to end on a cluster.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/expose/expose.go and its expose_test.go cases
(multiple ports named port-N, multi-protocol ports port-N-proto, --protocol stomping the
introspected protocols, a pod without labels or without ports).
"""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import Harness, snapshot
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web, tier: fe}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        ports: [{containerPort: 8080}, {containerPort: 53, protocol: UDP}, {containerPort: 53, protocol: TCP}]
"""

ONE_PORT = DEPLOY.replace(", {containerPort: 53, protocol: UDP}, {containerPort: 53, protocol: TCP}", "")

POD = """apiVersion: v1
kind: Pod
metadata: {name: solo, labels: {run: solo}}
spec:
  containers: [{name: c, image: nginx, ports: [{containerPort: 80, name: http}]}]
"""

BARE_POD = """apiVersion: v1
kind: Pod
metadata: {name: bare}
spec:
  containers: [{name: c, image: nginx}]
"""

UNLABELLED_PORTLESS = BARE_POD.replace("name: bare}", "name: bare, labels: {a: b}}")


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    for name, text in (("deploy", DEPLOY), ("one", ONE_PORT), ("pod", POD), ("bare", BARE_POD),
                       ("portless", UNLABELLED_PORTLESS)):
        (d / f"{name}.yaml").write_text(text)
    return d


CASES = [
    "-f {d}/deploy.yaml -o yaml",
    "-f {d}/deploy.yaml -o json",
    "-f {d}/deploy.yaml --port=80 --target-port=8080 -o yaml -n team-a",
    "-f {d}/deploy.yaml --port=80",
    "-f {d}/deploy.yaml --port=80 -o name",
    "-f {d}/deploy.yaml --protocol=SCTP -o yaml",
    "-f {d}/one.yaml -o yaml",
    "-f {d}/one.yaml --port=80 --type=NodePort --name=x --protocol=UDP --selector=a=b,c=d -l q=r -o json",
    "-f {d}/one.yaml --port=80 --target-port=http --type=LoadBalancer --load-balancer-ip=1.2.3.4 "
    "--external-ip=5.6.7.8 --session-affinity=ClientIP --cluster-ip=10.96.0.50 -o json",
    "-f {d}/pod.yaml -o yaml",
    "-f {d}/portless.yaml --cluster-ip=None -o yaml",
    # refused, with kubectl's words
    "-f {d}/bare.yaml --port=80",
    "-f {d}/portless.yaml",
    "-f {d}/one.yaml --session-affinity=Foo",
    "-f {d}/one.yaml --port=abc",
    "-f {d}/one.yaml --selector=a",
    "-f {d}/one.yaml -l =b",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_expose_prints_what_kubectl_prints(kubectl, files, tmp_path, line):
    argv = ["expose"] + shlex.split(line.format(d=files)) + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))


BAD = [
    ("a kind that cannot be exposed", "expose node n1 --port=80", 'error: cannot expose a Node\n'),
    ("a deployment that does not exist", "expose deployment nope --port=80",
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("a pod without ports and no --port", "expose pod bare",
     "error: couldn't find port via --port flag or introspection\n"),
    ("nothing to expose", "expose",
     "error: You must provide one or more resources by argument or filename.\nExample resource specifications "
     "include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n"),
    ("a service that is already there", "expose deployment web --port=80 --name=kubernetes",
     'Error from server (AlreadyExists): services "kubernetes" already exists\n'),
]


@pytest.mark.parametrize("line,want", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_expose_is_refused_and_nothing_is_written(tmp_path, line, want):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.apply("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    h.apply(ONE_PORT)
    h.apply(BARE_POD.replace("name: bare}", "name: bare, labels: {a: b}}"))
    before = snapshot(tmp_path / "state")
    r = h(line)
    assert (r.code, r.err) == (1, want)
    assert snapshot(tmp_path / "state") == before


def test_expose_deployment_then_get_and_describe_as_on_a_real_cluster(tmp_path):
    """The issue's done-when, checked line for line against what the real cluster printed for
    the same steps (its IPs put in place of kubesim's)."""
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.ok("create deployment web --image=nginx --replicas=2 --port=8080")
    h.ok("advance 5s")  # nginx pulled: the pods are ready
    assert h.ok("expose deployment web --port=80 --target-port=8080") == "service/web exposed\n"
    ip = h.ok("get svc web -o jsonpath={.spec.clusterIP}")
    pods = h.ok("get pods -o jsonpath={.items[*].status.podIP}").split()
    eps = ",".join(f"{p}:8080" for p in sorted(pods))
    r = h("get svc,ep -o wide")
    assert r.err == "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"
    w = max(len(ip), len("10.96.0.1"), len("CLUSTER-IP"))
    assert r.out == (
        f"NAME                 TYPE        {'CLUSTER-IP':<{w}}   EXTERNAL-IP   PORT(S)   AGE   SELECTOR\n"
        f"service/kubernetes   ClusterIP   {'10.96.0.1':<{w}}   <none>        443/TCP   5s    <none>\n"
        f"service/web          ClusterIP   {ip:<{w}}   <none>        80/TCP    0s    app=web\n"
        "\n"
        f"NAME                   ENDPOINTS{' ' * (len(eps) - 9)}   AGE\n"
        f"endpoints/kubernetes   {h.ok('get ep kubernetes -o jsonpath={.subsets[0].addresses[0].ip}')}:6443"
        f"{' ' * (len(eps) - len(h.ok('get ep kubernetes -o jsonpath={.subsets[0].addresses[0].ip}')) - 5)}   5s\n"
        f"endpoints/web          {eps}   0s\n")
    assert h.ok("describe svc web") == (
        "Name:                     web\nNamespace:                default\nLabels:                   app=web\n"
        "Annotations:              <none>\nSelector:                 app=web\nType:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\nIP Families:              IPv4\n"
        f"IP:                       {ip}\nIPs:                      {ip}\n"
        "Port:                     <unset>  80/TCP\nTargetPort:               8080/TCP\n"
        f"Endpoints:                {eps}\nSession Affinity:         None\n"
        "Internal Traffic Policy:  Cluster\nEvents:                   <none>\n")


RUN_CASES = [
    "web --image=nginx --port=80 --expose -o yaml",
    "web --image=nginx --port=80 --expose -o json",
    "web --image=nginx --port=80 --expose",
    "web --image=nginx --port=80 --expose -o name",
    "web --image=nginx --port=8080 --expose -l a=b,c=d -o json",
    "web --image=nginx --port=80 --expose -n team-a -o yaml",
    "web --image=nginx --expose",
]


@needs_kubectl
@pytest.mark.parametrize("line", RUN_CASES)
def test_run_expose_prints_what_kubectl_prints(kubectl, tmp_path, line):
    argv = ["run"] + shlex.split(line) + ["--dry-run=client"]
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))


def test_run_expose_creates_the_pod_and_its_service(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    assert h.ok("run web --image=nginx --port=80 --expose") == "service/web created\npod/web created\n"
    assert h.ok("get ep web -o jsonpath={.subsets[0].notReadyAddresses[0].ip}")  # pulling nginx
    h.ok("advance 5s")
    ip = h.ok("get pod web -o jsonpath={.status.podIP}")
    assert h.ok("get ep web -o jsonpath={.subsets[0].addresses[0].ip}") == ip
    assert h.ok("get svc web -o jsonpath={.spec.selector}") == '{"run":"web"}'
