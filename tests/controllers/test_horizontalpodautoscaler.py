"""The HPA controller and its replica calculator, after upstream's tables: replica_calculator_test.go (resource replicas:
scale up and down, unready, hot-CPU, missing and superfluous metrics, tolerance) and
horizontal_test.go (TestConvertDesiredReplicasWithRules, TestScalingWithRules,
TestCalculateScale{Up,Down}Limit*, stabilization), then whole syncs on a View.

Upstream's pods have two containers, each with the listed request and usage (so raw values are
twice the per-container level). Its "hot" pods started now and its "cool" ones 3 minutes ago
against a 2-minute cpu-initialization period in tests; kubesim runs with the controller's
default of 5 minutes, so a cool pod here started 10 minutes ago, and a hot pod started a minute
ago and turned Ready 10 s ago (its metric, 15 s wide, predates readiness: upstream's reason to
leave it out).
"""

from __future__ import annotations

import pytest

from kubesim.clock import format_time
from kubesim.controllers import horizontalpodautoscaler as hpa_ctl
from kubesim.controllers import replica_calculator as calc
from kubesim.controllers.base import View

NOW = 1_800_000_000.0
COOL, HOT = "cool", "hot"


def pod(i: int, request: str | None = "1.0", ready: str = "True", start: str = COOL, phase: str = "Running",
        deleting: bool = False) -> dict:
    started = NOW - (600 if start == COOL else 60)
    transition = started if ready == "False" else (NOW - 10 if start == HOT else started + 5)
    res = {"requests": {"cpu": request}} if request is not None else {}
    md = {"name": f"test-pod-{i}", "namespace": "test-namespace", "labels": {"name": "test-pod"}}
    if deleting:
        md["deletionTimestamp"] = format_time(NOW)
    return {"kind": "Pod", "metadata": md,
            "spec": {"containers": [{"name": "container1", "resources": res},
                                    {"name": "container2", "resources": res}]},
            "status": {"phase": phase, "startTime": format_time(started),
                       "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": format_time(transition)}]}}


def metrics(levels: list[int]) -> dict:
    """makePodMetricLevels: each pod's two containers at ``level`` millicores."""
    return {f"test-pod-{i}": (2 * level, NOW, 15.0) for i, level in enumerate(levels)}


def pods(n: int, requests=None, readiness=None, starts=None, **kw) -> list[dict]:
    return [pod(i, (requests or ["1.0"] * n)[i], (readiness or ["True"] * n)[i], (starts or [COOL] * n)[i], **kw)
            for i in range(n)]


CASES = [
    # name, current, pods, levels, target, (replicas, utilization, raw)
    ("TestReplicaCalcScaleUp", 3, pods(3), [300, 500, 700], 30, (5, 50, 1000)),
    ("TestReplicaCalcScaleUpUnreadyLessScale", 3, pods(3, readiness=["False", "True", "True"]), [300, 500, 700], 30,
     (4, 60, 1200)),
    ("TestReplicaCalcScaleUpHotCpuLessScale", 3, pods(3, starts=[HOT, COOL, COOL]), [300, 500, 700], 30, (4, 60, 1200)),
    ("TestReplicaCalcScaleUpUnreadyNoScale", 3, pods(3, readiness=["True", "False", "False"]), [400, 500, 700], 30,
     (3, 40, 800)),
    ("TestReplicaCalcScaleHotCpuNoScale", 3, pods(3, readiness=["True", "False", "False"], starts=[COOL, HOT, HOT]),
     [400, 500, 700], 30, (3, 40, 800)),
    ("TestReplicaCalcScaleDown", 5, pods(5), [100, 300, 500, 250, 250], 50, (3, 28, 560)),
    ("TestReplicaCalcScaleDownExcludeUnreadyPods", 5, pods(5, readiness=["True", "True", "True", "False", "False"]),
     [100, 300, 500, 250, 250], 50, (2, 30, 600)),
    ("TestReplicaCalcScaleDownIgnoreHotCpuPods", 5, pods(5, starts=[COOL, COOL, COOL, HOT, HOT]),
     [100, 300, 500, 250, 250], 50, (2, 30, 600)),
    ("TestReplicaCalcTolerance", 3, pods(3, requests=["0.9", "1.0", "1.1"]), [1010, 1030, 1020], 100, (3, 102, 2040)),
    ("TestReplicaCalcSuperfluousMetrics", 4, pods(4), [4000, 9500, 3000, 7000, 3200, 2000], 100, (24, 587, 11750)),
    ("TestReplicaCalcMissingMetrics", 4, pods(4), [400, 95], 100, (3, 24, 495)),
    ("TestReplicaCalcMissingMetricsNoChangeEq", 2, pods(2), [1000], 100, (2, 100, 2000)),
    ("TestReplicaCalcMissingMetricsNoChangeGt", 2, pods(2), [1900], 100, (2, 190, 3800)),
    ("TestReplicaCalcMissingMetricsNoChangeLt", 2, pods(2), [600], 100, (2, 60, 1200)),
    ("TestReplicaCalcMissingMetricsUnreadyChange", 3, pods(3, readiness=["False", "True", "True"]), [100, 450], 50,
     (3, 45, 900)),
    ("TestReplicaCalcMissingMetricsHotCpuNoChange", 3, pods(3, starts=[HOT, COOL, COOL]), [100, 450], 50,
     (3, 45, 900)),
    ("TestReplicaCalcMissingMetricsUnreadyScaleUp", 3, pods(3, readiness=["False", "True", "True"]), [100, 2000], 50,
     (4, 200, 4000)),
]


@pytest.mark.parametrize("current,pod_list,levels,target,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_resource_replicas(current, pod_list, levels, target, want):
    got = calc.resource_replicas(current, target, pod_list, metrics(levels), "cpu", calc.Tolerances(), NOW)
    assert got == want


def test_failed_and_deleted_pods_are_ignored():
    # TestReplicaCalcScaleUpIgnoresFailedPods / ...IgnoresDeletionPods
    failed = pods(2) + [pod(2, phase="Failed"), pod(3, phase="Failed")]
    assert calc.resource_replicas(2, 30, failed, metrics([500, 700, 100, 100]), "cpu", calc.Tolerances(),
                                     NOW) == (4, 60, 1200)
    deleting = pods(2) + [pod(2, deleting=True), pod(3, deleting=True)]
    assert calc.resource_replicas(2, 30, deleting, metrics([500, 700, 100, 100]), "cpu", calc.Tolerances(),
                                     NOW) == (4, 60, 1200)


@pytest.mark.parametrize("pod_list,levels,error", [
    pytest.param(pods(1, requests=[None]), [200], "missing request for cpu in container container1 of Pod test-pod-0",
                 id="TestReplicaCalcEmptyCPURequest"),
    pytest.param([], [200], "no pods returned by selector while calculating replica count", id="no pods"),
    pytest.param(pods(2, readiness=["False", "False"], starts=[HOT, HOT]), [200, 200],
                 "did not receive metrics for targeted pods (pods might be unready)", id="only unready pods"),
])
def test_resource_replicas_errors(pod_list, levels, error):
    with pytest.raises(calc.MetricError) as e:
        calc.resource_replicas(1, 100, pod_list, metrics(levels), "cpu", calc.Tolerances(), NOW)
    assert str(e.value) == error


def test_a_configured_tolerance_widens_the_band():
    # TestReplicaCalcConfigurableTolerance: 1.9x usage stays put with a 100% scale-up tolerance
    assert calc.resource_replicas(3, 100, pods(3), metrics([1900, 1900, 1900]), "cpu",
                                     calc.Tolerances(0.1, 1.0), NOW) == (3, 190, 3800)


@pytest.mark.parametrize("current,desired,lo,hi,want,reason", [
    (5, 7, 3, 8, 7, "DesiredWithinRange"),
    (3, 1, 2, 8, 2, "TooFewReplicas"),
    (1, 0, 0, 10, 0, "DesiredWithinRange"),
    (20, 1000, 1, 10, 10, "TooManyReplicas"),
    (3, 1000, 1, 2000, 6, "ScaleUpLimit"),
], ids=["prenormalized desired replicas within range", "prenormalized desired replicas < minReplicas",
        "prenormalized desired zeroed replicas within range",
        "maxReplicas is the limit because maxReplicas < scaleUpLimit",
        "scaleUpLimit is the limit because scaleUpLimit < maxReplicas"])
def test_convert_desired_replicas_with_rules(current, desired, lo, hi, want, reason):
    # TestConvertDesiredReplicasWithRules; calculateScaleUpLimit(3) = max(2*3, 4) = 6
    assert hpa_ctl.convert_desired_replicas_with_rules(current, desired, lo, hi)[:2] == (want, reason)


def rules(pods_=0, pods_period=0, percent=0, percent_period=0, window=0, select="Max") -> dict:
    """generateScalingRules."""
    policies = []
    if pods_:
        policies.append({"type": "Pods", "value": pods_, "periodSeconds": pods_period})
    if percent:
        policies.append({"type": "Percent", "value": percent, "periodSeconds": percent_period})
    return {"stabilizationWindowSeconds": window, "selectPolicy": select, "policies": policies}


def behavior(up=None, down=None) -> dict:
    from kubesim.api.autoscaling.defaults import generate_scale_down_rules, generate_scale_up_rules

    return {"scaleUp": generate_scale_up_rules(up), "scaleDown": generate_scale_down_rules(down)}


@pytest.mark.parametrize("current,desired,lo,hi,up,down,want,reason", [
    pytest.param(5, 7, 3, 8, None, None, 7, "DesiredWithinRange", id="prenormalized desired replicas within range"),
    pytest.param(3, 1, 2, 8, None, None, 2, "TooFewReplicas", id="prenormalized desired replicas < minReplicas"),
    pytest.param(20, 1000, 1, 10, None, None, 10, "TooManyReplicas",
                 id="maxReplicas is the limit because maxReplicas < scaleUpLimit"),
    pytest.param(100, 1000, 100, 150, None, None, 150, "TooManyReplicas",
                 id="desired replica count is more than the maximum replica count"),
    pytest.param(3, 1000, 1, 2000, rules(0, 0, 1, 60), None, 4, "ScaleUpLimit",
                 id="scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies"),
    pytest.param(1000, 3, 3, 2000, None, rules(20, 60), 980, "ScaleDownLimit",
                 id="scaleDownLimit is the limit because scaleDownLimit > minReplicas with user defined policies"),
    pytest.param(10, 50, 1, 1000, None, None, 20, "ScaleUpLimit", id="scaleUp with default behavior"),
    pytest.param(10, 500, 1, 1000, rules(100, 60, 100, 60), None, 110, "ScaleUpLimit",
                 id="scaleUp with pods policy larger than percent policy"),
    pytest.param(10, 500, 1, 1000, rules(2, 60, 100, 60), None, 20, "ScaleUpLimit",
                 id="scaleUp with percent policy larger than pods policy"),
    pytest.param(10, 50, 1, 1000, rules(100, 60), None, 50, "DesiredWithinRange",
                 id="scaleUp with spec MaxReplicas limitation with large pod policy"),
    pytest.param(10, 50, 1, 1000, rules(30, 60), None, 40, "ScaleUpLimit", id="scaleUp with pod policy limitation"),
])
def test_scaling_with_rules(current, desired, lo, hi, up, down, want, reason):
    # TestScalingWithRules (no earlier scale events)
    got = hpa_ctl.convert_with_behavior_rate(current, desired, lo, hi, behavior(up, down), [], [], NOW)
    assert got[:2] == (want, reason)


def test_min_select_policies():
    # TestCalculateScaleUpLimitWithScalingRules, TestCalculateScaleDownLimitWithBehaviors
    r = rules(2, 60, 50, 60, window=300, select="Min")
    assert hpa_ctl.scale_up_limit_with_rules(1, [], [], r, NOW) == 2
    assert hpa_ctl.scale_down_limit_with_behaviors(5, [], [], r, NOW) == 3


def test_scale_events_within_the_period_count_against_the_limit():
    # 4 pods added 10 s ago: a Pods=4/60 s policy leaves no room until they age out
    up = [[4, NOW - 10, False]]
    assert hpa_ctl.scale_up_limit_with_rules(8, up, [], rules(4, 60), NOW) == 8
    assert hpa_ctl.scale_up_limit_with_rules(8, up, [], rules(4, 60), NOW + 60) == 12


def test_stabilization_keeps_the_highest_recent_recommendation():
    # stabilizeRecommendation: a recommendation older than the window is replaced, not counted
    recs = [[5, NOW - 400], [4, NOW - 100]]
    assert hpa_ctl.stabilize_recommendation(recs, 2, NOW, 300) == 4
    assert recs == [[2, NOW], [4, NOW - 100]]


# -- whole syncs ----------------------------------------------------------------------------

def deployment(replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "test-namespace", "generation": 1},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"name": "test-pod"}}},
            "status": {"replicas": replicas}}


def hpa(target: int = 50, behavior_=None, created: float = NOW - 15) -> dict:
    spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1,
            "maxReplicas": 10, "metrics": [{"type": "Resource", "resource": {
                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}}}]}
    if behavior_ is not None:
        spec["behavior"] = behavior_
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "test-namespace", "creationTimestamp": format_time(created)},
            "spec": spec, "status": {"currentMetrics": None, "desiredReplicas": 0}}


def pod_metrics(levels: list[int]) -> list[dict]:
    return [{"kind": "PodMetrics", "metadata": {"name": f"test-pod-{i}", "namespace": "test-namespace",
                                                "labels": {"name": "test-pod"}},
             "timestamp": format_time(NOW), "window": "15s",
             "containers": [{"name": "container1", "usage": {"cpu": f"{lv * 1000000}n"}},
                            {"name": "container2", "usage": {"cpu": f"{lv * 1000000}n"}}]}
            for i, lv in enumerate(levels)]


def run(objects: dict, state=None, now=NOW):
    return hpa_ctl.sync(View(objects, now), state)


def test_a_sync_scales_up_and_says_why():
    changes, state = run({"HorizontalPodAutoscaler": [hpa(30)], "Deployment": [deployment(3)],
                          "Pod": pods(3), "PodMetrics": pod_metrics([300, 500, 700])})
    update, status, wake = changes
    assert (update.op, update.obj["spec"]["replicas"], update.obj["metadata"]["generation"]) == ("update", 5, 2)
    assert [e.message for e in status.events] == [
        "New size: 5; reason: cpu resource utilization (percentage of request) above target"]
    st = status.obj["status"]
    assert (st["currentReplicas"], st["desiredReplicas"], st["lastScaleTime"]) == (3, 5, format_time(NOW))
    assert st["currentMetrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageValue": "1", "averageUtilization": 50}}}]
    assert [(c["type"], c["status"], c["reason"]) for c in st["conditions"]] == [
        ("AbleToScale", "True", "SucceededRescale"), ("ScalingActive", "True", "ValidMetricFound"),
        ("ScalingLimited", "False", "DesiredWithinRange")]
    assert (wake.op, wake.at) == ("wake", NOW + 15)
    assert state["test-namespace/web"]["next"] == NOW + 15


def test_nothing_is_done_before_the_hpa_is_due():
    changes, _ = run({"HorizontalPodAutoscaler": [hpa(30, created=NOW - 5)], "Deployment": [deployment(3)]})
    assert [(c.op, c.at) for c in changes] == [("wake", NOW + 10)]


def test_scale_down_waits_for_the_stabilization_window():
    state = {"test-namespace/web": {"next": NOW, "recommendations": [[5, NOW - 120]]}}
    objs = {"HorizontalPodAutoscaler": [hpa(50)], "Deployment": [deployment(5)], "Pod": pods(5),
            "PodMetrics": pod_metrics([100, 100, 100, 100, 100])}
    changes, state = run(objs, state)
    assert [c.op for c in changes] == ["update_status", "wake"]
    assert changes[0].obj["status"]["conditions"][0]["reason"] == "ScaleDownStabilized"
    state["test-namespace/web"]["next"] = NOW + 200
    changes, _ = run(objs, state, now=NOW + 200)
    assert changes[0].obj["spec"]["replicas"] == 1
    assert changes[1].events[0].message == "New size: 1; reason: All metrics below target"


def test_a_pod_without_a_request_fails_as_upstream_words_it():
    objs = {"HorizontalPodAutoscaler": [hpa(50)], "Deployment": [deployment(1)], "Pod": pods(1, requests=[None]),
            "PodMetrics": pod_metrics([100])}
    changes, _ = run(objs)
    status = changes[0]
    inner = "failed to get cpu utilization: missing request for cpu in container container1 of Pod test-pod-0"
    assert [(e.reason, e.message) for e in status.events] == [
        ("FailedGetResourceMetric", inner),
        ("FailedComputeMetricsReplicas",
         "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: " + inner)]
    st = status.obj["status"]
    assert st["currentMetrics"] == [{"type": ""}]
    assert st["conditions"][1] == {"type": "ScalingActive", "status": "False", "lastTransitionTime": format_time(NOW),
                                   "reason": "FailedGetResourceMetric",
                                   "message": "the HPA was unable to compute the replica count: " + inner}


@pytest.mark.parametrize("ref,message", [
    pytest.param({"apiVersion": "apps/v1", "kind": "Deployment", "name": "nope"}, 'deployments.apps "nope" not found',
                 id="a missing target"),
    pytest.param({"apiVersion": "apps/v1", "kind": "Foo", "name": "x"}, 'no matches for kind "Foo" in group "apps"',
                 id="a kind without a scale subresource"),
])
def test_a_target_without_a_scale(ref, message):
    h = hpa()
    h["spec"]["scaleTargetRef"] = ref
    changes, _ = run({"HorizontalPodAutoscaler": [h]})
    status = changes[0]
    assert [(e.reason, e.message) for e in status.events] == [("FailedGetScale", message)]
    assert status.obj["status"] == {"desiredReplicas": 0, "currentMetrics": None, "conditions": [
        {"type": "AbleToScale", "status": "False", "lastTransitionTime": format_time(NOW), "reason": "FailedGetScale",
         "message": "the HPA controller was unable to get the target's current scale: " + message}]}


def test_two_hpas_on_the_same_pods_are_ambiguous():
    other = hpa()
    other["metadata"]["name"] = "other"
    changes, _ = run({"HorizontalPodAutoscaler": [hpa(), other], "Deployment": [deployment(1)], "Pod": pods(1),
                      "PodMetrics": pod_metrics([100])})
    message = ("pods by selector name=test-pod are controlled by multiple HPAs: "
               "[test-namespace/other test-namespace/web]")
    assert [(e.reason, e.message) for e in changes[0].events] == [("AmbiguousSelector", message),
                                                                 ("FailedComputeMetricsReplicas", message)]
