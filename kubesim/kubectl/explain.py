"""kubectl explain: a resource's (or field's) documentation from the server's OpenAPI v3 schema.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/explain/explain.go (flags, Validate, the two ways a resource
argument is split, ``--api-version``), pkg/explain/explain.go
(``SplitAndParseResourceRequest[WithMatchingPrefix]``), pkg/explain/v2/explain.go (the
group-version's document or ``couldn't find resource for``) and the template that prints it,
pkg/explain/v2/templates/plaintext.tmpl, with its functions in pkg/explain/v2/funcs.go. Each of
the template's named templates is one function here, in its order: ``output``, ``fieldList``,
``fieldDetail``, ``description``, ``externalDocs``, ``typeGuess``, ``extractEnum``. Text is
wrapped as kubectl's ``wrap`` does (pkg/util/term's word-wrap writer, i.e.
github.com/mitchellh/go-wordwrap v1.0.1: lengths in bytes, breaks only at white space).
"""

from __future__ import annotations

from kubesim.api import openapi
from kubesim.errors import RawError

_GO_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                      "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def wrap(limit: int, text: str) -> str:
    """go-wordwrap's WrapString: break at white space so lines stay within ``limit`` bytes;
    a word longer than the limit stays whole; existing line breaks are kept."""
    out: list[str] = []
    current = 0
    word, space = "", ""
    wlen = slen = 0
    for ch in text:
        n = len(ch.encode())
        if ch == "\n":
            if not word:
                if current + slen <= limit:
                    out.append(space)
            else:
                out.append(space + word)
            word, space, wlen, slen = "", "", 0, 0
            out.append("\n")
            current = 0
        elif ch in _GO_SPACE:
            if not space or word:
                current += slen + wlen
                out.append(space + word)
                word, space, wlen, slen = "", "", 0, 0
            space += ch
            slen += n
        else:
            word += ch
            wlen += n
            if current + slen + wlen > limit and wlen < limit:
                out.append("\n")
                current = 0
                space, slen = "", 0
    if not word:
        if current + slen <= limit:
            out.append(space)
    else:
        out.append(space + word)
    return "".join(out)


def indent(amount: int, text: str) -> str:
    pad = " " * amount
    return pad + text.replace("\n", "\n" + pad)


def _resolve(ref) -> dict | None:
    if not isinstance(ref, str) or not ref:
        return None
    return openapi.schemas().get(ref)


def _is_map(value) -> bool:
    return isinstance(value, dict) and bool(value)


def _additional(schema: dict):
    value = schema.get("additionalProperties")
    return value if _is_map(value) else None


def type_guess(schema: dict) -> str:
    """A short type hint: ``string``, ``Object``, ``[]Container``, ``map[string]string``."""
    if schema.get("items"):
        return "[]" + type_guess(schema["items"])
    if _additional(schema):
        return "map[string]" + type_guess(schema["additionalProperties"])
    if schema.get("allOf") and not schema.get("properties") and len(schema["allOf"]) == 1:
        return type_guess(schema["allOf"][0])
    if schema.get("$ref"):
        ref = schema["$ref"]
        target = _resolve(ref)
        if not target or not target.get("type") or target.get("type") == "object":
            return ref.split("/")[-1].split(".")[-1] or "Object"
        return target["type"]
    kind = schema.get("type")
    return "Object" if kind == "object" or not kind else kind


def _enum_value(value) -> str:
    if value == "":
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def extract_enum(schema: dict, long_view: bool, limit: int, indent_amount: int = 0) -> str:
    values = schema.get("enum")
    if not values:
        return ""
    out = ["ENUM:"] if long_view else ["\n" + " " * indent_amount + "enum: "]
    for i, value in enumerate(values):
        if limit > -1 and i >= limit:
            out.append(", ....")
            break
        if i > 0 and not long_view:
            out.append(", ")
        elif long_view:
            out.append("\n    ")
        out.append(_enum_value(value))
    return "".join(out)


def description(schema: dict) -> str:
    resolved = _resolve(schema.get("$ref")) or schema
    if not resolved:
        return ""
    out = resolved["description"] + "\n" if resolved.get("description") else ""
    for sub in resolved.get("allOf") or ():
        out += description(sub)
    if resolved.get("items"):
        out += description(resolved["items"])
    if _additional(resolved):
        out += description(resolved["additionalProperties"])
    return out


def _external_docs(docs: dict, head: int, body: int, width: int) -> str:
    out = indent(head, "EXTERNAL DOCS:") + "\n"
    if docs.get("description"):
        out += indent(body, wrap(width, docs["description"])) + "\n"
    if docs.get("url"):
        out += indent(body, "URL: " + docs["url"]) + "\n"
    return out


def field_detail(name: str, parent: dict, short: bool, level: int) -> str:
    amount = level * 2
    field = parent["properties"][name]
    out = indent(amount, name) + "\t<" + type_guess(field) + ">"
    if name in (parent.get("required") or ()):
        out += " -required-"
    out += extract_enum(field, False, 4, amount) + "\n"
    if not short:
        out += indent(amount + 2, wrap(78 - amount, field.get("description") or "<no description>")) + "\n"
        if field.get("externalDocs"):
            out += "\n" + _external_docs(field["externalDocs"], amount + 2, amount + 4, 76 - amount)
        out += "\n"
    return out


def field_list(schema: dict, level: int, history: frozenset, recursive: bool) -> str:
    ref = schema.get("$ref") or ""
    if ref and ref in history:
        return ""  # a cycle
    history = history | {ref}
    resolved = _resolve(ref) or schema
    out = []
    properties = resolved.get("properties") or {}
    for name in sorted(properties):
        out.append(field_detail(name, resolved, recursive, level))
        if recursive:
            out.append(field_list(properties[name], level + 1, history, recursive))
    for sub in resolved.get("allOf") or ():
        out.append(field_list(sub, level, history, recursive))
    if resolved.get("items"):
        out.append(field_list(resolved["items"], level, history, recursive))
    if _additional(resolved):
        out.append(field_list(resolved["additionalProperties"], level, history, recursive))
    return "".join(out)


def output(schema: dict, path: list[str], history: frozenset, recursive: bool) -> str:
    """Follow ``path`` down the schema; print the description and fields where it ends, or
    nothing when a field on the way does not exist."""
    ref = schema.get("$ref") or ""
    following = history | {ref}
    resolved = _resolve(ref) or schema
    if not path:
        out = "DESCRIPTION:\n" + indent(4, wrap(76, description(resolved) or "<empty>")) + "\n"
        if resolved.get("externalDocs"):
            out += "\n" + _external_docs(resolved["externalDocs"], 0, 4, 76)
        fields = field_list(resolved, 1, frozenset(), recursive)
        if fields:
            out += "FIELDS:\n" + fields
        return out
    if ref and ref in history:
        return ""
    properties = resolved.get("properties") or {}
    if properties and properties.get(path[0]):
        sub = properties[path[0]]
        out = ""
        if len(path) == 1:
            out = f"FIELD: {path[0]} <{type_guess(sub)}>\n" + extract_enum(sub, True, -1) + "\n\n"
        return out + output(sub, path[1:], frozenset(), recursive)
    if resolved.get("items"):
        return output(resolved["items"], path, following, recursive)
    if _additional(resolved):
        return output(resolved["additionalProperties"], path, following, recursive)
    for sub in resolved.get("allOf") or ():
        found = output(sub, path, following, recursive)
        if found:
            return found
    return ""


def _find_gvk(group: str, version: str, resource: str) -> list | None:
    """The kind the group-version's paths give the resource (the template's search through
    ``paths``), or None."""
    found = openapi.resources(group, version)
    return found.get(resource) if found is not None else None


def _go_gvk(gvk: list) -> str:
    return f"map[group:{gvk[0]} kind:{gvk[2]} version:{gvk[1]}]"


def render(group: str, version: str, resource: str, path: list[str], recursive: bool,
           write) -> None:
    """Write what ``kubectl explain`` prints for a resource of a group-version (plaintext). As
    kubectl's template writes as it goes, the header is out before a missing field's error."""
    if openapi.resources(group, version) is None:
        raise RawError(f'error: couldn\'t find resource for "{group}/{version}, Resource={resource}"')
    gvk = _find_gvk(group, version, resource)
    if gvk is None:
        raise RawError(f"error: GVR ({group}/{version}, Resource={resource}) not found in OpenAPI schema")
    out = (f"GROUP:      {gvk[0]}\n" if gvk[0] else "") + f"KIND:       {gvk[2]}\nVERSION:    {gvk[1]}\n\n"
    schemas = openapi.schemas()
    want = {"group": gvk[0], "version": gvk[1], "kind": gvk[2]}
    for name in sorted(schemas):
        if want in (schemas[name].get("x-kubernetes-group-version-kind") or ()):
            body = output(schemas[name], path, frozenset(), recursive)
            if not body:
                write(out)
                raise RawError(f'error: field "{path[-1]}" does not exist')
            write(out + body + "\n")
            return
    write(out)
    raise RawError(f"error: GVK {_go_gvk(gvk)} not found in OpenAPI schema")


def render_custom(info, path: list[str], recursive: bool, write) -> None:
    """``kubectl explain`` of a custom resource, from its CRD's schema."""
    out = f"GROUP:      {info.group}\nKIND:       {info.kind}\nVERSION:    {info.version}\n\n"
    from kubesim.api.apiextensions.openapi import custom_resource_schema

    body = output(custom_resource_schema(info.crd, info.version), path, frozenset(), recursive)
    if not body:
        write(out)
        raise RawError(f'error: field "{path[-1]}" does not exist')
    write(out + body + "\n")
