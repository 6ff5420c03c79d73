"""Scheduler throughput: upstream's scheduler_perf workloads run through kubesim's scheduler.

    python benchmarks/scheduler_throughput.py [--workload NAME|all] [--nodes 5000|500|all]
                                              [--seed 1] [--repeat N]

Workloads (every scheduler_perf test case of v1.35.4 that runs the default plugins without
volumes, DRA, gates or DaemonSets): basic (SchedulingBasic), antiaffinity
(SchedulingPodAntiAffinity), spreading (TopologySpreading), preferredspreading
(PreferredTopologySpreading), nodeinclusionpolicy (SchedulingWithNodeInclusionPolicy),
podaffinity (SchedulingPodAffinity), preferredaffinity (SchedulingPreferredPodAffinity),
preferredantiaffinity (SchedulingPreferredPodAntiAffinity), nodeaffinity
(SchedulingNodeAffinity), preemption (PreemptionAsync), unschedulable (Unschedulable). The
thresholds are v1.35.4's (SchedulingBasic's is 270 there). A ``churn`` op (PreemptionAsync,
Unschedulable) creates a pod every 200 ms of the run; here one churn pod is interleaved every
threshold x 0.2 measured pods (the pods the threshold rate schedules in 200 ms), its attempt
timed with them; a preemption's victims are removed from the cache and the preemptor retried
at once (upstream: when the victims' deletions reach the queue).

Prints one row per workload: nodes, init pods, measured pods, seconds spent in ``schedule_one``
for the measured pods, pods/s, upstream's CI threshold, pods per CPU second (the child's CPU
time over the same calls: on a machine shared with other work, the figure to compare two
implementations by), peak memory, and sanity figures (pods
scheduled / unschedulable, max pods per node). Each workload runs in a fresh child process so the
peak memory is that workload's own; ``--repeat N`` runs each N times and reports the median run
(with the pods/s range), which helps on a busy machine. ``--profile FILE`` (with one workload)
writes a cProfile of the measured phase instead of running the table; ``--decisions FILE``
(with one workload) writes every decision (outcome, node, message, in order) so that two
implementations can be checked to decide the same (``cmp`` the files).

What is reproduced (kubernetes/kubernetes, test/integration/scheduler_perf/):

* ``misc/performance-config.yaml``, test case ``SchedulingBasic`` (defaultPodTemplatePath
  ``templates/pod-default.yaml``; ops: createNodes $initNodes, createPods $initPods,
  createPods $measurePods with collectMetrics). Workloads ``5000Nodes_10000Pods`` (5000 nodes,
  1000 init pods, 10000 measured pods, ``threshold: 680``) and upstream's own smaller
  ``500Nodes`` (500 nodes, 500 init pods, 1000 measured pods, no threshold).
* ``affinity/performance-config.yaml``, test case ``SchedulingPodAntiAffinity``
  (defaultPodTemplatePath ``templates/pod-with-pod-anti-affinity.yaml``; ops: createNodes
  $initNodes, createNamespaces sched-0/sched-1, createPods $initPods in sched-0, createPods
  $measurePods in sched-1 with collectMetrics). Workloads ``5000Nodes_2000Pods`` (5000 nodes,
  1000 init pods, 2000 measured pods, ``threshold: 60``) and upstream's ``500Nodes`` (500
  nodes, 100 init pods, 400 measured pods, no threshold).
* Nodes: neither test case sets ``nodeTemplatePath``, so scheduler_perf.go ``getNodePreparer``
  uses ``makeBaseNode``: capacity = allocatable = {pods: 110, cpu: 4, memory: 32Gi}, phase
  Running, condition Ready=True, no taints; ``node_util.go`` (IntegrationTestNodePreparer) names
  each node ``generateName + rand.String(5)`` and labels it ``kubernetes.io/hostname=<name>``;
  TrivialNodePrepareStrategy adds nothing. (``templates/node-default.yaml`` has the same
  capacity, without allocatable, which the API server defaults from capacity.)
* Pods: the templates verbatim (below); createPods without ``namespace`` uses
  ``namespace-<opIndex>`` (executor.go ``runCreatePodsOp``), so SchedulingBasic's pods are in
  namespace-1 (init) and namespace-2 (measured).
* The API server: scheduler_perf's ``mustSetupCluster`` starts kube-apiserver with
  ``--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority``. So here objects
  get schema defaulting, DefaultTolerationSeconds (the two 300 s NoExecute tolerations), the
  generated name and ``status: {phase: Pending, qosClass}`` — but no service-account volume, no
  ``spec.priority``, and nodes start without the not-ready taint. One template is defaulted
  once (the scheme's defaults and the admission/strategy steps, kubesim.api.core.defaults and
  kubesim.apiserver) and copied per pod with a fresh name and uid.
* The scheduler: the default KubeSchedulerConfiguration (``Scheduler(config=None)``), as
  scheduler_perf uses when a test case gives no ``schedulerConfigPath``.

How it is driven: ``Scheduler.set_cluster(nodes, [])``, then ``schedule_one`` for every init pod
(each success is assumed into the scheduler's cache, as upstream's init pods go through the
scheduler and are bound before the measured op starts), then ``schedule_one`` for the measured
pods in creation order (PrioritySort with equal priorities pops them in queue-timestamp order).
Only the measured ``schedule_one`` calls are timed (``time.perf_counter``); pods/s = measured
pods / that time. ``explain=False`` and no log sink, as a throughput run would use.

Differences from upstream's figure: upstream samples the scheduled-pod count once a second and
compares the *average of those samples* with the threshold, with a real API server, informers,
binding goroutines and 16-way parallel filtering/scoring in Go on CI hardware; here it is one
Python process doing the scheduling and assume/bind work only. The thresholds are printed for
scale, not as an apples-to-apples pass mark. 500-node workloads have no upstream threshold.

Peak memory: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the child process (peak resident
set size, including the interpreter and the generated objects), in MiB. tracemalloc is not used
because it slows the scheduler down several-fold.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import json
import os
import random
import resource
import subprocess
import sys
import time
import uuid

import yaml

# -- upstream templates (test/integration/scheduler_perf/templates/) ------------------------------

POD_DEFAULT_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: pod-
spec:
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

POD_WITH_POD_ANTI_AFFINITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: anti-affinity-pod-
  labels:
    color: green
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels:
            color: green
        topologyKey: kubernetes.io/hostname
        namespaces: ["sched-1", "sched-0"]
  containers:
  - image: registry.k8s.io/pause:3.10.2
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

# The other default-plugin workloads' templates, verbatim (licence headers dropped).
POD_WITH_TOPOLOGY_SPREADING_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: spreading-pod-
  labels:
    color: blue
spec:
  topologySpreadConstraints:
    - maxSkew: 5
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      labelSelector:
        matchLabels:
          color: blue
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

POD_WITH_PREFERRED_TOPOLOGY_SPREADING_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: spreading-pod-
  labels:
    color: blue
spec:
  topologySpreadConstraints:
    - maxSkew: 5
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels:
          color: blue
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

POD_WITH_NODE_INCLUSION_POLICY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: spreading-pod-with-node-inclusion-policy-
  labels:
    foo: bar
spec:
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
  topologySpreadConstraints:
    - maxSkew: 1
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: DoNotSchedule
      NodeAffinityPolicy: Honor
      NodeTaintsPolicy: Honor
      labelSelector:
        matchLabels:
          foo: bar
"""

POD_WITH_POD_AFFINITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: affinity-pod-
  labels:
    color: blue
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels:
            color: blue
        topologyKey: topology.kubernetes.io/zone
        namespaces: ["sched-1", "sched-0"]
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

POD_WITH_PREFERRED_POD_AFFINITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: preferred-affinity-pod-
  labels:
    color: red
spec:
  affinity:
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - podAffinityTerm:
            labelSelector:
              matchLabels:
                color: red
            topologyKey: kubernetes.io/hostname
            namespaces: ["sched-1", "sched-0"]
          weight: 1
  containers:
    - image: registry.k8s.io/pause:3.10.1
      name: pause
      ports:
        - containerPort: 80
      resources:
        limits:
          cpu: 100m
          memory: 500Mi
        requests:
          cpu: 100m
          memory: 500Mi
"""

POD_WITH_PREFERRED_POD_ANTI_AFFINITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: preferred-anti-affinity-pod-
  labels:
    color: yellow
spec:
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - podAffinityTerm:
            labelSelector:
              matchLabels:
                color: yellow
            topologyKey: kubernetes.io/hostname
            namespaces: ["sched-1", "sched-0"]
          weight: 1
  containers:
    - image: registry.k8s.io/pause:3.10.1
      name: pause
      ports:
        - containerPort: 80
      resources:
        limits:
          cpu: 100m
          memory: 500Mi
        requests:
          cpu: 100m
          memory: 500Mi
"""

POD_WITH_NODE_AFFINITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: node-affinity-
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: topology.kubernetes.io/zone
            operator: In
            values:
            - zone1
            - zone2
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
"""

POD_LOW_PRIORITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: pod-
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 900m
        memory: 500Mi
      requests:
        cpu: 900m
        memory: 500Mi
"""

POD_HIGH_PRIORITY_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: pod-high-priority-
spec:
  priority: 10
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 3000m
        memory: 500Mi
      requests:
        cpu: 3000m
        memory: 500Mi
"""

POD_HIGH_PRIORITY_LARGE_CPU_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: pod-h-
spec:
  priority: 10
  containers:
  - image: registry.k8s.io/pause:3.10.1
    name: pause
    ports:
    - containerPort: 80
    resources:
      requests:
        cpu: 9
        memory: 500Mi
"""


# scheduler_perf.go makeBaseNode (used when createNodes has no nodeTemplatePath).
NODE_PREFIX = "scheduler-perf-"


def make_base_node() -> dict:
    res = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"generateName": NODE_PREFIX},
        "spec": {},
        "status": {"capacity": dict(res), "allocatable": dict(res), "phase": "Running",
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


# -- workloads -----------------------------------------------------------------------------------

WORKLOADS: dict[str, dict] = {
    "basic": {
        "test_case": "SchedulingBasic",
        "config": "misc/performance-config.yaml",
        "template": POD_DEFAULT_YAML,
        # createPods without a namespace: namespace-<opIndex> (op 0 is createNodes).
        "init_ns": "namespace-1", "measure_ns": "namespace-2",
        "variants": {
            5000: {"name": "5000Nodes_10000Pods", "nodes": 5000, "init": 1000, "measure": 10000,
                   "threshold": 270},
            500: {"name": "500Nodes", "nodes": 500, "init": 500, "measure": 1000,
                  "threshold": None},
        },
    },
    "antiaffinity": {
        "test_case": "SchedulingPodAntiAffinity",
        "config": "affinity/performance-config.yaml",
        "template": POD_WITH_POD_ANTI_AFFINITY_YAML,
        "init_ns": "sched-0", "measure_ns": "sched-1",
        "variants": {
            5000: {"name": "5000Nodes_2000Pods", "nodes": 5000, "init": 1000, "measure": 2000,
                   "threshold": 60},
            500: {"name": "500Nodes", "nodes": 500, "init": 100, "measure": 400,
                  "threshold": None},
        },
    },
    # topology_spreading/performance-config.yaml: nodes from node-default.yaml labelled
    # topology.kubernetes.io/zone moon-1, moon-2, moon-3 in turn (LabelNodePrepareStrategy's
    # round robin), init pods from pod-default.yaml, measured pods spreading over zones.
    "spreading": {
        "test_case": "TopologySpreading",
        "config": "topology_spreading/performance-config.yaml",
        "init_template": POD_DEFAULT_YAML, "template": POD_WITH_TOPOLOGY_SPREADING_YAML,
        "node_labels": ("topology.kubernetes.io/zone", ["moon-1", "moon-2", "moon-3"]),
        "init_ns": "namespace-1", "measure_ns": "namespace-2",
        "variants": {
            5000: {"name": "5000Nodes_5000Pods", "nodes": 5000, "init": 5000, "measure": 5000,
                   "threshold": 85},
            500: {"name": "500Nodes", "nodes": 500, "init": 1000, "measure": 1000,
                  "threshold": None},
        },
    },
    "preferredspreading": {
        "test_case": "PreferredTopologySpreading",
        "config": "topology_spreading/performance-config.yaml",
        "init_template": POD_DEFAULT_YAML, "template": POD_WITH_PREFERRED_TOPOLOGY_SPREADING_YAML,
        "node_labels": ("topology.kubernetes.io/zone", ["moon-1", "moon-2", "moon-3"]),
        "init_ns": "namespace-1", "measure_ns": "namespace-2",
        "variants": {
            5000: {"name": "5000Nodes_5000Pods", "nodes": 5000, "init": 5000, "measure": 5000,
                   "threshold": 125},
            500: {"name": "500Nodes", "nodes": 500, "init": 1000, "measure": 1000,
                  "threshold": None},
        },
    },
    # $normalNodes plain nodes, then $taintNodes from node-with-taint.yaml (foo:NoSchedule);
    # no init pods; the pods spread by hostname honouring node affinity and taints.
    "nodeinclusionpolicy": {
        "test_case": "SchedulingWithNodeInclusionPolicy",
        "config": "topology_spreading/performance-config.yaml",
        "template": POD_WITH_NODE_INCLUSION_POLICY_YAML,
        "init_ns": "namespace-2", "measure_ns": "namespace-2",
        "variants": {
            5000: {"name": "5000Nodes", "nodes": 4000, "taint": 1000, "init": 0, "measure": 4000,
                   "threshold": 68},
            500: {"name": "500Nodes", "nodes": 400, "taint": 100, "init": 0, "measure": 400,
                  "threshold": None},
        },
    },
    # affinity/performance-config.yaml: the same template for init (sched-0) and measured
    # (sched-1) pods.
    "podaffinity": {
        "test_case": "SchedulingPodAffinity",
        "config": "affinity/performance-config.yaml",
        "template": POD_WITH_POD_AFFINITY_YAML,
        "node_labels": ("topology.kubernetes.io/zone", ["zone1"]),
        "init_ns": "sched-0", "measure_ns": "sched-1",
        "variants": {
            5000: {"name": "5000Nodes_5000Pods", "nodes": 5000, "init": 5000, "measure": 5000,
                   "threshold": 35},
            500: {"name": "500Nodes", "nodes": 500, "init": 500, "measure": 1000,
                  "threshold": None},
        },
    },
    "preferredaffinity": {
        "test_case": "SchedulingPreferredPodAffinity",
        "config": "affinity/performance-config.yaml",
        "template": POD_WITH_PREFERRED_POD_AFFINITY_YAML,
        "init_ns": "sched-0", "measure_ns": "sched-1",
        "variants": {
            5000: {"name": "5000Nodes_5000Pods", "nodes": 5000, "init": 5000, "measure": 5000,
                   "threshold": 90},
            500: {"name": "500Nodes", "nodes": 500, "init": 500, "measure": 1000,
                  "threshold": None},
        },
    },
    "preferredantiaffinity": {
        "test_case": "SchedulingPreferredPodAntiAffinity",
        "config": "affinity/performance-config.yaml",
        "template": POD_WITH_PREFERRED_POD_ANTI_AFFINITY_YAML,
        "init_ns": "sched-0", "measure_ns": "sched-1",
        "variants": {
            5000: {"name": "5000Nodes_5000Pods", "nodes": 5000, "init": 5000, "measure": 5000,
                   "threshold": 90},
            500: {"name": "500Nodes", "nodes": 500, "init": 500, "measure": 1000,
                  "threshold": None},
        },
    },
    "nodeaffinity": {
        "test_case": "SchedulingNodeAffinity",
        "config": "affinity/performance-config.yaml",
        "template": POD_WITH_NODE_AFFINITY_YAML,
        "node_labels": ("topology.kubernetes.io/zone", ["zone1"]),
        "init_ns": "namespace-1", "measure_ns": "namespace-2",
        "variants": {
            5000: {"name": "5000Nodes_10000Pods", "nodes": 5000, "init": 5000, "measure": 10000,
                   "threshold": 220},
            500: {"name": "500Nodes", "nodes": 500, "init": 500, "measure": 1000,
                  "threshold": None},
        },
    },
    # misc/performance-config.yaml: nodes full of low-priority 900m pods; a churn op creates a
    # 3-CPU priority-10 pod every 200 ms, which preempts; the measured pods are pod-default.
    "preemption": {
        "test_case": "PreemptionAsync",
        "config": "misc/performance-config.yaml",
        "init_template": POD_LOW_PRIORITY_YAML, "template": POD_DEFAULT_YAML,
        "churn": POD_HIGH_PRIORITY_YAML,
        "init_ns": "namespace-1", "churn_ns": "namespace-2", "measure_ns": "namespace-3",
        "variants": {
            5000: {"name": "5000Nodes", "nodes": 5000, "init": 20000, "measure": 5000,
                   "threshold": 160},
            500: {"name": "500Nodes", "nodes": 500, "init": 2000, "measure": 500,
                  "threshold": None},
        },
    },
    # a churn op creates a 9-CPU priority-10 pod (never fits a 4-CPU node) every 200 ms.
    "unschedulable": {
        "test_case": "Unschedulable",
        "config": "misc/performance-config.yaml",
        "init_template": POD_DEFAULT_YAML, "template": POD_DEFAULT_YAML,
        "churn": POD_HIGH_PRIORITY_LARGE_CPU_YAML,
        "init_ns": "namespace-1", "churn_ns": "namespace-2", "measure_ns": "namespace-3",
        "variants": {
            5000: {"name": "5kNodes/100Init/10kPods", "nodes": 5000, "init": 100, "measure": 10000,
                   "threshold": 140},
            500: {"name": "500Nodes/100Init/1kPods", "nodes": 500, "init": 100, "measure": 1000,
                  "threshold": None},
        },
    },
}
# A churn op creates one object every 200 ms of the run. Here the measured pods are scheduled
# back to back, so one churn pod is interleaved every CHURN_EVERY pods: the pods upstream's
# threshold rate schedules in 200 ms (160 pods/s x 0.2 s = 32 for PreemptionAsync).
CHURN_INTERVAL_SECONDS = 0.2


# -- the API server's part (admission ServiceAccount, TaintNodesByCondition, Priority disabled) ---

def _new_uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _generate_name(base: str, rng: random.Random) -> str:
    from kubesim.api.names import generate_name

    return generate_name(base, rng)


def default_pod_template(template: dict, namespace: str) -> dict:
    """Decode-time defaulting plus the admission/strategy steps scheduler_perf's API server runs
    on a pod create, applied once to the template (name and uid are filled per pod)."""
    from kubesim.api.core.defaults import set_object_defaults_pod
    from kubesim.api.pods import qos_class
    from kubesim.apiserver.admission import defaulttolerationseconds
    from kubesim.apiserver.registry.core.pod import mutate_pod_affinity_and_spread

    pod = copy.deepcopy(template)
    pod["metadata"]["namespace"] = namespace
    set_object_defaults_pod(pod)
    defaulttolerationseconds.admit_pod(pod)
    pod["metadata"]["generation"] = 1
    pod["status"] = {"phase": "Pending", "qosClass": qos_class(pod)}
    mutate_pod_affinity_and_spread(pod)  # matchLabelKeys (none here)
    return pod


def make_pods(template: dict, count: int, rng: random.Random, rv_start: int) -> list[dict]:
    """``count`` pods from a defaulted template, each its own deep copy (as decoded from the API
    server: nothing is shared between pods), with a generated name, a uid and a resourceVersion."""
    out = []
    for i in range(count):
        pod = copy.deepcopy(template)
        meta = pod["metadata"]
        meta["name"] = _generate_name(meta["generateName"], rng)
        meta["uid"] = _new_uid(rng)
        meta["resourceVersion"] = str(rv_start + i)
        out.append(pod)
    return out


def make_nodes(count: int, rng: random.Random, labels: tuple[str, list[str]] | None = None,
               tainted: int = 0) -> list[dict]:
    """``count`` nodes, then ``tainted`` more from node-with-taint.yaml (generateName
    ``taint-node-``, taint foo:NoSchedule); ``labels``: (key, values) given in turn, as
    LabelNodePrepareStrategy's round robin patches them."""
    from kubesim.api.core.defaults import set_object_defaults_node

    base = make_base_node()
    set_object_defaults_node(base)
    nodes = []
    for i in range(count + tainted):
        node = copy.deepcopy(base)
        prefix = NODE_PREFIX if i < count else "taint-node-"
        name = _generate_name(prefix, rng)
        node["metadata"] = {"name": name, "generateName": prefix,
                            "uid": _new_uid(rng), "resourceVersion": str(i + 1),
                            "labels": {"kubernetes.io/hostname": name}}
        if labels is not None and i < count:
            key, values = labels
            node["metadata"]["labels"][key] = values[i % len(values)]
        if i >= count:
            node["spec"] = {"taints": [{"effect": "NoSchedule", "key": "foo"}]}
        nodes.append(node)
    return nodes


# sigs.k8s.io/yaml decodes through encoding/json, whose field names match case-insensitively:
# pod-with-node-inclusion-policy.yaml's "NodeAffinityPolicy" is nodeAffinityPolicy.
_GO_FIELD_NAMES = {"NodeAffinityPolicy": "nodeAffinityPolicy", "NodeTaintsPolicy": "nodeTaintsPolicy"}


def _go_decode(obj):
    if isinstance(obj, dict):
        return {_GO_FIELD_NAMES.get(k, k): _go_decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_go_decode(v) for v in obj]
    return obj


# -- one workload (child process) -----------------------------------------------------------------

def run_workload(workload: str, nodes_param: int, seed: int, profile: str | None = None,
                 decisions: str | None = None) -> dict:
    from kubesim.scheduler.scheduler import Scheduler

    wl = WORKLOADS[workload]
    v = wl["variants"][nodes_param]
    rng = random.Random(seed)
    template = _go_decode(yaml.safe_load(wl["template"]))
    init_template = _go_decode(yaml.safe_load(wl.get("init_template", wl["template"])))
    nodes = make_nodes(v["nodes"], rng, wl.get("node_labels"), v.get("taint", 0))
    n_nodes = len(nodes)
    init_pods = make_pods(default_pod_template(init_template, wl["init_ns"]), v["init"], rng,
                          rv_start=n_nodes + 1)
    measured_pods = make_pods(default_pod_template(template, wl["measure_ns"]), v["measure"],
                              rng, rv_start=n_nodes + v["init"] + 1)
    churn_every = 0
    churn_pods: list[dict] = []
    if wl.get("churn"):
        churn_every = max(1, round(v["threshold"] * CHURN_INTERVAL_SECONDS)) if v["threshold"] \
            else max(1, round(160 * CHURN_INTERVAL_SECONDS))
        churn_pods = make_pods(default_pod_template(_go_decode(yaml.safe_load(wl["churn"])), wl["churn_ns"]),
                               v["measure"] // churn_every, rng,
                               rv_start=n_nodes + v["init"] + v["measure"] + 1)

    sched = Scheduler(None, random.Random(seed), None, explain=False)
    namespaces = sorted({wl["init_ns"], wl["measure_ns"]} | ({wl["churn_ns"]} if churn_pods else set()))
    sched.handle.namespace_labels = {ns: {"kubernetes.io/metadata.name": ns} for ns in namespaces}
    sched.handle.list_objects = lambda kind, ns=None: []  # no Services/ReplicaSets/StatefulSets
    sched.set_cluster(nodes, [])

    now = time.time()
    placement: dict[str, int] = {}
    init_ok = init_fail = 0
    t0 = time.perf_counter()
    init_results = []
    for pod in init_pods:
        r = sched.schedule_one(pod, now)
        init_results.append(r)
        if r.outcome == "Scheduled":
            init_ok += 1
            placement[r.node] = placement.get(r.node, 0) + 1
        else:
            init_fail += 1
    init_seconds = time.perf_counter() - t0

    def preempting(r) -> bool:
        """Carry out a preemption's victim deletions in the cache (the API server deletes them
        and the informer removes them); True when there were victims (the preemptor is then
        retried, as the queue moves it on their deletion)."""
        victims = [w["obj"] for w in r.writes if w["op"] == "delete"]
        for victim in victims:
            vnode = (victim.get("spec") or {}).get("nodeName") or ""
            ni = sched.snapshot.get(vnode)
            if ni is not None and ni.remove_pod((victim.get("metadata") or {}).get("uid", "")) is not None:
                placement[vnode] -= 1
        return bool(victims)

    results = []
    churn_results = []
    prof = cProfile.Profile() if profile else None
    schedule_one = sched.schedule_one
    if prof is not None:
        prof.enable()
    t0 = time.perf_counter()
    c0 = time.process_time()
    for i, pod in enumerate(measured_pods):
        if churn_every and i % churn_every == churn_every - 1 and churn_pods:
            cp = churn_pods.pop()
            r = schedule_one(cp, now)
            if r.outcome != "Scheduled" and preempting(r):
                r = schedule_one(cp, now)
            churn_results.append(r)
            if r.outcome == "Scheduled":
                placement[r.node] = placement.get(r.node, 0) + 1
        results.append(schedule_one(pod, now))
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - c0
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
    if decisions:
        # Every scheduling decision in order (init, then measured with churn interleaved as
        # run): compare two implementations' files to check they decide the same.
        with open(decisions, "w") as f:
            for kind, rs in (("init", init_results), ("measured", results),
                             ("churn", churn_results)):
                for r in rs:
                    f.write(f"{kind} {r.outcome} {r.node or '-'} {r.message}\n")

    ok = fail = 0
    outcomes: dict[str, int] = {}
    for r in results:
        outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
        if r.outcome == "Scheduled":
            ok += 1
            placement[r.node] = placement.get(r.node, 0) + 1
        else:
            fail += 1
    per_node = list(placement.values()) + [0] * (n_nodes - len(placement))
    # Cross-check against the scheduler's own cache.
    cache_pods = sum(len(ni.pods) for ni in sched.snapshot.node_info_list)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "workload": f"{wl['test_case']}/{v['name']}", "key": workload,
        "nodes": n_nodes, "init_pods": v["init"], "measured_pods": v["measure"],
        "seconds": seconds, "pods_per_second": v["measure"] / seconds if seconds else 0.0,
        "cpu_seconds": cpu_seconds,
        "pods_per_cpu_second": v["measure"] / cpu_seconds if cpu_seconds else 0.0,
        "threshold": v["threshold"], "peak_mib": peak_kib / 1024.0,
        "init_scheduled": init_ok, "init_unschedulable": init_fail,
        "init_seconds": init_seconds,
        "scheduled": ok, "unschedulable": fail, "outcomes": outcomes,
        "churn_pods": len(churn_results),
        "churn_scheduled": sum(1 for r in churn_results if r.outcome == "Scheduled"),
        "max_pods_per_node": max(per_node) if per_node else 0,
        "min_pods_per_node": min(per_node) if per_node else 0,
        "nodes_used": len(placement), "cache_pods": cache_pods,
        "seed": seed, "python": sys.version.split()[0],
    }


# -- driver ---------------------------------------------------------------------------------------

def _child(workload: str, nodes: int, seed: int) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", workload, "--nodes", str(nodes),
           "--seed", str(seed)]
    p = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"workload {workload}/{nodes} failed (exit {p.returncode})")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fmt_table(rows: list[dict]) -> str:
    head = ["workload", "nodes", "init pods", "measured pods", "seconds", "pods/s", "threshold",
            "pods/cpu-s", "peak MB", "scheduled", "unsched", "max/node"]
    ranged = any(len(r.get("runs", ())) > 1 for r in rows)
    if ranged:
        head.insert(6, "pods/s range")
    lines = [head]
    for r in rows:
        th = r["threshold"]
        verdict = "" if th is None else (" ok" if r["pods_per_second"] >= th else " BELOW")
        line = [
            r["workload"], str(r["nodes"]), str(r["init_pods"]), str(r["measured_pods"]),
            f"{r['seconds']:.2f}", f"{r['pods_per_second']:.1f}",
            ("-" if th is None else str(th)) + verdict,
            f"{r.get('pods_per_cpu_second', 0.0):.1f}", f"{r['peak_mib']:.0f}",
            f"{r['init_scheduled'] + r['scheduled']}",
            f"{r['init_unschedulable'] + r['unschedulable']}",
            str(r["max_pods_per_node"]),
        ]
        if ranged:
            runs = r.get("runs") or [r["pods_per_second"]]
            line.insert(6, f"{min(runs):.0f}-{max(runs):.0f}")
        lines.append(line)
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    out = []
    for j, row in enumerate(lines):
        out.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                             for i, c in enumerate(row)))
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=[*WORKLOADS, "all"], default="all")
    ap.add_argument("--nodes", choices=["5000", "500", "all"], default="all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each workload N times (fresh processes) and report the median run")
    ap.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    ap.add_argument("--profile", metavar="FILE",
                    help="cProfile the measured phase of one workload into FILE")
    ap.add_argument("--decisions", metavar="FILE",
                    help="write every scheduling decision of one workload (init, measured, "
                         "churn: outcome, node, message) to FILE, to compare implementations")
    ap.add_argument("--child", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.child:
        print(json.dumps(run_workload(a.child, int(a.nodes), a.seed)))
        return 0
    workloads = list(WORKLOADS) if a.workload == "all" else [a.workload]
    node_counts = [5000, 500] if a.nodes == "all" else [int(a.nodes)]
    if a.profile or a.decisions:
        if len(workloads) != 1 or len(node_counts) != 1:
            ap.error("--profile and --decisions need one --workload and one --nodes")
        r = run_workload(workloads[0], node_counts[0], a.seed, profile=a.profile,
                         decisions=a.decisions)
        print(_fmt_table([r]))
        return 0
    load_before = os.getloadavg()
    rows = []
    for wl in workloads:
        for n in node_counts:
            runs = sorted((_child(wl, n, a.seed) for _ in range(max(1, a.repeat))),
                          key=lambda r: r["pods_per_second"])
            row = dict(runs[(len(runs) - 1) // 2])  # the median run (lower median)
            row["runs"] = [r["pods_per_second"] for r in runs]
            rows.append(row)
    load_after = os.getloadavg()
    print(_fmt_table(rows))
    print(f"\nPython {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{load_before[0]:.2f} before / {load_after[0]:.2f} after, seed {a.seed}"
          + (f", median of {a.repeat} runs" if a.repeat > 1 else ""))
    print("seconds: wall time of the measured pods' schedule_one calls only; pods/s = measured "
          "pods / seconds;\npods/cpu-s: measured pods / the process's CPU time over the same "
          "calls (steadier than wall time on a busy machine);\nthreshold: upstream scheduler_perf CI minimum (average pods/s, Go "
          "scheduler + API server); peak MB: child ru_maxrss;\nscheduled/unsched: init + "
          "measured pods; max/node: most pods on one node after the run.")
    if a.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
