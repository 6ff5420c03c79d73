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
    def __init__(self, cluster: Cluster):
        self.cluster = cluster

    @property
    def rng(self):
        return self.cluster.rng

    # -- reads -----------------------------------------------------------------------------
    def get(self, info: KindInfo, namespace: str, name: str) -> dict:
        obj = self.find(info, namespace, name)
        if obj is None:
            raise NotFound(info.resource, name)
        return obj

    def find(self, info: KindInfo, namespace: str, name: str) -> dict | None:
        if not info.served:
            return self.scheduler_configuration()
        obj = self.cluster.store.get(info.kind, (namespace or "") if info.namespaced else "", name)
        return self._served(info, [obj])[0] if obj is not None else None

    def _served(self, info: KindInfo, objs: list[dict]) -> list[dict]:
        """Objects as the API server returns them now: node Leases with the renewals their
        running kubelets have made since they were stored (components.served_leases)."""
        if info.kind != "Lease":
            return objs
        from kubesim.controlplane.components import served_leases

        return served_leases(self.cluster, objs)

    def list(self, info: KindInfo, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None) -> list[dict]:
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
                                                       field_selector))

    def count(self, info: KindInfo) -> int:
        return self.cluster.store.count(info.kind)

    def watch(self, info: KindInfo, namespace: str | None, name: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None):
        from kubesim.apiserver.watch import Watch

        return Watch(self.cluster, info, namespace, name, label_selector, field_selector)

    # -- writes ----------------------------------------------------------------------------
    def create(self, obj: dict, info: KindInfo | None = None, *, dry_run: bool = False) -> dict:
        return objects.create_object(self.cluster, obj, info)

    def update(self, info: KindInfo, obj: dict) -> dict:
        md = obj["metadata"]
        ns = md.get("namespace", "") if info.namespaced else ""
        live = self.get(info, ns, md["name"])
        objects.update_object(self.cluster, obj, live, info)
        return self.find(info, ns, md["name"])

    def patch(self, info: KindInfo, namespace: str, name: str, patch_type: str, patch,
              field_validation: str = "Warn") -> tuple[dict, list[str]]:
        from kubesim.apiserver.patch import patch_object

        return patch_object(info, self.get(info, namespace, name), patch_type, patch, field_validation)

    def delete(self, info: KindInfo, namespace: str, name: str, *, grace_period: float | None = None,
               force: bool = False, propagation: str = "Background") -> dict:
        return objects.delete_object(self.cluster, info, (namespace or "") if info.namespaced else "", name,
                                     grace_seconds=grace_period, force=force, propagation=propagation)

    def update_status(self, info: KindInfo, namespace: str, name: str, obj: dict) -> dict:
        from kubesim.apiserver.subresources import update_status

        update_status(self.cluster, info, namespace, name, obj)
        return self.get(info, namespace, name)

    def bind(self, namespace: str, name: str, binding: dict) -> None:
        from kubesim.apiserver.subresources import bind

        bind(self.cluster, namespace, name, binding)

    def evict(self, namespace: str, name: str, *, grace_period: float | None = None, dry_run: bool = False) -> None:
        from kubesim.apiserver.eviction import evict

        evict(self.cluster, namespace, name, grace_period, dry_run=dry_run)

    def logs(self, namespace: str, name: str, container: str, previous: bool = False) -> list[str]:
        return [line for _, line in self.log_entries(namespace, name, container, previous)]

    def log_entries(self, namespace: str, name: str, container: str,
                    previous: bool = False) -> list[tuple[float, str]]:
        # the API server proxies pods/log to the pod's kubelet
        from kubesim.controlplane.components import container_log

        pod = self.get(_POD, namespace, name)
        try:
            return container_log(self.cluster, pod, container, previous)
        except LookupError as e:
            raise BadRequest(str(e)) from None

    def pod_log(self, namespace: str, name: str, options) -> str:
        """GET pods/NAME/log with PodLogOptions: the log REST's validation, the container's
        (strategy.go validateContainer), then what the kubelet reads."""
        from kubesim.api.core import podlogs

        pod = self.get(_POD, namespace, name)
        podlogs.check(name, options)
        container = podlogs.container_for(pod, options.container)
        entries = self.log_entries(namespace, name, container, options.previous)
        return podlogs.read(entries, options, self.cluster.now())

    def raw(self, path: str) -> dict:
        import re

        m = re.fullmatch(r"/api/v1/nodes/([^/]+)/proxy/configz", path)
        if not m:
            err = StatusError("the server could not find the requested resource")
            err.reason = "NotFound"
            raise err
        from kubesim.controlplane.components import static_pod_path
        from kubesim.kubelet.config import kubelet_configz

        node = self.get(_NODE, "", m.group(1))
        return kubelet_configz(node, static_pod_path(self.cluster, m.group(1)))

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
