"""``kubesim explain`` prints what the real kubectl v1.36 prints for the same resources.

Each case's golden file is the real kubectl's stdout, stderr and exit code, recorded against
``tools/openapi_oracle.py`` (kubesim's discovery and the OpenAPI v3 documents a real v1.35 API
server serves). ``KUBESIM_UPDATE_GOLDEN=1`` records them again (it needs the kubectl binary of
the test extras and ``KUBESIM_OPENAPI_SPEC``, a directory of those documents); ``test_the_golden_files_are_what_the_real_kubectl_prints`` checks
them against the real kubectl whenever both are present. The ``--output=plaintext-openapiv2``
cases need the v2 document as the API server serves it (protobuf): ``KUBESIM_OPENAPI_V2_PB``
names it, made by ``cd tools/swagger2pb && go run . .../api/openapi-spec/swagger.json OUT.pb``.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from kubesim.kubectl import explain
from kubesim.testing.cli import Harness

GOLDEN = pathlib.Path(__file__).parent.parent / "golden" / "explain"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN", "")
ROOT = pathlib.Path(__file__).resolve().parents[3]
KUBECTL = pathlib.Path(sys.executable).parent / "kubectl"
# the v1.35 API server's own /openapi/v3 documents, saved as ``<api|apis__group>__<version>_openapi.json``
# (the repository's api/openapi-spec lacks the enum lists a server serves); see tools/gen_explain_schemas.py
SPEC = pathlib.Path(os.environ.get("KUBESIM_OPENAPI_SPEC", "/nonexistent"))
V2_PB = os.environ.get("KUBESIM_OPENAPI_V2_PB", "")

CASES = {
    "pods": "pods",
    "pod_spec": "pod.spec",
    "pod_spec_containers": "po.spec.containers",
    "pod_spec_restart_policy_enum": "pods.spec.restartPolicy",
    "pod_metadata_labels_map": "pods.metadata.labels",
    "pod_resources_limits_map_of_quantity": "pods.spec.containers.resources.limits",
    "pod_status_phase": "pods.status.phase",
    "pods_recursive": "pods --recursive",
    "deployment_qualified_by_group": "deployments.apps.spec.strategy",
    "deployment_short_name_recursive": "deploy -R",
    "deployment_with_api_version": "deployments --api-version=apps/v1",
    "node_taints_effect": "nodes.spec.taints.effect",
    "pvc_access_modes": "pvc.spec.accessModes",
    "pv_csi": "pv.spec.csi",
    "pdb_max_unavailable_int_or_string": "pdb.spec.maxUnavailable",
    "lease_recursive": "leases -R",
    "storageclass": "sc",
    "csinode_spec_recursive": "csinodes.spec --recursive",
    "event": "events",
    "namespace_trailing_dot": "ns.",
    "unknown_field": "pods.spec.foo",
    "unknown_resource": "foo",
    "unserved_kind": "kubeschedulerconfigurations",
    "no_resource": "",
    "two_resources": "pods nodes",
    "group_qualified_only_without_api_version": "deployments.apps --api-version=apps/v1",
    "unserved_api_version": "deployments --api-version=apps/v1beta1",
    "bad_api_version": "pods --api-version=a/b/c",
    "index_in_field_path": "pods.spec.containers[0]",
    "empty_field_name": "pods.spec..containers",
    "unknown_output": "pods -o yaml",
    "recursive_false": "pods -R=false",
    "comma_separated_resources": "pods,nodes",
    "only_a_dot": ".",
    "v2_pods": "pods -o plaintext-openapiv2",
    "v2_pod_spec": "pods.spec --output=plaintext-openapiv2",
    "v2_primitive_field": "pods.spec.containers.image -o plaintext-openapiv2",
    "v2_map_of_quantity": "pods.spec.containers.resources.limits -o plaintext-openapiv2",
    "v2_arbitrary_fields_v1": "pods.metadata.managedFields.fieldsV1 -o plaintext-openapiv2",
    "v2_past_a_primitive": "deploy.spec.replicas.foo -o plaintext-openapiv2",
    "v2_deployment_recursive": "deployments.apps -R -o plaintext-openapiv2",
    "v2_unknown_field": "pods.spec.foo -o plaintext-openapiv2",
    "v2_unserved_api_version": "deployments --api-version=apps/v1beta1 -o plaintext-openapiv2",
    "v2_node_status": "nodes.status -o plaintext-openapiv2",
}


def _read(name: str) -> tuple[str, str, int]:
    text = (GOLDEN / f"{name}.txt").read_text()
    out, _, rest = text.partition("--- stderr ---\n")
    err, _, code = rest.rpartition("--- exit ")
    return out, err, int(code.split()[0])


def _real(argline: str, port: int, cache: str) -> tuple[str, str, int]:
    argv = [str(KUBECTL), "--server", f"http://127.0.0.1:{port}", "--cache-dir", cache, "explain",
            *argline.split()]
    r = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "KUBECONFIG": os.devnull})
    return r.stdout, r.stderr, r.returncode


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    if not (KUBECTL.exists() and SPEC.is_dir()):
        pytest.skip("needs the real kubectl (test extras) and the v1.35 OpenAPI spec directory")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import openapi_oracle
    finally:
        sys.path.pop(0)
    server, port = openapi_oracle.serve(str(SPEC), V2_PB or None)
    yield port, str(tmp_path_factory.mktemp("kubectl-cache"))
    server.shutdown()


@pytest.fixture(scope="module", autouse=True)
def record(request):
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        port, cache = request.getfixturevalue("oracle")
        for name, argline in CASES.items():
            if name.startswith("v2_") and not V2_PB:
                continue
            out, err, code = _real(argline, port, cache)
            (GOLDEN / f"{name}.txt").write_text(f"{out}--- stderr ---\n{err}--- exit {code} ---\n")
        shutil.rmtree(cache, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_explain_prints_what_kubectl_prints(tmp_path, name):
    r = Harness(tmp_path)("explain " + CASES[name])
    out, err, code = _read(name)
    assert (r.out, r.code) == (out, code)
    # kubesim's usage hint names kubesim where kubectl's names kubectl
    assert r.err == err.replace("kubectl explain --help", "kubesim explain --help")


def test_explain_opens_no_state(tmp_path):
    state = tmp_path / "state"
    Harness(state).ok("explain pods.spec")
    assert not state.exists()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_golden_files_are_what_the_real_kubectl_prints(oracle, name):
    if name.startswith("v2_") and not V2_PB:
        pytest.skip("KUBESIM_OPENAPI_V2_PB names no OpenAPI v2 protobuf")
    port, cache = oracle
    assert _real(CASES[name], port, cache) == _read(name)


@pytest.mark.parametrize("text, limit, wrapped", [
    pytest.param("a b c", 3, "a b\nc", id="breaks at the last space that fits"),
    pytest.param("abcdefgh ij", 4, "abcdefgh\nij", id="a word longer than the limit stays whole"),
    pytest.param("one\ntwo three", 7, "one\ntwo\nthree", id="existing line breaks are kept"),
    pytest.param("héllo wörld", 11, "héllo\nwörld", id="lengths are counted in bytes as go-wordwrap does"),
    pytest.param("trailing   ", 8, "trailing", id="trailing spaces past the limit are dropped"),
])
def test_wrap_is_go_wordwraps(text, limit, wrapped):
    assert explain.wrap(limit, text) == wrapped
