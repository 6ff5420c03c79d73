r"""Go's text for values: floats as ``%v`` and ``encoding/json`` write them, ``%q``, ``fmt.Sprint``,
and ``strconv.ParseInt`` for reading integers back.

Written from the Go standard library (behaviour carried over, code not):

- ``src/strconv/ftoa.go``: ``FormatFloat(f, 'g', -1, 64)``, which ``fmt`` uses for ``%v`` of a
  float64 (``src/fmt/print.go`` ``fmtFloat``): the shortest digits that read back as ``f``, in
  ``%e`` form (``1e+06``, ``1.5e-07``: at least two exponent digits) when the decimal exponent
  is below -4 or at least 6 (``eprec`` is 6 for the shortest precision), else in ``%f`` form;
  ``NaN``, ``+Inf`` and ``-Inf`` for the non-finite values.
- ``src/strconv/quote.go``: ``Quote`` (what ``%q`` and, for strings, ``%#v`` print): ``\a``,
  ``\b``, ``\f``, ``\n``, ``\r``, ``\t``, ``\v``, ``\\`` and ``\"`` escaped, printable runes as they
  are, other control characters as ``\xNN``, other runes as ``\uNNNN`` or ``\UNNNNNNNN``;
  ``%#v`` of a ``[]string`` builds on it.
- ``src/strconv/atoi.go``: ``ParseInt(s, 10, 64)`` (and ``Atoi``), the way back from text;
  ``src/strconv/atob.go``: ``ParseBool``, which pflag's bool flags use.
- ``src/fmt/print.go``: ``fmt.Sprint`` (``%v``) of what ``encoding/json`` decodes into an
  ``interface{}``: ``<nil>``, ``true``, maps as ``map[k:v ...]`` in key order (``fmt`` sorts map
  keys), slices as ``[a b]``.
- ``src/encoding/json/decode.go``: the kind names of ``UnmarshalTypeError`` messages.
- ``src/fmt/print.go``'s ``%#v`` of a ``[]string``, which some messages format into their text.
  (A field error's bad value is not ``%#v`` since v1.35 but ``json.Marshal`` of it:
  ``kubesim.api.gojson``.)
- ``src/encoding/json/encode.go`` (``floatEncoder``): the same shortest digits, in ``%f`` form
  unless ``|f| < 1e-6`` or ``|f| >= 1e21``, then ``%e`` form with ``e-07`` cleaned up to ``e-7``.
  ``-0`` stays ``-0``.

Python's ``repr`` of a float gives the same shortest round-trip digits as Go's ``strconv``, so
both float formats are built from it. Stdlib-only and import-light (no ``decimal``): the
quantity parser, the selector parser, validation, the strict decoder's messages and the printers
all use these.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["GO_FALSE", "GO_TRUE", "go_float", "go_json_float", "go_json_kind", "go_json_number", "go_parse_bool",
           "go_parse_int64", "go_quote", "go_sprint", "go_string_slice"]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _shortest(f: float) -> tuple[str, int]:
    """The shortest digits of ``|f|`` (finite, non-zero) and the position of the decimal point:
    ``|f| == 0.<digits> * 10**point``."""
    mantissa, _, exponent = repr(abs(f)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = int_part + frac_part
    digits = all_digits.lstrip("0")
    point = len(int_part) + int(exponent or 0) - (len(all_digits) - len(digits))
    return digits.rstrip("0"), point


def _fmt_e(digits: str, point: int, min_exp_digits: int) -> str:
    exp = point - 1
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{body}e{'-' if exp < 0 else '+'}{abs(exp):0{min_exp_digits}d}"


def _fmt_f(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def go_float(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)``: Go's ``%v`` (and ``fmt.Sprint``) of a float64."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return sign + "0"
    digits, point = _shortest(f)
    if not -4 <= point - 1 < 6:
        return sign + _fmt_e(digits, point, 2)
    return sign + _fmt_f(digits, point)


def go_json_float(f: float) -> str:
    """What ``json.Marshal`` writes for a float64 (what kubectl sends for ``cpu: 0.5``).

    Go's encoder refuses NaN and the infinities (``json: unsupported value: +Inf``); for them
    this returns :func:`go_float`'s text, which no number grammar accepts, and leaves the error
    to the caller."""
    if not math.isfinite(f):
        return go_float(f)
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    sign = "-" if f < 0 else ""
    digits, point = _shortest(f)
    magnitude = abs(f)
    if magnitude < 1e-6 or magnitude >= 1e21:
        return sign + _fmt_e(digits, point, 1)
    return sign + _fmt_f(digits, point)


def go_json_number(v: float) -> str:
    """A JSON number as ``json.Marshal`` writes it: an int's digits, a float as :func:`go_json_float`."""
    return go_json_float(v) if isinstance(v, float) else str(v)


def go_json_kind(value: object) -> str:
    """The name ``encoding/json`` gives a decoded JSON value's kind in its errors (``json: cannot
    unmarshal <kind> into Go value of type ...``): bool, number, string, array, object or null."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def go_sprint(value: object) -> str:
    """``fmt.Sprint`` of a decoded JSON value: ``map[a:1 b:[x y]]``, ``<nil>``, floats as :func:`go_float`.
    Other objects print as their ``str``."""
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_sprint(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    return str(value)


_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                  "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(s: str) -> str:
    """``strconv.Quote(s)``: Go's ``%q`` of a string. (A lone surrogate, which no Go string can
    hold, prints as the escape ``\\ufffd``.)"""
    out = ['"']
    for ch in s:
        esc = _QUOTE_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        else:
            cp = ord(ch)
            if cp < 0x20 or cp == 0x7F:
                out.append(f"\\x{cp:02x}")
            elif 0xD800 <= cp <= 0xDFFF:
                out.append("\\ufffd")
            elif cp < 0x10000:
                out.append(f"\\u{cp:04x}")
            else:
                out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def go_string_slice(values) -> str:
    """``%#v`` of a ``[]string`` (``[]string(nil)`` for None), as a message's own ``%#v`` formats
    it (ObjectMeta's ``found new finalizers []string{"a"}``)."""
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(str(v)) for v in values) + "}"


GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def go_parse_bool(s: str) -> bool | None:
    """``strconv.ParseBool(s)``: the spellings in GO_TRUE and GO_FALSE, else None (Go's error)."""
    return True if s in GO_TRUE else False if s in GO_FALSE else None


def go_parse_int64(s: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)`` (``Atoi``): an optional sign and ASCII digits in the int64
    range, else None (Go's error)."""
    digits = s[1:] if s[:1] in ("+", "-") else s
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    n = int(s)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


# -- Go's encoding/json and %#v of a decoded JSON value ------------------------------------------

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[ch])
        elif ch in _JSON_HTML:
            out.append(_JSON_HTML[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_json(value: Any, indent: str | None = None, _level: int = 0, *, sort_keys: bool = True) -> str:
    """Go's ``json.Marshal`` (compact, keys sorted, HTML-escaped), or ``MarshalIndent(v, "", indent)``.
    With ``sort_keys=False`` a dict's keys keep their order, as a Go struct's fields do."""
    if value is None or getattr(value, "go_json_null", False):  # jsonpath's zero reflect.Value
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        pairs = sorted(value.items(), key=lambda kv: str(kv[0])) if sort_keys else value.items()
        items = [(_json_string(str(k)), v) for k, v in pairs]
        if not items:
            return "{}"
        if indent is None:
            return "{" + ",".join(f"{k}:{go_json(v, sort_keys=sort_keys)}" for k, v in items) + "}"
        inner = "\n" + indent * (_level + 1)
        body = ("," + inner).join(f"{k}: {go_json(v, indent, _level + 1, sort_keys=sort_keys)}" for k, v in items)
        return "{" + inner + body + "\n" + indent * _level + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if indent is None:
            return "[" + ",".join(go_json(v, sort_keys=sort_keys) for v in value) + "]"
        inner = "\n" + indent * (_level + 1)
        body = ("," + inner).join(go_json(v, indent, _level + 1, sort_keys=sort_keys) for v in value)
        return "[" + inner + body + "\n" + indent * _level + "]"
    raise TypeError(f"json: unsupported type: {type(value).__name__}")


def go_sharp_v(value: Any) -> str:
    """Go's ``%#v`` of a decoded JSON value, as kubectl's error text shows the object."""
    if value is None:
        return "interface {}(nil)"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, dict):
        body = ", ".join(f"{go_quote(str(k))}:{go_sharp_v(v)}" for k, v in sorted(value.items()))
        return "map[string]interface {}{" + body + "}"
    if isinstance(value, (list, tuple)):
        return "[]interface {}{" + ", ".join(go_sharp_v(v) for v in value) + "}"
    return "<invalid reflect.Value>"


def go_type_name(value: Any) -> str:
    """The Go type name kubectl's error texts give a decoded JSON value."""
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "<nil>"


# -- encoding/base64 as the API server's JSON decoder reads a []byte field ----------------------

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {c: i for i, c in enumerate(_B64)}


def go_base64_error(text: str) -> str | None:
    """base64.StdEncoding's verdict on ``text`` as the API server's JSON decoder gives it for a
    ``[]byte`` field: None when it decodes, else ``illegal base64 data at input byte N``, N as
    decodeQuantum counts it (the start of a short quantum, the misplaced ``=``, the first byte
    after the padding; line breaks are not skipped there)."""
    n, si = len(text), 0
    while si < n:
        j = 0
        while j < 4:
            if si == n:
                return f"illegal base64 data at input byte {si - j}"
            c = text[si]
            si += 1
            if c in _B64_VALUE:
                j += 1
                continue
            if c != "=" or j < 2:
                return f"illegal base64 data at input byte {si - 1}"
            if j == 2:  # "xx=" must be "xx=="
                if si == n:
                    return f"illegal base64 data at input byte {n}"
                if text[si] != "=":
                    return f"illegal base64 data at input byte {si - 1}"
                si += 1
            if si < n:  # nothing may follow the padding
                return f"illegal base64 data at input byte {si}"
            return None
    return None


# -- time.Parse, as metav1.MicroTime.UnmarshalJSON calls it -------------------------------------

RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"  # k8s.io/apimachinery meta/v1 RFC3339Micro


def _time_quote(s: str) -> str:
    """``time.quote``: ``"`` and ``\\`` escaped, bytes of control and non-ASCII runes as ``\\xNN``."""
    out = ['"']
    for c in s:
        if c < " " or ord(c) >= 0x80:
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + c if c in '"\\' else c)
    out.append('"')
    return "".join(out)


def _digit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _getnum(s: str, fixed: bool) -> tuple[int, str] | None:
    if not _digit(s, 0):
        return None
    if not _digit(s, 1):
        return None if fixed else (int(s[0]), s[1:])
    return int(s[:2]), s[2:]


def _atoi(s: str) -> int | None:
    neg = s[:1] == "-"
    if s[:1] in ("-", "+"):
        s = s[1:]
    digits = len(s) - len(s.lstrip("0123456789"))
    if digits != len(s):
        return None
    x = int(s) if s else 0
    return -x if neg else x


RFC3339 = "2006-01-02T15:04:05Z07:00"


def go_parse_micro_time_error(value: str) -> str | None:
    """``time.Parse(RFC3339Micro, value)``'s error text: :func:`go_parse_time_error`."""
    return go_parse_time_error(value, RFC3339_MICRO)


def go_parse_time_error(value: str, layout: str = RFC3339_MICRO) -> str | None:
    """``time.Parse(layout, value)``'s error text (None when it parses), for RFC3339Micro (the
    MicroTime fields, a Lease's ``renewTime``, an Event's ``eventTime``, need exactly six
    fractional digits) or RFC3339 (any fractional seconds allowed, as Parse takes them after
    the seconds). Written from Go's src/time/format.go (``Parse``, ``getnum``,
    ``parseNanoseconds``, ``ParseError.Error``) for these two layouts: ``cannot parse "<rest>"
    as "<element>"``, or ``<what> out of range``."""
    def cannot(rest: str, elem: str) -> str:
        return (f"parsing time {_time_quote(value)} as {_time_quote(layout)}: cannot parse "
                f"{_time_quote(rest)} as {_time_quote(elem)}")

    def out_of_range(what: str) -> str:
        return f"parsing time {_time_quote(value)}: {what} out of range"

    v = value
    fields: dict[str, int] = {}
    # (literal before the element, the element): nextStdChunk's walk over RFC3339Micro
    elems = [("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", ".000000"),
             ("", "Z07:00")]
    if layout == RFC3339:  # no fractional element: Parse takes one after the seconds if it is there
        elems.remove(("", ".000000"))
    for prefix, elem in elems:
        if prefix:
            if not v.startswith(prefix):
                return cannot(v, prefix)
            v = v[len(prefix):]
        hold = v
        if elem == "2006":
            year = _atoi(v[:4]) if len(v) >= 4 and _digit(v, 0) else None
            if year is None:
                return cannot(hold, elem)
            fields["year"], v = year, v[4:]
        elif elem in ("01", "02", "15", "04", "05"):
            got = _getnum(v, elem != "15")
            n = got[0] if got else 0
            limit = {"01": (1, 12, "month"), "15": (0, 23, "hour"), "04": (0, 59, "minute"),
                     "05": (0, 59, "second")}.get(elem)
            if limit and (got or elem in ("15", "04")) and not limit[0] <= n <= limit[1]:
                return out_of_range(limit[2])
            if got is None:
                return cannot(hold, elem)
            fields[elem], v = n, got[1]
            if elem == "05" and layout == RFC3339 and len(v) >= 2 and v[0] in ".," and _digit(v, 1):
                i = 1
                while _digit(v, i):
                    i += 1
                v = v[i:]
        elif elem == ".000000":
            if len(v) < 7 or v[0] not in ".,":
                return cannot(hold, elem)
            ns = _atoi(v[1:7])
            if ns is None:
                return cannot(hold, elem)
            if ns < 0:
                return out_of_range("fractional second")
            v = v[7:]
        else:  # Z07:00
            if v[:1] == "Z":
                v = v[1:]
                continue
            if len(v) < 6 or v[3] != ":":
                return cannot(hold, elem)
            hh, mm = _getnum(v[1:3], True), _getnum(v[4:6], True)
            sign, v = v[0], v[6:]
            if hh and hh[0] > 24:
                return out_of_range("time zone offset hour")
            if hh and mm and mm[0] > 60:
                return out_of_range("time zone offset minute")
            if hh is None or mm is None or sign not in "+-":
                return cannot(hold, elem)
    if v:
        return f"parsing time {_time_quote(value)}: extra text: {_time_quote(v)}"
    year, month, day = fields["year"], fields["01"], fields["02"]
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= days:
        return out_of_range("day")
    return None
