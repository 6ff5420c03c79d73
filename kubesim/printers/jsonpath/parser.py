"""The template grammar, scanned as upstream scans it (so the same odd inputs parse or fail the
same way), with its error texts.

Upstream: staging/src/k8s.io/client-go/util/jsonpath/parser.go.
"""

from __future__ import annotations

import re

from kubesim.api.gofmt import go_parse_int64
from kubesim.printers.jsonpath.errors import JSONPathError
from kubesim.printers.jsonpath.node import (
    ArrayNode,
    BoolNode,
    FieldNode,
    FilterNode,
    FloatNode,
    IdentifierNode,
    IntNode,
    ListNode,
    Param,
    RecursiveNode,
    TextNode,
    UnionNode,
    WildcardNode,
)

_EOF = None
_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_DICT_KEY = re.compile(r"'([^']*)'")
_SLICE = re.compile(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?")
_FILTER = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)")
_GO_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


def _is_digit(r: str | None) -> bool:
    return r is not None and r.isdecimal()


def _is_alnum(r: str | None) -> bool:
    return r is not None and (r == "_" or r.isalpha() or r.isdecimal())


def _is_terminator(r: str | None) -> bool:
    return r is None or r in _TERMINATORS


def _go_rune(r: str) -> str:
    """Go's ``%#U``: ``U+002A '*'``, without the quoted character when it is not printable."""
    text = f"U+{ord(r):04X}"
    return f"{text} '{r}'" if r.isprintable() else text


def _unquote_char(s: str, quote: str) -> tuple[str, str]:
    """One step of Go's strconv.UnquoteChar: the decoded character and the rest."""
    c = s[0]
    if c == quote:
        raise ValueError
    if c != "\\":
        return c, s[1:]
    if len(s) <= 1:
        raise ValueError
    c, s = s[1], s[2:]
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
    if c in simple:
        return simple[c], s
    if c in "xuU":
        n = {"x": 2, "u": 4, "U": 8}[c]
        digits = s[:n]
        if len(digits) < n or not re.fullmatch(r"[0-9a-fA-F]+", digits):
            raise ValueError
        value = int(digits, 16)
        if c != "x" and not (value < 0xD800 or 0xDFFF < value <= 0x10FFFF):
            raise ValueError
        return chr(value), s[n:]
    if "0" <= c <= "7":
        digits = c + s[:2]
        if len(digits) < 3 or not re.fullmatch(r"[0-7]{3}", digits):
            raise ValueError
        value = int(digits, 8)
        if value > 255:
            raise ValueError
        return chr(value), s[2:]
    if c in "'\"" and c == quote:
        return c, s
    raise ValueError


def _unquote_extend(s: str) -> str:
    """UnquoteExtend: Go's strconv.Unquote, also for single-quoted multi-character strings."""
    if len(s) < 2 or s[0] != s[-1] or s[0] not in "\"'":
        raise ValueError
    quote, s = s[0], s[1:-1]
    if "\\" not in s and quote not in s:
        return s
    out = []
    while s:
        c, s = _unquote_char(s, quote)
        out.append(c)
    return "".join(out)


class Parser:
    """Scans a template into a root ListNode, state for state as parser.go does."""

    def __init__(self, text: str):
        self.input = text
        self.pos = 0
        self.start = 0
        self.width = 0
        self.root = ListNode()

    # -- scanning primitives
    def next(self) -> str | None:
        if self.pos >= len(self.input):
            self.width = 0
            return _EOF
        self.width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def peek(self) -> str | None:
        r = self.next()
        self.backup()
        return r

    def backup(self) -> None:
        self.pos -= self.width

    def consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    # -- grammar
    def parse(self) -> ListNode:
        while True:
            brace = self.input.find("{", self.pos)
            if brace < 0:
                self.pos = len(self.input)
                if self.pos > self.start:
                    self.root.nodes.append(TextNode(self.consume()))
                return self.root
            self.pos = brace
            if self.pos > self.start:
                self.root.nodes.append(TextNode(self.consume()))
            self.pos += 1
            self.consume()
            action = ListNode()
            self.root.nodes.append(action)
            self._action(action)

    def _action(self, cur: ListNode) -> None:
        while True:
            if self.input.startswith("}", self.pos):
                self.pos += 1
                self.consume()
                return
            if self.input.startswith("[?(", self.pos):
                self._filter(cur)
                continue
            if self.input.startswith("..", self.pos):
                self._recursive(cur)
                continue
            r = self.next()
            if r is _EOF or r in ("\r", "\n"):
                raise JSONPathError("unclosed action")
            if r in (" ", "@", "$"):  # spaces and the current object: nothing to record
                self.consume()
            elif r == "[":
                self._array(cur)
            elif r in ('"', "'"):
                self._quote(cur, r)
            elif r == ".":
                self._field(cur)
            elif r in ("+", "-") or _is_digit(r):
                self.backup()
                self._number(cur)
            elif _is_alnum(r):
                self.backup()
                self._identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: {_go_rune(r)}")

    def _identifier(self, cur: ListNode) -> None:
        while not _is_terminator(self.next()):
            pass
        self.backup()
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(BoolNode(value == "true"))
        else:
            cur.nodes.append(IdentifierNode(value))

    def _recursive(self, cur: ListNode) -> None:
        if cur.nodes and isinstance(cur.nodes[-1], RecursiveNode):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(RecursiveNode())
        if _is_alnum(self.peek()):
            self._field(cur)

    def _number(self, cur: ListNode) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            r = self.next()
            if r != "." and not _is_digit(r):
                self.backup()
                break
        value = self.consume()
        as_int = go_parse_int64(value)
        if as_int is not None:
            cur.nodes.append(IntNode(as_int))
        elif _GO_FLOAT.fullmatch(value):
            cur.nodes.append(FloatNode(float(value)))
        else:
            raise JSONPathError(f"cannot parse number {value}")

    def _array(self, cur: ListNode) -> None:
        while True:
            r = self.next()
            if r is _EOF or r == "\n":
                raise JSONPathError("unterminated array")
            if r == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"

        parts = text.split(",")
        if len(parts) > 1:
            cur.nodes.append(UnionNode([_parse_action(f"[{part.strip(' ')}]") for part in parts]))
            return

        key = _DICT_KEY.fullmatch(text)
        if key:
            cur.nodes.extend(_parse_action("." + key.group(1)).nodes)
            return

        sliced = _SLICE.fullmatch(text)
        if not sliced:
            raise JSONPathError(f"invalid array index {text}")
        params: list[Param] = []
        for i, raw in enumerate(g or "" for g in sliced.groups()):
            if raw:
                if i > 0:
                    raw = raw[1:]
                if i > 0 and raw == "":
                    params.append(Param())
                else:
                    number = go_parse_int64(raw)
                    if number is None:
                        raise JSONPathError(f"array index {raw} is not a number")
                    params.append(Param(number, True))
            elif i == 1:
                params.append(Param(params[0].value + 1, True, True))
            else:
                params.append(Param())
        cur.nodes.append(ArrayNode((params[0], params[1], params[2])))

    def _filter(self, cur: ListNode) -> None:
        self.pos += len("[?(")
        self.consume()
        begin = end = False
        pair = None
        while True:
            r = self.next()
            if r is _EOF or r == "\n":
                raise JSONPathError("unterminated filter")
            if r in ('"', "'"):
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self.next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self.consume()[:-2]
        parts = _FILTER.fullmatch(text)
        if parts is None:
            cur.nodes.append(FilterNode(_parse_action(text), ListNode(), "exists"))
        else:
            left = _parse_action(parts.group(1))
            right = _parse_action(parts.group(3))
            cur.nodes.append(FilterNode(left, right, parts.group(2)))

    def _quote(self, cur: ListNode, end: str) -> None:
        while True:
            r = self.next()
            if r is _EOF or r == "\n":
                raise JSONPathError("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        value = self.consume()
        try:
            text = _unquote_extend(value)
        except ValueError:
            raise JSONPathError(f"unquote string {value} error invalid syntax") from None
        cur.nodes.append(TextNode(text))

    def _field(self, cur: ListNode) -> None:
        self.consume()
        while self._advance():
            pass
        value = self.consume()
        if value == "*":
            cur.nodes.append(WildcardNode())
        else:
            cur.nodes.append(FieldNode(value.replace("\\", "")))

    def _advance(self) -> bool:
        r = self.next()
        if r == "\\":
            self.next()
        elif _is_terminator(r):
            self.backup()
            return False
        return True


def _parse_action(text: str) -> ListNode:
    """parseAction: parse ``{text}`` and return that one action's list."""
    return Parser("{" + text + "}").parse().nodes[0]


