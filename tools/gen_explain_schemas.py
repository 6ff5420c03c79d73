"""Generate kubesim/data/openapi-v3-explain.json.xz (and -v2-): what ``kubesim explain`` reads.

Source: the OpenAPI v3 documents a real v1.35 kube-apiserver serves at
``/openapi/v3/<api|apis/group>/<version>`` (saved as ``<api|apis__group>__<version>_openapi.json``
in SPEC_DIR) and its ``/openapi/v2`` (``swagger.json`` beside SPEC_DIR). The shipped data were
made from the conformance oracle's v1.35.4 server (conformance/README.md), which is what kubectl
reads: the repository's ``api/openapi-spec/`` copies (the default SPEC_DIR) lack the enum lists
and "Possible enum values" a server adds, so explain made from them differs from kubectl's.

Kept, per group-version that a default v1.35 server enables (the GA ones): the resources of its
paths (``resource -> group, version, kind`` from ``x-kubernetes-group-version-kind``, with the
resource's scope); and, once for all group-versions (schema names are global), every schema
reachable from those kinds with only the keys kubectl's explain template reads (description,
type, properties, required, items, additionalProperties, allOf, $ref, enum, externalDocs,
x-kubernetes-group-version-kind). A ``$ref`` keeps only the schema's name. The same for the
OpenAPI v2 document (``swagger.json`` beside the v3 directory), for ``--output=plaintext-openapiv2``.

    python tools/gen_explain_schemas.py [SPEC_DIR]
"""

from __future__ import annotations

import glob
import json
import lzma
import os
import re
import sys

DEFAULT_SPEC = "/root/go/pkg/mod/k8s.io/kubernetes@v1.35.4/api/openapi-spec/v3"
OUT = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "openapi-v3-explain.json.xz")
OUT_V2 = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "openapi-v2-explain.json.xz")
V2_PREFIX = "#/definitions/"
KEEP = ("description", "type", "properties", "required", "items", "additionalProperties", "allOf", "$ref",
        "enum", "externalDocs", "x-kubernetes-group-version-kind")
PREFIX = "#/components/schemas/"


def trim(schema):
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key in KEEP:
        if key not in schema:
            continue
        value = schema[key]
        if key == "$ref":
            for prefix in (PREFIX, V2_PREFIX):
                value = value.removeprefix(prefix)
        elif key == "properties":
            value = {name: trim(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            value = trim(value)
        elif key == "allOf":
            value = [trim(sub) for sub in value]
        out[key] = value
    return out


def refs(schema, found: set):
    if isinstance(schema, dict):
        if "$ref" in schema:
            found.add(schema["$ref"])
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    refs(sub, found)
            elif key in ("items", "additionalProperties"):
                refs(value, found)
            elif key == "allOf":
                for sub in value:
                    refs(sub, found)


def main(spec_dir: str) -> None:
    gvs, schemas, roots = {}, {}, set()
    for path in sorted(glob.glob(os.path.join(spec_dir, "*_openapi.json"))):
        name = os.path.basename(path)[: -len("_openapi.json")].split("__")
        if len(name) < 2 or not re.fullmatch(r"v\d+", name[-1]):
            continue  # the group lists, and alpha/beta versions (not enabled by default)
        with open(path) as f:
            doc = json.load(f)
        key = "/".join(name)  # api/v1, apis/apps/v1
        resources = {}
        for p, item in doc["paths"].items():
            parts = p.strip("/").split("/")
            base = len(key.split("/"))
            rest = parts[base:]
            namespaced = rest[:2] == ["namespaces", "{namespace}"] and len(rest) > 2
            if namespaced:
                rest = rest[2:]
            if not rest or rest[0] == "watch" or (len(rest) > 1 and rest[1] != "{name}") or len(rest) > 2:
                continue
            for method in ("get", "post", "put", "patch", "delete"):
                gvk = (item.get(method) or {}).get("x-kubernetes-group-version-kind")
                if gvk:
                    old = resources.get(rest[0])
                    resources[rest[0]] = [gvk["group"], gvk["version"], gvk["kind"],
                                          namespaced or bool(old and old[3])]
                    break
        gvs[key] = resources
        components = doc["components"]["schemas"]
        for sname, schema in components.items():
            schemas.setdefault(sname, trim(schema))
            if any([g["group"], g["version"], g["kind"]] == r[:3]
                   for g in schema.get("x-kubernetes-group-version-kind", []) for r in resources.values()):
                roots.add(sname)
    keep, todo = set(), list(roots)
    while todo:
        sname = todo.pop()
        if sname in keep or sname not in schemas:
            continue
        keep.add(sname)
        found = set()
        refs(schemas[sname], found)
        todo.extend(found)
    data = {"source": f"Kubernetes v1.35 OpenAPI v3 documents ({os.path.basename(spec_dir.rstrip('/'))})",
            "groupVersions": gvs,
            "schemas": {n: schemas[n] for n in sorted(keep)}}
    raw = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    with open(OUT, "wb") as f:
        f.write(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(gvs)} group-versions, {len(keep)} schemas, {len(raw)} bytes -> {os.path.getsize(OUT)} bytes")
    v2(spec_dir, {tuple(r[:3]) for resources in gvs.values() for r in resources.values()})


def v2(spec_dir: str, kinds: set) -> None:
    """The OpenAPI v2 definitions (``/openapi/v2``, upstream's ``api/openapi-spec/swagger.json``)
    reachable from the same kinds, for ``explain --output=plaintext-openapiv2``."""
    with open(os.path.join(os.path.dirname(spec_dir.rstrip("/")), "swagger.json")) as f:
        doc = json.load(f)
    definitions = {name: trim(schema) for name, schema in doc["definitions"].items()}
    roots = [name for name, schema in definitions.items()
             if any((g["group"], g["version"], g["kind"]) in kinds
                    for g in schema.get("x-kubernetes-group-version-kind", []))]
    keep, todo = set(), roots
    while todo:
        name = todo.pop()
        if name in keep or name not in definitions:
            continue
        keep.add(name)
        found = set()
        refs(definitions[name], found)
        todo.extend(found)
    data = {"source": "Kubernetes v1.35 OpenAPI v2 document (swagger.json)",
            "definitions": {n: definitions[n] for n in sorted(keep)}}
    raw = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    with open(OUT_V2, "wb") as f:
        f.write(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
    print(f"v2: {len(keep)} definitions, {len(raw)} bytes -> {os.path.getsize(OUT_V2)} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SPEC)
