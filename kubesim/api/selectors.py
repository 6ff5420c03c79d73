"""Label selectors, node selectors and field selectors, as the API server evaluates them.

Written from the upstream sources (behaviour and messages carried over, code not):

- ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``: the ``-l`` lexer and parser
  (``labels.Parse``), ``NewRequirement`` validation, ``Requirement.Matches`` and ``String``.
- ``staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go``, ``path.go`` (how a
  field error prints: ``values[0][app]: Invalid value: "x": ...``); the key and value checks
  themselves (``IsLabelKey``, ``IsLabelValue``) are ``kubesim.api.content``'s.
- ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go``: ``LabelSelectorAsSelector``.
- ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``:
  node selector terms (ORed, an empty term matches nothing, matchFields on metadata.name).
- ``staging/src/k8s.io/apimachinery/pkg/fields/selector.go``: ``ParseSelector`` with its
  backslash escaping of ``\\``, ``,`` and ``=`` in values.
- ``pkg/registry/core/pod/strategy.go`` / ``pkg/registry/core/node/strategy.go``
  (``ToSelectableFields``), ``pkg/apis/core/v1/conversion.go``, ``pkg/apis/batch/v1/conversion.go``
  and ``staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go``
  (``DefaultMetaV1FieldSelectorConversion``): which fields each kind lets you select on and the
  API server's error text for any other.

Error texts are those of the v1.36 release, checked against kubectl 1.36
(``kubectl create pdb --selector``): for example
``unable to parse requirement: <nil>: Invalid value: "-x": name part must ...`` and
``values[0][x]: Invalid value: "...": must be no more than 63 bytes``.

Everything here is stdlib-only. Node-selector requirements are compiled once per distinct
(key, operator, values) and cached, because the scheduler evaluates them for every pod x node.
"""

from __future__ import annotations

import functools

from kubesim.api.content import label_key_errors, label_value_errors
from kubesim.api.gofmt import go_json, go_parse_int64, go_quote
from kubesim.api.record import FrozenRecord

# --- selection.Operator values ---------------------------------------------------------------

OP_IN = "in"
OP_NOT_IN = "notin"
OP_EQUALS = "="
OP_DOUBLE_EQUALS = "=="
OP_NOT_EQUALS = "!="
OP_EXISTS = "exists"
OP_DOES_NOT_EXIST = "!"
OP_GT = "gt"
OP_LT = "lt"

_BINARY_OPERATORS = (OP_IN, OP_NOT_IN, OP_EQUALS, OP_DOUBLE_EQUALS, OP_NOT_EQUALS, OP_GT, OP_LT)
_VALID_OPERATORS = frozenset(_BINARY_OPERATORS + (OP_EXISTS, OP_DOES_NOT_EXIST))

_MISSING = object()

# --- helpers (Go's %q and %#v are kubesim.api.gofmt's) -------------------------------------


def _field_error(path: str, bad_value: str, detail: str) -> str:
    """field.Invalid(path, value, detail).Error()."""
    return f"{path}: Invalid value: {bad_value}: {detail}"


def _aggregate(messages: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in []."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --- requirements and label selectors --------------------------------------------------------


class Requirement(FrozenRecord):
    """One ``key op values`` term (labels.Requirement); build it with ``new_requirement``."""

    __slots__ = ("_bound", "key", "operator", "values")
    _uncompared = ("_bound",)

    def __init__(self, key: str, operator: str, values: tuple[str, ...] = (), _bound: int | None = None):
        self.key = key
        self.operator = operator
        self.values = values
        self._bound = _bound  # Gt/Lt operand

    def matches(self, labels: dict[str, str]) -> bool:
        op = self.operator
        if op in (OP_IN, OP_EQUALS, OP_DOUBLE_EQUALS):
            v = labels.get(self.key, _MISSING)
            return v is not _MISSING and v in self.values
        if op in (OP_NOT_IN, OP_NOT_EQUALS):
            v = labels.get(self.key, _MISSING)
            return v is _MISSING or v not in self.values
        if op == OP_EXISTS:
            return self.key in labels
        if op == OP_DOES_NOT_EXIST:
            return self.key not in labels
        if op in (OP_GT, OP_LT):
            v = labels.get(self.key, _MISSING)
            if v is _MISSING or self._bound is None:
                return False
            n = go_parse_int64(v) if isinstance(v, str) else None
            if n is None:
                return False
            return n > self._bound if op == OP_GT else n < self._bound
        return False

    def __str__(self) -> str:
        op = self.operator
        if op == OP_EXISTS:
            return self.key
        if op == OP_DOES_NOT_EXIST:
            return "!" + self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (OP_IN, OP_NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {OP_GT: ">", OP_LT: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def new_requirement(key: str, operator: str, values: list[str] | tuple[str, ...] | None = None,
                    *, path: str | None = None) -> Requirement:
    """labels.NewRequirement: validate and build a requirement, or raise ValueError with the
    aggregated field errors. ``path`` prefixes field paths like upstream's field.WithPath."""
    vals = tuple(values) if values is not None else ()
    key_path = f"{path}.key" if path else "key"
    values_path = f"{path}.values" if path else "values"
    errs: list[str] = []
    key_errs = label_key_errors(key)
    if key_errs:
        errs.append(_field_error(key_path, go_quote(key), "; ".join(key_errs)))
    bound = None
    if operator in (OP_IN, OP_NOT_IN):
        if not vals:
            errs.append(_field_error(values_path, go_json(values),
                                     "for 'in', 'notin' operators, values set can't be empty"))
    elif operator in (OP_EQUALS, OP_DOUBLE_EQUALS, OP_NOT_EQUALS):
        if len(vals) != 1:
            errs.append(_field_error(values_path, go_json(values),
                                     "exact-match compatibility requires one single value"))
    elif operator in (OP_EXISTS, OP_DOES_NOT_EXIST):
        if vals:
            errs.append(_field_error(values_path, go_json(values),
                                     "values set must be empty for exists and does not exist"))
    elif operator in (OP_GT, OP_LT):
        if len(vals) != 1:
            errs.append(_field_error(values_path, go_json(values),
                                     "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            n = go_parse_int64(v)
            if n is None:
                errs.append(_field_error(f"{values_path}[{i}]", go_quote(v),
                                         "for 'Gt', 'Lt' operators, the value must be an integer"))
            elif len(vals) == 1:
                bound = n
    else:
        supported = ", ".join(go_quote(o) for o in _BINARY_OPERATORS + (OP_EXISTS, OP_DOES_NOT_EXIST))
        op_path = f"{path}.operator" if path else "operator"
        errs.append(f"{op_path}: Unsupported value: {go_quote(operator)}: supported values: {supported}")
    for i, v in enumerate(vals):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.append(_field_error(f"{values_path}[{i}][{key}]", go_quote(v),
                                     "; ".join(value_errs)))
    if errs:
        raise ValueError(_aggregate(errs))
    return Requirement(key, operator, vals, bound)


class LabelSelector:
    """A parsed label selector (labels.Selector): requirements ANDed.

    ``LabelSelector.nothing()`` matches no object (labels.Nothing(), what a nil
    metav1.LabelSelector means); a selector with no requirements matches everything.
    """

    __slots__ = ("_nothing", "_requirements")

    def __init__(self, requirements: list[Requirement] | tuple[Requirement, ...] = (), *,
                 nothing: bool = False) -> None:
        # sorted by key, as upstream's Add/parse do (stable here, so equal keys keep input order)
        self._requirements = tuple(sorted(requirements, key=lambda r: r.key))
        self._nothing = nothing

    @classmethod
    def everything(cls) -> LabelSelector:
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> LabelSelector:
        return _NOTHING

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        return self._requirements

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (Everything)."""
        return not self._nothing and not self._requirements

    @property
    def matches_nothing(self) -> bool:
        return self._nothing

    def matches(self, labels: dict[str, str] | None) -> bool:
        if self._nothing:
            return False
        if labels is None:
            labels = {}
        for r in self._requirements:
            if not r.matches(labels):
                return False
        return True

    def __str__(self) -> str:
        return ",".join(str(r) for r in self._requirements)

    def __repr__(self) -> str:
        if self._nothing:
            return "LabelSelector.nothing()"
        return f"LabelSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return self._nothing == other._nothing and self._requirements == other._requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self._requirements))


_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector(nothing=True)


# --- the -l lexer and parser (labels.Parse) --------------------------------------------------

(_T_ERROR, _T_EOS, _T_CLOSE_PAR, _T_COMMA, _T_NOT, _T_DOUBLE_EQUALS, _T_EQUALS, _T_GT,
 _T_IDENTIFIER, _T_IN, _T_LT, _T_NOT_EQUALS, _T_NOT_IN, _T_OPEN_PAR) = range(14)

_STRING_TO_TOKEN = {")": _T_CLOSE_PAR, ",": _T_COMMA, "!": _T_NOT, "==": _T_DOUBLE_EQUALS,
                    "=": _T_EQUALS, ">": _T_GT, "in": _T_IN, "<": _T_LT, "!=": _T_NOT_EQUALS,
                    "notin": _T_NOT_IN, "(": _T_OPEN_PAR}
_WHITESPACE = frozenset(" \t\r\n")
_SPECIAL = frozenset("=!(),><")
_END = "\x00"  # upstream's lexer reads a NUL byte as the end of input


def _lex(s: str) -> list[tuple[int, str]]:
    """All tokens of ``s`` up to and including the end-of-string token."""
    items: list[tuple[int, str]] = []
    pos = 0
    n = len(s)

    def read() -> str:
        nonlocal pos
        if pos < n:
            pos += 1
            return s[pos - 1]
        return _END

    while True:
        ch = read()
        while ch in _WHITESPACE:
            ch = read()
        if ch == _END:
            items.append((_T_EOS, ""))
            return items
        pos -= 1
        buf = []
        if ch in _SPECIAL:
            last: tuple[int, str] | None = None
            while True:
                ch = read()
                if ch == _END:
                    break
                if ch in _SPECIAL:
                    buf.append(ch)
                    tok = _STRING_TO_TOKEN.get("".join(buf))
                    if tok is not None:
                        last = (tok, "".join(buf))
                    elif last is not None:
                        pos -= 1
                        break
                else:
                    pos -= 1
                    break
            items.append(last if last is not None
                         else (_T_ERROR, f"error expected: keyword found '{''.join(buf)}'"))
        else:
            while True:
                ch = read()
                if ch == _END:
                    break
                if ch in _SPECIAL or ch in _WHITESPACE:
                    pos -= 1
                    break
                buf.append(ch)
            word = "".join(buf)
            items.append((_STRING_TO_TOKEN.get(word, _T_IDENTIFIER), word))


class _Parser:
    __slots__ = ("items", "position")

    def __init__(self, s: str) -> None:
        self.items = _lex(s)
        self.position = 0

    def lookahead(self, values_context: bool = True) -> tuple[int, str]:
        tok, lit = self.items[self.position]
        if values_context and tok in (_T_IN, _T_NOT_IN):
            tok = _T_IDENTIFIER  # 'in'/'notin' are plain words where values are expected
        return tok, lit

    def consume(self, values_context: bool = True) -> tuple[int, str]:
        item = self.lookahead(values_context)
        self.position += 1
        return item

    def parse(self) -> list[Requirement]:
        requirements = []
        while True:
            tok, lit = self.lookahead()
            if tok in (_T_IDENTIFIER, _T_NOT):
                try:
                    requirements.append(self.parse_requirement())
                except ValueError as err:
                    raise ValueError(f"unable to parse requirement: {err}") from None
                tok, lit = self.consume()
                if tok == _T_EOS:
                    return requirements
                if tok == _T_COMMA:
                    tok2, lit2 = self.lookahead()
                    if tok2 not in (_T_IDENTIFIER, _T_NOT):
                        raise ValueError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise ValueError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _T_EOS:
                return requirements
            else:
                raise ValueError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> Requirement:
        operator = ""
        tok, literal = self.consume()
        if tok == _T_NOT:
            operator = OP_DOES_NOT_EXIST
            tok, literal = self.consume()
        if tok != _T_IDENTIFIER:
            raise ValueError(f"found '{literal}', expected: identifier")
        key_errs = label_key_errors(literal)
        if key_errs:  # validated with a nil field path, which prints as <nil>
            raise ValueError(_field_error("<nil>", go_quote(literal), "; ".join(key_errs)))
        if self.lookahead()[0] in (_T_EOS, _T_COMMA) and operator != OP_DOES_NOT_EXIST:
            operator = OP_EXISTS
        if operator in (OP_EXISTS, OP_DOES_NOT_EXIST):
            return new_requirement(literal, operator, ())
        operator = self.parse_operator()
        if operator in (OP_IN, OP_NOT_IN):
            values = self.parse_values()
        else:
            values = self.parse_exact_value()
        return new_requirement(literal, operator, sorted(values))

    def parse_operator(self) -> str:
        tok, lit = self.consume(values_context=False)
        op = {_T_IN: OP_IN, _T_EQUALS: OP_EQUALS, _T_DOUBLE_EQUALS: OP_DOUBLE_EQUALS,
              _T_GT: OP_GT, _T_LT: OP_LT, _T_NOT_IN: OP_NOT_IN,
              _T_NOT_EQUALS: OP_NOT_EQUALS}.get(tok)
        if op is None:
            raise ValueError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        return op

    def parse_values(self) -> set[str]:
        tok, lit = self.consume()
        if tok != _T_OPEN_PAR:
            raise ValueError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead()
        if tok in (_T_IDENTIFIER, _T_COMMA):
            values = self.parse_identifiers_list()
            self.consume()  # the ')' that ended the list
            return values
        if tok == _T_CLOSE_PAR:
            self.consume()
            return {""}
        raise ValueError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.consume()
            if tok == _T_IDENTIFIER:
                values.add(lit)
                tok2, lit2 = self.lookahead()
                if tok2 == _T_COMMA:
                    continue
                if tok2 == _T_CLOSE_PAR:
                    return values
                raise ValueError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _T_COMMA:
                if not values:
                    values.add("")  # "(,"
                tok2, _ = self.lookahead()
                if tok2 == _T_CLOSE_PAR:
                    values.add("")  # ",)"
                    return values
                if tok2 == _T_COMMA:
                    values.add("")  # ",,"
                continue
            raise ValueError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        if self.lookahead()[0] in (_T_EOS, _T_COMMA):
            return {""}
        tok, lit = self.consume()
        if tok == _T_IDENTIFIER:
            return {lit}
        raise ValueError(f"found '{lit}', expected: identifier")


@functools.lru_cache(maxsize=1024)
def parse_label_selector(s: str) -> LabelSelector:
    """labels.Parse: kubectl's ``-l`` syntax. ``""`` matches everything; errors raise
    ValueError with upstream's text."""
    return LabelSelector(_Parser(s).parse())


def selector_from_set(labels: dict[str, str] | None) -> LabelSelector:
    """labels.SelectorFromSet: ``k=v`` for every entry, unvalidated (a Service's or an RC's
    selector). An empty or missing set selects everything."""
    if not labels:
        return _EVERYTHING
    return LabelSelector([Requirement(k, OP_EQUALS, (v,)) for k, v in labels.items()])


_LABEL_SELECTOR_OPERATORS = {"In": OP_IN, "NotIn": OP_NOT_IN, "Exists": OP_EXISTS,
                             "DoesNotExist": OP_DOES_NOT_EXIST}


def from_label_selector(sel: dict | None) -> LabelSelector:
    """metav1.LabelSelectorAsSelector: ``matchLabels`` plus ``matchExpressions``.

    None selects nothing; ``{}`` (no labels, no expressions) selects everything. A bad operator
    or an invalid key/value raises ValueError with upstream's text.
    """
    if sel is None:
        return _NOTHING
    match_labels = sel.get("matchLabels") or {}
    expressions = sel.get("matchExpressions") or []
    if not match_labels and not expressions:
        return _EVERYTHING
    requirements = [new_requirement(k, OP_EQUALS, (v,)) for k, v in match_labels.items()]
    for expr in expressions:
        operator = expr.get("operator", "")
        op = _LABEL_SELECTOR_OPERATORS.get(operator)
        if op is None:
            raise ValueError(f"{go_quote(str(operator))} is not a valid pod selector operator")
        requirements.append(new_requirement(expr.get("key", ""), op, expr.get("values") or None))
    return LabelSelector(requirements)


# --- node selectors (nodeaffinity) -----------------------------------------------------------

_NODE_SELECTOR_OPERATORS = {"In": OP_IN, "NotIn": OP_NOT_IN, "Exists": OP_EXISTS,
                            "DoesNotExist": OP_DOES_NOT_EXIST, "Gt": OP_GT, "Lt": OP_LT}


@functools.lru_cache(maxsize=8192)
def _compile_label_requirement(key: str | None, operator: str | None,
                               values: tuple[str, ...] | None) -> Requirement | None:
    """A node selector matchExpressions entry as a Requirement, or None when upstream would
    report a parse error (which makes the whole term match nothing)."""
    op = _NODE_SELECTOR_OPERATORS.get(operator)
    if op is None or key is None or values is None:
        return None
    try:
        return new_requirement(key, op, values)
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)
def _compile_field_requirement(key: str | None, operator: str | None,
                               values: tuple[str, ...] | None) -> tuple[bool, str, str] | None:
    """A matchFields entry as (is_in, key, value); only In/NotIn with exactly one value parse."""
    if operator not in ("In", "NotIn") or key is None or values is None or len(values) != 1:
        return None
    return operator == "In", key, values[0]


def _requirement_key(req: dict) -> tuple[str | None, str | None, tuple[str, ...] | None]:
    """A hashable cache key for a requirement; None marks a malformed part."""
    key = req.get("key", "")
    operator = req.get("operator", "")
    values = req.get("values") or ()
    return (key if isinstance(key, str) else None,
            operator if isinstance(operator, str) else None,
            tuple(values) if all(isinstance(v, str) for v in values) else None)


def node_selector_requirement_matches(req: dict, labels: dict[str, str] | None) -> bool:
    """One NodeSelectorRequirement against node labels (In, NotIn, Exists, DoesNotExist, Gt,
    Lt; Gt/Lt compare integers, and a label that is not an integer does not match). An invalid
    requirement matches nothing."""
    compiled = _compile_label_requirement(*_requirement_key(req))
    return compiled is not None and compiled.matches(labels or {})


def node_selector_term_matches(term: dict | None, labels: dict[str, str] | None,
                               fields: dict[str, str] | None) -> bool:
    """One NodeSelectorTerm: its matchExpressions and matchFields ANDed. A term with neither
    matches nothing; an invalid requirement anywhere in the term makes it match nothing.

    Only ``metadata.name`` is read from ``fields`` (the scheduler extracts nothing else), and,
    as upstream, matchFields is not consulted when the node has no name.
    """
    if not term:
        return False
    expressions = term.get("matchExpressions") or ()
    match_fields = term.get("matchFields") or ()
    if not expressions and not match_fields:
        return False
    label_reqs = []
    for req in expressions:
        compiled = _compile_label_requirement(*_requirement_key(req))
        if compiled is None:
            return False
        label_reqs.append(compiled)
    field_reqs = []
    for req in match_fields:
        compiled_field = _compile_field_requirement(*_requirement_key(req))
        if compiled_field is None:
            return False
        field_reqs.append(compiled_field)
    if labels is None:
        labels = {}
    for r in label_reqs:
        if not r.matches(labels):
            return False
    name = (fields or {}).get("metadata.name") or ""
    if name:
        for is_in, key, value in field_reqs:
            got = name if key == "metadata.name" else ""
            if (got == value) != is_in:
                return False
    return True


def node_selector_matches(node_selector: dict | None, labels: dict[str, str] | None,
                          fields: dict[str, str] | None) -> bool:
    """A NodeSelector (required node affinity): terms ORed. ``None`` means no constraint and
    matches; a selector with no (non-empty) terms matches nothing."""
    if node_selector is None:
        return True
    for term in node_selector.get("nodeSelectorTerms") or ():
        if node_selector_term_matches(term, labels, fields):
            return True
    return False


# --- field selectors (fields.ParseSelector) --------------------------------------------------


def escape_field_value(s: str) -> str:
    """fields.EscapeValue: backslash-escape ``\\``, ``,`` and ``=``."""
    return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_field_value(s: str) -> str:
    """fields.UnescapeValue, raising ValueError with upstream's messages."""
    if not any(c in s for c in "\\,="):
        return s
    out = []
    in_slash = False
    for c in s:
        if in_slash:
            if c not in "\\,=":
                raise ValueError(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            # upstream formats the rune with %v, i.e. as its code point number
            raise ValueError(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise ValueError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(s: str) -> list[str]:
    """Split on commas that are not backslash-escaped; escapes stay in the terms."""
    if not s:
        return []
    terms = []
    start = 0
    in_slash = False
    for i, c in enumerate(s):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(s[start:i])
            start = i + 1
    terms.append(s[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """(lhs, op, rhs) at the first operator; '!=' and '==' win over '=' at the same spot."""
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


class FieldSelector(FrozenRecord):
    """A parsed field selector: (field, op, value) terms ANDed, op being "=" or "!="."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: tuple[tuple[str, str, str], ...] = ()):
        self.requirements = requirements

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: dict[str, str]) -> bool:
        """Missing fields read as "" (fields.Set.Get)."""
        for name, op, value in self.requirements:
            if (fields.get(name, "") == value) != (op == "="):
                return False
        return True

    def requires_exact_match(self, name: str) -> str | None:
        for field_name, op, value in self.requirements:
            if field_name == name and op == "=":
                return value
        return None

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{escape_field_value(v)}" for f, op, v in self.requirements)


@functools.lru_cache(maxsize=1024)
def parse_field_selector(s: str) -> FieldSelector:
    """fields.ParseSelector: ``a=b``, ``a==b``, ``a!=b`` joined by commas; values escape
    ``\\``, ``,`` and ``=`` with a backslash. Terms are kept in sorted order, as upstream."""
    requirements = []
    for part in sorted(_split_terms(s)):
        if part == "":
            continue
        split = _split_term(part)
        if split is None:
            raise ValueError(f"invalid selector: '{s}'; can't understand '{part}'")
        lhs, op, rhs = split
        value = unescape_field_value(rhs)
        if not lhs and not value:
            continue  # upstream's Transform drops a term whose field and value are both empty
        requirements.append((lhs, "!=" if op == "!=" else "=", value))
    return FieldSelector(tuple(requirements))


# --- selectable fields per kind --------------------------------------------------------------


def _str(v: object) -> str:
    return v if isinstance(v, str) else ""


def _bool(v: object) -> str:
    return "true" if v is True else "false"


def generic_fields(obj: dict, namespaced: bool = True) -> dict[str, str]:
    """The ObjectMeta fields every kind exposes (generic.AddObjectMetaFieldsSet)."""
    meta = obj.get("metadata") or {}
    fields = {"metadata.name": _str(meta.get("name"))}
    if namespaced:
        fields["metadata.namespace"] = _str(meta.get("namespace"))
    return fields


def pod_fields(pod: dict) -> dict[str, str]:
    """Pod ToSelectableFields, read from the stored (defaulted) object."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    pod_ip = _str(status.get("podIP"))
    if not pod_ip:
        pod_ips = status.get("podIPs") or []
        if pod_ips and isinstance(pod_ips[0], dict):
            pod_ip = _str(pod_ips[0].get("ip"))
    fields = generic_fields(pod)
    fields.update({
        "spec.nodeName": _str(spec.get("nodeName")),
        "spec.restartPolicy": _str(spec.get("restartPolicy")),
        "spec.schedulerName": _str(spec.get("schedulerName")),
        "spec.serviceAccountName": _str(spec.get("serviceAccountName")),
        "spec.hostNetwork": _bool(spec.get("hostNetwork")),
        "status.phase": _str(status.get("phase")),
        "status.podIP": pod_ip,
        "status.nominatedNodeName": _str(status.get("nominatedNodeName")),
    })
    return fields


def event_fields(ev: dict) -> dict[str, str]:
    """Event ToSelectableFields (pkg/registry/core/event/strategy.go): the involved object's
    fields, reason, reportingComponent, source (its component) and type."""
    io = ev.get("involvedObject") or {}
    fields = generic_fields(ev)
    for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"):
        fields["involvedObject." + f] = _str(io.get(f))
    fields.update({
        "reason": _str(ev.get("reason")),
        "reportingComponent": _str(ev.get("reportingComponent")),
        "source": _str((ev.get("source") or {}).get("component")),
        "type": _str(ev.get("type")),
    })
    return fields


def namespace_fields(ns: dict) -> dict[str, str]:
    """Namespace ToSelectableFields: metadata.name and status.phase."""
    return {"metadata.name": _str((ns.get("metadata") or {}).get("name")),
            "status.phase": _str((ns.get("status") or {}).get("phase"))}


def secret_fields(secret: dict) -> dict[str, str]:
    """Secret SelectableFields (pkg/registry/core/secret/strategy.go): the metadata and type."""
    fields = generic_fields(secret)
    fields["type"] = _str(secret.get("type"))
    return fields


def fields_of(kind: str):
    """The field-set function the API server uses to filter a kind by field selector."""
    return {"Pod": pod_fields, "Node": node_fields, "Event": event_fields,
            "Namespace": namespace_fields, "Secret": secret_fields}.get(kind, generic_fields)


def node_fields(node: dict) -> dict[str, str]:
    """Node ToSelectableFields: metadata.name and spec.unschedulable ("true"/"false")."""
    fields = generic_fields(node, namespaced=False)
    fields["spec.unschedulable"] = _bool((node.get("spec") or {}).get("unschedulable"))
    return fields


_NOT_SUPPORTED = "field label not supported: {label}"
# Kind -> (the field labels its conversion accepts, renamed labels, the rejection text).
_FIELD_LABELS: dict[str, tuple[frozenset[str], dict[str, str], str]] = {
    "Pod": (frozenset({"metadata.name", "metadata.namespace", "spec.nodeName",
                       "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                       "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
                       "status.nominatedNodeName", "spec.host"}),
            {"spec.host": "spec.nodeName"}, _NOT_SUPPORTED),
    "Node": (frozenset({"metadata.name", "spec.unschedulable"}), {}, _NOT_SUPPORTED),
    "ReplicationController": (frozenset({"metadata.name", "metadata.namespace",
                                         "status.replicas"}), {}, _NOT_SUPPORTED),
    "Event": (frozenset({"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                         "involvedObject.uid", "involvedObject.apiVersion",
                         "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
                         "reportingComponent", "source", "type", "metadata.namespace",
                         "metadata.name"}), {}, _NOT_SUPPORTED),
    "Namespace": (frozenset({"status.phase", "metadata.name"}), {}, _NOT_SUPPORTED),
    "Secret": (frozenset({"type", "metadata.namespace", "metadata.name"}), {}, _NOT_SUPPORTED),
    "Service": (frozenset({"metadata.namespace", "metadata.name", "spec.clusterIP",
                           "spec.type"}), {}, _NOT_SUPPORTED),
    "Job": (frozenset({"metadata.name", "metadata.namespace", "status.successful"}), {},
            "field label {quoted} not supported for batchv1.Job"),
}
_GENERIC_FIELD_LABELS = frozenset({"metadata.name", "metadata.namespace"})
_KIND_ALIASES = {alias: kind for kind, aliases in {
    "Pod": ("pods", "pod", "po"), "Node": ("nodes", "node", "no"),
    "ReplicationController": ("replicationcontrollers", "replicationcontroller", "rc"),
    "Event": ("events", "event", "ev"), "Namespace": ("namespaces", "namespace", "ns"),
    "Secret": ("secrets", "secret"), "Service": ("services", "service", "svc"),
    "Job": ("jobs", "job", "jobs.batch", "job.batch"),
}.items() for alias in aliases}


def _kind(kind_resource: str) -> str:
    return _KIND_ALIASES.get(kind_resource.lower(), kind_resource)


def supported_field_labels(kind_resource: str) -> frozenset[str]:
    """The field labels the API server accepts in a field selector for this kind (given as
    Kind, resource or short name); metadata.name/namespace for kinds without their own list."""
    entry = _FIELD_LABELS.get(_kind(kind_resource))
    return entry[0] if entry else _GENERIC_FIELD_LABELS


def unsupported_field_error(kind_resource: str, field_label: str) -> str:
    """The API server's BadRequest message for selecting ``kind_resource`` on ``field_label``:
    ``field label not supported: foo`` for kinds with their own conversion (Pod, Node, Service,
    ...), otherwise ``"foo" is not a known field selector: only "metadata.name",
    "metadata.namespace"``."""
    entry = _FIELD_LABELS.get(_kind(kind_resource))
    if entry is None:
        return (f"{go_quote(field_label)} is not a known field selector: only "
                f"\"metadata.name\", \"metadata.namespace\"")
    return entry[2].format(label=field_label, quoted=go_quote(field_label))


def convert_field_selector(kind_resource: str, selector: FieldSelector) -> FieldSelector:
    """What the API server does before listing: rename legacy labels (a Pod's ``spec.host`` is
    ``spec.nodeName``) and reject unsupported ones with ``unsupported_field_error``'s text."""
    entry = _FIELD_LABELS.get(_kind(kind_resource))
    allowed, renames = (entry[0], entry[1]) if entry else (_GENERIC_FIELD_LABELS, {})
    converted = []
    for name, op, value in selector.requirements:
        if name not in allowed:
            raise ValueError(unsupported_field_error(kind_resource, name))
        converted.append((renames.get(name, name), op, value))
    return FieldSelector(tuple(converted))
