"""The audit Events of one request, and the log they are written to.

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/filters/audit.go (``WithAudit``: the
``RequestReceived`` event before the request is handled, ``ResponseComplete`` after it,
``ResponseStarted`` first for a watch; a stage in ``omitStages`` is not written; level None
writes nothing), pkg/audit/request.go (``NewEventFromRequest``, ``LogRequestObject``: the
objectRef and, from level Request, the request's object; ``LogResponseObject``: the response
status's code, or a failure's status, message, reason and details; from level RequestResponse
the response object; ``omitManagedFields`` drops ``metadata.managedFields`` from both),
pkg/audit/context.go (``AddAuditAnnotations``: the annotations of the authorizer and admission,
written on the events after the request was authorized) and plugin/pkg/audit/log/backend.go
(``--audit-log-format=json``: each Event as one line of JSON, appended).

An Event's keys are in audit.k8s.io/v1's field order (``json.Marshal`` of the Go struct); its
maps (annotations, the user's extra) sorted, as Go writes a map.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from kubesim.apiserver.audit.policy import (
    METADATA,
    NONE,
    REQUEST,
    REQUEST_RECEIVED,
    REQUEST_RESPONSE,
    RESPONSE_COMPLETE,
    RESPONSE_STARTED,
    RequestAuditConfig,
    level_less,
)


@dataclass
class RequestRecord:
    """What the API server knows of one request by the time it has answered it."""

    audit_id: str
    verb: str
    request_uri: str
    user: dict  # authenticationv1.UserInfo: username, uid, groups, extra
    impersonated_user: dict | None = None
    source_ips: tuple = ()
    user_agent: str = ""
    object_ref: dict | None = None  # resource, namespace, name, uid, apiGroup, apiVersion, resourceVersion, subresource
    received: float = 0.0
    completed: float = 0.0
    status: dict = field(default_factory=lambda: {"metadata": {}, "code": 200})
    annotations: dict = field(default_factory=dict)
    request_object: dict | None = None
    response_object: dict | None = None
    watch: bool = False


_REF_KEYS = ("resource", "namespace", "name", "uid", "apiGroup", "apiVersion", "resourceVersion", "subresource")


def _without_managed_fields(obj: dict | None) -> dict | None:
    md = (obj or {}).get("metadata")
    if not isinstance(md, dict) or "managedFields" not in md:
        return obj
    return {**obj, "metadata": {k: v for k, v in md.items() if k != "managedFields"}}


def _user(u: dict) -> dict:
    out = {k: u[k] for k in ("username", "uid", "groups") if u.get(k)}
    if u.get("extra"):
        out["extra"] = {k: list(v) for k, v in sorted(u["extra"].items())}
    return out


def events(cfg: RequestAuditConfig, r: RequestRecord) -> list[dict]:
    """The events the request's audit config writes, in order."""
    from kubesim.clock import format_micro_time

    if cfg.level == NONE:
        return []
    stages = [REQUEST_RECEIVED] + ([RESPONSE_STARTED] if r.watch else []) + [RESPONSE_COMPLETE]
    out = []
    for stage in stages:
        if stage in cfg.omit_stages:
            continue
        ev: dict = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": cfg.level, "auditID": r.audit_id,
                    "stage": stage, "requestURI": r.request_uri, "verb": r.verb, "user": _user(r.user)}
        if r.impersonated_user is not None:
            ev["impersonatedUser"] = _user(r.impersonated_user)
        if r.source_ips:
            ev["sourceIPs"] = list(r.source_ips)
        if r.user_agent:
            ev["userAgent"] = r.user_agent
        after = stage != REQUEST_RECEIVED
        if r.object_ref is not None:
            ref = {k: r.object_ref[k] for k in _REF_KEYS if r.object_ref.get(k)}
            if not after:  # the request's object (a create's name, its uid) is read once it is decoded
                ref.pop("uid", None)
                ref.pop("resourceVersion", None)
                if r.verb == "create" and not ref.get("subresource"):
                    ref.pop("name", None)
            ev["objectRef"] = ref
        if after:
            ev["responseStatus"] = r.status
            if not level_less(cfg.level, REQUEST) and r.request_object is not None:
                ev["requestObject"] = (_without_managed_fields(r.request_object) if cfg.omit_managed_fields
                                       else r.request_object)
            if not level_less(cfg.level, REQUEST_RESPONSE) and r.response_object is not None and \
                    stage == RESPONSE_COMPLETE:
                ev["responseObject"] = (_without_managed_fields(r.response_object) if cfg.omit_managed_fields
                                        else r.response_object)
        ev["requestReceivedTimestamp"] = format_micro_time(r.received)
        ev["stageTimestamp"] = format_micro_time(r.completed if after else r.received)
        if after and r.annotations and not level_less(cfg.level, METADATA):
            ev["annotations"] = dict(sorted(r.annotations.items()))
        out.append(ev)
    return out


def line(ev: dict) -> str:
    """One Event as the json log backend writes it."""
    from kubesim.api.gofmt import go_json

    return go_json(ev, sort_keys=False) + "\n"


def append(root: str, log_file: str, lines: list[str]) -> None:
    """Append to the log (a node file under the state's ``root``), making its directory as the
    log writer does (MkdirAll), never through a symbolic link (kubesim.store.files)."""
    if not lines:
        return
    from kubesim.apiserver.storage import make_state_dirs

    parts = [p for p in os.path.relpath(os.path.dirname(log_file), root).split(os.sep) if p not in ("", ".")]
    directory = make_state_dirs(root, *parts)
    fd = os.open(os.path.join(directory, os.path.basename(log_file)),
                 os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write("".join(lines))
