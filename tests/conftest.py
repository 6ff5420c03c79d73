import os

import pytest

from kubesim.testing import cli
from kubesim.testing.cli import Harness

WORKERS = 2  # the machines it runs on (a developer's, CI's) have two cores


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """The suite, or a directory of it, on two pytest-xdist workers unless told otherwise (``-n N``;
    ``-n 0`` or ``-p no:xdist`` runs serially), each taking half of the tests in their collected
    order and the other's remaining ones when it runs out (``--dist worksteal``): a file's tests
    stay together, as do their module fixtures and the replays between them. Named files and
    tests run serially (starting a worker costs more than most files take). Set here rather than
    in ``addopts``, so that ``-p no:xdist`` and a venv without pytest-xdist still run serially."""
    option = config.option
    if getattr(option, "numprocesses", 0) is not None or hasattr(config, "workerinput"):
        return  # no xdist, or told how many, or a worker itself
    if option.usepdb or option.trace or option.collectonly or (os.cpu_count() or 1) < 2:
        return
    args = [a for a in config.args if not a.startswith("-")]
    if args and all("::" in a or a.endswith(".py") for a in args):
        return
    option.numprocesses = WORKERS
    if option.dist == "no":
        option.dist = "worksteal"


def pytest_configure(config):
    """Harnesses replay command sequences another test already ran (kubesim/testing/memo.py);
    KUBESIM_TEST_MEMO=0 runs every command for real."""
    if os.environ.get("KUBESIM_TEST_MEMO", "1") != "0":
        from kubesim.testing.memo import Memo

        shared = getattr(config, "workerinput", {}).get("kubesim_memo")
        cli.MEMO = Memo(shared, shared=True) if shared else Memo()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(pytest-xdist's hook, in the controller) Every worker keeps and replays its steps in the
    controller's replay directory, which the controller removes at the end."""
    if cli.MEMO is not None:
        node.workerinput["kubesim_memo"] = cli.MEMO.dir


_WORKERS_REPLAYS = [0, 0]  # under xdist: the replays and kept steps of the workers that finished


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and cli.MEMO is not None:
        workeroutput["kubesim_memo"] = (cli.MEMO.hits, cli.MEMO.kept)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(pytest-xdist's hook, in the controller: a worker finished)"""
    for i, n in enumerate(getattr(node, "workeroutput", {}).get("kubesim_memo", ())):
        _WORKERS_REPLAYS[i] += n


def pytest_terminal_summary(terminalreporter):
    hits, kept = _WORKERS_REPLAYS
    if cli.MEMO is not None:
        hits, kept = hits + cli.MEMO.hits, kept + cli.MEMO.kept
    if hits or kept:
        terminalreporter.write_line(f"kubesim test replay: {hits} commands replayed, "
                                    f"{kept} kept (KUBESIM_TEST_MEMO=0 runs every command)")


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
