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

from dataclasses import dataclass
from typing import Any

from kubesim.api.gofmt import go_json, go_quote, go_sharp_v
from kubesim.printers.jsonpath.errors import EXECUTE_ERROR, PARSE_ERROR, JSONPathError
from kubesim.printers.jsonpath.evaluate import EvalError, Evaluator, normalize, to_text
from kubesim.printers.jsonpath.node import NO_VALUE, ListNode
from kubesim.printers.jsonpath.parser import Parser

__all__ = ["EXECUTE_ERROR", "NO_VALUE", "PARSE_ERROR", "JSONPath", "JSONPathError", "normalize", "parse"]


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
            return Evaluator(self.root, allow).find_results(root)
        except EvalError as err:
            raise JSONPathError(err.message) from None

    def print_results(self, results: list[Any]) -> str:
        """Upstream's PrintResults for one list of values."""
        if self.output_json:
            return go_json(list(results), indent="    ") + "\n"
        return " ".join(to_text(value) for value in results)

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
    return JSONPath(template, Parser(template).parse(), allow_missing_keys, output_json)
