"""The kubelets' settle-loop steps (kubesim.kubelet.steps), with the node lifecycle controller's, against an in-memory store: static
pods and mirror pods, crash loops across ``advance``, a node whose kubelet stops."""

from __future__ import annotations

import copy
import os

import pytest

from kubesim.apiserver.registry.core.pod import check_graceful_delete
from kubesim.apiserver import objects
from kubesim.controlplane import components
from kubesim.kubelet import node as kubelet_node
from kubesim.kubelet import staticpods as SP
from kubesim.kubelet import steps
from kubesim.kubelet.image_service import pull_seconds
from kubesim.kubelet.format import format_time
from kubesim.printers.core import pod_ready_status_restarts
from kubesim.testing.kubelet import T0, container, node, pod


class FakeStore:
    def __init__(self):
        self.objs: dict[tuple, dict] = {}
        self.metas: dict = {}
        self.rv = 0
        self.uids = 0

    def _k(self, kind, ns, name):
        return (kind, ns or "", name)

    def get(self, kind, ns, name):
        return self.objs.get(self._k(kind, ns, name))

    def list(self, kind, namespace=None):
        out = [o for (k, ns, _), o in self.objs.items() if k == kind and (namespace is None or ns == namespace)]
        return sorted(out, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))

    def iter_kind(self, kind):
        return iter(self.list(kind))

    def put(self, obj):
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        kind = obj.get("kind", "Pod")
        self.objs[self._k(kind, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])] = obj
        return obj

    def create(self, obj, now):
        self.uids += 1
        obj["metadata"].setdefault("uid", f"uid-{self.uids}")
        obj["metadata"].setdefault("creationTimestamp", now)
        return self.put(obj)

    def delete(self, kind, ns, name):
        return self.objs.pop(self._k(kind, ns, name), None)

    # the real store's batched reads, one object at a time (kubesim.store.Store)
    def get_many(self, keys):
        return [o for k in keys if (o := self.get(*k)) is not None]

    def objects(self, keys, omit=(), aligned=False):
        got = [self.get(*k) for k in keys]
        return got if aligned else [o for o in got if o is not None]

    def already_read(self, keys):
        return {k: self.get(*k) for k in keys}  # (everything is in memory)

    def pod_keys_on_node(self, node):
        return [k for k, o in self.objs.items() if k[0] == "Pod" and (o.get("spec") or {}).get("nodeName") == node]

    def pod_keys_on_nodes(self, nodes):
        return {n: self.pod_keys_on_node(n) for n in nodes}

    def keys_annotated(self, kind, annotation):
        return [k for k, o in self.objs.items()
                if k[0] == kind and annotation in (o["metadata"].get("annotations") or {})]

    def prefetch_meta(self, keys):
        pass

    def touch_meta(self, key):
        pass

    def kind_resource_version(self, kind):
        return 0  # unknown: the node lifecycle step looks every time

    def meta(self, key, default=None):
        return copy.deepcopy(self.metas.get(key, default))

    def set_meta(self, key, value):
        self.metas[key] = copy.deepcopy(value)


class FakeCluster:
    def __init__(self, state_dir):
        self.store = FakeStore()
        self.t = T0
        self.events: list[tuple] = []
        self.next_due = None
        self.dir = state_dir

    def now(self):
        return self.t

    def stamp(self):
        return format_time(self.t)

    def record(self, obj, type_, reason, message, component, host="", field_path="", **kw):
        self.events.append((obj["metadata"]["name"], type_, reason, message))

    def wake_at(self, t):
        self.next_due = t if self.next_due is None else min(self.next_due, t)

    def path(self, node_name):
        return SP.static_pod_dir(self.dir, node_name)

    def _static_pods(self, c):
        return steps.static_pods(c, c.path, lambda pod: objects.create_mirror_pod(c, pod))

    def settle(self):
        for _ in range(50):
            changed = False
            self.next_due = None
            for step in (components.node_lifecycle, self._static_pods, steps.sync_pods):
                changed |= bool(step(self))
            if not changed:
                return
        raise AssertionError("did not settle")

    def advance(self, seconds):
        self.t += seconds
        self.settle()

    def pods(self, ns=None):
        return {p["metadata"]["name"]: pod_ready_status_restarts(p, self.t)
                for p in self.store.list("Pod", ns)}


@pytest.fixture
def cluster(tmp_path):
    c = FakeCluster(str(tmp_path))
    for n in (node("controlplane", ip="172.30.1.2", cidr="10.244.0.0/24",
                   labels={"node-role.kubernetes.io/control-plane": ""}), node("node01", ip="172.30.2.2")):
        c.store.put(n)
    for ns in ("default", "kube-system"):
        c.store.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    SP.write_control_plane(c.path("controlplane"), "172.30.1.2", "controlplane")
    c.settle()
    return c


def test_the_control_plane_runs_as_mirror_pods(cluster):
    assert cluster.pods("kube-system") == {
        "etcd-controlplane": ("0/1", "Running", "0"), "kube-apiserver-controlplane": ("0/1", "Running", "0"),
        "kube-controller-manager-controlplane": ("0/1", "Running", "0"), "kube-scheduler-controlplane": ("0/1", "Running", "0")}
    cluster.advance(11)  # startup probes at 10 s, readiness every second after
    assert set(cluster.pods("kube-system").values()) == {("1/1", "Running", "0")}
    api = cluster.store.get("Pod", "kube-system", "kube-apiserver-controlplane")
    assert api["status"]["podIP"] == "172.30.1.2" and api["spec"]["priority"] == 2000001000
    assert api["metadata"]["ownerReferences"][0]["kind"] == "Node"


def test_a_static_pod_comes_back_when_deleted_and_goes_with_its_file(cluster):
    d = cluster.path("node01")
    os.makedirs(d)
    with open(os.path.join(d, "nginx.yaml"), "w") as f:
        f.write("apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n")
    cluster.advance(1)
    assert cluster.pods("default")["nginx-node01"] == ("0/1", "ContainerCreating", "0")  # pulling nginx
    cluster.advance(3)
    mirror = cluster.store.get("Pod", "default", "nginx-node01")
    assert mirror is not None and cluster.pods("default")["nginx-node01"] == ("1/1", "Running", "0")
    started = mirror["status"]["startTime"]
    uid = mirror["metadata"]["uid"]
    # kubectl delete pod nginx-node01: the mirror pod goes at once and the kubelet recreates it
    assert check_graceful_delete(mirror, None, cluster.t) == 0
    cluster.store.delete("Pod", "default", "nginx-node01")
    cluster.advance(5)
    back = cluster.store.get("Pod", "default", "nginx-node01")
    assert back["metadata"]["uid"] != uid and back["status"]["startTime"] == started  # same containers
    os.remove(os.path.join(d, "nginx.yaml"))
    cluster.advance(1)
    assert cluster.store.get("Pod", "default", "nginx-node01") is None


def test_a_static_pod_referencing_a_secret_is_refused(cluster):
    d = cluster.path("node01")
    os.makedirs(d)
    with open(os.path.join(d, "bad.yaml"), "w") as f:
        f.write("apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
                "    envFrom:\n    - secretRef:\n        name: creds\n")
    cluster.advance(1)
    assert cluster.store.get("Pod", "default", "bad-node01") is None
    assert cluster.store.meta("kubelet/node01/manifest-errors") == [[os.path.join(d, "bad.yaml"),
                                                                    "static pods may not reference secrets"]]


def test_a_crash_loop_moves_on_when_time_is_advanced(cluster):
    p = pod("bb", container("bb", "busybox"))
    cluster.store.create(p, cluster.stamp())
    cluster.settle()
    pulled = T0 + pull_seconds("node01", "busybox", present=False)
    assert cluster.pods("default")["bb"] == ("0/1", "ContainerCreating", "0") and cluster.next_due == pulled
    cluster.advance(1)
    assert cluster.pods("default")["bb"] == ("0/1", "CrashLoopBackOff", "1 (1s ago)")
    cluster.advance(3599)
    assert cluster.pods("default")["bb"] == ("0/1", "CrashLoopBackOff", "16 (4m50s ago)")


def test_read_only_commands_do_not_resync_pods_that_are_not_due(cluster):
    cluster.store.create(pod("web", container("web", "nginx")), cluster.stamp())
    cluster.settle()
    cluster.advance(5)  # the image pull
    rv = cluster.store.get("Pod", "default", "web")["metadata"]["resourceVersion"]
    cluster.advance(100)
    assert cluster.store.get("Pod", "default", "web")["metadata"]["resourceVersion"] == rv


def test_a_stopped_node_is_tainted_and_its_pods_stay_terminating_until_it_returns(cluster):
    """The eviction itself is the taint eviction controller's (tests/cli/test_taint_eviction.py);
    here the pod is deleted as it would delete it, while the kubelet is stopped."""
    web = pod("web", container("web", "nginx"), tolerations=[
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}])
    cluster.store.create(web, cluster.stamp())
    cluster.settle()
    n = cluster.store.get("Node", "", "node01")
    kubelet_node.stop_kubelet(n, cluster.t)
    cluster.store.put(n)
    cluster.advance(50)
    n = cluster.store.get("Node", "", "node01")
    assert [t["key"] for t in n["spec"]["taints"]] == ["node.kubernetes.io/unreachable"] * 2
    assert ("node01", "Normal", "NodeNotReady", "Node node01 status is now: NodeNotReady") in cluster.events
    p = cluster.store.get("Pod", "default", "web")
    assert check_graceful_delete(p, None, cluster.t) == 30
    cluster.store.put(p)
    cluster.advance(300)
    p = cluster.store.get("Pod", "default", "web")
    assert p["metadata"]["deletionTimestamp"] and pod_ready_status_restarts(p, cluster.t)[1] == "Terminating"
    # nobody runs the pod down while the kubelet is stopped; when it starts again the pod goes
    n = cluster.store.get("Node", "", "node01")
    kubelet_node.start_kubelet(n, cluster.t)
    cluster.store.put(n)
    cluster.advance(1)
    assert cluster.store.get("Pod", "default", "web") is None
    assert cluster.store.get("Node", "", "node01")["spec"].get("taints") is None


def test_a_terminated_pod_has_its_final_status_written_before_it_is_deleted(cluster):
    """The status manager updates the pod's status (its containers terminated), then deletes it
    (pkg/kubelet/status/status_manager.go syncPod): two writes a watch sees in that order."""
    p = pod("slow", container("c", "busybox", command=["sleep", "3600"]), node_name="node01")
    cluster.store.create(p, cluster.stamp())
    cluster.settle()
    cluster.advance(1)  # busybox pulled
    p = cluster.store.get("Pod", "default", "slow")
    p["metadata"]["deletionTimestamp"] = format_time(cluster.t + 30)
    p["metadata"]["deletionGracePeriodSeconds"] = 30
    cluster.store.put(p)
    writes = []
    put, delete = cluster.store.put, cluster.store.delete

    def spy_put(o):
        if o["kind"] == "Pod":  # (a Node's write is its image list, at the image cache's refresh)
            writes.append(("put", o["status"]["phase"]))
        return put(o)

    cluster.store.put = spy_put
    cluster.store.delete = lambda *k: writes.append(("delete", k[2])) or delete(*k)
    cluster.advance(30)
    assert writes[-2:] == [("put", "Failed"), ("delete", "slow")]


def test_a_pass_that_lists_a_podless_nodes_images_reports_a_change(tmp_path):
    """A node without pods whose kubelet pulled an image after the cache's last refresh lists
    it at the next one, from the index's wake; that Node write is a change of the pass (so
    the settle loop runs another round over it), and a pass before the refresh writes nothing."""
    cluster = FakeCluster(str(tmp_path))
    cluster.store.put(node("node01", ip="172.30.2.2"))
    pulled = T0 + 5
    cluster.store.set_meta(steps.IMAGES_META.format(node="node01"), {
        "images": {"docker.io/library/python:3.12": {"at": pulled, "size": 400_000_000}},
        "pulls": [[T0, pulled, "docker.io/library/python:3.12"]]})
    cluster.store.set_meta(steps.INDEX_META, {**(cluster.store.meta(steps.INDEX_META) or {}),
                                              "node01": [T0 + 30, False]})

    def listed():
        return [n for i in cluster.store.get("Node", "", "node01")["status"].get("images") or []
                for n in i["names"]]

    cluster.t = T0 + 20
    assert steps.sync_pods(cluster) is False
    assert "docker.io/library/python:3.12" not in listed()
    cluster.t = T0 + 30
    assert steps.sync_pods(cluster) is True
    assert "docker.io/library/python:3.12" in listed()
