"""DaemonSet scenarios: one pod per eligible node via matchFields node affinity, the automatic
tolerations, nodes added later, rolling update, status."""

import pytest

from kubesim.controllers import daemonset
from kubesim.controllers.hashing import compute_hash
from kubesim.testing.controllers import Sim, daemonset_obj, node

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


def cluster():
    return Sim(nodes=[node("controlplane", taints=[CONTROL_PLANE_TAINT]), "node01", "node02"])


def test_one_pod_per_eligible_node_with_the_matchfields_affinity_and_tolerations():
    s = cluster()
    s.add(daemonset_obj("agent"))
    s.settle()
    pods = s.list("Pod")
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node01", "node02"]
    ds = s.get("DaemonSet", "agent")
    h = compute_hash(ds["spec"]["template"])
    for p in pods:
        assert p["metadata"]["name"].startswith("agent-") and len(p["metadata"]["name"]) == len("agent-") + 5
        node_name = p["spec"]["nodeName"]
        assert p["spec"]["affinity"] == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}
        assert p["spec"]["tolerations"] == [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
            {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
        ]
        assert p["metadata"]["labels"] == {"app": "agent", "controller-revision-hash": h, "pod-template-generation": "1"}
    st = ds["status"]
    assert st == {"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2, "numberReady": 2,
                  "observedGeneration": 1, "updatedNumberScheduled": 2, "numberAvailable": 2}
    crs = s.list("ControllerRevision")
    assert [c["metadata"]["name"] for c in crs] == [f"agent-{h}"] and crs[0]["revision"] == 1


def test_pods_are_created_unscheduled_for_the_scheduler_to_place():
    s = cluster()
    s.add(daemonset_obj("agent"))
    changes = s.run(daemonset.sync)
    created = [c.obj for c in changes if c.op == "create" and c.obj["kind"] == "Pod"]
    assert len(created) == 2 and all("nodeName" not in p["spec"] for p in created)


def test_a_toleration_for_the_control_plane_taint_puts_a_pod_there_too():
    s = cluster()
    ds = daemonset_obj("agent")
    ds["spec"]["template"]["spec"]["tolerations"] = [{"key": "node-role.kubernetes.io/control-plane",
                                                      "operator": "Exists", "effect": "NoSchedule"}]
    s.add(ds)
    s.settle()
    assert sorted(p["spec"]["nodeName"] for p in s.list("Pod")) == ["controlplane", "node01", "node02"]


def test_host_network_pods_tolerate_network_unavailable():
    spec = {"hostNetwork": True, "tolerations": []}
    daemonset.add_daemon_tolerations(spec)
    assert spec["tolerations"][-1] == {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                                       "effect": "NoSchedule"}


def test_a_node_added_later_gets_its_pod_and_a_node_selector_is_honoured():
    s = cluster()
    ds = daemonset_obj("agent")
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "ssd"}
    s.add(ds)
    s.settle()
    assert s.list("Pod") == []
    s.add(node("node03", labels={"disk": "ssd"}))
    s.settle()
    assert [p["spec"]["nodeName"] for p in s.list("Pod")] == ["node03"]


def test_a_node_that_no_longer_fits_loses_its_pod():
    s = cluster()
    s.add(daemonset_obj("agent"))
    s.settle()
    n = s.get("Node", "node02")
    n["spec"]["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoExecute"}]
    s._put(n)
    s.settle()
    assert [p["spec"]["nodeName"] for p in s.list("Pod")] == ["node01"]


def test_a_cordoned_node_keeps_its_daemon_pod():
    s = cluster()
    s.add(daemonset_obj("agent"))
    s.settle()
    n = s.get("Node", "node02")
    n["spec"]["unschedulable"] = True
    n["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    s._put(n)
    s.settle()
    assert sorted(p["spec"]["nodeName"] for p in s.list("Pod")) == ["node01", "node02"]


def test_rolling_update_replaces_one_pod_at_a_time():
    s = cluster()
    s.add(daemonset_obj("agent"))
    s.settle()
    s.auto_ready = False
    ds = s.get("DaemonSet", "agent")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:2"
    s.update(ds)
    assert s.get("DaemonSet", "agent")["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    changes = s.run(daemonset.sync)
    assert len([c for c in changes if c.op == "delete" and c.obj["kind"] == "Pod"]) == 1  # maxUnavailable 1
    for _ in range(20):
        s.settle()
        waiting = [p for p in s.list("Pod") if not p["status"].get("conditions")]
        if not waiting:
            break
        for p in waiting:
            s.make_ready(p)
    s.settle()
    pods = s.list("Pod")
    h2 = compute_hash(s.get("DaemonSet", "agent")["spec"]["template"])
    assert len(pods) == 2 and all(p["metadata"]["labels"]["controller-revision-hash"] == h2 for p in pods)
    assert sorted(c["revision"] for c in s.list("ControllerRevision")) == [1, 2]


@pytest.mark.parametrize("taints,should_run,should_continue", [
    ([], True, True),
    ([{"key": "x", "effect": "NoSchedule"}], False, True),
    ([{"key": "x", "effect": "NoExecute"}], False, False),
    ([{"key": "x", "effect": "PreferNoSchedule"}], True, True),
    ([{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}], True, True),
], ids=["an untainted node runs the pod", "a NoSchedule taint: no new pod, a running one stays",
        "a NoExecute taint: no pod at all", "PreferNoSchedule is ignored",
        "not-ready NoExecute is tolerated automatically"])
def test_node_should_run_daemon_pod(taints, should_run, should_continue):
    assert daemonset.node_should_run_daemon_pod(node("n", taints=taints), daemonset_obj()) == (should_run, should_continue)
