"""A node whose kubelet stops: the node lifecycle controller (kubesim.controllers.nodelifecycle)
and the kubelet's stop/start (kubesim.kubelet.node). The evictions that follow are the taint
eviction controller's (tests/controllers/test_tainteviction.py, tests/cli/test_taint_eviction.py)."""

from __future__ import annotations

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


def test_the_node_goes_unknown_after_the_monitor_grace_period():
    n = node()
    kubelet_node.stop_kubelet(n, T0)
    assert NL.node_lifecycle([n], [], T0 + 49).next_wake == T0 + 50
    assert all(c["status"] != "Unknown" for c in n["status"]["conditions"])
    plan = NL.node_lifecycle([n], [], T0 + 50)
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in n["status"]["conditions"]] == [
        (t, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
        for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")]
    ready = n["status"]["conditions"][-1]
    assert (ready["lastHeartbeatTime"], ready["lastTransitionTime"]) == ("2026-11-22T10:00:00Z", "2026-11-22T10:00:50Z")
    assert n["spec"]["taints"] == [
        {"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable", "timeAdded": "2026-11-22T10:00:50Z"},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "timeAdded": "2026-11-22T10:00:50Z"}]
    assert [e[2:5] for e in plan.events] == [("NodeNotReady", "Node node01 status is now: NodeNotReady", "node-controller")]


def test_pods_on_the_node_are_marked_not_ready():
    n = node()
    p = running_pod("web")
    kubelet_node.stop_kubelet(n, T0)
    plan = NL.node_lifecycle([n], [p], T0 + 60)
    ready = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["lastTransitionTime"]) == ("False", "2026-11-22T10:00:50Z")
    assert plan.pods == [p]
    assert (p, "Warning", "NodeNotReady", "Node is not ready", "node-controller", T0 + 50) in plan.events


def test_the_kubelet_coming_back_lifts_the_taints():
    n = node()
    kubelet_node.stop_kubelet(n, T0)
    NL.node_lifecycle([n], [], T0 + 60)
    events = kubelet_node.start_kubelet(n, T0 + 100)
    assert [e[2] for e in events] == ["Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID",
                                      "NodeAllocatableEnforced", "NodeReady"]
    plan = NL.node_lifecycle([n], [], T0 + 101)
    assert n["spec"].get("taints") is None and plan.nodes == [n]
    ready = n["status"]["conditions"][-1]
    assert (ready["status"], ready["reason"], ready["lastTransitionTime"]) == ("True", "KubeletReady", "2026-11-22T10:01:40Z")


def test_a_ready_node_is_left_alone():
    n = node()
    plan = NL.node_lifecycle([n], [running_pod("web")], T0)
    assert (plan.nodes, plan.pods, plan.events, plan.next_wake) == ([], [], [], None)
