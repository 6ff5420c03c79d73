"""`kubectl get` rows of PriorityClass, PodDisruptionBudget, PersistentVolume(Claim), StorageClass and
CSINode (pkg/printers/internalversion/printers.go: the column definitions and print functions)."""

from __future__ import annotations

import pytest

from kubesim.clock import parse_time
from kubesim.printers.core import access_modes_string
from kubesim.printers.tables import PrintContext, render_table
from kubesim.printers.tabwriter import format_cells

NOW = parse_time("2026-11-22T10:00:00Z")
CTX = PrintContext(now=NOW)
T = "2026-11-22T09:55:00Z"  # 5m ago


def md(name, ns=None, **extra):
    m = {"name": name, "creationTimestamp": T, **extra}
    if ns:
        m["namespace"] = ns
    return m


@pytest.mark.parametrize("modes, expected", [
    (["ReadWriteOncePod", "ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce"], "RWO,ROX,RWX,RWOP"),
    (["ReadOnlyMany"], "ROX"), ([], ""), (None, ""),
], ids=["every mode in upstream's order", "one mode", "no modes", "unset"])
def test_access_modes_string(modes, expected):
    assert access_modes_string(modes) == expected


CASES = [
    ("priority classes: value, global default, age, preemption policy", "PriorityClass", [
        {"metadata": md("high"), "value": 1000, "globalDefault": True, "preemptionPolicy": "Never"},
        {"metadata": md("low"), "value": -5, "preemptionPolicy": "PreemptLowerPriority"},
    ], False,
     "NAME   VALUE   GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY\n"
     "high   1000    true             5m    Never\n"
     "low    -5      false            5m    PreemptLowerPriority\n"),
    ("budgets print N/A for the bound they do not set", "PodDisruptionBudget", [
        {"metadata": md("web", "default"), "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 2}},
        {"metadata": md("db", "default"), "spec": {"maxUnavailable": 1}, "status": {}},
    ], False,
     "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n"
     "web    50%             N/A               2                     5m\n"
     "db     N/A             1                 0                     5m\n"),
    ("volumes: claim, class from the beta annotation, unset attributes class, terminating", "PersistentVolume", [
        {"metadata": md("pv1"), "spec": {"capacity": {"storage": "1024Mi"}, "accessModes": ["ReadWriteOnce"],
                                         "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "local",
                                         "volumeMode": "Filesystem",
                                         "claimRef": {"namespace": "default", "name": "data"}},
         "status": {"phase": "Bound"}},
        {"metadata": md("pv2", deletionTimestamp=T, annotations={"volume.beta.kubernetes.io/storage-class": "old"}),
         "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteMany", "ReadOnlyMany"],
                  "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "ignored",
                  "volumeAttributesClassName": "gold"},
         "status": {"phase": "Released", "reason": "Reclaiming"}},
    ], True,
     "NAME   CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS        CLAIM          STORAGECLASS   "
     "VOLUMEATTRIBUTESCLASS   REASON       AGE   VOLUMEMODE\n"
     "pv1    1Gi        RWO            Retain           Bound         default/data   local          "
     "<unset>                              5m    Filesystem\n"
     "pv2    5Gi        ROX,RWX        Delete           Terminating                  old            "
     "gold                    Reclaiming   5m    <unset>\n"),
    ("claims show capacity and access modes only once bound", "PersistentVolumeClaim", [
        {"metadata": md("data", "default"), "spec": {"volumeName": "pv1", "storageClassName": "local",
                                                     "volumeMode": "Filesystem",
                                                     "resources": {"requests": {"storage": "1Gi"}}},
         "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]}},
        {"metadata": md("scratch", "default"), "spec": {"resources": {"requests": {"storage": "1Gi"}}},
         "status": {"phase": "Pending"}},
    ], True,
     "NAME      STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE   VOLUMEMODE\n"
     "data      Bound     pv1      10Gi       RWO            local          <unset>                 5m    Filesystem\n"
     "scratch   Pending                                                     <unset>                 5m    <unset>\n"),
    ("the default storage class is marked after its name", "StorageClass", [
        {"metadata": md("standard", annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
         "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"},
        {"metadata": md("fast"), "provisioner": "ebs.csi.aws.com", "allowVolumeExpansion": True},
    ], False,
     "NAME                 PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n"
     "standard (default)   rancher.io/local-path   Delete          WaitForFirstConsumer   false                  5m\n"
     "fast                 ebs.csi.aws.com         Delete          Immediate              true                   5m\n"),
    ("csi nodes count their drivers", "CSINode", [
        {"metadata": md("node01"), "spec": {"drivers": [{"name": "a"}, {"name": "b"}]}},
        {"metadata": md("node02"), "spec": {}},
    ], False,
     "NAME     DRIVERS   AGE\n"
     "node01   2         5m\n"
     "node02   0         5m\n"),
]


@pytest.mark.parametrize("kind, objects, wide, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rows(kind, objects, wide, expected):
    assert format_cells(render_table(kind, objects, CTX, wide=wide)) == expected


def test_volume_mode_is_a_wide_column_only():
    pv = {"metadata": md("pv1"), "spec": {"capacity": {"storage": "1Gi"}, "volumeMode": "Block"}, "status": {}}
    header = format_cells(render_table("PersistentVolume", [pv], CTX)).splitlines()[0]
    assert "VOLUMEMODE" not in header and header.split()[-1] == "AGE"
