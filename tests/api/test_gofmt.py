"""Tests for kubesim.api.gofmt: Go's text for floats, strings and decoded JSON values, and ParseInt.

The float rows were checked against kubectl 1.36, which prints the same JSON array both ways:
``kubectl patch --local -f cm.yaml --type merge -p '{"spec":{"f":[...]}}'`` with
``-o jsonpath='{.spec.f[*]}'`` (``fmt``'s ``%v``) and with ``-o json`` (``encoding/json``).
"""

from __future__ import annotations

import math

import pytest

from kubesim.api.gofmt import (
    go_float,
    go_json_float,
    go_json_number,
    go_parse_int64,
    go_quote,
    go_sprint,
    go_string_slice,
)

# (value, %v, json.Marshal) - kubectl 1.36
FLOAT_TABLE = [
    (1e-7, "1e-07", "1e-7"),
    (1e21, "1e+21", "1e+21"),
    (1e20, "1e+20", "100000000000000000000"),
    (0.000001, "1e-06", "0.000001"),
    (1234567.5, "1.2345675e+06", "1234567.5"),
    (123456.5, "123456.5", "123456.5"),
    (1e6, "1e+06", "1000000"),
    (0.0001, "0.0001", "0.0001"),
    (0.00001, "1e-05", "0.00001"),
    (1.2870102916812795e+18, "1.2870102916812795e+18", "1287010291681279500"),
    (-0.0, "-0", "-0"),
    (100.0, "100", "100"),
    (5e-324, "5e-324", "5e-324"),
    (1.5e300, "1.5e+300", "1.5e+300"),
]


@pytest.mark.parametrize(("f", "v", "json"), FLOAT_TABLE, ids=[repr(f) for f, _, _ in FLOAT_TABLE])
def test_floats_print_as_go_prints_them(f, v, json):
    assert go_float(f) == v
    assert go_json_float(f) == json
    assert go_json_number(f) == json
    if f != 0:
        assert go_float(-f) == "-" + v
        assert go_json_float(-f) == "-" + json


def test_non_finite_floats():
    assert [go_float(x) for x in (math.nan, math.inf, -math.inf)] == ["NaN", "+Inf", "-Inf"]
    # Go's encoder refuses them; the text left for the caller matches no number grammar
    assert go_json_float(math.inf) == "+Inf"


def test_json_numbers_keep_ints_exact():
    assert go_json_number(2**70) == str(2**70)
    assert go_json_number(-3) == "-3"


QUOTE_TABLE = [
    ("plain", '"plain"'),
    ('a"b\\c', '"a\\"b\\\\c"'),
    ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
    ("\x00\x1b\x7f", '"\\x00\\x1b\\x7f"'),
    ("日本語 é", '"日本語 é"'),
    ("\u00a0\u200b\u2028", '"\\u00a0\\u200b\\u2028"'),
    ("\U000e0001", '"\\U000e0001"'),
]


@pytest.mark.parametrize(("s", "quoted"), QUOTE_TABLE, ids=[repr(s) for s, _ in QUOTE_TABLE])
def test_go_quote_is_strconv_quote(s, quoted):
    assert go_quote(s) == quoted


def test_go_string_slice_is_sharp_v():
    assert go_string_slice(["a", 'b"']) == '[]string{"a", "b\\""}'
    assert go_string_slice([]) == "[]string{}"
    assert go_string_slice(None) == "[]string(nil)"


def test_go_sprint_of_decoded_json():
    value = {"b": [1, 2.5, None, True], "a": {"y": "s", "x": 1e6}}
    assert go_sprint(value) == "map[a:map[x:1e+06 y:s] b:[1 2.5 <nil> true]]"
    assert go_sprint(False) == "false"
    assert go_sprint("text") == "text"


PARSE_INT_TABLE = [
    ("42", 42), ("+42", 42), ("-42", -42), ("007", 7),
    ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)),
    ("9223372036854775808", None), ("", None), ("+", None), ("1_000", None), (" 1", None),
    ("1.0", None), ("١٢", None),  # Arabic-Indic digits are digits to Python, not to Go
]


@pytest.mark.parametrize(("text", "n"), PARSE_INT_TABLE, ids=[repr(t) for t, _ in PARSE_INT_TABLE])
def test_go_parse_int64_is_strconv_parse_int(text, n):
    assert go_parse_int64(text) == n


# -- a []byte field's base64, as the API server's JSON decoder refuses it (every case below was
# sent to a real v1.35 API server as a ConfigMap's binaryData) -------------------------------

@pytest.mark.parametrize("text, error", [
    ("AAA=", None), ("AAE=", None), ("", None), ("QUJD", None), ("QUJDRA==", None),
    ("AAE", 0), ("AA=E", 2), ("A", 0), ("AAE==", 4), ("AAEC=", 4), ("AA==AA==", 4), ("QUJD RA==", 4),
    ("====", 0), ("AA", 0), ("A===", 1), ("YWJj\nZA==", 4), ("Y!", 1),
], ids=repr)
def test_base64_errors_are_gos(text, error):
    from kubesim.api.gofmt import go_base64_error

    assert go_base64_error(text) == (None if error is None else f"illegal base64 data at input byte {error}")


MICRO_TIMES = [
    ("2026-11-22T10:00:00.000000Z", None),
    ("2026-11-22T11:00:00.123456+01:00", None),
    ("2026-11-22T10:00:00Z", 'as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
    ("2026-11-22T10:00:00.123Z", 'as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"'),
    ("2026-11-22T10:00:00.1234567Z", 'as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"'),
    ("garbage", 'as "2006-01-02T15:04:05.000000Z07:00": cannot parse "garbage" as "2006"'),
    ("2026-11-22T10:00:00.000000x01:00", 'as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x01:00" as "Z07:00"'),
    ("2026-13-22T10:00:00.000000Z", ": month out of range"),
    ("2026-02-30T10:00:00.000000Z", ": day out of range"),
    ("2026-11-22T24:00:00.000000Z", ": hour out of range"),
    ("2026-11-22T10:60:00.000000Z", ": minute out of range"),
    ("2026-11-22T10:00:00.-12345Z", ": fractional second out of range"),
    ("2026-11-22T10:00:00.000000+25:00", ": time zone offset hour out of range"),
    ("2026-11-22T10:00:00.000000Zjunk", ': extra text: "junk"'),
]


@pytest.mark.parametrize("text,error", MICRO_TIMES, ids=[t or "empty" for t, _ in MICRO_TIMES])
def test_micro_time_errors_are_time_parses(text, error):
    """Each text as a real v1.35 API server reports it for a Lease's renewTime."""
    from kubesim.api.gofmt import go_parse_micro_time_error

    expected = None if error is None else f'parsing time "{text}" {error}'.replace('" :', '":')
    assert go_parse_micro_time_error(text) == expected
