"""Simulated usage (kubesim.kubelet.metrics): 80 % of the request, an image's idle figure without
one, the ``kubesim.io/behaviour`` ``cpu``/``memory``/``load`` overrides, the CPU limit, and which
pods and nodes have metrics (metrics-server's objects)."""

import json

import pytest

from kubesim.kubelet.metrics import (
    METRIC_RESOLUTION,
    container_usage,
    node_metrics,
    pod_metrics,
)

MI = 1024 * 1024
T0 = 1767225600.0  # 2026-01-01T00:00:00Z


def pod(containers, behaviour=None, phase="Running", started="2026-01-01T00:00:00Z", name="p"):
    meta = {"name": name, "namespace": "default", "labels": {"app": "web"}}
    if behaviour is not None:
        meta["annotations"] = {"kubesim.io/behaviour": behaviour if isinstance(behaviour, str) else json.dumps(behaviour)}
    return {"metadata": meta, "spec": {"nodeName": "n1", "containers": containers},
            "status": {"phase": phase, "containerStatuses": [
                {"name": c["name"], "state": {"running": {"startedAt": started}} if started else {"waiting": {}}}
                for c in containers]}}


def c(name="app", image="nginx", requests=None, limits=None):
    out = {"name": name, "image": image}
    if requests or limits:
        out["resources"] = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return out


USAGE_CASES = [
    pytest.param(c(requests={"cpu": "500m", "memory": "256Mi"}), None, 60, (400, 256 * MI * 8 // 10),
                 id="80 percent of the request by default"),
    pytest.param(c(), None, 60, (1, 4 * MI), id="no request: the image's idle figure"),
    pytest.param(c(image="example.com/unknown:1"), None, 60, (1, 2 * MI), id="an unknown image idles at 1m and 2Mi"),
    pytest.param(c(requests={"cpu": "1"}), None, 60, (800, 4 * MI), id="a request for cpu alone keeps the idle memory"),
    pytest.param(c(), {"app": {"cpu": "250m", "memory": "64Mi"}}, 60, (250, 64 * MI),
                 id="the annotation sets a steady usage"),
    pytest.param(c(), {"*": {"cpu": "300m"}}, 60, (300, 4 * MI), id="the star override applies to every container"),
    pytest.param(c(), {"app": {"load": [{"after": "2m", "cpu": "900m"}]}}, 119, (1, 4 * MI),
                 id="a load step has not started before its time"),
    pytest.param(c(), {"app": {"load": [{"after": "2m", "cpu": "900m"}, {"after": "5m", "cpu": "50m"}]}}, 120,
                 (900, 4 * MI), id="a load step applies from its time"),
    pytest.param(c(), {"app": {"load": [{"after": "2m", "cpu": "900m"}, {"after": "5m", "cpu": "50m"}]}}, 400,
                 (50, 4 * MI), id="a later step replaces an earlier one"),
    pytest.param(c(requests={"cpu": "100m"}, limits={"cpu": "200m"}), {"app": {"cpu": "2"}}, 60, (200, 4 * MI),
                 id="cpu usage is throttled at the limit"),
    pytest.param(c(), {"app": {"cpu": "lots", "load": [{"after": "soon", "cpu": "1"}]}}, 60, (1, 4 * MI),
                 id="values that do not parse are ignored"),
    pytest.param(c(), "{not json", 60, (1, 4 * MI), id="an annotation that does not parse is ignored"),
]


@pytest.mark.parametrize("container,behaviour,running_for,want", USAGE_CASES)
def test_container_usage(container, behaviour, running_for, want):
    assert container_usage(pod([container], behaviour), container, running_for) == want


@pytest.mark.parametrize("p,now,has", [
    pytest.param(pod([c()]), T0 + METRIC_RESOLUTION - 1, False, id="no metrics before the first scrape"),
    pytest.param(pod([c()]), T0 + METRIC_RESOLUTION, True, id="metrics after the metric resolution"),
    pytest.param(pod([c()], phase="Pending", started=None), T0 + 60, False, id="a pending pod has none"),
    pytest.param(pod([c()], phase="Succeeded"), T0 + 60, False, id="a finished pod has none"),
])
def test_which_pods_have_metrics(p, now, has):
    assert (pod_metrics(p, now) is not None) is has


def test_pod_metrics_are_served_as_metrics_server_serves_them():
    p = pod([c(requests={"cpu": "250m", "memory": "100Mi"}), c("side", image="busybox")])
    assert pod_metrics(p, T0 + 60) == {
        "kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": "p", "namespace": "default", "creationTimestamp": "2026-01-01T00:01:00Z",
                     "labels": {"app": "web"}},
        "timestamp": "2026-01-01T00:01:00Z", "window": "15s",
        "containers": [{"name": "app", "usage": {"cpu": "200000000n", "memory": "81920Ki"}},
                       {"name": "side", "usage": {"cpu": "0n", "memory": "512Ki"}}]}


def node(ready="True", since="2026-01-01T00:00:00Z"):
    return {"metadata": {"name": "n1"}, "status": {"conditions": [
        {"type": "Ready", "status": ready, "lastTransitionTime": since}]}}


def test_node_usage_is_its_pods_plus_the_system_overhead():
    # 100m + 200m (80 % of 250m); 512Mi + 80Mi
    pods = [pod([c(requests={"cpu": "250m", "memory": "100Mi"})])]
    assert node_metrics(node(), pods, T0 + 60)["usage"] == {"cpu": "300000000n", "memory": "606208Ki"}


@pytest.mark.parametrize("n,now", [
    pytest.param(node("False"), T0 + 60, id="a NotReady node has no metrics"),
    pytest.param(node(), T0 + 5, id="a node just Ready has none yet"),
])
def test_nodes_without_metrics(n, now):
    assert node_metrics(n, [], now) is None
