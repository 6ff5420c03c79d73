"""The components the settle loop runs, in the order a real control plane's would react:
kubelet registration, controllers, scheduler, kubelet pod sync. The engine is the only package
that knows them all; they meet only in stored objects.
"""

from __future__ import annotations

from kubesim.engine.context import Cluster


def static_pod_path(cluster: Cluster, node_name: str) -> str:
    return str((cluster.store.directory / "nodes" / node_name / "manifests").resolve())


def _changed(cluster: Cluster, kind: str) -> list[dict]:
    """Objects of ``kind`` this command has written (nodes and pods only change through writes,
    so the steps below need not rescan the whole cluster)."""
    store = cluster.store
    out = []
    for k in list(store.changed_keys()):
        if k[0] == kind:
            obj = store.get(*k)
            if obj is not None:
                out.append(obj)
    return out


def register_nodes(cluster: Cluster) -> bool:
    from kubesim.kubelet import node as kubelet_node

    todo = [n for n in _changed(cluster, "Node") if kubelet_node.needs_registration(n)]
    if not todo:
        return False
    alloc = kubelet_node.Allocator(cluster.store.list("Node"))
    for n in todo:
        kubelet_node.register(n, alloc, cluster, static_pod_path(cluster, n["metadata"]["name"]))
        cluster.store.put(n)
    return True


def sync_pods(cluster: Cluster) -> bool:
    """Start pods bound to a node (by the scheduler or by spec.nodeName) that have not started."""
    from kubesim.kubelet import pods as kubelet_pods

    store = cluster.store
    changed = False
    candidates = {id(p): p for p in _changed(cluster, "Pod") if kubelet_pods.needs_start(p)}
    # a node registering now picks up pods that were bound to it before it existed
    for n in _changed(cluster, "Node"):
        for key in store.pod_keys_on_node(n["metadata"]["name"]):
            p = store.get(*key)
            if p is not None and kubelet_pods.needs_start(p):
                candidates[id(p)] = p
    if not candidates:
        return False
    by_node: dict[str, list[dict]] = {}
    for pod in sorted(candidates.values(), key=lambda p: (p["metadata"].get("creationTimestamp", ""),
                                                          p["metadata"].get("namespace", ""), p["metadata"]["name"])):
        node_name = pod["spec"]["nodeName"]
        node = store.get("Node", "", node_name)
        if node is None:
            continue  # bound to a node that does not exist: stays Pending, as on a real cluster
        if node_name not in by_node:
            by_node[node_name] = [p for p in (store.get(*k) for k in store.pod_keys_on_node(node_name)) if p]
        kubelet_pods.start(pod, node, by_node[node_name], cluster)
        store.put(pod)
        changed = True
    return changed


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"


def taint_nodes_by_condition(cluster: Cluster) -> bool:
    """The node lifecycle controller's TaintNodesByCondition (pkg/controller/nodelifecycle/
    node_lifecycle_controller.go doNoScheduleTaintingPass): NoSchedule taints that mirror the
    node's state — node.kubernetes.io/unschedulable for a cordoned node, node.kubernetes.io/not-ready
    while Ready is not True (the NodeTaint admission plugin puts that one on every new node)."""
    from kubesim.kubelet.node import is_ready

    changed = False
    for n in _changed(cluster, "Node"):
        spec = n.setdefault("spec", {})
        taints = list(spec.get("taints") or [])
        want = {UNSCHEDULABLE_TAINT: bool(spec.get("unschedulable")), NOT_READY_TAINT: not is_ready(n)}
        new = [t for t in taints if not (t.get("key") in want and t.get("effect") == "NoSchedule"
                                         and not want[t["key"]])]
        for key, on in want.items():
            if on and not any(t.get("key") == key and t.get("effect") == "NoSchedule" for t in new):
                new.append({"effect": "NoSchedule", "key": key, "timeAdded": cluster.stamp()})
        if new == taints:
            continue
        if new:
            spec["taints"] = new
        else:
            spec.pop("taints", None)
        cluster.store.put(n)
        changed = True
    return changed


def _controller_step(name: str):
    """A settle step running one workload controller: sync over a view, then apply its changes
    (pods through the API server's create, so they get admission and defaults)."""

    def step(cluster: Cluster) -> bool:
        import importlib

        from kubesim.api import kinds
        from kubesim.controllers import apply
        from kubesim.controllers.base import View
        from kubesim.engine import objects

        store = cluster.store
        if not (store.count("Deployment") or store.count("ReplicaSet") or store.count("DaemonSet")):
            return False
        sync = importlib.import_module(f"kubesim.controllers.{name}").sync
        view = View.from_store(store, cluster.now(), cluster.rng)

        def create(obj: dict):
            return objects.create_object(cluster, obj, kinds.for_object(obj))

        def delete(kind: str, ns: str, name_: str):
            info = kinds.by_kind(kind)
            if store.get(kind, ns, name_) is not None:
                objects.delete_object(cluster, info, ns, name_)

        def record(obj, type_, reason, message, component):
            cluster.record(obj, type_, reason, message, component)

        return apply.apply_changes(sync(view), get=store.get, create=create, put=store.put, delete=delete,
                                   record=record, wake_at=cluster.wake_at, now=cluster.now())

    step.__name__ = f"{name}_controller"
    return step


def schedule(cluster: Cluster) -> bool:
    from kubesim.engine import scheduling

    return scheduling.step(cluster)


STEPS = [register_nodes, taint_nodes_by_condition, _controller_step("deployment"), _controller_step("replicaset"),
         _controller_step("daemonset"), _controller_step("garbagecollector"), schedule, sync_pods]
