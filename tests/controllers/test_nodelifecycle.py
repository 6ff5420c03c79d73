"""A node whose kubelet stops: the node lifecycle controller (kubesim.controllers.nodelifecycle),
reading the Ready heartbeat and the node's Lease, and the kubelet's stop/start
(kubesim.kubelet.node). The evictions that follow are the taint eviction controller's
(tests/controllers/test_tainteviction.py, tests/cli/test_taint_eviction.py)."""

from __future__ import annotations

import pytest

from kubesim.clock import format_micro_time, format_time
from kubesim.controllers import nodelifecycle as NL
from kubesim.kubelet import node as kubelet_node
from kubesim.testing.kubelet import T0, container, node, pod

DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]


def running_pod(name, tolerations=DEFAULT_TOLERATIONS):
    p = pod(name, container("c", "nginx"), tolerations=list(tolerations))
    p["status"]["phase"] = "Running"
    p["status"]["conditions"].append({"type": "Ready", "status": "True", "lastProbeTime": None,
                                      "lastTransitionTime": "2026-11-22T10:00:00Z"})
    return p


def lease(renewed: float | None) -> dict | None:
    """A node's Lease renewed last at ``renewed`` (None: no Lease)."""
    if renewed is None:
        return None
    return {"metadata": {"name": "node01", "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": "node01", "leaseDurationSeconds": 40, "renewTime": format_micro_time(renewed)}}


def stopped_node(renewed: float = T0):
    """node01 whose kubelet stopped at T0, its Lease last renewed at ``renewed``."""
    n = node()
    kubelet_node.stop_kubelet(n, T0)
    return n, {"node01": lease(renewed)}


def no_status(n):
    n["metadata"]["creationTimestamp"] = format_time(T0 - 3600)
    del n["status"]["conditions"]
    return n


CREATED = "2026-11-22T09:00:00Z"
NEVER = [(t, "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.", CREATED)
         for t in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")]
STOPPED = [(t, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", "2026-11-22T09:00:00Z")
           for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")]

# After upstream's TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease: the node was last heard
# from at its Ready heartbeat (node(): 09:00) or its Lease's renewTime, whichever is later; a
# node that never posted status counts from its creation (here 09:00) with the 60 s startup grace
# period. kubesim stamps the change at the moment the grace period ran out.
HEALTH = [
    ("created recently, without status, no Lease: within the startup grace period",
     lambda: no_status(node()), None, T0 - 3600 + 59, None, None),
    ("created recently, without status, Lease renewed recently",
     lambda: no_status(node()), T0 - 3600 + 30, T0 - 3600 + 59, None, None),
    ("created long ago, without status, no Lease: every condition Unknown, never updated",
     lambda: no_status(node()), None, T0, NEVER, "2026-11-22T09:01:00Z"),
    ("created long ago, without status, Lease renewed recently: healthy",
     lambda: no_status(node()), T0 - 5, T0, None, None),
    ("created long ago, without status, Lease expired",
     lambda: no_status(node()), T0 - 3000, T0, NEVER, "2026-11-22T09:11:00Z"),
    ("status older than the grace period, Lease renewed: healthy", node, T0 - 10, T0, None, None),
    ("status posted recently, Lease expired: healthy", node, T0 - 3600, T0 - 3600 + 49, None, None),
    ("status and Lease both older than the grace period", node, T0 - 3550, T0, STOPPED, "2026-11-22T09:01:40Z"),
]


@pytest.mark.parametrize("make,renewed,now,conditions,transition", [c[1:] for c in HEALTH], ids=[c[0] for c in HEALTH])
def test_node_health_from_the_ready_heartbeat_and_the_lease(make, renewed, now, conditions, transition):
    n = make()
    before = [dict(c) for c in n["status"].get("conditions") or []]
    plan = NL.node_lifecycle([n], [], now, leases={"node01": lease(renewed)})
    if conditions is None:
        assert (n["status"].get("conditions") or []) == before and plan.nodes == []
        return
    assert [(c["type"], c["status"], c["reason"], c["message"], c["lastHeartbeatTime"])
            for c in n["status"]["conditions"]] == conditions
    assert {c["lastTransitionTime"] for c in n["status"]["conditions"]} == {transition}
    assert plan.nodes == [n]


def test_a_stopped_kubelets_node_goes_unknown_when_its_last_renewal_is_older_than_the_grace_period():
    n, leases = stopped_node(renewed=T0 - 3)  # stopped 3 s after its last renewal
    assert NL.node_lifecycle([n], [], T0 + 46, leases=leases).next_wake == T0 + 47
    assert all(c["status"] != "Unknown" for c in n["status"]["conditions"])
    plan = NL.node_lifecycle([n], [], T0 + 47, leases=leases)
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in n["status"]["conditions"]] == [
        (t, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
        for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")]
    ready = n["status"]["conditions"][-1]
    assert (ready["lastHeartbeatTime"], ready["lastTransitionTime"]) == ("2026-11-22T09:00:00Z", "2026-11-22T10:00:47Z")
    assert n["spec"]["taints"] == [
        {"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable", "timeAdded": "2026-11-22T10:00:47Z"},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "timeAdded": "2026-11-22T10:00:47Z"}]
    assert [e[2:5] for e in plan.events] == [("NodeNotReady", "Node node01 status is now: NodeNotReady", "node-controller")]


def test_a_running_kubelets_node_asks_for_no_wake():
    """Its Lease is renewed every 10 s, long before the grace period could run out."""
    assert NL.node_lifecycle([node()], [], T0, leases={"node01": lease(T0 - 5)}).next_wake is None


def test_a_node_not_ready_before_goes_unknown_without_the_event_or_marking_pods():
    n, leases = stopped_node()
    n["status"]["conditions"][-1].update(status="False", reason="KubeletNotReady")
    p = running_pod("web")
    plan = NL.node_lifecycle([n], [p], T0 + 50, leases=leases)
    assert n["status"]["conditions"][-1]["status"] == "Unknown" and plan.nodes == [n]
    assert plan.events == [] and plan.pods == []


def test_pods_on_the_node_are_marked_not_ready():
    n, leases = stopped_node()
    p = running_pod("web")
    plan = NL.node_lifecycle([n], [p], T0 + 60, leases=leases)
    ready = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["lastTransitionTime"]) == ("False", "2026-11-22T10:00:50Z")
    assert plan.pods == [p]
    assert (p, "Warning", "NodeNotReady", "Node is not ready", "node-controller", T0 + 50) in plan.events


def test_the_kubelet_coming_back_lifts_the_taints():
    n, leases = stopped_node()
    NL.node_lifecycle([n], [], T0 + 60, leases=leases)
    events = kubelet_node.start_kubelet(n, T0 + 100)
    assert [e[2] for e in events] == ["Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID",
                                      "NodeAllocatableEnforced", "NodeReady"]
    plan = NL.node_lifecycle([n], [], T0 + 101, leases={"node01": lease(T0 + 100)})
    assert n["spec"].get("taints") is None and plan.nodes == [n]
    ready = n["status"]["conditions"][-1]
    assert (ready["status"], ready["reason"], ready["lastTransitionTime"]) == ("True", "KubeletReady", "2026-11-22T10:01:40Z")


def test_a_ready_node_is_left_alone():
    n = node()
    plan = NL.node_lifecycle([n], [running_pod("web")], T0, leases={"node01": lease(T0 - 1)})
    assert (plan.nodes, plan.pods, plan.events, plan.next_wake) == ([], [], [], None)
