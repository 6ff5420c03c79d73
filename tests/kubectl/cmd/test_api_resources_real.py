"""``api-resources`` and ``api-versions`` print what the real kubectl v1.36 prints for the same
discovery: kubectl runs against ``tools/openapi_oracle.py``, which serves kubesim's discovery
(its kinds registry)."""

from __future__ import annotations

import os
import pathlib
import shlex
import subprocess
import sys

import pytest

from kubesim.testing.cli import Harness

ROOT = pathlib.Path(__file__).resolve().parents[3]
KUBECTL = pathlib.Path(sys.executable).parent / "kubectl"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    if not KUBECTL.exists():
        pytest.skip("the real kubectl of the test extras is not installed")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import openapi_oracle
    finally:
        sys.path.pop(0)
    server, port = openapi_oracle.serve(str(tmp_path_factory.mktemp("no-spec")))
    cache = str(tmp_path_factory.mktemp("kubectl-cache"))

    def run(args: str):
        r = subprocess.run([str(KUBECTL), "--server", f"http://127.0.0.1:{port}", "--cache-dir", cache,
                            *shlex.split(args)], capture_output=True, text=True,
                           env={**os.environ, "KUBECONFIG": os.devnull})
        return r.stdout, r.stderr, r.returncode
    yield run
    server.shutdown()


@pytest.mark.parametrize("args", [
    "api-resources",
    "api-resources -o wide",
    "api-resources -o name",
    "api-resources -o json",
    "api-resources -o yaml",
    "api-resources --namespaced",
    "api-resources --namespaced=false -o wide",
    "api-resources --api-group=apps",
    "api-resources --api-group=",
    "api-resources --api-group=nope",
    "api-resources --api-group=nope -o json",
    "api-resources --verbs=list,get",
    "api-resources --verbs=create --verbs=deletecollection -o wide",
    "api-resources --categories=all -o wide",
    "api-resources --sort-by=kind",
    "api-resources --sort-by=name -o wide --no-headers",
    "api-resources --sort-by=foo",
    "api-resources -o foo",
    "api-resources foo",
    "api-resources --namespaced=maybe",
    "api-versions",
    "api-versions foo",
])
def test_discovery_verbs_print_what_kubectl_prints(tmp_path, real, args):
    out, err, code = real(args)
    r = Harness(tmp_path)(args)
    assert (r.out, r.err.replace("kubesim", "kubectl"), r.code) == (out, err, code)
