"""The default cluster (DESIGN §3.3) and ``kubesim cluster init|reset``.

An empty state becomes, on first use, a kubeadm-like cluster: ``controlplane`` (labelled and
tainted as kubeadm does: cmd/kubeadm/app/constants and phases/markcontrolplane), ``node01``,
``node02``, and the namespaces and system PriorityClasses every cluster starts with. The nodes register through the
simulated kubelet on the first settle.
"""

from __future__ import annotations

import random

from kubesim.api.nodes import CONTROL_PLANE_NODE, ZONE_LABEL
from kubesim.apiserver.context import Cluster
from kubesim.apiserver.events import STARTED_META

SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane"
CONTROL_PLANE_TAINT = {"effect": "NoSchedule", "key": CONTROL_PLANE_LABEL}
REGION_LABEL = "topology.kubernetes.io/region"


def namespace_manifest(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def node_manifest(name: str, control_plane: bool = False, zone: str | None = None) -> dict:
    md: dict = {"name": name, "labels": {},
                "annotations": {"kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock"}}
    spec: dict = {}
    if control_plane:
        md["labels"][CONTROL_PLANE_LABEL] = ""
        md["labels"]["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
        spec["taints"] = [dict(CONTROL_PLANE_TAINT)]
    if zone:
        md["labels"][ZONE_LABEL] = zone
        md["labels"][REGION_LABEL] = "region-1"
    return {"apiVersion": "v1", "kind": "Node", "metadata": md, "spec": spec}


def _letters(i: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa, ... (as spreadsheet columns): valid label values at any count."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def zone_names(zones: str | int | None) -> list[str]:
    if zones in (None, "", 0, "0"):
        return []
    if isinstance(zones, int) or str(zones).isdigit():
        return [f"zone-{_letters(i)}" for i in range(int(zones))]
    return [z.strip() for z in str(zones).split(",") if z.strip()]


def initialize(cluster: Cluster, nodes: int = 2, cpu: str | None = None, memory: str | None = None,
               zones: str | int | None = None, empty: bool = False) -> None:
    """Create the system namespaces and the nodes of a fresh cluster in an empty store."""
    from kubesim.apiserver.objects import prepare_for_create
    from kubesim.apiserver.storage import make_state_dirs
    from kubesim.kubelet.node import DEFAULT_SHAPE

    store = cluster.store
    # the new cluster's node directories replace the old ones at commit; the command counter
    # (it grows with every commit) tells this transaction's tree from any other's
    store.stage_nodes(f"c{cluster.command_counter}")
    shape = dict(DEFAULT_SHAPE)
    if cpu:
        shape["cpu"] = str(cpu)
    if memory:
        shape["memory"] = str(memory)
    store.set_meta("cluster.shape", shape)
    now = cluster.stamp()
    for ns in SYSTEM_NAMESPACES:
        obj = namespace_manifest(ns)
        prepare_for_create(obj, rng=cluster.rng, manage=_created_by("kube-apiserver", now))
        store.create(obj, now)
    _system_priority_classes(cluster, now)
    _rbac_bootstrap_policy(cluster, now)
    if not empty:
        zl = zone_names(zones)
        manifests = [node_manifest(CONTROL_PLANE_NODE, control_plane=True, zone=zl[0] if zl else None)]
        manifests.extend(worker_manifest(i, zl) for i in range(nodes))
        for m in manifests:
            prepare_for_create(m, rng=cluster.rng, manage=_created_by("kubelet", now))
            store.create(m, now)
            make_state_dirs(store.nodes_dir, m["metadata"]["name"], "manifests")
        _kubeadm_control_plane(cluster)
    ensure_kubernetes_service(cluster)
    _kubeadm_addons(cluster)
    store.set_meta("cluster.initialized", True)
    store.set_meta(STARTED_META, cluster.now())  # when the components' tickers started


def worker_manifest(i: int, zones: list[str]) -> dict:
    """The ``i``-th worker node (0: node01) of a new cluster, in its zone when there are zones."""
    return node_manifest(f"node{i + 1:02d}", zone=zones[(i + 1) % len(zones)] if zones else None)


# A new cluster's worker nodes are added this many at a time beyond the first slice
# (kubesim.controlplane.session.init_cluster): each slice settles and goes to the database
# before the next, so what is held in memory is one slice's, not the whole cluster's. At
# most MAX_SLICES of them: each slice's DaemonSet controller and scheduler still read every
# node there is, so more slices would cost time growing with the square of the nodes.
NODES_PER_SLICE = 500
MAX_SLICES = 10


def slice_size(nodes: int) -> int:
    """How many worker nodes each slice of a new cluster of ``nodes`` workers adds."""
    return max(NODES_PER_SLICE, -(-nodes // MAX_SLICES))


def add_worker_nodes(cluster: Cluster, start: int, count: int, zones: str | int | None = None) -> None:
    """Create the worker nodes ``start``..``start + count - 1`` of a new cluster as
    ``initialize`` creates its own (their kubelets register them when the cluster settles)."""
    from kubesim.apiserver.objects import prepare_for_create
    from kubesim.apiserver.storage import make_state_dirs
    from kubesim.controlplane.components import register_nodes

    store = cluster.store
    now = cluster.stamp()
    zl = zone_names(zones)
    for i in range(start, start + count):
        m = worker_manifest(i, zl)
        prepare_for_create(m, rng=cluster.rng, manage=_created_by("kubelet", now))
        store.create(m, now)
        make_state_dirs(store.nodes_dir, m["metadata"]["name"], "manifests")
    register_nodes(cluster)  # (as _kubeadm_control_plane registers the first ones)


def _created_by(manager: str, now: str):
    """managedFields for an object a component creates: its create's Update entry."""
    from kubesim.apiserver import fieldmanager

    return lambda obj: fieldmanager.update(None, obj, manager, now)


def _system_priority_classes(cluster: Cluster, now: str) -> None:
    """What every API server creates at start-up, whatever the cluster's shape: the
    system-node-critical and system-cluster-critical PriorityClasses (the scheduling REST
    storage's post-start hook, pkg/registry/scheduling/rest/storage_scheduling.go)."""
    from kubesim.api.scheduling.helpers import system_priority_class_manifests
    from kubesim.apiserver.objects import prepare_for_create

    for pc in system_priority_class_manifests():
        if cluster.store.get("PriorityClass", "", pc["metadata"]["name"]) is None:
            prepare_for_create(pc, rng=cluster.rng)
            cluster.store.create(pc, now)


def _rbac_bootstrap_policy(cluster: Cluster, now: str) -> None:
    """The default ClusterRoles, Roles and their bindings: the RBAC storage's post-start hook
    (pkg/registry/rbac/rest/storage_rbac.go) and kubeadm's own (``kubesim.api.rbac.bootstrappolicy``).
    The aggregated roles start without rules; the aggregation controller fills them at settle.
    With KUBESIM_SEED their uids come from a source of their own, so the cluster's seeded
    sequence (generated names, other uids) is what it was before they existed."""
    import random

    from kubesim.api.rbac.bootstrappolicy import bootstrap_objects
    from kubesim.apiserver.objects import prepare_for_create

    store = cluster.store
    seeded = store.rng
    if seeded is not None:  # the store draws uids from store.rng
        store.rng = random.Random(f"{cluster.env.get('KUBESIM_SEED')}:rbac-bootstrap-policy")
    try:
        for obj in bootstrap_objects():
            md = obj["metadata"]
            if store.get(obj["kind"], md.get("namespace", ""), md["name"]) is None:
                prepare_for_create(obj, rng=cluster.rng)
                store.create(obj, now)
    finally:
        store.rng = seeded
KUBERNETES_SERVICE_IP = "10.96.0.1"
API_SERVER_PORT = 6443


def ensure_kubernetes_service(cluster: Cluster) -> bool:
    """What the API server keeps in place: the ``kubernetes`` Service (its kubernetesservice
    controller) and, once the control plane has a node address, its Endpoints and EndpointSlice
    (the endpoint reconciler); whichever is missing is created again (upstream within its
    10-second loop; kubesim when the command that deleted it settles). True when it created
    something. Their UIDs come from a random source of their own, so a seeded command that
    initialises the state draws the same names as it would without them."""
    store = cluster.store
    if store.get("Namespace", "", "default") is None:
        return False
    missing_svc = store.get("Service", "default", "kubernetes") is None
    missing_ep = store.get("Endpoints", "default", "kubernetes") is None
    missing_slice = store.get("EndpointSlice", "default", "kubernetes") is None
    if not (missing_svc or missing_ep or missing_slice):
        return False
    saved = store.rng
    if saved is not None:
        store.rng = random.Random(f"kubernetes-service/{cluster.stamp()}/{cluster.command_counter}")
    try:
        if missing_svc:
            _kubernetes_service(cluster)
        return _kubernetes_endpoints(cluster, missing_ep, missing_slice) or missing_svc
    finally:
        store.rng = saved


def _kubernetes_service(cluster: Cluster) -> None:
    """The ``kubernetes`` Service every API server keeps in ``default``
    (pkg/controlplane/controller/kubernetesservice: the first IP of the service range, port 443
    to the secure port, labelled provider=kubernetes, component=apiserver)."""
    from kubesim.apiserver.objects import create_object

    svc = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"labels": {"component": "apiserver", "provider": "kubernetes"}, "name": "kubernetes",
                        "namespace": "default"},
           "spec": {"clusterIP": KUBERNETES_SERVICE_IP, "ports": [
               {"name": "https", "port": 443, "protocol": "TCP", "targetPort": API_SERVER_PORT}],
               "sessionAffinity": "None", "type": "ClusterIP"}}
    create_object(cluster, svc)


def _kubernetes_endpoints(cluster: Cluster, endpoints: bool = True, endpoint_slice: bool = True) -> bool:
    """The ``kubernetes`` Service's Endpoints and EndpointSlice, as the API server's endpoint
    reconciler writes them (pkg/controlplane/reconcilers: the advertise address, here the
    control-plane node's InternalIP, on the secure port; endpointsadapter.go
    ``endpointSliceFromEndpoints``)."""
    from kubesim.api.nodes import internal_ip
    from kubesim.apiserver.objects import create_object

    cp = cluster.store.get("Node", "", CONTROL_PLANE_NODE)
    ip = internal_ip(cp) if cp is not None else ""
    if not ip:
        return False
    port = {"name": "https", "port": API_SERVER_PORT, "protocol": "TCP"}
    if endpoints:
        create_object(cluster, {"apiVersion": "v1", "kind": "Endpoints",
                                "metadata": {"labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
                                             "name": "kubernetes", "namespace": "default"},
                                "subsets": [{"addresses": [{"ip": ip}], "ports": [dict(port)]}]})
    if endpoint_slice:
        create_object(cluster, {"addressType": "IPv4", "apiVersion": "discovery.k8s.io/v1",
                                "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
                                "kind": "EndpointSlice",
                                "metadata": {"labels": {"kubernetes.io/service-name": "kubernetes"},
                                             "name": "kubernetes", "namespace": "default"},
                                "ports": [dict(port)]})
    return True


def _kubeadm_control_plane(cluster: Cluster) -> None:
    """What ``kubeadm init`` leaves on the control-plane node: its kubelet registered and the
    static pod manifests of kube-apiserver, etcd, kube-controller-manager and kube-scheduler in
    its staticPodPath (the kubelet turns them into mirror pods in kube-system)."""
    from kubesim.api.nodes import internal_ip
    from kubesim.apiserver.storage import make_state_dirs, write_state_file
    from kubesim.controlplane.components import register_nodes
    from kubesim.kubelet.staticpods import control_plane_files

    register_nodes(cluster)
    cp = cluster.store.get("Node", "", CONTROL_PLANE_NODE)
    if cp is not None:
        directory = make_state_dirs(cluster.store.nodes_dir, CONTROL_PLANE_NODE, "manifests")
        for fname, text in control_plane_files(internal_ip(cp)).items():
            write_state_file(directory, fname, text)
        cluster.__dict__.pop("_static_pod_dirs", None)  # the directories read at settle are stale


def _kubeadm_addons(cluster: Cluster) -> None:
    """kubeadm init's last phases: its ConfigMaps, CoreDNS and kube-proxy (controlplane/addons.py).
    Without a control-plane node (``--empty``) they name the address it would have had."""
    from kubesim.controlplane import addons

    addons.install(cluster, addons.advertise_address(cluster.store.get("Node", "", CONTROL_PLANE_NODE)))


def ensure_initialized(cluster: Cluster) -> None:
    from kubesim.controlplane.components import (
        NODE_LEASES_META,
        node_leases,
        static_pod_directories,
    )

    if not cluster.store.meta("cluster.initialized"):
        initialize(cluster)
    elif cluster.store.meta(NODE_LEASES_META) is None:
        # a state from before node Leases and a static pod directory for every node
        node_leases(cluster)
        static_pod_directories(cluster, every=True)
