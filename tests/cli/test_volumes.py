"""Volumes end to end through the CLI: the local-PV drill (WaitForFirstConsumer + local PVs on
node02), the Pending message when nothing matches, dynamic provisioning, reclaim policies on
claim deletion, pvc-protection, the kubelet's wait for bound claims, CSINode limits."""

import json
from pathlib import Path

import pytest

DRILL = Path(__file__).resolve().parents[2] / "manifests" / "drills" / "volumes-local-pv"


def apply(h, tmp_path, text, name="v.yaml"):
    f = tmp_path / name
    f.write_text(text)
    return h.ok(f"apply -f {f}")


def claim(name, cls, size="1Gi", modes="[ReadWriteOnce]"):
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {name}\nspec:\n"
            f"  accessModes: {modes}\n  storageClassName: {cls}\n  resources:\n    requests:\n"
            f"      storage: {size}\n---\n")


def pod(name, *claims, node=""):
    vols = "".join(f"  - name: v{i}\n    persistentVolumeClaim:\n      claimName: {c}\n" for i, c in enumerate(claims))
    mounts = "".join(f"    - name: v{i}\n      mountPath: /v{i}\n" for i in range(len(claims)))
    pinned = f"  nodeName: {node}\n" if node else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{pinned}  containers:\n  - name: c\n"
            f"    image: nginx\n" + (f"    volumeMounts:\n{mounts}" if claims else "") + f"  volumes:\n{vols}---\n")


def sc(name, provisioner, mode="WaitForFirstConsumer", reclaim="Delete"):
    return (f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: {name}\n"
            f"provisioner: {provisioner}\nvolumeBindingMode: {mode}\nreclaimPolicy: {reclaim}\n---\n")


def get(h, what):
    return json.loads(h.ok(f"get {what} -o json"))


def test_the_local_pv_drill_lands_on_node02_and_binds_the_smallest_volume(kubesim):
    kubesim.ok(f"apply -f {DRILL}")
    kubesim.ok("advance 5s")  # the image pull
    p = get(kubesim, "pod app")
    assert p["spec"]["nodeName"] == "node02" and p["status"]["phase"] == "Running"
    assert kubesim.ok("get pvc data").splitlines() == [
        "NAME   STATUS   VOLUME       CAPACITY   ACCESS MODES   STORAGECLASS    VOLUMEATTRIBUTESCLASS   AGE",
        "data   Bound    local-pv-1   5Gi        RWO            local-storage   <unset>                 5s"]
    out = kubesim.ok("get pv").splitlines()
    assert out[1].split()[:6] == ["local-pv-1", "5Gi", "RWO", "Retain", "Bound", "default/data"]
    assert out[2].split()[:5] == ["local-pv-2", "10Gi", "RWO", "Retain", "Available"]
    events = kubesim.ok("get events --field-selector involvedObject.name=data")
    assert "waiting for first consumer to be created before binding" in events


def test_with_no_matching_volume_the_pod_stays_pending_with_upstreams_message(kubesim, tmp_path):
    kubesim.ok(f"apply -f {DRILL / '01-storageclass.yaml'}")
    kubesim.ok(f"apply -f {DRILL / '02-pvs.yaml'}")
    apply(kubesim, tmp_path, claim("big", "local-storage", size="20Gi") + pod("big", "big"))
    p = get(kubesim, "pod big")
    assert "nodeName" not in p["spec"]
    cond = [c for c in p["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert cond["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't find available "
        "persistent volumes to bind. no new claims to deallocate, preemption: ")
    assert get(kubesim, "pvc big")["status"]["phase"] == "Pending"


def test_two_pods_cannot_take_the_same_local_volume_in_one_command(kubesim, tmp_path):
    apply(kubesim, tmp_path, (DRILL / "01-storageclass.yaml").read_text() + "---\n"
          + "---\n".join((DRILL / "02-pvs.yaml").read_text().split("---\n")[:1]) + "---\n"
          + claim("a", "local-storage") + claim("b", "local-storage") + pod("a", "a") + pod("b", "b"))
    pods = {p["metadata"]["name"]: p for p in get(kubesim, "pods")["items"]}
    assert pods["a"]["spec"]["nodeName"] == "node02"
    assert "nodeName" not in pods["b"]["spec"]
    assert get(kubesim, "pvc a")["status"]["phase"] == "Bound"
    assert get(kubesim, "pvc b")["status"]["phase"] == "Pending"


def test_an_immediate_claim_binds_before_its_pod_is_scheduled(kubesim, tmp_path):
    text = (DRILL / "02-pvs.yaml").read_text().replace("storageClassName: local-storage", 'storageClassName: ""')
    apply(kubesim, tmp_path, text + "---\n" + claim("data", '""') + pod("app", "data"))
    assert get(kubesim, "pod app")["spec"]["nodeName"] == "node02"
    assert get(kubesim, "pvc data")["spec"]["volumeName"] == "local-pv-1"


@pytest.mark.parametrize("reclaim, left", [
    pytest.param("Delete", "", id="Delete: the provisioned volume goes with its claim"),
    pytest.param("Retain", "Released", id="Retain: the volume stays Released"),
])
def test_deleting_a_provisioned_claim_follows_the_reclaim_policy(kubesim, tmp_path, reclaim, left):
    apply(kubesim, tmp_path, sc("standard", "rancher.io/local-path", reclaim=reclaim)
          + claim("data", "standard", size="2Gi") + pod("app", "data"))
    p, c = get(kubesim, "pod app"), get(kubesim, "pvc data")
    volume = c["spec"]["volumeName"]
    assert volume == "pvc-" + c["metadata"]["uid"] and c["status"]["phase"] == "Bound"
    v = get(kubesim, f"pv {volume}")
    assert v["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == \
        [p["spec"]["nodeName"]]
    assert v["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "rancher.io/local-path"
    kubesim.ok("delete pod app")
    assert kubesim.ok("delete pvc data") == 'persistentvolumeclaim "data" deleted from default namespace\n'
    r = kubesim(f"get pv {volume} -o jsonpath={{.status.phase}}")
    assert (r.out if r.code == 0 else "") == left


def test_pvc_protection_keeps_a_claim_in_use_terminating(kubesim):
    kubesim.ok(f"apply -f {DRILL}")
    kubesim.ok("delete pvc data --wait=false")
    assert kubesim.ok("get pvc data").splitlines()[1].split()[:2] == ["data", "Terminating"]
    c = get(kubesim, "pvc data")
    assert c["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"] and c["metadata"]["deletionTimestamp"]
    kubesim.ok("delete pod app")
    assert kubesim("get pvc data").code == 1
    assert get(kubesim, "pv local-pv-1")["status"]["phase"] == "Released"


def test_a_pod_bound_by_hand_waits_for_its_claim(kubesim, tmp_path):
    kubesim.ok(f"apply -f {DRILL / '01-storageclass.yaml'}")
    apply(kubesim, tmp_path, claim("data", "local-storage") + pod("manual", "data", node="node01"))
    p = get(kubesim, "pod manual")
    assert p["status"]["phase"] == "Pending"
    assert p["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert kubesim.ok("get pod manual").splitlines()[1].split()[:3] == ["manual", "0/1", "ContainerCreating"]
    events = kubesim.ok("get events --field-selector involvedObject.name=manual,reason=FailedMount")
    assert ("Unable to attach or mount volumes: unmounted volumes=[v0], unattached volumes=[], failed to "
            "process volumes=[v0]: error processing PVC default/data: PVC is not bound") in events


def test_every_node_has_a_csinode_and_applying_one_sets_driver_limits(kubesim, tmp_path):
    out = kubesim.ok("get csinode").splitlines()
    assert [line.split()[:2] for line in out[1:]] == [["controlplane", "0"], ["node01", "0"], ["node02", "0"]]
    registered = get(kubesim, "csinode node01")
    owner = registered["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"]) == ("Node", "node01")
    assert registered["spec"] == {"drivers": None}  # a real cluster serves the kubelet's empty list as null
    limits = "".join(
        f"apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata:\n  name: {n}\nspec:\n  drivers:\n"
        f"  - name: ebs.csi.aws.com\n    nodeID: {n}\n    allocatable:\n      count: 1\n---\n" for n in ("node01", "node02"))
    apply(kubesim, tmp_path, limits, "limits.yaml")
    apply(kubesim, tmp_path, sc("ebs", "ebs.csi.aws.com") + claim("a", "ebs") + claim("b", "ebs") + claim("c", "ebs")
          + pod("a", "a") + pod("b", "b") + pod("c", "c"))
    pods = {p["metadata"]["name"]: p for p in get(kubesim, "pods")["items"]}
    placed = sorted(p["spec"].get("nodeName", "") for p in pods.values())
    assert placed == ["", "node01", "node02"]
    stuck = next(p for p in pods.values() if not p["spec"].get("nodeName"))
    cond = [c for c in stuck["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert "2 node(s) exceed max volume count" in cond["message"]


def test_a_bound_local_volumes_node_is_filters_verdict(kubesim):
    # v1.35's VolumeBinding PreFilter narrows nothing (no GetEligibleNodes): each node fails
    # its first filter, node01 VolumeBinding's node affinity check
    kubesim.ok(f"apply -f {DRILL}")
    kubesim.ok("delete pod app")
    kubesim.ok("cordon node02")
    kubesim.ok(f"apply -f {DRILL / '04-pod.yaml'}")
    cond = [c for c in get(kubesim, "pod app")["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert cond["message"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) had volume node "
        "affinity conflict, 1 node(s) were unschedulable. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


def test_the_waiting_pod_starts_once_its_claim_binds(kubesim, tmp_path):
    kubesim.ok(f"apply -f {DRILL / '01-storageclass.yaml'}")
    apply(kubesim, tmp_path, claim("data", "local-storage") + pod("manual", "data", node="node01"))
    pv = (DRILL / "02-pvs.yaml").read_text().split("---\n")[0].replace("node02", "node01").replace(
        "  storageClassName: local-storage\n",
        "  storageClassName: local-storage\n  claimRef:\n    namespace: default\n    name: data\n")
    apply(kubesim, tmp_path, pv, "pv.yaml")
    assert get(kubesim, "pvc data")["spec"]["volumeName"] == "local-pv-1"
    kubesim.ok("advance 5s")  # the image pull
    assert get(kubesim, "pod manual")["status"]["phase"] == "Running"


def _explain_file(kubesim, tmp_path, text):
    f = tmp_path / "pods.yaml"
    f.write_text(text)
    items = json.loads(kubesim.ok(f"explain-schedule -f {f} -o json"))["items"]
    return [(i["pod"]["name"], i["outcome"], i["node"]) for i in items]


def on(node, pod_text):
    return pod_text.replace("spec:\n", f"spec:\n  nodeSelector:\n    kubernetes.io/hostname: {node}\n", 1)


ONE_LOCAL_PV = (DRILL / "01-storageclass.yaml").read_text() + "---\n" + \
    (DRILL / "02-pvs.yaml").read_text().split("---\n")[0] + "---\n"


@pytest.mark.parametrize("setup, pods, want", [
    pytest.param(ONE_LOCAL_PV + claim("a", "local-storage") + claim("b", "local-storage"),
                 pod("a", "a") + pod("b", "b"),
                 [("a", "Scheduled", "node02"), ("b", "Unschedulable", None)],
                 id="a local volume the first pod took is gone for the second"),
    pytest.param(ONE_LOCAL_PV + claim("a", "local-storage"),
                 pod("a", "a") + pod("b", "a"),
                 [("a", "Scheduled", "node02"), ("b", "Scheduled", "node02")],
                 id="a second pod of the same claim follows the volume the first one chose"),
    pytest.param(sc("standard", "rancher.io/local-path") + claim("a", "standard"),
                 on("node02", pod("a", "a")) + on("node01", pod("b", "a")),
                 [("a", "Scheduled", "node02"), ("b", "Unschedulable", None)],
                 id="a claim to provision is tied to the node the first pod was given"),
])
def test_explain_schedule_carries_volume_choices_to_later_pods_in_the_file(kubesim, tmp_path, setup, pods, want):
    apply(kubesim, tmp_path, setup)
    before = kubesim.ok("get pv,pvc -o yaml")
    assert _explain_file(kubesim, tmp_path, pods) == want
    assert kubesim.ok("get pv,pvc -o yaml") == before


@pytest.mark.parametrize("wait, line", [
    # the PV controller resyncs every claim every 15 s (pv_controller_base.go's resync,
    # --pvclaimbinder-sync-period): a waiting claim's event repeats on each tick, as the oracle
    # showed ("x2 over" after 18 s, not yet after 4 s); kubesim times the ticks from the event
    ("advance 10s", "Normal  WaitForFirstConsumer  10s   persistentvolume-controller  "),
    ("advance 20s", "Normal  WaitForFirstConsumer  5s (x2 over 20s)  persistentvolume-controller  "),
    ("advance 1m", "Normal  WaitForFirstConsumer  0s (x5 over 60s)  persistentvolume-controller  "),
    ("advance 14s", "Normal  WaitForFirstConsumer  14s   persistentvolume-controller  "),
])
def test_a_waiting_claims_event_repeats_on_every_resync(kubesim, tmp_path, wait, line):
    apply(kubesim, tmp_path, sc("local", "kubernetes.io/no-provisioner") + claim("data", "local"))
    kubesim.ok(wait)
    events = kubesim.ok("describe pvc data").split("Events:")[1]
    assert line + "waiting for first consumer to be created before binding" in events
