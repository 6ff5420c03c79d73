"""Quota evaluation (pkg/quota/v1, its core evaluators, and CheckRequest of the ResourceQuota
admission plugin). The request cases mirror plugin/pkg/admission/resourcequota/admission_test.go
(named as there), with the use taken from the quota's status as upstream's tests set it; the
messages are upstream's format strings as the v1.35 oracle printed them."""

from __future__ import annotations

import pytest

from kubesim.api import quota as q


def quota(hard: dict, used: dict | None = None, scopes=None, selector=None, name="quota") -> dict:
    spec = {"hard": dict(hard)}
    if scopes:
        spec["scopes"] = list(scopes)
    if selector:
        spec["scopeSelector"] = {"matchExpressions": selector}
    status = {"hard": dict(hard)}
    if used is not None:
        status["used"] = dict(used)
    return {"kind": "ResourceQuota", "metadata": {"name": name, "namespace": "test"}, "spec": spec, "status": status}


def pod(name="p", requests=None, limits=None, n=1, **spec) -> dict:
    res = {}
    if requests:
        res["requests"] = dict(requests)
    if limits:
        res["limits"] = dict(limits)
    containers = [{"name": f"foo-{i}", "image": "foo", "resources": dict(res)} for i in range(n)]
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "test"}, "spec": {"containers": containers, **spec}}


def from_status(rq: dict) -> dict:
    return q.parsed((rq.get("status") or {}).get("used"))


def check(quotas, obj):
    return q.check_request(quotas, obj, 0.0, from_status)


CPU_MEM_PODS = {"cpu": "3", "memory": "100Gi", "pods": "5"}
USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}

CASES = [
    ("TestAdmitBelowQuotaLimit", [quota(CPU_MEM_PODS, USED)], pod(requests={"cpu": "100m", "memory": "2Gi"}), None),
    ("TestAdmitExceedQuotaLimit", [quota(CPU_MEM_PODS, USED)], pod(requests={"cpu": "3", "memory": "2Gi"}),
     "exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3"),
    ("TestAdmitEnforceQuotaConstraints",
     [quota({**CPU_MEM_PODS, "limits.memory": "200Gi"}, {**USED, "limits.memory": "100Gi"})],
     pod(requests={"cpu": "100m", "memory": "2Gi"}, limits={"cpu": "200m"}),
     "failed quota: quota: must specify limits.memory for: foo-0"),
    ("every missing resource and container is named, in order",
     [quota({"requests.cpu": "1", "limits.memory": "1Gi"}, {"requests.cpu": "0", "limits.memory": "0"})],
     pod(n=2), "failed quota: quota: must specify limits.memory for: foo-0,foo-1; requests.cpu for: foo-0,foo-1"),
    ("TestAdmitPodInNamespaceWithoutQuota", [], pod(requests={"cpu": "100m"}), None),
    ("TestAdmitWhenUnrelatedResourceExceedsQuota", [quota({"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})],
     pod(), None),
    ("the third pod of a namespace limited to 2", [quota({"pods": "2"}, {"pods": "2"})], pod(),
     "exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2"),
    ("a quota whose use is not known yet refuses", [quota({"pods": "2"})], pod(),
     "status unknown for quota: quota, resources: pods"),
    ("TestAdmitBelowBestEffortQuotaLimit: a burstable pod passes a full best effort quota",
     [quota({"pods": "1"}, {"pods": "1"}, scopes=["BestEffort"])], pod(requests={"cpu": "100m"}), None),
    ("a best effort pod is held by a best effort quota", [quota({"pods": "1"}, {"pods": "1"}, scopes=["BestEffort"])],
     pod(), "exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1"),
    ("TestAdmitBelowTerminatingQuotaLimit: a NotTerminating quota ignores a pod with a deadline",
     [quota({"pods": "1"}, {"pods": "1"}, scopes=["NotTerminating"])], pod(activeDeadlineSeconds=60), None),
    ("a Terminating quota holds it", [quota({"pods": "1"}, {"pods": "1"}, scopes=["Terminating"])],
     pod(activeDeadlineSeconds=60), "exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1"),
    ("a PriorityClass In selector matches the pod's class",
     [quota({"pods": "0"}, {"pods": "0"}, selector=[{"scopeName": "PriorityClass", "operator": "In",
                                                        "values": ["high"]}])],
     pod(priorityClassName="high"), "exceeded quota: quota, requested: pods=1, used: pods=0, limited: pods=0"),
    ("and ignores another class", [quota({"pods": "0"}, {"pods": "0"}, selector=[
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}])], pod(priorityClassName="low"), None),
    ("TestAdmitRejectsNegativeUsage",
     [quota({"persistentvolumeclaims": "3", "requests.storage": "100Gi"},
            {"persistentvolumeclaims": "1", "requests.storage": "10Gi"})],
     {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "test"},
      "spec": {"resources": {"requests": {"storage": "-1Gi"}}}},
     "quota usage is negative for resource(s): requests.storage"),
    ("a deployment counted by count/deployments.apps",
     [quota({"count/deployments.apps": "1"}, {"count/deployments.apps": "1"})],
     {"kind": "Deployment", "metadata": {"name": "d", "namespace": "test"}},
     "exceeded quota: quota, requested: count/deployments.apps=1, used: count/deployments.apps=1, "
     "limited: count/deployments.apps=1"),
    ("a config map counted by its legacy name", [quota({"configmaps": "1"}, {"configmaps": "1"})],
     {"kind": "ConfigMap", "metadata": {"name": "c", "namespace": "test"}},
     "exceeded quota: quota, requested: configmaps=1, used: configmaps=1, limited: configmaps=1"),
    ("a NodePort service uses node ports", [quota({"services.nodeports": "0"}, {"services.nodeports": "0"})],
     {"kind": "Service", "metadata": {"name": "s", "namespace": "test"}, "spec": {"type": "NodePort",
                                                                              "ports": [{"port": 80}]}},
     "exceeded quota: quota, requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0"),
    ("an extended resource is quota'd by its requests. name",
     [quota({"requests.example.com/gpu": "1"}, {"requests.example.com/gpu": "0"})],
     pod(requests={"example.com/gpu": "2"}, limits={"example.com/gpu": "2"}),
     ("exceeded quota: quota, requested: requests.example.com/gpu=2, used: requests.example.com/gpu=0, "
      "limited: requests.example.com/gpu=1")),
    ("a scoped quota never matches a non-pod", [quota({"pods": "1"}, {"pods": "1"}, scopes=["BestEffort"])],
     {"kind": "ConfigMap", "metadata": {"name": "c", "namespace": "test"}}, None),
]


@pytest.mark.parametrize("quotas,obj,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check_request(quotas, obj, want):
    assert check(quotas, obj) == want


def test_usage_of_a_pod_counts_its_requests_and_limits():
    # podComputeUsageHelper over PodRequests/PodLimits: two containers of 250m/64Mi, limits 500m/128Mi
    u = q.usage(pod(requests={"cpu": "250m", "memory": "64Mi"}, limits={"cpu": "500m", "memory": "128Mi"}, n=2), 0.0)
    assert {k: str(v) for k, v in u.items()} == {
        "count/pods": "1", "pods": "1", "cpu": "500m", "requests.cpu": "500m", "memory": "128Mi",
        "requests.memory": "128Mi", "limits.cpu": "1", "limits.memory": "256Mi"}


@pytest.mark.parametrize("phase,counted", [("Running", True), ("Pending", True), ("Succeeded", False),
                                           ("Failed", False)])
def test_a_finished_pod_only_counts_as_an_object(phase, counted):
    p = pod(requests={"cpu": "1"})
    p["status"] = {"phase": phase}
    assert ("pods" in q.usage(p, 0.0)) is counted


def test_calculate_used_sums_the_matching_objects_and_zeroes_the_rest():
    rq = quota({"pods": "10", "requests.cpu": "2", "limits.memory": "1Gi", "configmaps": "3"})
    objects = [pod("a", requests={"cpu": "400m"}), pod("b", requests={"cpu": "500m"}),
               {"kind": "ConfigMap", "metadata": {"name": "c", "namespace": "test"}}]
    used = q.calculate_used(rq, objects, 0.0)
    assert {k: str(v) for k, v in sorted(used.items())} == {
        "configmaps": "1", "limits.memory": "0", "pods": "2", "requests.cpu": "900m"}


def svc(type_: str, ports: int = 2, rv: str = "7") -> dict:
    return {"kind": "Service", "metadata": {"name": "s1", "namespace": "test", "resourceVersion": rv},
            "spec": {"type": type_, "ports": [{"port": 80 + i} for i in range(ports)]}}


def claim(storage: str, rv: str = "7") -> dict:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "test", "resourceVersion": rv},
            "spec": {"resources": {"requests": {"storage": storage}}}}


UPDATES = [
    ("a service turned NodePort is charged its node ports (as the oracle refused it)",
     [quota({"services.nodeports": "1"}, {"services.nodeports": "0"}, name="np")], svc("NodePort"), svc("ClusterIP"),
     "exceeded quota: np, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1"),
    ("TestAdmitHandlesPVCUpdates: a claim that grows is charged only the growth",
     [quota({"requests.storage": "10Gi"}, {"requests.storage": "9Gi"})], claim("10Gi"), claim("9Gi"), None),
    ("and refused when the growth does not fit",
     [quota({"requests.storage": "10Gi"}, {"requests.storage": "9Gi"})], claim("11Gi"), claim("9Gi"),
     "exceeded quota: quota, requested: requests.storage=2Gi, used: requests.storage=9Gi, limited: requests.storage=10Gi"),
    ("TestAdmitHandlesCreatingUpdates: an old object without a resourceVersion is billed in full",
     [quota({"requests.storage": "10Gi"}, {"requests.storage": "9Gi"})], claim("2Gi"), claim("1Gi", rv=""),
     "exceeded quota: quota, requested: requests.storage=2Gi, used: requests.storage=9Gi, limited: requests.storage=10Gi"),
    ("TestAdmitBelowTerminatingQuotaLimitWhenPodScopeUpdated: a pod becoming terminating joins the Terminating quota",
     [quota({"pods": "0"}, {"pods": "0"}, scopes=["Terminating"], name="term")], pod(activeDeadlineSeconds=60),
     {**pod(), "metadata": {"name": "p", "namespace": "test", "resourceVersion": "7"}},
     "exceeded quota: term, requested: pods=1, used: pods=0, limited: pods=0"),
]


@pytest.mark.parametrize("quotas,new,old,want", [c[1:] for c in UPDATES], ids=[c[0] for c in UPDATES])
def test_check_request_on_update(quotas, new, old, want):
    assert q.check_request(quotas, new, 0.0, from_status, old) == want


@pytest.mark.parametrize("op,new,old,handled", [
    ("CREATE", {"kind": "ConfigMap"}, None, True),
    ("UPDATE", {"kind": "ConfigMap"}, {"kind": "ConfigMap"}, False),
    ("UPDATE", svc("NodePort"), svc("ClusterIP"), True),
    ("UPDATE", claim("2Gi"), claim("1Gi"), True),
    ("UPDATE", pod(), pod(), False),
    ("UPDATE", pod(activeDeadlineSeconds=5), pod(), True),
    ("DELETE", pod(), None, False),
], ids=["every create", "not an object count update", "a service update", "a claim update",
        "a pod update that keeps its scope", "a pod update that makes it terminating", "no delete"])
def test_which_requests_quota_evaluates(op, new, old, handled):
    assert q.handles(op, new, old) is handled
