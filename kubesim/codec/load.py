"""Reading manifests: files, directories (``-R``), standard input; YAML and JSON; ``kind: List``.

The behaviour follows kubectl's resource builder (k8s.io/cli-runtime ``pkg/resource/visitor.go``
and ``builder.go``): a directory contributes its ``.yaml``, ``.yml`` and ``.json`` files in
lexical order (sub-directories only with ``-R``), a stream is split on ``---`` documents, empty
documents are skipped and ``List`` items are expanded. YAML is decoded as sigs.k8s.io/yaml does
(YAML 1.1 scalars, timestamps kept as strings); a key given twice keeps its last value, as
kubectl 1.36 reads it (in YAML and JSON alike).

Safety, which kubectl gets from Go's YAML library and the API server's request limits:
- alias expansion is bounded (go-yaml refuses "excessive aliasing"), so a billion-laughs
  document is refused in milliseconds instead of exhausting memory;
- a file larger than ``MAX_FILE_BYTES`` is refused before it is read, with the limit named;
- binary content is refused as such.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kubesim.api.record import Record
from kubesim.errors import ParseError, RawError, UsageError

MAX_FILE_BYTES = 16 * 1024 * 1024  # larger than any sane manifest set; the API server's own limit is 3 MiB per request
MAX_EXPANDED_NODES = 1_000_000     # YAML nodes after alias expansion, per document
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


class Document(Record):
    __slots__ = ("index", "obj", "source")

    def __init__(self, source: str, index: int, obj: dict):
        self.source = source    # the file name as the user gave it, or "STDIN"
        self.index = index      # 1-based position of the document within its source (after List expansion)
        self.obj = obj


def read_sources(paths: list[str], recursive: bool = False, stdin=None) -> list[tuple[str, str]]:
    """Resolve ``-f`` arguments to (source name, text) pairs, refusing what kubectl refuses."""
    out: list[tuple[str, str]] = []
    for p in paths:
        if p == "-":
            stream = stdin if stdin is not None else sys.stdin
            data = stream.read()
            if isinstance(data, bytes):
                data = _decode_bytes("STDIN", data)
            if len(data) > MAX_FILE_BYTES:
                raise UsageError(f"standard input is larger than kubesim's limit of {MAX_FILE_BYTES} bytes")
            out.append(("STDIN", data))
            continue
        path = Path(p)
        if not path.exists():
            raise UsageError(f'the path "{p}" does not exist')
        if path.is_dir():
            files = _dir_files(path, recursive)
            for f in files:
                out.append((str(f), _read_file(f)))
        else:
            out.append((p, _read_file(path)))
    return out


def _dir_files(d: Path, recursive: bool) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(MANIFEST_SUFFIXES):
                found.append(Path(root) / name)
        if not recursive:
            break
    return found


def _read_file(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UsageError(f'file "{path}" is {size} bytes, larger than kubesim\'s limit of '
                             f'{MAX_FILE_BYTES} bytes per manifest file')
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise UsageError(f'unable to read "{path}": {e.strerror or e}') from None
    return _decode_bytes(str(path), raw)


def _decode_bytes(source: str, raw: bytes) -> str:
    # kubectl's FileVisitor reads through unicode.BOMOverride: a UTF-16 byte-order mark
    # switches the decoding (cli-runtime pkg/resource/visitor.go); without one it is UTF-8
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if raw.startswith(bom):
            try:
                raw = raw[2:].decode(codec).encode("utf-8")
            except UnicodeDecodeError:
                raise ParseError(source, "error converting YAML to JSON: yaml: invalid leading UTF-8 octet") from None
            break
    if b"\x00" in raw:
        raise ParseError(source, "error converting YAML to JSON: yaml: control characters are not allowed")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError(source, "error converting YAML to JSON: yaml: invalid leading UTF-8 octet") from None


def parse_documents(source: str, text: str) -> list[Document]:
    """Decode one stream into documents (Lists expanded, empty documents skipped)."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        raw_docs = [_load_json(source, text)]
    else:
        raw_docs = yaml_to_json(source, text)
    docs: list[Document] = []
    for raw in raw_docs:
        if raw is None:
            continue
        if not isinstance(raw, dict):
            raise ParseError(source, "error converting YAML to JSON: yaml: unmarshal errors: "
                                     "cannot unmarshal a non-object document into an object")
        if raw.get("kind") == "List" or (str(raw.get("kind", "")).endswith("List") and "items" in raw):
            items = raw.get("items") or []
            if not isinstance(items, list):
                raise ParseError(source, "items must be a list")
            for item in items:
                if isinstance(item, dict):
                    docs.append(Document(source, len(docs) + 1, item))
            continue
        docs.append(Document(source, len(docs) + 1, raw))
    return docs


# encoding/json's scanner refuses a value nested deeper than this (scanner.go maxNestingDepth)
GO_JSON_MAX_DEPTH = 10000


def _load_json(source: str, text: str):
    import json

    depth = 0
    if text.count("[") + text.count("{") > GO_JSON_MAX_DEPTH:
        # possibly deeper than Go reads (whatever limit an earlier document left Python with)
        depth, offset = _json_depth(text)
        if depth > GO_JSON_MAX_DEPTH:
            raise ParseError(source, f"json: offset {offset}: invalid character {text[offset - 1]!r} "
                                     "exceeded max depth") from None
    try:
        return json.loads(text)  # a field given twice keeps its last value, as encoding/json does
    except json.JSONDecodeError as e:
        raise ParseError(source, f"error converting YAML to JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        pass
    # deeper than Python's default recursion limit: Go reads up to 10,000 levels, so kubesim
    # does too (the rest of a command handles such an object with the raised limit)
    depth = depth or _json_depth(text)[0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3 * depth + 1000))
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(source, f"error converting YAML to JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def _json_depth(text: str) -> tuple[int, int]:
    """The deepest nesting of ``text``'s arrays and objects (strings skipped), and the offset just
    past the bracket that first went deeper than Go's limit (0 when none did)."""
    import re

    depth = deepest = past = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth == GO_JSON_MAX_DEPTH + 1 and not past:
                    past = m.end()
        elif c in "]}":
            depth -= 1
    return deepest, past


_LOADER: list[type] = []
_RESOLVED_MAX = 65536
_GO_YAML_BOOLS = {"y": True, "yes": True, "true": True, "on": True, "n": False, "no": False, "false": False,
                  "off": False}


def _loader_class():
    """A SafeLoader (libyaml's parser when available) that keeps timestamps as strings and
    mapping keys as strings, as sigs.k8s.io/yaml's YAML→JSON conversion (YAMLToJSON) does: the
    last of duplicate keys wins."""
    if _LOADER:
        return _LOADER[0]
    import re

    from kubesim.codec.pyyaml import import_yaml

    yaml = import_yaml()

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class JSONCompatibleLoader(base):  # type: ignore[misc, valid-type]
        pass

    def construct_mapping(loader, node, deep=False):
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                # go-yaml v2 decoding into interface{} refuses an unhashable key (decode.go
                # mapping: failf("invalid map key: %#v", k)), without a line number
                key = loader.construct_object(key_node, deep=True)
                raise yaml.constructor.ConstructorError(None, None, "invalid map key: " + _yaml_sharp_v(key), None)
        loader.flatten_mapping(node)
        pairs = loader.construct_pairs(node, deep=deep)
        out = {}
        for k, v in pairs:
            # JSON object keys are strings: YAML's `1: x` or `true: x` become "1" / "true".
            if isinstance(k, bool):
                k = "true" if k else "false"
            elif not isinstance(k, str):
                k = str(k)
            out[k] = v
        return out

    def construct_timestamp(loader, node):
        return loader.construct_scalar(node)

    def construct_bool(loader, node):
        # go-yaml v2 (resolve.go) reads y/Y/n/N as booleans besides YAML 1.1's yes/no/on/off
        return _GO_YAML_BOOLS[loader.construct_scalar(node).lower()]

    resolved: dict = {}
    base_resolve = base.resolve

    def resolve(loader, kind, value, implicit):
        # what a scalar resolves to depends on its text and its implicit flags alone (this
        # loader has no path resolvers): a file of 1,000 manifests repeats the same few
        # hundred scalars, each resolved by regular expressions once
        if kind is not yaml.ScalarNode:
            return base_resolve(loader, kind, value, implicit)
        key = (value, implicit)
        tag = resolved.get(key)
        if tag is None:
            tag = base_resolve(loader, kind, value, implicit)
            if len(resolved) >= _RESOLVED_MAX:
                resolved.clear()
            resolved[key] = tag
        return tag

    def no_path(loader, *args):  # (no path resolvers: nothing to track)
        return None

    JSONCompatibleLoader.resolve = resolve
    JSONCompatibleLoader.descend_resolver = no_path
    JSONCompatibleLoader.ascend_resolver = no_path
    JSONCompatibleLoader.add_constructor("tag:yaml.org,2002:map", construct_mapping)
    JSONCompatibleLoader.add_constructor("tag:yaml.org,2002:timestamp", construct_timestamp)
    JSONCompatibleLoader.add_constructor("tag:yaml.org,2002:bool", construct_bool)
    JSONCompatibleLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
    _LOADER.append(JSONCompatibleLoader)
    return JSONCompatibleLoader


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_PLAIN_SCALARS = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                            "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp"))


class _NotPlain(Exception):
    """A document ``_construct_plain`` leaves to the loader's own constructors."""


def _construct_plain(loader, node):
    """``loader.construct_document(node)`` for a document of plain mappings, sequences and the
    scalars YAML resolves implicitly, without aliases, built directly (the loader's generic
    constructor costs several calls per node); raises ``_NotPlain`` for anything else (merge
    keys, explicit tags such as ``!!binary``, complex keys), which the loader then constructs."""
    import yaml

    constructors = loader.yaml_constructors
    scalar_node, mapping_node = yaml.ScalarNode, yaml.MappingNode

    def build(n):
        tag = n.tag
        if type(n) is scalar_node:
            if tag == _STR:
                return n.value
            if tag in _PLAIN_SCALARS:
                return constructors[tag](loader, n)
            raise _NotPlain
        if type(n) is mapping_node:
            if tag != _MAP:
                raise _NotPlain
            out = {}
            for key_node, value_node in n.value:
                if type(key_node) is not scalar_node or key_node.tag not in _PLAIN_KEYS:
                    raise _NotPlain
                k = key_node.value if key_node.tag == _STR else constructors[key_node.tag](loader, key_node)
                # JSON object keys are strings (as the loader's construct_mapping makes them)
                if isinstance(k, bool):
                    k = "true" if k else "false"
                elif not isinstance(k, str):
                    k = str(k)
                out[k] = build(value_node)
            return out
        if tag != _SEQ:
            raise _NotPlain
        return [build(c) for c in n.value]

    try:
        return build(node)
    except RecursionError:
        raise _NotPlain from None


_PLAIN_KEYS = _PLAIN_SCALARS | {_STR}


def _yaml_sharp_v(value) -> str:
    """Go's ``%#v`` of a value go-yaml v2 decoded into interface{} (maps are
    ``map[interface {}]interface {}``, keys sorted as fmt sorts them)."""
    from kubesim.api.gofmt import go_sharp_v

    if isinstance(value, dict):
        body = ", ".join(f"{go_sharp_v(k)}:{_yaml_sharp_v(v)}" for k, v in sorted(value.items()))
        return "map[interface {}]interface {}{" + body + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_yaml_sharp_v(v) for v in value) + "}"
    return go_sharp_v(value)


def _expanded_size(node, memo: dict, limit: int) -> int:
    """Number of nodes the document would have with every alias expanded (stops past limit)."""
    from kubesim.codec.pyyaml import import_yaml

    yaml = import_yaml()

    stack = [(node, False)]
    # iterative post-order to survive deep nesting
    while stack:
        n, done = stack.pop()
        nid = id(n)
        if nid in memo and not done:
            continue
        if isinstance(n, yaml.ScalarNode):
            memo[nid] = 1
            continue
        children = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else list(n.value)
        if not done:
            memo[nid] = -1  # in progress (guards recursive aliases)
            stack.append((n, True))
            for c in children:
                if id(c) not in memo:
                    stack.append((c, False))
            continue
        total = 1
        for c in children:
            s = memo.get(id(c), 1)
            if s < 0:  # an ancestor still being sized: the document contains itself
                return limit + 1
            total += s
            if total > limit:
                break
        memo[nid] = min(total, limit + 1)
    return memo[id(node)]


def decode_yaml(source: str, text: str) -> list:
    """Every document of one YAML stream (JSON is YAML too), decoded as sigs.k8s.io/yaml's
    YAMLToJSON decodes it (the last of duplicate keys wins, as for kubectl 1.36 and the kubelet's
    file source, pkg/kubelet/config/common.go), with aliases expanded within
    ``MAX_EXPANDED_NODES``. Raises ParseError(source, go-yaml's message), e.g. ``yaml: line 4:
    could not find expected ':'``."""
    from kubesim.codec.pyyaml import import_yaml

    yaml = import_yaml()

    loader = _loader_class()(text)
    docs = []
    # Without an alias (``*name``) a document's expanded size is its own size, and a node takes
    # at least a quarter of a character (an empty key and value around one ``:``): a stream too
    # short to hold MAX_EXPANDED_NODES nodes needs no count (a file of 1,000 pods: a tenth of
    # its decoding).
    count = "*" in text or 4 * len(text) + 4 > MAX_EXPANDED_NODES
    plain = "*" not in text  # no alias: no node is shared, each can be built as it is read
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            if count and _expanded_size(node, {}, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
                # also covers an anchor whose value contains itself
                raise ParseError(source, "yaml: document contains excessive aliasing")
            if plain:
                try:
                    docs.append(_construct_plain(loader, node))
                    continue
                except _NotPlain:
                    pass
            docs.append(loader.construct_document(node))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = e.problem or e.context or "invalid YAML"
        if problem == "exceeded maximum nesting depth":  # libyaml's limit is 1,000 levels
            problem = "exceeded max depth of 10000"  # go-yaml's words (its limit: 10,000)
        raise ParseError(source, f"yaml: {line}{problem}") from None
    except yaml.YAMLError as e:
        raise ParseError(source, f"yaml: {e}") from None
    finally:
        loader.dispose()
    return docs


def yaml_to_json(source: str, text: str) -> list:
    """decode_yaml as kubectl 1.36 reads a manifest (a duplicate key keeps its last value), with
    the wrapping its errors carry (sigs.k8s.io/yaml's Unmarshal: ``error converting YAML to
    JSON: yaml: ...``)."""
    try:
        return decode_yaml(source, text)
    except ParseError as e:
        raise ParseError(source, "error converting YAML to JSON: " + e.detail) from None


def load(paths: list[str], recursive: bool = False, stdin=None) -> list[Document]:
    """All documents from all ``-f`` sources, in order."""
    docs: list[Document] = []
    for source, text in read_sources(paths, recursive, stdin):
        for doc in parse_documents(source, text):
            _check_metadata(doc)
            docs.append(doc)
    return docs


def _check_metadata(doc: Document) -> None:
    """cli-runtime's metadataValidatingDecoder (pkg/resource/metadata_decoder.go): the builder
    decodes each document's metadata into the typed ObjectMeta before using it, so a wrongly
    typed field (``name: 5``, ``labels: [a]``) fails on the client as ``unable to decode``."""
    md = doc.obj.get("metadata")
    if md is None or not all(isinstance(doc.obj.get(f), str) for f in ("apiVersion", "kind")):
        return  # (kubectl's validation, before the decode, refuses such a type: kubectl.resource)
    from kubesim.api.gofmt import go_quote
    from kubesim.codec.schema import is_strict_message, validate_structure

    head = {"apiVersion": doc.obj.get("apiVersion", ""), "kind": doc.obj.get("kind", ""), "metadata": md}
    bad = [m for m in validate_structure(head) if not is_strict_message(m)]
    if bad:
        raise RawError(f"error: unable to decode {go_quote(doc.source)}: {bad[0]}")
