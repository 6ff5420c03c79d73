"""Property-based tests of the parsers user input reaches (issue 18): whatever the text, each
parser returns or raises its own error type (a ValueError subclass that the CLI words as kubectl
does), never anything else, and within a small time. Round trips where they exist: a quantity's
canonical form parses back to the same value; a Go duration's formatting parses back.

The example counts are kept small for the default run; ``KUBESIM_FUZZ=N`` runs N per test."""

from __future__ import annotations

import os
import string

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXAMPLES = int(os.environ.get("KUBESIM_FUZZ", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=2000, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def near(alphabet: str, max_size: int = 40):
    """Text mostly from the characters a grammar cares about, with some of anything."""
    return st.one_of(st.text(alphabet=alphabet, max_size=max_size), st.text(max_size=max_size))


QUANTITY_CHARS = "0123456789.+-eEinumkKMGTP "


@SETTINGS
@given(near(QUANTITY_CHARS, 30))
def test_quantities_parse_or_refuse(text):
    from kubesim.api.quantity import parse

    try:
        q = parse(text)
    except ValueError:
        return
    canonical = str(q)
    again = parse(canonical)  # the canonical form reads back as the same value, and prints the same
    assert again.value == q.value and str(again) == canonical


@SETTINGS
@given(near("0123456789.+-nsuµμmh", 30))
def test_durations_parse_or_refuse(text):
    from kubesim.clock import format_duration, parse_duration

    try:
        seconds = parse_duration(text, days=False)
    except ValueError:
        return
    assert abs(seconds) <= 2562047 * 3600 + 3600
    if seconds >= 0:
        assert abs(parse_duration(format_duration(seconds), days=False) - seconds) < 1e-6


@SETTINGS
@given(near(string.ascii_lowercase[:4] + "=!,() in notexists-./", 40))
def test_label_selectors_parse_or_refuse(text):
    from kubesim.api.selectors import parse_label_selector

    try:
        sel = parse_label_selector(text)
    except ValueError:
        return
    again = parse_label_selector(str(sel))  # its string form is a selector too
    assert str(again) == str(sel)


@SETTINGS
@given(near("abcmetadata.spec=!,status", 40))
def test_field_selectors_parse_or_refuse(text):
    from kubesim.api.selectors import parse_field_selector

    try:
        parse_field_selector(text)
    except ValueError:
        return


OBJ = {"kind": "List", "items": [{"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"n": [1, 2, 3]}},
                                 {"metadata": {"name": "b"}, "spec": {"n": []}}]}


@SETTINGS
@given(near("{}[]().*@?=!<>'\"$,:range end items metadata name spec n x", 40))
def test_jsonpath_templates_parse_and_run_or_refuse(text):
    from kubesim.printers import jsonpath

    try:
        jsonpath.parse(text).execute(OBJ)
    except ValueError:  # JSONPathError
        return


@SETTINGS
@given(near("NAME:.metadata.name,{}[]*", 40))
def test_custom_columns_specs_parse_or_refuse(text):
    from kubesim.printers.custom_columns import parse_spec

    try:
        parse_spec(text)
    except ValueError:  # CustomColumnsError and the spec's own errors
        return


SHELL = "echo sleep exit if then else fi while do done for in ; & | && || $ ( ) { } ' \" \\ = 0 1 x $((1+2)) \n"


@SETTINGS
@given(near(SHELL, 80))
def test_container_scripts_run_in_bounded_time(text):
    """Any ``sh -c`` script runs to an end, a failure or "forever" within its step budget."""
    from kubesim.kubelet.shell import RunContext, run_program

    run = run_program(["sh", "-c", text], RunContext(env={}))
    assert run.exit_code is None or isinstance(run.exit_code, int)
