"""``version``, ``api-versions`` and ``cluster-info`` in kubectl v1.36's shape.

Where kubectl prints without a server (``version --client``, its usage errors) the real binary
of the test extras is the reference when it is installed; kubesim adds only its own version, on
a line (a key) of its own.
"""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess
import sys

import pytest

from kubesim import __version__
from kubesim.testing.cli import Harness

KUBECTL = pathlib.Path(sys.executable).parent / "kubectl"
OWN_LINE = f"kubesim Version: {__version__}\n"


def _kubectl(args: str):
    if not KUBECTL.exists():
        pytest.skip("the real kubectl of the test extras is not installed")
    r = subprocess.run([str(KUBECTL), *shlex.split(args)], capture_output=True, text=True,
                       env={**os.environ, "KUBECONFIG": os.devnull})
    return r.stdout, r.stderr, r.returncode


@pytest.mark.parametrize("args", [
    pytest.param("version --client", id="the client and kustomize lines"),
    pytest.param("version --client=true foo", id="extra arguments are not checked without the server"),
    pytest.param("version --client -o foo", id="an unknown output format"),
])
def test_client_side_version_is_kubectls_plus_kubesims_line(tmp_path, args):
    out, err, code = _kubectl(args)
    r = Harness(tmp_path)(args)
    assert (r.out, r.err, r.code) == ((out + OWN_LINE) if code == 0 else out, err, code)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_client_side_version_document_is_kubectls_plus_kubesim_version(tmp_path, fmt):
    import yaml

    out, _, _ = _kubectl(f"version --client -o {fmt}")
    r = Harness(tmp_path)(f"version --client -o {fmt}")
    load = json.loads if fmt == "json" else yaml.safe_load
    mine = load(r.out)
    assert mine.pop("kubesimVersion") == __version__
    assert mine == load(out)
    if fmt == "yaml":  # the same text but for kubesim's key
        assert r.out.replace(f"kubesimVersion: {__version__}\n", "") == out


def test_version_names_the_emulated_server(tmp_path):
    r = Harness(tmp_path)("version")
    assert r.out == f"Client Version: v1.36.4\nKustomize Version: v5.8.1\nServer Version: v1.35.0\n{OWN_LINE}"
    server = json.loads(Harness(tmp_path).ok("version -o json"))["serverVersion"]
    assert (server["major"], server["minor"], server["gitVersion"]) == ("1", "35", "v1.35.0")
    assert (server["emulationMinor"], server["minCompatibilityMinor"]) == ("35", "34")


@pytest.mark.parametrize("args, err", [
    pytest.param("version foo", "error: extra arguments: [foo]\n", id="extra arguments asking the server"),
    pytest.param("version -o wide", "error: --output must be 'yaml' or 'json'\n", id="a table format"),
])
def test_version_refuses_what_kubectl_refuses(tmp_path, args, err):
    r = Harness(tmp_path)(args)
    assert (r.out, r.err, r.code) == ("", err, 1)


def test_api_versions_lists_the_served_group_versions_sorted(tmp_path):
    assert Harness(tmp_path).ok("api-versions") == (
        "apiextensions.k8s.io/v1\napps/v1\nautoscaling/v1\nautoscaling/v2\nbatch/v1\ncoordination.k8s.io/v1\ndiscovery.k8s.io/v1\nmetrics.k8s.io/v1beta1\nnetworking.k8s.io/v1\nnode.k8s.io/v1\n"
        "policy/v1\nrbac.authorization.k8s.io/v1\nscheduling.k8s.io/v1\nstorage.k8s.io/v1\nv1\n")


def test_api_versions_refuses_arguments_as_kubectl(tmp_path):
    out, err, code = _kubectl("api-versions foo")
    r = Harness(tmp_path)("api-versions foo")
    assert (r.out, r.err.replace("kubesim", "kubectl"), r.code) == (out, err, code)


@pytest.mark.parametrize("args, services", [
    ("cluster-info", "CoreDNS is running at https://172.30.1.2:6443/api/v1/namespaces/kube-system/services/"
                     "kube-dns:dns/proxy\n"),  # kubeadm's kube-dns is labelled kubernetes.io/cluster-service
    ("cluster-info -n default", ""),
])
def test_cluster_info_names_the_control_plane_at_kubeadms_address(tmp_path, args, services):
    assert Harness(tmp_path).ok(args) == (
        "Kubernetes control plane is running at https://172.30.1.2:6443\n" + services + "\n"
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n")


def test_cluster_info_links_a_cluster_service_through_the_proxy():
    from kubesim.kubectl.cmd.cluster_info import service_link

    svc = {"metadata": {"name": "kube-dns", "namespace": "kube-system"},
           "spec": {"ports": [{"name": "dns", "port": 53}]}}
    base = "https://172.30.1.2:6443"
    assert service_link(base, svc) == base + "/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy"
    svc["spec"]["ports"] = [{"port": 443}]
    assert service_link(base, svc) == base + "/api/v1/namespaces/kube-system/services/https:kube-dns:/proxy"
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}
    assert service_link(base, svc) == "http://1.2.3.4:443 "

