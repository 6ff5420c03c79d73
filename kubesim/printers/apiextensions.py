"""Tables of apiextensions.k8s.io: CustomResourceDefinitions, and the custom resources they
serve, whose columns are the CRD's additionalPrinterColumns.

Upstream (k8s.io/apiextensions-apiserver): pkg/registry/customresourcedefinition/etcd.go
(the CRD table is the default one, NAME and CREATED AT: ``rest.NewDefaultTableConvertor``),
pkg/registry/customresource/tableconvertor/tableconvertor.go (``New``: a Name column, then one
per printer column, a JSONPath evaluated with missing keys allowed; ``cellForJSONValue``: an
integer column shows an integer, a date column an age, a value of the wrong type nothing) and
pkg/apiserver/customresource_handler.go (a version without printer columns gets an Age one).
"""

from __future__ import annotations

from kubesim.printers.tables import NONE, Column, PrintContext, TableDef, object_meta

CRD_COLUMNS = [Column("Name", format="name"), Column("Created At")]


def print_custom_resource_definition(obj: dict, ctx: PrintContext) -> list[str]:
    md = object_meta(obj)
    return [md.get("name", ""), md.get("creationTimestamp") or NONE]


def custom_resource_table(crd: dict, version: str) -> TableDef:
    """The table of a custom resource served at ``version`` of ``crd``."""
    from kubesim.api.apiextensions.helpers import columns_for_version
    from kubesim.printers import jsonpath
    from kubesim.printers.jsonpath.errors import JSONPathError

    defs = columns_for_version(crd, version)
    paths = []
    for c in defs:
        try:
            paths.append(jsonpath.parse("{" + str(c.get("jsonPath", "")) + "}", allow_missing_keys=True))
        except JSONPathError:  # an unparsable path: the column stays empty
            paths.append(None)
    columns = [Column("Name", format="name")] + [Column(str(c.get("name", "")), int(c.get("priority") or 0))
                                                 for c in defs]

    def row(obj: dict, ctx: PrintContext) -> list[str]:
        cells = [object_meta(obj).get("name", "")]
        for c, path in zip(defs, paths):
            cells.append(_cell(c.get("type", ""), path, obj, ctx))
        return cells

    return TableDef(columns, row)


def _cell(type_: str, path, obj: dict, ctx: PrintContext) -> str:
    if path is None:
        return ""
    from kubesim.printers.jsonpath.errors import JSONPathError

    try:
        results = path.find_results(obj)
    except JSONPathError:
        return ""
    if not results or not results[0]:
        return ""
    value = results[0][0]
    if type_ == "string":
        return path.print_results([value])
    return _json_cell(type_, value, ctx)


def _json_cell(type_: str, value, ctx: PrintContext) -> str:
    """cellForJSONValue, printed as kubectl prints the cell (nothing for nil)."""
    from kubesim.api.gofmt import go_sprint

    if value is None:
        return ""
    if type_ == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(int(value))
    if type_ == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return go_sprint(float(value))
    if type_ == "boolean" and isinstance(value, bool):
        return "true" if value else "false"
    if type_ == "date" and isinstance(value, str):
        from kubesim.clock import parse_time
        from kubesim.printers.age import translate_timestamp_since

        try:
            parse_time(value)
        except (ValueError, TypeError):
            return "<invalid>"
        return translate_timestamp_since(value, ctx.now)
    return ""
