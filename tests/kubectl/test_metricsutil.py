"""kubectl top's tables, mirroring staging/src/k8s.io/kubectl/pkg/metricsutil/metrics_printer_test.go
(TestPrintNodeMetrics, TestPrintPodMetrics: the same cases and expected texts), plus the sorters of
metrics_sorter.go and the ``--sum`` quirks of printPodResourcesSum."""

import pytest

from kubesim.kubectl.metricsutil import (
    TopCmdPrinter,
    sort_container_metrics,
    sort_node_metrics,
    sort_pod_metrics,
)


def node_metric(name, cpu, memory):
    return {"metadata": {"name": name}, "usage": {"cpu": cpu, "memory": memory}}


def pod_metric(name, *containers, namespace="default"):
    return {"metadata": {"name": name, "namespace": namespace},
            "containers": [{"name": c, "usage": {"cpu": cpu, "memory": mem}} for c, cpu, mem in containers]}


CAPACITY = {"cpu": "10", "memory": "10Gi"}  # metrics_printer_test.go newNode

NODE_CASES = [
    pytest.param([node_metric("node1", "1", "1Gi")], ["node1"], False, "",
                 "NAME    CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n"
                 "node1   1000m        10%      1024Mi          10%         \n",
                 id="a single node with the default header"),
    pytest.param([node_metric("node1", "1", "1Gi")], ["node1"], True, "",
                 "node1   1000m   10%   1024Mi   10%   \n", id="a single node without header"),
    pytest.param([node_metric("node1", "1", "1Gi")], ["node1", "node2"], False, "",
                 "NAME    CPU(cores)   CPU(%)      MEMORY(bytes)   MEMORY(%)   \n"
                 "node1   1000m        10%         1024Mi          10%         \n"
                 "node2   <unknown>    <unknown>   <unknown>       <unknown>   \n",
                 id="a listed node without metrics prints unknown"),
    pytest.param([node_metric("node1", "1", "1Gi"), node_metric("node2", "2", "5Gi")], ["node1", "node2"], False,
                 "memory",
                 "NAME    CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n"
                 "node2   2000m        20%      5120Mi          50%         \n"
                 "node1   1000m        10%      1024Mi          10%         \n",
                 id="nodes sorted by memory, largest first"),
    pytest.param([node_metric("node1", "1", "1Gi")], [], False, "",
                 "NAME    CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n"
                 "node1   1000m        1024Mi   \n",
                 id="a node with metrics but not listed has no percentages"),
    pytest.param([node_metric("node1", "2500001n", "1536Ki")], ["node1"], True, "",
                 "node1   3m    0%    1Mi   0%    \n",
                 id="nanocores round up to millicores and memory truncates to Mi"),
    pytest.param([], ["node1"], False, "", "", id="no metrics print nothing"),
]


@pytest.mark.parametrize("metrics,nodes,no_headers,sort_by,want", NODE_CASES)
def test_print_node_metrics(metrics, nodes, no_headers, sort_by, want):
    available = {n: dict(CAPACITY) for n in nodes}
    assert TopCmdPrinter().print_node_metrics(metrics, available, no_headers, sort_by) == want


def test_a_node_without_swap_prints_unknown_swap_columns():
    printer = TopCmdPrinter(show_swap=True)
    printer.register_missing_resource("node1", "swap")
    out = printer.print_node_metrics([node_metric("node1", "1", "1Gi")], {"node1": dict(CAPACITY)}, False, "")
    assert out == ("NAME    CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   SWAP(bytes)   SWAP(%)     \n"
                   "node1   1000m        10%      1024Mi          10%         <unknown>     <unknown>   \n")


TWO = pod_metric("test", ("container1", "0.2", "1Gi"), ("container2", "0.2", "1Gi"))
TWO_1 = pod_metric("test-1", ("container1", "0.2", "3Gi"), ("container2", "0.2", "2Gi"))

POD_CASES = [
    pytest.param([TWO], False, False, False, "", False,
                 "NAME   CPU(cores)   MEMORY(bytes)   \ntest   400m         2048Mi          \n",
                 id="a pod's containers are summed"),
    pytest.param([TWO], True, False, False, "", False,
                 "POD    NAME         CPU(cores)   MEMORY(bytes)   \n"
                 "test   container1   200m         1024Mi          \n"
                 "test   container2   200m         1024Mi          \n",
                 id="containers printed one per line"),
    pytest.param([TWO], False, False, True, "", False, "test   400m   2048Mi   \n", id="a pod without header"),
    pytest.param([TWO, TWO_1], False, False, False, "memory", False,
                 "NAME     CPU(cores)   MEMORY(bytes)   \ntest-1   400m         5120Mi          \n"
                 "test     400m         2048Mi          \n",
                 id="pods sorted by memory, largest first"),
    pytest.param([TWO, TWO_1], False, False, False, "", True,
                 "NAME     CPU(cores)   MEMORY(bytes)   \n"
                 "test     400m         2048Mi          \n"
                 "test-1   400m         5120Mi          \n"
                 "         ________     ________        \n"
                 "         800m         7168Mi          \n",
                 id="the sum under the usage columns"),
    pytest.param([pod_metric("b", ("c", "1m", "1Mi")), pod_metric("a", ("c", "2m", "2Mi"), namespace="kube-system")],
                 False, True, False, "", True,
                 "NAMESPACE     NAME   CPU(cores)   MEMORY(bytes)   \n"
                 "default       b      1m           1Mi             \n"
                 "kube-system   a      2m           2Mi             \n"
                 "                     ________     ________        \n"
                 "                     3m           3Mi             \n",
                 id="with namespaces, sorted by namespace then name, the sum shifted by one column"),
    pytest.param([pod_metric("b", ("c", "1m", "1Mi")), pod_metric("a", ("c", "2m", "2Mi"), namespace="kube-system")],
                 False, True, True, "", True,
                 "default       b          1m         1Mi   \n"
                 "kube-system   a          2m         2Mi   \n"
                 "              ________   ________   \n"
                 "              3m         3Mi        \n",
                 id="without headers the sum is not shifted by the namespace column, as upstream's"),
    pytest.param([], False, False, False, "", True, "", id="no metrics print nothing"),
]


@pytest.mark.parametrize("metrics,containers,with_namespace,no_headers,sort_by,sum_,want", POD_CASES)
def test_print_pod_metrics(metrics, containers, with_namespace, no_headers, sort_by, sum_, want):
    assert TopCmdPrinter().print_pod_metrics(metrics, containers, with_namespace, no_headers, sort_by, sum_) == want


def names(items):
    return [m["metadata"]["name"] if "metadata" in m else m["name"] for m in items]


@pytest.mark.parametrize("sort_by,want", [
    pytest.param("", ["a", "b", "c"], id="by name by default"),
    pytest.param("cpu", ["b", "c", "a"], id="by cpu, largest first"),
    pytest.param("memory", ["c", "a", "b"], id="by memory, largest first"),
])
def test_node_sorter(sort_by, want):
    metrics = [node_metric("c", "200m", "3Gi"), node_metric("a", "100m", "2Gi"), node_metric("b", "300m", "1Gi")]
    assert names(sort_node_metrics(metrics, sort_by)) == want


@pytest.mark.parametrize("with_namespace,sort_by,want", [
    pytest.param(False, "", ["a", "b", "c"], id="by name alone without namespaces"),
    pytest.param(True, "", ["b", "c", "a"], id="by namespace first with namespaces"),
    pytest.param(True, "cpu", ["a", "b", "c"], id="by the containers' summed cpu"),
    pytest.param(False, "memory", ["c", "a", "b"], id="by the containers' summed memory"),
])
def test_pod_sorter(with_namespace, sort_by, want):
    metrics = [pod_metric("c", ("x", "1m", "5Mi"), namespace="a"),
               pod_metric("a", ("x", "2m", "1Mi"), ("y", "5m", "2Mi"), namespace="z"),
               pod_metric("b", ("x", "4m", "2Mi"), namespace="a")]
    assert names(sort_pod_metrics(metrics, with_namespace, sort_by, ["cpu", "memory"])) == want


@pytest.mark.parametrize("sort_by,want", [
    pytest.param("", ["a", "b"], id="containers by name"),
    pytest.param("cpu", ["b", "a"], id="containers by cpu"),
])
def test_container_sorter(sort_by, want):
    assert names(sort_container_metrics([{"name": "b", "usage": {"cpu": "2m"}}, {"name": "a", "usage": {"cpu": "1m"}}],
                                        sort_by)) == want
