"""The components the settle loop runs, in the order a real control plane's would react:
kubelet registration, controllers, scheduler, kubelet pod sync. The engine is the only package
that knows them all; they meet only in stored objects.
"""

from __future__ import annotations

from kubesim.api.nodes import ZONE_LABEL
from kubesim.api.pods import has_ephemeral_volumes
from kubesim.apiserver.context import Cluster


def static_pod_path(cluster: Cluster, node_name: str) -> str:
    """``<state>/nodes/<node>/manifests`` as an absolute path (the base resolved once per command)."""
    import os

    base = getattr(cluster, "_static_pod_base", None)
    if base is None:
        base = cluster._static_pod_base = str((cluster.store.directory / "nodes").resolve())
    return os.path.join(base, node_name, "manifests")


def static_pod_dir(cluster: Cluster, node_name: str) -> str:
    """Where ``static_pod_path``'s files are this command: a new cluster's staged tree until
    its commit (kubesim.store.files), else the same directory."""
    return str(cluster.store.nodes_dir / node_name / "manifests")


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


def _created_nodes(cluster: Cluster) -> list[dict]:
    """The Nodes this command created (their kubelets registered in it)."""
    store = cluster.store
    return [n for k in list(store.changed_keys())
            if k[0] == "Node" and (n := store.get(*k)) is not None and store.committed(*k) is None]


def static_pod_directories(cluster: Cluster, every: bool = False) -> bool:
    """Each node's machine has its static pod directory from the start, as a kubeadm node has
    ``/etc/kubernetes/manifests`` (the kubelet package installs it; the kubelet only reads it):
    created with the Node (``every``: for all nodes), so a manifest can be written there at once.
    Writes no object."""
    from kubesim.apiserver.storage import make_state_dirs

    for node in cluster.store.list("Node") if every else _created_nodes(cluster):
        make_state_dirs(cluster.store.nodes_dir, node["metadata"]["name"], "manifests")
    return False


_NODE_BULK = ("metadata.managedFields", "metadata.labels", "metadata.annotations", "status.images",
              "status.conditions", "status.nodeInfo", "status.capacity", "status.allocatable")


def register_nodes(cluster: Cluster) -> bool:
    from kubesim.kubelet import node as kubelet_node

    todo = [n for n in _changed(cluster, "Node") if kubelet_node.needs_registration(n)]
    if not todo:
        return False
    # (what the allocator reads of the nodes: their pod CIDRs and addresses)
    alloc = kubelet_node.Allocator(cluster.store.list("Node", omit=_NODE_BULK))
    for n in todo:
        kubelet_node.register(n, alloc, cluster, static_pod_path(cluster, n["metadata"]["name"]))
        cluster.store.put(n)
        register_csi_node(cluster, n)
    return True


def register_csi_node(cluster: Cluster, node: dict) -> None:
    """The kubelet's CSI node-info manager creates the node's CSINode (owned by the Node, no
    drivers). A driver's volume limit is given by applying a CSINode manifest for the node with
    ``spec.drivers[].allocatable.count`` (NodeVolumeLimits reads it)."""
    import uuid

    md = node["metadata"]
    if cluster.store.get("CSINode", "", md["name"]) is not None:
        return
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
           "metadata": {"name": md["name"],
                        # derived from the Node's uid: no draw from the seeded random source
                        "uid": str(uuid.uuid5(uuid.NAMESPACE_OID, "csinode/" + str(md.get("uid", "")))),
                        "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": md["name"],
                                             "uid": md.get("uid", "")}]},
           "spec": {"drivers": None}}  # the kubelet registers no drivers: null, not []
    cluster.store.create(obj, cluster.stamp())


# -- node Leases (kubesim.kubelet.nodelease) ----------------------------------------------------

# {"recreate": {node: time}}: Leases deleted under a running kubelet, created again at its next
# renewal; the key's presence also says every node has had its Lease (a state from before kubesim
# had node Leases gets them on its next command: bootstrap.ensure_initialized)
NODE_LEASES_META = "kubelet.nodeLeases"


def _running(node: dict | None) -> bool:
    from kubesim.api.nodes import kubelet_stopped

    return node is not None and not kubelet_stopped(node)


def _create_node_lease(cluster: Cluster, node: dict, at: float) -> bool:
    """The kubelet's ensureLease at ``at``: create the node's Lease unless it exists (or its
    namespace does not: the API server refuses, the kubelet tries again at its next sync)."""
    import hashlib
    import uuid

    from kubesim.clock import format_time
    from kubesim.kubelet import nodelease

    store = cluster.store
    name = node["metadata"]["name"]
    if store.get("Lease", nodelease.NODE_LEASE_NAMESPACE, name) is not None or \
            not cluster.namespace_exists(nodelease.NODE_LEASE_NAMESPACE):
        return False
    lease = nodelease.new_lease(node, at)
    # a version-4 UUID derived from the Node's uid and the time: no draw from the seeded random
    # source (which would move every later generated name)
    seed = f"lease/{node['metadata'].get('uid', '')}/{lease['spec']['renewTime']}".encode()
    lease["metadata"]["uid"] = str(uuid.UUID(int=int(hashlib.sha256(seed).hexdigest()[:32], 16), version=4))
    store.create(lease, format_time(at))
    return True


def node_leases(cluster: Cluster) -> bool:
    """Each running kubelet's lease controller: a node that registers creates its Lease; a
    Lease deleted under a running kubelet is created again at the kubelet's next renewal.
    Renewals themselves are not written (``served_leases``)."""
    from kubesim.kubelet import nodelease

    store = cluster.store
    state = store.meta(NODE_LEASES_META)
    changed = False
    if state is None:
        state = {}
        for node in store.list("Node"):
            if _running(node):
                changed = _create_node_lease(cluster, node, cluster.now()) or changed
    recreate = dict(state.get("recreate") or {})
    now = cluster.now()
    for node in _created_nodes(cluster):
        if _running(node):
            changed = _create_node_lease(cluster, node, now) or changed
    for k in list(store.changed_keys()):
        if k[0] == "Lease" and k[1] == nodelease.NODE_LEASE_NAMESPACE and store.get(*k) is None:
            gone = store.deleted(*k)
            if gone is not None and k[2] not in recreate and _running(store.get("Node", "", k[2])):
                recreate[k[2]] = nodelease.next_renewal(gone[1], now)
    for name, at in sorted(recreate.items()):
        if at > now + 1e-6:
            cluster.wake_at(at)
            continue
        del recreate[name]
        node = store.get("Node", "", name)
        if _running(node):
            changed = _create_node_lease(cluster, node, at) or changed
    new_state = {"recreate": recreate} if recreate else {}
    if store.meta(NODE_LEASES_META) != new_state:
        store.set_meta(NODE_LEASES_META, new_state)
    return changed


def served_leases(cluster: Cluster, leases: list[dict]) -> list[dict]:
    """The Leases as a reader sees them now: a node Lease whose kubelet runs carries the
    renewals made since it was stored (kubesim.kubelet.nodelease.renewed). Which kubelets run
    is read from the nodes' keys and the stopped ones' annotation, without decoding every Node."""
    from kubesim.api.nodes import KUBELET_STOPPED_ANNOTATION
    from kubesim.kubelet import nodelease

    ns = nodelease.NODE_LEASE_NAMESPACE
    if not any((lease.get("metadata") or {}).get("namespace") == ns for lease in leases):
        return leases
    store = cluster.store
    if len(leases) > 1:
        nodes = {k[2] for k in store.keys("Node")}
        stopped = store.keys_annotated("Node", KUBELET_STOPPED_ANNOTATION)
        if stopped is None:
            stopped = store.keys_containing("Node", KUBELET_STOPPED_ANNOTATION)
        nodes -= {k[2] for k in stopped if not _running(store.get(*k))}
    else:
        name = (leases[0].get("metadata") or {}).get("name", "")
        nodes = {name} if _running(store.get("Node", "", name)) else set()
    now = cluster.now()
    out = []
    for lease in leases:
        md = lease.get("metadata") or {}
        if md.get("namespace") == ns and md.get("name") in nodes:
            # the Node is needed only for an owner reference the Lease lacks
            node = store.get("Node", "", md["name"]) if not md.get("ownerReferences") else {}
            lease = nodelease.renewed(lease, node, now)
        out.append(lease)
    return out


def sync_pods(cluster: Cluster) -> bool:
    """Each node's kubelet syncs its pods: admission, container lifecycle, probes, termination."""
    from kubesim.kubelet import steps

    store = cluster.store
    only = None
    if settled_baseline(cluster) is not None:
        # every kubelet was at rest when the last command ended: look at the nodes whose Node
        # or pods this command wrote (the kubelet index adds those with something due), but
        # not for a write an earlier pass of this command has seen and left at rest (its
        # pod workers are not woken again: pkg/kubelet/pod_workers.go)
        only = set()
        skipped = set()
        rested = steps.left_at_rest(cluster)
        for k in list(store.changed_keys()):
            if k[0] == "Node":
                if rested and k in rested:
                    obj = store.get(*k)
                    if obj is not None and rested[k] == obj["metadata"].get("resourceVersion"):
                        skipped.add(k[2])
                        continue
                only.add(k[2])
            elif k[0] == "Pod":
                obj = store.get(*k)
                nn = (obj.get("spec") or {}).get("nodeName") if obj is not None else None
                if nn and rested and rested.get(k, 0) == obj["metadata"].get("resourceVersion"):
                    skipped.add(nn)
                elif nn:
                    only.add(nn)
        _wire_pod_network(cluster)
        return steps.sync_pods(cluster, only_nodes=only, rested_nodes=skipped - only)
    _wire_pod_network(cluster)
    return steps.sync_pods(cluster, only_nodes=only)


def _wire_pod_network(cluster: Cluster) -> None:
    """The kubelets' containers reach the cluster network (kubesim.network) through this
    callable: their nslookup, wget and curl answer as ``kubesim exec`` would."""
    if "pod_network" not in cluster.__dict__:
        from kubesim.controlplane.network import pod_network

        cluster.__dict__["pod_network"] = pod_network(cluster)


def static_pods(cluster: Cluster) -> bool:
    """Each kubelet reads its static pod directory and keeps the mirror pods in step."""
    from kubesim.apiserver import objects
    from kubesim.kubelet import steps

    return steps.static_pods(cluster, lambda name: static_pod_path(cluster, name),
                             lambda pod: objects.create_mirror_pod(cluster, pod),
                             with_files=getattr(cluster, "_static_pod_dirs", None),
                             read_path=lambda name: static_pod_dir(cluster, name))


def node_lifecycle(cluster: Cluster) -> bool:
    """The node lifecycle controller (stopped kubelets, unreachable nodes)."""
    from kubesim.controllers import nodelifecycle

    store = cluster.store
    # whether there is anything to follow depends on the Nodes alone: once found quiet, it
    # stays so until a Node is written
    rv = store.kind_resource_version("Node")
    quiet = store.meta(NODE_LIFECYCLE_QUIET_META)
    if rv and quiet == rv:
        return False
    if quiet and (committed := store.committed_kind_resource_versions().get("Node")) is not None \
            and quiet >= committed:
        # quiet when this command began, or found so by it since: only the Nodes it wrote
        # can have changed that
        written = [n for k in list(store.changed_keys()) if k[0] == "Node" and (n := store.get(*k)) is not None]
        if not nodelifecycle.pending(written):
            store.set_meta(NODE_LIFECYCLE_QUIET_META, rv)
            return False
    nodes = store.list("Node")
    if not nodelifecycle.pending(nodes):
        if rv:
            store.set_meta(NODE_LIFECYCLE_QUIET_META, rv)
        return False
    now = cluster.now()
    plan = nodelifecycle.node_lifecycle(nodes, list(store.iter_kind("Pod")), now, leases=_observed_leases(cluster))
    for obj, type_, reason, message, component, _at in plan.events:
        cluster.record(obj, type_, reason, message, component)
    for obj in plan.nodes + plan.pods:
        store.put(obj)
    if plan.next_wake is not None:
        cluster.wake_at(plan.next_wake)
    return bool(plan.nodes or plan.pods)


NODE_LIFECYCLE_QUIET_META = "nodeLifecycle.quietAtNodeResourceVersion"


def _observed_leases(cluster: Cluster) -> dict[str, dict]:
    """What the node lifecycle controller has seen of each node's Lease: the Lease as read now;
    for one deleted and not yet created again, its last renewal (the controller remembers the
    last Lease it observed, nodeHealth.lease), one renew interval before the new one is due."""
    from kubesim.clock import format_micro_time
    from kubesim.kubelet import nodelease

    store = cluster.store
    out = {lease["metadata"]["name"]: lease
           for lease in served_leases(cluster, store.list("Lease", nodelease.NODE_LEASE_NAMESPACE))}
    for name, at in ((store.meta(NODE_LEASES_META) or {}).get("recreate") or {}).items():
        out.setdefault(name, {"spec": {"renewTime": format_micro_time(at - nodelease.RENEW_INTERVAL)}})
    return out


def _written_since(store, key, rv: int) -> bool:
    """Whether this command wrote or deleted the object at ``key`` after resourceVersion ``rv``."""
    obj = store.get(*key)
    if obj is not None:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0) > rv
    gone = store.deleted(*key)
    return gone is not None and gone[0] > rv


def _pods_on_node(store, name: str) -> list[dict]:
    return [p for p in (store.get(*k) for k in sorted(store.pod_keys_on_node(name))) if p is not None]


TAINT_EVICTION_META = "taintEviction.state"


def taint_eviction(cluster: Cluster) -> bool:
    """The taint eviction controller (kubesim.controllers.tainteviction), fed like its
    informers: the Nodes this command wrote since it last looked, then the pods (only those on
    a node it knows tainted, or with an eviction scheduled, can matter to it). What it observed
    stays in the store (``TAINT_EVICTION_META``); with nothing there (a new state) it starts as
    the controller does, seeing every Node."""
    from kubesim.controllers import tainteviction

    store = cluster.store
    raw = store.meta(TAINT_EVICTION_META)
    state = tainteviction.State.from_dict(raw)
    memo = cluster.__dict__.setdefault("_taint_eviction", {"rv": 0, "seen": {}})
    last, seen = memo["rv"], memo["seen"]
    memo["rv"] = store.resource_version()  # its own writes below are news to its next pass

    def pods_on_node(name: str) -> list[dict]:
        pods = _pods_on_node(store, name)
        for p in pods:
            md = p["metadata"]
            seen[("Pod", md.get("namespace") or "", md["name"])] = _toleration_view(p)
        return pods

    ctl = tainteviction.Controller(state, cluster.now(), pods_on_node, lambda ns, name: store.get("Pod", ns, name))
    if raw is None:
        for n in store.list("Node"):
            ctl.node_updated(n["metadata"]["name"], n)
    else:
        changed = [k for k in list(store.changed_keys()) if k[0] in ("Node", "Pod")]
        for k in changed:
            if k[0] == "Node" and _written_since(store, k, last):
                ctl.node_updated(k[2], store.get(*k))
        for k in changed:
            if k[0] == "Pod" and _written_since(store, k, last):
                _taint_eviction_pod_update(ctl, store, k, seen)
    ctl.fire()
    new_state = state.to_dict()
    touched = new_state != (raw or {})
    store.set_meta(TAINT_EVICTION_META, new_state)
    changed_objects = apply_changes(cluster, ctl.changes)
    nxt = state.next_fire()
    if nxt is not None:
        cluster.wake_at(nxt)
    return changed_objects or touched


def _toleration_view(pod: dict | None) -> dict | None:
    """What the controller's pod filter compares: the pod's identity, node and tolerations."""
    if pod is None:
        return None
    md, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    return {"metadata": {"namespace": md.get("namespace"), "name": md.get("name"), "uid": md.get("uid")},
            "spec": {"nodeName": spec.get("nodeName"), "tolerations": spec.get("tolerations")}}


def _taint_eviction_pod_update(ctl, store, key, seen: dict) -> None:
    """Hand the controller a pod update, as its informer would: the previous version is the one
    it saw last in this command, else the one the command started with."""
    new = store.get(*key)
    node = ((new or {}).get("spec") or {}).get("nodeName")
    if f"{key[1]}/{key[2]}" not in ctl.state.workers and not (node and node in ctl.state.tainted_nodes):
        return  # nothing to cancel, no taint to look at
    old = seen[key] if key in seen else _toleration_view(store.committed(*key))
    seen[key] = _toleration_view(new)
    if old is None and new is None:
        return
    if old is not None and new is not None and old["metadata"]["uid"] != (new.get("metadata") or {}).get("uid"):
        ctl.pod_updated(old, None)  # deleted and created again under the same name
        old = None
    ctl.pod_updated(old, new)


POD_GC_META = "podGC.state"


def pod_gc(cluster: Cluster) -> bool:
    """PodGC (kubesim.controllers.podgc). Its pass runs on a tick of its period when there is
    work for it: a pod or node this command wrote that a pass could pick up (``may_collect``;
    a deleted Node with pods still bound to it), or a quarantine ending; a new state starts
    with one pass, as the controller does. The pass reads only the candidates: pods being
    deleted, pods bound to nodes that do not exist, and every pod only when there are more
    than the terminated-pod threshold."""
    from kubesim.controllers import podgc

    store = cluster.store
    raw = store.meta(POD_GC_META)
    state = podgc.State.from_dict(raw)
    now = cluster.now()
    last = cluster.__dict__.get("_pod_gc_rv", 0)
    cluster._pod_gc_rv = store.resource_version()

    def get_node(name: str):
        return store.get("Node", "", name) if name else None

    if raw is None or _pod_gc_news(store, last, get_node):
        tick = podgc.next_tick(now)
        if state.due is None or tick < state.due:
            state.due = tick
    changed = False
    if state.due is not None and state.due <= now + 1e-9:
        changes = podgc.gc(_pod_gc_candidates(store, get_node), get_node, state, now)
        cluster._pod_gc_rv = store.resource_version()
        changed = apply_changes(cluster, changes)
    new_state = state.to_dict()
    changed = changed or new_state != (raw or {})
    store.set_meta(POD_GC_META, new_state)
    if state.due is not None:
        cluster.wake_at(state.due)
    return changed


def _pod_gc_news(store, last: int, get_node) -> bool:
    """Whether a pod or Node written since ``last`` gives PodGC something to pick up."""
    from kubesim.controllers.podgc import (
        TERMINATED_POD_GC_THRESHOLD,
        has_out_of_service_taint,
        is_node_ready,
        is_pod_terminated,
        may_collect,
    )

    many = None  # counted only for a finished pod (the count is the costly part)
    written = []  # (key, the object now or None): each read once (_written_since's test)
    for k in list(store.changed_keys()):
        if k[0] == "Pod" or k[0] == "Node":
            obj = store.get(*k)
            if obj is not None:
                if int((obj.get("metadata") or {}).get("resourceVersion") or 0) > last:
                    written.append((k, obj))
            elif (gone := store.deleted(*k)) is not None and gone[0] > last:
                written.append((k, None))
    if len(written) > 50:
        # the Nodes of many pods written (a bulk apply or delete), read together rather than
        # one statement each as ``may_collect`` asks for them
        names = {(p.get("spec") or {}).get("nodeName") for k, p in written if k[0] == "Pod" and p is not None}
        store.get_many(("Node", "", n) for n in sorted(n for n in names if n))
    for k, obj in written:
        if k[0] == "Node":
            if obj is None and store.pod_keys_on_node(k[2]):
                return True
            if obj is not None and has_out_of_service_taint(obj) and not is_node_ready(obj):
                return True
            continue
        if obj is None:
            continue
        if many is None and is_pod_terminated(obj):
            many = store.count("Pod") > TERMINATED_POD_GC_THRESHOLD
        if may_collect(obj, get_node, bool(many)):
            return True
    return False


def _pod_gc_candidates(store, get_node) -> list[dict]:
    """Every pod a pass could pick up, and no more than needed (see ``podgc.gc``)."""
    from kubesim.controllers.podgc import TERMINATED_POD_GC_THRESHOLD

    if store.count("Pod") > TERMINATED_POD_GC_THRESHOLD:
        return store.list("Pod")
    deleting = store.keys_deleting("Pod")
    keys = set(deleting if deleting is not None else store.keys_containing("Pod", '"deletionTimestamp"'))
    nodes = {k[2] for k in store.keys("Node")}
    for name in store.pod_node_names() - nodes:
        keys.update(store.pod_keys_on_node(name))
    return [p for p in (store.get(*k) for k in sorted(keys)) if p is not None]


def taint_nodes_by_condition(cluster: Cluster) -> bool:
    """TaintNodesByCondition's NoSchedule taints, for the Nodes this command wrote."""
    from kubesim.controllers.nodelifecycle import no_schedule_taints

    changed = False
    for n in _changed(cluster, "Node"):
        new = no_schedule_taints(n, cluster.stamp())
        if new is None:
            continue
        if new:
            n.setdefault("spec", {})["taints"] = new
        else:
            n.setdefault("spec", {}).pop("taints", None)
        cluster.store.put(n)
        changed = True
    return changed


def apply_changes(cluster: Cluster, changes, wake_at=None, failed=None) -> bool:
    """Apply controller-style ``Change`` lists (controllers/base.py) through the API server's
    operations: pods are created with admission and defaults and deleted gracefully."""
    from kubesim.api import kinds
    from kubesim.apiserver import objects
    from kubesim.controllers import apply

    store = cluster.store

    def create(obj: dict):
        # a controller's request: its warnings (PodSecurity's) are nobody's to print
        saved = cluster.__dict__.pop("warnings", None)
        try:
            return objects.create_object(cluster, obj, kinds.for_object(obj))
        finally:
            cluster.__dict__.pop("warnings", None)
            if saved is not None:
                cluster.__dict__["warnings"] = saved

    def delete(kind: str, ns: str, name_: str, propagation: str, grace_seconds: int | None = None):
        stored = store.get(kind, ns, name_)
        if stored is None:
            return
        # a controller's Foreground or Orphan delete marks the object, and the garbage collector
        # finishes it; a Background one is the API server's usual delete. A pod's deletion is
        # graceful whatever the policy (the registry's BeforeDelete comes first): it terminates
        # for its grace period, and an owner deleted in the foreground waits for that (a grace
        # period of 0 removes a pod at once, even one already terminating).
        if kind == "Pod":
            objects.delete_object(cluster, kinds.by_kind(kind), ns, name_, grace_seconds=grace_seconds,
                                  force=grace_seconds == 0, propagation=propagation)
            return
        marked = objects.begin_deletion(stored, propagation, cluster.now())
        if marked is not None:
            store.put(marked)
        else:
            objects.delete_object(cluster, kinds.by_kind(kind), ns, name_, grace_seconds=grace_seconds,
                                  force=grace_seconds == 0)

    def record(obj, type_, reason, message, component, action="", related=None, count=1, at=None):
        cluster.record(obj, type_, reason, message, component, action=action, related=related, count=count, at=at)

    return apply.apply_changes(changes, get=store.get, create=create, put=store.put, delete=delete,
                               record=record, wake_at=wake_at or cluster.wake_at, now=cluster.now(), failed=failed)


WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "Pod", "Node", "ControllerRevision")

# The kinds whose writes wake a controller, where they are fewer than those its sync reads:
# the informers its constructor registers handlers on (NewDeploymentController: Deployments,
# ReplicaSets, Pods; NewReplicaSetController: ReplicaSets, Pods). A node labelled or renewing
# its status wakes neither.
WATCHES = {
    "deployment": ("Deployment", "ReplicaSet", "Pod"),
    "replicaset": ("ReplicaSet", "Pod"),
    # NewStatefulSetController: pods and sets; claims too here, so a claim the collector
    # removes unblocks a pod waiting on it (upstream waits for a later event)
    "statefulset": ("StatefulSet", "Pod", "PersistentVolumeClaim"),
    # NewDaemonSetsController: sets, revisions, pods and nodes (a Deployment or ReplicaSet
    # written wakes it not)
    "daemonset": ("DaemonSet", "ControllerRevision", "Pod", "Node"),
}
# The kind a workload controller exists for: with none stored or written, it has nothing to
# do (the daemon set controller of a cluster without DaemonSets never lists a pod).
GATES = {"deployment": ("Deployment",), "replicaset": ("ReplicaSet",), "daemonset": ("DaemonSet",)}

# Controller requeue-after wakes still to come, by controller (kept across commands), and the
# store's resourceVersion when the last settle reached its fixed point with the default steps.
CONTROLLER_WAKES_META = "controllers.wakes"
SETTLED_RV_META = "controllers.settledResourceVersion"


def settled_baseline(cluster: Cluster) -> int | None:
    """The resourceVersion at which every controller and kubelet was last at rest (a settle's
    fixed point with the default steps) when only this command's own writes, all of them in
    ``store.changed_keys()``, came after it; None when that is not known (then they look at
    everything): the last command wrote after its last settle, a settle ended without a fixed
    point, or the state was wiped."""
    store = cluster.store
    if store.wiped:
        return None
    settled = store.meta(SETTLED_RV_META)
    if settled is None:
        return None
    if settled == store.opened_resource_version() or getattr(cluster, "settled_here", False):
        return int(settled)
    return None


def _selectors_of(cluster: Cluster, kinds: tuple[str, ...]) -> dict[str, list]:
    """The compiled spec.selector of every object of ``kinds``, by namespace, compiled once per
    write of those kinds (a pod is matched only against its namespace's: a bulk apply's pods
    are looked at by every controller, twice)."""
    from kubesim.api.meta.helpers import selector_of

    store = cluster.store
    memo = cluster.__dict__.setdefault("_gate_selectors", {})
    stamp = tuple(store.kind_resource_version(k) for k in kinds)
    hit = memo.get(kinds)
    if hit is None or hit[0] != stamp:
        sels: dict[str, list] = {}
        for k in kinds:
            for o in store.iter_kind(k):
                sels.setdefault((o.get("metadata") or {}).get("namespace") or "", []).append(selector_of(o))
        hit = memo[kinds] = (stamp, sels)
    return hit[1]


# The controllers whose pod event handlers look only at a pod's ControllerRef, or, for an
# orphan, at the selectors that may adopt it (pkg/controller/daemon/daemon_controller.go and
# pkg/controller/replicaset/replica_set.go: addPod, updatePod, deletePod): a pod some other
# kind controls never wakes them (applying a Deployment does not resync kube-proxy's
# DaemonSet over every node).
CONTROLLED_KIND = {"daemonset": "DaemonSet", "replicaset": "ReplicaSet"}


def _pod_relevant(cluster: Cluster, pod: dict | None, selector_kinds: tuple[str, ...], claims: bool = False,
                  controlled_kind: str | None = None, selectors: dict[str, list] | None = None) -> bool:
    """Whether a workload controller (or the disruption controller, ``selector_kinds`` being
    its PDBs) can care about this version of a pod: one with owners (its controller keeps
    count, the collector follows them), finalizers (foreground/orphan deletion), a
    DisruptionTarget condition (the disruption controller resets stale ones), or labels some
    controller's selector in its namespace matches (adoption; a PDB's pods); with ``claims``
    (the collector), also one with generic ephemeral volumes (it owns their claims). With
    ``controlled_kind`` (``CONTROLLED_KIND``): a pod whose ControllerRef names that kind, or
    an orphan some selector matches. ``selectors``: ``_selectors_of(selector_kinds)``, when the
    caller has it."""
    if pod is None:
        return False
    return _facts_relevant(_pod_facts(cluster, pod), claims, controlled_kind, selectors, cluster, selector_kinds)


def _pod_facts(cluster: Cluster, pod: dict) -> tuple:
    """What ``_pod_relevant`` reads of a version of a pod: (the kind its ControllerRef names,
    as a 1-tuple, or None; owned or with finalizers; with generic ephemeral volumes; with a
    DisruptionTarget condition; namespace; labels). Read once a version: each workload
    controller, the collector and the ephemeral volume controller ask about the same pods
    (a bulk apply's thousand, every round). A version is the same dict at the same
    resourceVersion (a write bumps it; the store's objects change only through writes)."""
    memo = cluster.__dict__.get("_pod_facts")
    if memo is None or len(memo) > 100_000:  # (a long advance's many versions: kept bounded)
        memo = cluster.__dict__["_pod_facts"] = {}
    md = pod.get("metadata") or {}
    rv = md.get("resourceVersion")
    hit = memo.get(id(pod))
    if hit is not None and hit[0] is pod and hit[1] == rv:
        return hit[2]
    ctrl = None
    for r in md.get("ownerReferences") or ():
        if isinstance(r, dict) and r.get("controller"):
            ctrl = (r.get("kind"),)
            break
    disruption = False
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "DisruptionTarget":
            disruption = True
            break
    facts = (ctrl, bool(md.get("ownerReferences") or md.get("finalizers")), has_ephemeral_volumes(pod),
             disruption, md.get("namespace") or "", md.get("labels") or {})
    memo[id(pod)] = (pod, rv, facts)  # (the pod kept: its id is not reused while it is here)
    return facts


def _facts_relevant(facts: tuple, claims: bool, controlled_kind: str | None, selectors: dict[str, list] | None,
                    cluster: Cluster | None = None, selector_kinds: tuple[str, ...] = ()) -> bool:
    """``_pod_relevant`` over ``_pod_facts`` (``selectors`` None: compiled if needed)."""
    ctrl, owned, ephemeral, disruption, namespace, labels = facts
    if controlled_kind is not None:
        if ctrl is not None:
            return ctrl[0] == controlled_kind
    elif owned:
        return True
    if (claims and ephemeral) or disruption:
        return True
    if selectors is None:
        selectors = _selectors_of(cluster, selector_kinds)
    sels = selectors.get(namespace)
    return bool(sels) and any(sel.matches(labels) for sel in sels)


def _owned(obj: dict | None) -> bool:
    return bool(obj and (obj.get("metadata") or {}).get("ownerReferences"))


def _in_owner_graph(obj: dict | None) -> bool:
    """Owned, or being deleted (foreground and orphan deletion are the collector's)."""
    md = (obj or {}).get("metadata") or {}
    return bool(md.get("ownerReferences") or md.get("deletionTimestamp") or md.get("finalizers"))


def _controller_due(cluster: Cluster, name: str, gate: tuple[str, ...], view_kinds: tuple[str, ...],
                    claims: bool = False) -> bool:
    """Whether the controller has anything to look at (upstream controllers are event-driven:
    they sync on a watch event about something they track, or on a requeue-after).

    Since it last ran (or, on its first run in this command, since the last settle reached a
    fixed point, when no write came after it) a controller need run only if an object of a
    kind it reads was written or deleted — for pods, only a pod some version of which is
    relevant to it (``_pod_relevant``: as stored before this command, as now, or as it was when
    deleted; for claims, with ``claims``, only an owned one) — or a wake it asked for is due. A
    future wake stays registered."""
    store = cluster.store
    baseline = settled_baseline(cluster)
    if baseline is None:
        return True  # something was written after the last fixed point: look at everything
    last = cluster.__dict__.get("_controller_rv", {}).get(name, baseline)
    wake = (store.meta(CONTROLLER_WAKES_META) or {}).get(name)
    if wake is not None:
        if float(wake) <= cluster.now():
            return True
        cluster.wake_at(float(wake))
    kinds = set(view_kinds)
    controlled = CONTROLLED_KIND.get(name)
    queued_nodes: list[dict] = []  # the DaemonSet controller's nodeUpdateQueue
    # A pod's verdict depends on its versions and the gate kinds' selectors alone: when an
    # earlier ask, since the same ``last``, with the same selectors, found nothing, a pod not
    # written since needs no second look (a bulk apply's thousand, every later round).
    pods_since, stamp = _quiet_since(cluster, name, last, tuple(store.kind_resource_version(k) for k in gate))
    changed = [k for k in list(store.changed_keys()) if k[0] in kinds]
    # (read once: nothing is written while a controller asks)
    selectors = _selectors_of(cluster, gate) if any(k[0] == "Pod" for k in changed) else {}

    def relevant(pod: dict | None) -> bool:  # (_pod_relevant, its facts shared with the others')
        return pod is not None and _facts_relevant(_pod_facts(cluster, pod), claims, controlled, selectors)

    if len(changed) > 50:
        # which of many objects written (a bulk apply's pods) are new: told together, not by a
        # statement each as the loop below asks what each was (the others' bodies, if asked)
        store.prefetch_committed(changed, absent_only=True)
    for k in changed:
        obj = store.get(*k)
        since = pods_since if k[0] == "Pod" else last
        if obj is None:
            gone = store.deleted(*k)
            if gone is None or gone[0] <= since:
                continue
            if k[0] == "PersistentVolumeClaim" and claims:
                if _owned(gone[1]) or _owned(store.committed(*k)):
                    return True
                continue
            if k[0] != "Pod" or relevant(gone[1]) or relevant(store.committed(*k)):
                return True
            continue
        if int((obj.get("metadata") or {}).get("resourceVersion") or 0) <= since:
            continue
        if k[0] == "PersistentVolumeClaim" and claims:
            if _owned(obj) or _owned(store.committed(*k)):
                return True
            continue
        if k[0] == "Node" and name == "daemonset":
            if not _daemon_ignores_node_update(store.committed(*k), obj):
                queued_nodes.append(obj)
            continue
        if claims and k[0] != "Pod" and not (_in_owner_graph(obj) or _in_owner_graph(store.committed(*k))):
            # the collector's graph builder: an update of an object that neither has owners
            # nor is being deleted changes no dependency (its deletion, above, does)
            continue
        if k[0] != "Pod" or relevant(obj) or relevant(store.committed(*k)):
            return True
    if queued_nodes and _daemon_node_updates_enqueue(store, queued_nodes):
        return True
    _found_quiet(cluster, name, stamp)
    return False


def _daemon_node_updates_enqueue(store, nodes: list[dict]) -> bool:
    """syncNodeUpdate (pkg/controller/daemon/daemon_controller.go): a queued node enqueues a
    DaemonSet only when the node should run its pod and has none, should no longer run the
    pod it has, or has one while the DaemonSet counts misscheduled pods. Anything else about
    the node (a label no DaemonSet selects, a taint its pods tolerate) leaves every DaemonSet
    unsynced, as upstream's node worker does."""
    from kubesim.api.meta.helpers import controller_ref, meta, name_of
    from kubesim.controllers.daemonset import (
        daemon_pod_spec,
        node_should_run_daemon_pod,
    )

    daemonsets = store.list("DaemonSet")
    if not daemonsets:
        return False
    names = {name_of(n) for n in nodes}
    on_node = store.pod_keys_on_node(next(iter(names))) if len(names) == 1 else \
        [k for keys in store.pod_keys_on_nodes(names).values() for k in keys]
    scheduled: set[tuple[str, str, str]] = set()  # (node, namespace, DaemonSet)
    for pod in store.get_many(on_node):
        ref = controller_ref(pod)
        if ref is not None and ref.get("kind") == "DaemonSet":
            scheduled.add(((pod.get("spec") or {}).get("nodeName") or "", meta(pod).get("namespace", ""), ref.get("name")))
    for ds in daemonsets:
        spec = daemon_pod_spec(ds)
        misscheduled = ((ds.get("status") or {}).get("numberMisscheduled") or 0) > 0
        for node in nodes:
            should_run, should_continue = node_should_run_daemon_pod(node, ds, spec)
            has = (name_of(node), meta(ds).get("namespace", ""), name_of(ds)) in scheduled
            if (should_run and not has) or (not should_continue and has) or (has and misscheduled):
                return True
    return False


def _daemon_ignores_node_update(old: dict | None, cur: dict) -> bool:
    """shouldIgnoreNodeUpdate (pkg/controller/daemon/daemon_controller.go): the DaemonSet
    controller's node handler queues an updated node only when its labels or taints changed
    (a kubelet's status, its images, leave it be); a new node is always queued."""
    if old is None:
        return False
    return ((old.get("metadata") or {}).get("labels") or {}) == ((cur.get("metadata") or {}).get("labels") or {}) \
        and ((old.get("spec") or {}).get("taints") or []) == ((cur.get("spec") or {}).get("taints") or [])


def _daemon_nodes(cluster: Cluster):
    """The nodes the DaemonSet controller's sync must visit (``DaemonNodes``,
    kubesim/controllers/daemonset.py), when every DaemonSet was at rest at the last fixed
    point and this command changed none of them (but for the status the controller writes),
    none of their histories, and no pod some DaemonSet may adopt: the nodes its node and pod
    event handlers would enqueue the DaemonSets for (pkg/controller/daemon/daemon_controller.go
    addNode, updateNode, deleteNode; addPod, updatePod, deletePod by the pod's node). None:
    every node (a wake or a back-off of the controller due, nothing known at rest)."""
    from kubesim.api.meta.helpers import controller_ref
    from kubesim.controllers.daemonset import DaemonNodes, target_node_name

    store = cluster.store
    if settled_baseline(cluster) is None or (store.meta(CONTROLLER_WAKES_META) or {}).get("daemonset") is not None \
            or (store.meta(CONTROLLER_FAILURES_META) or {}).get("daemonset"):
        return None
    names: set[str] = set()
    changed_pods: list[tuple[str, str, str]] = []
    for k in list(store.changed_keys()):
        kind = k[0]
        if kind == "Node":
            names.add(k[2])
        elif kind == "ControllerRevision":
            return None
        elif kind == "DaemonSet":
            now, then = store.get(*k), store.committed(*k)
            if now is None or then is None or now.get("spec") != then.get("spec") \
                    or _but_status(now) != _but_status(then):
                return None
        elif kind == "Pod":
            gone = store.deleted(*k) if store.get(*k) is None else None
            daemon = False
            for v in (store.get(*k), store.committed(*k), gone[1] if gone else None):
                if v is None:
                    continue
                ref = controller_ref(v)
                if ref is not None and ref.get("kind") == "DaemonSet":
                    node = target_node_name(v)
                    if node is None:
                        return None
                    names.add(node)
                    daemon = True
                elif ref is None and _pod_relevant(cluster, v, ("DaemonSet",), controlled_kind="DaemonSet"):
                    return None  # (an orphan some DaemonSet selects: adoption looks at every pod)
            if daemon:
                changed_pods.append(k)
    ordered = sorted(names)
    keys = [k for ks in store.pod_keys_on_nodes(names).values() for k in ks] if names else []
    keys += store.pod_keys_on_node("")
    omit = ("metadata.managedFields",)
    pods = [p for p in store.objects(keys, omit) if (ref := controller_ref(p)) is not None
            and ref.get("kind") == "DaemonSet" and target_node_name(p) in names]
    changed = set(changed_pods)
    then_pods = [p for p in pods if _key_of(p) not in changed]
    then_pods += [p for k in changed_pods if (p := store.committed(*k)) is not None]
    nodes = dict(zip(ordered, store.objects([("Node", "", n) for n in ordered], omit + ("status.images",),
                                            aligned=True)))
    store.prefetch_committed([("Node", "", n) for n in ordered])  # (mostly new: one statement)
    then_nodes = {n: store.committed("Node", "", n) for n in ordered}
    then_sets = {(ds.get("metadata") or {}).get("uid", ""): ds for d in store.list("DaemonSet")
                 if (ds := store.committed(*_key_of(d))) is not None}
    return DaemonNodes(ordered, nodes, pods, then_nodes, then_pods, then_sets)


def _but_status(obj: dict) -> dict:
    """An object's metadata but what each write of it changes (resourceVersion, managedFields)."""
    md = obj.get("metadata") or {}
    return {k: v for k, v in md.items() if k not in ("resourceVersion", "managedFields")}


def _controller_step(name: str, gate: tuple[str, ...] = ("Deployment", "ReplicaSet", "DaemonSet"),
                     view_kinds: tuple[str, ...] = WORKLOAD_KINDS, claims: bool = False):
    """A settle step running one controller (``kubesim.controllers.<name>.sync``): sync over a
    view of ``view_kinds``, then apply its changes. It runs only while some ``gate`` kind has
    objects, or when this command wrote or deleted one (no Deployments, no deployment
    controller work; but the last ReplicaSet deleted leaves its pods for the collector); and
    then only when something it watches changed or its wake is due (``_controller_due``).
    With ``claims`` (the collector, which deletes the claims of generic ephemeral volumes
    whose pod is gone) PersistentVolumeClaims count as a gate kind too, and so do pods with
    ephemeral volumes and owned claims among the changes it watches."""
    gate = GATES.get(name, gate)
    present = gate + ("PersistentVolumeClaim",) if claims else gate

    def step(cluster: Cluster) -> bool:
        import importlib

        from kubesim.controllers.base import View

        store = cluster.store
        if not any(store.count(k) for k in present) and not store.changed_kinds().intersection(present):
            return False
        if not _controller_due(cluster, name, gate, WATCHES.get(name, view_kinds), claims):
            return False
        last = cluster.__dict__.get("_controller_rv", {}).get(name)
        cluster.__dict__.setdefault("_controller_rv", {})[name] = store.resource_version()
        sync = importlib.import_module(f"kubesim.controllers.{name}").sync
        targets = _targets(cluster, name, last) if name in TARGETED else None
        if name in TARGETED or name in READ_WHEN_ASKED:  # a ReplicaSet's pods from the index
            from kubesim.controllers.base import StoreView

            view = StoreView(store, view_kinds, cluster.now(), cluster.rng)
        elif name == "garbagecollector" and (view := _collector_view(cluster, view_kinds)) is not None:
            pass
        else:
            view = View.from_store(store, cluster.now(), cluster.rng, kinds=view_kinds)
        view.targets = targets
        if name == "daemonset":
            view.daemon_nodes = _daemon_nodes(cluster)
        wakes: list[float] = []
        changes = sync(view)
        if name in TARGETED:
            wakes.extend(_object_wakes(cluster, name, view, changes))
        refused: dict[str, tuple[dict, str]] = {}

        def failed(owner: dict, error: str, message: str) -> None:
            refused.setdefault((owner.get("metadata") or {}).get("uid", ""), (owner, error, message))

        # (the others retry a refused create on the applier's fixed wake)
        changed = apply_changes(cluster, changes, wake_at=lambda t: (wakes.append(t), cluster.wake_at(t)),
                                failed=failed if name in FAILURE_OWNERS else None)
        if name in FAILURE_OWNERS:
            changed = _requeue_failures(cluster, name, view, refused, wakes) or changed
        pending = dict(store.meta(CONTROLLER_WAKES_META) or {})
        if wakes:
            pending[name] = min(wakes)
        else:
            pending.pop(name, None)
        store.set_meta(CONTROLLER_WAKES_META, pending or None)
        return changed

    step.__name__ = f"{name}_controller"
    return step


# Controllers that create pods for an owner of this kind, and requeue the owner with their
# workqueue's back-off when the API server refuses one (processNextWorkItem: AddRateLimited on
# an error, Forget on success).
FAILURE_OWNERS = {"deployment": "Deployment", "replicaset": "ReplicaSet", "daemonset": "DaemonSet", "job": "Job", "statefulset": "StatefulSet",
                  "cronjob": "CronJob"}
CONTROLLER_FAILURES_META = "controllers.failures"
# workqueue.DefaultTypedControllerRateLimiter's per-item part (ItemExponentialFailureRateLimiter):
# 5ms, doubling with each failure, at most 1000s
FAILURE_BASE_DELAY, FAILURE_MAX_DELAY = 0.005, 1000.0


def _requeue_failures(cluster: Cluster, name: str, view, refused: dict, wakes: list[float]) -> bool:
    """After a sync: each owner whose creates the API server refused is requeued after its
    back-off (and gets the status its controller's ``failure_status`` gives: a ReplicaSet's
    ReplicaFailure, a Deployment's Progressing False); each owner the sync visited without a
    refusal is forgotten (its back-off starts again, that status goes). Returns whether a
    status was written."""
    import importlib

    store, now = cluster.store, cluster.now()
    by_controller = dict(store.meta(CONTROLLER_FAILURES_META) or {})
    mine = dict(by_controller.get(name) or {})
    if not refused and not mine:
        return False
    owner_kind = FAILURE_OWNERS[name]
    by_uid = {(o.get("metadata") or {}).get("uid", ""): o for o in view.list(owner_kind)}
    status_of = getattr(importlib.import_module(f"kubesim.controllers.{name}"), "failure_status", None)
    changes = []
    for uid, (owner, error, message) in refused.items():
        failures = int((mine.get(uid) or [0])[0])
        due = now + min(FAILURE_BASE_DELAY * 2 ** failures, FAILURE_MAX_DELAY)
        mine[uid] = [failures + 1, due]
        if status_of is not None:
            changes.extend(status_of(store.get(*_key_of(owner)), error, now, message))
    for uid in list(mine):
        if uid in refused:
            continue
        owner = by_uid.get(uid)
        if owner is None:
            del mine[uid]  # the owner is gone: its queue key with it
        elif view.wants(owner):  # synced without a refusal: Forget
            del mine[uid]
            if status_of is not None:
                changes.extend(status_of(store.get(*_key_of(owner)), None, now))
    for _, due in mine.values():
        if float(due) > now:
            wakes.append(float(due))
            cluster.wake_at(float(due))
    if mine:
        by_controller[name] = mine
    else:
        by_controller.pop(name, None)
    store.set_meta(CONTROLLER_FAILURES_META, by_controller or None)
    return apply_changes(cluster, changes) if changes else False


def _key_of(obj: dict) -> tuple[str, str, str]:
    md = obj.get("metadata") or {}
    return obj.get("kind", ""), md.get("namespace", ""), md.get("name", "")


def _being_deleted(obj: dict | None) -> bool:
    """Being deleted, or with finalizers that may make it so (orphan, foreground deletion)."""
    md = (obj or {}).get("metadata") or {}
    return bool(md.get("deletionTimestamp") or md.get("finalizers"))


def _collector_view(cluster: Cluster, view_kinds: tuple[str, ...]):
    """The garbage collector's view of only the objects that can have work for it, when every
    earlier write is known to be seen (``settled_baseline``), else None (every object). As
    upstream's graph builder processes the objects its informers report (processGraphChanges:
    an added or updated object whose owner is absent, the dependents of a deleted or updated
    owner, objects being deleted), the collector here lists: every object being deleted and
    its dependents (the ``d`` and owner facets of the store's index), every object this
    command wrote, and the dependents of every owner it wrote or deleted. At the last fixed
    point no other object had an absent owner (the collector had acted on each), so ``sync``
    over these gives the same changes, in the same order, as over every object. Owners are
    looked up in the store."""
    from kubesim.api.meta.helpers import uid_of
    from kubesim.controllers.base import View
    from kubesim.controllers.garbagecollector import COLLECTED_KINDS, OWNER_KINDS

    store = cluster.store
    if settled_baseline(cluster) is None:
        return None
    wake = (store.meta(CONTROLLER_WAKES_META) or {}).get("garbagecollector")
    if wake is not None and float(wake) <= cluster.now():
        return None
    keys: set = set()
    owners: set[str] = set()
    for kind in COLLECTED_KINDS:
        deleting = store.keys_deleting(kind)
        if deleting is None:
            return None  # an older state opened read-only: no index
        for k in deleting:
            obj = store.get(*k)
            if obj is not None:
                keys.add(k)
                owners.add((obj.get("metadata") or {}).get("uid") or "")
    for k in list(store.changed_keys()):
        if k[0] not in COLLECTED_KINDS:
            continue
        obj = store.get(*k)
        if obj is not None:
            keys.add(k)
        if k[0] in OWNER_KINDS:
            gone = store.deleted(*k) if obj is None else None
            versions = (obj, store.committed(*k), gone[1] if gone else None)
            if obj is not None and versions[1] is not None and not any(map(_being_deleted, versions)) \
                    and uid_of(obj) == uid_of(versions[1]):
                # an update of an owner neither deleted nor being deleted (a DaemonSet's
                # status) changes nothing for its dependents (processTransitions acts only
                # on a move to orphan or foreground deletion); one deleted and made again
                # under its name (another uid) leaves the old one's dependents to collect
                continue
            for v in versions:
                if v is not None:
                    owners.add((v.get("metadata") or {}).get("uid") or "")
    owners.discard("")
    if owners:
        for kind in COLLECTED_KINDS:
            keys.update(store.keys_owned_by_any(kind, owners) or ())
    objects: dict[str, list[dict]] = {k: [] for k in view_kinds}
    for k in sorted(keys):
        obj = store.get(*k)
        if obj is not None:
            objects[k[0]].append(obj)
    for listed in objects.values():  # store.list's order: (namespace, name)
        listed.sort(key=lambda o: ((o.get("metadata") or {}).get("namespace") or "", o["metadata"]["name"]))

    class CollectorView(View):
        def get(self, kind: str, namespace: str, name: str) -> dict | None:
            return store.get(kind, namespace or "", name) if kind in self.objects else None

    return CollectorView(objects, cluster.now(), cluster.rng)


# Controllers whose sync visits only the objects the changes since their last sync concern
# (``_targets``): their work queues hold keys, not "everything" (the ReplicaSet controller's
# handlers enqueue a pod's controller; the Deployment controller's, a ReplicaSet's or a pod's
# owning Deployment), so a 10,000-pod ReplicaSet is not recounted when another one scales.
TARGETED = ("replicaset", "deployment")
# Controllers whose views read a kind when they first ask for it, and an owner's pods from the
# store's index (StoreView): the DaemonSet controller reads its own pods, not every pod
READ_WHEN_ASKED = ("daemonset",)


def _targets(cluster: Cluster, name: str, last: int | None) -> tuple[set[str], set[str]] | None:
    """(uids, namespaces) of the objects ``name``'s sync must visit, from this command's writes
    since it last ran (None: everything, when earlier writes are not known to be seen or a
    wake of it is due). A changed object's controller counts, and for the Deployment controller
    a pod's ReplicaSet's controller; a changed orphan (which some selector may adopt) counts
    its whole namespace."""
    store = cluster.store
    baseline = settled_baseline(cluster)
    if baseline is None:
        return None
    if last is None:
        last = baseline
    wake = (store.meta(CONTROLLER_WAKES_META) or {}).get(name)
    if wake is not None and float(wake) <= cluster.now():
        return None
    top = "ReplicaSet" if name == "replicaset" else "Deployment"
    uids: set[str] = set()
    namespaces: set[str] = set()
    rs_owner: dict[str, str | None] | None = None

    def owner_of_rs(uid: str) -> str | None:
        nonlocal rs_owner
        if rs_owner is None:
            rs_owner = {}
            for rs in store.iter_kind("ReplicaSet"):
                ref = _controller_ref(rs)
                rs_owner[(rs.get("metadata") or {}).get("uid", "")] = ref
        return rs_owner.get(uid)

    for k in list(store.changed_keys()):
        if k[0] not in (top, "ReplicaSet", "Pod"):
            continue
        obj = store.get(*k)
        versions = [obj, store.committed(*k)]
        if obj is None:
            gone = store.deleted(*k)
            if gone is None or gone[0] <= last:
                continue
            versions.append(gone[1])
        elif int((obj.get("metadata") or {}).get("resourceVersion") or 0) <= last:
            continue
        for v in versions:
            if v is None:
                continue
            md = v.get("metadata") or {}
            if k[0] == top:
                uids.add(md.get("uid", ""))
                continue
            ref = _controller_ref(v)
            if ref is None:
                namespaces.add(md.get("namespace") or "")
            elif top == "ReplicaSet" or k[0] == "ReplicaSet":
                uids.add(ref)
            else:  # a pod, for the Deployment controller: its ReplicaSet's controller
                owner = owner_of_rs(ref)
                if owner is not None:
                    uids.add(owner)
                else:
                    namespaces.add(md.get("namespace") or "")
    return uids, namespaces


OBJECT_WAKES_META = "controllers.objectWakes"  # {controller: {uid: time}} of TARGETED ones


def _object_wakes(cluster: Cluster, name: str, view, changes) -> list[float]:
    """The wakes still owed to objects a targeted pass did not visit (each object's last
    requeue-after, kept per object), recorded with this pass's own; returns the former."""
    store = cluster.store
    top = "ReplicaSet" if name == "replicaset" else "Deployment"
    now = cluster.now()
    by_controller = dict(store.meta(OBJECT_WAKES_META) or {})
    kept: dict[str, float] = {}
    if view.targets is not None:
        visited = {(o.get("metadata") or {}).get("uid", "") for o in view.list(top) if view.wants(o)}
        kept = {uid: t for uid, t in (by_controller.get(name) or {}).items()
                if uid not in visited and float(t) > now}
    mine = dict(kept)
    for c in changes:
        if c.op == "wake" and c.at is not None:
            uid = ((c.obj or {}).get("metadata") or {}).get("uid", "")
            mine[uid] = min(float(c.at), mine.get(uid, float(c.at)))
    if mine:
        by_controller[name] = mine
    else:
        by_controller.pop(name, None)
    store.set_meta(OBJECT_WAKES_META, by_controller or None)
    for t in kept.values():
        cluster.wake_at(float(t))
    return list(kept.values())


def _controller_ref(obj: dict) -> str | None:
    for r in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(r, dict) and r.get("controller"):
            return r.get("uid") or ""
    return None


VOLUME_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "Pod", "Node")


def volume_controllers(cluster: Cluster) -> bool:
    """The PV controller and the PVC/PV protection controllers (kubesim.controllers.
    persistentvolume, volumeprotection). It runs before the scheduler (Immediate claims bind
    first) and after it (the bindings the scheduler started complete before the kubelet looks).
    Events it already recorded about claims and volumes are passed in ``recorded_events``."""
    store = cluster.store
    if not store.count("PersistentVolumeClaim") and not store.count("PersistentVolume"):
        return False
    # imported past the gate: every settle runs this step, most clusters without claims
    from kubesim.apiserver import events
    from kubesim.controllers import persistentvolume, volumeprotection
    from kubesim.controllers.base import View

    view = View.from_store(store, cluster.now(), cluster.rng, kinds=VOLUME_KINDS)
    recorded = {}
    events.migrate_keys(store)
    for key in store.event_keys():
        parts = events.parse_logger_key(key)
        if parts is not None and parts[2] in ("PersistentVolumeClaim", "PersistentVolume"):
            ev = store.get("Event", parts[3] or "default", store.event_name(key) or "")
            recorded[(parts[2], parts[3] if parts[2] == "PersistentVolumeClaim" else "", parts[4],
                      parts[8], parts[9])] = ev
    view.recorded_events = recorded
    changed = apply_changes(cluster, persistentvolume.sync(view))
    if store.count("PersistentVolumeClaim") or store.count("PersistentVolume"):
        view = View.from_store(store, cluster.now(), cluster.rng, kinds=VOLUME_KINDS)
        changed = apply_changes(cluster, volumeprotection.sync(view)) or changed
    return changed


def schedule(cluster: Cluster) -> bool:
    from kubesim.controlplane import scheduling

    return scheduling.step(cluster)


# what the disruption controller reads: PDBs, pods and the workloads whose scale it counts
DISRUPTION_KINDS = ("PodDisruptionBudget", "Pod", "ReplicaSet", "Deployment", "StatefulSet", "ReplicationController")

def _ephemeral_due(cluster: Cluster) -> bool:
    """Whether the ephemeral volume controller has anything to look at (it watches pod adds
    and claim deletions): since it last ran (or, on its first run in this command, since the
    last fixed point) a pod with ephemeral volumes was written, or a claim was deleted."""
    store = cluster.store
    baseline = settled_baseline(cluster)
    if baseline is None:
        return True
    last = cluster.__dict__.get("_controller_rv", {}).get("ephemeral", baseline)
    last, stamp = _quiet_since(cluster, "ephemeral", last)
    for k in list(store.changed_keys()):
        if k[0] == "Pod":
            obj = store.get(*k)
            if obj is not None and int((obj.get("metadata") or {}).get("resourceVersion") or 0) > last \
                    and _pod_facts(cluster, obj)[2]:  # (has_ephemeral_volumes, read by the collector's)
                return True
        elif k[0] == "PersistentVolumeClaim" and store.get(*k) is None:
            gone = store.deleted(*k)
            if gone is not None and gone[0] > last:
                return True
    _found_quiet(cluster, "ephemeral", stamp)
    return False


def _quiet_since(cluster: Cluster, name: str, last: int, also: tuple = ()) -> tuple[int, tuple]:
    """For a gate whose verdict on a write depends on the written version alone (or, for a
    pod, on selectors whose own change is a write it answers yes to, or that ``also`` tells
    apart: the selecting kinds' resourceVersions): past an earlier ask, since the same
    ``last``, that found nothing (``_found_quiet``), only the writes after it need a look (a
    bulk apply's thousand pods, every later round). (Where to look from, the stamp to give
    ``_found_quiet``.)"""
    stamp = (last, also, cluster.store.opened_resource_version())
    checked = cluster.__dict__.get("_gate_checked", {}).get(name)
    return (checked[0] if checked is not None and checked[1] == stamp else last), stamp


def _found_quiet(cluster: Cluster, name: str, stamp: tuple) -> None:
    """The gate ``name`` found nothing written up to now (``_quiet_since``'s stamp)."""
    cluster.__dict__.setdefault("_gate_checked", {})[name] = (cluster.store.resource_version(), stamp)


def ephemeral_volumes(cluster: Cluster) -> bool:
    """The ephemeral volume controller (kubesim.controllers.ephemeral): creates the claims of
    pods' generic ephemeral volumes. A create the API server refuses gives the pod upstream's
    Warning FailedBinding ``ephemeral volume <vol>: create PVC <claim>: <error>``."""
    store = cluster.store
    if not _ephemeral_due(cluster) or not store.count("Pod"):  # the cheap test first
        return False
    # imported past the gate: every settle runs this step
    from kubesim.controllers import ephemeral
    from kubesim.controllers.base import View
    from kubesim.errors import StatusError

    cluster.__dict__.setdefault("_controller_rv", {})["ephemeral"] = store.resource_version()
    view = View.from_store(store, cluster.now(), cluster.rng, kinds=("Pod", "PersistentVolumeClaim"))
    from kubesim.apiserver import events

    recorded = events.recorded(cluster, ephemeral.COMPONENT, "Pod")
    view.recorded_events = recorded
    changed = False
    for ch in ephemeral.sync(view):
        if ch.op != "create":
            changed = apply_changes(cluster, [ch]) or changed
            continue
        try:
            changed = apply_changes(cluster, [ch]) or changed
        except StatusError as e:
            ref = ch.obj["metadata"]["ownerReferences"][0]
            pod = store.get("Pod", ch.obj["metadata"]["namespace"], ref["name"])
            if pod is None:
                continue
            vol = {"name": ch.obj["metadata"]["name"][len(ref["name"]) + 1:]}
            ev = ephemeral.failed_event(pod, vol, f'create PVC {ch.obj["metadata"]["name"]}: {e.message}')
            md = pod["metadata"]
            if (md.get("namespace", ""), md.get("name", ""), md.get("uid", ""), ev.message) not in recorded:
                recorded.add((md.get("namespace", ""), md.get("name", ""), md.get("uid", ""), ev.message))
                cluster.record(pod, ev.type, ev.reason, ev.message, ev.component)
                changed = True
    return changed


# the collector reads claims too: a generic ephemeral volume's claim goes with its pod
GC_KINDS = WORKLOAD_KINDS + ("PersistentVolumeClaim",) + ("Job", "CronJob", "StatefulSet")
# owners whose deletion leaves dependents for the collector
GC_GATE = ("Deployment", "ReplicaSet", "DaemonSet") + ("Job", "CronJob", "StatefulSet")
# what the Job controller reads (pkg/controller/job: its Job and pod informers)
JOB_KINDS = ("Job", "Pod")

STEPS = [register_nodes, static_pod_directories, node_leases, node_lifecycle, taint_nodes_by_condition, taint_eviction, pod_gc, _controller_step("deployment"), _controller_step("replicaset"),
         _controller_step("daemonset"), _controller_step("job", gate=("Job",), view_kinds=JOB_KINDS),
         _controller_step("ttlafterfinished", gate=("Job",), view_kinds=("Job",)),
         _controller_step("cronjob", gate=("CronJob",), view_kinds=("CronJob", "Job")),
         _controller_step("garbagecollector", gate=GC_GATE, view_kinds=GC_KINDS, claims=True),
         _controller_step("disruption", gate=("PodDisruptionBudget",), view_kinds=DISRUPTION_KINDS), ephemeral_volumes,
         volume_controllers, schedule,
         volume_controllers, static_pods, sync_pods]
# the StatefulSet controller reads its pods, claims and revisions (pkg/controller/statefulset)
STATEFULSET_KINDS = ("StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision")
STEPS.insert(STEPS.index(volume_controllers), _controller_step("statefulset", gate=("StatefulSet",),
                                                               view_kinds=STATEFULSET_KINDS))
# the ClusterRole aggregation controller (kubesim.controllers.clusterroleaggregation)
STEPS.append(_controller_step("clusterroleaggregation", gate=("ClusterRole",), view_kinds=("ClusterRole",)))


def set_kubelet(cluster: Cluster, node: dict, running: bool) -> bool:
    """kubesim's own ``node stop|start``: a stopped kubelet stops posting status (the node goes
    NotReady, is tainted unreachable, its pods are evicted after their tolerationSeconds); a
    started one takes its pods over again. False when it already was so."""
    from kubesim.kubelet import node as kubelet_node
    from kubesim.kubelet import nodelease, steps

    now = cluster.now()
    name = node["metadata"]["name"]
    store = cluster.store
    lease = store.get("Lease", nodelease.NODE_LEASE_NAMESPACE, name)
    if not running:
        changed = kubelet_node.stop_kubelet(node, now)
        if changed:
            if lease is not None:  # its renewals stop: the Lease stays as the last one left it
                renewed = nodelease.renewed(lease, node, now)
                if renewed is not lease:
                    store.put(renewed)
            store.put(node)
        return changed
    evs = kubelet_node.start_kubelet(node, now)
    if not evs:
        return False
    store.put(node)
    # the new kubelet's lease controller syncs at once: it takes the Lease over or creates it
    if lease is not None:
        store.put(nodelease.renew(lease, node, now))
    else:
        _create_node_lease(cluster, node, now)
    steps.resume_node(cluster, name)
    for obj, type_, reason, message, component, at in evs:
        cluster.record(obj, type_, reason, message, component, name, at=at)
    return True


def container_log(cluster: Cluster, pod: dict, container: str, previous: bool = False) -> list[tuple[float, str]]:
    """A container's log as its node's kubelet reads it: ``(time, line)`` entries, oldest
    first. Raises LookupError with the kubelet's message."""
    from kubesim.kubelet.logs import entries

    extra = None
    if _runs(pod, container, "kube-scheduler"):
        from kubesim.controlplane.scheduling import recorded_log

        extra = recorded_log(cluster)
    _wire_pod_network(cluster)
    return entries(pod, container, cluster.now(), previous=previous, extra=extra, get=cluster.store.get,
                   network=cluster.__dict__["pod_network"])


def _runs(pod: dict, container: str, program: str) -> bool:
    """The container is a control-plane static pod's running ``program``."""
    md = pod.get("metadata") or {}
    if md.get("namespace") != "kube-system" or not (md.get("annotations") or {}).get("kubernetes.io/config.mirror"):
        return False
    c = next((c for c in (pod.get("spec") or {}).get("containers") or [] if c.get("name") == container), None)
    argv = (c or {}).get("command") or []
    return bool(argv) and argv[0].rsplit("/", 1)[-1] == program


# -- the service account controller and the root CA publisher ----------------------------------

# the store's resourceVersion up to which the two controllers have seen every Namespace,
# ServiceAccount and kube-root-ca.crt ConfigMap (absent: a state they never looked at, as one from
# before they existed: they look at every namespace once)
NAMESPACE_CONTROLLERS_META = "controllers.namespaceControllersSynced"


def _namespace_controllers_news(cluster: Cluster) -> bool:
    """Whether a Namespace, a ServiceAccount or a ``kube-root-ca.crt`` ConfigMap was written or
    deleted since the two controllers last looked (their informers' events)."""
    from kubesim.controllers.rootcacertpublisher import ROOT_CA_CERT_CONFIG_MAP_NAME

    store = cluster.store
    last = cluster.__dict__.get("_namespace_controllers_rv")
    if last is None:
        last = settled_baseline(cluster)
        if last is None or store.meta(NAMESPACE_CONTROLLERS_META) is None:
            return True
    for k in list(store.changed_keys()):
        watched = k[0] in ("Namespace", "ServiceAccount") or (k[0] == "ConfigMap" and
                                                                k[2] == ROOT_CA_CERT_CONFIG_MAP_NAME)
        if watched and _written_since(store, k, last):
            return True
    return False


def _derived_uid(*parts: str) -> str:
    """A version-4 UUID derived from ``parts``: no draw from the seeded random source (which
    would move every later generated name)."""
    import hashlib
    import uuid

    digest = hashlib.sha256("/".join(parts).encode()).hexdigest()[:32]
    return str(uuid.UUID(int=int(digest, 16), version=4))


def service_accounts(cluster: Cluster) -> bool:
    """The service account controller (``default`` in every active namespace) and the root CA
    publisher (``kube-root-ca.crt`` in every namespace), run when a Namespace, ServiceAccount or
    that ConfigMap changed. What they create is stored as the API server stores it (no
    admission or defaults apply to these objects), with uids derived from the namespace's."""
    store = cluster.store
    if not _namespace_controllers_news(cluster):
        return False
    # imported past the gate: every settle runs this step
    from kubesim.controllers import rootcacertpublisher, serviceaccount
    from kubesim.controllers.base import View

    root_ca = store.meta(rootcacertpublisher.ROOT_CA_META)
    if root_ca is None:
        root_ca = rootcacertpublisher.ROOT_CA
        store.set_meta(rootcacertpublisher.ROOT_CA_META, root_ca)
    namespaces = store.list("Namespace")
    cms = [cm for ns in namespaces
           if (cm := store.get("ConfigMap", ns["metadata"]["name"],
                               rootcacertpublisher.ROOT_CA_CERT_CONFIG_MAP_NAME)) is not None]
    view = View({"Namespace": namespaces, "ServiceAccount": store.list("ServiceAccount"), "ConfigMap": cms},
                cluster.now(), cluster.rng)
    ns_uids = {ns["metadata"]["name"]: str(ns["metadata"].get("uid", "")) for ns in namespaces}
    changed = False
    for ch in serviceaccount.sync(view) + rootcacertpublisher.sync(view, root_ca):
        obj = ch.obj
        md = obj["metadata"]
        if ch.op == "create":
            md["uid"] = _derived_uid(obj["kind"], ns_uids.get(md["namespace"], ""), md["name"], cluster.stamp())
            # the store draws a uid even when one is given: put the seeded source back after
            rng = getattr(store, "rng", None)
            state = rng.getstate() if rng is not None else None
            store.create(obj, cluster.stamp())
            if state is not None:
                rng.setstate(state)
        else:
            store.put(obj)
        changed = True
    cluster._namespace_controllers_rv = store.resource_version()
    if store.meta(NAMESPACE_CONTROLLERS_META) is None:
        store.set_meta(NAMESPACE_CONTROLLERS_META, True)
    return changed


STEPS.insert(0, service_accounts)


# what the endpoints and EndpointSlice controllers read
ENDPOINT_KINDS = ("Service", "Pod", "Node", "Endpoints", "EndpointSlice")


def _service_selectors(cluster: Cluster) -> list[tuple[str, object]]:
    """(namespace, labels.SelectorFromSet(spec.selector)) of every Service with a selector,
    compiled once per write of Services."""
    from kubesim.api import selectors

    store = cluster.store
    memo = cluster.__dict__.setdefault("_gate_selectors", {})
    stamp = store.kind_resource_version("Service")
    hit = memo.get("Service")
    if hit is None or hit[0] != stamp:
        sels = [((o.get("metadata") or {}).get("namespace") or "", selectors.selector_from_set(sel))
                for o in store.iter_kind("Service")
                if (sel := (o.get("spec") or {}).get("selector")) is not None]
        hit = memo["Service"] = (stamp, sels)
    return hit[1]


def _selected_by_service(cluster: Cluster, pod: dict | None, sels: list | None = None) -> bool:
    """``sels``: ``_service_selectors``, when the caller has it."""
    if pod is None:
        return False
    md = pod.get("metadata") or {}
    ns, labels = md.get("namespace") or "", md.get("labels") or {}
    return any(sns == ns and sel.matches(labels)
               for sns, sel in (_service_selectors(cluster) if sels is None else sels))


def _endpoints_due(cluster: Cluster) -> bool:
    """Whether the endpoints controllers have anything to look at: since they last ran (or the
    last fixed point) a Service, Endpoints or EndpointSlice was written or deleted, a Node
    created, deleted or given another zone (``_node_zone_changed``), or a pod some version of
    which a Service selects (upstream: their pod, service and node event handlers)."""
    store = cluster.store
    baseline = settled_baseline(cluster)
    if baseline is None:
        return True
    last, stamp = _quiet_since(cluster, "endpoints",
                               cluster.__dict__.get("_controller_rv", {}).get("endpoints", baseline))
    kinds = set(ENDPOINT_KINDS)
    sels = None

    def selected(pod: dict | None) -> bool:  # (the selectors read once: nothing is written meanwhile)
        nonlocal sels
        if pod is not None and sels is None:
            sels = _service_selectors(cluster)
        return _selected_by_service(cluster, pod, sels)

    for k in [k for k in list(store.changed_keys()) if k[0] in kinds]:  # (most are Events: passed over at once)
        obj = store.get(*k)
        if obj is None:
            gone = store.deleted(*k)
            if gone is None or gone[0] <= last:
                continue
            if k[0] != "Pod" or selected(gone[1]) or selected(store.committed(*k)):
                return True
            continue
        if int((obj.get("metadata") or {}).get("resourceVersion") or 0) <= last:
            continue
        if k[0] == "Node":
            if _node_zone_changed(store, k, obj):
                return True
            continue
        if k[0] != "Pod" or selected(obj) or selected(store.committed(*k)):
            return True
    _found_quiet(cluster, "endpoints", stamp)
    return False


def _zone(node: dict | None) -> object:
    return ((node.get("metadata") or {}).get("labels") or {}).get(ZONE_LABEL) if node is not None else None


def _node_zone_changed(store, key, node: dict) -> bool:
    """Whether a Node this command wrote can change an endpoint: all the controllers read of a
    Node is whether it exists and its zone label (endpointslice.pod_to_endpoint), so a Node
    created here, or whose zone differs from the one it was committed with, counts; its
    status (the kubelet's images, conditions) does not. (A bulk apply's pods make their
    nodes' kubelets post new image lists: that must not relist every pod for the Services.)"""
    before = store.committed(*key)
    return before is None or _zone(before) != _zone(node)


def endpoint_controllers(cluster: Cluster) -> bool:
    """The endpoints and EndpointSlice controllers (kubesim.controllers.endpoints,
    endpointslice): they run while Services with a selector exist (or this command wrote or
    deleted a Service), and then only when Services, Nodes, their own objects or pods a Service
    selects changed."""
    store = cluster.store
    # the kubernetes Service (no selector) is always there: only Services with a selector, or
    # a Service this command wrote or deleted, give them work
    if not _endpoints_due(cluster):  # first: a command that wrote nothing is done here
        return False
    written = bool(store.changed_kinds().intersection(("Service", "Endpoints")))
    if not written and not (store.count("Service") and _service_selectors(cluster)):
        return False
    from kubesim.controllers import endpoints, endpointslice, endpointslicemirroring
    from kubesim.controllers.base import StoreView

    cluster.__dict__.setdefault("_controller_rv", {})["endpoints"] = store.resource_version()
    # pods and nodes read as asked for: a Service's pods from the index of labels (the pod
    # informer's lister with a selector), a node by name
    view = StoreView(store, ENDPOINT_KINDS, cluster.now(), cluster.rng)
    # the Endpoints of a Service this command deleted go with it, whoever wrote them
    view.deleted_services = {k[1:] for k in store.changed_keys() if k[0] == "Service" and store.get(*k) is None}
    changed = apply_changes(cluster, endpoints.sync(view))
    view = StoreView(store, ENDPOINT_KINDS, cluster.now(), cluster.rng)
    changed = apply_changes(cluster, endpointslice.sync(view)) or changed
    view = StoreView(store, ENDPOINT_KINDS, cluster.now(), cluster.rng)
    return apply_changes(cluster, endpointslicemirroring.sync(view)) or changed


_KUBERNETES_SERVICE_KEYS = {("Service", "default", "kubernetes"), ("Endpoints", "default", "kubernetes"),
                            ("EndpointSlice", "default", "kubernetes")}


def kubernetes_service(cluster: Cluster) -> bool:
    """The API server's kubernetesservice controller and endpoint reconciler: the ``kubernetes``
    Service, its Endpoints and EndpointSlice come back when this command deleted one
    (bootstrap.ensure_kubernetes_service)."""
    store = cluster.store
    changed = store.changed_keys()
    if not any(k in changed for k in _KUBERNETES_SERVICE_KEYS):
        return False
    from kubesim.controlplane.bootstrap import ensure_kubernetes_service

    return ensure_kubernetes_service(cluster)


STEPS.append(endpoint_controllers)
STEPS.append(kubernetes_service)


# -- the resource quota controller ------------------------------------------------------------


def _resource_quota_news(cluster: Cluster) -> bool:
    """Whether a ResourceQuota, or an object of a kind some quota of its namespace counts, was
    written or deleted since the controller last looked (its informers' events)."""
    from kubesim.api import quota as q

    store = cluster.store
    last = cluster.__dict__.get("_resource_quota_rv")
    if last is None:
        last = settled_baseline(cluster)
        if last is None:
            return True
    counted: dict[str, set[str]] = {}
    for rq in store.list("ResourceQuota"):
        ns = (rq.get("metadata") or {}).get("namespace", "")
        counted.setdefault(ns, set()).update(q.tracked_kinds((rq.get("spec") or {}).get("hard") or {}))
    for k in list(store.changed_keys()):
        if (k[0] == "ResourceQuota" or k[0] in counted.get(k[1], ())) and _written_since(store, k, last):
            return True
    return False


def resource_quota(cluster: Cluster) -> bool:
    """The resource quota controller (kubesim.controllers.resourcequota): run while some
    ResourceQuota exists or was deleted, and only when what it counts changed."""
    store = cluster.store
    if not store.count("ResourceQuota"):
        return False
    if not _resource_quota_news(cluster):
        return False
    from kubesim.api import quota as q
    from kubesim.controllers import resourcequota
    from kubesim.controllers.base import View

    quotas = store.list("ResourceQuota")
    kinds_ = {k for rq in quotas for k in q.tracked_kinds((rq.get("spec") or {}).get("hard") or {})}
    objects = {k: store.list(k) for k in kinds_}
    objects["ResourceQuota"] = quotas
    changed = apply_changes(cluster, resourcequota.sync(View(objects, cluster.now(), cluster.rng)))
    cluster._resource_quota_rv = store.resource_version()
    return changed


STEPS.append(resource_quota)


# The horizontal pod autoscaler (kubesim.controllers.horizontalpodautoscaler): it runs while
# HPAs exist, each synced 15 s after its creation and then every 15 s (a wake at the next one);
# what upstream keeps in memory (the next syncs, recommendations, scale events) is kept in the
# state's metadata between commands. Its view holds the HPAs' namespaces' pods and the
# PodMetrics the simulated metrics-server serves for them (kubesim.kubelet.metrics).
HPA_STATE_META = "controllers.horizontalpodautoscaler"
HPA_TARGET_KINDS = ("Deployment", "ReplicaSet", "StatefulSet")


def horizontal_pod_autoscaler(cluster: Cluster) -> bool:
    store = cluster.store
    if not store.count("HorizontalPodAutoscaler"):
        if store.meta(HPA_STATE_META) is not None:
            store.set_meta(HPA_STATE_META, None)
        return False
    from kubesim.controllers import horizontalpodautoscaler as controller

    state = store.meta(HPA_STATE_META) or {}
    hpas = store.list("HorizontalPodAutoscaler")
    now = cluster.now()
    if not controller.due(hpas, state, now):
        cluster.wake_at(min(controller.next_sync(h, state) for h in hpas))
        return False
    from kubesim.controllers.base import View
    from kubesim.kubelet.metrics import pod_metrics

    namespaces = sorted({(h.get("metadata") or {}).get("namespace", "") for h in hpas})
    pods = [p for ns in namespaces for p in store.list("Pod", ns)]
    objects = {k: [o for ns in namespaces for o in store.list(k, ns)] for k in HPA_TARGET_KINDS}
    objects.update({"HorizontalPodAutoscaler": hpas, "Pod": pods,
                    "PodMetrics": [m for p in pods if (m := pod_metrics(p, now)) is not None]})
    changes, state = controller.sync(View(objects, now, cluster.rng), state)
    changed = apply_changes(cluster, changes)
    store.set_meta(HPA_STATE_META, state or None)
    return changed


STEPS.append(horizontal_pod_autoscaler)


# -- apiextensions-apiserver's controllers (kubesim.controllers.customresourcedefinition) -----

# set while a CRD marked for deletion waits for objects of its kind that have finalizers
CRD_CLEANUP_META = "apiextensions.cleanupPending"


def custom_resource_definitions(cluster: Cluster) -> bool:
    """The naming, establishing and cleanup-finalizer controllers: they run only when this
    command wrote a CustomResourceDefinition, or while one waits for its objects to go."""
    store = cluster.store
    if "CustomResourceDefinition" not in store.changed_kinds() and \
            not store.meta(CRD_CLEANUP_META):
        return False
    from kubesim.controllers import customresourcedefinition
    from kubesim.controllers.base import View

    crds = store.list("CustomResourceDefinition")
    objects = {"CustomResourceDefinition": crds}
    for crd in crds:
        if crd["metadata"].get("deletionTimestamp"):
            kind = ((crd.get("status") or {}).get("acceptedNames") or {}).get("kind") or \
                ((crd.get("spec") or {}).get("names") or {}).get("kind", "")
            objects[kind] = store.list(kind)
    view = View(objects, cluster.now(), cluster.rng)
    changed = apply_changes(cluster, customresourcedefinition.sync(view))
    from kubesim.api.apiextensions.helpers import FINALIZER

    pending = any(c["metadata"].get("deletionTimestamp") and FINALIZER in (c["metadata"].get("finalizers") or ())
                  for c in store.list("CustomResourceDefinition"))
    if bool(store.meta(CRD_CLEANUP_META)) != pending:
        store.set_meta(CRD_CLEANUP_META, True if pending else None)
    return changed


STEPS.insert(0, custom_resource_definitions)
