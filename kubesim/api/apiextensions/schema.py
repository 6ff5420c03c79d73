"""Structural schemas: what a CRD's openAPIV3Schema does to the custom resources it serves.

Upstream (k8s.io/apiextensions-apiserver):

- pkg/apiserver/schema/validation.go ``ValidateStructural``: the structural invariants a CRD's
  schema must keep (a type everywhere, ``items`` for arrays, an object at the root, metadata
  restricted to name and generateName) - errors sorted by their text, as upstream sorts them;
- pkg/apiserver/schema/pruning/algorithm.go ``PruneWithOptions``: fields the schema does not
  specify are dropped (kept under ``x-kubernetes-preserve-unknown-fields``; ``apiVersion``,
  ``kind`` and ``metadata`` kept at the root and in ``x-kubernetes-embedded-resource`` objects);
  the pruned paths are what a strict request is refused with (``unknown field "spec.x"``);
- pkg/apiserver/schema/defaulting/algorithm.go ``Default`` and ``PruneNonNullableNullsWithoutDefaults``:
  a missing field with a ``default`` gets it, a ``null`` where the schema is not nullable is
  dropped (or defaulted);
- pkg/apiserver/validation/validation.go ``ValidateCustomResource`` on k8s.io/kube-openapi
  pkg/validation/validate (type, enum, pattern, minimum/maximum with exclusivity, multipleOf,
  min/maxLength, min/maxItems, min/maxProperties, required) and its conversion to field errors
  (``Too long``, ``Too many``, ``Unsupported value``); the texts were checked against a v1.35
  API server. kube-openapi walks properties in Go map order, so a real server lists several
  errors in a random order; kubesim lists them in the schema's property order, sorted.

``x-kubernetes-validations`` (CEL rules) are accepted on a CRD and not evaluated (README).
"""

from __future__ import annotations

import copy
import re

from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

OPENAPI_V3_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS = ("apiVersion", "kind", "metadata")


# -- the CRD's schema ----------------------------------------------------------------------

def _key(path: str, k: str) -> str:
    return f"{path}.properties[{k}]"


def validate_structural(schema: dict, path: str) -> list[FieldError]:
    """ValidateStructural's invariants (the usual ones), sorted by their text."""
    errs = _invariants(schema, "root", path)
    errs.sort(key=str)
    return errs


def _invariants(s, lvl: str, path: str) -> list[FieldError]:
    if not isinstance(s, dict):
        return []
    errs: list[FieldError] = []
    t = s.get("type") or ""
    if t == "array" and s.get("items") is None:
        errs.append(required(f"{path}.items", "must be specified"))
    if isinstance(s.get("items"), dict):
        errs.extend(_invariants(s["items"], "item", f"{path}.items"))
    for k, v in (s.get("properties") or {}).items():
        errs.extend(_invariants(v, "field", _key(path, k)))
    ap = s.get("additionalProperties")
    if ap is not None and ap is not True and ap is not False:
        if lvl == "root":
            errs.append(forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        errs.extend(_invariants(ap, "field", f"{path}.additionalProperties"))
    embedded = bool(s.get("x-kubernetes-embedded-resource"))
    preserve = bool(s.get("x-kubernetes-preserve-unknown-fields"))
    int_or_string = bool(s.get("x-kubernetes-int-or-string"))
    if embedded and t != "object":
        if not t:
            errs.append(required(f"{path}.type", "must be object if x-kubernetes-embedded-resource is true"))
        else:
            errs.append(invalid(f"{path}.type", t, "must be object if x-kubernetes-embedded-resource is true"))
    elif not t and not int_or_string and not preserve:
        detail = {"root": "must not be empty at the root", "item": "must not be empty for specified array items",
                  "field": "must not be empty for specified object fields"}[lvl]
        errs.append(required(f"{path}.type", detail))
    if lvl == "root" and t and t != "object":
        errs.append(invalid(f"{path}.type", t, "must be object at the root"))
    if int_or_string and preserve:
        errs.append(invalid(f"{path}.x-kubernetes-preserve-unknown-fields", True,
                            "must be false if x-kubernetes-int-or-string is true"))
    props = s.get("properties") or {}
    if lvl == "root" or embedded:
        for meta in ("kind", "apiVersion"):
            if meta in props and (props[meta] or {}).get("type") != "string":
                errs.append(invalid(f"{_key(path, meta)}.type", (props[meta] or {}).get("type") or "", "must be string"))
    if "metadata" in props:
        m = props["metadata"] or {}
        mpath = _key(path, "metadata")
        if (lvl == "root" or embedded) and m.get("type") != "object":
            errs.append(invalid(f"{mpath}.type", m.get("type") or "", "must be object"))
        if lvl == "root":
            rest = {k: v for k, v in m.items() if k not in ("type", "default")}
            mprops = rest.pop("properties", None) or {}
            if set(mprops) - {"name", "generateName"} or rest:
                errs.append(forbidden(mpath, "must not specify anything other than name and generateName, "
                                             "but metadata is implicitly specified"))
    if embedded and not preserve and not props:
        errs.append(required(f"{path}.properties", "must not be empty if x-kubernetes-embedded-resource is true "
                                                   "without x-kubernetes-preserve-unknown-fields"))
    return errs


def validate_openapi_schema(s, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionOpenAPISchema's per-node checks (specStandardValidatorV3),
    depth first: properties in the order given, then items, then additionalProperties."""
    if not isinstance(s, dict):
        return []
    errs: list[FieldError] = []
    for k, v in (s.get("properties") or {}).items():
        errs.extend(validate_openapi_schema(v, _key(path, k)))
    if isinstance(s.get("items"), dict):
        errs.extend(validate_openapi_schema(s["items"], f"{path}.items"))
    elif isinstance(s.get("items"), list):
        errs.append(forbidden(f"{path}.items", "items must be a schema object and not an array"))
    if isinstance(s.get("additionalProperties"), dict):
        errs.extend(validate_openapi_schema(s["additionalProperties"], f"{path}.additionalProperties"))
    if s.get("additionalProperties") is not None and s.get("properties"):
        errs.append(forbidden(f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"))
    t = s.get("type") or ""
    if t and t not in OPENAPI_V3_TYPES:
        if t == "null":
            errs.append(forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
        else:
            errs.append(unsupported(f"{path}.type", t, list(OPENAPI_V3_TYPES)))
    for key, what in (("id", "id"), ("additionalItems", "additionalItems"), ("patternProperties", "patternProperties"),
                      ("definitions", "definitions"), ("dependencies", "dependencies"), ("$ref", "$ref")):
        if s.get(key):
            errs.append(forbidden(f"{path}.{key}", f"{what} is not supported"))
    if s.get("pattern") is not None:
        try:
            re.compile(str(s["pattern"]))
        except re.error as e:
            errs.append(invalid(f"{path}.pattern", s["pattern"], f"must be a valid regular expression, but isn't: {e}"))
    return errs


def validate_defaults(schema: dict, path: str) -> list[FieldError]:
    """ValidateDefaults: each ``default`` validated by its own schema, at ``<path>.default``."""
    errs: list[FieldError] = []

    def walk(s, p: str) -> None:
        if not isinstance(s, dict):
            return
        if "default" in s:
            # the default is validated on its own, as a document: its fields' paths start empty
            sub: list[FieldError] = []
            _validate_value(copy.deepcopy(s["default"]), s, "", sub)
            for e in sub:
                errs.append(FieldError(f"{p}.default" + (f".{e.field}" if e.field else ""), e.type, e.detail,
                                       e.value, e.has_value))
        for k, v in (s.get("properties") or {}).items():
            walk(v, _key(p, k))
        if isinstance(s.get("items"), dict):
            walk(s["items"], f"{p}.items")
        if isinstance(s.get("additionalProperties"), dict):
            walk(s["additionalProperties"], f"{p}.additionalProperties")

    walk(schema, path)
    return errs


# -- custom resources ------------------------------------------------------------------------

def _json_type(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def unknown_fields(obj: dict, schema: dict) -> list[str]:
    """The paths pruning would drop from ``obj`` (sorted, as the strict decoder lists them)."""
    out: list[str] = []
    _prune(copy.deepcopy(obj), schema, True, "", out)
    return sorted(out)


def prune(obj: dict, schema: dict) -> list[str]:
    """Drop, in place, what ``schema`` does not specify; the dropped paths."""
    out: list[str] = []
    _prune(obj, schema, True, "", out)
    return out


def _join(path: str, k: str) -> str:
    return f"{path}.{k}" if path else k


def _prune(x, s, is_resource: bool, path: str, out: list[str]) -> None:
    if not isinstance(s, dict):
        s = {}
    if isinstance(x, dict):
        preserve = bool(s.get("x-kubernetes-preserve-unknown-fields"))
        props = s.get("properties") or {}
        ap = s.get("additionalProperties")
        for k in list(x):
            if is_resource and k in _META_FIELDS:
                continue  # ObjectMeta and the type fields: the typed decoder's business
            if k in props:
                _prune(x[k], props[k], bool((props[k] or {}).get("x-kubernetes-embedded-resource")), _join(path, k), out)
            elif isinstance(ap, dict):
                _prune(x[k], ap, bool(ap.get("x-kubernetes-embedded-resource")), _join(path, k), out)
            elif ap is True or preserve:
                continue
            else:
                out.append(_join(path, k))
                del x[k]
    elif isinstance(x, list):
        items = s.get("items") if isinstance(s.get("items"), dict) else {}
        for i, v in enumerate(x):
            _prune(v, items, bool(items.get("x-kubernetes-embedded-resource")), f"{path}[{i}]", out)


def default(obj, schema: dict) -> None:
    """Default, in place: missing fields that have a default get it; a null that its schema
    does not allow is dropped, or defaulted."""
    _default(obj, schema)


def _default(x, s) -> None:
    if not isinstance(s, dict):
        return
    if isinstance(x, dict):
        props = s.get("properties") or {}
        for k, p in props.items():
            if not isinstance(p, dict):
                continue
            if k in x and x[k] is None and not p.get("nullable"):
                if "default" in p:
                    x[k] = copy.deepcopy(p["default"])
                else:
                    del x[k]
            elif k not in x and "default" in p:
                x[k] = copy.deepcopy(p["default"])
        ap = s.get("additionalProperties")
        for k, v in list(x.items()):
            if k in props:
                _default(v, props[k])
            elif isinstance(ap, dict):
                if v is None and not ap.get("nullable"):
                    if "default" in ap:
                        x[k] = copy.deepcopy(ap["default"])
                    else:
                        del x[k]
                    continue
                _default(v, ap)
    elif isinstance(x, list) and isinstance(s.get("items"), dict):
        items = s["items"]
        for i, v in enumerate(x):
            if v is None and not items.get("nullable") and "default" in items:
                x[i] = copy.deepcopy(items["default"])
            else:
                _default(v, items)


def validate_custom_resource(obj: dict, schema: dict | None, namespaced: bool, meta: bool = True) -> list[FieldError]:
    """The strategy's Validate: ObjectMeta (a DNS-subdomain name), then the schema's verdict."""
    errs: list[FieldError] = []
    if meta:
        from kubesim.api.meta.validation import (
            name_is_dns_subdomain,
            validate_object_meta,
        )

        errs.extend(validate_object_meta(obj.get("metadata") or {}, namespaced, name_is_dns_subdomain))
    if schema is None:
        return errs
    body = {k: v for k, v in obj.items() if k not in _META_FIELDS}
    root = {k: v for k, v in schema.items() if k != "properties"}
    root["properties"] = {k: v for k, v in (schema.get("properties") or {}).items() if k not in _META_FIELDS}
    root.pop("required", None)
    required_top = [r for r in schema.get("required") or () if r not in _META_FIELDS]
    found: list[FieldError] = []
    for r in required_top:
        if r not in body:
            found.append(required(r, ""))
    _validate_value(body, root, "", found)
    _list_sets_and_maps(body, root, "", found)
    return errs + found


def _list_sets_and_maps(v, s, path: str, errs: list[FieldError]) -> None:
    """pkg/apiserver/schema/listtype ValidateListSetsAndMaps: no item twice in an
    ``x-kubernetes-list-type: set``, no key twice in a ``map`` (the later one is reported)."""
    from kubesim.api.gojson import GoJSON
    from kubesim.errors import duplicate

    if not isinstance(s, dict):
        return
    if isinstance(v, list):
        items = s.get("items") if isinstance(s.get("items"), dict) else {}
        kind = s.get("x-kubernetes-list-type")
        seen: list = []
        for i, item in enumerate(v):
            if kind == "set":
                if item in seen:
                    errs.append(duplicate(f"{path}[{i}]", item if isinstance(item, (str, int, float, bool))
                                          else GoJSON(item)))
                seen.append(item)
            elif kind == "map" and isinstance(item, dict):
                key = {k: item.get(k) for k in s.get("x-kubernetes-list-map-keys") or () if k in item}
                if key in seen:
                    errs.append(duplicate(f"{path}[{i}]", GoJSON(key)))
                seen.append(key)
            _list_sets_and_maps(item, items, f"{path}[{i}]", errs)
    elif isinstance(v, dict):
        props = s.get("properties") or {}
        ap = s.get("additionalProperties")
        for k in sorted(v):
            if k in props:
                _list_sets_and_maps(v[k], props[k], _join(path, k), errs)
            elif isinstance(ap, dict):
                _list_sets_and_maps(v[k], ap, _join(path, k), errs)


class _Raw:
    """A value printed as it is (a number as %v prints it), not quoted."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text


def _num(v) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def _matches_type(v, t: str) -> bool:
    jt = _json_type(v)
    if t == "number":
        return jt in ("integer", "number")
    return jt == t


def _validate_value(v, s, path: str, errs: list[FieldError]) -> None:
    if not isinstance(s, dict):
        return
    if v is None:
        if not (s.get("nullable") or s.get("x-kubernetes-preserve-unknown-fields") and not s.get("type")):
            if s.get("type"):
                errs.append(invalid(path, "null", f"{path} in body must be of type {s['type']}: \"null\""))
            return
        # a null the schema allows still meets its enum (kube-openapi's enum validator)
        if s.get("enum") is not None and None not in s["enum"]:
            errs.append(FieldError(path, "Unsupported value",
                                   "supported values: " + ", ".join(_enum_text(e) for e in s["enum"]), None, True))
        return
    t = s.get("type") or ""
    if s.get("x-kubernetes-int-or-string"):
        if _json_type(v) not in ("integer", "string"):
            jt = _json_type(v)
            errs.append(invalid(path, jt, f"{path} in body must be of type integer,string: \"{jt}\""))
            return
    elif t and not _matches_type(v, t):
        jt = _json_type(v)
        errs.append(invalid(path, jt, f"{path} in body must be of type {t}: \"{jt}\""))
        return
    enum = s.get("enum")
    if enum is not None and v not in enum:
        errs.append(FieldError(path, "Unsupported value", "supported values: " + ", ".join(_enum_text(e) for e in enum),
                               v, True))
    if isinstance(v, str):
        if s.get("maxLength") is not None and len(v) > int(s["maxLength"]):
            n = int(s["maxLength"])
            errs.append(FieldError(path, "Too long", f"may not be more than {n} {'byte' if n == 1 else 'bytes'}"))
        if s.get("minLength") is not None and len(v) < int(s["minLength"]):
            errs.append(invalid(path, v, f"{path} in body should be at least {int(s['minLength'])} chars long"))
        if s.get("pattern") is not None:
            try:
                if not re.search(str(s["pattern"]), v):
                    errs.append(invalid(path, v, f"{path} in body should match '{s['pattern']}'"))
            except re.error:
                pass
    if _json_type(v) in ("integer", "number"):
        shown = _Raw(_num(v))
        if s.get("multipleOf") is not None:
            m = s["multipleOf"]
            if m <= 0:
                errs.append(invalid(path, shown, f"factor MultipleOf declared for {path} must be positive: {_num(m)}"))
            elif abs((v / m) - round(v / m)) > 1e-9:
                errs.append(invalid(path, shown, f"{path} in body should be a multiple of {_num(m)}"))
        if s.get("maximum") is not None:
            mx = s["maximum"]
            if s.get("exclusiveMaximum") and v >= mx:
                errs.append(invalid(path, shown, f"{path} in body should be less than {_num(mx)}"))
            elif v > mx:
                errs.append(invalid(path, shown, f"{path} in body should be less than or equal to {_num(mx)}"))
        if s.get("minimum") is not None:
            mn = s["minimum"]
            if s.get("exclusiveMinimum") and v <= mn:
                errs.append(invalid(path, shown, f"{path} in body should be greater than {_num(mn)}"))
            elif v < mn:
                errs.append(invalid(path, shown, f"{path} in body should be greater than or equal to {_num(mn)}"))
    if isinstance(v, list):
        if s.get("maxItems") is not None and len(v) > int(s["maxItems"]):
            n = int(s["maxItems"])
            errs.append(FieldError(path, "Too many", f"must have at most {n} {'item' if n == 1 else 'items'}",
                                   len(v), True))
        if s.get("minItems") is not None and len(v) < int(s["minItems"]):
            errs.append(invalid(path, len(v), f"{path} in body should have at least {int(s['minItems'])} items"))
        items = s.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(v):
                _validate_value(item, items, f"{path}[{i}]", errs)
    if isinstance(v, dict):
        if s.get("maxProperties") is not None and len(v) > int(s["maxProperties"]):
            n = int(s["maxProperties"])
            errs.append(FieldError(path, "Too many", f"must have at most {n} {'item' if n == 1 else 'items'}",
                                   len(v), True))
        if s.get("minProperties") is not None and len(v) < int(s["minProperties"]):
            errs.append(invalid(path, len(v), f"{path} in body should have at least {int(s['minProperties'])} properties"))
        for r in s.get("required") or ():
            if r not in v:
                errs.append(required(_join(path, r), ""))
        props = s.get("properties") or {}
        ap = s.get("additionalProperties")
        for k in sorted(v):
            if k in props:
                _validate_value(v[k], props[k], _join(path, k), errs)
            elif isinstance(ap, dict):
                _validate_value(v[k], ap, _join(path, k), errs)


def _enum_text(e) -> str:
    if isinstance(e, str):
        return '"' + e + '"'
    if isinstance(e, bool):
        return "true" if e else "false"
    return _num(e)


def validate_status(status, schema: dict) -> list[FieldError]:
    """ValidateCustomResourceUpdate(field.NewPath("status"), ...) with the status schema: field
    paths under ``status``, messages naming fields from the status down."""
    found: list[FieldError] = []
    _validate_value(status, schema, "", found)
    _list_sets_and_maps(status, schema, "", found)
    return [FieldError("status" + (f".{e.field}" if e.field and not e.field.startswith("[") else e.field),
                       e.type, e.detail, e.value, e.has_value) for e in found]


_GO_TYPES = {str: "string", bool: "bool", float: "float64", dict: "map[string]interface {}",
             list: "[]interface {}"}


def validate_scale(obj: dict, scale: dict | None, spec: bool = True) -> list[FieldError]:
    """validator.go ValidateScaleSpec and ValidateScaleStatus: the replicas at the scale
    subresource's paths are non-negative int32s when present (unstructured.NestedInt64)."""
    if scale is None:
        return []
    errs: list[FieldError] = []
    for key, wanted in (("specReplicasPath", spec), ("statusReplicasPath", True)):
        path = str(scale.get(key) or "")
        if not wanted or not path:
            continue
        cur = obj
        for part in path.lstrip(".").split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if cur is None:
            continue
        if isinstance(cur, bool) or not isinstance(cur, int):
            from kubesim.api.gofmt import go_sprint

            shown = cur if isinstance(cur, str) else go_sprint(cur)
            errs.append(invalid(path, _Raw("0"), f"{path} accessor error: {shown} is of the type "
                                                 f"{_GO_TYPES.get(type(cur), type(cur).__name__)}, expected int64"))
        elif cur < 0:
            errs.append(invalid(path, _Raw(str(cur)), "should be a non-negative integer"))
        elif cur > 2147483647:
            errs.append(invalid(path, _Raw(str(cur)), "should be less than or equal to 2147483647"))
    return errs
