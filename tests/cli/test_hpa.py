"""The autoscaling walk-through end to end: ``autoscale`` a Deployment, load through the
``kubesim.io/behaviour`` annotation, ``advance`` past 15 s syncs, ``get hpa`` / ``top pods`` /
``describe hpa`` as time moves, then the load removed and the scale-down held for the 5-minute
stabilization window (kube-controller-manager's defaults, pkg/controller/podautoscaler)."""

from __future__ import annotations

from kubesim.testing.cli import Harness

WEB = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {kubesim.io/behaviour: '{"web": {"cpu": "20m"}}'}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def row(h: Harness) -> list[str]:
    return h.ok("get hpa web --no-headers").split()


def test_load_scales_up_and_its_end_scales_down_after_the_window(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.apply(WEB)
    h.ok("advance 10s")  # nginx pulled and running: metrics-server has a sample by the first sync
    assert h.ok("autoscale deployment web --cpu=50% --min=1 --max=5") == \
        "horizontalpodautoscaler.autoscaling/web autoscaled\n"
    assert row(h)[2:4] == ["cpu:", "<unknown>/50%"]
    h.ok("advance 30s")
    assert row(h)[2:7] == ["cpu:", "20%/50%", "1", "5", "1"]
    h.ok(["annotate", "pods", "-l", "app=web", "--overwrite", 'kubesim.io/behaviour={"web":{"cpu":"450m"}}'])
    h.ok("advance 15s")
    # 450% of the request against 50%: ceil(9 x 1) = 9, held to max(2 x 1, 4) = 4 by the scale-up limit
    # REPLICAS is the status's currentReplicas, as the sync found it; the target is already at 4
    assert row(h)[2:7] == ["cpu:", "450%/50%", "1", "5", "1"]
    assert h.ok("get hpa web -o jsonpath={.status.desiredReplicas}") == "4"
    assert h.ok("get deploy web -o jsonpath={.spec.replicas}") == "4"
    h.ok("advance 45s")
    assert row(h)[6] == "5"
    assert h.ok("get deploy web -o jsonpath={.spec.replicas}") == "5"
    top = h.ok("top pods --no-headers").splitlines()
    assert sorted(line.split()[1] for line in top) == ["20m", "20m", "20m", "20m", "450m"]
    h.ok(["annotate", "pods", "-l", "app=web", "--overwrite", 'kubesim.io/behaviour={"web":{"cpu":"20m"}}'])
    h.ok("advance 4m")
    # every pod back at 20%: ceil(0.4 x 5) = 2, but 5 was recommended within the last 5 minutes
    assert row(h)[2:7] == ["cpu:", "20%/50%", "1", "5", "5"]
    assert "ScaleDownStabilized" in h.ok("describe hpa web")
    h.ok("advance 90s")
    assert row(h)[6] == "2"
    events = h.ok("get events --field-selector involvedObject.kind=HorizontalPodAutoscaler "
                  "-o custom-columns=REASON:.reason,MESSAGE:.message --no-headers").splitlines()
    assert [" ".join(e.split()) for e in events] == [
        "SuccessfulRescale New size: 4; reason: cpu resource utilization (percentage of request) above target",
        "SuccessfulRescale New size: 5; reason: cpu resource utilization (percentage of request) above target",
        "SuccessfulRescale New size: 2; reason: All metrics below target"]


def test_a_pod_without_a_cpu_request_cannot_be_measured(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.ok("create deployment web --image=nginx")
    h.ok("autoscale deployment web --max=3")
    h.ok("advance 30s")
    out = h.ok("describe hpa web")
    assert "ScalingActive  False   FailedGetResourceMetric" in out
    assert "FailedComputeMetricsReplicas" in out
    assert "missing request for cpu in container nginx of Pod web-" in out


def test_no_autoscaler_no_controller_work(tmp_path):
    """Without HPAs the controller's step does nothing and keeps no state."""
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.apply(WEB)
    h.ok("autoscale deployment web --max=3")
    h.ok("advance 20s")
    h.ok("delete hpa web")
    h.ok("advance 20s")
    assert h.ok("get hpa -A") == ""
    assert h.ok("get deploy web -o jsonpath={.spec.replicas}") == "1"
