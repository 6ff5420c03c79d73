"""Go's ``encoding/json`` verdict on a document's syntax, in its words.

Written after Go's ``src/encoding/json/scanner.go`` (the step functions of ``scanner``, whose
``SyntaxError`` texts are ``invalid character 'x' looking for beginning of value``,
``... in literal null (expecting 'u')``, ``unexpected end of JSON input``, ...) and
``decode.go`` (``UnmarshalTypeError`` when the top-level value is not an object and the target
is a ``map[string]interface{}``). The API server quotes these for a ``.dockercfg`` or
``.dockerconfigjson`` Secret whose content is not a JSON object (``ValidateSecret``).

Stdlib-only; a byte-level state machine like Go's (same order of checks, same messages).
"""

from __future__ import annotations

_SPACE = b" \t\r\n"


def _quote_char(c: int) -> str:
    """scanner.go quoteChar: ``'x'``, with Go's escapes for the unprintable."""
    if c == ord("'"):
        return "'\\''"
    if c == ord('"'):
        return "'\"'"
    ch = chr(c)
    if ch == "\\":
        return "'\\\\'"
    if ch.isprintable() and c < 0x7F:
        return f"'{ch}'"
    named = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v"}
    if c in named:
        return f"'{named[c]}'"
    if c < 0x80:
        return f"'\\x{c:02x}'"
    return "'\\ufffd'"  # a lone byte >= 0x80 is an invalid rune: strconv.Quote writes U+FFFD


class _Fail(Exception):
    pass


def syntax_error(data: bytes) -> str | None:
    """json.Valid's error text for ``data`` (None when it is one valid JSON value)."""
    pos = 0
    n = len(data)

    def err(c: int, context: str):
        raise _Fail(f"invalid character {_quote_char(c)} {context}")

    def skip(i: int) -> int:
        while i < n and data[i] in _SPACE:
            i += 1
        return i

    def need(i: int) -> int:
        if i >= n:
            raise _Fail("unexpected end of JSON input")
        return data[i]

    def need_sp(i: int) -> int:
        # at the end of input the scanner is fed a space (scanner.eof), which a literal, a
        # number or an escape in progress refuses in its own words
        return data[i] if i < n else 0x20

    def literal(i: int, word: bytes) -> int:
        for k in range(1, len(word)):
            c = need_sp(i + k)
            if c != word[k]:
                err(c, f"in literal {word.decode()} (expecting {_quote_char(word[k])})")
        return i + len(word)

    def string(i: int) -> int:  # at the opening quote
        i += 1
        while True:
            c = need(i)
            if c == ord('"'):
                return i + 1
            if c == ord("\\"):
                c = need_sp(i + 1)
                if c in b'bfnrt\\/"':
                    i += 2
                    continue
                if c == ord("u"):
                    for k in range(4):
                        h = need_sp(i + 2 + k)
                        if h not in b"0123456789abcdefABCDEF":
                            err(h, "in \\u hexadecimal character escape")
                    i += 6
                    continue
                err(c, "in string escape code")
            if c < 0x20:
                err(c, "in string literal")
            i += 1

    def number(i: int) -> int:
        if data[i] == ord("-"):
            c = need_sp(i + 1)
            i += 1
            if not (48 <= c <= 57):
                err(c, "in numeric literal")
        if data[i] == ord("0"):
            i += 1
        else:
            while i < n and 48 <= data[i] <= 57:
                i += 1
        if i < n and data[i] == ord("."):
            c = need_sp(i + 1)
            if not (48 <= c <= 57):
                err(c, "after decimal point in numeric literal")
            i += 1
            while i < n and 48 <= data[i] <= 57:
                i += 1
        if i < n and data[i] in b"eE":
            i += 1
            c = need_sp(i)
            if c in b"+-":
                i += 1
                c = need_sp(i)
            if not (48 <= c <= 57):
                err(c, "in exponent of numeric literal")
            while i < n and 48 <= data[i] <= 57:
                i += 1
        return i

    def value(i: int, depth: int) -> int:
        i = skip(i)
        c = need(i)
        if c == ord("{"):
            if depth >= 10000:
                err(c, "exceeded max depth")
            i = skip(i + 1)
            c = need(i)
            if c == ord("}"):
                return i + 1
            while True:
                if c != ord('"'):
                    err(c, "looking for beginning of object key string")
                i = skip(string(i))
                c = need(i)
                if c != ord(":"):
                    err(c, "after object key")
                i = skip(value(i + 1, depth + 1))
                c = need(i)
                if c == ord("}"):
                    return i + 1
                if c != ord(","):
                    err(c, "after object key:value pair")
                i = skip(i + 1)
                c = need(i)
        if c == ord("["):
            if depth >= 10000:
                err(c, "exceeded max depth")
            i = skip(i + 1)
            if need(i) == ord("]"):
                return i + 1
            while True:
                i = skip(value(i, depth + 1))
                c = need(i)
                if c == ord("]"):
                    return i + 1
                if c != ord(","):
                    err(c, "after array element")
                i += 1
        if c == ord('"'):
            return string(i)
        if c == ord("-") or 48 <= c <= 57:
            return number(i)
        if c == ord("t"):
            return literal(i, b"true")
        if c == ord("f"):
            return literal(i, b"false")
        if c == ord("n"):
            return literal(i, b"null")
        err(c, "looking for beginning of value")
        return i

    try:
        pos = skip(value(pos, 0))
        if pos < n:
            err(data[pos], "after top-level value")
    except _Fail as e:
        return str(e)
    return None


def unmarshal_into_map_error(data: bytes) -> str | None:
    """json.Unmarshal(data, &map[string]interface{}{})'s error, None when it succeeds."""
    e = syntax_error(data)
    if e is not None:
        return e
    first = data.lstrip(_SPACE)[:1]
    kind = {b"[": "array", b'"': "string", b"t": "bool", b"f": "bool"}.get(first)
    if kind is None and first not in (b"{", b"n"):
        kind = "number"
    if kind is not None:
        return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
    return None
