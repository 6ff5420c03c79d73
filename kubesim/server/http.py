"""The HTTP side of ``kubesim serve``: routes, request decoding and responses, on the standard
library's ``ThreadingHTTPServer``.

Every request is served as one command is: ``Backend.call`` opens a session on the state
(``kubesim.controlplane.session``) under one lock (one request at a time; the state's own lock
keeps CLI commands out meanwhile), calls the ``LocalClient`` — the same client interface the
CLI's kubectl uses — and lets the session settle and commit (a ``dryRun=All`` request's session
is rolled back). Reads use the session's read-only form (a snapshot when nothing is due).

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (the paths),
handlers/{get,create,update,patch,delete,watch}.go, handlers/responsewriters/status.go,
staging/src/k8s.io/apiserver/pkg/storage/cacher (list pagination by ``continue``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from kubesim.api import kinds
from kubesim.errors import BadRequest, KubesimError, StatusError
from kubesim.server import discovery, status
from kubesim.server.table import table, table_api_version, wants_table

MAX_BODY = 3 * 1024 * 1024  # kube-apiserver's MaxRequestBodyBytes
WATCH_POLL = 0.25  # seconds between a watch's looks at the state when this server wrote nothing
TICK = 0.5  # seconds between the ticker's settles
STREAMS = ("exec", "attach", "portforward")  # the pod subresources served by kubesim.server.stream

JSON = "application/json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = {"application/json-patch+json": "json", "application/merge-patch+json": "merge",
               "application/strategic-merge-patch+json": "strategic"}


class HTTPError(Exception):
    def __init__(self, body: dict):
        super().__init__(body.get("message", ""))
        self.body = body


def _error(reason: str, message: str, details: dict | None = None) -> HTTPError:
    return HTTPError(status.status(reason, message, details))


class Backend:
    """The state, served one request at a time through the client interface."""

    def __init__(self, options, speed: float | None = None):
        self.options = options
        # --speed: the simulated clock gains (speed - 1) seconds a wall second (a pinned clock,
        # speed), added before each write and each tick
        self.speed = speed
        self._wall = time.monotonic()
        self.lock = threading.RLock()
        self.changed = threading.Condition()  # notified after each write this server commits
        # the oldest resourceVersion a watch may start from: the state's when the server started
        # (its "watch cache" holds nothing older; a client from before gets 410 and lists again)
        self.oldest_rv: int | None = None

    @contextlib.contextmanager
    def client(self, write: bool = True, dry_run: bool = False, impersonate: tuple | None = None,
               field_manager: str = "kubectl"):
        from kubesim.controlplane.session import session

        options = self.options._replace(impersonate=impersonate, field_manager=field_manager)
        with self.lock:
            c = None
            try:
                with session(options, commit=not dry_run, read_only=not write and not dry_run) as c:
                    if self.speed and write and not dry_run:
                        self._catch_up(c)
                    yield c
            finally:
                if c is not None:
                    # the request's cluster is done with: what its components kept on it
                    # (caches, closures over it) goes now, by reference counting, else their
                    # cycles hold every object the request read until a full collection
                    c.cluster.__dict__.clear()
        if write and not dry_run:
            self.notify()

    def serve_custom_kinds(self) -> None:
        """For the request about to be served: the kinds of the state's CustomResourceDefinitions,
        read (once) when a path or name is not a built-in kind's."""
        crds: list[dict] | None = None

        def source() -> list[dict]:
            nonlocal crds
            if crds is None:
                import copy

                crds = []
                with self.client(write=False) as c:
                    crds = copy.deepcopy(c.list(kinds.REGISTRY.by_gvk[("apiextensions.k8s.io/v1",
                                                                        "CustomResourceDefinition")]))
                kinds.REGISTRY.attach_custom(source)
            return crds

        kinds.REGISTRY.attach_custom(source)

    def notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wait_for_change(self, timeout: float) -> None:
        """Until this server commits a write, or ``timeout`` (writes by other processes on the
        same state are seen at the next look)."""
        with self.changed:
            self.changed.wait(timeout)

    def _catch_up(self, c) -> None:
        """--speed: move the simulated clock by what it gained on the wall clock since last time
        (through every due moment on the way, as ``kubesim advance`` does)."""
        wall = time.monotonic()
        elapsed, self._wall = wall - self._wall, wall
        gain = elapsed * (self.speed if c.cluster.clock.pinned is not None else self.speed - 1)
        if gain > 0:
            c.advance(gain)

    def tick(self) -> None:
        """Let the control plane catch up with the wall clock (a read session settles when
        something is due)."""
        with self.client(write=bool(self.speed)) as c:
            if self.oldest_rv is None:
                self.oldest_rv = c.cluster.store.resource_version()
        self.notify()  # (the settle may have written: watches look again)


# -- paths ---------------------------------------------------------------------------------

class Target:
    """What a resource path names."""

    def __init__(self, info, namespace, name, sub):
        self.info, self.namespace, self.name, self.sub = info, namespace, name, sub


def resolve(parts: list[str]) -> Target | dict | None:
    """``parts`` of a path under /api or /apis: a Target, a discovery document, or None (404)."""
    if parts[:1] == ["api"]:
        group, rest = "", parts[1:]
        if not rest:
            return "api"
    elif parts[:1] == ["apis"]:
        if len(parts) == 1:
            return "apis"
        group, rest = parts[1], parts[2:]
        if not rest:
            return discovery.api_group(group)
    else:
        return None
    version, rest = rest[0], rest[1:]
    if not rest:
        return discovery.api_resource_list(group, version)
    infos = {k.plural: k for k in discovery.served_versions() if k.group == group and k.version == version}
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3 and rest[2] not in ("status", "finalize"):
        namespace, rest = rest[1], rest[2:]
        info = infos.get(rest[0])
        if info is None or not info.namespaced:
            return None
    else:
        info = infos.get(rest[0])
        if info is None:
            return None
    if len(rest) > 3:
        # nodes/NAME/proxy/<path>: the kubelet's endpoints (kubesim's serves configz)
        if not (info.kind == "Node" and rest[2] == "proxy"):
            return None
        return Target(info, namespace, rest[1], "proxy/" + "/".join(rest[3:]))
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    if sub is not None and sub.split("/")[0] not in {s[0] for s in discovery.subresources(info)}:
        return None
    return Target(info, namespace, name, sub)


# -- the handler -----------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body leave in one write (a buffered stream, flushed after each request), and
    # TCP_NODELAY: else the body waits for the client's delayed ACK, ~40 ms a response
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    server_version = "kubesim"
    backend: Backend  # set on the subclass the server makes
    address = ""

    def log_message(self, format, *args):
        pass

    # each verb goes through one dispatcher
    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def do_PATCH(self):
        self._dispatch("PATCH")

    def do_DELETE(self):
        self._dispatch("DELETE")

    @contextlib.contextmanager
    def client(self, write: bool = True, dry_run: bool = False):
        """The backend's client for this request, as the user its Impersonate-* headers name
        (kubectl --as, --as-group, --as-uid), else the kubeconfig's admin; the warnings the
        request drew (admission's) become its Warning headers."""
        user = self.headers.get("Impersonate-User")
        groups = tuple(self.headers.get_all("Impersonate-Group") or ())
        if not user and groups:
            raise _error("InternalError", "Internal error occurred: requested [{Kind:Group}] without impersonating a user")
        impersonate = (user, groups, self.headers.get("Impersonate-Uid") or "") if user else None
        manager = self.query.get("fieldManager") or prefix_from_user_agent(self.headers.get("User-Agent") or "")
        with self.backend.client(write=write, dry_run=dry_run, impersonate=impersonate,
                                 field_manager=manager) as c:
            yield c
            self.warnings.extend(c.warnings())

    def _dispatch(self, method: str) -> None:
        url = urlsplit(self.path)
        self.query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        self.method = method
        self.warnings: list[str] = []
        self.backend.serve_custom_kinds()
        try:
            body = self._read_body()
            self._route(method, [p for p in url.path.split("/") if p], body)
        except HTTPError as e:
            self._send_json(e.body["code"], e.body)
        except (StatusError, KubesimError) as e:
            body = status.from_error(e)
            self._send_json(body["code"], body)
        except OSError:  # the client went away
            self.close_connection = True
        except Exception as e:  # noqa: BLE001 - a bug must not kill the server: the apiserver's 500
            import traceback

            traceback.print_exc()
            body = status.status("InternalError", f"Internal error occurred: {type(e).__name__}: {e}")
            self._send_json(500, body)

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            n = int(length)
        except ValueError:
            raise _error("BadRequest", "invalid Content-Length") from None
        if n > MAX_BODY:
            self.close_connection = True
            left = min(n, 8 * MAX_BODY)  # read (and drop) what a client may still be sending
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
            raise _error("RequestEntityTooLarge", f"Request entity too large: limit is {MAX_BODY}")
        return self.rfile.read(n) if n > 0 else b""

    # -- responses ------------------------------------------------------------------------
    def _send(self, code: int, data: bytes, content_type: str = JSON) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache, private")
        for w in self.warnings:
            self.send_header("Warning", '299 - "' + w.replace('"', '\\"') + '"')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.method != "HEAD":
            self.wfile.write(data)

    def _send_json(self, code: int, obj) -> None:
        self._send(code, json.dumps(obj, separators=(",", ":")).encode())

    # -- routing --------------------------------------------------------------------------
    def _route(self, method: str, parts: list[str], body: bytes) -> None:
        path = "/" + "/".join(parts)
        if method == "GET" and path in ("/healthz", "/livez", "/readyz"):
            return self._send(200, b"ok", "text/plain; charset=utf-8")
        if method == "GET" and path == "/version":
            return self._send_json(200, discovery.VERSION)
        if parts[:1] == ["openapi"]:
            return self._openapi(method, parts[1:])
        if method == "POST" and path in _SELF_REVIEWS:
            return self._self_review(_SELF_REVIEWS[path], body)
        if parts[:3] == ["apis", "metrics.k8s.io", "v1beta1"] and len(parts) > 3:
            return self._metrics(method, path)
        target = resolve(parts) if parts else None
        if target is None:
            raise HTTPError(status.not_found_path())
        if not isinstance(target, Target):
            if method != "GET":
                raise _method_not_allowed(method, path)
            if target == "api":
                return self._send_json(200, discovery.api_versions(self.address))
            if target == "apis":
                return self._send_json(200, discovery.api_group_list())
            return self._send_json(200, target)
        if target.info.kind in discovery.DEPRECATED:
            self.warnings.append(discovery.DEPRECATED[target.info.kind])
        handler = {"GET": self._get, "POST": self._post, "PUT": self._put, "PATCH": self._patch,
                   "DELETE": self._delete}[method]
        handler(target, body)

    def _metrics(self, method: str, path: str) -> None:
        """metrics.k8s.io/v1beta1 (metrics-server's read-only API): nodes and pods, one or a
        list, with label (and, for pods, field) selectors, from kubesim's simulated metrics."""
        import re

        m = re.fullmatch(r"/apis/metrics\.k8s\.io/v1beta1(?:/namespaces/([^/]+))?/(nodes|pods)(?:/([^/]+))?", path)
        if m is None or (m.group(2) == "nodes" and m.group(1)):
            raise HTTPError(status.not_found_path())
        if method != "GET":
            raise _method_not_allowed(method, path)
        namespace, resource, name = m.groups()
        q = self.query
        with self.client(write=False) as c:
            if resource == "nodes":
                items = c.node_metrics(name, q.get("labelSelector") or None)
            else:
                items = c.pod_metrics(namespace, name, q.get("labelSelector") or None, q.get("fieldSelector") or None)
        if name:
            return self._send_json(200, items[0])
        kind = "NodeMetricsList" if resource == "nodes" else "PodMetricsList"
        items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in items]
        self._send_json(200, {"kind": kind, "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {}, "items": items})

    def _openapi(self, method: str, rest: list[str]) -> None:
        if method != "GET":
            raise _method_not_allowed(method, "/openapi")
        if rest == ["v2"]:
            return self._send(200, discovery.openapi_v2_document())
        if rest == ["v3"]:
            return self._send(200, discovery.openapi_v3_index())
        if rest[:1] == ["v3"]:
            doc = discovery.openapi_v3_document("/".join(rest[1:]))
            if doc is not None:
                return self._send(200, doc)
        raise HTTPError(status.not_found_path())

    # -- request pieces --------------------------------------------------------------------
    def _decode(self, body: bytes) -> dict:
        ctype = (self.headers.get("Content-Type") or JSON).split(";")[0].strip()
        if ctype == "application/vnd.kubernetes.protobuf":
            from kubesim.codec import protobuf

            return protobuf.decode(body)
        if ctype not in (JSON, "application/yaml", "*/*", ""):
            raise _unsupported_media_type(ctype, [JSON, "application/yaml", "application/vnd.kubernetes.protobuf"])
        try:
            if ctype == "application/yaml":
                from kubesim.codec.load import yaml_to_json

                docs = yaml_to_json("request body", body.decode()) if body.strip() else [None]
                obj = docs[0] if docs else None
            else:
                obj = json.loads(body) if body.strip() else None
        except (ValueError, KubesimError) as e:  # malformed JSON or YAML: the decoder's error
            raise BadRequest(f"couldn't get version/kind; json parse error: {e}") from None
        if not isinstance(obj, dict):
            raise BadRequest(f"Object 'Kind' is missing in '{body[:200].decode(errors='replace')}'")
        return obj

    def _field_validation(self) -> str:
        value = self.query.get("fieldValidation") or "Warn"
        if value not in ("Ignore", "Warn", "Strict"):
            raise _error("BadRequest", f'fieldValidation: Unsupported value: "{value}": supported values: '
                                       '"Ignore", "Strict", "Warn"')
        return value

    def _decode_strictly(self, obj: dict) -> None:
        """The typed decode of a create or update body (kubesim.codec.schema): a type error
        refuses it; unknown fields refuse it with ``fieldValidation=Strict`` (kubectl's), else
        are dropped, with a warning each for ``Warn``."""
        from kubesim.codec.schema import (
            format_bad_request,
            is_strict_message,
            validate_structure,
        )

        validation = self._field_validation()
        messages = validate_structure(obj)
        if not messages:
            return
        if validation == "Strict" or not all(is_strict_message(m) for m in messages):
            text = format_bad_request("", obj, messages)
            raise BadRequest(text.removeprefix("Error from server (BadRequest): "))
        for m in messages:
            path = m[len('unknown field "'):-1]
            _drop_path(obj, path)
            if validation == "Warn":
                self.warnings.append(m)

    def _dry_run(self) -> bool:
        value = self.query.get("dryRun")
        if value is None or value == "":
            return False
        if value != "All":
            raise _error("BadRequest", f'Invalid dry run value: "{value}". Valid values are: [All]')
        return True

    def _table_or(self, info, objs: list[dict], client, single: dict | None = None, list_meta=None):
        accept = self.headers.get("Accept") or ""
        rv = str(client.cluster.store.resource_version())
        if wants_table(accept):
            include = self.query.get("includeObject") or "Metadata"
            if include not in ("None", "Metadata", "Object"):
                raise _error("BadRequest", f'includeObject: Unsupported value: "{include}": supported values: '
                                           '"None", "Metadata", "Object"')
            return table(info.kind, objs, client.now(), rv, include, table_api_version(accept), list_meta)
        if single is not None:
            return single
        items = [o for o in objs]
        return {"kind": info.kind + "List", "apiVersion": info.api_version,
                "metadata": {"resourceVersion": rv, **(list_meta or {})}, "items": items}

    def _unread(self, info) -> tuple[str, ...]:
        """What a LIST asked for as a Table never shows of its objects, which the list may
        then leave out (``Client.list``): what the kind's printer never reads (tables.unread),
        but for the metadata a row's PartialObjectMetadata carries (``includeObject``
        Metadata, the default; all of it with None; nothing is left out with Object)."""
        if not wants_table(self.headers.get("Accept") or "") or info.crd is not None:
            return ()
        include = self.query.get("includeObject") or "Metadata"
        if include not in ("None", "Metadata"):
            return ()
        from kubesim.printers.tables import unread

        return tuple(p for p in unread(info.kind) if include == "None" or not p.startswith("metadata."))

    # -- verbs ------------------------------------------------------------------------------
    def _get(self, t: Target, body: bytes) -> None:
        if t.name is None:
            if self.query.get("watch") in ("1", "true", "True"):
                return self._watch(t)
            return self._list(t)
        if t.sub == "log":
            return self._log(t)
        if t.info.kind == "Pod" and t.sub in STREAMS:
            return self._stream(t)
        if t.sub and t.sub.startswith("proxy/"):
            with self.client(write=False) as c:
                return self._send_json(200, c.raw(urlsplit(self.path).path))
        if t.sub not in (None, "status", "scale"):
            raise _method_not_allowed("GET", self.path)
        bad = _parse_uint_error(self.query.get("resourceVersion") or "")
        if bad:
            raise _unknown_error(f'resourceVersion: Invalid value: {_quote(self.query["resourceVersion"])}: {bad}')
        with self.client(write=False) as c:
            obj = c.get(t.info, t.namespace or "", t.name)
            if t.sub == "scale":
                return self._send_json(200, _scale_of(obj))
            self._send_json(200, self._table_or(t.info, [obj], c, single=obj))

    def _list(self, t: Target) -> None:
        q = self.query
        bad = _parse_uint_error(q.get("resourceVersion") or "")
        if bad:  # the storage's ParseResourceVersion, as a list answers it
            raise BadRequest(f'invalid resource version: resourceVersion: Invalid value: {_quote(q["resourceVersion"])}: '
                             f"{bad}")
        limit = _int_param(q, "limit")
        start = _continue_start(q.get("continue"))
        with self.client(write=False) as c:
            objs = c.list(t.info, t.namespace, q.get("labelSelector") or None, q.get("fieldSelector") or None,
                          self._unread(t.info))
            list_meta = {}
            if start:
                objs = objs[start:]
            if limit and limit > 0 and len(objs) > limit:
                rest = len(objs) - limit
                objs = objs[:limit]
                rv = str(c.cluster.store.resource_version())
                token = base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": int(rv),
                                                             "start": start + limit}).encode()).decode()
                list_meta = {"continue": token, "remainingItemCount": rest}
            self._send_json(200, self._table_or(t.info, objs, c, list_meta=list_meta))

    def _post(self, t: Target, body: bytes) -> None:
        dry = self._dry_run()
        if t.name is not None:
            if t.sub == "eviction":
                return self._evict(t, body, dry)
            if t.sub == "binding":
                return self._bind(t, body, dry)
            if t.info.kind == "Pod" and t.sub in STREAMS:
                return self._stream(t)
            if t.sub == "token":
                request = self._decode(body)
                with self.client(dry_run=dry) as c:
                    return self._send_json(201, c.create_token(t.namespace or "", t.name, request.get("spec") or {}))
            raise _method_not_allowed("POST", self.path)
        obj = self._decode(body)
        self._check_kind(t, obj)
        md = obj.setdefault("metadata", {})
        if not isinstance(md, dict):
            raise BadRequest("metadata must be an object")
        if t.info.namespaced:
            if md.get("namespace") and md["namespace"] != t.namespace:
                raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
            md["namespace"] = t.namespace
        self._decode_strictly(obj)
        with self.client(dry_run=dry) as c:
            created = c.create(obj, t.info, dry_run=dry)
            self._send_json(201, created)

    def _check_kind(self, t: Target, obj: dict) -> None:
        if "kind" not in obj or obj.get("kind") in ("", None):
            raise BadRequest(f"Object 'Kind' is missing in '{json.dumps(obj, separators=(',', ':'))}'")
        if obj.get("kind") != t.info.kind or obj.get("apiVersion") != t.info.api_version:
            raise BadRequest(f"the API version in the data ({obj.get('apiVersion')}) does not match the expected "
                             f"API version ({t.info.api_version})" if obj.get("kind") == t.info.kind else
                             f"{obj.get('kind')} in version \"{t.info.version}\" cannot be handled as a "
                             f"{t.info.kind}: no kind \"{obj.get('kind')}\" is registered for version "
                             f"\"{t.info.api_version}\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"")

    def _put(self, t: Target, body: bytes) -> None:
        if t.name is None or t.sub not in (None, "scale", "status"):
            raise _method_not_allowed("PUT", self.path)
        dry = self._dry_run()
        obj = self._decode(body)
        with self.client(dry_run=dry) as c:
            live = c.get(t.info, t.namespace or "", t.name)
            if t.sub == "scale":
                return self._send_json(200, self._scale_update(c, t, live, obj))
            self._check_kind(t, obj)
            if t.sub == "status":
                return self._send_json(200, c.update_status(t.info, t.namespace or "", t.name, obj))
            md = obj.setdefault("metadata", {})
            if md.get("name") != t.name:
                raise BadRequest(f"the name of the object ({md.get('name')}) does not match the name on the URL "
                                 f"({t.name})")
            if t.info.namespaced:
                md.setdefault("namespace", t.namespace)
            self._decode_strictly(obj)
            bad = _parse_uint_error(str(md.get("resourceVersion") or ""))
            if bad:  # the update's precondition parses it: the error as it is
                raise _unknown_error(bad)
            _check_resource_version(t, md, live)
            self._send_json(200, c.update(t.info, obj))

    def _patch(self, t: Target, body: bytes) -> None:
        if t.name is None or t.sub not in (None, "scale", "status"):
            raise _method_not_allowed("PATCH", self.path)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype == APPLY_PATCH:
            return self._apply(t, body)
        patch_type = PATCH_TYPES.get(ctype)
        if patch_type is None:
            raise _unsupported_media_type(ctype, list(PATCH_TYPES) + [APPLY_PATCH])
        self._patch_options(False)
        dry = self._dry_run()
        try:
            patch = json.loads(body) if body.strip() else None
        except ValueError as e:
            raise BadRequest(f"error decoding patch: {e}") from None
        validation = self._field_validation()
        from kubesim.api.patch import PatchFailure

        with self.client(dry_run=dry) as c:
            live = c.get(t.info, t.namespace or "", t.name)
            if t.sub == "scale":
                scale = _apply_patch(_scale_of(live), patch_type, patch)
                return self._send_json(200, self._scale_update(c, t, live, scale))
            if t.sub == "status":
                try:
                    new, warnings = c.patch(t.info, t.namespace or "", t.name, patch_type, patch, "Warn")
                except PatchFailure as e:
                    raise e.error from None
                return self._send_json(200, c.update_status(t.info, t.namespace or "", t.name, new))
            try:
                new, warnings = c.patch(t.info, t.namespace or "", t.name, patch_type, patch,
                                        "Strict" if validation == "Strict" else "Warn")
            except PatchFailure as e:
                raise e.error from None
            if validation == "Warn":
                self.warnings.extend(warnings)
            self._send_json(200, c.update(t.info, new))

    def _patch_options(self, apply: bool) -> tuple[str, bool]:
        """ValidatePatchOptions: apply needs a fieldManager; only apply may force. (manager, force)"""
        manager = self.query.get("fieldManager", "")
        errs = []
        if apply and not manager:
            errs.append("fieldManager: Required value: is required for apply patch")
        if not apply and "force" in self.query:
            errs.append("force: Forbidden: may not be specified for non-apply patch")
        if len(manager) > 128:
            errs.append("fieldManager: Too long: may not be more than 128 bytes")
        if errs:
            text = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
            raise _error("Invalid", f'PatchOptions.meta.k8s.io "" is invalid: {text}',
                         {"group": "meta.k8s.io", "kind": "PatchOptions",
                          "causes": [{"reason": "FieldValueRequired" if "Required" in e else "FieldValueForbidden",
                                      "message": e.split(": ", 1)[1], "field": e.split(":", 1)[0]} for e in errs]})
        return manager, self.query.get("force") == "true"

    def _apply(self, t: Target, body: bytes) -> None:
        """PATCH application/apply-patch+yaml: server-side apply (patch.go ``applyPatcher``),
        creating the object when it does not exist (201)."""
        if t.sub is not None:
            raise _method_not_allowed("PATCH", self.path)
        manager, force = self._patch_options(True)
        from kubesim.codec.load import yaml_to_json

        try:
            docs = yaml_to_json("request body", body.decode()) if body.strip() else [None]
        except (ValueError, KubesimError) as e:
            raise BadRequest(f"error decoding YAML: {e}") from None
        config = docs[0] if docs else None
        if not isinstance(config, dict):
            raise BadRequest("error decoding YAML: the apply patch is not an object")
        if config.get("apiVersion") != t.info.api_version:
            version = (config.get("apiVersion") or "").rpartition("/")
            raise BadRequest("Incorrect version specified in apply patch. Specified patch version: "
                             f"{version[0] + '/' if version[0] else ''}{version[2]}, expected: {t.info.api_version}")
        md = config.get("metadata")
        if md is None:
            md = config["metadata"] = {}
        if md.get("name", t.name) != t.name:
            raise BadRequest(f"the name of the object ({md.get('name')}) does not match the name on the URL ({t.name})")
        md["name"] = t.name
        if t.info.namespaced:
            if md.get("namespace", t.namespace) != t.namespace:
                raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
            md["namespace"] = t.namespace
        dry = self._dry_run()
        with self.client(dry_run=dry) as c:
            live = c.find(t.info, t.namespace or "", t.name)
            rv = live["metadata"].get("resourceVersion") if live is not None else None
            obj, created = c.apply(t.info, config, field_manager=manager, force=force)
        if dry:  # a dry run stores nothing: the resourceVersion does not move
            obj = dict(obj, metadata=dict(obj["metadata"]))
            if rv is None:
                obj["metadata"].pop("resourceVersion", None)
            else:
                obj["metadata"]["resourceVersion"] = rv
        self._send_json(201 if created else 200, obj)

    def _scale_update(self, c, t: Target, live: dict, scale: dict) -> dict:
        import copy

        replicas = (scale.get("spec") or {}).get("replicas", 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool):
            raise BadRequest(f"json: cannot unmarshal {type(replicas).__name__} into Go struct field "
                             "ScaleSpec.spec.replicas of type int32")
        new = copy.deepcopy(live)
        new.setdefault("spec", {})["replicas"] = replicas
        return _scale_of(c.update(t.info, new, subresource="scale"))

    def _delete(self, t: Target, body: bytes) -> None:
        if t.sub is not None:
            raise _method_not_allowed("DELETE", self.path)
        if t.name is None:
            return self._delete_collection(t, body)
        opts = self._decode(body) if body.strip() else {}
        dry = self._dry_run() or opts.get("dryRun") == ["All"]
        grace = opts.get("gracePeriodSeconds", _int_param(self.query, "gracePeriodSeconds"))
        propagation = opts.get("propagationPolicy") or self.query.get("propagationPolicy") or "Background"
        if propagation not in ("Orphan", "Foreground", "Background"):
            raise _error("Invalid", f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                                    f'"{propagation}": supported values: "Foreground", "Background", "Orphan", "nil"')
        with self.client(dry_run=dry) as c:
            obj = c.delete(t.info, t.namespace or "", t.name, grace_period=grace, force=grace == 0,
                           propagation=propagation)
            still = c.find(t.info, t.namespace or "", t.name)
            if still is not None:
                return self._send_json(200, still)
            md = obj.get("metadata") or {}
            details = {"name": t.name, **({"group": t.info.group} if t.info.group else {}),
                       "kind": t.info.plural, "uid": md.get("uid", "")}
            self._send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                  "details": details})

    def _delete_collection(self, t: Target, body: bytes) -> None:
        """DELETE on a collection (deletecollection): each object the selectors match, deleted
        as one DELETE would; the list of what was deleted (store.go DeleteCollection)."""
        if "deletecollection" not in t.info.verbs:
            raise _method_not_allowed("DELETE", self.path)
        opts = self._decode(body) if body.strip() else {}
        dry = self._dry_run() or opts.get("dryRun") == ["All"]
        grace = opts.get("gracePeriodSeconds", _int_param(self.query, "gracePeriodSeconds"))
        propagation = opts.get("propagationPolicy") or self.query.get("propagationPolicy") or "Background"
        q = self.query
        with self.client(dry_run=dry) as c:
            deleted = []
            for obj in c.list(t.info, t.namespace, q.get("labelSelector") or None, q.get("fieldSelector") or None):
                md = obj["metadata"]
                deleted.append(c.delete(t.info, md.get("namespace", ""), md["name"], grace_period=grace,
                                        force=grace == 0, propagation=propagation))
            rv = str(c.cluster.store.resource_version())
        self._send_json(200, {"kind": t.info.kind + "List", "apiVersion": t.info.api_version,
                              "metadata": {"resourceVersion": rv}, "items": deleted})

    def _self_review(self, kind: str, body: bytes) -> None:
        """The reviews a user makes of themselves (kubectl auth can-i, auth whoami), answered
        by the client's authorizer (pkg/registry/authorization/selfsubjectaccessreview/rest.go,
        selfsubjectrulesreview/rest.go, authentication/selfsubjectreview/rest.go). Served, not
        listed in discovery (kubesim's kind registry has no such kinds)."""
        review = self._decode(body)
        spec = review.get("spec") or {}
        group = "authentication.k8s.io" if kind == "SelfSubjectReview" else "authorization.k8s.io"
        out = {"kind": kind, "apiVersion": f"{group}/v1", "metadata": {}, "spec": spec}
        with self.client(write=False) as c:
            if kind == "SelfSubjectReview":
                out.pop("spec")
                c.self_review_allowed(group, "selfsubjectreviews")
                out["metadata"] = {"creationTimestamp": c.cluster.stamp()}  # (its REST stamps it now)
                out["status"] = {"userInfo": c.self_subject_review()}
            elif kind == "SelfSubjectRulesReview":
                c.self_review_allowed(group, "selfsubjectrulesreviews")
                resource_rules, non_resource_rules, incomplete, error = c.rules_review(spec.get("namespace") or "")
                out["status"] = {"resourceRules": resource_rules, "nonResourceRules": non_resource_rules,
                                 "incomplete": incomplete, **({"evaluationError": error} if error else {})}
            else:
                c.self_review_allowed(group, "selfsubjectaccessreviews")
                ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
                if nra:
                    allowed, reason = c.access_review(nra.get("verb", ""), path=nra.get("path", ""))
                else:
                    ra = ra or {}
                    allowed, reason = c.access_review(ra.get("verb", ""), ra.get("group", ""), ra.get("resource", ""),
                                                      ra.get("subresource", ""), ra.get("namespace", ""),
                                                      ra.get("name", ""))
                out["status"] = {"allowed": allowed, **({"reason": reason} if reason else {})}
        self._send_json(201, out)

    def _evict(self, t: Target, body: bytes, dry: bool) -> None:
        ev = self._decode(body)
        opts = ev.get("deleteOptions") or {}
        grace = opts.get("gracePeriodSeconds")
        dry = dry or opts.get("dryRun") == ["All"]
        with self.client(dry_run=dry) as c:
            c.evict(t.namespace or "", t.name, grace_period=grace, dry_run=dry)
        self._send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})

    def _bind(self, t: Target, body: bytes, dry: bool) -> None:
        binding = self._decode(body)
        with self.client(dry_run=dry) as c:
            c.bind(t.namespace or "", t.name, binding)
        self._send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})

    def _stream(self, t: Target) -> None:
        """pods/exec, attach, portforward: upgraded to WebSocket (kubesim.server.stream)."""
        from kubesim.server import stream

        stream.serve(self, t, self.method)

    def _log(self, t: Target) -> None:
        from kubesim.api.core.podlogs import PodLogOptions

        q = self.query
        opts = PodLogOptions(container=q.get("container", ""), previous=q.get("previous") == "true",
                             follow=False, timestamps=q.get("timestamps") == "true",
                             tail_lines=_int_param(q, "tailLines"), since_seconds=_int_param(q, "sinceSeconds"),
                             limit_bytes=_int_param(q, "limitBytes"))
        with self.client(write=False) as c:
            text = c.pod_log(t.namespace or "", t.name, opts)
            if q.get("follow") == "true":
                from kubesim.api.core import podlogs

                container = podlogs.container_for(c.get(t.info, t.namespace or "", t.name), opts.container)
                seen = len(c.log_entries(t.namespace or "", t.name, container, opts.previous))
        if q.get("follow") != "true":
            return self._send(200, text.encode(), "text/plain")
        self._follow(t, opts, container, text, seen)

    def _follow(self, t: Target, opts, container: str, text: str, seen: int) -> None:
        """``follow=true``: the log so far, then each line the container writes, until the pod
        is gone or has finished (the kubelet closes the stream then) or the client leaves."""
        from kubesim.api.core import podlogs

        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if text:
                self._chunk(text.encode())
            while True:
                self.backend.wait_for_change(WATCH_POLL)
                with self.client(write=False) as c:
                    pod = c.find(t.info, t.namespace or "", t.name)
                    if pod is None:
                        break
                    entries = c.log_entries(t.namespace or "", t.name, container, opts.previous)
                new, seen = entries[seen:], len(entries)
                if new:
                    lines = [f"{podlogs.timestamp(at)} {line}" if opts.timestamps else line for at, line in new]
                    self._chunk("".join(line + "\n" for line in lines).encode())
                if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                    break
            self._chunk(b"")
        except OSError:  # the client went away
            pass
        self.close_connection = True

    # -- watch ------------------------------------------------------------------------------
    def _watch(self, t: Target) -> None:
        """A chunked stream of ``{"type", "object"}`` lines: the state is looked at every
        WATCH_POLL seconds and the objects whose resourceVersion changed since are sent."""
        q = self.query
        timeout = _int_param(q, "timeoutSeconds") or 1800
        since = q.get("resourceVersion") or ""
        bad = _parse_uint_error(since)
        if bad:
            raise _unknown_error(f"resourceVersion: Invalid value: {_quote(since)}: {bad}")
        # watch-list (client-go's WatchListClient): the current objects as ADDED events, then a
        # bookmark marking their end (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go)
        initial = q.get("sendInitialEvents") == "true"
        if initial and q.get("resourceVersionMatch") != "NotOlderThan":
            raise _error("Invalid", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
        if initial:
            since = ""
        as_table = wants_table(self.headers.get("Accept") or "")
        seen: dict[tuple[str, str], str] | None = None
        first = True
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        deadline = time.monotonic() + timeout
        oldest = self.backend.oldest_rv or 0
        try:
            if since and since != "0" and int(since) < oldest:
                # the cacher's answer to a resourceVersion older than its window: an ERROR event
                # (staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go)
                gone = status.status("Expired", f"too old resource version: {since} ({oldest})")
                self._chunk(json.dumps({"type": "ERROR", "object": gone}, separators=(",", ":")).encode() + b"\n")
                deadline = 0
            while time.monotonic() < deadline:
                events = []
                with self.client(write=False) as c:
                    objs = c.list(t.info, t.namespace, q.get("labelSelector") or None, q.get("fieldSelector") or None)
                    now = {(o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in objs}
                    if seen is None:
                        for o in now.values():
                            rv = o["metadata"].get("resourceVersion", "0")
                            if not since or since == "0":
                                events.append(("ADDED", o))
                            elif int(rv) > int(since):
                                events.append(("MODIFIED", o))
                    else:
                        for k, o in now.items():
                            if k not in seen:
                                events.append(("ADDED", o))
                            elif seen[k][0] != o["metadata"].get("resourceVersion"):
                                events.append(("MODIFIED", o))
                        for k in seen.keys() - now.keys():
                            gone = json.loads(seen[k][1])
                            gone["metadata"]["resourceVersion"] = str(c.cluster.store.resource_version())
                            events.append(("DELETED", gone))
                    if seen is None and initial:
                        events.append(("BOOKMARK", {
                            "kind": t.info.kind, "apiVersion": t.info.api_version,
                            "metadata": {"resourceVersion": str(c.cluster.store.resource_version()),
                                         "annotations": {"k8s.io/initial-events-end": "true"}}}))
                    seen = {k: (o["metadata"].get("resourceVersion"), json.dumps(o)) for k, o in now.items()}
                    stamp = c.now()
                    rv = str(c.cluster.store.resource_version())
                for kind, o in events:
                    shown = o
                    if as_table and kind != "BOOKMARK":
                        shown = table(t.info.kind, [o], stamp, rv, self.query.get("includeObject") or "Metadata")
                        if not first:
                            shown["columnDefinitions"] = []
                        first = False
                    self._chunk(json.dumps({"type": kind, "object": shown}, separators=(",", ":")).encode() + b"\n")
                self.backend.wait_for_change(WATCH_POLL)
            self._chunk(b"")
        except OSError:  # the client went away (a reset, a broken pipe, a TLS EOF)
            pass
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


# -- helpers ---------------------------------------------------------------------------------

_SELF_REVIEWS = {
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews": "SelfSubjectAccessReview",
    "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews": "SelfSubjectRulesReview",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews": "SelfSubjectReview",
}


def _method_not_allowed(method: str, path: str) -> HTTPError:
    return _error("MethodNotAllowed", "the server does not allow this method on the requested resource", {})


def prefix_from_user_agent(user_agent: str) -> str:
    """The manager of a write without ``fieldManager``: the user agent up to its first ``/``,
    printable characters only, at most 128 bytes (create.go ``prefixFromUserAgent``)."""
    out = ""
    for ch in user_agent.split("/")[0]:
        if not ch.isprintable():
            continue
        if len((out + ch).encode()) > 128:
            break
        out += ch
    return out


def _unsupported_media_type(ctype: str, supported: list[str]) -> HTTPError:
    return _error("UnsupportedMediaType", f'the body of the request was in an unknown format - accepted media types '
                                          f'include: {", ".join(supported)}')


def _int_param(q: dict, name: str) -> int | None:
    value = q.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise _error("BadRequest", f'{name}: Invalid value: "{value}": must be an integer') from None


def _continue_start(token: str | None) -> int:
    if not token:
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(token.encode()))
        return int(data["start"])
    except (ValueError, KeyError, TypeError):
        raise _error("BadRequest", "continue key is not valid: incorrect encoded start resourceVersion "
                                   "(version meta.k8s.io/v1)") from None


def _parse_uint_error(value: str) -> str | None:
    """Go's strconv.ParseUint(value, 10, 64) error (etcd3's ParseResourceVersion), None when it
    parses or is empty."""
    if not value:
        return None
    if not value.isascii() or not value.isdigit():
        return f"strconv.ParseUint: parsing {_quote(value)}: invalid syntax"
    if int(value) >= 1 << 64:
        return f"strconv.ParseUint: parsing {_quote(value)}: value out of range"
    return None


def _quote(s: str) -> str:
    from kubesim.api.gofmt import go_quote

    return go_quote(s)


def _unknown_error(message: str) -> HTTPError:
    """An error the API server passes on as it is: Status without a reason, code 500 (kubectl
    prints ``Error from server: <message>``)."""
    body = status.status("", message, code=500)
    del body["reason"]
    return HTTPError(body)


def _check_resource_version(t: Target, md: dict, live: dict) -> None:
    from kubesim.errors import Conflict

    rv = md.get("resourceVersion")
    if rv and rv != live["metadata"].get("resourceVersion"):
        raise Conflict(f'Operation cannot be fulfilled on {t.info.resource} "{t.name}": the object has been '
                       "modified; please apply your changes to the latest version and try again")


def _drop_path(obj: dict, path: str) -> None:
    """Remove the field at ``spec.containers[0].foo`` (what an unknown-field message names)."""
    import re

    parts = [int(i) if i else k for k, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)]
    node = obj
    for p in parts[:-1]:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(node, dict):
        node.pop(parts[-1], None)


def _scale_of(obj: dict) -> dict:
    """The autoscaling/v1 Scale of a Deployment or ReplicaSet (the scale subresource's GET)."""
    from kubesim.printers.apps import label_selector_string

    md = obj["metadata"]
    spec, st = obj.get("spec") or {}, obj.get("status") or {}
    meta = {k: md[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in md}
    status_ = {"replicas": st.get("replicas", 0)}
    selector = spec.get("selector")
    if selector:
        status_["selector"] = label_selector_string(selector)
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": meta,
            "spec": {"replicas": spec.get("replicas", 0)}, "status": status_}


def _apply_patch(obj: dict, patch_type: str, patch) -> dict:
    from kubesim.api.patch import (
        PatchFailure,
        decode_json_patch,
        json_merge_patch,
        json_patch,
    )

    try:
        if patch_type == "json":
            return json_patch(obj, decode_json_patch(patch))
        return json_merge_patch(obj, patch)
    except PatchFailure as e:
        raise e.error from None


# -- the server ------------------------------------------------------------------------------

class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """A client that hangs up mid-response is no error of the server's."""
        import sys

        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def make_server(options, address: str, port: int, ssl_context=None, speed: float | None = None) -> Server:
    backend = Backend(options, speed)
    handler = type("BoundHandler", (Handler,), {"backend": backend})
    server = Server((address, port), handler)
    host, bound = server.server_address[:2]
    handler.address = f"{host}:{bound}"
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
    server.backend = backend
    return server


def tick_forever(backend: Backend, stop: threading.Event) -> None:
    """Settle when the clock passes a moment a component asked to be woken."""
    while not stop.wait(TICK):
        try:
            backend.tick()
        except Exception as e:  # noqa: BLE001 - a busy or locked state: try again at the next tick
            import sys

            sys.stderr.write(f"kubesim serve: settle skipped: {e}\n")


def lookup(kind: str):
    return kinds.by_kind(kind)
