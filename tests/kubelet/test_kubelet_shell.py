"""The shell-script reader (kubesim.kubelet.shell)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.shell import FOREVER, parse_sleep


@pytest.mark.parametrize("text,seconds", [("10", 10.0), ("1.5", 1.5), ("2m", 120.0), ("1h", 3600.0), ("1d", 86400.0),
                                          ("infinity", FOREVER), ("x", None)],
                         ids=lambda v: str(v))
def test_sleep_operands(text, seconds):
    assert parse_sleep(text) == seconds


def test_a_command_substitution_stays_in_its_word():
    from kubesim.kubelet.shellsyntax import tokenize

    assert tokenize("until nslookup svc.$(cat /run/ns).svc.cluster.local; do sleep 2; done") == [
        "until", "nslookup", "svc.$(cat /run/ns).svc.cluster.local", ";", "do", "sleep", "2", ";", "done"]


def test_network_tools_answer_through_the_injected_network():
    from kubesim.kubelet.shell import RunContext, run_program

    calls = []

    def network(argv):
        calls.append(argv)
        return "hello\n", "", 0

    run = run_program(["sh", "-c", "wget -qO- web && echo done"], RunContext(env={}, network=network))
    assert (calls, [line for _, line in run.output], run.exit_code) == ([["wget", "-qO-", "web"]], ["hello", "done"], 0)
