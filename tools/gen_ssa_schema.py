"""Generate kubesim/data/ssa-schema.json.xz: the structured-merge-diff schema server-side apply
and managedFields need (``kubesim.api.structured``).

Upstream builds it at start-up from the OpenAPI models (k8s.io/kube-openapi pkg/schemaconv,
``getListElementRelationship`` and ``VisitKind``/``VisitMap``): a list is atomic, a set
(associative without keys) or a map keyed by ``x-kubernetes-list-map-keys``; without
``x-kubernetes-list-type``, a patch strategy ``merge`` makes it associative on its
``x-kubernetes-patch-merge-key``; a struct or map is granular unless
``x-kubernetes-map-type: atomic``. Sources, in the Go module cache:

- k8s.io/kubernetes@v1.35.4 ``api/openapi-spec/v3/*.json``: every definition and its
  extensions, and the kinds (``x-kubernetes-group-version-kind``);
- ``kubesim/data/protobuf-fields.json.xz`` (from the Go structs): which fields a Go zero value
  of a kind serializes (non-pointer structs as ``{}``, fields without ``omitempty`` as null),
  the "empty object" a create is compared against (the fieldmanager's ``objectCreater.New``).

Output: ``{"types": {name: {"f": {field: ref}, "a": 1 if atomic}}, "kinds": {"group/version/Kind":
[type name, zero value]}}`` where a ref is ``""`` (a scalar or untyped value: a leaf), a type
name, ``["l", ref, "a"|"s"|"m", keys[, {key: default}]]`` (a list) or ``["m", ref, 0|1]`` (a map, atomic or not).

    python tools/gen_ssa_schema.py
"""

from __future__ import annotations

import glob
import json
import lzma
import os

SPEC = "/root/go/pkg/mod/k8s.io/kubernetes@v1.35.4/api/openapi-spec/v3"
OUT = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "ssa-schema.json.xz")
PROTO = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "protobuf-fields.json.xz")
# structs Go marshals as a scalar (or null)
_SCALAR_STRUCTS = {"Time", "MicroTime", "Quantity", "IntOrString", "Duration", "RawExtension", "FieldsV1"}


def _target(ps: dict) -> str | None:
    if "$ref" in ps:
        return ps["$ref"].rsplit("/", 1)[1]
    for sub in ps.get("allOf") or ():
        if "$ref" in sub:
            return sub["$ref"].rsplit("/", 1)[1]
    return None


def _ref(ps: dict, defs: dict):
    name = _target(ps)
    if name is not None:
        d = defs.get(name, {})
        if not d.get("properties"):
            return ""  # a scalar type (Time, Quantity, IntOrString) or an untyped one (RawExtension)
        if ps.get("x-kubernetes-map-type") == "atomic":
            return ["m", "", 1]  # an atomic struct: its whole value is one leaf
        return name
    t = ps.get("type")
    if t == "array":
        rel, keys = "a", []
        lt = ps.get("x-kubernetes-list-type")
        if lt == "set":
            rel = "s"
        elif lt == "map":
            rel, keys = "m", list(ps.get("x-kubernetes-list-map-keys") or [])
        elif lt is None and ps.get("x-kubernetes-patch-strategy") in ("merge", "merge,retainKeys"):
            key = ps.get("x-kubernetes-patch-merge-key")
            rel, keys = ("m", [key]) if key else ("s", [])
        item = ps.get("items") or {}
        ref = ["l", _ref(item, defs), rel, keys]
        props = defs.get(_target(item) or "", {}).get("properties") or {}
        defaults = {k: props[k]["default"] for k in keys if "default" in props.get(k, {})}
        if defaults:  # a key an item may omit (a port's protocol): SMD reads the schema's default
            ref.append(defaults)
        return ref
    if t == "object" and "additionalProperties" in ps:
        return ["m", _ref(ps["additionalProperties"] or {}, defs), 1 if ps.get("x-kubernetes-map-type") == "atomic" else 0]
    if t == "object" and not ps.get("properties"):
        return ""  # untyped: kept whole
    return ""


def _zero(message: str, proto: dict) -> dict:
    out: dict = {}
    for json_name, ptype, rep, _mapval, pointer, omitempty in proto.get(message, {}).values():
        if not json_name:
            continue
        if rep or pointer:
            if not omitempty:
                out[json_name] = None
        elif "." in ptype and ptype.rsplit(".", 1)[1] not in _SCALAR_STRUCTS:
            out[json_name] = _zero(ptype, proto)
        elif not omitempty or "." in ptype:
            out[json_name] = None
    return out


def main() -> None:
    defs: dict = {}
    for f in sorted(glob.glob(os.path.join(SPEC, "*.json"))):
        with open(f) as fh:
            defs.update(json.load(fh).get("components", {}).get("schemas", {}))
    with lzma.open(PROTO) as fh:
        proto = json.load(fh)["messages"]
    types, kinds = {}, {}
    for name, d in sorted(defs.items()):
        props = d.get("properties")
        if not props:
            continue
        t = {"f": {p: _ref(ps, defs) for p, ps in sorted(props.items())}}
        if d.get("x-kubernetes-map-type") == "atomic":
            t["a"] = 1
        types[name] = t
        for gvk in d.get("x-kubernetes-group-version-kind") or ():
            if gvk["kind"].endswith("List") or "metadata" not in props:
                continue
            gv = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            zero = _zero("k8s.io." + name[len("io.k8s."):], proto) if name.startswith("io.k8s.") else {}
            zero.pop("apiVersion", None)
            zero.pop("kind", None)
            kinds[f"{gv}/{gvk['kind']}"] = [name, zero]
    with lzma.open(OUT, "wt", preset=9) as fh:
        json.dump({"types": types, "kinds": kinds}, fh, separators=(",", ":"), sort_keys=True)
    print(f"{len(types)} types, {len(kinds)} kinds -> {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
