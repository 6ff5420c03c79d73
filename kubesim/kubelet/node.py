"""The simulated kubelet's node registration and status, and the node IPAM controller's podCIDR.

A Node applied without status (or with part of one) is a node whose kubelet has just registered:
kubesim fills what a kubelet reports and keeps what the manifest set, as KWOK does for its fake
nodes. Upstream: pkg/kubelet/kubelet_node_status.go (initialNode: the well-known labels
kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch and their beta twins; the
volumes.kubernetes.io/controller-managed-attach-detach annotation), pkg/kubelet/nodestatus/setters.go
(addresses, MachineInfo: capacity and allocatable = capacity − reserved − hard eviction
thresholds, NodeInfo versions, the MemoryPressure/DiskPressure/PIDPressure/Ready conditions with
their reasons and messages), pkg/kubelet/eviction defaults (memory.available 100Mi,
nodefs.available 10%), pkg/controller/nodeipam (one /24 per node from the cluster CIDR).

Components take the command's context duck-typed (store, now(), stamp(), record(), rng): they
never import the engine.
"""

from __future__ import annotations

import hashlib
import ipaddress

from kubesim import (
    SERVER_VERSION as KUBELET_VERSION,  # the kubelet of the emulated release
)
from kubesim.api.nodes import KUBELET_STOPPED_ANNOTATION, internal_ip
from kubesim.clock import format_time

CONTAINER_RUNTIME = "containerd://2.1.4"
KERNEL_VERSION = "6.8.0-86-generic"
OS_IMAGE = "Ubuntu 24.04.3 LTS"
NODE_SUBNET = "172.30.0.0/16"
STATIC_POD_PATH_ANNOTATION = "kubesim.io/static-pod-path"

# The shape of a node whose manifest gives no capacity (also the default cluster's nodes).
DEFAULT_SHAPE = {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"}

CONDITIONS = [
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
]


def _ki(q: str) -> int:
    from kubesim.api.quantity import value

    return value(q)


def capacity_for(shape: dict) -> dict:
    """What the kubelet reports as capacity for a machine of ``shape`` (cadvisor's units)."""
    mem = _ki(shape.get("memory", DEFAULT_SHAPE["memory"]))
    eph = _ki(shape.get("ephemeral-storage", DEFAULT_SHAPE["ephemeral-storage"]))
    return {
        "cpu": str(shape.get("cpu", DEFAULT_SHAPE["cpu"])),
        "ephemeral-storage": f"{eph // 1024}Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem // 1024}Ki",
        "pods": str(shape.get("pods", DEFAULT_SHAPE["pods"])),
    }


def allocatable_for(capacity: dict) -> dict:
    """capacity − hard eviction thresholds (memory.available 100Mi, nodefs.available 10%)."""
    from kubesim.api.quantity import value

    alloc = dict(capacity)
    if "memory" in capacity:
        mem = value(capacity["memory"]) - 100 * 1024 * 1024
        alloc["memory"] = f"{max(mem, 0) // 1024}Ki"
    if "ephemeral-storage" in capacity:
        eph = value(capacity["ephemeral-storage"])
        alloc["ephemeral-storage"] = str(eph - (eph + 9) // 10)
    return alloc


def _stable_id(name: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()


def needs_registration(node: dict) -> bool:
    st = node.get("status") or {}
    info = st.get("nodeInfo") or {}
    return not (st.get("conditions") and info.get("kubeletVersion") and st.get("allocatable")
                and st.get("addresses") and (node.get("spec") or {}).get("podCIDR"))


class Allocator:
    """The node IPAM controller's /24s and the machines' InternalIPs, for one settle round.

    Pod CIDRs are /24s from 10.244.0.0/16 as kubeadm's default podSubnet gives them; past 256
    nodes (a simulation larger than that subnet) allocation continues into 10.245.0.0/16 and
    onwards, so large what-if clusters still get unique ranges. InternalIPs are 172.30.N.2.
    """

    def __init__(self, nodes: list[dict]):
        self.cidr_indexes: set[int] = set()
        self.ips: set[str] = set()
        base = int(ipaddress.ip_address("10.244.0.0"))
        for n in nodes:
            c = (n.get("spec") or {}).get("podCIDR")
            if c:
                try:
                    self.cidr_indexes.add((int(ipaddress.ip_network(c, strict=False).network_address) - base) >> 8)
                except ValueError:
                    pass
            ip = internal_ip(n)
            if ip:
                self.ips.add(ip)
        self._next_cidr = 0
        self._next_ip = 1

    def pod_cidr(self) -> str:
        while self._next_cidr in self.cidr_indexes:
            self._next_cidr += 1
        idx = self._next_cidr
        self.cidr_indexes.add(idx)
        addr = ipaddress.ip_address(int(ipaddress.ip_address("10.244.0.0")) + (idx << 8))
        return f"{addr}/24"

    def internal_ip(self) -> str:
        sub = int(ipaddress.ip_network(NODE_SUBNET).network_address)
        while True:
            v = sub + (self._next_ip << 8) + 2
            # (str(IPv4Address(v)), without building one per address taken: a slice of a
            # new cluster passes every earlier slice's nodes)
            ip = f"{v >> 24 & 255}.{v >> 16 & 255}.{v >> 8 & 255}.{v & 255}"
            self._next_ip += 1
            if ip not in self.ips:
                self.ips.add(ip)
                return ip


def register(node: dict, alloc: Allocator, ctx, static_pod_path: str | None) -> None:
    """Fill in what a freshly registered kubelet reports; keep what the manifest set."""
    md = node.setdefault("metadata", {})
    name = md["name"]
    spec = node.setdefault("spec", {})
    st = node.setdefault("status", {})
    labels = md.setdefault("labels", {})
    arch = labels.get("kubernetes.io/arch") or labels.get("beta.kubernetes.io/arch") or "amd64"
    os_ = labels.get("kubernetes.io/os") or labels.get("beta.kubernetes.io/os") or "linux"
    for k, v in (("beta.kubernetes.io/arch", arch), ("beta.kubernetes.io/os", os_),
                 ("kubernetes.io/arch", arch), ("kubernetes.io/hostname", name),
                 ("kubernetes.io/os", os_)):
        labels.setdefault(k, v)
    ann = md.setdefault("annotations", {})
    ann.setdefault("node.alpha.kubernetes.io/ttl", "0")
    ann.setdefault("volumes.kubernetes.io/controller-managed-attach-detach", "true")
    if static_pod_path:
        ann.setdefault(STATIC_POD_PATH_ANNOTATION, static_pod_path)

    if not spec.get("podCIDR"):
        cidr = alloc.pod_cidr()
        spec["podCIDR"] = cidr
        spec["podCIDRs"] = [cidr]
    elif not spec.get("podCIDRs"):
        spec["podCIDRs"] = [spec["podCIDR"]]

    if not st.get("capacity"):
        st["capacity"] = capacity_for(ctx.store.meta("cluster.shape") or DEFAULT_SHAPE)
    if not st.get("allocatable"):
        st["allocatable"] = allocatable_for(st["capacity"])
    now = ctx.stamp()
    if not st.get("conditions"):
        st["conditions"] = [
            {"lastHeartbeatTime": now, "lastTransitionTime": now, "message": msg, "reason": reason,
             "status": status, "type": type_}
            for type_, status, reason, msg in CONDITIONS
        ]
    if not st.get("addresses"):
        st["addresses"] = [{"address": alloc.internal_ip(), "type": "InternalIP"}, {"address": name, "type": "Hostname"}]
    st.setdefault("daemonEndpoints", {"kubeletEndpoint": {"Port": 10250}})
    info = st.setdefault("nodeInfo", {})
    mid = _stable_id(name, "machine")
    for k, v in (("architecture", arch), ("bootID", _uuid(_stable_id(name, "boot"))),
                 ("containerRuntimeVersion", CONTAINER_RUNTIME), ("kernelVersion", KERNEL_VERSION),
                 ("kubeProxyVersion", ""), ("kubeletVersion", KUBELET_VERSION),
                 ("machineID", mid[:32]), ("operatingSystem", os_), ("osImage", OS_IMAGE),
                 ("systemUUID", _uuid(_stable_id(name, "system")))):
        info.setdefault(k, v)
    st.setdefault("images", [])
    if not st["images"]:
        del st["images"]  # a kubelet lists images only once it has pulled some

    host = name
    ctx.record(node, "Normal", "Starting", "Starting kubelet.", "kubelet", host)
    for type_, _, reason, _ in CONDITIONS:
        if type_ == "Ready":
            continue
        ctx.record(node, "Normal", reason.replace("Kubelet", "Node"),
                   f"Node {name} status is now: {reason.replace('Kubelet', 'Node')}", "kubelet", host)
    ctx.record(node, "Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods",
               "kubelet", host)
    ctx.record(node, "Normal", "RegisteredNode", f"Node {name} event: Registered Node {name} in Controller",
               "node-controller")


def _uuid(h: str) -> str:
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def is_ready(node: dict) -> bool:
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


# -- a kubelet that stops and starts (kubesim node stop|start) ---------------------------------

READY_CONDITIONS = [
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
]


def stop_kubelet(node: dict, now: float) -> bool:
    """``kubesim node stop``: the kubelet stops, posting nothing more (its status stays as it
    last posted it; its Lease's renewals stop, kubesim.kubelet.nodelease)."""
    ann = node.setdefault("metadata", {}).setdefault("annotations", {})
    if ann.get(KUBELET_STOPPED_ANNOTATION):
        return False
    ann[KUBELET_STOPPED_ANNOTATION] = format_time(now)
    return True


def start_kubelet(node: dict, now: float) -> list[tuple]:
    """``kubesim node start``: the kubelet posts a fresh status; returns the events it records
    (obj, type, reason, message, component, at), as pkg/kubelet/kubelet_node_status.go does on
    start."""
    ann = (node.get("metadata") or {}).get("annotations") or {}
    if not ann.pop(KUBELET_STOPPED_ANNOTATION, None):
        return []
    name = node["metadata"]["name"]
    old = {c.get("type"): c for c in (node.get("status") or {}).get("conditions") or []}
    conds = []
    for type_, status, reason, msg in READY_CONDITIONS:
        prev = old.get(type_) or {}
        ltt = prev.get("lastTransitionTime") if prev.get("status") == status else format_time(now)
        conds.append({"lastHeartbeatTime": format_time(now), "lastTransitionTime": ltt or format_time(now), "message": msg,
                      "reason": reason, "status": status, "type": type_})
    node.setdefault("status", {})["conditions"] = conds
    events = [(node, "Normal", "Starting", "Starting kubelet.", "kubelet", now)]
    for type_, _, reason, _ in READY_CONDITIONS[:3]:
        r = reason.replace("Kubelet", "Node")
        events.append((node, "Normal", r, f"Node {name} status is now: {r}", "kubelet", now))
    events.append((node, "Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods", "kubelet", now))
    events.append((node, "Normal", "NodeReady", f"Node {name} status is now: NodeReady", "kubelet", now))
    return events
