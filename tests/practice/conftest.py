"""A drill prepared once per (drill, seed) and copied for each test that needs it: preparing is
most of a test's time, and every test gets its own copy of exactly what ``kubesim drill start``
made (the record's cluster directory is pointed at the copy; the nodes' informational
``kubesim.io/static-pod-path`` annotations keep naming the first preparation's directory)."""

import shutil

import pytest

from kubesim.testing.cli import Harness

_PREPARED: dict = {}


@pytest.fixture
def drill(tmp_path_factory, tmp_path):
    def start(task_id: str, seed: int = 3) -> Harness:
        key = (task_id, seed)
        if key not in _PREPARED:
            src = tmp_path_factory.mktemp("prepared") / "state"
            Harness(src).ok(f"drill start {task_id} --seed {seed}")
            _PREPARED[key] = src
        src, dst = _PREPARED[key], tmp_path / "state"
        shutil.copytree(src, dst)
        record = dst / "practice.json"
        record.write_text(record.read_text().replace(str(src), str(dst)))
        return Harness(dst)

    return start
