"""metrics.k8s.io/v1beta1: the resource metrics API metrics-server serves through the API
server's aggregation layer, as discovery lists it.

Upstream: kubernetes-sigs/metrics-server pkg/api/install.go (the group, its version and the two
read-only resources: ``nodes`` → NodeMetrics, cluster-scoped; ``pods`` → PodMetrics,
namespaced; verbs get and list) and k8s.io/metrics pkg/apis/metrics/v1beta1. kubesim's
cluster behaves as if metrics-server were installed (``kubesim.kubelet.metrics`` computes the
figures), so its discovery lists the group after the built-in ones, as the aggregator orders an
APIService of priority 100.
"""

from __future__ import annotations

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
GROUP_VERSION = f"{GROUP}/{VERSION}"
VERBS = ("get", "list")
# (plural, kind, namespaced)
RESOURCES = (("nodes", "NodeMetrics", False), ("pods", "PodMetrics", True))
