"""StatefulSet controller scenarios, after upstream's stateful_set_control_test.go
(TestStatefulSetControl: CreatesPods, ScalesUp, ScalesDown, ReplacesPods, RecreatesFailedPod,
CreatePodFailure-free paths; TestStatefulSetControlRollingUpdate*, TestStatefulSetControlOnDelete,
TestStatefulSetControlRollingUpdateWithPartition, TestStatefulSetHonorRevisionHistoryLimit,
TestStatefulSetControlLimitsHistory, TestStatefulSetAvailability) and
stateful_set_utils_test.go (TestGetParentNameAndOrdinal, TestIdentityMatches, TestStorageMatches,
TestUpdateClaimOwnerRefForSetAndPod, TestNewPodControllerRef, TestCreateApplyRevision), plus what a
real v1.35 controller-manager recorded for the same objects (names, labels, events, status)."""

import pytest

from kubesim.api.apps.statefulset_util import get_patch, hash_controller_revision
from kubesim.controllers import garbagecollector, statefulset
from kubesim.testing.controllers import Sim, statefulset_obj

CONTROLLERS = (statefulset.sync, garbagecollector.sync)


def sim(**kw) -> Sim:
    return Sim(**kw)


def pod_names(s: Sim) -> list[str]:
    return sorted((p["metadata"]["name"] for p in s.list("Pod")), key=lambda n: int(n.rsplit("-", 1)[1]))


def created(changes, kind="Pod") -> list[str]:
    return [c.obj["metadata"]["name"] for c in changes if c.op == "create" and c.obj["kind"] == kind]


def deleted(changes, kind="Pod") -> list[str]:
    return [c.obj["metadata"]["name"] for c in changes if c.op == "delete" and c.obj["kind"] == kind]


def settle(s: Sim) -> None:
    s.settle(controllers=CONTROLLERS)


# -- identity (stateful_set_utils_test.go) -------------------------------------------------------

@pytest.mark.parametrize("name,parent,ordinal", [
    ("web-0", "web", 0), ("my-web-12", "my-web", 12), ("web", "", -1), ("web-x", "", -1), ("web-", "", -1),
    ("web-99999999999", "web", -1),
], ids=["a plain ordinal", "a parent with a dash", "no ordinal", "a non-numeric suffix", "an empty suffix",
        "an ordinal beyond int32"])
def test_parent_name_and_ordinal(name, parent, ordinal):
    assert statefulset.parent_and_ordinal({"metadata": {"name": name}}) == (parent, ordinal)


def test_a_new_pod_has_its_identity_storage_and_revision():
    s = sim()
    s.add(statefulset_obj())
    changes = s.run(statefulset.sync)
    assert created(changes, "PersistentVolumeClaim") == ["data-web-0"]
    assert created(changes) == ["web-0"]
    assert [c.obj["kind"] for c in changes if c.op == "create"] == ["ControllerRevision", "PersistentVolumeClaim", "Pod"]
    pod = s.get("Pod", "web-0")
    rev = s.list("ControllerRevision")[0]
    assert pod["metadata"]["labels"] == {"app": "web", "statefulset.kubernetes.io/pod-name": "web-0",
                                         "apps.kubernetes.io/pod-index": "0",
                                         "controller-revision-hash": rev["metadata"]["name"]}
    assert pod["metadata"]["generateName"] == "web-"
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("web-0", "web")
    assert pod["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}]
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    claim = s.get("PersistentVolumeClaim", "data-web-0")
    assert claim["metadata"]["labels"] == {"app": "web"} and "ownerReferences" not in claim["metadata"]
    assert s.event_messages() == ["Create Claim data-web-0 Pod web-0 in StatefulSet web success",
                                  "Create Pod web-0 in StatefulSet web successful"]


def test_the_revision_is_named_as_the_real_controller_names_it():
    # the oracle's StatefulSet (nginx:1.25, port 80 "web", a "data" mount) got web-fdf959ccd
    s = sim()
    sts = statefulset_obj(image="nginx:1.25", labels={"app": "nginx"})
    c = sts["spec"]["template"]["spec"]["containers"][0]
    c.update(name="nginx", ports=[{"containerPort": 80, "name": "web"}],
             volumeMounts=[{"name": "data", "mountPath": "/usr/share/nginx/html"}])
    s.add(sts)
    rev = s.run(statefulset.sync)[0].obj
    assert rev["metadata"]["name"] == "web-fdf959ccd"
    assert rev["metadata"]["labels"] == {"app": "nginx", "controller.kubernetes.io/hash": "fdf959ccd"}
    assert rev["revision"] == 1 and rev["data"]["spec"]["template"]["$patch"] == "replace"


def test_the_collision_count_changes_the_hash():
    patch = {"spec": {"template": {"$patch": "replace"}}}
    assert hash_controller_revision(patch, 0) != hash_controller_revision(patch, 1)


# -- OrderedReady and Parallel -------------------------------------------------------------------

def test_ordered_ready_creates_one_pod_at_a_time_waiting_for_readiness():
    s = sim(auto_ready=False)
    s.add(statefulset_obj())
    assert created(s.run(statefulset.sync)) == ["web-0"]
    assert created(s.run(statefulset.sync)) == []          # web-0 is Pending
    s.schedule()
    s.kubelet()
    assert created(s.run(statefulset.sync)) == []          # Running, not Ready
    s.make_ready(s.get("Pod", "web-0"))
    assert created(s.run(statefulset.sync)) == ["web-1"]


def test_parallel_creates_every_pod_in_one_sync():
    s = sim(auto_ready=False)
    s.add(statefulset_obj(podManagementPolicy="Parallel"))
    assert created(s.run(statefulset.sync)) == ["web-0", "web-1", "web-2"]


def test_scale_up_then_down_keeps_the_claims_and_goes_from_the_highest_ordinal():
    s = sim()
    s.add(statefulset_obj())
    settle(s)
    sts = s.get("StatefulSet", "web")
    sts["spec"]["replicas"] = 5
    s.update(sts)
    settle(s)
    assert pod_names(s) == ["web-0", "web-1", "web-2", "web-3", "web-4"]
    sts = s.get("StatefulSet", "web")
    sts["spec"]["replicas"] = 2
    s.update(sts)
    first = s.run(statefulset.sync)
    assert deleted(first) == ["web-4"]                      # one at a time, highest first
    settle(s)
    assert pod_names(s) == ["web-0", "web-1"]
    assert [c["metadata"]["name"] for c in s.list("PersistentVolumeClaim")] == [f"data-web-{i}" for i in range(5)]
    assert s.event_messages("SuccessfulDelete") == [f"Delete Pod web-{i} in StatefulSet web successful"
                                                    for i in (4, 3, 2)]
    st = s.get("StatefulSet", "web")["status"]
    assert {k: st[k] for k in ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                               "availableReplicas", "observedGeneration", "collisionCount")} == \
        {"replicas": 2, "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2,
         "observedGeneration": 3, "collisionCount": 0}
    assert st["currentRevision"] == st["updateRevision"]


def test_parallel_scale_down_deletes_every_condemned_pod_at_once():
    s = sim()
    s.add(statefulset_obj(replicas=4, podManagementPolicy="Parallel"))
    settle(s)
    sts = s.get("StatefulSet", "web")
    sts["spec"]["replicas"] = 1
    s.update(sts)
    assert deleted(s.run(statefulset.sync)) == ["web-3", "web-2", "web-1"]


def test_the_start_ordinal_names_the_pods():
    s = sim()
    s.add(statefulset_obj(replicas=2, ordinals={"start": 3}))
    settle(s)
    assert pod_names(s) == ["web-3", "web-4"]
    assert s.get("Pod", "web-3")["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "3"


def test_a_failed_pod_is_deleted_and_recreated():
    s = sim()
    s.add(statefulset_obj(replicas=2, claims=()))
    settle(s)
    s.objects[("Pod", "default", "web-1")]["status"]["phase"] = "Failed"
    assert deleted(s.run(statefulset.sync)) == ["web-1"]
    settle(s)
    assert pod_names(s) == ["web-0", "web-1"] and s.get("Pod", "web-1")["status"]["phase"] == "Running"


def test_a_pod_that_is_not_a_member_is_not_adopted():
    s = sim()
    s.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "other", "namespace": "default",
                                                            "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    s.add(statefulset_obj(replicas=1, claims=()))
    settle(s)
    assert "ownerReferences" not in s.get("Pod", "other")["metadata"]


# -- updates -------------------------------------------------------------------------------------

def _set_image(s: Sim, image: str, **strategy) -> None:
    sts = s.get("StatefulSet", "web")
    sts["spec"]["template"]["spec"]["containers"][0]["image"] = image
    if strategy:
        sts["spec"]["updateStrategy"] = strategy
    s.update(sts)


def test_a_rolling_update_goes_from_the_highest_ordinal_one_at_a_time():
    s = sim()
    s.add(statefulset_obj())
    settle(s)
    _set_image(s, "nginx:2")
    order = []
    for _ in range(50):
        changes = s.run(statefulset.sync)
        order += deleted(changes)
        assert len(deleted(changes)) <= 1
        s.run(garbagecollector.sync)
        if not (s.schedule() | s.kubelet()) and not changes:
            break
    assert order == ["web-2", "web-1", "web-0"]
    assert {p["spec"]["containers"][0]["image"] for p in s.list("Pod")} == {"nginx:2"}
    st = s.get("StatefulSet", "web")["status"]
    assert st["currentRevision"] == st["updateRevision"] and st["updatedReplicas"] == 3
    assert [r["revision"] for r in s.list("ControllerRevision")] in ([1, 2], [2, 1])


def test_a_partition_keeps_the_lower_ordinals_at_the_current_revision():
    s = sim()
    s.add(statefulset_obj())
    settle(s)
    _set_image(s, "nginx:2", type="RollingUpdate", rollingUpdate={"partition": 2})
    settle(s)
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in s.list("Pod")}
    assert images == {"web-0": "nginx", "web-1": "nginx", "web-2": "nginx:2"}
    st = s.get("StatefulSet", "web")["status"]
    assert (st["currentReplicas"], st["updatedReplicas"]) == (2, 1) and st["currentRevision"] != st["updateRevision"]


def test_on_delete_waits_for_the_user_to_delete_pods():
    s = sim()
    s.add(statefulset_obj(replicas=2))
    settle(s)
    _set_image(s, "nginx:2", type="OnDelete")
    settle(s)
    assert {p["spec"]["containers"][0]["image"] for p in s.list("Pod")} == {"nginx"}
    s.delete("Pod", "web-1")
    settle(s)
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in s.list("Pod")}
    assert images == {"web-0": "nginx", "web-1": "nginx:2"}


def test_rolling_back_bumps_the_old_revision_instead_of_making_a_new_one():
    s = sim()
    s.add(statefulset_obj(replicas=1, claims=()))
    settle(s)
    _set_image(s, "nginx:2")
    settle(s)
    _set_image(s, "nginx")
    settle(s)
    revs = {r["metadata"]["name"]: r["revision"] for r in s.list("ControllerRevision")}
    assert sorted(revs.values()) == [2, 3] and len(revs) == 2
    assert s.get("StatefulSet", "web")["status"]["currentRevision"] == max(revs, key=revs.get)


def test_the_history_limit_deletes_the_oldest_revisions_no_pod_uses():
    s = sim()
    s.add(statefulset_obj(replicas=1, claims=(), revisionHistoryLimit=1))
    settle(s)
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        _set_image(s, image)
        settle(s)
    assert sorted(r["revision"] for r in s.list("ControllerRevision")) == [3, 4]


def test_min_ready_seconds_holds_the_next_pod_and_asks_for_a_wake():
    s = sim()
    s.add(statefulset_obj(replicas=2, claims=(), minReadySeconds=10))
    settle(s)
    assert pod_names(s) == ["web-0"]
    assert s.wakes and max(s.wakes) == s.now + 10
    s.advance(10)
    settle(s)
    assert pod_names(s) == ["web-0", "web-1"]


# -- claim retention (TestUpdateClaimOwnerRefForSetAndPod) --------------------------------------

@pytest.mark.parametrize("when_deleted,when_scaled,scaled_down,owners", [
    ("Retain", "Retain", False, []),
    ("Retain", "Retain", True, []),
    ("Delete", "Retain", False, ["StatefulSet"]),
    ("Delete", "Retain", True, ["StatefulSet"]),
    ("Retain", "Delete", False, []),
    ("Retain", "Delete", True, ["Pod"]),
    ("Delete", "Delete", False, ["StatefulSet"]),
    ("Delete", "Delete", True, ["Pod"]),
], ids=["retain all: no owner", "retain all, scaled down: no owner", "delete with the set: the set",
        "delete with the set, scaled down: still the set", "delete on scale down, in range: no owner",
        "delete on scale down, scaled down: the pod", "delete both, in range: the set",
        "delete both, scaled down: the pod"])
def test_claim_owner_references_follow_the_retention_policy(when_deleted, when_scaled, scaled_down, owners):
    sts = statefulset_obj(replicas=1, persistentVolumeClaimRetentionPolicy={"whenDeleted": when_deleted,
                                                                             "whenScaled": when_scaled})
    sts["metadata"]["uid"] = "set-uid"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1" if scaled_down else "web-0",
                                                           "uid": "pod-uid", "namespace": "default"}}
    claim = {"metadata": {"name": "data-web-0"}}
    statefulset.update_claim_owner_refs(claim, sts, pod)
    assert [r["kind"] for r in claim["metadata"].get("ownerReferences") or ()] == owners
    assert statefulset.claim_owner_up_to_date(claim, sts, pod)


def test_claims_deleted_on_scale_down_go_with_their_pods():
    s = sim()
    s.add(statefulset_obj(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Retain", "whenScaled": "Delete"}))
    settle(s)
    sts = s.get("StatefulSet", "web")
    sts["spec"]["replicas"] = 1
    s.update(sts)
    settle(s)
    assert [c["metadata"]["name"] for c in s.list("PersistentVolumeClaim")] == ["data-web-0"]


def test_claims_deleted_with_the_set_are_owned_by_it():
    s = sim()
    s.add(statefulset_obj(replicas=2, persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete",
                                                                             "whenScaled": "Retain"}))
    settle(s)
    uid = s.get("StatefulSet", "web")["metadata"]["uid"]
    for c in s.list("PersistentVolumeClaim"):
        assert [r["uid"] for r in c["metadata"]["ownerReferences"]] == [uid]
    s.delete("StatefulSet", "web")
    settle(s)
    assert s.list("Pod") == [] and s.list("PersistentVolumeClaim") == []


def test_retained_claims_outlive_the_set():
    s = sim()
    s.add(statefulset_obj(replicas=2))
    settle(s)
    s.delete("StatefulSet", "web")
    settle(s)
    assert s.list("Pod") == [] and len(s.list("PersistentVolumeClaim")) == 2


def test_nothing_changes_once_settled():
    s = sim()
    s.add(statefulset_obj())
    settle(s)
    assert s.run(statefulset.sync) == []


def test_get_patch_drops_what_go_omits():
    sts = {"spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
        {"name": "c", "image": "x", "env": [], "resources": {}}]}}}}
    assert get_patch(sts)["spec"]["template"]["spec"]["containers"][0] == {"name": "c", "image": "x", "resources": {}}


def test_re_owning_claims_does_not_update_the_pods():
    # the oracle: Parallel, whenDeleted/whenScaled Delete, claims never bound -> only the
    # claims get the set's reference; no "Update Pod" event
    s = sim(auto_ready=False)
    s.add(statefulset_obj(replicas=2, podManagementPolicy="Parallel",
                          persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"}))
    for _ in range(3):
        s.run(statefulset.sync)
    assert s.event_messages("SuccessfulUpdate") == []
    uid = s.get("StatefulSet", "web")["metadata"]["uid"]
    assert [[r["uid"] for r in c["metadata"]["ownerReferences"]] for c in s.list("PersistentVolumeClaim")] == [[uid], [uid]]


def test_zero_values_go_would_omit_do_not_change_the_revision_name():
    # the oracle named this template's revision zv-6d6b5f68f4: annotations {}, nodeSelector {},
    # env [], readOnly false and initialDelaySeconds 0 are not in the raw JSON it hashed, the
    # escaped args are
    s = sim()
    sts = statefulset_obj(name="zv", replicas=0, claims=())
    sts["spec"]["template"]["metadata"]["annotations"] = {}
    sts["spec"]["template"]["spec"] = {
        "nodeSelector": {}, "volumes": [{"name": "v", "emptyDir": {}}],
        "containers": [{"name": "c", "image": "nginx", "env": [], "args": ["a&b<c>"],
                        "volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": False}],
                        "readinessProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 0},
                        "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}}}]}
    del sts["spec"]["serviceName"]
    sts["spec"]["serviceName"] = "zv"
    s.add(sts)
    assert s.run(statefulset.sync)[0].obj["metadata"]["name"] == "zv-6d6b5f68f4"


def test_an_orphaned_set_recreated_adopts_its_pods_and_revisions():
    s = sim()
    s.add(statefulset_obj(replicas=2))
    settle(s)
    s.delete("StatefulSet", "web", propagation="Orphan")
    settle(s)
    pods_before = {p["metadata"]["name"]: p["metadata"]["uid"] for p in s.list("Pod")}
    assert s.get("StatefulSet", "web") is None and len(pods_before) == 2
    assert all("ownerReferences" not in r["metadata"] for r in s.list("ControllerRevision"))
    s.add(statefulset_obj(replicas=2))
    settle(s)
    uid = s.get("StatefulSet", "web")["metadata"]["uid"]
    assert {p["metadata"]["name"]: p["metadata"]["uid"] for p in s.list("Pod")} == pods_before
    assert [[o["uid"] for o in r["metadata"]["ownerReferences"]] for r in s.list("ControllerRevision")] == [[uid]]
    assert s.event_messages("SuccessfulDelete") == []
