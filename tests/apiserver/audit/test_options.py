"""The kube-apiserver's audit flags and the node files they name (kubesim.apiserver.audit.options):
a path inside the container reaches the node only through a hostPath mount, the deepest one
covering it; the node's ``/`` is its machine directory, its static pod path ``manifests/``."""

from __future__ import annotations

import pytest

from kubesim.apiserver.audit import options as O

POD = {"spec": {"volumes": [
    {"name": "pki", "hostPath": {"path": "/etc/kubernetes/pki"}},
    {"name": "audit", "hostPath": {"path": "/etc/kubernetes/audit"}},
    {"name": "file", "hostPath": {"path": "/srv/policy.yaml"}},
    {"name": "scratch", "emptyDir": {}}]}}
CONTAINER = {"volumeMounts": [
    {"name": "pki", "mountPath": "/etc/kubernetes/pki"},
    {"name": "audit", "mountPath": "/etc/kubernetes/audit/"},
    {"name": "file", "mountPath": "/etc/kubernetes/audit/special.yaml"},
    {"name": "scratch", "mountPath": "/var/log"}]}


@pytest.mark.parametrize("path, want", [
    ("/etc/kubernetes/audit/policy.yaml", "/etc/kubernetes/audit/policy.yaml"),
    ("/etc/kubernetes/audit/special.yaml", "/srv/policy.yaml"),
    ("/etc/kubernetes/audit", "/etc/kubernetes/audit"),
    ("/etc/kubernetes/audit-policy.yaml", None),
    ("/var/log/audit.log", None),
    ("/tmp/x", None),
], ids=["under a mounted directory", "a file mounted on its own wins over its directory",
        "the mount point itself", "a sibling of a mount is not under it", "an emptyDir is not the node's",
        "not mounted at all"])
def test_a_container_path_is_a_node_path_only_through_a_host_path_mount(path, want):
    assert O.host_path(POD, CONTAINER, path) == want


@pytest.mark.parametrize("path, want", [
    ("/etc/kubernetes/audit/policy.yaml", "N/etc/kubernetes/audit/policy.yaml"),
    ("/etc/kubernetes/manifests/kube-apiserver.yaml", "N/manifests/kube-apiserver.yaml"),
    ("/var/log/../../../../x", "N/x"),
], ids=["the node's root is its machine directory", "the static pod path is manifests/",
        "no path leaves the machine directory"])
def test_node_files_live_in_the_machine_directory(path, want):
    assert O.node_file("N", path) == want


def test_flags_read_as_pflag_reads_them():
    c = {"command": ["kube-apiserver", "--audit-log-path=/a", "--audit-policy-file", "/p.yaml", "--v=2"],
         "args": ["--audit-log-path=/b"]}
    assert O.flags(c) == {"audit-log-path": "/b", "audit-policy-file": "/p.yaml", "v": "2"}
