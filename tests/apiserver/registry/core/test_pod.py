"""The Pod strategy (pkg/registry/core/pod/strategy.go): a new pod's status, QoS class and
scheduling gate condition, matchLabelKeys merged into selectors, what an update keeps, and
CheckGracefulDelete."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.api.pods import qos_class
from kubesim.apiserver.objects import prepare_for_create, prepare_for_update, validate
from kubesim.apiserver.registry.core.pod import check_graceful_delete
from kubesim.testing.kubelet import T0, container, pod


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


def defaulted(obj: dict, seed: int = 0, **kw) -> dict:
    out = copy.deepcopy(obj)
    prepare_for_create(out, rng=random.Random(seed), **kw)
    return out


NR = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UR = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}

def res(requests=None, limits=None) -> dict:
    r = {}
    if requests:
        r["requests"] = requests
    if limits:
        r["limits"] = limits
    return r


QOS_CASES = [
    ("no resources is BestEffort", [{}], [], "BestEffort"),
    ("zero requests count as none", [res({"cpu": "0"})], [], "BestEffort"),
    ("requests only is Burstable", [res({"cpu": "100m"})], [], "Burstable"),
    ("equal cpu and memory limits are Guaranteed", [res(limits={"cpu": "1", "memory": "1Gi"})], [], "Guaranteed"),
    ("limits without memory are Burstable", [res(limits={"cpu": "1"})], [], "Burstable"),
    ("requests below limits are Burstable", [res({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], [], "Burstable"),
    ("one best-effort container makes a pod Burstable",
     [res(limits={"cpu": "1", "memory": "1Gi"}), {}], [], "Burstable"),
    ("init containers count", [res(limits={"cpu": "1", "memory": "1Gi"})], [res({"cpu": "100m"})], "Burstable"),
    ("other resources are ignored", [res(limits={"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"})], [], "Guaranteed"),
]


@pytest.mark.parametrize("ctrs,inits,qos", [c[1:] for c in QOS_CASES], ids=[c[0] for c in QOS_CASES])
def test_qos_class(ctrs, inits, qos):
    containers = [{"name": f"c{i}", "image": "x", "resources": r} for i, r in enumerate(ctrs)]
    spec = {"initContainers": [{"name": f"i{i}", "image": "x", "resources": r} for i, r in enumerate(inits)]} if inits else {}
    pod = defaulted(make_pod(*containers, **spec))
    assert pod["status"] == {"phase": "Pending", "qosClass": qos}
    assert qos_class(pod) == qos


def test_pod_level_resources_decide_the_qos_class():
    pod = make_pod({"name": "c", "image": "x"}, resources={"limits": {"cpu": "1", "memory": "1Gi"},
                                                           "requests": {"cpu": "1", "memory": "1Gi"}})
    assert qos_class(pod) == "Guaranteed"


def test_a_given_status_is_replaced_but_its_qos_class_kept():
    pod = make_pod()
    pod["status"] = {"phase": "Running", "podIP": "10.0.0.1", "qosClass": "Guaranteed"}
    assert defaulted(pod)["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}


def test_scheduling_gated_pods_get_the_condition():
    pod = defaulted(make_pod(schedulingGates=[{"name": "example.com/wait"}]))
    assert pod["status"]["conditions"] == [{
        "type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": None,
        "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates"}]


def test_match_label_keys_merge_into_selectors():
    pod = make_pod(
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}},
             "matchLabelKeys": ["pod-template-hash", "missing"], "mismatchLabelKeys": ["tenant"]}]}},
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                    "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}])
    pod["metadata"]["labels"] = {"app": "web", "pod-template-hash": "abc", "tenant": "t1"}
    got = defaulted(pod)["spec"]
    term = got["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["abc"]},
        {"key": "tenant", "operator": "NotIn", "values": ["t1"]}]
    assert got["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["abc"]}]


# --------------------------------------------------------------------------------------------- updates


def test_update_defaults_keep_status_priority_and_bump_generation():
    old = defaulted(make_pod())
    old["status"]["podIP"] = "10.0.0.5"
    new = copy.deepcopy(old)
    del new["spec"]["priority"]
    new["spec"]["tolerations"] = []
    new["spec"]["containers"][0]["image"] = "nginx:2"
    new["status"] = {}
    prepare_for_update(new, old)
    assert new["spec"]["priority"] == 0
    assert new["spec"]["tolerations"] == [NR, UR]
    assert new["status"] == old["status"]
    assert new["metadata"]["generation"] == 2
    assert validate(new, old) == []


# -- CheckGracefulDelete ---------------------------------------------------------------------

@pytest.mark.parametrize("setup,grace", [
    (lambda p: p["spec"].pop("nodeName"), 0),
    (lambda p: p["status"].update(phase="Succeeded"), 0),
    (lambda p: p["metadata"].setdefault("annotations", {}).update({"kubernetes.io/config.mirror": "abc"}), 0),
    (lambda p: None, 30),
], ids=["an unscheduled pod goes at once", "a finished pod goes at once", "a mirror pod goes at once",
        "a running pod gets its grace period"])
def test_check_graceful_delete_grace(setup, grace):
    p = pod("p", container("c", "nginx"))
    setup(p)
    assert check_graceful_delete(p, None, T0) == grace


def test_a_second_delete_can_only_shorten_the_grace_period():
    p = pod("p", container("c", "nginx"))
    check_graceful_delete(p, 60, T0)
    assert check_graceful_delete(p, 120, T0 + 10) == 50
    assert check_graceful_delete(p, 5, T0 + 10) == 5
    assert p["metadata"]["deletionTimestamp"] == "2026-11-22T10:00:15Z"
