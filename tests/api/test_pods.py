"""api.pods.qos_class, as pkg/apis/core/helper/qos/qos_test.go tables it (on pods as written,
before the API server defaults requests from limits)."""

import pytest

from kubesim.api.pods import qos_class


def _c(requests=None, limits=None):
    c = {"name": "c", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
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
