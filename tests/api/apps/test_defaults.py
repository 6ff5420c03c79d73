"""apps/v1 scheme defaulting (pkg/apis/apps/v1/defaults.go), and the overlap with kubectl's
generator."""

import copy
import json
import os
import subprocess

import pytest

from kubesim.api.apps.defaults import set_defaults_deployment
from kubesim.api.apps.validation import validate_deployment
from kubesim.testing import real_kubectl
from tests.api.builders import SERVER_SPEC, deploy


def _kubectl():
    return real_kubectl()


@pytest.mark.skipif(_kubectl() is None, reason="the real kubectl is not installed")
def test_kubectl_generator_output_defaults_to_what_the_server_stores():
    out = subprocess.run([_kubectl(), "create", "deployment", "web", "--image=nginx", "--replicas=2",
                          "--dry-run=client", "-o", "json"], capture_output=True, text=True, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "KUBECONFIG": "/dev/null"})
    generated = json.loads(out.stdout)
    client = copy.deepcopy(generated)
    set_defaults_deployment(generated)
    assert generated["spec"] == SERVER_SPEC
    # everything kubectl sent survives defaulting unchanged (the overlap is the user's intent)
    for key in ("replicas", "selector"):
        assert generated["spec"][key] == client["spec"][key]
    assert generated["spec"]["template"]["metadata"]["labels"] == client["spec"]["template"]["metadata"]["labels"]
    generated["metadata"]["namespace"] = "default"  # the request's namespace, as the server fills it
    assert validate_deployment(generated) == []


def test_template_defaulting_is_not_pod_admission():
    d = deploy()
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "0.5"}}
    set_defaults_deployment(d)
    spec = d["spec"]["template"]["spec"]
    assert "serviceAccountName" not in spec and "tolerations" not in spec and "enableServiceLinks" not in spec
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "500m"}}
