"""Objects of the kinds with group rules (PriorityClass, PodDisruptionBudget, PV, PVC,
StorageClass, CSINode), and the API server's steps around validation, for tests that check what
the server answers: validation runs on the object as the server has prepared it (defaults,
admission, PrepareForCreate/Update)."""

from __future__ import annotations

import copy

from kubesim.apiserver.objects import prepare_for_create, prepare_for_update, validate

NOW = "2026-11-22T10:00:00Z"


def pc(name="high", **fields):
    obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": 1000}
    obj.update(fields)
    return obj


def pdb(spec=None, name="web"):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1} if spec is None else spec}


def pv(spec_update=None, drop=(), name="pv1"):
    spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    spec.update(spec_update or {})
    for k in drop:
        spec.pop(k, None)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def pvc(spec_update=None, drop=(), name="data"):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    spec.update(spec_update or {})
    for k in drop:
        spec.pop(k, None)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def sc(name="fast", **fields):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
           "provisioner": "ebs.csi.aws.com"}
    obj.update(fields)
    return obj


def csinode(drivers, name="node01"):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
            "spec": {"drivers": drivers}}


def errors_of(obj, old=None, lister=None):
    """The messages of the server's validation of ``obj`` (an update of ``old`` if given), after
    it has prepared the object."""
    obj = copy.deepcopy(obj)
    if old is None:
        prepare_for_create(obj, lister=lister or (lambda kind: []), now=NOW)
    else:
        prepare_for_update(obj, old)
    return [str(e) for e in validate(obj, old)]


def created(obj, lister=None):
    """``obj`` as the server stores it on create (and valid)."""
    obj = copy.deepcopy(obj)
    prepare_for_create(obj, lister=lister or (lambda kind: []), now=NOW)
    assert validate(obj) == []
    return obj


def updated(obj, mutate):
    """(new, old): ``obj`` as stored, and a copy changed by ``mutate``."""
    old = created(obj)
    old["metadata"].update({"uid": "u", "creationTimestamp": NOW, "resourceVersion": "1"})
    new = copy.deepcopy(old)
    mutate(new)
    return new, old


def set_path(path, value):
    """A mutation setting ``value`` at ``path`` (a list of keys)."""
    def mutate(o):
        target = o
        for k in path[:-1]:
            target = target.setdefault(k, {})
        target[path[-1]] = value
    return mutate


def bound_and(mutate):
    """``mutate``, on a claim the PV controller has bound."""
    def both(o):
        mutate(o)
        o["status"] = {"phase": "Bound", "capacity": {"storage": "1Gi"}}
    return both


def update_errors(obj, mutate):
    """The messages of the server's validation of ``obj`` updated by ``mutate``."""
    new, old = updated(obj, mutate)
    if new.get("status", {}).get("phase") == "Bound":
        old["status"] = copy.deepcopy(new["status"])  # status is the status subresource's: set on both
    return errors_of(new, old)


def deploy(**spec):
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}}}
    d["spec"].update(spec)
    return d


# What a v1.35 API server stores for `kubectl create deployment web --image=nginx --replicas=2`
# (as `kubectl get deployment web -o yaml` shows its spec).
SERVER_SPEC = {
    "progressDeadlineSeconds": 600, "replicas": 2, "revisionHistoryLimit": 10,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
    "template": {"metadata": {"labels": {"app": "web"}},
                 "spec": {"containers": [{"image": "nginx", "imagePullPolicy": "Always", "name": "nginx",
                                          "resources": {}, "terminationMessagePath": "/dev/termination-log",
                                          "terminationMessagePolicy": "File"}],
                          "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
                          "schedulerName": "default-scheduler", "securityContext": {},
                          "terminationGracePeriodSeconds": 30}}}
