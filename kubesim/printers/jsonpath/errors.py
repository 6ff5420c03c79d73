"""kubectl's error texts around the JSONPath engine, and the engine's own.

Upstream: staging/src/k8s.io/cli-runtime/pkg/genericclioptions/jsonpath_flags.go ("error parsing
jsonpath ..."), staging/src/k8s.io/cli-runtime/pkg/printers/jsonpath.go ("error executing
jsonpath ..."), forked/golang/template/funcs.go (the comparison errors).
"""

from __future__ import annotations

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
ERR_BAD_COMPARISON_TYPE = "invalid type for comparison"
ERR_BAD_COMPARISON = "incompatible types for comparison"


class JSONPathError(ValueError):
    """A template that does not parse, or fails on the data; ``str()`` is upstream's text."""


