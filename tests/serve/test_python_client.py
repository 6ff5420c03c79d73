"""The official Python client (``kubernetes`` on PyPI, a test dependency) against ``kubesim
serve``: it lists, creates, patches, server-side applies and watches pods through the kubeconfig
serve writes (TLS with serve's CA, its token), as it would against a real cluster.
"""

from __future__ import annotations

import os
import threading

import pytest

from kubesim.testing.cli import Harness
from kubesim.testing.serve import serving

kubernetes = pytest.importorskip("kubernetes", reason="needs the kubernetes Python client (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    from kubernetes import client, config

    state = str(tmp_path_factory.mktemp("pyclient-state"))
    h = Harness(state)
    h.ok("cluster init")
    with serving(state, h.vars):
        cfg = client.Configuration()
        config.load_kube_config(config_file=os.path.join(state, "serve", "kubeconfig"), client_configuration=cfg)
        yield client.CoreV1Api(client.ApiClient(cfg)), h


def _pod(name: str, image: str = "nginx:1.27") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "py"}},
            "spec": {"containers": [{"name": "c", "image": image}]}}


def test_create_then_list_as_kubesim_lists(api):
    v1, h = api
    created = v1.create_namespaced_pod("default", _pod("py1"))
    assert (created.metadata.name, created.spec.containers[0].image) == ("py1", "nginx:1.27")
    names = [p.metadata.name for p in v1.list_namespaced_pod("default", label_selector="app=py").items]
    assert names == ["py1"]
    assert h.ok("get pods -l app=py -o name") == "pod/py1\n"


def test_patch_records_the_clients_manager(api):
    v1, _ = api
    v1.create_namespaced_pod("default", _pod("py2"))
    patched = v1.patch_namespaced_pod("py2", "default", {"metadata": {"labels": {"patched": "yes"}}})
    assert patched.metadata.labels == {"app": "py", "patched": "yes"}
    managers = {e.manager for e in patched.metadata.managed_fields}
    assert "OpenAPI-Generator" in managers  # no fieldManager: the user agent's program name


def test_server_side_apply_through_the_client(api):
    v1, _ = api
    v1.patch_namespaced_pod("py3", "default", _pod("py3"), field_manager="py-apply",
                            _content_type="application/apply-patch+yaml")
    pod = v1.read_namespaced_pod("py3", "default")
    assert (pod.metadata.managed_fields[0].manager, pod.metadata.managed_fields[0].operation) == ("py-apply", "Apply")
    conflict = _pod("py3", image="nginx:1.28")
    from kubernetes.client.rest import ApiException

    with pytest.raises(ApiException) as e:
        v1.patch_namespaced_pod("py3", "default", conflict, field_manager="other",
                                _content_type="application/apply-patch+yaml")
    assert e.value.status == 409


def test_watch_sees_a_pod_created_meanwhile(api):
    from kubernetes import watch

    v1, h = api
    rv = v1.list_namespaced_pod("default").metadata.resource_version
    threading.Timer(0.3, lambda: h.ok("run py-watched --image=nginx")).start()
    w = watch.Watch()
    seen = []
    for event in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=20):
        seen.append((event["type"], event["object"].metadata.name))
        if event["object"].metadata.name == "py-watched":
            w.stop()
    assert ("ADDED", "py-watched") in seen


def test_a_missing_pod_is_the_apiservers_404(api):
    from kubernetes.client.rest import ApiException

    v1, _ = api
    with pytest.raises(ApiException) as e:
        v1.read_namespaced_pod("nope", "default")
    assert e.value.status == 404 and '"reason":"NotFound"' in e.value.body.replace(" ", "")
