"""api.resource: PodRequests / PodLimits and their options, after component-helpers'
resource/helpers_test.go; the Quantity amounts (describe, the kubelet) checked against the
scheduler's reading of the same computation so the two cannot drift."""

from fractions import Fraction

import pytest

from kubesim.api.resource import (EXACT, PodResourcesOptions, is_pod_level_requests_set,
                                  is_pod_level_resources_set, is_pod_resize_infeasible,
                                  pod_limits, pod_requests, status_resources_matter)


def _c(requests=None, limits=None, **extra):
    c = {"name": "c", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    c.update(extra)
    return c


def _strs(rl: dict) -> dict:
    return {k: str(v) for k, v in rl.items()}


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
    from kubesim.scheduler.framework.pod_resources import pod_requests_ints

    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": SHAPES[name]}
    reqs = pod_requests(pod)
    assert {k: q.value for k, q in reqs.items()} == pod_requests(pod, amounts=EXACT)
    assert {k: q.milli_value() if k == "cpu" else q.int_value() for k, q in reqs.items()} == \
        pod_requests_ints(pod)


# -- options ------------------------------------------------------------------------------------

def _resized(spec_cpu, allocated=None, actuated=None, reason=None, limits=None, actual_limits=None):
    """A one-container pod whose cpu was resized in place: spec, allocated and actuated cpu."""
    status = {"name": "c"}
    if allocated is not None:
        status["allocatedResources"] = {"cpu": allocated}
    res = {}
    if actuated is not None:
        res["requests"] = {"cpu": actuated}
    if actual_limits is not None:
        res["limits"] = {"cpu": actual_limits}
    if res:
        status["resources"] = res
    pod = {"spec": {"containers": [_c({"cpu": spec_cpu}, {"cpu": limits} if limits else None)]},
           "status": {"containerStatuses": [status]}}
    if reason:
        pod["status"]["conditions"] = [{"type": "PodResizePending", "reason": reason}]
    return pod


@pytest.mark.parametrize("pod, opts, want", [
    pytest.param(_resized("1", allocated="2", actuated="1500m"), PodResourcesOptions(), {"cpu": "1"},
                 id="without UseStatusResources only the spec counts"),
    pytest.param(_resized("1", allocated="2", actuated="1500m"),
                 PodResourcesOptions(use_status_resources=True), {"cpu": "2"},
                 id="a resize up counts the allocated requests"),
    pytest.param(_resized("1", allocated="500m", actuated="3"),
                 PodResourcesOptions(use_status_resources=True), {"cpu": "3"},
                 id="a resize down counts the actuated requests until they shrink"),
    pytest.param(_resized("4", allocated="500m", actuated="1", reason="Infeasible"),
                 PodResourcesOptions(use_status_resources=True), {"cpu": "1"},
                 id="an infeasible resize leaves the spec out"),
    pytest.param(_resized("4", allocated="500m", actuated="1", reason="Deferred"),
                 PodResourcesOptions(use_status_resources=True), {"cpu": "4"},
                 id="a deferred resize keeps the spec in"),
    pytest.param({"spec": {"containers": [_c({"cpu": "1"}), _c({"cpu": "0"}), _c({"memory": "1Gi"})]}},
                 PodResourcesOptions(non_missing_container_requests={"cpu": Fraction(1, 10)}),
                 {"cpu": "1100m", "memory": "1Gi"},
                 id="non-missing requests fill missing requests, not explicit zeros"),
    pytest.param({"spec": {"containers": [_c({"cpu": "1"})], "overhead": {"cpu": "250m"}}},
                 PodResourcesOptions(exclude_overhead=True), {"cpu": "1"},
                 id="the overhead can be excluded"),
    pytest.param({"spec": {"containers": [_c({"cpu": "1"})], "resources": {"requests": {"cpu": "2"}}}},
                 PodResourcesOptions(skip_pod_level_resources=True), {"cpu": "1"},
                 id="pod-level resources can be skipped"),
])
def test_pod_requests_options(pod, opts, want):
    assert {k: v for k, v in pod_requests(pod, opts, EXACT).items()} == {
        k: EXACT.read(k, v) for k, v in want.items()}


def test_pod_limits_follow_actuated_limits_with_status_resources():
    pod = _resized("1", limits="2", actual_limits="3")
    assert _strs(pod_limits(pod)) == {"cpu": "2"}
    assert _strs(pod_limits(pod, PodResourcesOptions(use_status_resources=True))) == {"cpu": "3"}
    pod["status"]["conditions"] = [{"type": "PodResizePending", "reason": "Infeasible"}]
    pod["status"]["containerStatuses"][0]["resources"]["limits"] = {"cpu": "1"}
    assert _strs(pod_limits(pod, PodResourcesOptions(use_status_resources=True))) == {"cpu": "1"}


def test_overhead_is_added_only_to_limits_that_are_set_and_not_zero():
    pod = {"spec": {"containers": [_c(limits={"cpu": "1", "memory": "0"})],
                    "overhead": {"cpu": "100m", "memory": "1Mi", "ephemeral-storage": "1Gi"}}}
    assert _strs(pod_limits(pod)) == {"cpu": "1100m", "memory": "0"}
    assert _strs(pod_limits(pod, PodResourcesOptions(exclude_overhead=True))) == {"cpu": "1", "memory": "0"}


def test_quantities_that_do_not_parse_count_as_zero_and_raise_when_exact():
    pod = {"spec": {"containers": [_c({"cpu": "abc", "memory": "1Gi"})]}}
    assert _strs(pod_requests(pod)) == {"cpu": "0", "memory": "1Gi"}
    with pytest.raises(ValueError):
        pod_requests(pod, amounts=EXACT)


@pytest.mark.parametrize("resources, requests_set, resources_set", [
    pytest.param(None, False, False, id="no pod-level resources"),
    pytest.param({"requests": {"cpu": "1"}}, True, True, id="pod-level cpu requests"),
    pytest.param({"limits": {"memory": "1Gi"}}, False, True, id="pod-level memory limits only"),
    pytest.param({"requests": {"example.com/gpu": "1"}}, False, False,
                 id="unsupported pod-level resources do not count"),
    pytest.param({"requests": {"hugepages-2Mi": "2Mi"}}, True, True, id="hugepages are supported"),
])
def test_pod_level_resources_set(resources, requests_set, resources_set):
    pod = {"spec": {"containers": [_c()], **({"resources": resources} if resources else {})}}
    assert (is_pod_level_requests_set(pod), is_pod_level_resources_set(pod)) == (
        requests_set, resources_set)


def test_pod_resize_infeasible():
    assert is_pod_resize_infeasible(_resized("1", reason="Infeasible"))
    assert not is_pod_resize_infeasible(_resized("1", reason="Deferred"))
    assert not is_pod_resize_infeasible({"spec": {}})


@pytest.mark.parametrize("pod, matter", [
    pytest.param({"spec": {"containers": [_c({"cpu": "1"})]}}, False, id="no container statuses"),
    pytest.param(_resized("1", allocated="1", actuated="1"), False,
                 id="allocated and actuated requests equal to the spec"),
    pytest.param(_resized("1"), False, id="a status without resources"),
    pytest.param(_resized("1", allocated="2", actuated="1"), True, id="a resize up"),
    pytest.param(_resized("1", actuated="500m"), True, id="actuated requests differ"),
    pytest.param(_resized("1", allocated="1", actuated="1", reason="Infeasible"), True,
                 id="an infeasible resize leaves the spec out"),
    pytest.param(_resized("1", allocated=1, actuated="1"), True,
                 id="equal values of another type are not taken as the same"),
])
def test_status_resources_matter(pod, matter):
    opts = PodResourcesOptions(use_status_resources=True)
    assert status_resources_matter(pod) is matter
    if not matter:
        assert pod_requests(pod, opts, EXACT) == pod_requests(pod, amounts=EXACT)
