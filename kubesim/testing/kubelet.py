"""Fluent-ish builders for kubelet tests (and examples): pods and nodes as the store holds them, a recorder
that keeps events with their simulated times, and the pinned clock."""

from __future__ import annotations

import copy

from kubesim.clock import parse_time

T0 = parse_time("2026-11-22T10:00:00Z")


def node(name: str = "node01", cpu: str = "4", memory: str = "8Gi", pods: str = "110", *,
         cidr: str = "10.244.1.0/24", ip: str = "172.30.1.2", taints: list | None = None,
         labels: dict | None = None) -> dict:
    n = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-node-{name}",
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", **(labels or {})}},
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr]},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                   "capacity": {"cpu": cpu, "memory": memory, "pods": pods},
                   "addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}],
                   "conditions": [
                       {"lastHeartbeatTime": "2026-11-22T09:00:00Z", "lastTransitionTime": "2026-11-22T09:00:00Z",
                        "message": m, "reason": r, "status": s, "type": t}
                       for t, s, r, m in (
                           ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                           ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                           ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                           ("Ready", "True", "KubeletReady", "kubelet is posting ready status"))]},
    }
    if taints:
        n["spec"]["taints"] = taints
    return n


def container(name: str, image: str = "busybox", command=None, args=None, **extra) -> dict:
    c = {"name": name, "image": image}
    if command is not None:
        c["command"] = list(command)
    if args is not None:
        c["args"] = list(args)
    c.update(extra)
    return c


def pod(name: str, *containers: dict, init: list | None = None, restart_policy: str = "Always",
        node_name: str = "node01", annotations: dict | None = None, grace: int = 30, **spec_extra) -> dict:
    p = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "generation": 1,
                     "creationTimestamp": "2026-11-22T10:00:00Z"},
        "spec": {"containers": [copy.deepcopy(c) for c in containers], "restartPolicy": restart_policy,
                 "terminationGracePeriodSeconds": grace, "nodeName": node_name, **spec_extra},
        "status": {"phase": "Pending", "qosClass": "BestEffort",
                   "conditions": [{"lastProbeTime": None, "lastTransitionTime": "2026-11-22T10:00:00Z",
                                   "status": "True", "type": "PodScheduled"}]},
    }
    if init:
        p["spec"]["initContainers"] = [copy.deepcopy(c) for c in init]
    if annotations:
        p["metadata"]["annotations"] = dict(annotations)
    return p


class Recorder:
    """Collects events as ``record(obj, type, reason, message, component, host, field_path,
    at=, first=, count=)`` receives them."""

    def __init__(self):
        self.events: list[dict] = []

    def __call__(self, obj, type_, reason, message, component, host="", field_path="", *, at=None, first=None, count=1):
        self.events.append({"type": type_, "reason": reason, "message": message, "component": component,
                            "host": host, "fieldPath": field_path, "first": first, "last": at, "count": count})

    def take(self) -> list[dict]:
        out, self.events = self.events, []
        return out

    def reasons(self) -> list[str]:
        return [e["reason"] for e in self.events]
