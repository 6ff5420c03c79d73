"""The ``kubesim`` program's process (kubesim.cli.main.run): the cyclic collector tuned for a
command's many acyclic objects, the exit code passed on, no last full collection at exit."""

import gc

import pytest

from kubesim.cli import main as cli_main


@pytest.fixture
def collector():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)
    gc.unfreeze()


@pytest.mark.parametrize("code", [0, 1, 130], ids=["a command that succeeds exits 0",
                                                   "a failed command exits 1",
                                                   "an interrupted one exits 130"])
def test_run_tunes_the_collector_and_passes_the_exit_code_on(monkeypatch, collector, code):
    seen = {}

    def fake_main():
        seen["threshold"] = gc.get_threshold()
        return code

    monkeypatch.setattr(cli_main, "main", fake_main)
    with pytest.raises(SystemExit) as e:
        cli_main.run()
    assert e.value.code == code
    assert seen["threshold"] == cli_main.GC_THRESHOLDS
    assert gc.get_freeze_count() > 0  # everything alive is out of the exit's collection
