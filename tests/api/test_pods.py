"""api.pods: qos_class, as pkg/apis/core/helper/qos/qos_test.go tables it (on pods as written,
before the API server defaults requests from limits); pod_requests and pod_limits
(component-helpers' PodRequests/PodLimits), checked against the scheduler's own fast path so the
two cannot drift."""

from fractions import Fraction

import pytest

from kubesim.api.pods import pod_limits, pod_requests, qos_class


def _c(requests=None, limits=None, **extra):
    c = {"name": "c", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    c.update(extra)
    return c


@pytest.mark.parametrize("containers, init, want", [
    pytest.param([_c()], [], "BestEffort", id="no resources at all"),
    pytest.param([_c({"cpu": "100m", "memory": "100Mi"}, {"cpu": "100m", "memory": "100Mi"})], [], "Guaranteed",
                 id="limits equal to requests"),
    pytest.param([_c(limits={"cpu": "100m", "memory": "100Mi"})], [], "Burstable",
                 id="limits without the requests an API server would default are Burstable"),
    pytest.param([_c({"cpu": "100m"}, {"cpu": "200m", "memory": "100Mi"})], [], "Burstable",
                 id="requests below limits"),
    pytest.param([_c({"cpu": "100m", "memory": "100Mi"}, {"cpu": "100m", "memory": "100Mi"}), _c()], [],
                 "Burstable", id="one container without limits"),
    pytest.param([_c({"cpu": "100m", "memory": "100Mi"}, {"cpu": "100m", "memory": "100Mi"})],
                 [_c({"cpu": "50m"})], "Burstable", id="an init container without limits"),
    pytest.param([_c({"example.com/gpu": "1"}, {"example.com/gpu": "1"})], [], "BestEffort",
                 id="extended resources do not count"),
    pytest.param([_c({"cpu": "0"}, {"cpu": "0"})], [], "BestEffort", id="zero quantities are ignored"),
])
def test_qos_class(containers, init, want):
    assert qos_class({"spec": {"containers": containers, "initContainers": init}}) == want


def test_pod_level_resources_decide_the_class():
    pod = {"spec": {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}},
                    "containers": [_c()]}}
    assert qos_class(pod) == "Guaranteed"


# -- pod_requests / pod_limits ----------------------------------------------------------------


def test_pod_requests_follow_the_sidecar_formula():
    # containers 1 cpu + sidecar 200m = 1200m; init "a" needs 2 cpu while sidecar s1 (100m, started
    # before it) runs: 2100m; init "b" after both sidecars: 500m + 300m = 800m. max(1200m, 2100m)
    pod = {"spec": {
        "initContainers": [
            _c({"cpu": "100m"}, name="s1", restartPolicy="Always"),
            _c({"cpu": "2"}, name="a"),
            _c({"cpu": "200m", "memory": "64Mi"}, {"memory": "64Mi"}, name="s2", restartPolicy="Always"),
            _c({"cpu": "500m"}, name="b"),
        ],
        "containers": [_c({"cpu": "900m", "memory": "128Mi"}, {"memory": "256Mi"})],
        "overhead": {"cpu": "10m", "memory": "1Mi"},
    }}
    reqs, limits = pod_requests(pod), pod_limits(pod)
    assert {k: str(v) for k, v in reqs.items()} == {"cpu": "2110m", "memory": "193Mi"}
    assert {k: str(v) for k, v in limits.items()} == {"memory": "321Mi"}


def test_pod_requests_count_sidecars_and_the_largest_init_container():
    # app 100m + sidecar 50m = 150m; init 200m + sidecar started before it (50m) = 250m -> 250m
    pod = {"spec": {"containers": [_c({"cpu": "100m"}, name="app")],
                    "initContainers": [_c({"cpu": "50m"}, name="side", restartPolicy="Always"),
                                       _c({"cpu": "200m"}, name="init")]}}
    assert pod_requests(pod)["cpu"].value == Fraction(1, 4)


def test_pod_level_resources_replace_the_container_sum():
    pod = {"spec": {"containers": [_c({"cpu": "100m", "memory": "64Mi"})],
                    "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}}
    assert {k: str(v) for k, v in pod_requests(pod).items()} == {"cpu": "1", "memory": "64Mi"}
    assert {k: str(v) for k, v in pod_limits(pod).items()} == {"cpu": "2"}


_SIDE = {"restartPolicy": "Always"}
SHAPES = {
    "no containers": {},
    "one container without resources": {"containers": [_c()]},
    "containers summed": {"containers": [_c({"cpu": "100m", "memory": "64Mi"}), _c({"cpu": "0.5", "memory": 1024})]},
    "an init container larger than the containers": {
        "containers": [_c({"cpu": "100m", "memory": "1Gi"})], "initContainers": [_c({"cpu": "2", "memory": "10Mi"})]},
    "init containers: the largest counts": {
        "containers": [_c({"cpu": "100m"})], "initContainers": [_c({"cpu": "300m"}), _c({"cpu": "1"}), _c({"cpu": "200m"})]},
    "a sidecar is added to the containers": {
        "containers": [_c({"cpu": "100m"})], "initContainers": [_c({"cpu": "50m", "memory": "1Mi"}, **_SIDE)]},
    "an init container after a sidecar runs with it": {
        "containers": [_c({"cpu": "100m"})],
        "initContainers": [_c({"cpu": "50m"}, **_SIDE), _c({"cpu": "200m"}), _c({"memory": "5Mi"}, **_SIDE),
                           _c({"cpu": "10m", "memory": "1Gi"})]},
    "an init container before the sidecars does not": {
        "containers": [_c({"cpu": "1"})], "initContainers": [_c({"cpu": "950m"}), _c({"cpu": "100m"}, **_SIDE)]},
    "overhead is added": {"containers": [_c({"cpu": "100m"})], "overhead": {"cpu": "10m", "memory": "1Mi"}},
    "pod-level requests replace cpu and memory": {
        "containers": [_c({"cpu": "100m", "memory": "64Mi", "ephemeral-storage": "1Gi"})],
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
    "pod-level cpu only": {"containers": [_c({"cpu": "100m", "memory": "64Mi"})], "resources": {"requests": {"cpu": "2"}}},
    "pod-level hugepages": {"containers": [_c({"hugepages-2Mi": "4Mi"})],
                            "resources": {"requests": {"hugepages-2Mi": "8Mi", "cpu": "1"}}},
    "pod-level limits only": {"containers": [_c({"cpu": "100m"})], "resources": {"limits": {"cpu": "1"}}},
    "pod-level with overhead": {"containers": [_c({"cpu": "100m"})], "resources": {"requests": {"cpu": "1"}},
                                "overhead": {"cpu": "250m"}},
    "extended resources and ephemeral storage": {
        "containers": [_c({"example.com/gpu": "1", "ephemeral-storage": "2Gi"}), _c({"example.com/gpu": 2})],
        "initContainers": [_c({"example.com/gpu": "4"})]},
    "zero requests": {"containers": [_c({"cpu": "0", "memory": "0"})], "initContainers": [_c({"cpu": "0"})]},
    "odd quantities": {"containers": [_c({"cpu": "1e-3", "memory": "1.5Gi"}), _c({"cpu": 0.25, "memory": "1e6"})],
                       "initContainers": [_c({"cpu": "3333m", "memory": "1k"}, **_SIDE)]},
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_pod_requests_agree_with_the_schedulers(name):
    from kubesim.scheduler.framework import nodeinfo

    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": SHAPES[name]}
    assert {k: q.value for k, q in pod_requests(pod).items()} == nodeinfo.pod_requests(pod)


# -- tolerates ---------------------------------------------------------------------------------

_TAINTS = [{"key": "a", "value": "1", "effect": "NoSchedule"}, {"key": "a", "effect": "NoExecute"},
           {"key": "b", "value": "x", "effect": "PreferNoSchedule"}, {"key": "node.kubernetes.io/not-ready",
                                                                      "effect": "NoExecute"}]
_TOLERATIONS = [
    {"operator": "Exists"}, {"operator": "Exists", "effect": "NoExecute"}, {"key": "a", "operator": "Exists"},
    {"key": "a", "value": "1"}, {"key": "a", "operator": "Equal", "value": "1", "effect": "NoSchedule"},
    {"key": "a", "operator": "Equal", "value": "2"}, {"key": "a", "operator": "Equal"},
    {"key": "b", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]


@pytest.mark.parametrize("toleration", _TOLERATIONS, ids=[str(t) for t in _TOLERATIONS])
def test_tolerates_agrees_with_the_schedulers(toleration):
    from kubesim.api.pods import tolerates
    from kubesim.scheduler.plugins.helper import toleration_tolerates_taint

    assert [tolerates(toleration, t) for t in _TAINTS] == [toleration_tolerates_taint(toleration, t) for t in _TAINTS]
