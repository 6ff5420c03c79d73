"""kubectl's JSONPath templates: ``-o jsonpath=...``, ``-o jsonpath-file=...`` (and ``jsonpath-as-json``).

A port in behaviour (not in code) of upstream, kubernetes/kubernetes:

- ``staging/src/k8s.io/client-go/util/jsonpath/parser.go``: the template grammar, scanned the
  same way (so the same odd inputs parse or fail the same way) and its error texts.
- ``staging/src/k8s.io/client-go/util/jsonpath/node.go``: the node kinds.
- ``staging/src/k8s.io/client-go/util/jsonpath/jsonpath.go``: evaluation, ``{range}``/``{end}``
  bookkeeping, printing (scalars as Go's ``fmt.Fprint``, maps and lists as compact
  ``json.Marshal``, results of one action separated by one space).
- ``staging/src/k8s.io/client-go/third_party/forked/golang/template/funcs.go``: the filter
  comparisons (``1.5 > 1`` is "incompatible types for comparison": float against int).
- ``staging/src/k8s.io/cli-runtime/pkg/printers/jsonpath.go``: kubectl's printer and its
  "error executing jsonpath ..." text; ``cli-runtime/pkg/genericclioptions/jsonpath_flags.go``:
  "error parsing jsonpath ...", and ``--allow-missing-template-keys`` defaulting to true.

Confirmed against kubectl v1.36 (details the upstream sources alone leave open):

- JSON ``null`` prints as ``null``; a ``{range}`` over a null element sees "no value" and
  ``{@}`` prints ``<no value>``.
- Numbers are what kubectl's unstructured decoder makes of JSON: integers, and floats with an
  integral value that fit int64 (``1.0``, ``1e6``), become int64; other numbers stay float64.
  :func:`normalize` applies that, so ``1e6`` prints ``1000000`` and ``1234567.5`` prints
  ``1.2345675e+06`` (Go's ``%v``) but ``1234567.5`` inside JSON.
- Backslash escapes in text outside ``{...}`` are printed as they are; only quoted strings
  inside an action (``{"\\n"}``, ``{'\\t'}``) are unquoted.
- ``["key"]`` is "invalid array index": only single-quoted keys (``['key']``) are supported.
- ``{.}`` looks up the empty key (prints nothing); ``{}``, ``{@}`` and ``{$}`` print the object.
- When one of several lists is empty, ``[*]`` stops at it (``jsonpath.go`` evalArray returns
  early), so ``{.items[*].spec.containers[*].name}`` prints nothing if the first pod has none.

Where Go iterates a map (``.*`` and ``..``) the order is random upstream; here it is sorted by
key, so output is deterministic. Go's ``\\xNN``/octal escapes above 0x7f produce raw bytes;
here they produce the code point of the same number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubesim.api.gofmt import go_float, go_json_float, go_parse_int64, go_quote, go_sprint

__all__ = [
    "EXECUTE_ERROR",
    "NO_VALUE",
    "PARSE_ERROR",
    "JSONPath",
    "JSONPathError",
    "ArrayNode",
    "BoolNode",
    "FieldNode",
    "FilterNode",
    "FloatNode",
    "IdentifierNode",
    "IntNode",
    "ListNode",
    "Param",
    "RecursiveNode",
    "TextNode",
    "UnionNode",
    "WildcardNode",
    "go_float",
    "go_json",
    "go_quote",
    "go_sharp_v",
    "go_sprint",
    "normalize",
    "parse",
]

# kubectl's wrappers around the engine's errors (genericclioptions/jsonpath_flags.go and
# printers/jsonpath.go). ``{template_quoted}`` is Go's %q of the template, ``{object}`` Go's %#v.
PARSE_ERROR = "error parsing jsonpath {template}, {error}"
EXECUTE_ERROR = (
    "error executing jsonpath {template_quoted}: Error executing template: {error}. "
    "Printing more information for debugging the template:\n"
    "\ttemplate was:\n\t\t{template}\n"
    "\tobject given to jsonpath engine was:\n\t\t{object}\n\n\n"
)

# Filter comparison errors (forked/golang/template/funcs.go).
_ERR_BAD_COMPARISON_TYPE = "invalid type for comparison"
_ERR_BAD_COMPARISON = "incompatible types for comparison"

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class JSONPathError(ValueError):
    """A template that does not parse, or fails on the data; ``str()`` is upstream's text."""


class _NoValue:
    """Go's zero ``reflect.Value``: what a ``{range}`` body sees for a null or missing item."""

    _instance: _NoValue | None = None

    def __new__(cls) -> _NoValue:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"

    def __str__(self) -> str:
        return "<no value>"  # how go_sprint prints it


NO_VALUE = _NoValue()


# ---------------------------------------------------------------------------------------------
# Nodes (node.go)


@dataclass
class ListNode:
    nodes: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class TextNode:
    text: str


@dataclass(frozen=True)
class FieldNode:
    name: str


@dataclass(frozen=True)
class Param:
    """One of an array node's three slice parameters (upstream's ParamsEntry)."""

    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass(frozen=True)
class ArrayNode:
    params: tuple[Param, Param, Param]


@dataclass
class FilterNode:
    left: ListNode
    right: ListNode
    operator: str


@dataclass(frozen=True)
class IntNode:
    value: int


@dataclass(frozen=True)
class FloatNode:
    value: float


@dataclass(frozen=True)
class BoolNode:
    value: bool


@dataclass(frozen=True)
class WildcardNode:
    pass


@dataclass(frozen=True)
class RecursiveNode:
    pass


@dataclass
class UnionNode:
    nodes: list[ListNode]


@dataclass(frozen=True)
class IdentifierNode:
    name: str


# ---------------------------------------------------------------------------------------------
# Parser (parser.go)

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


class _Parser:
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
    return _Parser("{" + text + "}").parse().nodes[0]


# ---------------------------------------------------------------------------------------------
# Go's printing of values


def normalize(value: Any) -> Any:
    """Numbers as kubectl's unstructured JSON decoder leaves them: int64 where exact, else float64."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if _INT64_MIN <= value <= _INT64_MAX else float(value)
    if isinstance(value, float) and value.is_integer() and _INT64_MIN <= value < 2**63:
        return int(value)
    return value


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


def go_json(value: Any, indent: str | None = None, _level: int = 0) -> str:
    """Go's ``json.Marshal`` (compact, keys sorted, HTML-escaped), or ``MarshalIndent(v, "", indent)``."""
    if value is None or value is NO_VALUE:
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
        items = [(_json_string(str(k)), v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
        if not items:
            return "{}"
        if indent is None:
            return "{" + ",".join(f"{k}:{go_json(v)}" for k, v in items) + "}"
        inner = "\n" + indent * (_level + 1)
        body = ("," + inner).join(f"{k}: {go_json(v, indent, _level + 1)}" for k, v in items)
        return "{" + inner + body + "\n" + indent * _level + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if indent is None:
            return "[" + ",".join(go_json(v) for v in value) + "]"
        inner = "\n" + indent * (_level + 1)
        body = ("," + inner).join(go_json(v, indent, _level + 1) for v in value)
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


def _go_type(value: Any) -> str:
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


def _to_text(value: Any) -> str:
    """How PrintResults writes one result: maps and lists as JSON, the rest as fmt.Fprint."""
    if isinstance(value, (dict, list)) or value is None:
        return go_json(value)
    return go_sprint(value)  # NO_VALUE prints as <no value>


# ---------------------------------------------------------------------------------------------
# Evaluation (jsonpath.go)


class _EvalError(Exception):
    """An evaluation error, with the values upstream returns alongside it.

    Upstream's exists-filter ignores the error and keeps the element when those values are not
    empty, so they matter (``[?(@.list[9])]`` keeps every element that has a ``list``).
    """

    def __init__(self, message: str, partial: list[Any]):
        super().__init__(message)
        self.message = message
        self.partial = partial


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise _EvalError(_ERR_BAD_COMPARISON_TYPE, [])


def _equal(a: Any, b: Any) -> bool:
    if _kind(a) != _kind(b):
        raise _EvalError(_ERR_BAD_COMPARISON, [])
    return a == b


def _less(a: Any, b: Any) -> bool:
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        raise _EvalError(_ERR_BAD_COMPARISON, [])
    if ka == "bool":
        raise _EvalError(_ERR_BAD_COMPARISON_TYPE, [])
    return a < b


def _compare(operator: str, a: Any, b: Any) -> bool:
    if operator == "<":
        return _less(a, b)
    if operator == ">":
        return not (_less(a, b) or _equal(a, b))
    if operator == "==":
        return _equal(a, b)
    if operator == "!=":
        return not _equal(a, b)
    if operator == "<=":
        return _less(a, b) or _equal(a, b)
    if operator == ">=":
        return not _less(a, b)
    raise _EvalError(f"unrecognized filter operator {operator}", [])


def _children(value: Any) -> list[Any]:
    """What ``.*`` yields: map values (sorted by key), list items, or a string's bytes."""
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode("utf-8"))
    return []


class _Evaluator:
    def __init__(self, root: ListNode, allow_missing_keys: bool):
        self.nodes = root.nodes
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end: int | None = None

    def find_results(self, data: Any, start: int = 0) -> list[list[Any]]:
        """FindResults: top-level actions from ``start``, each against ``data``; ranges recurse."""
        cur = [data]
        full: list[list[Any]] = []
        i = start
        while i < len(self.nodes):
            results = self.walk(cur, self.nodes[i])
            if 0 < self.end_range <= self.in_range:  # an {end}: this range body is done
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:  # a {range}: run the following nodes per item
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for item in results:
                        full.extend(self.find_results(NO_VALUE if item is None else item, i + 1))
                else:
                    self.find_results(NO_VALUE, i + 1)  # only to find the matching {end}
                self.in_range -= 1
                for k in range(i + 1, len(self.nodes)):
                    if k == self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list[Any], node: Any) -> list[Any]:
        if isinstance(node, ListNode):
            return self.eval_list(values, node)
        if isinstance(node, TextNode):
            return [node.text]
        if isinstance(node, FieldNode):
            return self.eval_field(values, node)
        if isinstance(node, ArrayNode):
            return self.eval_array(values, node)
        if isinstance(node, FilterNode):
            return self.eval_filter(values, node)
        if isinstance(node, (IntNode, FloatNode, BoolNode)):
            return [node.value for _ in values]
        if isinstance(node, WildcardNode):
            return [child for value in values for child in _children(value)]
        if isinstance(node, RecursiveNode):
            return self.eval_recursive(values)
        if isinstance(node, UnionNode):
            return self.eval_union(values, node)
        if isinstance(node, IdentifierNode):
            return self.eval_identifier(values, node)
        raise _EvalError(f"unexpected Node {node}", values)

    def eval_list(self, values: list[Any], node: ListNode) -> list[Any]:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def eval_identifier(self, values: list[Any], node: IdentifierNode) -> list[Any]:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range > 0:
                self.end_range += 1
                return []
            raise _EvalError("not in range, nothing to end", [])
        raise _EvalError(f"unrecognized identifier {node.name}", values)

    def eval_field(self, values: list[Any], node: FieldNode) -> list[Any]:
        if not values:
            return []
        results = [value[node.name] for value in values if isinstance(value, dict) and node.name in value]
        if not results and not self.allow_missing_keys:
            raise _EvalError(f"{node.name} is not found", [])
        return results

    def eval_array(self, values: list[Any], node: ArrayNode) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            if value is NO_VALUE:  # Go panics here (Type() of a zero reflect.Value)
                raise _EvalError("reflect: call of reflect.Value.Type on zero Value", values)
            if not isinstance(value, list):
                raise _EvalError(f"{_go_type(value)} is not array or slice", values)
            first, last, step = node.params
            length = len(value)
            start = first.value if first.known else 0
            if start < 0:
                start += length
            end = last.value if last.known else length
            if end < 0 or (end == 0 and last.derived):
                end += length
            if end == start:  # an empty slice ends the whole evaluation, as upstream does
                return result
            if start >= length or start < 0:
                raise _EvalError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise _EvalError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise _EvalError(f"starting index {start} is greater than ending index {end}", values)
            stride = 1
            if step.known:
                if step.value <= 0:
                    raise _EvalError("step must be > 0", values)
                stride = step.value
            result.extend(value[start:end:stride])
        return result

    def eval_union(self, values: list[Any], node: UnionNode) -> list[Any]:
        result: list[Any] = []
        for branch in node.nodes:
            try:
                result.extend(self.eval_list(values, branch))
            except _EvalError as err:
                raise _EvalError(err.message, values) from None
        return result

    def eval_recursive(self, values: list[Any]) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            children = _children(value)
            if children:
                result.append(value)
                result.extend(self.eval_recursive(children))
        return result

    def eval_filter(self, values: list[Any], node: FilterNode) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is NO_VALUE else go_sprint(value)
                raise _EvalError(f"{shown} is not array or slice and cannot be filtered", values)
            for item in value:
                error: _EvalError | None = None
                try:
                    lefts = self.eval_list([item], node.left)
                except _EvalError as err:
                    lefts, error = err.partial, err
                if node.operator == "exists":
                    if lefts:
                        results.append(item)
                    continue
                if error is not None:
                    raise _EvalError(error.message, values)
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise _EvalError("can only compare one element at a time", values)
                try:
                    rights = self.eval_list([item], node.right)
                except _EvalError as err:
                    raise _EvalError(err.message, values) from None
                if not rights:
                    continue
                if len(rights) > 1:
                    raise _EvalError("can only compare one element at a time", values)
                try:
                    passed = _compare(node.operator, lefts[0], rights[0])
                except _EvalError as err:
                    raise _EvalError(err.message, results) from None
                if passed:
                    results.append(item)
        return results


# ---------------------------------------------------------------------------------------------
# The template


@dataclass
class JSONPath:
    """A parsed template. Build one with :func:`parse`."""

    template: str
    root: ListNode
    allow_missing_keys: bool = True
    output_json: bool = False

    def find_results(self, data: Any, *, allow_missing_keys: bool | None = None) -> list[list[Any]]:
        """Upstream's FindResults: one list of values per top-level action (and per range item).

        Raises :class:`JSONPathError` with the engine's bare text ("x is not found").
        """
        allow = self.allow_missing_keys if allow_missing_keys is None else allow_missing_keys
        root = NO_VALUE if data is None else normalize(data)
        try:
            return _Evaluator(self.root, allow).find_results(root)
        except _EvalError as err:
            raise JSONPathError(err.message) from None

    def print_results(self, results: list[Any]) -> str:
        """Upstream's PrintResults for one list of values."""
        if self.output_json:
            return go_json(list(results), indent="    ") + "\n"
        return " ".join(_to_text(value) for value in results)

    def execute(self, data: Any, *, allow_missing_keys: bool | None = None) -> str:
        """What ``kubectl -o jsonpath=TEMPLATE`` prints for ``data``.

        For a list request pass kubectl's wrapper (``{"apiVersion": "v1", "kind": "List",
        "items": [...], "metadata": {"resourceVersion": ""}}``). Failures raise
        :class:`JSONPathError` with kubectl's full "error executing jsonpath ..." text.
        """
        try:
            results = self.find_results(data, allow_missing_keys=allow_missing_keys)
        except JSONPathError as err:
            shown = go_sharp_v(normalize(data)) if data is not None else "<nil>"
            raise JSONPathError(
                EXECUTE_ERROR.format(
                    template_quoted=go_quote(self.template),
                    template=self.template,
                    error=err,
                    object=shown,
                )
            ) from None
        return "".join(self.print_results(r) for r in results)


def parse(template: str, *, allow_missing_keys: bool = True, output_json: bool = False) -> JSONPath:
    """Parse a JSONPath template; raises :class:`JSONPathError` with upstream's bare text.

    kubectl reports a parse failure as ``PARSE_ERROR.format(template=..., error=...)``.
    ``output_json`` is ``-o jsonpath-as-json``: each result list printed as an indented JSON array.
    """
    return JSONPath(template, _Parser(template).parse(), allow_missing_keys, output_json)
