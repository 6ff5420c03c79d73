"""api.pods: qos_class, as pkg/apis/core/helper/qos/qos_test.go tables it (on pods as written,
before the API server defaults requests from limits); tolerates, checked against the
scheduler's."""

import pytest

from kubesim.api.pods import qos_class


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
