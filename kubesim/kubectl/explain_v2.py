"""kubectl explain --output=plaintext-openapiv2: the older explain, from the OpenAPI v2 document.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/explain/explain.go
(``renderOpenAPIV2``: the kind of the resource, ``couldn't find resource for``),
pkg/explain/explain.go (``PrintModelDescription``), field_lookup.go, model_printer.go,
fields_printer.go, recursive_fields_printer.go, typename.go and formatter.go (its own word
wrapping at 80 columns); the schema model is k8s.io/kube-openapi's pkg/util/proto
(document.go: how a v2 schema becomes a Kind, Map, Array, Primitive, Reference or Arbitrary).
Each schema node here is a small tuple ``(shape, schema, sub)`` built the way ParseSchema does.
"""

from __future__ import annotations

import re

from kubesim.api import openapi
from kubesim.errors import RawError

_KIND, _MAP, _ARRAY, _PRIMITIVE, _REF, _ARBITRARY = "kind", "map", "array", "primitive", "ref", "arbitrary"
_BULLET = re.compile(r"^(\d+\.?|-|\*)\s")


def parse(schema: dict) -> tuple:
    """proto.Definitions.ParseSchema: (shape, the schema)."""
    if schema.get("$ref"):
        return _REF, schema
    kind = schema.get("type")
    if kind is None:
        return (_KIND if "properties" in schema else _ARBITRARY), schema
    if kind == "object":
        return (_KIND if "properties" in schema else _MAP), schema
    if kind == "array":
        return _ARRAY, schema
    return _PRIMITIVE, schema


def _sub(node: tuple) -> tuple:
    """The node an array, map or reference stands for."""
    shape, schema = node
    if shape == _ARRAY:
        return parse(schema["items"])
    if shape == _MAP:
        extra = schema.get("additionalProperties")
        return parse(extra) if isinstance(extra, dict) else (_ARBITRARY, schema)
    return parse(openapi.definitions_v2()[schema["$ref"]])


def type_name(node: tuple) -> str:
    shape, schema = node
    if shape == _ARRAY:
        return "[]" + type_name(_sub(node))
    if shape == _MAP:
        return "map[string]" + type_name(_sub(node))
    if shape == _REF:
        return type_name(_sub(node))
    if shape == _KIND:
        return "Object"
    if shape == _PRIMITIVE:
        return schema["type"]
    return ""  # typename.go has no VisitArbitrary


def _blen(text: str) -> int:
    return len(text.encode())


def wrap(text: str, width: int) -> list[str]:
    """formatter.go's wrapString: words joined up to ``width`` bytes; indented lines (4 spaces)
    kept; a new line after a word ending in ``:``, before a bullet, at a blank line."""
    wrapped: list[str] = []
    words: list[str] = []
    last = ""

    def flush():
        nonlocal words, last
        if words:
            last = ""
            wrapped.append(" ".join(words))
            words = []

    def add(word: str) -> bool:
        if _blen(" ".join([*words, word])) <= width or not words:
            words.append(word)
            return True
        return False

    for line in text.split("\n"):
        if line.startswith("    "):
            flush()
            wrapped.append(line)
            continue
        if wrapped and not line.strip():
            flush()
            wrapped.append("")
            continue
        stripped = line.strip()
        if last.endswith(":") or not stripped or _BULLET.match(stripped):
            flush()
        for word in line.split():
            last = word
            if not add(word):
                flush()
                add(word)
    flush()
    return wrapped


class _Formatter:
    """formatter.go's Formatter: an indent and a wrap width of 80."""

    def __init__(self, out: list[str], indent: int = 0):
        self.out, self.level = out, indent

    def indent(self, amount: int) -> _Formatter:
        return _Formatter(self.out, self.level + amount)

    def write(self, text: str) -> None:
        self.out.append("\n" if text == "" else " " * self.level + text + "\n")

    def write_wrapped(self, text: str) -> None:
        for line in wrap(text, 80 - self.level):
            self.write(line)


def lookup(node: tuple, path: list[str]) -> tuple:
    """field_lookup.go: follow the path; a primitive or arbitrary schema ends it early."""
    shape, schema = node
    if shape in (_PRIMITIVE, _ARBITRARY):
        return node
    if not path:
        return node
    if shape == _KIND:
        fields = schema.get("properties") or {}
        if path[0] not in fields:
            raise RawError(f'error: field "{path[0]}" does not exist')
        return lookup(parse(fields[path[0]]), path[1:])
    return lookup(_sub(node), path)


def _regular_fields(node: tuple, w: _Formatter) -> None:
    shape, schema = node
    if shape in (_ARRAY, _MAP, _REF):
        _regular_fields(_sub(node), w)
    elif shape == _KIND:
        fields = schema.get("properties") or {}
        for key in sorted(fields):
            field = parse(fields[key])
            required = " -required-" if key in (schema.get("required") or ()) else ""
            w.write(f"{key}\t<{type_name(field)}>{required}")
            w.indent(2).write_wrapped(fields[key].get("description") or "")
            w.write("")


def _recursive_fields(node: tuple, w: _Formatter, visiting: set) -> None:
    shape, schema = node
    if shape in (_ARRAY, _MAP):
        _recursive_fields(_sub(node), w, visiting)
    elif shape == _REF:
        ref = schema["$ref"]
        if ref in visiting:
            return
        _recursive_fields(_sub(node), w, visiting | {ref})
    elif shape == _KIND:
        fields = schema.get("properties") or {}
        for key in sorted(fields):
            field = parse(fields[key])
            w.write(f"{key}\t<{type_name(field)}>")
            _recursive_fields(field, w.indent(3), visiting)


def render(gvk: tuple[str, str, str], path: list[str], recursive: bool) -> str:
    """What ``kubectl explain --output=plaintext-openapiv2`` prints for a kind's field path."""
    group, version, kind = gvk
    want = {"group": group, "version": version, "kind": kind}
    definitions = openapi.definitions_v2()
    model = None
    for name in sorted(definitions):
        if want in (definitions[name].get("x-kubernetes-group-version-kind") or ()):
            model = definitions[name]
    if model is None:
        raise RawError(f'error: couldn\'t find resource for "{group}/{version}, Kind={kind}"')
    node = lookup(parse(model), path)
    name = path[-1] if path else ""
    out: list[str] = []
    w = _Formatter(out)
    descriptions: list[str] = []
    kind_type = ""
    while True:
        shape, schema = node
        if shape in (_ARRAY, _MAP, _REF):
            descriptions.append(schema.get("description") or "")
            if shape != _REF and not kind_type:
                kind_type = type_name(node)
            node = _sub(node)
            continue
        break
    shape, schema = node
    w.write(f"KIND:     {kind}")
    w.write(f"VERSION:  {group + '/' if group else ''}{version}\n")
    if shape == _KIND:
        kind_type = kind_type or "Object"
        if name:
            w.write(f"RESOURCE: {name} <{kind_type}>\n")
        _description(w, descriptions + [schema.get("description") or ""])
        w.write("\nFIELDS:")
        fields = w.indent(3)
        if recursive:
            _recursive_fields(node, fields, set())
        else:
            _regular_fields(node, fields)
    elif shape == _PRIMITIVE:
        kind_type = kind_type or type_name(node)
        w.write(f"FIELD:    {name} <{kind_type}>\n")
        _description(w, descriptions + [schema.get("description") or ""])
    else:
        _description(w, descriptions + [schema.get("description") or ""])
    return "".join(out)


def _description(w: _Formatter, descriptions: list[str]) -> None:
    """model_printer.go's PrintDescription: each non-empty description, a blank line before
    every one but the first of the list."""
    w.write("DESCRIPTION:")
    empty = True
    for i, text in enumerate(descriptions):
        if not text:
            continue
        empty = False
        if i != 0:
            w.write("")
        w.indent(5).write_wrapped(text)
    if empty:
        w.indent(5).write_wrapped("<empty>")
