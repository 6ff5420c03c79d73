"""kubectl's ``-o custom-columns=HEADER:expr,...`` and ``-o custom-columns-file=FILE``.

A port in behaviour (not in code) of upstream, kubernetes/kubernetes:

- ``staging/src/k8s.io/kubectl/pkg/cmd/get/customcolumn.go``: RelaxedJSONPathExpression, the
  spec and file formats, and printing (``<none>`` when the first result list is empty, several
  values joined by ``,``, each value as Go's ``fmt.Sprint``, so a map shows as
  ``map[a:1 b:2]`` and a list as ``[x y]``, a null as ``<nil>``).
- ``staging/src/k8s.io/kubectl/pkg/cmd/get/customcolumn_test.go``: the cases mirrored in tests.
- ``staging/src/k8s.io/cli-runtime/pkg/printers/terminal.go``: EscapeTerminal (ESC shows as
  ``^[``, CR as ``\\r``).
- ``staging/src/k8s.io/cli-runtime/pkg/printers/tabwriter.go`` (GetNewTabWriter: minwidth 6,
  tabwidth 4, padding 3, pad ' ', RememberWidths) and ``github.com/liggitt/tabwriter``
  ``tabwriter.go``: the column writer, Go's text/tabwriter plus RememberWidths - kubectl get's
  writer, ``kubesim.printers.tables.table_tabwrite``.

Confirmed against kubectl v1.36: columns are as wide as their widest cell plus 3, never less
than 6; the last column is not padded; widths count code points (``日本語`` is 3). A tab or newline
inside a value is not escaped and splits the cell or row the way Go's tabwriter does (a line with
a single cell flushes, and later blocks keep the widths already used). Expressions are
parsed only when printing, after the header: a bad one prints the header and then fails. With
``custom-columns-file`` kubectl ignores ``--no-headers``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from kubesim.api.gofmt import go_sprint
from kubesim.printers import jsonpath
from kubesim.printers.tabwriter import table_tabwrite

__all__ = [
    "Column",
    "CustomColumnsError",
    "escape_terminal",
    "parse_file",
    "parse_spec",
    "relaxed",
    "render",
]

NO_VALUE_CELL = "<none>"

_ERR_NO_COLUMNS = "custom-columns format specified but no custom columns given"
_ERR_SPEC = "unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
_ERR_PATH = (
    "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' "
    "or '{.name1.name2}'"
)
_ERR_MISSING_HEADER = (
    "invalid template, missing header line. Expected format is one line of space separated "
    "headers, one line of space separated column specs."
)
_ERR_MISSING_SPEC = (
    "invalid template, missing spec line. Expected format is one line of space separated "
    "headers, one line of space separated column specs."
)
_ERR_COUNT = "number of headers ({headers}) and field specifications ({specs}) don't match"

_RELAXED = re.compile(r"\{\.?([^{}]+)\}|\.?([^{}]+)")
# bufio.ScanWords' isSpace
_GO_WORD_SPACE = "[ \t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"


class Column(NamedTuple):
    """A user's column: its header, and the JSONPath template (already relaxed)."""

    header: str
    field_spec: str


class CustomColumnsError(ValueError):
    """A column failed while printing; ``output`` is what kubectl had written before it."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


def relaxed(path: str) -> str:
    """RelaxedJSONPathExpression: ``a.b``, ``.a.b``, ``{a.b}`` and ``{.a.b}`` all become ``{.a.b}``."""
    if not path:
        return path
    match = _RELAXED.fullmatch(path)
    if match is None:
        raise ValueError(_ERR_PATH)
    return "{." + (match.group(1) or match.group(2)) + "}"


def parse_spec(spec: str) -> list[Column]:
    """Columns from ``-o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName``."""
    if not spec:
        raise ValueError(_ERR_NO_COLUMNS)
    columns = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep:
            raise ValueError(_ERR_SPEC.format(part=part))
        columns.append(Column(header, relaxed(path)))
    return columns


def _scan_lines(text: str) -> list[str]:
    """bufio.ScanLines: lines without their ``\\n`` (or ``\\r\\n``); no empty last line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _words(line: str) -> list[str]:
    return [word for word in re.split(_GO_WORD_SPACE, line) if word]


def parse_file(text: str) -> list[Column]:
    """Columns from a custom-columns-file: a line of headers, then a line of expressions.

    kubectl prints such a file's headers even with ``--no-headers``.
    """
    lines = _scan_lines(text)
    if not lines:
        raise ValueError(_ERR_MISSING_HEADER)
    if len(lines) < 2:
        raise ValueError(_ERR_MISSING_SPEC)
    headers, specs = _words(lines[0]), _words(lines[1])
    if len(headers) != len(specs):
        raise ValueError(_ERR_COUNT.format(headers=len(headers), specs=len(specs)))
    return [Column(header, relaxed(spec)) for header, spec in zip(headers, specs)]


def escape_terminal(text: str) -> str:
    """printers.EscapeTerminal."""
    return text.replace("\x1b", "^[").replace("\r", "\\r")


def _cell(values: list[list[Any]]) -> str:
    texts = []
    if not values or not values[0]:
        texts.append(NO_VALUE_CELL)
    for result in values:
        texts.extend(escape_terminal(go_sprint(value)) for value in result)
    return ",".join(texts)


def row(parsers: list, obj: dict) -> list[str]:
    """One object's cells, for the parsed column expressions (a watch prints one row at a time).
    Raises :class:`jsonpath.JSONPathError` as :func:`render` does."""
    return [_cell(parser.find_results(obj)) for parser in parsers]


def render(columns: list[tuple[str, str]], objects: list[dict], no_headers: bool = False) -> str:
    """What kubectl prints for ``objects`` (a list's items, or the one object) with these columns.

    Raises :class:`CustomColumnsError` with the engine's text ("array index out of bounds: ...");
    its ``output`` holds the header and rows kubectl had already printed.
    """
    lines = []
    if not no_headers:
        lines.append("\t".join(header for header, _ in columns) + "\n")
    try:
        parsers = [jsonpath.parse(spec, allow_missing_keys=True) for _, spec in columns]
        for obj in objects:
            cells = [_cell(parser.find_results(obj)) for parser in parsers]
            lines.append("\t".join(cells) + "\n")
    except jsonpath.JSONPathError as err:
        raise CustomColumnsError(str(err), table_tabwrite("".join(lines))) from None
    return table_tabwrite("".join(lines))
