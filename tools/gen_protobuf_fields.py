"""Generate kubesim/data/protobuf-fields.json.xz: what ``kubesim serve`` needs to read request
bodies in Kubernetes' protobuf encoding (client-go's typed clients send
``application/vnd.kubernetes.protobuf``: kubectl's ``create <generator>``, drain's evictions).

Sources (k8s.io/api and k8s.io/apimachinery v0.35.4 in the Go module cache):

- each package's ``generated.proto``: every message, its fields' numbers, proto names, types,
  ``repeated`` and ``map<K, V>``;
- the Go structs those messages are generated from (``*.go`` beside it): each field's JSON name
  (go-to-protobuf names the proto field after it, but ``json:",inline"`` structs are flattened
  into their parent in JSON), whether it is a pointer, slice or map (set only when given) and
  whether its JSON tag has ``omitempty`` (a zero value proto carries is then dropped, as Go's
  decode-then-encode drops it).

Output: ``{"messages": {"<package>.<Message>": {"<number>": [json name ("" when inlined),
proto type, "r" repeated | "m" map | "", map value type, pointer-like, omitempty]}}}``.

    python tools/gen_protobuf_fields.py
"""

from __future__ import annotations

import glob
import json
import lzma
import os
import re

MOD = "/root/go/pkg/mod/k8s.io"
ROOTS = [f"{MOD}/api@v0.35.4", f"{MOD}/apimachinery@v0.35.4"]
OUT = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "protobuf-fields.json.xz")

_PACKAGE = re.compile(r"^package\s+([\w.]+);", re.MULTILINE)
_MESSAGE = re.compile(r"^message\s+(\w+)\s*\{(.*?)^\}", re.MULTILINE | re.DOTALL)
_FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)", re.MULTILINE)
_MAP = re.compile(r"^\s*map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)", re.MULTILINE)
_STRUCT = re.compile(r"^type\s+(\w+)\s+struct\s*\{(.*?)^\}", re.MULTILINE | re.DOTALL)
_GO_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?([*\[\]\w.]+)\s+`([^`]*)`", re.MULTILINE)
_SCALARS = {"string", "int32", "int64", "bool", "double", "float", "bytes", "uint32", "uint64", "sint32", "sint64"}


def _qualify(t: str, package: str) -> str:
    t = t.lstrip(".")
    return t if t in _SCALARS or "." in t else f"{package}.{t}"


def go_fields(directory: str) -> dict[str, dict[str, tuple[str, bool, bool]]]:
    """struct -> proto field name -> (json name, pointer-like, omitempty)."""
    out: dict[str, dict] = {}
    for path in glob.glob(os.path.join(directory, "*.go")):
        if path.endswith("_test.go"):
            continue
        with open(path) as f:
            text = f.read()
        for m in _STRUCT.finditer(text):
            fields = {}
            for fm in _GO_FIELD.finditer(m.group(2)):
                go_type, tag = fm.group(2), fm.group(3)
                pm = re.search(r'protobuf:"[^"]*name=(\w+)', tag)
                jm = re.search(r'json:"([^"]*)"', tag)
                if not pm or not jm:
                    continue
                json_name, *opts = jm.group(1).split(",")
                inline = "inline" in opts
                pointer = go_type.startswith(("*", "[]", "map["))
                fields[pm.group(1)] = ("" if inline else json_name, pointer, "omitempty" in opts)
            out[m.group(1)] = fields
    return out


def main() -> None:
    messages: dict[str, dict] = {}
    for root in ROOTS:
        for proto in glob.glob(f"{root}/**/generated.proto", recursive=True):
            with open(proto) as f:
                text = f.read()
            package = _PACKAGE.search(text).group(1)
            go = go_fields(os.path.dirname(proto))
            for m in _MESSAGE.finditer(text):
                name, body = m.group(1), m.group(2)
                body = re.sub(r"//.*", "", body)
                tags = go.get(name, {})
                fields = {}
                for fm in _FIELD.finditer(body):
                    label, t, pname, num = fm.groups()
                    json_name, pointer, omitempty = tags.get(pname, (pname, label == "repeated", True))
                    fields[num] = [json_name, _qualify(t, package), "r" if label == "repeated" else "", "",
                                   pointer, omitempty]
                for fm in _MAP.finditer(body):
                    k, v, pname, num = fm.groups()
                    json_name, pointer, omitempty = tags.get(pname, (pname, True, True))
                    fields[num] = [json_name, _qualify(k, package), "m", _qualify(v, package), True, omitempty]
                messages[f"{package}.{name}"] = fields
    data = json.dumps({"source": "k8s.io/api and k8s.io/apimachinery v0.35.4 generated.proto + Go struct tags",
                       "messages": messages}, separators=(",", ":"), sort_keys=True)
    with lzma.open(OUT, "wb", preset=9) as f:
        f.write(data.encode())
    print(f"{len(messages)} messages -> {OUT}")


if __name__ == "__main__":
    main()
