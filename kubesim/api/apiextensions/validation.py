"""Validation of CustomResourceDefinitions.

Upstream: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
(``ValidateCustomResourceDefinition``, ``validateCustomResourceDefinitionSpec``,
``ValidateCustomResourceDefinitionNames``, ``ValidateCustomResourceColumnDefinition``,
``ValidateCustomResourceDefinitionStoredVersions``, ``validateCustomResourceDefinitionValidation``,
``validateCustomResourceDefinitionSpecUpdate``). Validation runs on the internal object, which
pkg/apis/apiextensions/v1/conversion.go makes from v1: ``spec.version`` is ``versions[0].name``,
and a schema (subresources, printer columns) identical in every version moves to the top level
(``spec.validation``, ...), which is where its errors are reported. The structural checks are
``kubesim.api.apiextensions.schema``'s. CEL rules (``x-kubernetes-validations``) are accepted
without being compiled.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_json
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    is_dns1123_subdomain,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.api.networking.validation import is_dns1035_label
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

PRINTER_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
PRINTER_COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")


def _d(v) -> dict:
    return v if isinstance(v, dict) else {}


def _l(v) -> list:
    return v if isinstance(v, list) else []


class _Internal:
    """The internal spec's view of a v1 spec (Convert_v1_CustomResourceDefinitionSpec_To_...)."""

    def __init__(self, spec: dict):
        self.versions = [_d(v) for v in _l(spec.get("versions"))]
        self.versions_nil = spec.get("versions") is None
        self.version = self.versions[0].get("name", "") if self.versions else ""
        self.validation = self.subresources = self.columns = None
        self.per_version_schema = self.per_version_subresources = self.per_version_columns = True
        if self.versions:
            first = self.versions[0]
            if all(v.get("schema") == first.get("schema") for v in self.versions):
                self.validation, self.per_version_schema = first.get("schema"), False
            if all(v.get("subresources") == first.get("subresources") for v in self.versions):
                self.subresources, self.per_version_subresources = first.get("subresources"), False
            if all(v.get("additionalPrinterColumns") == first.get("additionalPrinterColumns") for v in self.versions):
                self.columns, self.per_version_columns = first.get("additionalPrinterColumns"), False

    def schema_of(self, v: dict):
        return v.get("schema") if self.per_version_schema else None

    def subresources_of(self, v: dict):
        return v.get("subresources") if self.per_version_subresources else None

    def columns_of(self, v: dict):
        return v.get("additionalPrinterColumns") if self.per_version_columns else None

    def status_enabled(self, v: dict) -> bool:
        sub = self.subresources_of(v) if self.per_version_subresources else self.subresources
        return isinstance(sub, dict) and sub.get("status") is not None

    def any_status(self) -> bool:
        return any(self.status_enabled(v) for v in self.versions) or \
            (isinstance(self.subresources, dict) and self.subresources.get("status") is not None)

    def go_versions(self) -> GoJSON:
        """json.Marshal of the internal ``[]CustomResourceDefinitionVersion`` (what an
        ``Invalid value`` of ``spec.versions`` prints)."""
        items = []
        for v in self.versions:
            schema = self.schema_of(v)
            items.append({
                "Name": v.get("name", ""), "Served": bool(v.get("served")), "Storage": bool(v.get("storage")),
                "Deprecated": bool(v.get("deprecated")), "DeprecationWarning": v.get("deprecationWarning"),
                "Schema": None if schema is None else {"OpenAPIV3Schema": _go_schema(_d(schema).get("openAPIV3Schema"))},
                "Subresources": _go_subresources(self.subresources_of(v)),
                "AdditionalPrinterColumns": _go_columns(self.columns_of(v)),
                "SelectableFields": _go_selectable(v.get("selectableFields")),
            })
        return _Text(go_json(None if self.versions_nil else items, sort_keys=False))


class _Text(GoJSON):
    def __init__(self, text: str):
        self.text = text


_SCHEMA_FIELDS = (
    ("ID", "id", ""), ("Schema", "$schema", ""), ("Ref", "$ref", None), ("Description", "description", ""),
    ("Type", "type", ""), ("Nullable", "nullable", False), ("Format", "format", ""), ("Title", "title", ""),
    ("Default", "default", None), ("Maximum", "maximum", None), ("ExclusiveMaximum", "exclusiveMaximum", False),
    ("Minimum", "minimum", None), ("ExclusiveMinimum", "exclusiveMinimum", False), ("MaxLength", "maxLength", None),
    ("MinLength", "minLength", None), ("Pattern", "pattern", ""), ("MaxItems", "maxItems", None),
    ("MinItems", "minItems", None), ("UniqueItems", "uniqueItems", False), ("MultipleOf", "multipleOf", None),
    ("Enum", "enum", None), ("MaxProperties", "maxProperties", None), ("MinProperties", "minProperties", None),
    ("Required", "required", None), ("Items", "items", None), ("AllOf", "allOf", None), ("OneOf", "oneOf", None),
    ("AnyOf", "anyOf", None), ("Not", "not", None), ("Properties", "properties", None),
    ("AdditionalProperties", "additionalProperties", None), ("PatternProperties", "patternProperties", None),
    ("Dependencies", "dependencies", None), ("AdditionalItems", "additionalItems", None),
    ("Definitions", "definitions", None), ("ExternalDocs", "externalDocs", None), ("Example", "example", None),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields", None),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource", False),
    ("XIntOrString", "x-kubernetes-int-or-string", False), ("XListMapKeys", "x-kubernetes-list-map-keys", None),
    ("XListType", "x-kubernetes-list-type", None), ("XMapType", "x-kubernetes-map-type", None),
    ("XValidations", "x-kubernetes-validations", None),
)


def _go_schema(s):
    if not isinstance(s, dict):
        return None
    out = {}
    for go, key, zero in _SCHEMA_FIELDS:
        v = s.get(key, zero)
        if key in ("properties", "definitions", "patternProperties") and isinstance(v, dict):
            v = {k: _go_schema(v[k]) for k in sorted(v)}
        elif key in ("allOf", "oneOf", "anyOf") and isinstance(v, list):
            v = [_go_schema(x) for x in v]
        elif key == "not":
            v = _go_schema(v)
        elif key in ("items", "additionalItems") and v is not None:
            v = {"Schema": _go_schema(v), "JSONSchemas": None} if isinstance(v, dict) else \
                {"Schema": None, "JSONSchemas": [_go_schema(x) for x in v]} if isinstance(v, list) else v
        elif key == "additionalProperties" and v is not None:
            v = {"Allows": v is not False, "Schema": _go_schema(v) if isinstance(v, dict) else None}
        elif key == "x-kubernetes-validations" and isinstance(v, list):
            v = [{"Rule": r.get("rule", ""), "Message": r.get("message", ""),
                  "MessageExpression": r.get("messageExpression", ""), "Reason": r.get("reason"),
                  "FieldPath": r.get("fieldPath", ""), "OptionalOldSelf": r.get("optionalOldSelf")}
                 for r in v if isinstance(r, dict)]
        elif key == "externalDocs" and isinstance(v, dict):
            v = {"Description": v.get("description", ""), "URL": v.get("url", "")}
        if isinstance(zero, bool):
            v = bool(v)
        out[go] = v
    return out


def _go_subresources(sub):
    if not isinstance(sub, dict):
        return None
    scale = sub.get("scale")
    return {"Status": {} if sub.get("status") is not None else None,
            "Scale": None if not isinstance(scale, dict) else {
                "SpecReplicasPath": scale.get("specReplicasPath", ""),
                "StatusReplicasPath": scale.get("statusReplicasPath", ""),
                "LabelSelectorPath": scale.get("labelSelectorPath")}}


def _go_columns(cols):
    if not isinstance(cols, list):
        return None
    return [{"Name": c.get("name", ""), "Type": c.get("type", ""), "Format": c.get("format", ""),
             "Description": c.get("description", ""), "Priority": c.get("priority", 0),
             "JSONPath": c.get("jsonPath", "")} for c in cols if isinstance(c, dict)]


def _go_selectable(fields):
    if not isinstance(fields, list):
        return None
    return [{"JSONPath": f.get("jsonPath", "")} for f in fields if isinstance(f, dict)]


def _crd_name_fn(spec: dict):
    names = _d(spec.get("names"))
    wanted = f"{names.get('plural', '')}.{spec.get('group', '')}"

    def fn(name: str, prefix: bool) -> list[str]:
        errs = name_is_dns_subdomain(name, prefix)
        if name != wanted:
            errs = errs + ['must be spec.names.plural+"."+spec.group']
        return errs
    return fn


def validate_custom_resource_definition(obj: dict) -> list[FieldError]:
    """ValidateCustomResourceDefinition."""
    spec = _d(obj.get("spec"))
    errs = validate_object_meta(obj.get("metadata") or {}, False, _crd_name_fn(spec))
    errs += _validate_spec(spec)
    errs += _validate_stored_versions(obj, spec)
    return errs


def validate_custom_resource_definition_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateCustomResourceDefinitionUpdate: names immutable once Established, group and
    plural always."""
    from kubesim.api.apiextensions.helpers import ESTABLISHED, is_condition_true

    spec, old_spec = _d(new.get("spec")), _d(old.get("spec"))
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += _validate_spec(spec)
    if is_condition_true(old, ESTABLISHED):
        if spec.get("scope") != old_spec.get("scope"):
            errs.append(invalid("spec.scope", spec.get("scope", ""), FIELD_IMMUTABLE_ERROR))
        if _d(spec.get("names")).get("kind") != _d(old_spec.get("names")).get("kind"):
            errs.append(invalid("spec.names.kind", _d(spec.get("names")).get("kind", ""), FIELD_IMMUTABLE_ERROR))
    if spec.get("group") != old_spec.get("group"):
        errs.append(invalid("spec.group", spec.get("group", ""), FIELD_IMMUTABLE_ERROR))
    if _d(spec.get("names")).get("plural") != _d(old_spec.get("names")).get("plural"):
        errs.append(invalid("spec.names.plural", _d(spec.get("names")).get("plural", ""), FIELD_IMMUTABLE_ERROR))
    errs += _validate_stored_versions(new, spec)
    return errs


def _validate_stored_versions(obj: dict, spec: dict) -> list[FieldError]:
    stored = _l(_d(obj.get("status")).get("storedVersions")) or None
    path = "status.storedVersions"
    if not stored:
        return [invalid(path, None, "must have at least one stored version")]
    errs = []
    remaining = {v: i for i, v in enumerate(stored)}
    for v in _l(spec.get("versions")):
        name = _d(v).get("name", "")
        if _d(v).get("storage") and name not in remaining:
            errs.append(invalid(path, GoJSON(stored), "must have the storage version " + name))
        remaining.pop(name, None)
    for v, i in remaining.items():
        errs.append(invalid(f"{path}[{i}]", v, f"missing from spec.versions; {v} was previously a storage version, "
                            f"and must remain in spec.versions until a storage migration ensures no data remains "
                            f"persisted in {v} and removes {v} from status.storedVersions"))
    return errs


def _validate_spec(spec: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    internal = _Internal(spec)
    group = spec.get("group") or ""
    if not group:
        errs.append(required("spec.group", ""))
    elif bad := is_dns1123_subdomain(group):
        errs.append(invalid("spec.group", group, ",".join(bad)))
    elif len(group.split(".")) < 2:
        errs.append(invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope") or ""
    if not scope:
        errs.append(required("spec.scope", ""))
    elif scope not in ("Cluster", "Namespaced"):
        errs.append(unsupported("spec.scope", scope, ["Cluster", "Namespaced"]))
    if internal.validation is None or _d(internal.validation).get("openAPIV3Schema") is None:
        for i, v in enumerate(internal.versions):
            if _d(v.get("schema")).get("openAPIV3Schema") is None:
                errs.append(required(f"spec.versions[{i}].schema.openAPIV3Schema", ""))
    preserve = spec.get("preserveUnknownFields")
    if preserve and _has_defaults(spec):
        errs.append(invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))
    storage_count, seen, unique = 0, set(), True
    for i, v in enumerate(internal.versions):
        if v.get("storage"):
            storage_count += 1
        name = v.get("name") or ""
        if name in seen:
            unique = False
        seen.add(name)
        if bad := is_dns1035_label(name):
            errs.append(invalid(f"spec.versions[{i}].name", name, ",".join(bad)))
        errs += _validate_version(v, f"spec.versions[{i}]", internal)
    if not unique:
        errs.append(invalid("spec.versions", internal.go_versions(), "must contain unique version names"))
    if storage_count != 1:
        errs.append(invalid("spec.versions", internal.go_versions(), "must have exactly one version marked as storage version"))
    if internal.version and (bad := is_dns1035_label(internal.version)):
        errs.append(invalid("spec.version", internal.version, ",".join(bad)))
    names = _d(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            errs.append(required(f"spec.names.{key}", ""))
    errs += validate_names(names, "spec.names")
    if internal.validation is not None:
        errs += _validate_validation(internal.validation, "spec.validation", internal.any_status())
    errs += _validate_subresources(internal.subresources, "spec.subresources")
    for i, c in enumerate(_l(internal.columns)):
        errs += validate_column(_d(c), f"spec.additionalPrinterColumns[{i}]")
    conversion = _d(spec.get("conversion"))
    strategy = conversion.get("strategy") or ""
    if conversion:
        if not strategy:
            errs.append(required("spec.conversion.strategy", ""))
        elif strategy not in ("None", "Webhook"):
            errs.append(unsupported("spec.conversion.strategy", strategy, ["None", "Webhook"]))
        if strategy == "Webhook" and not conversion.get("webhook"):
            errs.append(required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"))
    return errs


def _has_defaults(spec: dict) -> bool:
    def has(s) -> bool:
        if not isinstance(s, dict):
            return False
        if "default" in s:
            return True
        return any(has(v) for v in _d(s.get("properties")).values()) or has(s.get("items")) or \
            has(s.get("additionalProperties"))
    return any(has(_d(_d(v).get("schema")).get("openAPIV3Schema")) for v in _l(spec.get("versions")))


def _validate_version(v: dict, path: str, internal: _Internal) -> list[FieldError]:
    errs: list[FieldError] = []
    if not v.get("deprecated") and v.get("deprecationWarning") is not None:
        errs.append(invalid(f"{path}.deprecationWarning", v.get("deprecationWarning"),
                            "can only be set for deprecated versions"))
    schema = internal.schema_of(v)
    if schema is not None:
        errs += _validate_validation(schema, f"{path}.schema", internal.status_enabled(v))
    errs += _validate_subresources(internal.subresources_of(v), f"{path}.subresources")
    for i, c in enumerate(_l(internal.columns_of(v))):
        errs += validate_column(_d(c), f"{path}.additionalPrinterColumns[{i}]")
    return errs


def _validate_validation(validation, path: str, status_enabled: bool) -> list[FieldError]:
    """validateCustomResourceDefinitionValidation (structural: every CRD of apiextensions/v1)."""
    from kubesim.api.apiextensions.schema import (
        validate_defaults,
        validate_openapi_schema,
        validate_structural,
    )

    schema = _d(validation).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return []
    errs: list[FieldError] = []
    spath = f"{path}.openAPIV3Schema"
    if status_enabled and schema.get("type") and schema.get("type") != "object":
        errs.append(invalid(f"{spath}.type", schema.get("type"),
                            'only "object" is allowed as the type at the root of the schema if the status '
                            'subresource is enabled'))
    if schema.get("nullable"):
        errs.append(forbidden(f"{spath}.nullable", "nullable cannot be true at the root"))
    structural = validate_structural(schema, spath)
    if structural:
        errs += structural
    else:
        errs += validate_defaults(schema, spath)
    errs += validate_openapi_schema(schema, spath)
    return errs


def _simple_json_path(p: str, path: str) -> list[FieldError]:
    """validateSimpleJSONPath."""
    if not p:
        return [invalid(path, p, "must not be empty")]
    if not p.startswith("."):
        return [invalid(path, p, "must be a simple json path starting with .")]
    return []


def _validate_subresources(sub, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionSubresources."""
    if not isinstance(sub, dict):
        return []
    errs: list[FieldError] = []
    scale = sub.get("scale")
    if isinstance(scale, dict):
        for key, prefix, detail in (("specReplicasPath", ".spec.", "should be a json path under .spec"),
                                    ("statusReplicasPath", ".status.", "should be a json path under .status")):
            p = scale.get(key) or ""
            if not p:
                errs.append(required(f"{path}.scale.{key}", ""))
            elif bad := _simple_json_path(p, f"{path}.scale.{key}"):
                errs += bad
            elif not p.startswith(prefix):
                errs.append(invalid(f"{path}.scale.{key}", p, detail))
        selector = scale.get("labelSelectorPath") or ""
        if selector:
            if bad := _simple_json_path(selector, f"{path}.scale.labelSelectorPath"):
                errs += bad
            elif not selector.startswith((".spec.", ".status.")):
                errs.append(invalid(f"{path}.scale.labelSelectorPath", selector,
                                    "should be a json path under either .spec or .status"))
    return errs


def validate_names(names: dict, path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionNames."""
    errs: list[FieldError] = []
    for key in ("plural", "singular"):
        v = names.get(key) or ""
        if v and (bad := is_dns1035_label(v)):
            errs.append(invalid(f"{path}.{key}", v, ",".join(bad)))
    for key in ("kind", "listKind"):
        v = names.get(key) or ""
        if v and (bad := is_dns1035_label(v.lower())):
            errs.append(invalid(f"{path}.{key}", v, "may have mixed case, but should otherwise match: " + ",".join(bad)))
    for i, s in enumerate(_l(names.get("shortNames"))):
        if bad := is_dns1035_label(str(s)):
            errs.append(invalid(f"{path}.shortNames[{i}]", s, ",".join(bad)))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        errs.append(invalid(f"{path}.listKind", names.get("listKind"), "kind and listKind may not be the same"))
    for i, c in enumerate(_l(names.get("categories"))):
        if bad := is_dns1035_label(str(c)):
            errs.append(invalid(f"{path}.categories[{i}]", c, ",".join(bad)))
    return errs


def validate_column(col: dict, path: str) -> list[FieldError]:
    """ValidateCustomResourceColumnDefinition."""
    errs: list[FieldError] = []
    if not col.get("name"):
        errs.append(required(f"{path}.name", ""))
    t = col.get("type") or ""
    if not t:
        errs.append(required(f"{path}.type", "must be one of " + ",".join(PRINTER_COLUMN_TYPES)))
    elif t not in PRINTER_COLUMN_TYPES:
        errs.append(invalid(f"{path}.type", t, "must be one of " + ",".join(PRINTER_COLUMN_TYPES)))
    fmt = col.get("format") or ""
    if fmt and fmt not in PRINTER_COLUMN_FORMATS:
        errs.append(invalid(f"{path}.format", fmt, "must be one of " + ",".join(PRINTER_COLUMN_FORMATS)))
    if not col.get("jsonPath"):
        errs.append(required(f"{path}.JSONPath", ""))
    return errs
