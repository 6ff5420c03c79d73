"""LimitRanger (plugin/pkg/admission/limitranger/admission.go): the defaults it sets and the
bounds it enforces. The cases mirror admission_test.go's TestPodLimitFunc (its success and
error tables, named as there), TestMergePodResourceRequirements and
TestPersistentVolumeClaimLimitFunc; the messages are upstream's format strings, as the v1.35
oracle printed them."""

from __future__ import annotations

import copy

import pytest

from kubesim.apiserver.admission import CREATE, UPDATE, Attributes
from kubesim.apiserver.admission.limitranger import (
    LIMIT_RANGER_ANNOTATION,
    LimitRanger,
    aggregate,
    persistent_volume_claim_validate_limit_func,
    pod_mutate_limit_func,
    pod_validate_limit_func,
)
from kubesim.errors import Forbidden


def rl(cpu: str = "", memory: str = "") -> dict:
    """getComputeResourceList."""
    out = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    return out


def limit_range(limit_type: str, min_=None, max_=None, default=None, default_request=None, ratio=None) -> dict:
    """createLimitRange."""
    item = {"type": limit_type}
    for key, value in (("min", min_), ("max", max_), ("default", default), ("defaultRequest", default_request),
                       ("maxLimitRequestRatio", ratio)):
        if value:
            item[key] = value
    return {"kind": "LimitRange", "metadata": {"name": "abc", "namespace": "test"}, "spec": {"limits": [item]}}


def pod(name: str, n: int, requests=None, limits=None, init=()) -> dict:
    """validPod / validPodInit."""
    def container(i, req, lim):
        res = {}
        if req:
            res["requests"] = dict(req)
        if lim:
            res["limits"] = dict(lim)
        return {"name": f"foo-{i}", "image": f"foo:V{i}", "resources": res}

    spec = {"containers": [container(i, requests, limits) for i in range(n)]}
    if init:
        spec["initContainers"] = [container(i, r, lim) for i, (r, lim) in enumerate(init)]
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "test"}, "spec": spec}


def valid_limit_range() -> dict:
    """validLimitRange: a Pod item and a Container item with defaults."""
    return {"kind": "LimitRange", "metadata": {"name": "abc", "namespace": "test"}, "spec": {"limits": [
        {"type": "Pod", "max": rl("200m", "4Gi"), "min": rl("50m", "2Mi")},
        {"type": "Container", "max": rl("100m", "2Gi"), "min": rl("25m", "1Mi"),
         "default": rl("75m", "10Mi"), "defaultRequest": rl("50m", "5Mi")}]}}


SUCCESS = [
    ("ctr-min-cpu-request", pod("p", 1, rl("100m")), limit_range("Container", min_=rl("50m"))),
    ("ctr-min-cpu-request-limit", pod("p", 1, rl("100m"), rl("200m")), limit_range("Container", min_=rl("50m"))),
    ("ctr-min-memory-request", pod("p", 1, rl(memory="60Mi")), limit_range("Container", min_=rl(memory="50Mi"))),
    ("ctr-max-cpu-request-limit", pod("p", 1, rl("500m"), rl("1")), limit_range("Container", max_=rl("2"))),
    ("ctr-max-cpu-limit", pod("p", 1, None, rl("1")), limit_range("Container", max_=rl("2"))),
    ("ctr-max-mem-request-limit", pod("p", 1, rl(memory="250Mi"), rl(memory="500Mi")),
     limit_range("Container", max_=rl(memory="1Gi"))),
    ("ctr-max-cpu-ratio", pod("p", 1, rl("500m"), rl("750m")), limit_range("Container", ratio=rl("1.5"))),
    ("pod-min-cpu-request", pod("p", 2, rl("75m")), limit_range("Pod", min_=rl("100m"))),
    ("pod-min-memory-request-limit", pod("p", 2, rl(memory="60Mi"), rl(memory="100Mi")),
     limit_range("Pod", min_=rl(memory="100Mi"))),
    ("pod-init-min-memory-request", pod("p", 2, rl(memory="60Mi"), init=[(rl(memory="100Mi"), None)]),
     limit_range("Pod", min_=rl(memory="100Mi"))),
    ("pod-init-max-cpu-request-limit", pod("p", 2, rl("500m"), rl("1"), init=[(rl("1"), rl("2")), (rl("1"), rl("1"))]),
     limit_range("Pod", max_=rl("2"))),
    ("pod-max-mem-ratio", pod("p", 3, rl(memory="300Mi"), rl(memory="450Mi")),
     limit_range("Pod", max_=rl(memory="2Gi"), ratio=rl(memory="1.5"))),
]


@pytest.mark.parametrize("p,lr", [c[1:] for c in SUCCESS], ids=[c[0] for c in SUCCESS])
def test_pods_within_their_limit_range_pass(p, lr):
    assert pod_validate_limit_func(lr, p) == []


ERRORS = [
    ("ctr-min-cpu-request", pod("p", 1, rl("25m")), limit_range("Container", min_=rl("50m")),
     ["minimum cpu usage per Container is 50m, but request is 25m"]),
    ("ctr-min-cpu-no-request", pod("p", 1), limit_range("Container", min_=rl("50m")),
     ["minimum cpu usage per Container is 50m.  No request is specified"]),
    ("ctr-min-cpu-limit", pod("p", 1, rl("100m"), rl("40m")), limit_range("Container", min_=rl("50m")),
     ["minimum cpu usage per Container is 50m, but limit is 40m"]),
    ("ctr-max-cpu-limit", pod("p", 1, None, rl("2500m")), limit_range("Container", max_=rl("2")),
     ["maximum cpu usage per Container is 2, but limit is 2500m"]),
    ("ctr-max-cpu-no-limit", pod("p", 1, rl("1")), limit_range("Container", max_=rl("2")),
     ["maximum cpu usage per Container is 2.  No limit is specified"]),
    ("ctr-max-cpu-ratio", pod("p", 1, rl("1250m"), rl("2500m")), limit_range("Container", ratio=rl("1")),
     ["cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000"]),
    ("ctr-ratio-without-request", pod("p", 1, None, rl("1")), limit_range("Container", ratio=rl("2")),
     ["cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"]),
    ("every container is checked, each failure once", pod("p", 2, rl("25m")), limit_range("Container", min_=rl("50m")),
     ["minimum cpu usage per Container is 50m, but request is 25m"] * 2),
    ("pod-max-cpu-limit: containers summed", pod("p", 2, None, rl("1500m")), limit_range("Pod", max_=rl("2")),
     ["maximum cpu usage per Pod is 2, but limit is 3"]),
    ("pod-init-max-mem-limit: the largest init container counts",
     pod("p", 1, None, rl(memory="500Mi"), init=[(None, rl(memory="1.5Gi"))]), limit_range("Pod", max_=rl(memory="1Gi")),
     ["maximum memory usage per Pod is 1Gi, but limit is 1536Mi"]),
    ("pod-max-mem-ratio", pod("p", 3, rl(memory="250Mi"), rl(memory="500Mi")),
     limit_range("Pod", max_=rl(memory="2Gi"), ratio=rl(memory="1.5")),
     ["memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000"]),
]


@pytest.mark.parametrize("p,lr,errs", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_pods_outside_their_limit_range_are_refused(p, lr, errs):
    assert pod_validate_limit_func(lr, p) == errs


@pytest.mark.parametrize("errs,text", [
    (["a"], "a"),
    (["a", "b"], "[a, b]"),
    (["a", "a"], "a"),
    (["a", "b", "a"], "[a, b]"),
], ids=["one error as it is", "several in brackets", "a repeat is dropped", "repeats dropped, order kept"])
def test_errors_aggregate_as_utilerrors_does(errs, text):
    assert aggregate(errs) == text


def test_defaults_fill_only_what_a_container_lacks_and_say_so():
    # TestMergePodResourceRequirements: the defaults of validLimitRange's Container item
    p = pod("p", 1, rl(memory="100Mi"), init=[(None, None)])
    pod_mutate_limit_func(valid_limit_range(), p)
    c, i = p["spec"]["containers"][0]["resources"], p["spec"]["initContainers"][0]["resources"]
    assert c == {"requests": {"memory": "100Mi", "cpu": "50m"}, "limits": {"cpu": "75m", "memory": "10Mi"}}
    assert i == {"requests": rl("50m", "5Mi"), "limits": rl("75m", "10Mi")}
    assert p["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; "
        "cpu, memory request for init container foo-0; cpu, memory limit for init container foo-0")


def test_a_pod_with_everything_set_is_not_annotated():
    p = pod("p", 1, rl("60m", "6Mi"), rl("80m", "20Mi"))
    before = copy.deepcopy(p)
    pod_mutate_limit_func(valid_limit_range(), p)
    assert p == before


@pytest.mark.parametrize("storage,errs", [
    ("1Gi", []),
    ("100Mi", ["minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi"]),
    ("10Gi", ["maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi"]),
    (None, ["minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified",
            "maximum storage usage per PersistentVolumeClaim is 5Gi.  No request is specified"]),
], ids=["within min and max", "below the min", "above the max", "no request at all"])
def test_claims_are_held_to_their_storage_min_and_max(storage, errs):
    lr = limit_range("PersistentVolumeClaim", min_={"storage": "1Gi"}, max_={"storage": "5Gi"})
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "test"},
             "spec": {"resources": {"requests": {"storage": storage}} if storage else {}}}
    assert persistent_volume_claim_validate_limit_func(lr, claim) == errs


def _attrs(op, obj, ranges, old=None):
    return Attributes(op, obj, old, lister=lambda kind: ranges if kind == "LimitRange" else [])


def test_the_plugin_refuses_with_the_resource_and_name():
    lr = limit_range("Container", min_=rl("100m"))
    with pytest.raises(Forbidden) as e:
        LimitRanger().validate(_attrs(CREATE, pod("x", 1, rl("50m")), [lr]))
    assert e.value.message == 'pods "x" is forbidden: minimum cpu usage per Container is 100m, but request is 50m'


@pytest.mark.parametrize("op,ns,expect_defaults", [
    (CREATE, "test", True),
    (UPDATE, "test", False),
    (CREATE, "other", False),
], ids=["a pod create is defaulted", "a pod update is left alone (TestLimitRangerIgnoresSubresource's rule)",
        "another namespace's LimitRange does not apply"])
def test_which_requests_the_plugin_looks_at(op, ns, expect_defaults):
    p = pod("p", 1)
    p["metadata"]["namespace"] = ns
    old = copy.deepcopy(p) if op == UPDATE else None
    LimitRanger().admit(_attrs(op, p, [valid_limit_range()], old))
    assert (LIMIT_RANGER_ANNOTATION in (p["metadata"].get("annotations") or {})) is expect_defaults
