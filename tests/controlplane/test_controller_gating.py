"""Controllers run only when something they watch changed or a wake they asked for is due
(engine/components.py ``_controller_due``), the kubelets' pass visits only the nodes whose
pods or Node changed or that the kubelet index (kubelet/steps.py ``INDEX_META``) says have
something due, and the node lifecycle controllers skip Nodes found quiet until a Node is written. The safety net: every scenario below leaves exactly the same stored objects,
resourceVersions and metadata as controllers run on every settle round and kubelets visiting
every node, as before; and an unrelated bare pod does not run the controllers at all."""

from __future__ import annotations

import pytest

from kubesim.controlplane import components
from kubesim.testing.cli import Harness, snapshot

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  minReadySeconds: MRS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        readinessProbe: {exec: {command: ["true"]}, initialDelaySeconds: 5, periodSeconds: 10}
"""

REPLICASET = """apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  selector: {matchLabels: {tier: cache}}
  template:
    metadata: {labels: {tier: cache}}
    spec: {containers: [{name: c, image: redis}]}
"""

ORPHAN = """apiVersion: v1
kind: Pod
metadata: {name: stray, labels: {tier: cache}}
spec: {containers: [{name: c, image: redis}]}
"""

BARE = """apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: c, image: nginx}]}
"""

DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: c, image: agent}]
"""

PDB = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
"""

NODE = """apiVersion: v1
kind: Node
metadata: {name: node03}
"""


def _first_pod(h: Harness, selector: str) -> str:
    return h.ok(f"get pods -l {selector} -o name").split()[0].split("/")[1]


def deleted_pod_is_replaced(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("advance 30s")
    h.ok(f"delete pod {_first_pod(h, 'app=web')}")
    h.ok("advance 40s")
    h.ok(f"delete pod {_first_pod(h, 'app=web')} --now")
    h.ok("advance 20s")


def orphan_matching_a_selector_is_adopted(h):
    h.ok("apply -f -", REPLICASET)
    h.ok("advance 10s")
    h.ok("apply -f -", ORPHAN)
    h.ok("advance 10s")


def pod_relabelled_out_of_a_selector_is_released_and_replaced(h):
    h.ok("apply -f -", REPLICASET)
    h.ok("advance 10s")
    h.ok(f"label pod {_first_pod(h, 'tier=cache')} tier=other --overwrite")
    h.ok("advance 10s")


def readiness_after_min_ready_seconds_updates_status(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "30"))
    for _ in range(4):
        h.ok("advance 12s")
    h.ok("scale deployment web --replicas=1")
    h.ok("advance 60s")


def bare_pod_beside_a_deployment_comes_and_goes(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("advance 20s")
    h.ok("apply -f -", BARE)
    h.ok("advance 20s")
    h.ok("delete pod bare --now")
    h.ok("apply -f -", BARE.replace("name: bare}", "name: bare, labels: {app: web}}"))
    h.ok("advance 20s")


def pdb_and_eviction(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("apply -f -", PDB)
    h.ok("advance 30s")
    h("drain node01 --ignore-daemonsets --delete-emptydir-data")
    h.ok("advance 3m")
    h.ok("uncordon node01")
    h.ok("advance 3m")


def deleting_an_owner_with_each_propagation_policy(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("apply -f -", REPLICASET)
    h.ok("advance 20s")
    h.ok("delete deployment web --cascade=foreground")
    h.ok("advance 10s")
    h.ok("delete replicaset rs --cascade=orphan")
    h.ok("advance 10s")


def daemonset_follows_nodes(h):
    h.ok("apply -f -", DAEMONSET)
    h.ok("advance 10s")
    h.ok("apply -f -", NODE)
    h.ok("advance 10s")
    h.ok(f"delete pod {_first_pod(h, 'app=agent')} --now")
    h.ok("advance 10s")


CRASHING = """apiVersion: v1
kind: Pod
metadata: {name: crash}
spec:
  containers:
  - name: c
    image: busybox
    command: [sh, -c, "exit 1"]
"""

PROBED = """apiVersion: v1
kind: Pod
metadata: {name: probed}
spec:
  containers:
  - name: c
    image: nginx
    readinessProbe: {exec: {command: ["true"]}, initialDelaySeconds: 15, periodSeconds: 10}
"""


def kubelet_back_off_and_probes_across_commands(h):
    h.ok("apply -f -", CRASHING)
    h.ok("apply -f -", PROBED)
    for step in ("5s", "12s", "30s", "1m", "2m"):
        h.ok(f"advance {step}")
        h.ok("get pods")


MOUNTING = """apiVersion: v1
kind: Pod
metadata: {name: mounting}
spec:
  nodeName: node01
  containers:
  - name: c
    image: busybox
    command: [sh, -c, "cat /etc/cfg/k; sleep 3600"]
    volumeMounts: [{name: cfg, mountPath: /etc/cfg}]
  volumes: [{name: cfg, configMap: {name: settings}}]
"""

SPREAD = "\n---\n".join(f"""apiVersion: v1
kind: Pod
metadata: {{name: spread-{i}}}
spec:
  nodeName: node0{1 + i % 2}
  terminationGracePeriodSeconds: {5 * i}
  containers:
  - name: c
    image: {("nginx", "redis:7", "busybox")[i % 3]}
    command: {'[sleep, "3600"]' if i % 3 == 2 else '[]'}
    readinessProbe: {{exec: {{command: ["true"]}}, periodSeconds: {5 + i}}}
""" for i in range(4))


def kubelet_mounts_pulls_probes_and_grace_over_nodes(h):
    # the kubelet's later passes of a command skip the nodes it left at rest (steps.left_at_rest)
    h.ok("apply -f -", MOUNTING)
    h.ok("apply -f -", SPREAD)
    h.ok("advance 5s")
    h.ok("create configmap settings --from-literal=k=v")
    h.ok("advance 10s")
    h.ok("delete pod spread-3 spread-2 --wait=false")
    h.ok("apply -f -", CRASHING)
    h.ok("advance 3s")
    h.ok("advance 40s")


def kubelet_stopped_and_started(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("advance 20s")
    h.ok("node stop node01")
    h.ok("advance 30s")
    h.ok("node start node01")
    h.ok("advance 30s")


def deployment_and_daemonset_side_by_side(h):
    h.ok("apply -f -", DAEMONSET)
    h.ok("advance 10s")
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("advance 20s")
    h.ok(f"delete pod {_first_pod(h, 'app=agent')}")
    h.ok("scale deployment web --replicas=1")
    h.ok("advance 30s")
    h.ok("apply -f -", ORPHAN.replace("tier: cache", "app: agent"))
    h.ok("advance 10s")


SELECTIVE_DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: picky}
spec:
  selector: {matchLabels: {app: picky}}
  template:
    metadata: {labels: {app: picky}}
    spec:
      nodeSelector: {agent: "yes"}
      containers: [{name: c, image: agent}]
"""


def daemonset_follows_node_labels_and_taints_not_their_status(h):
    h.ok("apply -f -", SELECTIVE_DAEMONSET)
    h.ok("label node node01 agent=yes")
    h.ok("advance 10s")
    h.ok("apply -f -", BARE)  # its image pulled: node01's status changes
    h.ok("advance 10s")
    h.ok("taint node node01 k=v:NoExecute")
    h.ok("advance 10s")
    h.ok("taint node node01 k-")
    h.ok("label node node02 agent=yes")
    h.ok("advance 10s")
    h.ok("label node node01 agent-")
    h.ok("advance 10s")


SERVICE = """apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
"""


def service_endpoints_follow_pods_and_node_zones(h):
    h.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    h.ok("apply -f -", SERVICE)
    h.ok("advance 20s")
    h.ok("apply -f -", BARE.replace("image: nginx", "image: busybox"))  # a new image in a node's status
    h.ok("advance 20s")
    h.ok("label nodes --all topology.kubernetes.io/zone=z1")
    h.ok("label nodes node01 topology.kubernetes.io/zone=z2 --overwrite")
    h.ok("advance 20s")
    h.ok("apply -f -", NODE)
    h.ok("advance 20s")


SCENARIOS = [daemonset_follows_node_labels_and_taints_not_their_status,
             kubelet_back_off_and_probes_across_commands, kubelet_stopped_and_started,
             kubelet_mounts_pulls_probes_and_grace_over_nodes,
             service_endpoints_follow_pods_and_node_zones,
             deleted_pod_is_replaced, orphan_matching_a_selector_is_adopted,
             pod_relabelled_out_of_a_selector_is_released_and_replaced,
             readiness_after_min_ready_seconds_updates_status, bare_pod_beside_a_deployment_comes_and_goes,
             pdb_and_eviction, deleting_an_owner_with_each_propagation_policy, daemonset_follows_nodes,
             deployment_and_daemonset_side_by_side]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.replace("_", " "))
def test_gated_controllers_and_kubelets_leave_the_same_state_as_running_them_all_every_round(
        tmp_path, monkeypatch, scenario):
    import shutil

    h = Harness(tmp_path / "state")  # one path for both runs: static pods' hashes include it
    scenario(h)
    gated = _rows(h)
    shutil.rmtree(h.state_dir)
    from kubesim.kubelet import steps

    monkeypatch.setattr(components, "_controller_due", lambda *a: True)
    monkeypatch.setattr(components, "_endpoints_due", lambda *a: True)
    monkeypatch.setattr(components, "_targets", lambda *a: None)  # every object, every pass
    monkeypatch.setattr(components, "_collector_view", lambda *a: None)  # the collector too
    full_pass = steps.sync_pods
    monkeypatch.setattr(steps, "sync_pods", lambda ctx, only_nodes=None, rested_nodes=None: full_pass(ctx))
    from kubesim.controllers import nodelifecycle

    monkeypatch.setattr(nodelifecycle, "pending", lambda nodes: True)  # no quiet-nodes shortcut
    scenario(h)
    assert gated == _rows(h)


def _rows(h: Harness) -> list:
    """Every stored row but the fingerprint of the static pod directories (their mtimes) and
    the gate's own mark of the last fixed point (run every round, the collector's repeated
    no-op delete of an owner still held by a finalizer keeps the loop from one: see
    ``deleting_an_owner_with_each_propagation_policy``)."""
    return [r for r in snapshot(h.state_dir)
            if r[1] not in ("settle.staticPods", components.SETTLED_RV_META, components.NODE_LIFECYCLE_QUIET_META)]


def test_a_bare_pod_beside_a_replicaset_does_not_run_the_workload_controllers(kubesim, monkeypatch):
    from kubesim.controllers import deployment, garbagecollector, replicaset

    kubesim.ok("apply -f -", REPLICASET)
    kubesim.ok("advance 10s")
    ran = []
    for mod in (replicaset, deployment, garbagecollector):
        real = mod.sync
        monkeypatch.setattr(mod, "sync", lambda view, real=real, name=mod.__name__: ran.append(name) or real(view))
    kubesim.ok("apply -f -", BARE)
    kubesim.ok("delete pod bare --now")
    assert ran == []
    kubesim.ok("apply -f -", ORPHAN)  # an orphan some selector matches: the ReplicaSet adopts it
    assert "kubesim.controllers.replicaset" in ran
    assert len(kubesim.ok("get pods -l tier=cache -o name").split()) == 2  # adopted, then one too many


@pytest.mark.parametrize(("command", "runs"), [
    pytest.param("apply -f - BUSYBOX", False,
                 id="a pod no Service selects, whose image its node posts in its status, does not run them"),
    pytest.param("label node node01 topology.kubernetes.io/zone=z9", True,
                 id="a node given a zone runs them (its endpoints carry it)"),
    pytest.param("apply -f - NODE", True, id="a new node runs them"),
    pytest.param("apply -f - WEB", True, id="a pod a Service selects runs them"),
])
def test_the_endpoint_controllers_look_at_a_node_only_for_its_zone(kubesim, monkeypatch, command, runs):
    """components._endpoints_due: all the endpoint controllers read of a Node is its existence
    and zone label (endpointslice.pod_to_endpoint), so the image lists the kubelets post do not
    make them list every pod again."""
    from kubesim.controllers import endpoints

    kubesim.ok("apply -f -", SERVICE)
    kubesim.ok("advance 10s")
    ran = []
    real = endpoints.sync
    monkeypatch.setattr(endpoints, "sync", lambda view: ran.append(1) or real(view))
    stdin = {"BUSYBOX": BARE.replace("image: nginx", "image: busybox"), "NODE": NODE,
             "WEB": BARE.replace("name: bare}", "name: bare, labels: {app: web}}")}
    verb, _, doc = command.partition(" - ")
    kubesim.ok(verb + (" -" if doc else ""), stdin.get(doc, ""))
    kubesim.ok("advance 1m")  # (an image is pulled in simulated time)
    assert bool(ran) == runs
    if not runs:  # the kubelet did post the image: the Node was written
        assert "busybox" in kubesim.ok("get nodes -o yaml")


def test_a_write_after_the_last_fixed_point_makes_every_controller_look(kubesim, monkeypatch):
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    kubesim.ok("apply -f -", REPLICASET)
    kubesim.ok("advance 10s")
    # a write no settle followed (as a tool editing the state would leave it)
    name = _first_pod(kubesim, "tier=cache")
    store = Store(kubesim.state_dir).open()
    pod = store.get("Pod", "default", name)
    store.put(pod)
    store.commit()
    store = Store(kubesim.state_dir).open()
    cluster = Cluster(store, kubesim.vars)
    try:
        assert store.meta(components.SETTLED_RV_META) != store.opened_resource_version()
        assert components._controller_due(cluster, "replicaset", ("ReplicaSet",), components.WORKLOAD_KINDS)
    finally:
        store.rollback()


def test_the_kubelets_pass_reads_only_the_memory_of_nodes_with_something_to_do(kubesim, monkeypatch):
    from kubesim.store import Store

    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    kubesim.ok("advance 1m")  # the probes' wakes stay registered; nothing is due for a while
    read = []
    real = Store.meta

    def meta(self, key, default=None):
        if key.startswith("kubelet/") and key.count("/") == 1 and key not in ("kubelet/index",
                                                                                "kubelet/nodes-with-manifest-errors"):
            read.append(key)
        return real(self, key, default)

    monkeypatch.setattr(Store, "meta", meta)
    kubesim.ok("apply -f -", BARE.replace("spec: {", "spec: {nodeName: node02, "))
    assert set(read) == {"kubelet/node02"}
    read.clear()
    kubesim.ok("get pods")  # nothing due: no settle at all
    assert read == []


def test_the_kubelet_does_not_visit_again_a_node_it_left_at_rest_this_command(kubesim, monkeypatch):
    from kubesim.kubelet import steps

    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    kubesim.ok("advance 1m")
    visits = []
    real = steps.sync_pods

    def sync_pods(ctx, only_nodes=None, rested_nodes=None):
        visits.append(sorted(only_nodes) if only_nodes is not None else None)
        return real(ctx, only_nodes=only_nodes, rested_nodes=rested_nodes)

    monkeypatch.setattr(steps, "sync_pods", sync_pods)
    kubesim.ok("apply -f -", BARE.replace("spec: {", "spec: {nodeName: node02, "))
    # its pod is synced in the first pass; the status that pass wrote does not wake it again
    assert visits[0] == ["node02"] and len(visits) >= 2
    assert all(v == [] for v in visits[1:])
    visits.clear()
    kubesim.ok("label pod bare x=y")  # a write another component made: visited again
    assert visits[0] == ["node02"]
    assert all(v == [] for v in visits[1:])


def test_the_baseline_follows_this_command_s_own_fixed_points_and_is_unknown_after_a_wipe(kubesim):
    from kubesim.apiserver.context import Cluster
    from kubesim.controlplane.settle import settle
    from kubesim.store import Store

    kubesim.ok("apply -f -", REPLICASET)
    store = Store(kubesim.state_dir).open()
    cluster = Cluster(store, kubesim.vars)
    try:
        opened = store.opened_resource_version()
        assert components.settled_baseline(cluster) == opened  # the last command ended at rest
        pod = store.get("Pod", "default", store.keys_containing("Pod", "tier")[0][2])
        pod["metadata"]["labels"]["extra"] = "x"
        store.put(pod)  # this command's own write: seen through changed_keys, the baseline holds
        assert components.settled_baseline(cluster) == opened
        settle(cluster)
        assert components.settled_baseline(cluster) == store.resource_version() > opened
        store.wipe()
        assert components.settled_baseline(cluster) is None
    finally:
        store.rollback()


def test_a_second_deployment_does_not_resync_the_first_one_s_replicaset(kubesim, monkeypatch):
    """The ReplicaSet and Deployment controllers visit only the owners this command's writes
    concern (components._targets), as upstream's work queues hold only the enqueued keys."""
    from kubesim.controllers import deployment, replicaset

    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    kubesim.ok("advance 30s")
    synced = []
    real_rs, real_d = replicaset.sync_replicaset, deployment.sync_deployment
    monkeypatch.setattr(replicaset, "sync_replicaset",
                        lambda view, rs: synced.append(rs["metadata"]["name"]) or real_rs(view, rs))
    monkeypatch.setattr(deployment, "sync_deployment",
                        lambda view, d: synced.append(d["metadata"]["name"]) or real_d(view, d))
    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0").replace("web", "api"))
    assert synced and all(n.startswith("api") for n in synced), synced


@pytest.mark.parametrize(("setup", "write", "quiet"), [
    pytest.param(DAEMONSET, DEPLOYMENT.replace("MRS", "0"), "daemonset",
                 id="a Deployment and its pods do not resync a DaemonSet"),
    pytest.param(REPLICASET, DAEMONSET, "replicaset",
                 id="a DaemonSet's pods do not resync a ReplicaSet"),
])
def test_a_pod_another_kind_controls_does_not_wake_the_controller(kubesim, monkeypatch, setup, write, quiet):
    """The DaemonSet and ReplicaSet controllers' pod handlers look at a pod's ControllerRef
    alone, or for an orphan at the selectors that may adopt it (daemon_controller.go and
    replica_set.go addPod/updatePod/deletePod): components.CONTROLLED_KIND."""
    import importlib

    mod = importlib.import_module(f"kubesim.controllers.{quiet}")
    kubesim.ok("apply -f -", setup)
    kubesim.ok("advance 10s")
    ran = []
    real = mod.sync
    monkeypatch.setattr(mod, "sync", lambda view: ran.append(1) or real(view))
    kubesim.ok("apply -f -", write)  # (a Node's new images, pulled later, would: updateNode)
    assert ran == []
    # an orphan the quiet controller's selector matches wakes it (adoption)
    kubesim.ok("apply -f -", ORPHAN.replace("tier: cache", "app: agent" if quiet == "daemonset" else "tier: cache"))
    assert ran


def test_the_collector_looks_at_what_the_command_wrote_and_the_dependents_of_owners_it_wrote(kubesim, monkeypatch):
    """components._collector_view: as the graph builder processes only its informers' events,
    a sync after a settled command lists the objects written and the dependents of owners
    written or deleted, not every pod (the gating scenarios check it leaves the same state)."""
    from kubesim.controllers import garbagecollector

    kubesim.ok("apply -f -", REPLICASET)
    kubesim.ok("apply -f -", BARE)
    kubesim.ok("advance 10s")
    listed: list[set[str]] = []
    real = garbagecollector.sync
    monkeypatch.setattr(garbagecollector, "sync", lambda view: listed.append(
        {p["metadata"]["name"] for p in view.list("Pod")}) or real(view))
    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    assert listed and all("bare" not in names and not any(n.startswith("rs-") for n in names) for names in listed)
    assert any(len([n for n in names if n.startswith("web-")]) == 3 for names in listed)
    listed.clear()
    kubesim.ok("delete replicaset rs --cascade=orphan")  # its pods lose their ControllerRef
    assert any(len([n for n in names if n.startswith("rs-")]) == 2 for names in listed)
    assert kubesim.ok("get pods -l tier=cache -o jsonpath={.items[*].metadata.ownerReferences}") == ""


INTOLERANT_DAEMONSET = DAEMONSET.replace("      tolerations: [{operator: Exists}]\n", "")


@pytest.mark.parametrize("daemonset, write, runs", [
    # (pkg/controller/daemon/daemon_controller_test.go TestUpdateNode, through the CLI)
    pytest.param(DAEMONSET, "apply -f - (a pod whose image its node pulls)", False,
                 id="nothing but the node's status changed"),
    pytest.param(SELECTIVE_DAEMONSET, "label node node01 agent=yes", True, id="labels changed: the node now selected"),
    pytest.param(DAEMONSET, "label node node01 extra=1", False, id="labels changed: every node has its pod"),
    pytest.param(DAEMONSET, "taint node node01 k=v:NoSchedule", False, id="a taint the pods tolerate"),
    pytest.param(INTOLERANT_DAEMONSET, "taint node node01 k=v:NoSchedule", False,
                 id="a NoSchedule taint: the running pod may continue"),
    pytest.param(INTOLERANT_DAEMONSET, "taint node node01 k=v:NoExecute", True,
                 id="a NoExecute taint: the pod must go"),
    pytest.param(DAEMONSET, "apply -f - (a new node)", True, id="a node added"),
])
def test_the_daemonset_controller_syncs_for_a_node_update_only_when_a_daemon_pod_must_change(
        kubesim, monkeypatch, daemonset, write, runs):
    """shouldIgnoreNodeUpdate and syncNodeUpdate (pkg/controller/daemon/daemon_controller.go):
    an updated node is queued only when its labels or taints changed, and it enqueues a
    DaemonSet only when a pod must be created or removed there (or misscheduled pods are
    counted)."""
    from kubesim.controllers import daemonset as controller

    kubesim.ok("apply -f -", daemonset)
    kubesim.ok("advance 10s")
    ran = []
    real = controller.sync
    monkeypatch.setattr(controller, "sync", lambda view: ran.append(1) or real(view))
    rv = kubesim.ok("get node node01 -o jsonpath={.metadata.resourceVersion}")
    if "a pod whose image" in write:
        kubesim.ok("apply -f -", BARE.replace("image: nginx", "image: httpd").replace(
            "spec: {", "spec: {nodeName: node01, "))
        kubesim.ok("advance 1m")  # the pull done, the kubelet posts the node's images
        assert "httpd" in kubesim.ok("get node node01 -o jsonpath={.status.images}")
    elif "a new node" in write:
        kubesim.ok("apply -f -", NODE)
    else:
        kubesim.ok(write)
    assert kubesim.ok("get node node01 -o jsonpath={.metadata.resourceVersion}") != rv or "new node" in write
    assert bool(ran) == runs
    on_node01 = kubesim.ok("get pods -l 'app in (agent,picky)' --field-selector spec.nodeName=node01 -o name")
    assert bool(on_node01) == ("NoExecute" not in write and (daemonset != SELECTIVE_DAEMONSET or runs))


def test_a_node_update_resyncs_a_daemonset_counting_misscheduled_pods(kubesim, monkeypatch):
    """syncNodeUpdate's third case (TestUpdateNode "Pod transitions from misscheduled to
    scheduled due to node label change"): a NoSchedule taint leaves the running pod (no sync);
    once a sync of the DaemonSet counts it misscheduled, the node's next update syncs it again
    and the count goes back to 0."""
    from kubesim.controllers import daemonset as controller

    kubesim.ok("apply -f -", INTOLERANT_DAEMONSET)
    kubesim.ok("advance 10s")
    kubesim.ok("taint node node01 k=v:NoSchedule")
    assert kubesim.ok("get daemonset agent -o jsonpath={.status.numberMisscheduled}") == "0"
    kubesim.ok("annotate daemonset agent touched=1")  # any DaemonSet update syncs it
    assert kubesim.ok("get daemonset agent -o jsonpath={.status.numberMisscheduled}") == "1"
    ran = []
    real = controller.sync
    monkeypatch.setattr(controller, "sync", lambda view: ran.append(1) or real(view))
    kubesim.ok("taint node node01 k=v:NoSchedule-")
    assert ran
    assert kubesim.ok("get daemonset agent -o jsonpath={.status.numberMisscheduled}") == "0"


def test_a_node_write_resyncs_a_daemonset_over_its_own_pods_not_every_pod(kubesim, monkeypatch):
    """A node update that needs a daemon pod enqueues the DaemonSet (syncNodeUpdate), and its
    sync reads the daemon pods through the ControllerRef index (READ_WHEN_ASKED), as an
    informer's indexer answers: the other pods of the cluster are not decoded for it."""
    from kubesim.controllers import daemonset

    kubesim.ok("apply -f -", SELECTIVE_DAEMONSET)
    kubesim.ok("apply -f -", DEPLOYMENT.replace("MRS", "0"))
    kubesim.ok("advance 20s")
    views = []
    real = daemonset.sync
    monkeypatch.setattr(daemonset, "sync", lambda view: views.append(view) or real(view))
    kubesim.ok("label node node01 agent=yes")
    assert views and all("Pod" not in v.objects for v in views)
    assert len(kubesim.ok("get pods -l app=picky -o name").split()) == 1  # node01's


def test_a_pod_s_relevance_is_read_again_when_a_write_changes_it():
    """_pod_facts keeps what it read of a pod by version: the same dict changed and written
    again (a new resourceVersion) is read afresh, so its new owner is seen."""
    from types import SimpleNamespace

    from kubesim.controlplane.components import _pod_relevant

    cluster = SimpleNamespace()
    pod = {"metadata": {"name": "p", "namespace": "default", "resourceVersion": "5", "labels": {"a": "b"}},
           "spec": {}}
    assert not _pod_relevant(cluster, pod, ("ReplicaSet",), selectors={})
    assert not _pod_relevant(cluster, pod, ("ReplicaSet",), controlled_kind="ReplicaSet", selectors={})
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "r", "uid": "u", "controller": True}]
    pod["metadata"]["resourceVersion"] = "6"  # (what the store's put does)
    assert _pod_relevant(cluster, pod, ("ReplicaSet",), selectors={})
    assert _pod_relevant(cluster, pod, ("ReplicaSet",), controlled_kind="ReplicaSet", selectors={})
    assert not _pod_relevant(cluster, pod, ("DaemonSet",), controlled_kind="DaemonSet", selectors={})
    pod["spec"]["volumes"] = [{"name": "v", "ephemeral": {"volumeClaimTemplate": {}}}]
    pod["metadata"]["resourceVersion"] = "7"
    del pod["metadata"]["ownerReferences"]
    assert not _pod_relevant(cluster, pod, ("ReplicaSet",), selectors={})
    assert _pod_relevant(cluster, pod, ("ReplicaSet",), claims=True, selectors={})


def test_the_zone_label_the_gate_reads_is_the_endpointslice_controller_s():
    from kubesim.controllers import endpointslice

    assert components.ZONE_LABEL == endpointslice.ZONE_LABEL


def test_a_controller_s_quiet_verdict_is_asked_again_when_the_selectors_change(kubesim):
    """_controller_due keeps, per controller, how far it found nothing to look at, and then
    looks only at pods written since: until the selectors of its gate kinds change (a new
    ReplicaSet selecting an old pod makes it relevant to the collector, which passes over the
    ReplicaSet itself, owner of nothing)."""
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    kubesim.ok("apply -f -", REPLICASET)
    kubesim.ok("advance 10s")
    store = Store(kubesim.state_dir).open()
    cluster = Cluster(store, kubesim.vars)
    gc = ("garbagecollector", components.GC_GATE, components.GC_KINDS)
    try:
        store.put({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "default",
                   "labels": {"x": "y"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        assert not components._controller_due(cluster, *gc, claims=True)
        assert not components._controller_due(cluster, *gc, claims=True)  # (from what it kept)
        other = store.get("ReplicaSet", "default", "rs")
        rs = {**other, "metadata": {"name": "rs2", "namespace": "default"},
              "spec": {**other["spec"], "selector": {"matchLabels": {"x": "y"}}}}
        store.put(rs)
        assert components._controller_due(cluster, *gc, claims=True)
    finally:
        store.rollback()


def test_the_endpoint_and_ephemeral_gates_look_past_a_quiet_verdict_only_at_later_writes(kubesim):
    """_quiet_since/_found_quiet: past an ask that found nothing, the endpoints and ephemeral
    volume gates look only at what was written after it; what is written later is seen (a pod
    a Service selects, a Service, a pod with an ephemeral volume)."""
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    kubesim.ok("apply -f -", SERVICE)
    kubesim.ok("advance 10s")
    store = Store(kubesim.state_dir).open()
    cluster = Cluster(store, kubesim.vars)

    def pod(name, labels, volumes=()):
        store.put({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                   "labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}],
                                               "volumes": list(volumes)}})
    try:
        pod("a", {"app": "other"})
        assert not components._endpoints_due(cluster) and not components._ephemeral_due(cluster)
        assert not components._endpoints_due(cluster) and not components._ephemeral_due(cluster)
        pod("b", {"app": "web"})
        assert components._endpoints_due(cluster)
        pod("c", {"app": "other"}, [{"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}])
        assert components._ephemeral_due(cluster)
    finally:
        store.rollback()
    store = Store(kubesim.state_dir).open()
    cluster = Cluster(store, kubesim.vars)
    try:
        pod("a", {"app": "other"})
        assert not components._endpoints_due(cluster)
        svc = store.get("Service", "default", "web")
        store.put({**svc, "spec": {**svc["spec"], "selector": {"app": "other"}}})
        assert components._endpoints_due(cluster)
    finally:
        store.rollback()
