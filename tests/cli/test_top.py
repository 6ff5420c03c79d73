"""kubectl top node|pod through the CLI, on the simulated metrics: tables as kubectl 1.36 prints
them (pkg/cmd/top, pkg/metricsutil), metrics-server's NotFound texts (pkg/api/pod.go, node.go),
kubectl's own errors (TopNodeOptions/TopPodOptions.Validate, RunTopNode, verifyEmptyMetrics), and
usage that follows the ``kubesim.io/behaviour`` load as the clock moves."""

import json

import pytest


def web_pod(name="web", cpu="250m", memory="128Mi", behaviour=None, labels=None):
    meta = {"name": name, "labels": labels or {"app": "web"}}
    if behaviour:
        meta["annotations"] = {"kubesim.io/behaviour": json.dumps(behaviour)}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"nodeName": "node01", "containers": [
        {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": memory}}},
        {"name": "log", "image": "busybox", "command": ["sleep", "infinity"]}]}})


@pytest.fixture
def cluster(kubesim):
    kubesim.ok("cluster init")
    return kubesim


BAD_INPUT = [
    pytest.param("top pod --sort-by=name", "error: --sort-by accepts only cpu or memory\n", id="pod sort-by other than cpu or memory"),
    pytest.param("top node --sort-by=disk", "error: --sort-by accepts only cpu or memory\n", id="node sort-by other than cpu or memory"),
    pytest.param("top pod web -l app=web", "error: only one of NAME or selector can be provided\n", id="pod NAME and a label selector"),
    pytest.param("top pod web --field-selector=spec.nodeName=node01",
                 "error: only one of NAME or selector can be provided\n", id="pod NAME and a field selector"),
    pytest.param("top node node01 -l a=b", "error: only one of NAME or --selector can be provided\n",
                 id="node NAME and a selector"),
    pytest.param("top pod a b", "error: pod [NAME | -l label]\nSee 'kubesim top pod -h' for help and examples\n",
                 id="two pod names"),
    pytest.param("top node a b", "error: node [NAME | -l label]\nSee 'kubesim top node -h' for help and examples\n",
                 id="two node names"),
    pytest.param("top foo", "error: unknown command \"foo\"\nSee 'kubesim top -h' for help and examples\n",
                 id="an unknown subcommand"),
    pytest.param("top node --containers", "error: unknown flag: --containers\nSee 'kubesim top node --help' for usage.\n",
                 id="a pod flag on top node"),
    pytest.param("top pod --show-capacity",
                 "error: unknown flag: --show-capacity\nSee 'kubesim top pod --help' for usage.\n",
                 id="a node flag on top pod"),
    pytest.param("top node", "error: metrics not available yet\n", id="nodes before the first scrape"),
    pytest.param("top pod -l 'a in'", "error: unable to parse requirement: found '' expected: '('\n",
                 id="a label selector that does not parse"),
    pytest.param("top node -l 'a in'", "error: unable to parse requirement: found '' expected: '('\n",
                 id="a node label selector that does not parse"),
    pytest.param("top pod --field-selector=foo", "error: invalid selector: 'foo'; can't understand 'foo'\n",
                 id="a field selector that does not parse"),
    pytest.param("top pod nope", 'Error from server (NotFound): pods "nope" not found\n', id="a pod that does not exist"),
    pytest.param("top node nope", 'Error from server (NotFound): nodes "nope" not found\n',
                 id="a node that does not exist"),
]


@pytest.mark.parametrize("command,err", BAD_INPUT)
def test_bad_input(cluster, command, err):
    r = cluster(command)
    assert (r.code, r.out, r.err) == (1, "", err)


def test_no_pods_and_no_metrics(cluster):
    r = cluster("top pod")
    assert (r.code, r.out, r.err) == (0, "", "No resources found in default namespace.\n")
    r = cluster("top pod -A -l app=none")
    assert (r.code, r.out, r.err) == (0, "", "No resources found\n")


def test_a_new_pod_has_no_metrics_until_it_has_run_for_a_scrape(cluster):
    cluster.ok("apply -f -", web_pod())
    r = cluster("top pod")
    assert (r.code, r.err) == (1, "error: metrics not available yet\n")
    r = cluster("top pod web")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): podmetrics.metrics.k8s.io "default/web" not found\n')
    cluster.ok("advance 18s")  # the image pull, then a scrape
    assert cluster.ok("top pod") == "NAME   CPU(cores)   MEMORY(bytes)   \nweb    200m         102Mi           \n"


def test_a_pod_without_metrics_past_the_creation_delay_is_named(cluster):
    cluster.ok("apply -f -", web_pod("stuck", behaviour={"*": {"image": "notfound"}}))  # ImagePullBackOff
    cluster.ok("advance 2m1s")
    r = cluster("top pod")
    assert (r.code, r.err) == (1, "error: Metrics not available for pod default/stuck, age: 2m1s\n")


def test_top_pod_tables(cluster):
    cluster.ok("apply -f -", web_pod())
    cluster.ok("apply -f -", web_pod("api", cpu="1", memory="1Gi", labels={"app": "api"}))
    cluster.ok("advance 1m")
    # app: 80 % of the requests; log: busybox's idle 0m and 0.5Mi
    assert cluster.ok("top pod --sort-by=cpu") == (
        "NAME   CPU(cores)   MEMORY(bytes)   \n"
        "api    800m         819Mi           \n"
        "web    200m         102Mi           \n")
    assert cluster.ok("top pod web --containers") == (
        "POD   NAME   CPU(cores)   MEMORY(bytes)   \n"
        "web   app    200m         102Mi           \n"
        "web   log    0m           0Mi             \n")
    assert cluster.ok("top pod -l app=web --no-headers") == "web   200m   102Mi   \n"
    assert cluster.ok("top pod --sum") == (
        "NAME   CPU(cores)   MEMORY(bytes)   \n"
        "api    800m         819Mi           \n"
        "web    200m         102Mi           \n"
        "       ________     ________        \n"
        "       1000m        922Mi           \n")
    out = cluster.ok("top pod -A").splitlines()
    assert out[0].split() == ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert [ln.split()[:2] for ln in out[1:3]] == [["default", "api"], ["default", "web"]]
    assert all(ln.split()[0] == "kube-system" for ln in out[3:])


def test_top_node_adds_the_system_overhead_and_shows_percentages(cluster):
    cluster.ok("apply -f -", web_pod())
    cluster.ok("advance 1m")
    alloc = json.loads(cluster.ok("get node node01 -o json"))["status"]["allocatable"]
    assert alloc["cpu"] == "4"
    row = cluster.ok("top node node01 --no-headers").split()
    # 100m overhead + 200m + kubeadm's add-ons on node01: a CoreDNS pod (80% of its 100m, 70Mi
    # requests: 80m, 56Mi) and kube-proxy (idle: 1m, 20Mi) = 381m, 9% of 4;
    # 512Mi + 102.4Mi (+ busybox's 0.5Mi) + 56Mi + 20Mi = 690Mi
    assert row[:3] == ["node01", "381m", "9%"] and row[3] == "690Mi"
    nodes = [ln.split()[0] for ln in cluster.ok("top node --sort-by=memory").splitlines()[1:]]
    assert nodes[0] == "controlplane"


def test_a_stopped_kubelet_leaves_its_node_unknown(cluster):
    cluster.ok("advance 1m")
    cluster.ok("node stop node02")
    cluster.ok("advance 1m")
    assert cluster.ok("top node").splitlines()[-1].split() == ["node02"] + ["<unknown>"] * 4
    r = cluster("top node node02")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): nodemetrics.metrics.k8s.io "node02" not found\n')


def test_usage_follows_the_behaviour_load_over_simulated_time(cluster):
    cluster.ok("apply -f -", web_pod(behaviour={"app": {"memory": "300Mi",
                                                        "load": [{"after": "2m", "cpu": "900m"},
                                                                 {"after": "10m", "cpu": "50m"}]}}))
    cluster.ok("advance 1m")
    assert cluster.ok("top pod web --containers --no-headers").splitlines()[0].split() == ["web", "app", "200m", "300Mi"]
    cluster.ok("advance 2m")
    assert cluster.ok("top pod web --no-headers").split() == ["web", "900m", "300Mi"]
    cluster.ok("advance 10m")
    assert cluster.ok("top pod web --no-headers").split() == ["web", "50m", "300Mi"]


def test_show_swap_on_nodes_that_report_no_swap(cluster):
    cluster.ok("apply -f -", web_pod())
    cluster.ok("advance 1m")
    # kubesim's nodes report no nodeInfo.swap: RegisterMissingResource; pods have no swap usage
    header, row = cluster.ok("top node node01 --show-swap").splitlines()
    assert header.split()[-2:] == ["SWAP(bytes)", "SWAP(%)"] and row.split()[-2:] == ["<unknown>", "<unknown>"]
    assert cluster.ok("top pod --show-swap --no-headers") == "web   200m   102Mi   0Mi   \n"


RAW = [
    pytest.param("/apis/metrics.k8s.io/v1beta1/nodes/node01", "NodeMetrics", id="one node's metrics"),
    pytest.param("/apis/metrics.k8s.io/v1beta1/nodes", "NodeMetricsList", id="the nodes' metrics"),
    pytest.param("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web", "PodMetrics", id="one pod's metrics"),
    pytest.param("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "PodMetricsList", id="a namespace's pods"),
    pytest.param("/apis/metrics.k8s.io/v1beta1/pods", "PodMetricsList", id="every namespace's pods"),
]


@pytest.mark.parametrize("path,kind", RAW)
def test_get_raw_serves_the_metrics_api(cluster, path, kind):
    cluster.ok("apply -f -", web_pod())
    cluster.ok("advance 1m")
    body = json.loads(cluster.ok(f"get --raw {path}"))
    assert body["kind"] == kind and body["apiVersion"] == "metrics.k8s.io/v1beta1"
    if kind.endswith("List"):
        assert body["metadata"] == {} and body["items"] and "kind" not in body["items"][0]
    if kind == "PodMetrics":
        assert body["containers"] == [{"name": "app", "usage": {"cpu": "200000000n", "memory": "104857Ki"}},
                                       {"name": "log", "usage": {"cpu": "0n", "memory": "512Ki"}}]


def test_get_raw_of_a_pod_without_metrics(cluster):
    cluster.ok("apply -f -", web_pod())
    r = cluster("get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): podmetrics.metrics.k8s.io "default/web" not found\n')
