"""kubectl diff -f (staging/src/k8s.io/kubectl/pkg/cmd/diff/diff.go): the live objects against
what a dry run of apply would store, through ``diff -u -N`` on two directories; exit 1 when
something differs; nothing stored."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
"""
CHANGED = WEB.replace("replicas: 2", "replicas: 3").replace("nginx:1.27", "nginx:1.28")
FILE = "apps.v1.Deployment.default.web"
STAMP = "\t2026-11-22 10:00:00.000000000 +0000"


@pytest.fixture
def web(kubesim, tmp_path):
    kubesim.apply(WEB)
    kubesim.vars["TMPDIR"] = str(tmp_path)
    return kubesim


def test_a_change_is_a_unified_diff_of_live_and_merged(web, tmp_path):
    (tmp_path / "web.yaml").write_text(CHANGED)
    before = snapshot(web.state_dir)
    r = web(f"diff -f {tmp_path / 'web.yaml'}")
    assert (r.code, r.err) == (1, "")
    lines = r.out.splitlines()
    live, merged = lines[0].split()[3:5]
    assert (live.startswith(f"{tmp_path}/LIVE-"), merged.startswith(f"{tmp_path}/MERGED-")) == (True, True)
    assert lines[1:3] == [f"--- {live}{STAMP}", f"+++ {merged}{STAMP}"]
    assert live.endswith(FILE) and merged.endswith(FILE)
    changes = [line for line in lines[3:] if line[:1] in "+-"]
    assert changes[2:] == ["-  generation: 1", "+  generation: 2", "-  replicas: 2", "+  replicas: 3",
                           "-      - image: nginx:1.27", "+      - image: nginx:1.28"]
    assert changes[0].startswith('-      {"apiVersion":"apps/v1"') and '"replicas":3' in changes[1]
    assert snapshot(web.state_dir) == before  # a dry run: nothing stored, the resourceVersion unmoved
    assert not list(tmp_path.glob("LIVE-*")) and not list(tmp_path.glob("MERGED-*"))  # cleaned up


def test_no_change_no_output_exit_0(web, tmp_path):
    (tmp_path / "web.yaml").write_text(WEB)
    r = web(f"diff -f {tmp_path / 'web.yaml'}")
    assert (r.code, r.out, r.err) == (0, "", "")


def test_a_new_object_is_all_added(web, tmp_path):
    (tmp_path / "api.yaml").write_text(WEB.replace("name: web", "name: api"))
    r = web(f"diff -f {tmp_path / 'api.yaml'}")
    assert r.code == 1
    body = r.out.splitlines()[3:]
    assert body[0].startswith("@@ -0,0 +1,")
    assert all(line.startswith("+") for line in body[1:])
    assert "+  name: api" in body and "+  generation: 1" in body
    assert "resourceVersion" not in r.out
    assert web("get deploy api").code == 1


@pytest.mark.parametrize("args, err", [
    ("diff", "error: must specify one of -f and -k\n"),
    ("diff -f web.yaml extra", "error: Unexpected args: [extra]\nSee 'kubesim diff -h' for help and examples\n"),
])
def test_bad_input(web, tmp_path, args, err):
    """CheckDiffErr: an error exits 2 (the real kubectl's, checked on the oracle)."""
    (tmp_path / "web.yaml").write_text(WEB)
    r = web(args.replace("web.yaml", str(tmp_path / "web.yaml")))
    assert (r.code, r.out, r.err) == (2, "", err)


def test_server_side_diffs_against_the_dry_run_of_server_side_apply(web, tmp_path):
    (tmp_path / "web.yaml").write_text(WEB)
    web.ok(f"apply --server-side -f {tmp_path / 'web.yaml'}")
    (tmp_path / "web3.yaml").write_text(WEB.replace("replicas: 2", "replicas: 3"))
    r = web(f"diff --server-side -f {tmp_path / 'web3.yaml'}")
    assert r.code == 1 and "-  replicas: 2" in r.out and "+  replicas: 3" in r.out and "+  generation: 2" in r.out
    r = web(f"diff --server-side --field-manager=ci -f {tmp_path / 'web3.yaml'}")
    conflict = 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas\n'
    assert (r.code, r.out, r.err) == (2, "", conflict)
