"""Deployment scenarios: creation, rolling update, Recreate, rollback, restart, pause, status."""

import pytest

from kubesim.api.apps import deployment_util as adu
from kubesim.clock import format_time
from kubesim.controllers import deployment
from kubesim.controllers.hashing import compute_hash
from kubesim.testing.controllers import CONTROLLERS, Sim, deployment_obj


def rss(s):
    return {r["metadata"]["name"]: r for r in s.list("ReplicaSet")}


def test_a_three_replica_deployment_converges_to_one_replicaset_and_three_pods():
    s = Sim()
    s.add(deployment_obj("web", 3))
    s.settle()
    d = s.get("Deployment", "web")
    h = compute_hash(d["spec"]["template"])
    assert list(rss(s)) == [f"web-{h}"]
    rs = rss(s)[f"web-{h}"]
    assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": h}
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": h}
    assert rs["metadata"]["annotations"] == {adu.DESIRED_REPLICAS: "3", adu.MAX_REPLICAS: "4", adu.REVISION: "1"}
    assert rs["metadata"]["ownerReferences"][0]["kind"] == "Deployment"
    pods = s.list("Pod")
    assert len(pods) == 3 and all(p["metadata"]["name"].startswith(f"web-{h}-") for p in pods)
    assert d["metadata"]["annotations"][adu.REVISION] == "1"
    st = d["status"]
    assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"]) == (3, 3, 3, 3)
    assert "unavailableReplicas" not in st and st["observedGeneration"] == 1
    conds = {c["type"]: c for c in st["conditions"]}
    assert [c["type"] for c in st["conditions"]] == ["Available", "Progressing"]
    assert (conds["Available"]["reason"], conds["Available"]["message"]) == (
        "MinimumReplicasAvailable", "Deployment has minimum availability.")
    assert (conds["Progressing"]["reason"], conds["Progressing"]["message"]) == (
        "NewReplicaSetAvailable", f'ReplicaSet "web-{h}" has successfully progressed.')
    assert s.event_messages("ScalingReplicaSet") == [f"Scaled up replica set web-{h} from 0 to 3"]


def _invariants(s, replicas, surge, unavailable):
    pods = [p for p in s.list("Pod") if not p["metadata"].get("deletionTimestamp")]
    ready = [p for p in pods if any(c["type"] == "Ready" for c in p["status"].get("conditions") or ())]
    total = sum(r["spec"]["replicas"] for r in s.list("ReplicaSet"))
    assert total <= replicas + surge, f"{total} pods wanted, more than {replicas}+{surge}"
    assert len(pods) <= replicas + surge
    assert len(ready) >= replicas - unavailable, f"only {len(ready)} ready"


@pytest.mark.parametrize("replicas,max_surge,max_unavailable,surge,unavailable", [
    (4, "25%", "25%", 1, 1),
    (3, 1, 0, 1, 0),
    (5, 0, 2, 0, 2),
    (10, "50%", "10%", 5, 1),
], ids=["the defaults on four replicas: one extra pod, one unavailable",
        "maxUnavailable 0: a new pod must be ready before an old one goes",
        "maxSurge 0: old pods go first, two at a time",
        "a wide surge with a narrow unavailability budget"])
def test_a_template_change_rolls_through_two_replicasets_within_the_budget(replicas, max_surge, max_unavailable,
                                                                          surge, unavailable):
    s = Sim(nodes=("node01", "node02", "node03"))
    s.add(deployment_obj("web", replicas, strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": max_surge, "maxUnavailable": max_unavailable}}))
    s.settle()
    old_name = list(rss(s))[0]
    s.auto_ready = False
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    s.update(d)
    for _ in range(100):
        s.settle()
        _invariants(s, replicas, surge, unavailable)
        waiting = [p for p in s.list("Pod") if p["spec"].get("nodeName")
                   and not any(c["type"] == "Ready" for c in p["status"].get("conditions") or ())]
        if not waiting:
            break
        s.make_ready(waiting[0])  # the kubelet reports one pod ready at a time
    s.settle()
    new_name = [n for n in rss(s) if n != old_name][0]
    assert rss(s)[new_name]["spec"]["replicas"] == replicas and rss(s)[old_name]["spec"]["replicas"] == 0
    assert rss(s)[new_name]["metadata"]["annotations"][adu.REVISION] == "2"
    assert len(s.list("Pod")) == replicas and all(p["metadata"]["name"].startswith(new_name) for p in s.list("Pod"))
    d = s.get("Deployment", "web")
    assert d["metadata"]["annotations"][adu.REVISION] == "2"
    assert d["status"]["conditions"][-1]["reason"] == "NewReplicaSetAvailable"
    msgs = s.event_messages("ScalingReplicaSet")
    assert any(m.startswith(f"Scaled down replica set {old_name} from ") for m in msgs)
    assert any(m.startswith(f"Scaled up replica set {new_name} from ") for m in msgs)


def test_the_first_rolling_step_on_four_replicas_adds_one_pod_and_removes_one():
    s = Sim()
    s.add(deployment_obj("web", 4))
    s.settle()
    old = list(rss(s))[0]
    s.auto_ready = False
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    s.update(d)
    s.settle()
    # surge 1: the new RS is created with 1 (4+1 = 5 pods); unavailable 1: the old one goes
    # 4 -> 3 (3 available of 4 still); then 3+1 < 5 lets the new one grow to 2, and no pod is ready
    new = [n for n in rss(s) if n != old][0]
    assert (rss(s)[old]["spec"]["replicas"], rss(s)[new]["spec"]["replicas"]) == (3, 2)
    assert s.event_messages("ScalingReplicaSet")[1:] == [f"Scaled up replica set {new} from 0 to 1",
                                                         f"Scaled down replica set {old} from 4 to 3",
                                                         f"Scaled up replica set {new} from 1 to 2"]


def test_recreate_scales_the_old_replicaset_to_zero_before_creating_the_new_one():
    s = Sim()
    s.add(deployment_obj("web", 2, strategy={"type": "Recreate"}))
    s.settle()
    old = list(rss(s))[0]
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    s.update(d)
    seen_overlap = False
    for _ in range(50):
        changed = False
        for fn in CONTROLLERS:
            changed |= s.apply(fn(s.view()))
            names = {p["metadata"]["name"].rsplit("-", 1)[0] for p in s.list("Pod")}
            seen_overlap |= len(names) > 1
        changed |= s.schedule() | s.kubelet()
        if not changed:
            break
    assert not seen_overlap
    new = [n for n in rss(s) if n != old][0]
    assert s.event_messages("ScalingReplicaSet")[1:] == [f"Scaled down replica set {old} from 2 to 0",
                                                         f"Scaled up replica set {new} from 0 to 2"]


def test_rollback_restores_the_previous_template_as_a_new_revision():
    s = Sim()
    s.add(deployment_obj("web", 2))
    s.settle()
    d = s.get("Deployment", "web")
    d["metadata"]["annotations"]["kubernetes.io/change-cause"] = "image nginx:2"
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    s.update(d)
    s.settle()
    first = [r for r in s.list("ReplicaSet") if r["metadata"]["annotations"][adu.REVISION] == "1"][0]
    hist = adu.history(s.get("Deployment", "web"), s.list("ReplicaSet"))
    assert [(rev, cause) for rev, cause, _ in hist] == [(1, "<none>"), (2, "image nginx:2")]
    new, word = adu.rollback(s.get("Deployment", "web"), s.list("ReplicaSet"))
    assert word == "rolled back"
    assert new["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert "pod-template-hash" not in new["spec"]["template"]["metadata"]["labels"]
    assert "kubernetes.io/change-cause" not in new["metadata"]["annotations"]
    s.update(new)
    s.settle()
    rs = s.get("ReplicaSet", first["metadata"]["name"])
    assert rs["spec"]["replicas"] == 2
    assert rs["metadata"]["annotations"][adu.REVISION] == "3"
    assert rs["metadata"]["annotations"][adu.REVISION_HISTORY] == "1"
    assert s.get("Deployment", "web")["metadata"]["annotations"][adu.REVISION] == "3"
    assert len(s.list("ReplicaSet")) == 2


@pytest.mark.parametrize("to_revision,message", [
    (7, "unable to find specified revision 7 in history"),
    (-1, "unable to find specified revision -1 in history"),
], ids=["an unknown revision is kubectl's error", "a negative revision too"])
def test_rollback_errors(to_revision, message):
    s = Sim()
    s.add(deployment_obj("web", 1))
    s.settle()
    with pytest.raises(adu.RolloutError, match=message):
        adu.rollback(s.get("Deployment", "web"), s.list("ReplicaSet"), to_revision)


def test_rollback_without_history_and_to_the_current_revision():
    s = Sim()
    s.add(deployment_obj("web", 1))
    s.settle()
    with pytest.raises(adu.RolloutError, match='no rollout history found for deployment "web"'):
        adu.rollback(s.get("Deployment", "web"), s.list("ReplicaSet"))
    assert adu.rollback(s.get("Deployment", "web"), s.list("ReplicaSet"), 1) == (
        None, "skipped rollback (current template already matches revision 1)")


def test_restart_rolls_out_new_pods():
    s = Sim()
    s.add(deployment_obj("web", 2))
    s.settle()
    before = {p["metadata"]["name"] for p in s.list("Pod")}
    s.update(adu.restart(s.get("Deployment", "web"), format_time(s.now)))
    s.settle()
    after = {p["metadata"]["name"] for p in s.list("Pod")}
    assert len(after) == 2 and not (before & after)
    assert s.get("Deployment", "web")["spec"]["template"]["metadata"]["annotations"][adu.RESTARTED_AT] == \
        "2026-11-22T10:00:00Z"


def test_a_paused_deployment_does_not_roll_out_but_still_scales():
    s = Sim()
    s.add(deployment_obj("web", 2))
    s.settle()
    d = s.get("Deployment", "web")
    d["spec"]["paused"] = True
    s.update(d)
    s.settle()
    prog = [c for c in s.get("Deployment", "web")["status"]["conditions"] if c["type"] == "Progressing"][0]
    assert (prog["status"], prog["reason"], prog["message"]) == ("Unknown", "DeploymentPaused", "Deployment is paused")
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    d["spec"]["replicas"] = 4
    s.update(d)
    s.settle()
    assert len(s.list("ReplicaSet")) == 1 and list(rss(s).values())[0]["spec"]["replicas"] == 4
    d = s.get("Deployment", "web")
    d["spec"]["paused"] = False
    s.update(d)
    s.settle()
    assert len(s.list("ReplicaSet")) == 2
    assert any(c["reason"] == "NewReplicaSetAvailable" for c in s.get("Deployment", "web")["status"]["conditions"])


def test_scaling_during_a_rollout_is_proportional():
    s = Sim()
    s.add(deployment_obj("web", 10, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}))
    s.settle()
    old = list(rss(s))[0]
    s.auto_ready = False
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    s.update(d)
    s.settle()
    new = [n for n in rss(s) if n != old][0]
    assert (rss(s)[old]["spec"]["replicas"], rss(s)[new]["spec"]["replicas"]) == (8, 5)
    d = s.get("Deployment", "web")
    d["spec"]["replicas"] = 20
    s.update(d)
    s.run(deployment.sync)
    # allowed 20+3 = 23, 13 now: 10 to add; old 8*23/13 = 14.15 -> +6, new 5*23/13 = 8.8 -> +4
    assert (rss(s)[old]["spec"]["replicas"], rss(s)[new]["spec"]["replicas"]) == (14, 9)


def test_progress_deadline_exceeded_when_new_pods_never_become_ready():
    s = Sim()
    s.add(deployment_obj("web", 1, progressDeadlineSeconds=60))
    s.settle()
    s.auto_ready = False
    d = s.get("Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:broken"
    s.update(d)
    s.settle()
    assert s.wakes
    s.advance(61)
    s.settle()
    prog = [c for c in s.get("Deployment", "web")["status"]["conditions"] if c["type"] == "Progressing"][0]
    new = [r for r in s.list("ReplicaSet") if r["metadata"]["annotations"][adu.REVISION] == "2"][0]
    assert (prog["status"], prog["reason"], prog["message"]) == (
        "False", "ProgressDeadlineExceeded", f'ReplicaSet "{new["metadata"]["name"]}" has timed out progressing.')


def test_old_replicasets_beyond_the_history_limit_are_deleted():
    s = Sim()
    s.add(deployment_obj("web", 1, revisionHistoryLimit=1))
    s.settle()
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        d = s.get("Deployment", "web")
        d["spec"]["template"]["spec"]["containers"][0]["image"] = image
        s.update(d)
        s.settle()
    revs = sorted(int(r["metadata"]["annotations"][adu.REVISION]) for r in s.list("ReplicaSet"))
    assert revs == [3, 4]


def test_a_deployment_selecting_everything_gets_a_warning():
    d = deployment_obj("web", 1)
    d["metadata"].update(uid="u1", generation=1)
    d["spec"]["selector"] = {}
    from kubesim.controllers.base import View
    changes = deployment.sync(View({"Deployment": [d]}))
    assert changes[0].events[0].message == "This deployment is selecting all pods. A non-empty selector is required."
