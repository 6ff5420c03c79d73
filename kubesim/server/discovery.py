"""Discovery as a v1.35 kube-apiserver answers it: ``/version``, ``/api``, ``/api/v1``, ``/apis``,
``/apis/<group>``, ``/apis/<group>/<version>``, and the OpenAPI documents ``/openapi/v2``,
``/openapi/v3`` and ``/openapi/v3/<api|apis/group>/<version>``, all from kubesim's kind registry
(``kubesim.api.kinds``) and the OpenAPI data ``explain`` reads (``kubesim.api.openapi``).

Aggregated discovery (``as=APIGroupDiscoveryList``) is not served: its Accept is answered with
the legacy documents as ``application/json``, which client-go's discovery client
(client-go/discovery/discovery_client.go ``downloadAPIs``: the response's Content-Type decides)
reads as the legacy form and then fetches each group-version, as it does with older servers.

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/discovery (legacy.go, root.go, group.go,
version.go), staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (APIResource's fields),
pkg/controlplane/apiserver/options + pkg/controlplane/instance.go (the groups' priority order,
as ``/apis`` lists them), staging/src/k8s.io/kube-openapi/pkg/handler3 (``/openapi/v3``'s index of
``serverRelativeURL``), staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go
(kubectl sends ``fieldValidation`` when a PATCH of the kind lists that parameter).
"""

from __future__ import annotations

import functools
import hashlib
import json

from kubesim.api import kinds

VERSION = {
    "major": "1", "minor": "35", "emulationMajor": "1", "emulationMinor": "35",
    "minCompatibilityMajor": "1", "minCompatibilityMinor": "34", "gitVersion": "v1.35.4",
    "gitCommit": "$Format:%H$", "gitTreeState": "clean", "buildDate": "1970-01-01T00:00:00Z",
    "goVersion": "go1.26.8", "compiler": "gc", "platform": "linux/amd64",
}

# /apis lists groups in kube-apiserver's priority order (as a v1.35 server lists them)
GROUP_ORDER = ("apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
               "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
               "rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io",
               "apiextensions.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io",
               "discovery.k8s.io", "resource.k8s.io", "flowcontrol.apiserver.k8s.io")

# the subresources a v1.35 server lists under each kind kubesim serves: name -> (kind, verbs,
# group and version when they differ from the resource's)
_STATUS = ("get", "patch", "update")
SUBRESOURCES: dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, str] | None]]] = {
    "Namespace": [("finalize", "Namespace", ("update",), None), ("status", "Namespace", _STATUS, None)],
    "Node": [("proxy", "NodeProxyOptions", ("create", "delete", "get", "patch", "update"), None),
             ("status", "Node", _STATUS, None)],
    "Pod": [("attach", "PodAttachOptions", ("create", "get"), None), ("binding", "Binding", ("create",), None),
            ("ephemeralcontainers", "Pod", _STATUS, None), ("eviction", "Eviction", ("create",), ("policy", "v1")),
            ("exec", "PodExecOptions", ("create", "get"), None), ("log", "Pod", ("get",), None),
            ("portforward", "PodPortForwardOptions", ("create", "get"), None),
            ("proxy", "PodProxyOptions", ("create", "delete", "get", "patch", "update"), None),
            ("resize", "Pod", _STATUS, None), ("status", "Pod", _STATUS, None)],
    "PersistentVolume": [("status", "PersistentVolume", _STATUS, None)],
    "PersistentVolumeClaim": [("status", "PersistentVolumeClaim", _STATUS, None)],
    "Deployment": [("scale", "Scale", _STATUS, ("autoscaling", "v1")), ("status", "Deployment", _STATUS, None)],
    "ReplicaSet": [("scale", "Scale", _STATUS, ("autoscaling", "v1")), ("status", "ReplicaSet", _STATUS, None)],
    "DaemonSet": [("status", "DaemonSet", _STATUS, None)],
    "PodDisruptionBudget": [("status", "PodDisruptionBudget", _STATUS, None)],
    "ServiceAccount": [("token", "TokenRequest", ("create",), ("authentication.k8s.io", "v1"))],
    "Service": [("proxy", "ServiceProxyOptions", ("create", "delete", "get", "patch", "update"), None),
                ("status", "Service", _STATUS, None)],
    "StatefulSet": [("scale", "Scale", _STATUS, ("autoscaling", "v1")), ("status", "StatefulSet", _STATUS, None)],
    "Job": [("status", "Job", _STATUS, None)],
    "CronJob": [("status", "CronJob", _STATUS, None)],
    "Ingress": [("status", "Ingress", _STATUS, None)],
    "HorizontalPodAutoscaler": [("status", "HorizontalPodAutoscaler", _STATUS, None)],
}


def subresources(k: kinds.KindInfo) -> list[tuple[str, str, tuple[str, ...], tuple[str, str] | None]]:
    """A kind's subresources: the table's, or those a CustomResourceDefinition enables
    (customresource_discovery_controller.go: status, and scale as autoscaling/v1 Scale)."""
    if k.crd is None:
        return SUBRESOURCES.get(k.kind, [])
    from kubesim.api.apiextensions.helpers import subresources_for_version

    sub = subresources_for_version(k.crd, k.version)
    out: list[tuple[str, str, tuple[str, ...], tuple[str, str] | None]] = []
    if "scale" in sub:
        out.append(("scale", "Scale", _STATUS, ("autoscaling", "v1")))
    if "status" in sub:
        out.append(("status", k.kind, _STATUS, None))
    return out


# the warning every request of a deprecated resource draws (the apiserver's deprecation
# warnings, staging/src/k8s.io/apiserver/pkg/endpoints/deprecation; pkg/api/v1/endpoints)
DEPRECATED = {"Endpoints": "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"}


def served() -> list[kinds.KindInfo]:
    return [k for k in kinds.REGISTRY.all() if k.served]


def served_versions() -> list[kinds.KindInfo]:
    """Every served kind at every version: the preferred ones, then the others (autoscaling/v1)."""
    return [*served(), *kinds.REGISTRY.other_versions.values()]


def group_versions() -> dict[str, list[str]]:
    """group -> its served versions ("" is the core group)."""
    out: dict[str, list[str]] = {}
    for k in served_versions():  # the preferred version first
        versions = out.setdefault(k.group, [])
        if k.version not in versions:
            versions.append(k.version)
    return out


def api_versions(server_address: str) -> dict:
    """``/api``: the core group's versions."""
    return {"kind": "APIVersions", "versions": group_versions().get("", ["v1"]),
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def _group(name: str, versions: list[str]) -> dict:
    gvs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": gvs, "preferredVersion": gvs[0]}


def _order(group: str) -> tuple[int, str]:
    return (GROUP_ORDER.index(group), "") if group in GROUP_ORDER else (len(GROUP_ORDER), group)


def api_group_list() -> dict:
    """``/apis``: every named group, in the server's priority order; metrics-server's
    (aggregated, priority 100) last."""
    from kubesim.api import metricsapi

    groups = sorted((g for g in group_versions() if g), key=_order)
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [_group(g, group_versions()[g]) for g in groups]
            + [_group(metricsapi.GROUP, [metricsapi.VERSION])]}


def api_group(group: str) -> dict | None:
    from kubesim.api import metricsapi

    if group == metricsapi.GROUP:
        return {"kind": "APIGroup", "apiVersion": "v1", **_group(group, [metricsapi.VERSION])}
    versions = group_versions().get(group) if group else None
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(group, versions)}


def _resource(k: kinds.KindInfo) -> dict:
    r = {"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced, "kind": k.kind,
         "verbs": sorted(k.verbs) if k.crd is None else list(k.verbs)}
    if k.short_names:
        r["shortNames"] = list(k.short_names)
    if k.categories:
        r["categories"] = list(k.categories)
    r["storageVersionHash"] = _storage_version_hash(k)
    return r


def _storage_version_hash(k: kinds.KindInfo) -> str:
    """discovery.StorageVersionHash: the first 8 bytes of sha256("group/version/kind"), base64."""
    import base64

    digest = hashlib.sha256(f"{k.group}/{k.version}/{k.kind}".encode()).digest()[:8]
    return base64.b64encode(digest).decode()


def api_resource_list(group: str, version: str) -> dict | None:
    """``/api/v1``, ``/apis/<group>/<version>``: the resources and their subresources, by name."""
    from kubesim.api import metricsapi

    if (group, version) == (metricsapi.GROUP, metricsapi.VERSION):  # metrics-server's own list
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": metricsapi.GROUP_VERSION,
                "resources": [{"name": p, "singularName": "", "namespaced": ns, "kind": kind,
                               "verbs": list(metricsapi.VERBS)} for p, kind, ns in metricsapi.RESOURCES]}
    infos = [k for k in served_versions() if k.group == group and k.version == version]
    if not infos:
        return None
    resources = []
    for k in infos:
        resources.append(_resource(k))
        for sub, kind, verbs, gv in subresources(k):
            r = {"name": f"{k.plural}/{sub}", "singularName": "", "namespaced": k.namespaced}
            if gv:
                r["group"], r["version"] = gv
            r.update(kind=kind, verbs=list(verbs))
            resources.append(r)
    resources.sort(key=lambda r: r["name"])
    gv = f"{group}/{version}" if group else version
    out = {"kind": "APIResourceList", "groupVersion": gv, "resources": resources}
    if group:
        out = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
    return out


# -- OpenAPI -----------------------------------------------------------------------------------

_V3_PREFIX = "#/components/schemas/"
_V2_PREFIX = "#/definitions/"


def _with_refs(schema, prefix: str):
    """The shipped schemas keep a ``$ref``'s name only: give it back its document prefix."""
    if isinstance(schema, dict):
        return {k: (prefix + v if k == "$ref" and isinstance(v, str) else _with_refs(v, prefix))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_with_refs(v, prefix) for v in schema]
    return schema


def _reachable(names: list[str], schemas: dict) -> dict:
    out: dict[str, dict] = {}
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in out or n not in schemas:
            continue
        out[n] = schemas[n]
        todo.extend(_refs(schemas[n]))
    return out


def _refs(schema) -> list[str]:
    if isinstance(schema, dict):
        # (a property may be named "$ref" too: JSONSchemaProps has one)
        return [v for k, v in schema.items() if k == "$ref" and isinstance(v, str)] + \
            [r for v in schema.values() for r in _refs(v)]
    if isinstance(schema, list):
        return [r for v in schema for r in _refs(v)]
    return []


def _kind_schema_names(schemas: dict, gvks: set[tuple[str, str, str]]) -> list[str]:
    return [name for name, s in schemas.items()
            if any((g.get("group", ""), g.get("version"), g.get("kind")) in gvks
                   for g in s.get("x-kubernetes-group-version-kind") or ())]


def _paths(infos: list[tuple[str, str, str, str, bool]]) -> dict:
    """One path per resource, with the PATCH operation and its ``fieldValidation`` parameter
    (what kubectl's QueryParamVerifierV3 looks for before it sends ``fieldValidation=Strict``)."""
    paths = {}
    for plural, group, version, kind, namespaced in infos:
        base = f"/apis/{group}/{version}" if group else f"/api/{version}"
        ns = "/namespaces/{namespace}" if namespaced else ""
        gvk = {"group": group, "version": version, "kind": kind}
        op = {"parameters": [{"name": "dryRun", "in": "query", "schema": {"type": "string"}},
                             {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}],
              "responses": {"200": {"description": "OK"}}, "x-kubernetes-action": "patch",
              "x-kubernetes-group-version-kind": gvk}
        paths[f"{base}{ns}/{plural}/{{name}}"] = {"patch": op}
    return paths


def openapi_v3_document(path: str) -> bytes | None:
    """``/openapi/v3/<path>``: the group-version's document, for the resources kubesim serves
    (a custom resource's group-version: built from its CRD, each time)."""
    group, version = _split_gv_path(path)
    if version is None:
        return None
    custom = [k for k in served() if k.crd is not None and k.group == group and k.version == version]
    if custom:
        return _custom_v3_document(custom)
    return _builtin_v3_document(path)


def _custom_v3_document(infos: list[kinds.KindInfo]) -> bytes:
    from kubesim.api import openapi
    from kubesim.api.apiextensions.openapi import custom_resource_schema, schema_name

    schemas = openapi.schemas()
    own = {}
    for k in infos:
        s = custom_resource_schema(k.crd, k.version)
        s["x-kubernetes-group-version-kind"] = [{"group": k.group, "kind": k.kind, "version": k.version}]
        own[schema_name(k.group, k.version, k.kind)] = s
    chosen = _reachable([r for s in own.values() for r in _refs(s)], schemas)
    chosen.update(own)
    doc = {"openapi": "3.0.0", "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
           "paths": _paths([(k.plural, k.group, k.version, k.kind, k.namespaced) for k in infos]),
           "components": {"schemas": {n: _with_refs(s, _V3_PREFIX) for n, s in sorted(chosen.items())}}}
    return json.dumps(doc, separators=(",", ":")).encode()


@functools.cache
def _builtin_v3_document(path: str) -> bytes | None:
    from kubesim.api import openapi

    group, version = _split_gv_path(path)
    if version is None:
        return None
    known = openapi.resources(group, version) or {}
    infos = [(k.plural, k.group, k.version, k.kind, k.namespaced) for k in served_versions()
             if k.group == group and k.version == version]
    if not infos:
        return None
    schemas = openapi.schemas()
    gvks = {(g, v, kind) for _, (g, v, kind, _ns) in known.items()} | {(i[1], i[2], i[3]) for i in infos}
    chosen = _reachable(_kind_schema_names(schemas, gvks), schemas)
    doc = {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.35.4"},
           "paths": _paths(infos),
           "components": {"schemas": {n: _with_refs(s, _V3_PREFIX) for n, s in sorted(chosen.items())}}}
    return json.dumps(doc, separators=(",", ":")).encode()


def _split_gv_path(path: str) -> tuple[str, str | None]:
    parts = path.strip("/").split("/")
    if len(parts) == 2 and parts[0] == "api":
        return "", parts[1]
    if len(parts) == 3 and parts[0] == "apis":
        return parts[1], parts[2]
    return "", None


def openapi_v3_index() -> bytes:
    """``/openapi/v3``: each group-version's document and its hash (clients cache by it)."""
    if not any(k.crd is not None for k in served()):
        return _builtin_v3_index()
    return _v3_index()


@functools.cache
def _builtin_v3_index() -> bytes:
    return _v3_index()


def _v3_index() -> bytes:
    paths = {}
    for group, versions in sorted(group_versions().items()):
        for v in versions:
            p = f"apis/{group}/{v}" if group else f"api/{v}"
            body = openapi_v3_document(p)
            if body is None:
                continue
            digest = hashlib.sha512(body).hexdigest().upper()
            paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={digest}"}
    return json.dumps({"paths": paths}, separators=(",", ":")).encode()


@functools.cache
def openapi_v2_document() -> bytes:
    """``/openapi/v2`` (swagger 2.0): the definitions of the served kinds."""
    from kubesim.api import openapi

    definitions = openapi.definitions_v2()
    gvks = {(k.group, k.version, k.kind) for k in served_versions()}
    chosen = _reachable(_kind_schema_names(definitions, gvks), definitions)
    paths = {}
    for p, item in _paths([(k.plural, k.group, k.version, k.kind, k.namespaced) for k in served_versions()]).items():
        op = dict(item["patch"])
        op["parameters"] = [{"name": q["name"], "in": "query", "type": "string", "uniqueItems": True}
                            for q in op["parameters"]]
        op["responses"] = {"200": {"description": "OK"}}
        paths[p] = {"patch": op}
    doc = {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.35.4"}, "paths": paths,
           "definitions": {n: _with_refs(s, _V2_PREFIX) for n, s in sorted(chosen.items())}}
    return json.dumps(doc, separators=(",", ":")).encode()
