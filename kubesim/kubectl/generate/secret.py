"""``create secret generic|tls|docker-registry``: a Secret from literals, files, directories and
env files (with ``--type``), from a PEM certificate and key, or a registry's docker config; with
``--append-hash``.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_secret.go (``createSecret``:
literals, then files, then env files; ``addKeyFromLiteralToSecret``'s refusals),
create_secret_tls.go (``createSecretTLS``: both files read, then ``tls.X509KeyPair``,
``kubesim.api.x509keypair``), create_secret_docker.go
(``handleDockerCfgJSONContent``: ``{"auths": {server: {username, password, email, auth}}}``;
a ``--from-file`` without a key is ``.dockerconfigjson``) and pkg/util/hash/hash.go
(``SecretHash``). The file and env-file readers are the ConfigMap generator's
(``kubesim.kubectl.generate.configmap``), as kubectl's ``util.ParseFileSource``/
``cmdutil.AddFromEnvFile`` serve both.
"""

from __future__ import annotations

import base64

from kubesim.api.gofmt import go_quote
from kubesim.errors import UsageError
from kubesim.kubectl.generate.configmap import (
    _is_dir,
    file_source_files,
    parse_literal_source,
    read_env_file,
)
from kubesim.kubectl.generate.objects import metadata

SUBCOMMANDS = ("generic", "tls", "docker-registry")
DEFAULT_DOCKER_SERVER = "https://index.docker.io/v1/"


def _new(name: str, namespace: str | None, type_: str) -> dict:
    """newSecretObj (``data`` a map of bytes until it is printed)."""
    return {"kind": "Secret", "apiVersion": "v1", "metadata": metadata(name, namespace), "data": {}, "type": type_}


def _add(secret: dict, key: str, value: bytes) -> None:
    """addKeyFromLiteralToSecret."""
    from kubesim.api.content import config_map_key_errors

    errs = config_map_key_errors(key)
    if errs:
        raise UsageError(f"{go_quote(key)} is not valid key name for a Secret {';'.join(errs)}")
    if key in secret["data"]:
        raise UsageError(f"cannot add key {key}, another key by that name already exists")
    secret["data"][key] = value


def _add_file(secret: dict, key: str, path: str) -> None:
    """addKeyFromFileToSecret (os.ReadFile's error as Go words it)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise UsageError(f"open {path}: {(e.strerror or str(e)).lower()}") from None
    _add(secret, key, data)


def _from_files(secret: dict, sources: list[str]) -> None:
    """handleSecretFromFileSources: a file, or each regular file of a directory."""
    for key, path in file_source_files(sources):
        _add_file(secret, key, path)


def secret_hash(secret: dict) -> str:
    """hash.SecretHash: sha256 of the JSON of kind, name, type and data (and immutable), its
    first ten hex digits with vowels and look-alikes turned into consonants."""
    import hashlib

    from kubesim.api.gofmt import go_json

    m: dict = {"kind": "Secret", "type": secret.get("type") or "", "name": secret["metadata"]["name"],
               "data": {k: base64.b64encode(v).decode() for k, v in secret["data"].items()}}
    if secret.get("immutable") is not None:
        m["immutable"] = secret["immutable"]
    digest = hashlib.sha256(go_json(m).encode()).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


def _finish(secret: dict, append_hash: bool) -> dict:
    """The hash suffix, then the typed object as it prints: ``data`` base64 (omitted when
    empty), ``type`` omitted when empty."""
    if append_hash:
        secret["metadata"]["name"] = f"{secret['metadata']['name']}-{secret_hash(secret)}"
    data = secret.pop("data")
    type_ = secret.pop("type")
    if data:
        secret["data"] = {k: base64.b64encode(v).decode() for k, v in sorted(data.items())}
    if type_:
        secret["type"] = type_
    return secret


def generic(name: str, namespace: str | None, type_: str, file_sources: list[str], literal_sources: list[str],
            env_file_sources: list[str], append_hash: bool, environ: dict) -> dict:
    """CreateSecretOptions.createSecret: literals, then files, then env files."""
    secret = _new(name, namespace, type_)
    for source in literal_sources:
        key, value = parse_literal_source(source)
        _add(secret, key, value.encode())
    _from_files(secret, file_sources)
    for path in env_file_sources:
        if _is_dir(path):
            raise UsageError("env secret file cannot be a directory")
        for key, value in read_env_file(path, environ):
            _add(secret, key, value.encode())
    return _finish(secret, append_hash)


def _read(path: str) -> bytes:
    """create_secret_tls.go readFile."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as e:
        raise UsageError(f"Cannot read file {path}, open {path}: {(e.strerror or str(e)).lower()}") from None


def tls(name: str, namespace: str | None, cert: str, key: str, append_hash: bool) -> dict:
    """CreateSecretTLSOptions.createSecretTLS."""
    from kubesim.api.x509keypair import KeyPairError, check

    cert_pem, key_pem = _read(cert), _read(key)
    try:
        check(cert_pem, key_pem)
    except KeyPairError as e:
        raise UsageError(str(e)) from None
    secret = _new(name, namespace, "kubernetes.io/tls")
    secret["data"]["tls.crt"] = cert_pem
    secret["data"]["tls.key"] = key_pem
    return _finish(secret, append_hash)


def docker_config_json(username: str, password: str, email: str, server: str) -> bytes:
    """handleDockerCfgJSONContent: json.Marshal of DockerConfigJSON (omitempty entries)."""
    from kubesim.api.gofmt import go_json

    entry = {"username": username, "password": password, "email": email,
             "auth": base64.b64encode(f"{username}:{password}".encode()).decode()}
    # struct fields in their order (DockerConfigEntry), not sorted as a map's keys are
    return go_json({"auths": {server: {k: v for k, v in entry.items() if v}}}, sort_keys=False).encode()


def docker_registry(name: str, namespace: str | None, file_sources: list[str], username: str, password: str,
                    email: str, server: str, append_hash: bool) -> dict:
    """CreateSecretDockerRegistryOptions: Complete (a file without a key is
    ``.dockerconfigjson``), Validate, createSecretDockerRegistry."""
    file_sources = [s if "=" in s else ".dockerconfigjson=" + s for s in file_sources]
    if not file_sources and (not username or not password or not server):
        raise UsageError("either --from-file or the combination of --docker-username, --docker-password and "
                         "--docker-server is required")
    secret = _new(name, namespace, "kubernetes.io/dockerconfigjson")
    if file_sources:
        _from_files(secret, file_sources)
    else:
        secret["data"][".dockerconfigjson"] = docker_config_json(username, password, email, server)
    return _finish(secret, append_hash)
