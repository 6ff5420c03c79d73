"""Builders for the volume plugins' tests: claims, volumes, classes, and a Handle reading them
(as the engine's informer-style views do)."""

from __future__ import annotations

import copy

from kubesim.api import volumes as V
from kubesim.scheduler.framework.interface import Handle
from kubesim.scheduler.framework.snapshot import Snapshot

WFFC = "WaitForFirstConsumer"


def sc(name, mode=WFFC, provisioner="kubernetes.io/no-provisioner", topologies=None):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
           "provisioner": provisioner, "volumeBindingMode": mode}
    if topologies:
        obj["allowedTopologies"] = topologies
    return obj


def pvc(name, cls="", size="1Gi", volume_name="", bound=False, modes=("ReadWriteOnce",), phase=None,
        annotations=None, deleting=False, namespace="default"):
    ann = dict(annotations or {})
    if bound:
        ann[V.ANN_BIND_COMPLETED] = "yes"
    obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "annotations": ann},
           "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}},
           "status": {"phase": phase or ("Bound" if bound else "Pending")}}
    if cls:
        obj["spec"]["storageClassName"] = cls
    if volume_name:
        obj["spec"]["volumeName"] = volume_name
    if deleting:
        obj["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    return obj


def pv(name, cls="", size="5Gi", hostnames=None, claim=None, labels=None, csi=None, zone_terms=None,
       phase="Available", modes=("ReadWriteOnce",)):
    obj = {"apiVersion": "v1", "kind": "PersistentVolume",
           "metadata": {"name": name, "labels": dict(labels or {})},
           "spec": {"capacity": {"storage": size}, "accessModes": list(modes)},
           "status": {"phase": phase}}
    if cls:
        obj["spec"]["storageClassName"] = cls
    terms = []
    if hostnames:
        terms.append({"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                            "values": list(hostnames)}]})
    if zone_terms:
        terms.extend(zone_terms)
    if terms:
        obj["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    if claim is not None:
        obj["spec"]["claimRef"] = V.claim_reference(claim)
        obj["status"]["phase"] = "Bound"
    if csi:
        obj["spec"]["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    return obj


def claim_volume(pod: dict, *claims: str) -> dict:
    pod = copy.deepcopy(pod)
    for c in claims:
        pod["spec"].setdefault("volumes", []).append({"name": f"vol-{c}", "persistentVolumeClaim": {"claimName": c}})
    return pod


class Store:
    def __init__(self, *objs):
        self.objs = {}
        for o in objs:
            self.objs[(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])] = copy.deepcopy(o)

    def get(self, kind, ns, name):
        return self.objs.get((kind, ns or "", name))

    def list(self, kind, ns=None):
        return [o for (k, n, _), o in sorted(self.objs.items()) if k == kind and (ns is None or n == ns)]

    def handle(self, nodes=(), pods=()) -> Handle:
        h = Handle(Snapshot.build(list(nodes), list(pods)))
        h.get_object = self.get
        h.list_objects = self.list
        return h
