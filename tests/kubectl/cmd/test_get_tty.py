"""kubectl writes no ANSI codes in ``get`` tables, on a terminal or not (cli-runtime's
printers/tableprinter.go has no colour): kubesim's tables are the same bytes on a TTY."""

import io

import pytest

from kubesim.cli.main import Environment, main
from kubesim.testing.cli import PINNED_NOW


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _run(tmp_path, argv, tty):
    out, err = (_Tty() if tty else io.StringIO()), io.StringIO()
    env = Environment(stdin=io.StringIO(""), stdout=out, stderr=err,
                      vars={"KUBESIM_NOW": PINNED_NOW, "KUBESIM_SEED": "42",
                            "KUBESIM_STATE": str(tmp_path / ("tty" if tty else "piped"))})
    assert main(argv, env) == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("argv", [
    pytest.param(["get", "nodes"], id="a table of nodes"),
    pytest.param(["get", "pods", "-A", "-o", "wide"], id="a wide table of pods in every namespace"),
    pytest.param(["get", "nodes,namespaces"], id="two tables"),
    pytest.param(["get", "nodes", "-w", "--request-timeout=1s"], id="a watch's header"),
])
def test_a_table_on_a_terminal_is_the_same_plain_text_as_when_piped(tmp_path, argv):
    piped = _run(tmp_path, argv, tty=False)
    on_tty = _run(tmp_path, argv, tty=True)
    assert "\x1b" not in on_tty
    assert on_tty == piped
    assert on_tty.startswith(("NAME", "NAMESPACE"))
