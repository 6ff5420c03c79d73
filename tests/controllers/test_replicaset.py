"""The ReplicaSet controller: pod ranking for deletion (controller_utils_test.go
TestSortingActivePodsWithRanks), pod creation and deletion, status, adoption."""

import pytest

from kubesim.clock import parse_time
from kubesim.controllers import replicaset
from kubesim.controllers.base import rank_pods_for_deletion
from kubesim.testing.controllers import Sim

NOW = parse_time("2026-11-22T12:00:00Z")


def pod(name, node="", phase="Running", ready=True, ready_at="2026-11-22T10:00:00Z",
        created="2026-11-22T09:00:00Z", restarts=0, cost=None, uid=None):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": "default", "uid": uid or name, "creationTimestamp": created},
         "spec": {"nodeName": node} if node else {}, "status": {"phase": phase}}
    if ready:
        p["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": ready_at}]
    if restarts:
        p["status"]["containerStatuses"] = [{"name": "c", "restartCount": restarts}]
    if cost is not None:
        p["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
    return p


@pytest.mark.parametrize("first,second", [
    (pod("unscheduled", "", "Pending", False), pod("scheduled", "n1", "Pending", False)),
    (pod("pending", "n1", "Pending", False), pod("unknown", "n1", "Unknown", False)),
    (pod("unknown", "n1", "Unknown", False), pod("running", "n1", "Running", False)),
    (pod("not-ready", "n1", ready=False), pod("ready", "n1")),
    (pod("cheap", "n1", cost=-10), pod("dear", "n1", cost=10)),
    (pod("ready-recently", "n1", ready_at="2026-11-22T11:59:00Z"), pod("ready-long", "n1", ready_at="2026-11-21T00:00:00Z")),
    (pod("restarted", "n1", restarts=5), pod("steady", "n1")),
    (pod("newer", "n1", ready=False, created="2026-11-22T11:59:00Z"), pod("older", "n1", ready=False, created="2026-11-20T00:00:00Z")),
], ids=["unscheduled before scheduled", "pending before unknown", "unknown before running",
        "not ready before ready", "lower pod-deletion-cost first", "ready for less time first (log scale)",
        "more container restarts first", "newer before older (log scale)"])
def test_pods_are_ranked_for_deletion_as_upstream_ranks_them(first, second):
    assert [p["metadata"]["name"] for p in rank_pods_for_deletion([second, first], [], NOW)] == \
        [first["metadata"]["name"], second["metadata"]["name"]]


def test_pods_doubled_up_on_a_node_go_first():
    a, b, c = pod("a", "n1"), pod("b", "n1"), pod("c", "n2")
    # rank = active related pods on the same node: a and b have 2, c has 1
    assert [p["metadata"]["name"] for p in rank_pods_for_deletion([c, a, b], [a, b, c], NOW)][2] == "c"


def rs_obj(replicas=3, labels=None):
    labels = labels or {"app": "web"}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-abc", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def test_a_replicaset_creates_its_pods_with_generated_names_and_events():
    s = Sim()
    s.add(rs_obj(3))
    s.settle()
    pods = s.list("Pod")
    assert len(pods) == 3
    for p in pods:
        assert p["metadata"]["name"].startswith("web-abc-") and len(p["metadata"]["name"]) == len("web-abc-") + 5
        assert p["metadata"]["generateName"] == "web-abc-"
        ref = p["metadata"]["ownerReferences"][0]
        assert ref["kind"] == "ReplicaSet" and ref["controller"] is True and ref["blockOwnerDeletion"] is True
    assert sorted(s.event_messages("SuccessfulCreate")) == sorted(f"Created pod: {p['metadata']['name']}" for p in pods)
    st = s.get("ReplicaSet", "web-abc")["status"]
    assert st == {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                  "terminatingReplicas": 0, "observedGeneration": 1}


def test_scaling_down_deletes_the_not_ready_pod_first():
    s = Sim(auto_ready=False)
    s.add(rs_obj(4))
    s.settle()
    pods = s.list("Pod")
    for p in pods[:3]:
        s.make_ready(p)
    unready = pods[3]["metadata"]["name"]
    r = s.get("ReplicaSet", "web-abc")
    r["spec"]["replicas"] = 3
    s.update(r)
    changes = s.run(replicaset.sync)
    deleted = [c.obj["metadata"]["name"] for c in changes if c.op == "delete"]
    assert deleted == [unready]
    assert s.event_messages("SuccessfulDelete") == [f"Deleted pod: {unready}"]


def test_orphan_pods_matching_the_selector_are_adopted_and_count():
    s = Sim()
    orphan = pod("stray", "node01")
    orphan["metadata"]["labels"] = {"app": "web"}
    orphan["metadata"].pop("uid")
    s._create(orphan)
    s.add(rs_obj(2))
    s.settle()
    assert len(s.list("Pod")) == 2
    assert s.get("Pod", "stray")["metadata"]["ownerReferences"][0]["name"] == "web-abc"


def test_pods_whose_labels_stop_matching_are_released():
    s = Sim()
    s.add(rs_obj(1))
    s.settle()
    p = s.list("Pod")[0]
    p["metadata"]["labels"] = {"app": "other"}
    s._put(p)
    s.settle()
    assert "ownerReferences" not in s.get("Pod", p["metadata"]["name"])["metadata"]
    assert len(s.list("Pod")) == 2


def test_minready_seconds_delays_availability_and_asks_to_be_woken():
    s = Sim()
    r = rs_obj(1)
    r["spec"]["minReadySeconds"] = 10
    s.add(r)
    s.settle()
    assert "availableReplicas" not in s.get("ReplicaSet", "web-abc")["status"]
    assert s.wakes and min(s.wakes) == s.now + 10
    s.advance(10)
    s.settle()
    assert s.get("ReplicaSet", "web-abc")["status"]["availableReplicas"] == 1
