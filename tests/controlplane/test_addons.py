"""kubeadm's add-ons in kubesim's default cluster (kubesim/controlplane/addons.py): what
``kubeadm init`` v1.35 + a CNI leaves in kube-system and kube-public, their pods as a real
kubeadm cluster lists them, and the cluster DNS going through them.

The manifests follow cmd/kubeadm/app/phases/addons/dns/manifests.go and
phases/addons/proxy/manifests.go; the defaulted Deployment, DaemonSet and Service were checked
against a real v1.35 apiserver (``kubectl create --dry-run=server -o json`` of
``addon_objects``): they are equal to kubesim's but for server-owned metadata."""

import json
import re

import pytest

from kubesim.controlplane import addons
from kubesim.testing.cli import Harness


@pytest.fixture
def h(tmp_path):
    return Harness(tmp_path / "st")


def _pods(h, ns="kube-system"):
    return {p["metadata"]["name"]: p for p in json.loads(h.ok(f"get pods -n {ns} -o json"))["items"]}


@pytest.mark.parametrize("kind,ns,name", [
    pytest.param("configmap", "kube-system", "coredns", id="CoreDNS's Corefile ConfigMap"),
    pytest.param("configmap", "kube-system", "kube-proxy", id="kube-proxy's ConfigMap"),
    pytest.param("configmap", "kube-system", "kubeadm-config", id="uploadconfig's ClusterConfiguration"),
    pytest.param("configmap", "kube-system", "kubelet-config", id="the kubelet phase's KubeletConfiguration"),
    pytest.param("configmap", "kube-public", "cluster-info", id="bootstraptoken's cluster-info"),
    pytest.param("serviceaccount", "kube-system", "coredns", id="CoreDNS's ServiceAccount"),
    pytest.param("serviceaccount", "kube-system", "kube-proxy", id="kube-proxy's ServiceAccount"),
    pytest.param("clusterrole", "", "system:coredns", id="CoreDNS's ClusterRole"),
    pytest.param("clusterrolebinding", "", "system:coredns", id="CoreDNS's ClusterRoleBinding"),
    pytest.param("clusterrolebinding", "", "kubeadm:node-proxier", id="kube-proxy bound to system:node-proxier"),
    pytest.param("role", "kube-system", "kube-proxy", id="joining nodes may read kube-proxy's ConfigMap"),
    pytest.param("rolebinding", "kube-system", "kube-proxy", id="bound to the default node token's group"),
    pytest.param("deployment", "kube-system", "coredns", id="the CoreDNS Deployment"),
    pytest.param("daemonset", "kube-system", "kube-proxy", id="the kube-proxy DaemonSet"),
    pytest.param("service", "kube-system", "kube-dns", id="the kube-dns Service"),
])
def test_the_default_cluster_has_what_kubeadm_init_creates(h, kind, ns, name):
    args = f"get {kind} {name} -o name" + (f" -n {ns}" if ns else "")
    assert h.ok(args).strip().endswith("/" + name)


@pytest.mark.parametrize("init", [
    pytest.param("cluster init", id="the default cluster"),
    pytest.param("cluster init --nodes 0", id="a lone control-plane node"),
    pytest.param("cluster init --nodes 4 --zones 2", id="more nodes, in zones"),
])
def test_addon_pods_are_listed_and_ready_as_on_a_kubeadm_cluster(h, init):
    h.ok(init)
    pods = _pods(h)
    nodes = [n["metadata"]["name"] for n in json.loads(h.ok("get nodes -o json"))["items"]]
    coredns = [p for n, p in pods.items() if n.startswith("coredns-")]
    proxies = [p for n, p in pods.items() if n.startswith("kube-proxy-")]
    assert len(coredns) == 2 and all(re.fullmatch(r"coredns-[0-9a-f]{8,10}-[a-z0-9]{5}", p["metadata"]["name"])
                                      for p in coredns)
    assert sorted(p["spec"]["nodeName"] for p in proxies) == sorted(nodes)  # one per node, control plane too
    assert all(re.fullmatch(r"kube-proxy-[a-z0-9]{5}", p["metadata"]["name"]) for p in proxies)
    for p in coredns + proxies:
        assert p["status"]["phase"] == "Running"
        assert {c["type"]: c["status"] for c in p["status"]["conditions"]}["Ready"] == "True"
    # kube-proxy runs in the host's network namespace: its pod IP is its node's
    assert all(p["status"]["podIP"] == p["status"]["hostIP"] for p in proxies)
    assert all(p["status"]["podIP"].startswith("10.244.") for p in coredns)


def test_the_coredns_replicaset_hash_is_the_one_a_real_v1_35_kubeadm_cluster_shows(h):
    # coredns-7d764666f9-xxxxx: the pod-template-hash of kubeadm v1.35's template as the
    # apiserver defaults it (the same bytes on a real cluster, so the same hash)
    h.ok("cluster init")
    assert {n.rsplit("-", 1)[0] for n in _pods(h) if n.startswith("coredns-")} == {"coredns-7d764666f9"}


def test_an_empty_cluster_keeps_the_objects_and_its_addon_pods_wait_for_nodes(h):
    h.ok("cluster init --empty")
    assert h.ok("get nodes -o name") == ""
    pods = _pods(h)
    assert sorted(n.rsplit("-", 2)[0] for n in pods) == ["coredns", "coredns"]  # no nodes, no kube-proxy pods
    assert all(p["status"]["phase"] == "Pending" for p in pods.values())
    assert "10.96.0.10" in h.ok("get svc kube-dns -n kube-system")


def test_the_kube_dns_service_is_kubeadms(h):
    svc = json.loads(h.ok("get svc kube-dns -n kube-system -o json"))
    assert svc["spec"]["clusterIP"] == "10.96.0.10"
    assert [(p["name"], p["port"], p["protocol"]) for p in svc["spec"]["ports"]] == [
        ("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP")]
    assert svc["metadata"]["labels"] == {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                         "kubernetes.io/name": "CoreDNS"}
    assert svc["metadata"]["annotations"] == {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}
    ep = json.loads(h.ok("get endpointslices -n kube-system -l kubernetes.io/service-name=kube-dns -o json"))
    assert len(ep["items"][0]["endpoints"]) == 2


@pytest.mark.parametrize("break_dns,expected", [
    pytest.param("", "Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1",
                 id="CoreDNS answers a Service's name"),
    pytest.param("scale deployment coredns -n kube-system --replicas=0", "connection timed out",
                 id="CoreDNS scaled to 0 leaves kube-dns without endpoints: no name resolves"),
    pytest.param("delete deployment coredns -n kube-system", "connection timed out",
                 id="deleting CoreDNS breaks name resolution"),
    pytest.param("delete service kube-dns -n kube-system", "connection timed out",
                 id="deleting kube-dns leaves 10.96.0.10 without a rule: no stand-in answers for it"),
])
def test_the_pods_dns_goes_through_coredns(h, break_dns, expected):
    h.ok("run bb --image=busybox -- sleep 3600")
    h.ok("advance 5s")  # busybox pulled: the container runs
    if break_dns:
        h.ok(break_dns)
    r = h("exec bb -- nslookup kubernetes.default.svc.cluster.local")
    assert expected in r.out + r.err
    assert (r.code == 0) == (not break_dns)


def test_the_deployment_and_daemonset_are_kubeadms_templates(h):
    dep = json.loads(h.ok("get deploy coredns -n kube-system -o json"))
    spec = dep["spec"]["template"]["spec"]
    c = spec["containers"][0]
    assert dep["spec"]["replicas"] == 2
    assert c["image"] == "registry.k8s.io/coredns/coredns:v1.13.1"
    assert c["resources"] == {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}}
    assert spec["priorityClassName"] == "system-cluster-critical"
    # the Priority admission plugin resolves the class on the pods, not on the template
    assert {p["spec"]["priority"] for n, p in _pods(h).items() if n.startswith("coredns-")} == {2000000000}
    assert spec["serviceAccountName"] == "coredns" and spec["dnsPolicy"] == "Default"
    ds = json.loads(h.ok("get ds kube-proxy -n kube-system -o json"))
    dspec = ds["spec"]["template"]["spec"]
    assert dspec["containers"][0]["image"] == "registry.k8s.io/kube-proxy:v1.35.0"
    assert dspec["hostNetwork"] is True and dspec["tolerations"] == [{"operator": "Exists"}]
    cm = json.loads(h.ok("get cm coredns -n kube-system -o json"))
    assert cm["data"]["Corefile"].startswith(".:53 {\n    errors\n")


@pytest.mark.parametrize("node,address", [
    pytest.param({"status": {"addresses": [{"type": "InternalIP", "address": "172.30.1.2"}]}}, "172.30.1.2",
                 id="the control-plane node's InternalIP"),
    pytest.param(None, "172.30.1.2", id="no control-plane node: the first machine's address"),
])
def test_advertise_address(node, address):
    assert addons.advertise_address(node) == address


@pytest.mark.parametrize("obj,path", [
    pytest.param({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "kube-system"}},
                 "/api/v1/namespaces/kube-system/configmaps/x", id="a core namespaced object"),
    pytest.param({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}},
                 "/apis/rbac.authorization.k8s.io/v1/clusterroles/r", id="a cluster-scoped object of a group"),
])
def test_api_path(obj, path):
    assert addons.api_path(obj) == path
    assert addons.api_path(obj, collection=True) == path.rsplit("/", 1)[0]
