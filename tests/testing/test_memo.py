"""The test suite's command replay (kubesim/testing/memo.py): a replayed step gives what running
it gives, and everything that could make a replay differ from a real run runs for real."""

import threading

import pytest

from kubesim.testing import cli
from kubesim.testing.cli import Harness, snapshot
from kubesim.testing.memo import Memo

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
"""


@pytest.fixture
def memo(tmp_path, monkeypatch):
    m = Memo(str(tmp_path / "memo"))
    m.keep_slower_than = 0  # keep every step, however fast
    monkeypatch.setattr(cli, "MEMO", m)
    m.patches.clear()  # the setattr above is the test's own, not a patch of kubesim
    yield m
    m.close()


def _rows(state, path):
    """Every stored row, the state's own path (the nodes' static-pod-path annotation) blanked."""
    return [tuple(str(c).replace(str(path), "STATE") for c in row) for row in snapshot(state)]


def _steps(tmp_path, name):
    f = tmp_path / name / "web.yaml"
    f.parent.mkdir()
    f.write_text(DEPLOYMENT)
    return [f"apply -f {f}", "advance 5s", "get pods -o wide", "describe deployment web"]


def _run(h, steps):
    return [(r.code, r.out, r.err) for r in (h(s) for s in steps)]


def test_a_replayed_sequence_prints_and_stores_what_a_real_run_does(memo, tmp_path):
    memo.test = "first"
    real = Harness(tmp_path / "a" / "state")
    outputs = _run(real, _steps(tmp_path, "a"))
    assert memo.hits == 0 and memo.kept == 4
    memo.test = "second"
    replayed = Harness(tmp_path / "b" / "state")
    assert _run(replayed, _steps(tmp_path, "b")) == outputs
    assert memo.hits == 4
    assert _rows(replayed.state_dir, replayed.state_dir) == _rows(real.state_dir, real.state_dir)
    # the copy is a state of its own: it goes on as a fresh run would
    assert replayed.ok("scale deployment web --replicas=3") == real.ok("scale deployment web --replicas=3")
    assert _rows(replayed.state_dir, replayed.state_dir) == _rows(real.state_dir, real.state_dir)


def _write_into_the_state(tmp_path, monkeypatch):
    (tmp_path / "b" / "state" / "nodes" / "node01" / "manifests" / "p.yaml").write_text("kind: Pod\n")


def _another_manifest(tmp_path, monkeypatch):
    (tmp_path / "b" / "web.yaml").write_text(DEPLOYMENT.replace("replicas: 2", "replicas: 3"))


def _patch_kubesim(tmp_path, monkeypatch):
    from kubesim.controlplane import settle

    monkeypatch.setattr(settle, "MAX_STOPS", settle.MAX_STOPS)
    cli.MEMO.patches.append(monkeypatch)  # what tests/conftest.py's monkeypatch fixture does


@pytest.mark.parametrize("change, after, replays", [
    (None, 0, 4),
    (_write_into_the_state, 1, 1),
    (_another_manifest, 0, 0),
    (_patch_kubesim, 0, 0),
], ids=["nothing changed: every step replays", "a file written into the state: the steps after it run for real",
        "another manifest under the same name: nothing replays", "kubesim's code patched: nothing replays"])
def test_a_step_replays_only_from_what_the_first_run_started_from(memo, tmp_path, monkeypatch, change, after,
                                                                   replays):
    memo.test = "first"
    _run(Harness(tmp_path / "a" / "state"), _steps(tmp_path, "a"))
    memo.test = "second"
    h = Harness(tmp_path / "b" / "state")
    for i, step in enumerate(_steps(tmp_path, "b")):
        if change is not None and i == after:
            change(tmp_path, monkeypatch)
        h(step)
    assert memo.hits == replays


@pytest.mark.parametrize("second", [
    lambda h: h("apply -f -", stdin=DEPLOYMENT),
    lambda h: h("--state {state} apply -f -".format(state=h.state_dir), stdin=DEPLOYMENT),
    lambda h: h("apply -f -", stdin=DEPLOYMENT.replace("web", "api")),
    lambda h: Harness(h.state_dir, seed="7")("apply -f -", stdin=DEPLOYMENT),
    lambda h: Harness(h.state_dir, extra_env={"KUBECONFIG": "/nonexistent"})("apply -f -", stdin=DEPLOYMENT),
    lambda h: _in_a_thread(lambda: h("apply -f -", stdin=DEPLOYMENT)),
], ids=["the same command: it replays", "a --state flag", "other stdin", "another seed", "a KUBECONFIG variable", "a thread"])
def test_what_differs_from_the_first_run_in_any_input_runs_for_real(memo, tmp_path, request, second):
    memo.test = "first"
    Harness(tmp_path / "a" / "state")("apply -f -", stdin=DEPLOYMENT)
    memo.test = "second"
    second(Harness(tmp_path / "b" / "state"))
    assert memo.hits == (1 if request.node.callspec.id == "the same command: it replays" else 0)


def test_a_state_under_a_file_runs_for_real_after_a_fresh_state_was_kept(memo, tmp_path):
    memo.test = "first"
    assert Harness(tmp_path / "fresh")("get nodes").code == 0  # kept: a step from an absent state
    memo.test = "second"
    (tmp_path / "a-file").write_text("")
    r = Harness(tmp_path / "a-file" / "state")("get nodes")
    assert memo.hits == 0
    assert r.code == 1 and r.err.startswith("error: cannot create state directory")


def _in_a_thread(fn):
    t = threading.Thread(target=fn)
    t.start()
    t.join()


def test_a_test_never_replays_its_own_run(memo, tmp_path):
    memo.test = "one"
    outputs = [_run(Harness(tmp_path / d / "state"), ["get nodes"]) for d in ("a", "b")]
    assert memo.hits == 0 and memo.kept == 1 and outputs[0] == outputs[1]


def _as_worker(m, name, monkeypatch):
    """``m`` becomes the memo of pytest-xdist's worker ``name`` (what tests/conftest.py sets up)."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", name)
    monkeypatch.setattr(cli, "MEMO", m)
    m.patches.clear()


@pytest.mark.parametrize("second_test, replays", [
    ("second", 4),
    ("first", 0),
], ids=["another worker's test replays what the first worker kept",
        "the same test on another worker does not replay its own run"])
def test_workers_share_one_directory_and_each_replays_what_another_kept(tmp_path, monkeypatch, second_test, replays):
    shared = tmp_path / "controller"
    shared.mkdir()
    one, two = Memo(str(shared), shared=True), Memo(str(shared), shared=True)
    one.keep_slower_than = two.keep_slower_than = 0
    _as_worker(one, "gw0", monkeypatch)
    one.test = "first"
    real = Harness(tmp_path / "a" / "state")
    outputs = _run(real, _steps(tmp_path, "a"))
    assert one.kept == 4
    _as_worker(two, "gw1", monkeypatch)
    two.test = second_test
    replayed = Harness(tmp_path / "b" / "state")
    assert _run(replayed, _steps(tmp_path, "b")) == outputs
    assert two.hits == replays
    # (run for real, the static pod directory's fingerprint differs: its files' times are the wall clock's)
    skip = () if replays else (("meta", "settle.staticPods"),)
    assert ([r for r in _rows(replayed.state_dir, replayed.state_dir) if r[:2] not in skip]
            == [r for r in _rows(real.state_dir, real.state_dir) if r[:2] not in skip])
    one.close()
    two.close()
    assert len(list(shared.glob("*.json"))) == 4, "a worker leaves the shared directory to the controller"
