"""The API server's audit filter around the in-process client: each request kubectl makes is
evaluated against the audit policy and its Events appended to the audit log, when the
control plane's kube-apiserver manifest enables one (kubesim.apiserver.audit.options).

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/filters/audit.go (``WithAudit``), the
authorization filter's annotations (pkg/endpoints/filters/authorization.go:
``authorization.k8s.io/decision`` ``allow`` or ``forbid`` and ``authorization.k8s.io/reason``),
and the admission plugins' (``pod-security.kubernetes.io/*``, through ``Attributes.
audit_annotations``). A request's stages share the simulated clock's one moment.

Where kubesim differs: only the requests kubectl makes are recorded - the control plane's own
components (controllers, scheduler, kubelets) write the store directly, so their requests
(leases, status updates, bindings) are not in the log; a ``requestURI``'s query string has
only what kubectl sends for the common verbs (``fieldManager``, ``fieldValidation``, selectors,
``get``'s ``limit=500``); kubectl's discovery and OpenAPI requests (``/api``, ``/apis``,
``/openapi/v3``) are not recorded; a patch whose result is unchanged records no event.
"""

from __future__ import annotations

from kubesim.apiserver.context import Cluster
from kubesim.controlplane.client import LocalClient
from kubesim.errors import RawError, StatusError

# kubectl 1.36's user agent (kubesim.kubectl.cmd.version's client version): rest.DefaultKubernetesUserAgent
USER_AGENT = "kubectl/v1.36.4 (linux/amd64) kubernetes/bb826b1"
SECURE_PORT = 6443

_CODES = {"NotFound": 404, "AlreadyExists": 409, "Conflict": 409, "Forbidden": 403, "BadRequest": 400,
          "Invalid": 422, "TooManyRequests": 429, "InternalError": 500, "MethodNotAllowed": 405,
          "Gone": 410, "Expired": 410, "ServiceUnavailable": 503, "Timeout": 504, "Unauthorized": 401,
          "RequestEntityTooLarge": 413, "UnsupportedMediaType": 415, "NotAcceptable": 406}


def request_uri(info, namespace: str = "", name: str = "", subresource: str = "") -> str:
    """The REST path of a resource request."""
    base = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    if info.namespaced and namespace:
        base += f"/namespaces/{namespace}"
    base += f"/{info.plural}"
    if name:
        base += f"/{name}"
    if subresource:
        base += f"/{subresource}"
    return base


def _status(e: Exception | None, code: int, info=None, name: str = "") -> dict:
    """responseStatus: the code of a success; a failure's Status as LogResponseObject copies it."""
    if e is None:
        return {"metadata": {}, "code": code}
    reason = getattr(e, "reason", "InternalError")
    details: dict = {}
    if name:
        details["name"] = name
    if info is not None:
        if info.group:
            details["group"] = info.group
        details["kind"] = info.kind if reason == "Invalid" else info.plural
    out = {"metadata": {}, "status": "Failure", "message": getattr(e, "message", str(e)), "reason": reason}
    if details:
        out["details"] = details
    out["code"] = _CODES.get(reason, 500)
    return out


class AuditedClient(LocalClient):
    """A LocalClient whose requests pass the audit filter."""

    def __init__(self, cluster: Cluster, impersonate, field_manager: str, config, nodes_root: str):
        super().__init__(cluster, impersonate, field_manager)
        self._audit = config
        self._nodes_root = nodes_root
        self._count = 0
        self._depth = 0

    # -- the filter ------------------------------------------------------------------------

    def _authz(self, verb, info, namespace, name, subresource, path) -> dict:
        from kubesim.apiserver.authorization import SYSTEM_PRIVILEGED_GROUP, Attributes
        from kubesim.apiserver.authorization.rbac import authorize_with_reason

        user = self.requester()
        if path:
            attrs = Attributes(user, verb, False, path=path)
        else:
            attrs = Attributes(user, verb, True, info.group, info.plural, subresource,
                               namespace if info.namespaced else "", name)
        if SYSTEM_PRIVILEGED_GROUP in user.groups:
            allowed, reason = True, ""
        else:
            allowed, reason = authorize_with_reason(self._rbac_lister, self._rbac_getter, attrs)
        return {"authorization.k8s.io/decision": "allow" if allowed else "forbid",
                "authorization.k8s.io/reason": reason}

    def _query(self, verb: str, label_selector: str | None = None, field_selector: str | None = None) -> str:
        """The query string kubectl sends (url.Values.Encode: keys sorted): a write's
        ``fieldManager`` (and ``fieldValidation=Strict`` for the verbs whose ``--validate``
        defaults to strict), a list's selectors, and ``kubectl get``'s ``limit=500``."""
        from urllib.parse import urlencode

        fm = getattr(self.cluster, "field_manager", "") or ""
        params: dict[str, str] = {}
        if verb in ("create", "update", "patch") and fm and fm != "kubectl":
            params["fieldManager"] = fm
            if fm in ("kubectl-create", "kubectl-client-side-apply", "kubectl-replace"):
                params["fieldValidation"] = "Strict"
        if verb == "list":
            if field_selector:
                params["fieldSelector"] = field_selector
            if label_selector:
                params["labelSelector"] = label_selector
            if fm == "kubectl-get":
                params["limit"] = "500"
        return "?" + urlencode(sorted(params.items())) if params else ""

    def _request(self, verb: str, info=None, namespace: str = "", name: str = "", subresource: str = "",
                 call=None, *, path: str = "", body: dict | None = None, code: int = 200, watch: bool = False,
                 query: str = ""):
        """Run ``call`` as one audited request; its result (or its error, re-raised)."""
        if self._depth:  # a request made while serving one (a create's read of the namespace)
            return call()
        from kubesim.api.nodes import CONTROL_PLANE_NODE, internal_ip
        from kubesim.apiserver.audit import event, policy
        from kubesim.apiserver.authorization import (
            Attributes,
            admin_user,
            user_info_json,
        )

        c = self.cluster
        admin = admin_user()
        impersonated = self.user
        req_user = impersonated or admin
        ns = namespace if info is None or info.namespaced else ""
        if info is not None and info.kind == "Namespace" and name and (verb != "create" or subresource):
            ns = name  # RequestInfo: /api/v1/namespaces/{name} is in namespace {name} (a create's POST is not)
        r = Attributes(req_user, verb, not path, info.group if info is not None else "",
                       info.plural if info is not None else "", subresource, ns, name, path)
        cfg = policy.evaluate(self._audit.policy, r)
        if cfg.level == policy.NONE:
            return self._call(call)
        uri = path or request_uri(info, ns, name if verb not in ("create",) or subresource else "", subresource) + query
        annotations = self._authz(verb, info, ns, name, subresource, path)
        c.__dict__["audit_annotations"] = annotations
        received = c.now()
        error, result = None, None
        try:
            result = self._call(call)
        except StatusError as e:
            error = e
        finally:
            c.__dict__.pop("audit_annotations", None)
        obj = result if isinstance(result, dict) else None
        if isinstance(result, tuple) and result and isinstance(result[0], dict):
            obj = result[0]
        ref = None
        if info is not None:
            # NewEventFromRequest's reference (the request's path), completed by LogRequestObject
            # from the object the request carried (a create's name, an update's uid and version)
            md = (body or {}).get("metadata") or {}
            ref = {"resource": info.plural, "namespace": ns or (md.get("namespace") or "" if info.namespaced else ""),
                   "name": name or md.get("name") or "", "uid": md.get("uid") or "", "apiGroup": info.group,
                   "apiVersion": info.version, "resourceVersion": md.get("resourceVersion") or "",
                   "subresource": subresource}
        self._count += 1
        seed = f"{received}/{c.store.resource_version()}/{self._count}/{verb}/{uri}".encode()
        import hashlib  # (here: an audited request alone pays for importing these)
        import uuid

        audit_id = str(uuid.UUID(int=int(hashlib.sha256(seed).hexdigest()[:32], 16), version=4))
        node = c.store.get("Node", "", CONTROL_PLANE_NODE)
        ip = internal_ip(node) if node is not None else ""
        record = event.RequestRecord(
            audit_id=audit_id, verb=verb, request_uri=uri, user=user_info_json(admin),
            impersonated_user=user_info_json(impersonated) if impersonated is not None else None,
            source_ips=(ip,) if ip else (), user_agent=USER_AGENT, object_ref=ref, received=received,
            completed=c.now(), status=_status(error, code, info, name or ((body or {}).get("metadata") or {}).get("name", "")),
            annotations=annotations, request_object=body,
            response_object=self._response_object(verb, info, obj, result, error), watch=watch)
        if error is not None and "authorization.k8s.io/decision" in annotations and \
                annotations["authorization.k8s.io/decision"] == "forbid":
            # refused by the authorizer: the request never reached admission
            record.annotations = {k: v for k, v in annotations.items() if k.startswith("authorization.k8s.io/")}
        if self._audit.log_file is not None:
            event.append(self._nodes_root, self._audit.log_file, [event.line(e) for e in event.events(cfg, record)])
        if error is not None:
            raise error
        return result

    def _response_object(self, verb: str, info, obj, result, error):
        """What LogResponseObject encodes: the object answered, or a list as its typed List
        (items without their kind and apiVersion, as the typed list's items encode); nothing
        for a watch's stream or an error (kubesim keeps only its text)."""
        if error is not None or verb == "watch":
            return None
        if verb == "list" and isinstance(result, list) and info is not None:
            return {"kind": f"{info.kind}List", "apiVersion": info.api_version,
                    "metadata": {"resourceVersion": self.resource_version()},
                    "items": [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in result]}
        return obj

    def _call(self, call):
        self._depth += 1
        try:
            return call()
        finally:
            self._depth -= 1

    # -- the requests ----------------------------------------------------------------------
    def get(self, info, namespace, name):
        return self._request("get", info, namespace, name, call=lambda: super(AuditedClient, self).get(info, namespace, name))

    def find(self, info, namespace, name):
        def call():
            found = super(AuditedClient, self).find(info, namespace, name)
            if found is None:
                from kubesim.errors import NotFound

                raise NotFound(info.resource, name)
            return found
        try:
            return self._request("get", info, namespace, name, call=call)
        except StatusError as e:
            if getattr(e, "reason", "") == "NotFound":
                return None
            raise

    def list(self, info, namespace=None, label_selector=None, field_selector=None, omit=()):
        return self._request("list", info, namespace or "", query=self._query("list", label_selector, field_selector),
                             call=lambda: super(AuditedClient, self).list(
            info, namespace, label_selector, field_selector, omit))

    def list_pieces(self, info, namespace=None, label_selector=None, field_selector=None, omit=(), size=500,
                    table=False):
        # one audited LIST (kubectl's first chunk): the pages after it, with their continue
        # tokens, are not logged apart
        return iter([self.list(info, namespace, label_selector, field_selector, omit)])

    def watch(self, info, namespace, name=None, label_selector=None, field_selector=None):
        # kubectl get -w: ?resourceVersion=<the list's>&watch=true (one object: a name field selector)
        from urllib.parse import urlencode

        params = {"resourceVersion": self.resource_version(), "watch": "true"}
        selector = ",".join(x for x in (f"metadata.name={name}" if name else "", field_selector or "") if x)
        if selector:
            params["fieldSelector"] = selector
        if label_selector:
            params["labelSelector"] = label_selector
        return self._request("watch", info, namespace or "", watch=True, query="?" + urlencode(sorted(params.items())),
                             call=lambda: super(AuditedClient, self).watch(info, namespace, name, label_selector,
                                                                           field_selector))

    def create(self, obj, info=None, *, dry_run=False):
        import copy

        from kubesim.api import kinds

        kind_info = info or kinds.for_object(obj)
        if kind_info is None:
            return super().create(obj, info, dry_run=dry_run)
        body = copy.deepcopy(obj)
        md = obj.get("metadata") or {}
        return self._request("create", kind_info, md.get("namespace") or "", md.get("name") or "", body=body,
                             code=201, query=self._query("create"), call=lambda: super(AuditedClient, self).create(obj, info, dry_run=dry_run))

    def update(self, info, obj, *, verb="patch", subresource=""):
        import copy

        md = obj["metadata"]
        body = copy.deepcopy(obj)
        return self._request(verb, info, md.get("namespace") or "", md["name"], subresource, body=body,
                             query=self._query(verb), call=lambda: super(AuditedClient, self).update(info, obj, verb=verb,
                                                                            subresource=subresource))

    def patch(self, info, namespace, name, patch_type, patch, field_validation="Warn"):
        # the PATCH is recorded when its result is stored (``update``); a refused one here
        try:
            return super().patch(info, namespace, name, patch_type, patch, field_validation)
        except StatusError as e:
            err = e

            def fail():
                raise err
            return self._request("patch", info, namespace, name, call=fail)

    def apply(self, info, config, *, field_manager, force=False):
        import copy
        from urllib.parse import urlencode

        md = config.get("metadata") or {}
        return self._request("patch", info, md.get("namespace") or "", md.get("name") or "", body=copy.deepcopy(config),
                             query="?" + urlencode({"fieldManager": field_manager, "fieldValidation": "Strict",
                                                    "force": "true" if force else "false"}), call=lambda: super(AuditedClient, self).apply(info, config, field_manager=field_manager,
                                                                           force=force))

    def delete(self, info, namespace, name, *, grace_period=None, force=False, propagation="Background"):
        return self._request("delete", info, namespace, name, call=lambda: super(AuditedClient, self).delete(
            info, namespace, name, grace_period=grace_period, force=force, propagation=propagation))

    def evict(self, namespace, name, *, grace_period=None, dry_run=False):
        from kubesim.controlplane.client import _POD

        return self._request("create", _POD, namespace, name, "eviction", code=201,
                             call=lambda: super(AuditedClient, self).evict(namespace, name, grace_period=grace_period,
                                                                           dry_run=dry_run))

    def log_entries(self, namespace, name, container, previous=False):
        from kubesim.controlplane.client import _POD

        return self._request("get", _POD, namespace, name, "log", query=f"?container={container}" if container else "",
                             call=lambda: super(AuditedClient, self).log_entries(
            namespace, name, container, previous))

    def pod_log(self, namespace, name, options):
        from urllib.parse import urlencode

        from kubesim.api.core import podlogs
        from kubesim.controlplane.client import _POD

        params: dict = {}
        pod = self._find(_POD, namespace, name)
        try:  # kubectl names the container it defaulted to
            container = podlogs.container_for(pod, options.container) if pod is not None else options.container
        except Exception:  # noqa: BLE001 - the request's own error is what the server answers
            container = options.container
        if container:
            params["container"] = container
        for key, value in (("follow", options.follow), ("limitBytes", options.limit_bytes),
                           ("previous", options.previous), ("sinceSeconds", options.since_seconds),
                           ("tailLines", options.tail_lines), ("timestamps", options.timestamps)):
            if value is True:
                params[key] = "true"
            elif value not in (None, False):
                params[key] = str(value)
        return self._request("get", _POD, namespace, name, "log", query="?" + urlencode(params) if params else "",
                             call=lambda: super(AuditedClient, self).pod_log(namespace, name, options))

    def exec(self, namespace, name, container, command):
        # kubectl 1.36 upgrades a GET to a WebSocket: the request's verb is get
        from urllib.parse import urlencode

        from kubesim.controlplane.client import _POD

        query = "?" + urlencode([("command", c) for c in command] + ([("container", container)] if container else [])
                                + [("stderr", "true"), ("stdout", "true")])
        return self._request("get", _POD, namespace, name, "exec", query=query,
                             call=lambda: super(AuditedClient, self).exec(namespace, name, container, command))

    def create_token(self, namespace, name, spec):
        from kubesim.api.kinds import by_kind

        return self._request("create", by_kind("ServiceAccount"), namespace, name, "token", code=201,
                             call=lambda: super(AuditedClient, self).create_token(namespace, name, spec))

    def raw(self, path):
        return self._request("get", path=path, call=lambda: super(AuditedClient, self).raw(path))


def apiserver_down(cluster: Cluster, err: str) -> RawError:
    """The kube-apiserver exited (``run.go:72] "command failed" err=...``): kubectl finds nothing
    at its address. kubesim prints the server's log line first (what ``crictl logs`` shows)."""
    from kubesim.api.nodes import CONTROL_PLANE_NODE, internal_ip

    node = cluster.store.get("Node", "", CONTROL_PLANE_NODE)
    ip = internal_ip(node) if node is not None else ""
    quoted = err.replace("\\", "\\\\").replace('"', '\\"')
    import time

    t = cluster.now()
    stamp = time.strftime("%m%d %H:%M:%S", time.gmtime(t)) + f".{round((t % 1) * 1e6) % 1000000:06d}"
    return RawError(f'E{stamp}       1 run.go:72] "command failed" err="{quoted}"\n'
                    f"The connection to the server {ip}:{SECURE_PORT} was refused - "
                    "did you specify the right host or port?")


def client_for(cluster: Cluster, impersonate, field_manager: str) -> LocalClient:
    """The command's client: audited when the kube-apiserver keeps an audit log; raises the
    connection error when its audit policy stops it from starting."""
    from kubesim.api.nodes import CONTROL_PLANE_NODE
    from kubesim.apiserver.audit.options import audit_config
    from kubesim.apiserver.audit.policy import PolicyError

    nodes_root = str(cluster.store.nodes_dir)
    try:
        config = audit_config(f"{nodes_root}/{CONTROL_PLANE_NODE}")
    except PolicyError as e:
        raise apiserver_down(cluster, str(e)) from None
    if config is None or config.log_file is None:
        return LocalClient(cluster, impersonate, field_manager)
    return AuditedClient(cluster, impersonate, field_manager, config, nodes_root)
