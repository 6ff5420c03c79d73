import os

import pytest

from kubesim.testing import cli
from kubesim.testing.cli import Harness


def pytest_configure(config):
    """Harnesses replay command sequences another test already ran (kubesim/testing/memo.py);
    KUBESIM_TEST_MEMO=0 runs every command for real."""
    if os.environ.get("KUBESIM_TEST_MEMO", "1") != "0":
        from kubesim.testing.memo import Memo

        cli.MEMO = Memo()


def pytest_terminal_summary(terminalreporter):
    if cli.MEMO is not None and (cli.MEMO.hits or cli.MEMO.kept):
        terminalreporter.write_line(f"kubesim test replay: {cli.MEMO.hits} commands replayed, "
                                    f"{cli.MEMO.kept} kept (KUBESIM_TEST_MEMO=0 runs every command)")


def pytest_unconfigure(config):
    if cli.MEMO is not None:
        cli.MEMO.close()
        cli.MEMO = None


def pytest_runtest_setup(item):
    if cli.MEMO is not None:
        cli.MEMO.test = item.nodeid


@pytest.fixture
def monkeypatch(monkeypatch):
    """pytest's, made known to the replay: while a test has patched kubesim's code, its
    commands neither replay nor are kept (environment variables are part of the replay's key)."""
    memo = cli.MEMO
    if memo is None:
        yield monkeypatch
        return
    memo.patches.append(monkeypatch)
    try:
        yield monkeypatch
    finally:
        memo.patches.remove(monkeypatch)


@pytest.fixture
def kubesim(tmp_path):
    """A CLI harness on a fresh state, with the clock pinned and names seeded."""
    return Harness(tmp_path / "state")
