"""kubectl apply's three-way merge (kubesim.api.merge) against the real kubectl's.

The oracle: a loopback API server that serves discovery and one live object, and records the
PATCH the real ``kubectl apply`` sends for it; kubesim's strategic merge (itself checked byte for
byte against ``kubectl patch --local`` in tests/cli/test_edit.py) applies that patch to the live
object, and the result must equal ``three_way``'s. Each field's patch strategy comes from the one
schema-checked table in kubesim.api.patch.
"""

import copy
import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubesim.api.merge import LAST_APPLIED, last_applied_json, three_way
from kubesim.api.patch import strategic_merge_patch
from kubesim.testing import real_kubectl

KUBECTL = real_kubectl()


def _resource(name, kind, namespaced):
    return {"name": name, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}


_DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [_resource("nodes", "Node", False)]},
    "/apis/apps/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1",
                      "resources": [_resource("deployments", "Deployment", True)]},
}


class _Server(BaseHTTPRequestHandler):
    live: dict = {}
    patches: list = []

    def log_message(self, *args):
        pass

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802
        path = self.path.split("?")[0]
        if path in _DISCOVERY:
            return self._send(200, _DISCOVERY[path])
        if path.endswith("/" + _Server.live["metadata"]["name"]):
            return self._send(200, _Server.live)
        self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                         "code": 404, "message": "the server could not find the requested resource"})

    def do_PATCH(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Server.patches.append((self.headers.get("Content-Type", ""), json.loads(body)))
        self._send(200, _Server.live)


@pytest.fixture(scope="module")
def kubectl_apply(tmp_path_factory):
    """The object the real kubectl apply would leave: (live, desired) -> patched live."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "KUBECONFIG": str(home / "none"), "KUBERC": "off"}

    def run(live, desired):
        _Server.live, _Server.patches = live, []
        f = home / "desired.json"
        f.write_text(json.dumps(desired))
        p = subprocess.run([KUBECTL, f"--server=http://127.0.0.1:{server.server_address[1]}",
                            f"--cache-dir={home / 'cache'}", "apply", "--validate=false", "-f", str(f)],
                           capture_output=True, text=True, env=env, timeout=60)
        assert p.returncode == 0, p.stderr
        if not _Server.patches:
            return live
        content_type, patch = _Server.patches[0]
        assert content_type == "application/strategic-merge-patch+json"
        return strategic_merge_patch(live, patch)

    yield run
    server.shutdown()


def _node(spec, **metadata):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01", **metadata}, "spec": spec}


def _taint(key, effect="NoSchedule", **kw):
    return {"key": key, "effect": effect, **kw}


def _deployment(spec=None, containers=None, **pod_spec):
    containers = containers or [{"name": "nginx", "image": "nginx"}]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": containers, **pod_spec}}, **(spec or {})}}


def _c(name, **kw):
    return {"name": name, "image": "img-" + name, **kw}


def _defaulted(c):
    return {**c, "imagePullPolicy": "Always", "terminationMessagePath": "/dev/termination-log", "resources": {}}


_ROLLING = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}

# (live, last applied, new configuration)
CASES = {
    "taints are replaced, a controller's taint goes too": (
        _node({"taints": [_taint("a", value="1"), _taint("node.kubernetes.io/not-ready", "NoExecute")]}),
        _node({"taints": [_taint("a", value="1")]}), _node({"taints": [_taint("a", value="2")]})),
    "taints are replaced even when the configuration did not change": (
        _node({"taints": [_taint("a", value="1"), _taint("node.kubernetes.io/not-ready", "NoExecute")]}),
        _node({"taints": [_taint("a", value="1")]}), _node({"taints": [_taint("a", value="1")]})),
    "podCIDRs merge as a set": (
        _node({"podCIDRs": ["10.0.0.0/24", "10.0.9.0/24"]}), _node({"podCIDRs": ["10.0.0.0/24"]}),
        _node({"podCIDRs": ["10.0.1.0/24"]})),
    "a finalizer another writer added stays, in its place": (
        _node({}, finalizers=["x", "a"]), _node({}, finalizers=["a"]), _node({}, finalizers=["a", "b"])),
    "an applied finalizer dropped from the configuration goes": (
        _node({}, finalizers=["a", "c", "x"]), _node({}, finalizers=["a", "c"]), _node({}, finalizers=["a"])),
    "finalizers reordered": (
        _node({}, finalizers=["a", "b", "x"]), _node({}, finalizers=["a", "b"]), _node({}, finalizers=["b", "a"])),
    "strategy Recreate clears the defaulted rollingUpdate (retainKeys)": (
        _deployment({"strategy": _ROLLING}), _deployment(), _deployment({"strategy": {"type": "Recreate"}})),
    "strategy unchanged: retainKeys still clears what the configuration does not set": (
        _deployment({"strategy": _ROLLING}), _deployment({"strategy": {"type": "RollingUpdate"}}),
        _deployment({"strategy": {"type": "RollingUpdate"}, "replicas": 2})),
    "a volume's source changes (retainKeys on list items)": (
        _deployment(volumes=[{"name": "v", "emptyDir": {}}]), _deployment(volumes=[{"name": "v", "emptyDir": {}}]),
        _deployment(volumes=[{"name": "v", "hostPath": {"path": "/x"}}])),
    "a volume keeps its defaulted fields": (
        _deployment(volumes=[{"name": "v", "configMap": {"name": "cm", "defaultMode": 420}}]),
        _deployment(volumes=[{"name": "v", "configMap": {"name": "cm"}}]),
        _deployment(volumes=[{"name": "v", "configMap": {"name": "cm2"}}])),
    "a container another writer added stays in its place": (
        _deployment(containers=[_defaulted(_c("a")), _defaulted(_c("s")), _defaulted(_c("b"))]),
        _deployment(containers=[_c("a"), _c("b")]), _deployment(containers=[_c("a"), _c("b", image="new")])),
    "containers reordered and one deleted": (
        _deployment(containers=[_defaulted(_c("a")), _defaulted(_c("b")), _defaulted(_c("c"))]),
        _deployment(containers=[_c("a"), _c("b"), _c("c")]), _deployment(containers=[_c("c"), _c("a")])),
    "env and ports merge by key": (
        _deployment(containers=[_defaulted(_c("a", env=[{"name": "X", "value": "1"}, {"name": "L", "value": "l"}],
                                               ports=[{"containerPort": 80, "protocol": "TCP"}]))]),
        _deployment(containers=[_c("a", env=[{"name": "X", "value": "1"}], ports=[{"containerPort": 80}])]),
        _deployment(containers=[_c("a", env=[{"name": "Y", "value": "2"}, {"name": "X", "value": "1"}],
                                   ports=[{"containerPort": 80}, {"containerPort": 443}])])),
    "tolerations (no patch strategy) are replaced": (
        _deployment(tolerations=[{"key": "a", "operator": "Exists"}, {"key": "live", "operator": "Exists"}]),
        _deployment(tolerations=[{"key": "a", "operator": "Exists"}]),
        _deployment(tolerations=[{"key": "b", "operator": "Exists"}])),
}


@pytest.mark.skipif(KUBECTL is None, reason="the real kubectl is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_three_way_is_what_kubectl_apply_sends(kubectl_apply, name):
    live, last, desired = (copy.deepcopy(x) for x in CASES[name])
    live["metadata"].setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(last)
    expected = kubectl_apply(live, desired)
    desired["metadata"].setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(desired)
    assert three_way(live, last, desired) == expected


def test_apply_switches_a_deployment_to_recreate(kubesim, tmp_path):
    """The defaulted rollingUpdate goes with the retainKeys strategy, as with kubectl (it used to
    stay and fail validation)."""
    f = tmp_path / "web.json"
    f.write_text(json.dumps(_deployment()))
    kubesim.ok(f"apply -f {f}")
    f.write_text(json.dumps(_deployment({"strategy": {"type": "Recreate"}})))
    assert kubesim.ok(f"apply -f {f}") == "deployment.apps/web configured\n"
    d = json.loads(kubesim.ok("get deployment web -o json"))
    assert d["spec"]["strategy"] == {"type": "Recreate"}
