"""Validation of core/v1 Secrets and ServiceAccounts, as their registry strategies run it.

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/validation/validation.go``:
``ValidateSecret`` (the name, every ``data`` key as ``IsConfigMapKey``, the 1 MiB total, and
what each well-known type requires: the service account name annotation of a
``service-account-token``, a JSON object in ``.dockercfg``/``.dockerconfigjson``, ``username``
or ``password`` for ``basic-auth``, a non-empty ``ssh-privatekey``, ``tls.crt`` and
``tls.key``), ``ValidateSecretUpdate`` (``type`` immutable; an immutable Secret keeps ``data``
and ``immutable``) and ``ValidateServiceAccount``/``ValidateServiceAccountUpdate`` (metadata
only). The well-known keys and types are ``k8s.io/api/core/v1/types.go``'s.

Values are the stored form: ``data`` holds base64 (``stringData`` was merged into it when the
request was decoded, ``kubesim.api.core.defaults.set_defaults_secret``; malformed base64 is
refused at decoding, before validation). Key errors come in key order (upstream walks a Go
map, whose order varies).
"""

from __future__ import annotations

from kubesim.api.meta.validation import (
    name_is_dns_subdomain,
    too_long,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, forbidden, invalid, required

MAX_SECRET_SIZE = 1024 * 1024  # core.MaxSecretSize

SECRET_TYPE_OPAQUE = "Opaque"
SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg"
SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"
SECRET_TYPE_BASIC_AUTH = "kubernetes.io/basic-auth"
SECRET_TYPE_SSH_AUTH = "kubernetes.io/ssh-auth"
SECRET_TYPE_TLS = "kubernetes.io/tls"
SECRET_TYPE_BOOTSTRAP_TOKEN = "bootstrap.kubernetes.io/token"

SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name"
SERVICE_ACCOUNT_UID_KEY = "kubernetes.io/service-account.uid"
SERVICE_ACCOUNT_TOKEN_KEY = "token"
DOCKER_CONFIG_KEY = ".dockercfg"
DOCKER_CONFIG_JSON_KEY = ".dockerconfigjson"
BASIC_AUTH_USERNAME_KEY = "username"
BASIC_AUTH_PASSWORD_KEY = "password"
SSH_AUTH_PRIVATE_KEY = "ssh-privatekey"
TLS_CERT_KEY = "tls.crt"
TLS_PRIVATE_KEY_KEY = "tls.key"

IMMUTABLE_MESSAGE = "field is immutable when `immutable` is set"


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def decoded(value) -> bytes:
    """A ``data`` value's bytes (already checked as base64 when the request was decoded)."""
    import base64
    import binascii

    try:
        return base64.b64decode(value if isinstance(value, str) else "", validate=True)
    except (binascii.Error, ValueError):
        return b""


def validate_secret(secret: dict) -> list[FieldError]:
    """ValidateSecret."""
    from kubesim.api.content import config_map_key_errors

    meta = _dict(secret.get("metadata"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    data = _dict(secret.get("data"))
    total = 0
    for key in sorted(data):
        errs.extend(invalid(f"data[{key}]", key, m) for m in config_map_key_errors(key))
        total += len(decoded(data[key]))
    if total > MAX_SECRET_SIZE:
        errs.append(too_long("data", MAX_SECRET_SIZE))
    type_ = secret.get("type") or ""
    if type_ == SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
        if not _dict(meta.get("annotations")).get(SERVICE_ACCOUNT_NAME_KEY):
            errs.append(required(f"metadata.annotations[{SERVICE_ACCOUNT_NAME_KEY}]"))
    elif type_ in (SECRET_TYPE_DOCKERCFG, SECRET_TYPE_DOCKER_CONFIG_JSON):
        key = DOCKER_CONFIG_KEY if type_ == SECRET_TYPE_DOCKERCFG else DOCKER_CONFIG_JSON_KEY
        if key not in data:
            errs.append(required(f"data[{key}]"))
        else:
            from kubesim.api.gojsonscan import unmarshal_into_map_error

            msg = unmarshal_into_map_error(decoded(data[key]))
            if msg:
                errs.append(invalid(f"data[{key}]", "<secret contents redacted>", msg))
    elif type_ == SECRET_TYPE_BASIC_AUTH:
        if BASIC_AUTH_USERNAME_KEY not in data and BASIC_AUTH_PASSWORD_KEY not in data:
            errs.append(required(f"data[{BASIC_AUTH_USERNAME_KEY}]"))
            errs.append(required(f"data[{BASIC_AUTH_PASSWORD_KEY}]"))
    elif type_ == SECRET_TYPE_SSH_AUTH:
        if not decoded(data.get(SSH_AUTH_PRIVATE_KEY)):
            errs.append(required(f"data[{SSH_AUTH_PRIVATE_KEY}]"))
    elif type_ == SECRET_TYPE_TLS:
        if TLS_CERT_KEY not in data:
            errs.append(required(f"data[{TLS_CERT_KEY}]"))
        if TLS_PRIVATE_KEY_KEY not in data:
            errs.append(required(f"data[{TLS_PRIVATE_KEY_KEY}]"))
    return errs


def validate_secret_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateSecretUpdate: the type may not change; an immutable Secret keeps its data."""
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    if (new.get("type") or "") != (old.get("type") or ""):
        errs.append(invalid("type", new.get("type") or "", "field is immutable"))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(forbidden("immutable", IMMUTABLE_MESSAGE))
        if _dict(new.get("data")) != _dict(old.get("data")):
            errs.append(forbidden("data", IMMUTABLE_MESSAGE))
    return errs + validate_secret(new)


def validate_service_account(sa: dict) -> list[FieldError]:
    """ValidateServiceAccount: its metadata (the name a DNS subdomain)."""
    return validate_object_meta(_dict(sa.get("metadata")), True, name_is_dns_subdomain)


def validate_service_account_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateServiceAccountUpdate."""
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    return errs + validate_service_account(new)
