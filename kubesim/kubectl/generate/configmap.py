"""``create configmap``: from literals, files, directories (regular files only) and env files, with
``--append-hash``.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_configmap.go, pkg/util/util.go
(ParseFileSource, ParseLiteralSource), pkg/cmd/util/env_file.go (AddFromEnvFile),
pkg/util/hash/hash.go (ConfigMapHash).
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote
from kubesim.errors import UsageError
from kubesim.kubectl.generate.objects import metadata


def file_source_files(sources: list[str]):
    """(key, path) of each file the ``--from-file`` sources name: a file (under its own name or
    the given key), or each regular file of a directory, by name (handleConfigMapFromFileSources
    and handleSecretFromFileSources walk them alike)."""
    import os

    for source in sources:
        key, path = parse_file_source(source)
        if not _is_dir(path):
            yield key, path
            continue
        if "=" in source:
            raise UsageError("cannot give a key name for a directory path")
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as e:
            raise UsageError(f"error listing files in {path}: {(e.strerror or str(e)).lower()}") from None
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                yield entry.name, os.path.join(path, entry.name)


def parse_file_source(source: str) -> tuple[str, str]:
    """util.ParseFileSource: ``path`` (key: its base name) or ``key=path``."""
    n = source.count("=")
    if n == 0:  # path.Base
        base = source.rstrip("/")
        return (base.rsplit("/", 1)[-1] if base else ("/" if source else ".")), source
    if n == 1 and source.startswith("="):
        raise UsageError(f"key name for file path {source[1:]} missing")
    if n == 1 and source.endswith("="):
        raise UsageError(f"file path for key name {source[:-1]} missing")
    if n > 1:
        raise UsageError("key names or file paths cannot contain '='")
    key, path = source.split("=")
    return key, path


def parse_literal_source(source: str) -> tuple[str, str]:
    """util.ParseLiteralSource: ``key=value`` (the value may hold ``=``)."""
    if source.startswith("=") or "=" not in source:
        raise UsageError(f"invalid literal source {source}, expected key=value")
    key, value = source.split("=", 1)
    return key, value


def _is_dir(path: str) -> bool:
    """os.Stat's verdict, with kubectl's error for a path that is not there."""
    import os
    import stat

    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as e:
        raise UsageError(f"error reading {path}: {(e.strerror or str(e)).lower()}") from None


def _add_key(cm: dict, key: str, value: str | bytes) -> None:
    """addKeyFromLiteralToConfigMap / addKeyFromFileToConfigMap's checks, then the key."""
    from kubesim.api.content import config_map_key_errors

    errs = config_map_key_errors(key)
    if errs:
        raise UsageError(f"{go_quote(key)} is not a valid key name for a ConfigMap: {','.join(errs)}")
    name = cm["metadata"]["name"]
    for field, word in (("data", "Data"), ("binaryData", "BinaryData")):
        if key in cm[field]:
            raise UsageError(f"cannot add key {go_quote(key)}, another key by that name already exists in {word} "
                             f"for ConfigMap {go_quote(name)}")
    if isinstance(value, bytes):
        cm["binaryData"][key] = value
    else:
        cm["data"][key] = value


def _add_file(cm: dict, key: str, path: str) -> None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise UsageError(f"open {path}: {(e.strerror or str(e)).lower()}") from None
    try:
        _add_key(cm, key, data.decode("utf-8"))
    except UnicodeDecodeError:
        _add_key(cm, key, data)


def read_env_file(path: str, environ: dict) -> list[tuple[str, str]]:
    """cmdutil.AddFromEnvFile: ``KEY=VALUE`` lines (a BOM on the first line, blank lines and ``#``
    comments skipped; ``KEY`` alone takes the value from the environment)."""
    from kubesim.api.content import env_var_name_errors

    with open(path, "rb") as fh:
        raw = fh.read()
    out = []
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # bufio.Scanner: no empty token after a final newline
    for i, line in enumerate(lines):
        line = line[:-1] if line.endswith(b"\r") else line
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"env file {path} contains invalid utf8 bytes at line {i + 1}: "
                             f"[{' '.join(str(b) for b in line)}]") from None
        if i == 0:
            text = text.removeprefix("\ufeff")
        text = text.lstrip()
        if not text or text.startswith("#"):
            continue
        key, sep, value = text.partition("=")
        errs = env_var_name_errors(key)
        if errs:
            raise UsageError(f"{go_quote(key)} is not a valid key name: {';'.join(errs)}")
        out.append((key, value if sep else environ.get(key, "")))
    return out


def config_map_hash(cm: dict) -> str:
    """hash.ConfigMapHash: sha256 of the JSON of kind, name, data (and binaryData, immutable),
    its first ten hex digits with vowels and look-alikes turned into consonants."""
    import base64
    import hashlib

    from kubesim.api.gofmt import go_json

    m: dict = {"kind": "ConfigMap", "name": cm["metadata"]["name"], "data": cm.get("data") or {}}
    if cm.get("immutable") is not None:
        m["immutable"] = cm["immutable"]
    if cm.get("binaryData"):
        m["binaryData"] = {k: base64.b64encode(v).decode() for k, v in cm["binaryData"].items()}
    digest = hashlib.sha256(go_json(m).encode()).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


def config_map(name: str, namespace: str | None, file_sources: list[str], literal_sources: list[str],
               env_file_sources: list[str], append_hash: bool, environ: dict) -> dict:
    """ConfigMapOptions.createConfigMap: files first, then literals, then env files."""
    import base64

    cm: dict = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": metadata(name, namespace), "data": {},
                "binaryData": {}}
    for key, path in file_source_files(file_sources):
        _add_file(cm, key, path)
    for source in literal_sources:
        _add_key(cm, *parse_literal_source(source))
    for path in env_file_sources:
        if _is_dir(path):
            raise UsageError("env config file cannot be a directory")
        for key, value in read_env_file(path, environ):
            _add_key(cm, key, value)
    if append_hash:
        cm["metadata"]["name"] = f"{name}-{config_map_hash(cm)}"
    # omitempty: the empty maps go; []byte values are base64 in JSON
    binary = cm.pop("binaryData")
    data = cm.pop("data")
    if data:
        cm["data"] = data
    if binary:
        cm["binaryData"] = {k: base64.b64encode(v).decode() for k, v in binary.items()}
    return cm
