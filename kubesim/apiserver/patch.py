"""The API server's PATCH: which patch applies, which error a failed one becomes, and the typed
decode of the result with ``fieldValidation=Warn`` (kubectl's default), which drops unknown
fields with a warning.

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (patchResource,
jsonPatcher, smpPatcher, the strict/warn decode). The patch algorithms (strategic merge, JSON
merge, JSON patch) and each field's patch strategy are ``kubesim.api.patch``.
"""

from __future__ import annotations

import copy
import json
import re

from kubesim.api.gofmt import go_quote, go_sprint
from kubesim.api.kinds import KindInfo
from kubesim.api.patch import (
    PatchFailure,
    decode_json_patch,
    json_merge_patch,
    json_patch,
    strategic_merge_patch,
)
from kubesim.errors import BadRequest, RequestInvalid, StatusError

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _drop_path(obj, path: str) -> None:
    parts = [(m.group(1), m.group(2)) for m in _PATH_PART.finditer(path)]
    cur = obj
    for name, idx in parts[:-1]:
        try:
            cur = cur[name] if name is not None else cur[int(idx)]
        except (KeyError, IndexError, TypeError):
            return
    name, idx = parts[-1]
    if isinstance(cur, dict) and name is not None:
        cur.pop(name, None)


def decode_like_the_server(obj: dict, info: KindInfo, warn: list[str], invalid_value: str) -> dict:
    """The typed decode of a patched object with ``fieldValidation=Warn``: a type mismatch is an
    Invalid ``patch`` error; unknown fields are dropped with one warning each."""
    from kubesim.codec.schema import (
        is_strict_message,
        schema_issues,
        validate_structure,
    )

    messages = validate_structure(obj)
    if messages and not all(is_strict_message(m) for m in messages):
        raise PatchFailure(RequestInvalid([f"patch: Invalid value: {go_quote(invalid_value)}: {messages[0]}"]))
    if messages:
        warn.extend(messages)
        obj = copy.deepcopy(obj)
        for kind, path in schema_issues(obj):
            if kind == "unknown":
                _drop_path(obj, path)
    return obj


def patch_object(info: KindInfo, live: dict, patch_type: str, patch,
                 field_validation: str = "Warn") -> tuple[dict, list[str]]:
    """What PATCH of ``live`` stores: (the new object, warnings). Raises PatchFailure or the
    update's StatusError (Invalid, ...). ``patch`` is the decoded JSON; ``field_validation``
    ``Warn`` (kubectl's default) drops unknown fields with a warning, ``Strict`` refuses them."""
    if patch_type == "strategic" and info.crd is not None:
        # customresource_handler.go serves no strategic merge patch: there are no Go types
        # carrying patch strategies
        err = StatusError("the body of the request was in an unknown format - accepted media types include: "
                          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
        err.reason = "UnsupportedMediaType"
        raise PatchFailure(err)
    original = copy.deepcopy(live)  # managedFields included: a patch may replace them
    if patch_type == "json":
        patched = json_patch(original, decode_json_patch(patch))
        shown = json.dumps(patched, separators=(",", ":"), sort_keys=True)
    elif patch_type == "merge":
        patched = json_merge_patch(original, patch)
        shown = json.dumps(patched, separators=(",", ":"), sort_keys=True)
    else:
        patched = strategic_merge_patch(original, patch)
        shown = go_sprint(patch)
    if not isinstance(patched, dict):
        raise PatchFailure(BadRequest("Object 'Kind' is missing in '" + json.dumps(patched, separators=(",", ":")) + "'"))
    warnings: list[str] = []
    md = patched.get("metadata") if isinstance(patched.get("metadata"), dict) else {}
    name = live["metadata"]["name"]
    if md.get("name", name) != name:
        raise PatchFailure(BadRequest(f"the name of the object ({md.get('name')}) does not match the name on the URL ({name})"))
    if info.namespaced and md.get("namespace", live["metadata"].get("namespace")) != live["metadata"].get("namespace"):
        raise PatchFailure(BadRequest("the namespace of the provided object does not match the namespace sent on the request"))
    if patched.get("apiVersion") != live.get("apiVersion") or patched.get("kind") != live.get("kind"):
        raise PatchFailure(RequestInvalid([(f"patch: Invalid value: {go_quote(shown)}: Object 'Kind' is missing in "
                                            f"'{shown}'")]))
    if field_validation == "Strict":
        strict_decode(patched)
        return patched, warnings
    patched = decode_like_the_server(patched, info, warnings, shown)
    return patched, warnings


def strict_decode(obj: dict) -> None:
    """The typed decode with fieldValidation=Strict (kubectl edit's default --validate)."""
    from kubesim.codec.schema import is_strict_message, validate_structure

    messages = validate_structure(obj)
    if not messages:
        return
    if all(is_strict_message(m) for m in messages):
        raise BadRequest("strict decoding error: " + ", ".join(messages))
    shown = json.dumps(obj, separators=(",", ":"), sort_keys=True)
    raise PatchFailure(RequestInvalid([f"patch: Invalid value: {go_quote(shown)}: {messages[0]}"]))
