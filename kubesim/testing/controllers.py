"""A tiny in-memory control plane for controller tests: it applies the controllers' changes the
way the engine will (uids, creationTimestamps, resourceVersions, events), places pods like a
minimal scheduler (matchFields node affinity, NoSchedule taints, fewest pods) and starts them
like a minimal kubelet (Running, Ready), so scenarios converge without the real engine."""

from __future__ import annotations

import copy
import random
import uuid

from kubesim.apiserver.objects import (
    begin_deletion,
    prepare_for_create,
    prepare_for_update,
    validate,
)
from kubesim.clock import format_time, parse_time
from kubesim.controllers import daemonset, deployment, garbagecollector, replicaset
from kubesim.controllers.base import View

T0 = parse_time("2026-11-22T10:00:00Z")
CONTROLLERS = (deployment.sync, replicaset.sync, daemonset.sync, garbagecollector.sync)
KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "Pod", "Node", "ControllerRevision") + ("StatefulSet",
                                                                                      "PersistentVolumeClaim")
APPS_KINDS = ("Deployment", "ReplicaSet", "DaemonSet") + ("StatefulSet",)  # defaulted and validated as the API server does


def node(name: str, taints=None, labels=None) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                                               **(labels or {})}},
         "spec": {}}
    if taints:
        n["spec"]["taints"] = taints
    return n


def deployment_obj(name="web", replicas=3, image="nginx", labels=None, **spec) -> dict:
    labels = labels or {"app": name}
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
         "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                  "template": {"metadata": {"labels": dict(labels)},
                               "spec": {"containers": [{"name": "c", "image": image}]}}}}
    d["spec"].update(spec)
    return d


def daemonset_obj(name="agent", image="busybox", labels=None, **spec) -> dict:
    labels = labels or {"app": name}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
          "spec": {"selector": {"matchLabels": dict(labels)},
                   "template": {"metadata": {"labels": dict(labels)},
                                "spec": {"containers": [{"name": "c", "image": image}]}}}}
    ds["spec"].update(spec)
    return ds


def statefulset_obj(name="web", replicas=3, image="nginx", labels=None, claims=("data",), **spec) -> dict:
    """A StatefulSet with a 1Gi ReadWriteOnce claim template per name in ``claims``, mounted."""
    labels = labels or {"app": name}
    container = {"name": "c", "image": image}
    if claims:
        container["volumeMounts"] = [{"name": c, "mountPath": f"/{c}"} for c in claims]
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default"},
           "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": dict(labels)},
                    "template": {"metadata": {"labels": dict(labels)}, "spec": {"containers": [container]}},
                    "volumeClaimTemplates": [{"metadata": {"name": c},
                                              "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "1Gi"}}}}
                                             for c in claims]}}
    if not claims:
        del sts["spec"]["volumeClaimTemplates"]
    sts["spec"].update(spec)
    return sts


class Sim:
    def __init__(self, nodes=("node01", "node02"), seed: int = 7, auto_ready: bool = True):
        self.objects: dict[tuple[str, str, str], dict] = {}
        self.now = T0
        self.rng = random.Random(seed)
        self.uid_rng = random.Random(seed + 1)
        self.rv = 0
        self.events: list = []
        self.wakes: list[float] = []
        self.auto_ready = auto_ready
        self.log: list[list] = []  # the changes of every controller pass, for tests that look at steps
        for n in nodes:
            self.add(node(n) if isinstance(n, str) else n)

    # -- store ------------------------------------------------------------------------------
    def _key(self, obj):
        md = obj["metadata"]
        return (obj["kind"], md.get("namespace", ""), md["name"])

    def add(self, obj: dict) -> dict:
        obj = copy.deepcopy(obj)
        if obj["kind"] in APPS_KINDS:
            prepare_for_create(obj)
            errs = validate(obj)
            assert not errs, [str(e) for e in errs]
        return self._create(obj)

    def _create(self, obj: dict) -> dict:
        md = obj.setdefault("metadata", {})
        md.setdefault("uid", str(uuid.UUID(int=self.uid_rng.getrandbits(128), version=4)))
        md["creationTimestamp"] = format_time(self.now)
        md.setdefault("generation", 1)
        self.rv += 1
        md["resourceVersion"] = str(self.rv)
        if obj["kind"] == "Pod":
            obj.setdefault("status", {"phase": "Pending"})
        assert self._key(obj) not in self.objects, f"{self._key(obj)} exists"
        self.objects[self._key(obj)] = obj
        return obj

    def update(self, obj: dict) -> None:
        """A user's update through the API (defaulting, generation)."""
        obj = copy.deepcopy(obj)
        old = self.objects[self._key(obj)]
        if obj["kind"] in APPS_KINDS:
            prepare_for_update(obj, old)
            errs = validate(obj, old)
            assert not errs, [str(e) for e in errs]
        self._put(obj)

    def _put(self, obj: dict) -> None:
        old = self.objects.get(self._key(obj))
        if old is None:
            return  # gone meanwhile: the API server would answer NotFound
        for k in ("uid", "creationTimestamp"):
            obj["metadata"][k] = old["metadata"][k]
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.objects[self._key(obj)] = obj

    def delete(self, kind: str, name: str, namespace: str = "default", propagation: str = "Background") -> None:
        obj = self.objects[(kind, namespace if kind != "Node" else "", name)]
        marked = begin_deletion(obj, propagation, self.now)
        if marked is None:
            del self.objects[self._key(obj)]
        else:
            self._put(marked)

    def get(self, kind: str, name: str, namespace: str = "default") -> dict | None:
        """A copy of the stored object (as a client's GET returns)."""
        return copy.deepcopy(self.objects.get((kind, namespace if kind != "Node" else "", name)))

    def list(self, kind: str) -> list[dict]:
        return sorted((copy.deepcopy(o) for (k, _, _), o in self.objects.items() if k == kind),
                      key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))

    def view(self) -> View:
        return View({k: [copy.deepcopy(o) for o in self.list(k)] for k in KINDS}, self.now, self.rng)

    # -- applying changes -------------------------------------------------------------------
    def apply(self, changes) -> bool:
        changed = False
        for ch in changes:
            if ch.op == "wake":
                self.wakes.append(ch.at)
                continue
            if ch.op == "create":
                self._create(copy.deepcopy(ch.obj))
                changed = True
            elif ch.op in ("update", "update_status"):
                self._put(copy.deepcopy(ch.obj))
                changed = True
            elif ch.op == "delete":
                if self._key(ch.obj) in self.objects:
                    # as the API server deletes: Foreground/Orphan mark the object for the collector
                    marked = begin_deletion(self.objects[self._key(ch.obj)], ch.propagation or "Background", self.now)
                    if marked is None:
                        del self.objects[self._key(ch.obj)]
                    else:
                        self._put(marked)
                    changed = True
            elif ch.op == "event":
                changed = True
            self.events.extend(ch.events)
        return changed

    def run(self, fn) -> list:
        changes = fn(self.view())
        self.log.append(changes)
        self.apply(changes)
        return changes

    # -- scheduler and kubelet --------------------------------------------------------------
    def schedule(self) -> bool:
        from kubesim.api.pods import tolerates
        from kubesim.controllers.daemonset import target_node_name

        changed = False
        for pod in self.list("Pod"):
            if pod["spec"].get("nodeName") or pod["metadata"].get("deletionTimestamp"):
                continue
            pod = self.objects[self._key(pod)]
            target = target_node_name(pod)
            candidates = []
            for n in self.list("Node"):
                if target and n["metadata"]["name"] != target:
                    continue
                taints = [t for t in n["spec"].get("taints") or () if t["effect"] in ("NoSchedule", "NoExecute")]
                if any(not any(tolerates(t, taint) for t in pod["spec"].get("tolerations") or ()) for taint in taints):
                    continue
                count = sum(1 for p in self.list("Pod") if p["spec"].get("nodeName") == n["metadata"]["name"])
                candidates.append((count, n["metadata"]["name"]))
            if candidates:
                pod["spec"]["nodeName"] = min(candidates)[1]
                changed = True
        return changed

    def kubelet(self) -> bool:
        changed = False
        for pod in self.objects.values():
            if pod["kind"] != "Pod":
                continue
            if pod["spec"].get("nodeName") and pod["status"].get("phase") == "Pending":
                pod["status"]["phase"] = "Running"
                changed = True
            if self.auto_ready and pod["status"].get("phase") == "Running" and not _ready(pod):
                self.make_ready(pod)
                changed = True
        return changed

    def make_ready(self, pod: dict) -> None:
        pod = self.objects[self._key(pod)]
        pod["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": format_time(self.now)}]

    def settle(self, controllers=CONTROLLERS, max_rounds: int = 200) -> int:
        for rounds in range(max_rounds):
            changed = False
            for fn in controllers:
                changes = fn(self.view())
                self.log.append(changes)
                changed |= self.apply(changes)
            changed |= self.schedule()
            changed |= self.kubelet()
            if not changed:
                return rounds
        raise AssertionError("did not settle")

    def advance(self, seconds: float) -> None:
        self.now += seconds

    # -- reading ----------------------------------------------------------------------------
    def pods_of(self, rs_name: str) -> list[dict]:
        return [p for p in self.list("Pod") if any(r["name"] == rs_name for r in p["metadata"].get("ownerReferences") or ())]

    def event_messages(self, reason: str | None = None) -> list[str]:
        return [e.message for e in self.events if reason is None or e.reason == reason]


def _ready(pod: dict) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in pod["status"].get("conditions") or ())
