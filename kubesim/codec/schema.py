"""Structural validation of manifests, as the API server's strict decoder does it.

kubectl v1.36 sends ``create``/``apply`` requests with ``fieldValidation=Strict`` and leaves
structural checks to the server. The server decodes the JSON body into the typed Go object with
sigs.k8s.io/json (a fork of encoding/json) and reports, in this order of precedence:

1. an error returned by a type's own ``UnmarshalJSON`` (``resource.Quantity``,
   ``intstr.IntOrString``, ``metav1.Time``) - it aborts decoding at once
   (k8s.io/apimachinery ``pkg/api/resource/quantity.go`` ``ParseQuantity``, which is
   ``kubesim.api.quantity``'s);
2. otherwise the *first* JSON type mismatch, as encoding/json's ``UnmarshalTypeError`` prints it:
   ``json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container``
   (``Struct.Field`` where ``Field`` is the dotted JSON path without list indices);
3. otherwise every unknown field, as sigs.k8s.io/json's strict mode names them
   (``unknown field "spec.containers[0].foo"``), joined by ``", "`` after ``strict decoding error: ``
   (k8s.io/apimachinery ``pkg/runtime/serializer/json`` and ``pkg/runtime/error.go``
   ``strictDecodingError``).

The handler wraps that as ``<Kind> in version "<version>" cannot be handled as a <Kind>: <err>``
(k8s.io/apiserver ``pkg/endpoints/handlers/rest.go`` ``transformDecodeError``) and kubectl adds
``error when creating "<file>": `` (k8s.io/kubectl ``pkg/cmd/util/helpers.go`` ``AddSourceToErr``).
kubectl sends the object as ``json.Marshal`` of a map, so the server sees keys in sorted order;
errors are therefore reported in sorted-key depth-first order here too. JSON ``null`` is accepted
anywhere (Go leaves the zero value), and missing ``required`` fields are left to semantic
validation, as on a real server.

The schemas are kubernetes-validate's bundled v1.35 *strict* JSON schemas (``additionalProperties:
false`` everywhere). Loading their 1.5 MB ``_definitions.json`` and importing jsonschema would cost
well over 100 ms per command, so this module:

- compiles, once, a compact schema per kind (the transitive closure of its ``$ref``s, with the Go
  type names needed for messages) and caches it as JSON under ``$XDG_CACHE_HOME/kubesim`` (or
  ``~/.cache/kubesim``; ``$KUBESIM_CACHE_DIR`` overrides), keyed by the kubernetes-validate version
  and the file's size; if no cache directory is writable it keeps the compiled form in memory;
- validates with a small hand-written walker over that compact schema. jsonschema stays the
  reference: ``schema_issues`` reports every violation of the strict schema (types, unknown
  properties, ``required``, ``enum``, string-or-number / int-or-string ``oneOf``s), and the tests
  check that it agrees with jsonschema's Draft 2020-12 validator on a table of manifests.

The package's files are located with ``importlib.util.find_spec`` (which, unlike
``importlib.resources.files``, does not execute kubernetes_validate's ``__init__`` - that imports
jsonschema, PyYAML and more, ~110 ms).

Only kinds that kubesim's registry knows are validated; an unknown (apiVersion, kind) is the
caller's concern and yields no messages here.
"""

from __future__ import annotations

import json
import os

from kubesim.api.gofmt import go_json_kind, go_json_number, go_quote

SCHEMA_SET = "v1.35.0-local-strict"
_FORMAT = 2  # bump when the compact format changes

# Go type names that the JSON schema cannot tell (named string/map types of k8s.io/api).
# Keyed by (definition short name, property) -> type as reflect prints it (pointers are
# dereferenced by encoding/json before it reports, so "*v1.X" prints as "v1.X").
_NAMED_TYPES: dict[tuple[str, str], str] = {
    ("PodSpec", "restartPolicy"): "v1.RestartPolicy",
    ("PodSpec", "dnsPolicy"): "v1.DNSPolicy",
    ("PodSpec", "preemptionPolicy"): "v1.PreemptionPolicy",
    ("PodSpec", "overhead"): "v1.ResourceList",
    ("Container", "imagePullPolicy"): "v1.PullPolicy",
    ("Container", "terminationMessagePolicy"): "v1.TerminationMessagePolicy",
    ("Container", "restartPolicy"): "v1.ContainerRestartPolicy",
    ("EphemeralContainer", "imagePullPolicy"): "v1.PullPolicy",
    ("EphemeralContainer", "terminationMessagePolicy"): "v1.TerminationMessagePolicy",
    ("ContainerPort", "protocol"): "v1.Protocol",
    ("ResourceRequirements", "limits"): "v1.ResourceList",
    ("ResourceRequirements", "requests"): "v1.ResourceList",
    ("VolumeResourceRequirements", "limits"): "v1.ResourceList",
    ("VolumeResourceRequirements", "requests"): "v1.ResourceList",
    ("Toleration", "operator"): "v1.TolerationOperator",
    ("Toleration", "effect"): "v1.TaintEffect",
    ("Taint", "effect"): "v1.TaintEffect",
    ("NodeSelectorRequirement", "operator"): "v1.NodeSelectorOperator",
    ("LabelSelectorRequirement", "operator"): "v1.LabelSelectorOperator",
    ("TopologySpreadConstraint", "whenUnsatisfiable"): "v1.UnsatisfiableConstraintAction",
    ("TopologySpreadConstraint", "nodeAffinityPolicy"): "v1.NodeInclusionPolicy",
    ("TopologySpreadConstraint", "nodeTaintsPolicy"): "v1.NodeInclusionPolicy",
    ("HTTPGetAction", "scheme"): "v1.URIScheme",
    ("VolumeMount", "mountPropagation"): "v1.MountPropagationMode",
    ("Capabilities", "add"): "[]v1.Capability",
    ("Capabilities", "drop"): "[]v1.Capability",
    ("PodSecurityContext", "fsGroupChangePolicy"): "v1.PodFSGroupChangePolicy",
    ("PodStatus", "phase"): "v1.PodPhase",
    ("PodStatus", "qosClass"): "v1.PodQOSClass",
    ("PodCondition", "type"): "v1.PodConditionType",
    ("PodCondition", "status"): "v1.ConditionStatus",
    ("NodeStatus", "phase"): "v1.NodePhase",
    ("NodeStatus", "capacity"): "v1.ResourceList",
    ("NodeStatus", "allocatable"): "v1.ResourceList",
    ("NodeCondition", "type"): "v1.NodeConditionType",
    ("NodeCondition", "status"): "v1.ConditionStatus",
    ("NodeAddress", "type"): "v1.NodeAddressType",
    ("NamespaceSpec", "finalizers"): "[]v1.FinalizerName",
    ("NamespaceStatus", "phase"): "v1.NamespacePhase",
    ("NamespaceCondition", "type"): "v1.NamespaceConditionType",
    ("NamespaceCondition", "status"): "v1.ConditionStatus",
    ("ObjectMeta", "uid"): "types.UID",
    ("OwnerReference", "uid"): "types.UID",
    ("ObjectReference", "uid"): "types.UID",
}

_TIME_DEFS = ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")
_QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INTSTR_DEF = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"

_memo: dict[tuple[str, str], dict | None] = {}
_location: tuple[str, str] | None = None  # (schema dir, cache key)


# ---------------------------------------------------------------------------------------------
# public API


def validate_structure(obj: dict) -> list[str]:
    """The API server's strict-decoding verdict on one manifest, as human-readable messages.

    Returns ``[]`` when the object decodes cleanly; a single message for a fatal decode error
    (a type mismatch or a bad quantity); or one ``unknown field "<path>"`` message per unknown
    field. Kinds the registry does not know yield ``[]``.
    """
    compiled = compact_schema(obj.get("apiVersion", ""), obj.get("kind", ""))
    if compiled is None:
        return _custom_resource_issues(obj)
    key = _verdict_key(obj)
    verdict = _verdicts.get(key) if key is not None else None
    if verdict is None:
        verdict = _verdict(_Walker(compiled, server=True).run(obj))
        if key is not None:
            if len(_verdicts) >= _VERDICTS_MAX:
                _verdicts.clear()
            _verdicts[key] = verdict
    return list(verdict)


def _verdict(issues: list[tuple]) -> list[str]:
    fatal = [i for i in issues if i[0] == "fatal"]
    if fatal:
        return [fatal[0][2]]
    saved = [i for i in issues if i[0] == "type"]
    if saved:
        return [saved[0][2]]
    return [f'unknown field "{i[1]}"' for i in issues if i[0] == "unknown"]


# a document (marshalled, its name left out) -> ``validate_structure``'s verdict: the documents
# of a bulk file repeat one shape but for their names (1,000 pods: 2,000 walks, 20 ms), and a
# name that is a string adds nothing to the verdict (no type error, no unknown field under it)
_verdicts: dict[bytes, list[str]] = {}
_VERDICTS_MAX = 256


def _verdict_key(obj: dict) -> bytes | None:
    import marshal

    md = obj.get("metadata")
    if isinstance(md, dict) and isinstance(md.get("name"), str):
        obj = {**obj, "metadata": {**md, "name": ""}}
    try:
        return marshal.dumps(obj)
    except ValueError:  # (a value marshal cannot write: walked each time)
        return None


def _custom_resource_issues(obj: dict) -> list[str]:
    """A custom resource's strict decode: the fields its CRD's structural schema would prune
    (kubesim.api.apiextensions.schema), one ``unknown field`` message each."""
    from kubesim.api.kinds import REGISTRY

    if not isinstance(obj.get("apiVersion"), str) or not isinstance(obj.get("kind"), str):
        return []
    info = REGISTRY.for_object(obj["apiVersion"], obj["kind"])
    if info is None or info.crd is None:
        return []
    from kubesim.api.apiextensions.helpers import schema_for_version
    from kubesim.api.apiextensions.schema import unknown_fields

    schema = schema_for_version(info.crd, info.version)
    if schema is None:
        return []
    return [f'unknown field "{p}"' for p in unknown_fields(obj, schema)]


def schema_issues(obj: dict) -> list[tuple[str, str]]:
    """Every violation of the strict JSON schema as (kind, path) pairs, for comparison with
    jsonschema. Kinds: ``type``, ``unknown``, ``required``, ``enum``. Paths are dotted with
    ``[i]`` for list items; for ``required`` and ``unknown`` they name the field itself."""
    compiled = compact_schema(obj.get("apiVersion", ""), obj.get("kind", ""))
    if compiled is None:
        return []
    out = []
    for issue in _Walker(compiled, server=False).run(obj):
        kind = "type" if issue[0] in ("type", "null", "oneof") else issue[0]
        if kind in ("type", "unknown", "required", "enum"):
            out.append((kind, issue[1]))
    return out


def is_strict_message(message: str) -> bool:
    """True for the messages that the server collects as strict-decoding errors."""
    return message.startswith(('unknown field "', 'duplicate field "'))


def format_bad_request(source: str, obj: dict, messages: list[str], verb: str = "creating") -> str:
    """kubectl's line for a manifest the server could not decode, e.g.

    ``Error from server (BadRequest): error when creating "pod.yaml": Pod in version "v1" cannot
    be handled as a Pod: strict decoding error: unknown field "spec.foo"``
    """
    kind = obj.get("kind", "")
    api_version = obj.get("apiVersion", "")
    version = api_version.rsplit("/", 1)[-1]
    if messages and all(is_strict_message(m) for m in messages):
        detail = "strict decoding error: " + ", ".join(messages)
    else:
        detail = messages[0] if messages else ""
    message = f"{kind} in version {go_quote(version)} cannot be handled as a {kind}: {detail}"
    if source:
        message = f"error when {verb} {go_quote(source)}: {message}"
    return "Error from server (BadRequest): " + message


def compact_schema(api_version: str, kind: str) -> dict | None:
    """The compiled schema for a registered kind (memoised, cached on disk), or None."""
    key = (api_version, kind)
    if key in _memo:
        return _memo[key]
    from kubesim.api.kinds import REGISTRY

    info = REGISTRY.for_object(api_version, kind)
    if info is None or not info.served or info.crd is not None:
        _memo[key] = None
        return None
    path = _cache_file(info.group, info.version, info.kind)
    compiled = None
    if path is not None:
        try:
            with open(path, "r", encoding="utf-8") as fh:
                compiled = json.load(fh)
        except (OSError, ValueError):
            compiled = None
        if not isinstance(compiled, dict) or "defs" not in compiled:
            compiled = None
        elif compiled.get("root") is None:  # a cached "no schema for this kind" marker
            _memo[key] = None
            return None
    if compiled is None:
        built = _build_registry_kinds()
        for (g, v, k), c in built.items():
            if info.group == g and info.version == v and info.kind == k:
                compiled = c
        if compiled is None:
            _memo[key] = None
            return None
    _memo[key] = compiled
    return compiled


def clear_memo() -> None:
    """Forget compiled schemas held in memory (tests)."""
    _memo.clear()
    _verdicts.clear()


# ---------------------------------------------------------------------------------------------
# locating files and the cache


def schema_dir() -> str:
    """The directory holding kubernetes-validate's v1.35 strict schemas."""
    return _locate()[0]


def _locate() -> tuple[str, str]:
    global _location
    if _location is None:
        import importlib.util

        spec = importlib.util.find_spec("kubernetes_validate")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("kubernetes-validate is not installed")
        pkg = next(iter(spec.submodule_search_locations))
        version = "unknown"
        try:
            with open(os.path.join(pkg, "version.py"), encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("__version__"):
                        version = line.split("=", 1)[1].strip().strip("'\"")
        except OSError:
            pass
        sdir = os.path.join(pkg, "kubernetes-json-schema", SCHEMA_SET)
        try:
            size = os.stat(os.path.join(sdir, "_definitions.json")).st_size
        except OSError:
            size = 0
        _location = (sdir, f"kubernetes-validate-{version}-{SCHEMA_SET}-{size}-f{_FORMAT}")
    return _location


def _cache_root() -> str | None:
    d = os.environ.get("KUBESIM_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "kubesim")
    return d


def _cache_file(group: str, version: str, kind: str) -> str | None:
    root = _cache_root()
    if not root:
        return None
    return os.path.join(root, "schemas", _locate()[1], f"{group or 'core'}_{version}_{kind}.json")


def _write_cache(path: str, compiled: dict) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(compiled, fh, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        pass  # not writable: keep it in memory only


# ---------------------------------------------------------------------------------------------
# compiling


def load_definitions() -> dict:
    with open(os.path.join(schema_dir(), "_definitions.json"), encoding="utf-8") as fh:
        return json.load(fh)["$defs"]


def _build_registry_kinds() -> dict[tuple[str, str, str], dict]:
    """Compile every served registry kind from one read of _definitions.json; cache each."""
    from kubesim.api.kinds import REGISTRY

    defs = load_definitions()
    by_gvk: dict[tuple[str, str, str], str] = {}
    for name, d in defs.items():
        for gvk in d.get("x-kubernetes-group-version-kind", ()):
            by_gvk.setdefault((gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", "")), name)
    out = {}
    for info in REGISTRY.builtin():
        if not info.served:
            continue
        root = by_gvk.get((info.group, info.version, info.kind))
        path = _cache_file(info.group, info.version, info.kind)
        if root is None:
            if path is not None:
                _write_cache(path, {"root": None, "defs": {}})  # remember there is none
            continue
        compiled = compile_kind(defs, root)
        out[(info.group, info.version, info.kind)] = compiled
        if path is not None:
            _write_cache(path, compiled)
    return out


def compile_kind(defs: dict, root: str) -> dict:
    """The compact schema for one kind: {"root": name, "defs": {name: node}}."""
    compiled: dict[str, dict] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in compiled:
            continue
        compiled[name] = {}  # placeholder against cycles
        node = _compile_node(defs[name], name, name.rsplit(".", 1)[-1], "", todo)
        compiled[name] = node
    return {"root": root, "defs": compiled}


def _short(defname: str) -> str:
    return defname.rsplit(".", 1)[-1]


def _go_named(defname: str) -> str:
    parts = defname.split(".")
    return f"{parts[-2]}.{parts[-1]}"


def _compile_node(s: dict, defname: str | None, struct: str, prop: str, todo: list) -> dict:
    """Compile a JSON-schema node. ``struct``/``prop`` name the Go struct field it belongs to."""
    if "$ref" in s:
        target = s["$ref"].rsplit("/", 1)[-1]
        todo.append(target)
        return {"$": target}
    if defname == _QUANTITY_DEF:
        return {"k": "qty", "g": "resource.Quantity", "n": True}
    if defname == _INTSTR_DEF:
        return {"k": "ios", "g": "int32", "n": True}
    if defname in _TIME_DEFS:
        node = {"k": "time", "g": "string", "n": True}
        if defname == _TIME_DEFS[1]:
            node["m"] = True  # MicroTime: parsed with RFC3339Micro's six fractional digits
        return node
    if "oneOf" in s:  # only Quantity and IntOrString use it, both handled above
        return {"k": "any", "n": True}
    t = s.get("type")
    types = t if isinstance(t, list) else ([t] if t else [])
    nullable = "null" in types or not types
    base = [x for x in types if x != "null"]
    kind = base[0] if base else None
    node: dict = {"n": nullable}
    if "enum" in s:
        node["e"] = list(s["enum"])
    named = _NAMED_TYPES.get((struct, prop))
    if kind == "object":
        if "properties" in s:
            node["k"] = "obj"
            node["s"] = _short(defname) if defname else struct
            node["g"] = _go_named(defname) if defname else "struct"
            props = {}
            for pname, ps in s["properties"].items():
                props[pname] = _compile_node(ps, None, node["s"], pname, todo)
            node["p"] = props
            if s.get("required"):
                node["r"] = list(s["required"])
            node["x"] = s.get("additionalProperties") is False
        elif isinstance(s.get("additionalProperties"), dict):
            node["k"] = "map"
            val = _compile_node(s["additionalProperties"], None, "", "", todo)
            node["v"] = val
            node["g"] = named or f"map[string]{_elem_go(val)}"
        else:
            node["k"] = "aobj"
    elif kind == "array":
        node["k"] = "arr"
        item = _compile_node(s.get("items") or {}, None, "", "", todo)
        if named and "$" not in item:
            item["g"] = named[2:]
        node["i"] = item
        node["g"] = named or f"[]{_elem_go(item)}"
    elif kind == "string":
        node["k"] = "str"
        node["g"] = named or "string"
        if s.get("format") == "byte":
            node["g"] = "[]uint8"
    elif kind == "integer":
        node["k"] = "int"
        fmt = s.get("format")
        node["g"] = {"int32": "int32", "int64": "int64"}.get(fmt, "int")
        node["b"] = 32 if fmt == "int32" else 64
    elif kind == "number":
        node["k"] = "num"
        node["g"] = "float64"
    elif kind == "boolean":
        node["k"] = "bool"
        node["g"] = "bool"
    else:
        node["k"] = "any"
    return node


def _elem_go(node: dict) -> str:
    if "$" in node:
        target = node["$"]
        if target == _QUANTITY_DEF:
            return "resource.Quantity"
        if target == _INTSTR_DEF:
            return "intstr.IntOrString"
        if target in _TIME_DEFS:
            return "v1." + _short(target)
        return _go_named(target)
    return node.get("g", "interface {}")


# ---------------------------------------------------------------------------------------------
# validating


def _is_integral(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and v.is_integer()


class _Walker:
    """One pass over an object against a compiled schema, collecting issues as tuples:
    ("type", path, go_message), ("fatal", path, message), ("unknown", path) and, in schema
    mode only, ("required", path), ("enum", path), ("null", path), ("oneof", path).

    ``server=True`` follows the API server's decoder (sorted keys, null accepted anywhere,
    integer ranges, quantity syntax); ``server=False`` follows the JSON schema exactly."""

    __slots__ = ("defs", "issues", "root", "server")

    def __init__(self, compiled: dict, server: bool):
        self.defs = compiled["defs"]
        self.root = compiled["root"]
        self.server = server
        self.issues: list[tuple] = []

    def run(self, obj) -> list[tuple]:
        self._walk(self.defs[self.root], obj, "", (), "")
        return self.issues

    def _type_error(self, path, value, go_type, stack, struct, fatal=False):
        desc = go_json_kind(value)
        if desc == "number" and go_type in _GO_INTS:
            desc = "number " + go_json_number(value)
        if struct:
            msg = (f"json: cannot unmarshal {desc} into Go struct field {struct}."
                   f"{'.'.join(stack)} of type {go_type}")
        else:
            msg = f"json: cannot unmarshal {desc} into Go value of type {go_type}"
        self.issues.append(("fatal" if fatal else "type", path, msg))

    def _walk(self, node, value, path, stack, struct):
        if "$" in node:
            node = self.defs[node["$"]]
        k = node["k"]
        server = self.server
        if not server and "e" in node and value not in node["e"]:
            self.issues.append(("enum", path))
        if value is None:
            if not server:
                if k in ("qty", "ios"):
                    self.issues.append(("oneof", path))  # null matches both branches of the oneOf
                elif not node.get("n", True):
                    self.issues.append(("null", path))
            return
        if k == "obj":
            if not isinstance(value, dict):
                self._type_error(path, value, node["g"], stack, struct)
                return
            props = node["p"]
            st = node["s"]
            prefix = path + "." if path else ""
            for key in (sorted(value, key=str) if server else value):
                sub = props.get(key)
                if sub is None:
                    if node.get("x", True):
                        self.issues.append(("unknown", prefix + str(key)))
                    continue
                self._walk(sub, value[key], prefix + key, stack + (key,), st)
            if not server:
                for req in node.get("r", ()):
                    if req not in value:
                        self.issues.append(("required", prefix + req))
        elif k == "map":
            if not isinstance(value, dict):
                self._type_error(path, value, node["g"], stack, struct)
                return
            val = node["v"]
            prefix = path + "." if path else ""
            for key in (sorted(value, key=str) if server else value):
                self._walk(val, value[key], f"{prefix}{key}", stack, struct)
        elif k == "arr":
            if not isinstance(value, list):
                self._type_error(path, value, node["g"], stack, struct)
                return
            item = node["i"]
            for i, v in enumerate(value):
                self._walk(item, v, f"{path}[{i}]", stack, struct)
        elif k == "str":
            if not isinstance(value, str):
                self._type_error(path, value, node["g"], stack, struct)
            elif server and node["g"] == "[]uint8":
                from kubesim.api.gofmt import go_base64_error

                err = go_base64_error(value)
                if err:
                    self.issues.append(("fatal", path, err))
        elif k == "int":
            if not _is_integral(value):
                self._type_error(path, value, node["g"], stack, struct)
            elif server:
                lim = 1 << (node.get("b", 64) - 1)
                if not -lim <= int(value) < lim:
                    self._type_error(path, value, node["g"], stack, struct)
        elif k == "num":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self._type_error(path, value, node["g"], stack, struct)
        elif k == "bool":
            if not isinstance(value, bool):
                self._type_error(path, value, node["g"], stack, struct)
        elif k == "qty":
            # resource.Quantity.UnmarshalJSON parses whatever JSON text it is given.
            if server:
                from kubesim.api.quantity import unmarshal_error

                err = unmarshal_error(value)
                if err:
                    self.issues.append(("fatal", path, err))
            elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.issues.append(("oneof", path))
        elif k == "ios":
            # intstr.IntOrString.UnmarshalJSON: a JSON string, else json.Unmarshal into int32.
            if isinstance(value, str):
                return
            if _is_integral(value) and -(1 << 31) <= int(value) < (1 << 31):
                return
            if server:
                self._type_error(path, value, "int32", stack, struct, fatal=True)
            elif not _is_integral(value):
                self.issues.append(("oneof", path))
        elif k == "time":
            # metav1.Time.UnmarshalJSON: json.Unmarshal into a string, then RFC 3339
            # (MicroTime: RFC3339Micro, whose errors are reported; Time's are not checked)
            if not isinstance(value, str):
                if server:
                    self._type_error(path, value, "string", stack, struct, fatal=True)
                else:
                    self.issues.append(("type", path))
            elif server and node.get("m"):
                from kubesim.api.gofmt import go_parse_micro_time_error

                err = go_parse_micro_time_error(value)
                if err:
                    self.issues.append(("fatal", path, err))
        elif k == "aobj" and not server and not isinstance(value, dict):
            # FieldsV1 / RawExtension keep the raw JSON: the server accepts anything.
            self.issues.append(("type", path))
        # "any": anything goes


_GO_INTS = frozenset(("int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))
