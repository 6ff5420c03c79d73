"""The client interface (``kubesim.kubectl.client.Client``) served in-process.

One ``LocalClient`` serves one command's session (``controlplane.session``): each call is one
request the API server handles on the open state; the control plane reacts (settles) when the
session ends, or sooner when a waiting verb moves the clock (``wait_until``). The HTTP server
will serve the same calls, one request at a time.
"""

from __future__ import annotations

from kubesim.api.kinds import KindInfo
from kubesim.apiserver import objects
from kubesim.apiserver.context import Cluster
from kubesim.errors import BadRequest, NotFound, StatusError


class LocalClient:
    def __init__(self, cluster: Cluster, impersonate: tuple | None = None, field_manager: str = "kubectl"):
        """``impersonate``: (user, groups, uid) the requests are made as (``--as``,
        ``--as-group``, ``--as-uid``); None: kubesim's own user, the cluster admin, whose
        requests are not checked. ``field_manager``: the manager managedFields record the
        requests' writes under."""
        self.cluster = cluster
        cluster.field_manager = field_manager
        self.user = None
        if impersonate is not None:
            from kubesim.apiserver.authorization import impersonated_user

            self.user = impersonated_user(*impersonate)
        self._patched: set[tuple] = set()

    # -- authorization -----------------------------------------------------------------------
    def _rbac_lister(self, kind: str, namespace: str | None) -> list[dict]:
        return self.cluster.store.list(kind, namespace)

    def _rbac_getter(self, kind: str, namespace: str, name: str) -> dict | None:
        return self.cluster.store.get(kind, namespace, name)

    def _check_escalation(self, obj: dict, old: dict | None = None) -> None:
        """An impersonated user's write of a role or binding may not grant more than they hold
        (kubesim.apiserver.authorization.escalation)."""
        if self.user is None or obj.get("kind") not in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"):
            return
        from kubesim.apiserver.authorization import escalation

        escalation.check(self._rbac_lister, self._rbac_getter, self.user, obj, old)

    def requester(self):
        """The request's user: the impersonated one, else kubesim's own (admin.conf's)."""
        if self.user is not None:
            return self.user
        from kubesim.apiserver.authorization import admin_user

        return admin_user()

    def _authorize(self, verb: str, info: KindInfo | None, namespace: str = "", name: str = "",
                   subresource: str = "", *, group: str | None = None, resource: str | None = None) -> None:
        """Refuse a request of an impersonated user that RBAC does not allow (Forbidden)."""
        if self.user is None:
            return
        from kubesim.apiserver.authorization import (
            Attributes,
            authorize,
            forbidden_error,
        )

        attrs = Attributes(self.user, verb, True, info.group if group is None else group,
                           info.plural if resource is None else resource, subresource,
                           (namespace or "") if info is None or info.namespaced else "", name)
        allowed, reason = authorize(self._rbac_lister, self._rbac_getter, attrs)
        if not allowed:
            raise forbidden_error(attrs, reason)

    def self_review_allowed(self, group: str, resource: str, raise_forbidden: bool = True) -> bool:
        """Whether the requester may create a self review (``selfsubjectaccessreviews``, ...):
        Forbidden (or False) when RBAC refuses."""
        from kubesim.apiserver.authorization import (
            Attributes,
            authorize,
            forbidden_error,
        )

        attrs = Attributes(self.requester(), "create", True, group, resource)
        allowed, reason = authorize(self._rbac_lister, self._rbac_getter, attrs)
        if not allowed and raise_forbidden:
            raise forbidden_error(attrs, reason)
        return allowed

    def access_review(self, verb: str, group: str = "", resource: str = "", subresource: str = "",
                      namespace: str = "", name: str = "", path: str = "") -> tuple[bool, str]:
        """SelfSubjectAccessReview: (allowed, reason) for the requester; a ``path`` makes it a
        non-resource request."""
        from kubesim.apiserver.authorization import Attributes, authorize

        attrs = Attributes(self.requester(), verb, not path, group, resource, subresource, namespace, name, path)
        return authorize(self._rbac_lister, self._rbac_getter, attrs)

    def rules_review(self, namespace: str) -> tuple[list[dict], list[dict], bool, str]:
        """SelfSubjectRulesReview: the requester's resource rules, non-resource rules, whether
        the list is incomplete, and the evaluation error."""
        from kubesim.apiserver.authorization import SYSTEM_PRIVILEGED_GROUP
        from kubesim.apiserver.authorization.rbac import rules_for

        user = self.requester()
        resource, non_resource = [], []
        if SYSTEM_PRIVILEGED_GROUP in user.groups:  # the privileged-group authorizer's rules
            resource.append({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
            non_resource.append({"verbs": ["*"], "nonResourceURLs": ["*"]})
        r, n, err = rules_for(self._rbac_lister, self._rbac_getter, user, namespace)
        return resource + r, non_resource + n, False, err

    def self_subject_review(self) -> dict:
        """SelfSubjectReview's status.userInfo: who the requester is."""
        from kubesim.apiserver.authorization import user_info_json

        return user_info_json(self.requester())

    @property
    def rng(self):
        return self.cluster.rng

    # -- reads -----------------------------------------------------------------------------
    def get(self, info: KindInfo, namespace: str, name: str) -> dict:
        self._authorize("get", info, namespace, name)
        obj = self._find(info, namespace, name)
        if obj is None:
            raise NotFound(info.resource, name)
        return obj

    def find(self, info: KindInfo, namespace: str, name: str) -> dict | None:
        self._authorize("get", info, namespace, name)
        return self._find(info, namespace, name)

    def prefetch(self, refs: list[tuple[KindInfo, str, str]]) -> None:
        """A hint, before many requests about these (info, namespace, name) objects (a file of
        1,000 pods applied or deleted): the store reads them together, a few hundred to a
        statement, rather than one statement each as the requests come. Answers nothing."""
        if len(refs) < 50:
            return
        self.cluster.store.get_many((info.kind, (ns or "") if info.namespaced else "", name)
                                    for info, ns, name in refs if info.served)

    def _find(self, info: KindInfo, namespace: str, name: str) -> dict | None:
        if not info.served:
            return self.scheduler_configuration()
        obj = self.cluster.store.get(info.kind, (namespace or "") if info.namespaced else "", name)
        return self._served(info, [obj])[0] if obj is not None else None

    def _served(self, info: KindInfo, objs: list[dict]) -> list[dict]:
        """Objects as the API server returns them now: node Leases with the renewals their
        running kubelets have made since they were stored (components.served_leases); an
        object asked for at another version than the stored one converted to it (custom
        resources: conversion strategy None, only apiVersion changes)."""
        if info.crd is not None:
            return [o if o.get("apiVersion") == info.api_version else {**o, "apiVersion": info.api_version}
                    for o in objs]
        if info.kind == "HorizontalPodAutoscaler" and info.version == "v1":
            from kubesim.api.autoscaling.conversion import v2_to_v1

            return [v2_to_v1(o) for o in objs]
        if info.kind != "Lease":
            return objs
        from kubesim.controlplane.components import served_leases

        return served_leases(self.cluster, objs)

    def list(self, info: KindInfo, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, omit: tuple[str, ...] = ()) -> list[dict]:
        self._authorize("list", info, namespace or "")
        if not info.served:
            return [self.scheduler_configuration()]
        node = _node_name_selector(info, field_selector)
        if node is not None and not label_selector:
            # the pods of one node, from the store's index (what describe node and drain ask)
            store = self.cluster.store
            pods = [p for k in store.pod_keys_on_node(node) if (p := store.get(*k)) is not None]
            if namespace is not None:
                pods = [p for p in pods if p["metadata"].get("namespace", "") == namespace]
            return sorted(pods, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"]))
        return self._served(info, objects.list_objects(self.cluster, info, namespace, label_selector,
                                                       field_selector, omit))

    def list_pieces(self, info: KindInfo, namespace: str | None = None, label_selector: str | None = None,
                    field_selector: str | None = None, omit: tuple[str, ...] = (), size: int = 500,
                    table: bool = False):
        self._authorize("list", info, namespace or "")
        if not info.served or _node_name_selector(info, field_selector) is not None:
            return iter([self.list(info, namespace, label_selector, field_selector, omit)])
        return (self._served(info, piece) for piece in objects.list_pieces(
            self.cluster, info, namespace, label_selector, field_selector, omit, size, table))

    def count(self, info: KindInfo) -> int:
        return self.cluster.store.count(info.kind)

    def resource_version(self) -> str:
        return str(self.cluster.store.resource_version())

    def watch(self, info: KindInfo, namespace: str | None, name: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None):
        from kubesim.apiserver.watch import Watch

        self._authorize("watch", info, namespace or "", name or "")
        return Watch(self.cluster, info, namespace, name, label_selector, field_selector)

    # -- writes ----------------------------------------------------------------------------
    def create(self, obj: dict, info: KindInfo | None = None, *, dry_run: bool = False) -> dict:
        if self.user is not None:
            from kubesim.api import kinds

            kind_info = info or kinds.for_object(obj)
            if kind_info is not None:
                self._authorize("create", kind_info, (obj.get("metadata") or {}).get("namespace") or "")
                self._check_escalation(obj)
        return objects.create_object(self.cluster, obj, info)

    def update(self, info: KindInfo, obj: dict, *, verb: str = "patch", subresource: str = "") -> dict:
        md = obj["metadata"]
        ns = md.get("namespace", "") if info.namespaced else ""
        if (info.kind, ns, md["name"]) not in self._patched:  # a patch's write was authorized as one
            self._authorize(verb, info, ns, md["name"])
        if info.kind == "HorizontalPodAutoscaler" and info.version == "v1":
            # a write at another version than the stored one: converted on decode
            from kubesim.api.autoscaling.conversion import v1_to_v2
            from kubesim.api.kinds import by_kind

            obj = v1_to_v2(obj)
            stored = by_kind(info.kind)
            live = self._get(stored, ns, md["name"])
            objects.update_object(self.cluster, obj, live, stored)
            return self._find(info, ns, md["name"])
        live = self._get(info, ns, md["name"])
        self._check_escalation(obj, live)
        objects.update_object(self.cluster, obj, live, info, subresource=subresource)
        found = self._find(info, ns, md["name"])
        # an update that removed the last finalizer of an object marked for deletion removed it:
        # the server answers with the object as it was last
        if found is None:
            obj = dict(obj, metadata={**obj["metadata"], "resourceVersion": self.resource_version()})
        return found if found is not None else obj

    def _get(self, info: KindInfo, namespace: str, name: str) -> dict:
        obj = self._find(info, namespace, name)
        if obj is None:
            raise NotFound(info.resource, name)
        return obj

    def patch(self, info: KindInfo, namespace: str, name: str, patch_type: str, patch,
              field_validation: str = "Warn") -> tuple[dict, list[str]]:
        from kubesim.apiserver.patch import patch_object

        self._authorize("patch", info, namespace, name)
        self._patched.add((info.kind, (namespace or "") if info.namespaced else "", name))
        return patch_object(info, self._get(info, namespace, name), patch_type, patch, field_validation)

    def apply(self, info: KindInfo, config: dict, *, field_manager: str, force: bool = False) -> tuple[dict, bool]:
        """Server-side apply (PATCH application/apply-patch+yaml): (the stored object, whether it
        was created)."""
        md = config.get("metadata") or {}
        ns = (md.get("namespace") or "") if info.namespaced else ""
        live = self._find(info, ns, md.get("name", ""))
        self._authorize("patch" if live is not None else "create", info, ns, md.get("name", ""))
        created = objects.apply_object(self.cluster, info, config, live, field_manager, force)
        return self._find(info, ns, md.get("name", "")), created

    def delete(self, info: KindInfo, namespace: str, name: str, *, grace_period: float | None = None,
               force: bool = False, propagation: str = "Background") -> dict:
        self._authorize("delete", info, namespace, name)
        return objects.delete_object(self.cluster, info, (namespace or "") if info.namespaced else "", name,
                                     grace_seconds=grace_period, force=force, propagation=propagation)

    def update_status(self, info: KindInfo, namespace: str, name: str, obj: dict) -> dict:
        from kubesim.apiserver.subresources import update_status

        update_status(self.cluster, info, namespace, name, obj)
        return self.get(info, namespace, name)

    def bind(self, namespace: str, name: str, binding: dict) -> None:
        from kubesim.apiserver.subresources import bind

        bind(self.cluster, namespace, name, binding)

    def warnings(self) -> list[str]:
        warnings = self.cluster.__dict__.pop("warnings", None) or []
        return list(warnings)

    def create_token(self, namespace: str, name: str, spec: dict) -> dict:
        from kubesim.apiserver.serviceaccounttoken import create_token

        c = self.cluster
        return create_token(c.store, namespace, name, spec, c.now(), c.rng, c.stamp())

    def evict(self, namespace: str, name: str, *, grace_period: float | None = None, dry_run: bool = False) -> None:
        from kubesim.apiserver.eviction import evict

        self._authorize("create", _POD, namespace, name, "eviction")
        evict(self.cluster, namespace, name, grace_period, dry_run=dry_run)

    def logs(self, namespace: str, name: str, container: str, previous: bool = False) -> list[str]:
        return [line for _, line in self.log_entries(namespace, name, container, previous)]

    def log_entries(self, namespace: str, name: str, container: str,
                    previous: bool = False) -> list[tuple[float, str]]:
        # the API server proxies pods/log to the pod's kubelet
        from kubesim.controlplane.components import container_log

        self._authorize("get", _POD, namespace, name, "log")
        pod = self._get(_POD, namespace, name)
        try:
            return container_log(self.cluster, pod, container, previous)
        except LookupError as e:
            raise BadRequest(str(e)) from None

    def pod_log(self, namespace: str, name: str, options) -> str:
        """GET pods/NAME/log with PodLogOptions: the log REST's validation, the container's
        (strategy.go validateContainer), then what the kubelet reads."""
        from kubesim.api.core import podlogs

        self._authorize("get", _POD, namespace, name, "log")
        pod = self._get(_POD, namespace, name)
        podlogs.check(name, options)
        container = podlogs.container_for(pod, options.container)
        entries = self.log_entries(namespace, name, container, options.previous)
        return podlogs.read(entries, options, self.cluster.now())

    def exec(self, namespace: str, name: str, container: str, command: list[str]) -> tuple[str, str, int, float]:
        """POST pods/NAME/exec: the command's (stdout, stderr, exit code, seconds it took), run
        by the pod's kubelet (kubesim.controlplane.network). BadRequest as the API server words
        it; a kubelet refusal raises UpgradeFailure's text as a RawError."""
        from kubesim.controlplane.network import UpgradeFailure, exec_in_container
        from kubesim.errors import client_error

        self._authorize("create", _POD, namespace, name, "exec")
        pod = self._get(_POD, namespace, name)
        try:
            return exec_in_container(self.cluster, pod, container, command)
        except UpgradeFailure as e:
            raise client_error(f"error: unable to upgrade connection: {e}") from None

    def port_forward(self, namespace: str, name: str, port: int, request: bytes = b"") -> bytes | None:
        """POST pods/NAME/portforward: what the pod's ``port`` answers to ``request`` (None:
        connection refused), by kubesim.controlplane.network."""
        from kubesim.controlplane.network import forwarded_reply

        self._authorize("create", _POD, namespace, name, "portforward")
        return forwarded_reply(self.cluster, self._get(_POD, namespace, name), port, request)

    def explain_network(self, namespace: str, name: str, host: str, port: int, protocol: str = "TCP") -> dict:
        """kubesim.io: every hop of a connection from the pod to ``host:port``."""
        from kubesim.controlplane.network import explain

        return explain(self.cluster, self.get(_POD, namespace, name), host, port, protocol)

    def raw(self, path: str) -> dict:
        import re

        metrics = _metrics_path(path)
        if metrics is not None:
            return self._metrics_raw(*metrics)
        m = re.fullmatch(r"/api/v1/nodes/([^/]+)/proxy/configz", path)
        if not m:
            err = StatusError("the server could not find the requested resource")
            err.reason = "NotFound"
            raise err
        from kubesim.controlplane.components import static_pod_path
        from kubesim.kubelet.config import kubelet_configz

        self._authorize("get", _NODE, "", m.group(1), "proxy")
        node = self._get(_NODE, "", m.group(1))
        return kubelet_configz(node, static_pod_path(self.cluster, m.group(1)))

    # -- metrics.k8s.io (metrics-server) ---------------------------------------------------
    def node_metrics(self, name: str | None = None, label_selector: str | None = None) -> list[dict]:
        """GET/LIST metrics.k8s.io/v1beta1 nodes: the NodeMetrics of Ready nodes
        (kubesim.kubelet.metrics), by name. Upstream: metrics-server pkg/api/node.go (Get: the
        lister's NotFound for a missing node, nodemetrics' for one without metrics)."""
        from kubesim.kubelet.metrics import node_metrics

        self._authorize("get" if name else "list", None, "", name or "", group="metrics.k8s.io", resource="nodes")
        nodes = ([n] if (n := self.cluster.store.get("Node", "", name)) is not None else []) if name else \
            objects.list_objects(self.cluster, _NODE, None, label_selector, None)
        now, store, out = self.cluster.now(), self.cluster.store, []
        for node in nodes:
            pods = [p for k in store.pod_keys_on_node(node["metadata"]["name"]) if (p := store.get(*k)) is not None]
            if (m := node_metrics(node, pods, now)) is not None:
                out.append(m)
        if name and not nodes:
            raise NotFound("nodes", name)  # the node lister's own error
        if name and not out:
            raise NotFound("nodemetrics.metrics.k8s.io", name)
        return out

    def pod_metrics(self, namespace: str | None, name: str | None = None, label_selector: str | None = None,
                    field_selector: str | None = None) -> list[dict]:
        """GET/LIST metrics.k8s.io/v1beta1 pods (``namespace`` None: every namespace): the
        PodMetrics of running pods on Ready nodes, by (namespace, name). Upstream: metrics-server
        pkg/api/pod.go (Get: the lister's NotFound for a missing pod, podmetrics' with
        ``namespace/name`` for one without metrics)."""
        from kubesim.kubelet.metrics import node_ready, pod_metrics

        self._authorize("get" if name else "list", None, namespace or "", name or "", group="metrics.k8s.io",
                        resource="pods")
        if name:
            pods = [p] if (p := self.cluster.store.get("Pod", namespace or "", name)) is not None else []
        else:
            pods = objects.list_objects(self.cluster, _POD, namespace, label_selector, field_selector)
        now, ready, out = self.cluster.now(), {}, []
        for pod in pods:
            node = (pod.get("spec") or {}).get("nodeName") or ""
            if node not in ready:
                n = self.cluster.store.get("Node", "", node) if node else None
                ready[node] = n is not None and node_ready(n)
            if ready[node] and (m := pod_metrics(pod, now)) is not None:
                out.append(m)
        if name and not pods:
            raise NotFound("pods", name)  # the pod lister's own error
        if name and not out:
            raise NotFound("podmetrics.metrics.k8s.io", f"{namespace}/{name}")
        return out

    def _metrics_raw(self, resource: str, namespace: str | None, name: str | None) -> dict:
        """``get --raw /apis/metrics.k8s.io/v1beta1/...``: one object, or its list."""
        items = self.node_metrics(name) if resource == "nodes" else self.pod_metrics(namespace, name)
        if name:
            return items[0]
        kind = "NodeMetricsList" if resource == "nodes" else "PodMetricsList"
        # a list's items carry no TypeMeta (converted from the internal objects)
        items = [{k: v for k, v in m.items() if k not in ("kind", "apiVersion")} for m in items]
        return {"kind": kind, "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {}, "items": items}

    # -- kubesim.io ------------------------------------------------------------------------
    def now(self) -> float:
        return self.cluster.now()

    def next_due(self) -> float | None:
        due = self.cluster.store.meta("settle.due")
        return None if due is None else float(due)

    def settle(self) -> bool:
        from kubesim.controlplane.settle import settle

        return bool(settle(self.cluster, force=True))

    def wait_until(self, t: float) -> bool:
        from kubesim.controlplane.settle import wait_until

        return wait_until(self.cluster, t)

    def advance(self, seconds: float) -> None:
        from kubesim.controlplane.settle import advance

        advance(self.cluster, seconds)

    def scheduler_configuration(self) -> dict:
        from kubesim.controlplane.scheduling import scheduler_configuration

        return scheduler_configuration(self.cluster)

    def apply_scheduler_configuration(self, cfg: dict) -> str:
        from kubesim.controlplane.scheduling import apply_scheduler_configuration

        return apply_scheduler_configuration(self.cluster, cfg)

    def scheduler_plugins(self) -> dict[str, dict]:
        from kubesim.scheduler.plugins.registry import LEGACY_NAMES

        return LEGACY_NAMES

    def explain_schedule(self, namespace: str, name: str) -> tuple[dict, str | None]:
        from kubesim.controlplane import explain

        return explain.recorded(self.cluster, self.get(_POD, namespace, name))

    def explain_pods(self, pods: list[dict]) -> list[tuple[dict, dict]]:
        from kubesim.controlplane import explain

        return explain.what_if(self.cluster, pods)

    def set_kubelet(self, node: str, running: bool) -> bool:
        from kubesim.controlplane.components import set_kubelet

        return set_kubelet(self.cluster, self.get(_NODE, "", node), running)


def _metrics_path(path: str) -> tuple[str, str | None, str | None] | None:
    """(resource, namespace, name) of a metrics.k8s.io/v1beta1 path, else None."""
    import re

    path = path.split("?", 1)[0].rstrip("/")
    m = re.fullmatch(r"/apis/metrics\.k8s\.io/v1beta1(?:/namespaces/([^/]+))?/(nodes|pods)(?:/([^/]+))?", path)
    if not m or (m.group(1) and m.group(2) == "nodes"):
        return None
    return m.group(2), m.group(1), m.group(3)


def _node_name_selector(info: KindInfo, field_selector: str | None) -> str | None:
    """The node of a ``spec.nodeName=NODE`` pod field selector (one the index answers)."""
    if info.kind != "Pod" or not field_selector or "," in field_selector or "!" in field_selector:
        return None
    key, sep, value = field_selector.partition("=")
    if key != "spec.nodeName" or not sep or not value or value.startswith("="):
        return None
    return value


def _kind(kind: str) -> KindInfo:
    from kubesim.api import kinds

    return kinds.by_kind(kind)


_POD = _kind("Pod")
_NODE = _kind("Node")
