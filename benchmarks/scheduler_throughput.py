"""Scheduler throughput: upstream's scheduler_perf workloads run through kubesim's scheduler.

    python benchmarks/scheduler_throughput.py [--workload basic|antiaffinity|all]
                                              [--nodes 5000|500|all] [--seed 1] [--repeat N]

Prints one row per workload: nodes, init pods, measured pods, seconds spent in ``schedule_one``
for the measured pods, pods/s, upstream's CI threshold, peak memory, and sanity figures (pods
scheduled / unschedulable, max pods per node). Each workload runs in a fresh child process so the
peak memory is that workload's own; ``--repeat N`` runs each N times and reports the median run
(with the pods/s range), which helps on a busy machine. ``--profile FILE`` (with one workload)
writes a cProfile of the measured phase instead of running the table.

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
                   "threshold": 680},
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
}


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


def make_nodes(count: int, rng: random.Random) -> list[dict]:
    from kubesim.api.core.defaults import set_object_defaults_node

    base = make_base_node()
    set_object_defaults_node(base)
    nodes = []
    for i in range(count):
        node = copy.deepcopy(base)
        name = _generate_name(NODE_PREFIX, rng)
        node["metadata"] = {"name": name, "generateName": NODE_PREFIX,
                            "uid": _new_uid(rng), "resourceVersion": str(i + 1),
                            "labels": {"kubernetes.io/hostname": name}}
        nodes.append(node)
    return nodes


# -- one workload (child process) -----------------------------------------------------------------

def run_workload(workload: str, nodes_param: int, seed: int, profile: str | None = None) -> dict:
    from kubesim.scheduler.scheduler import Scheduler

    wl = WORKLOADS[workload]
    v = wl["variants"][nodes_param]
    rng = random.Random(seed)
    template = yaml.safe_load(wl["template"])
    nodes = make_nodes(v["nodes"], rng)
    init_pods = make_pods(default_pod_template(template, wl["init_ns"]), v["init"], rng,
                          rv_start=v["nodes"] + 1)
    measured_pods = make_pods(default_pod_template(template, wl["measure_ns"]), v["measure"],
                              rng, rv_start=v["nodes"] + v["init"] + 1)

    sched = Scheduler(None, random.Random(seed), None, explain=False)
    namespaces = sorted({wl["init_ns"], wl["measure_ns"]})
    sched.handle.namespace_labels = {ns: {"kubernetes.io/metadata.name": ns} for ns in namespaces}
    sched.handle.list_objects = lambda kind, ns=None: []  # no Services/ReplicaSets/StatefulSets
    sched.set_cluster(nodes, [])

    now = time.time()
    placement: dict[str, int] = {}
    init_ok = init_fail = 0
    t0 = time.perf_counter()
    for pod in init_pods:
        r = sched.schedule_one(pod, now)
        if r.outcome == "Scheduled":
            init_ok += 1
            placement[r.node] = placement.get(r.node, 0) + 1
        else:
            init_fail += 1
    init_seconds = time.perf_counter() - t0

    results = []
    prof = cProfile.Profile() if profile else None
    schedule_one = sched.schedule_one
    if prof is not None:
        prof.enable()
    t0 = time.perf_counter()
    for pod in measured_pods:
        results.append(schedule_one(pod, now))
    seconds = time.perf_counter() - t0
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)

    ok = fail = 0
    outcomes: dict[str, int] = {}
    for r in results:
        outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
        if r.outcome == "Scheduled":
            ok += 1
            placement[r.node] = placement.get(r.node, 0) + 1
        else:
            fail += 1
    per_node = list(placement.values()) + [0] * (v["nodes"] - len(placement))
    # Cross-check against the scheduler's own cache.
    cache_pods = sum(len(ni.pods) for ni in sched.snapshot.node_info_list)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "workload": f"{wl['test_case']}/{v['name']}", "key": workload,
        "nodes": v["nodes"], "init_pods": v["init"], "measured_pods": v["measure"],
        "seconds": seconds, "pods_per_second": v["measure"] / seconds if seconds else 0.0,
        "threshold": v["threshold"], "peak_mib": peak_kib / 1024.0,
        "init_scheduled": init_ok, "init_unschedulable": init_fail,
        "init_seconds": init_seconds,
        "scheduled": ok, "unschedulable": fail, "outcomes": outcomes,
        "max_pods_per_node": max(per_node) if per_node else 0,
        "min_pods_per_node": min(per_node) if per_node else 0,
        "nodes_used": len(placement), "cache_pods": cache_pods,
        "seed": seed, "python": sys.version.split()[0],
    }


# -- driver ---------------------------------------------------------------------------------------

def _child(workload: str, nodes: int, seed: int) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", workload, "--nodes", str(nodes),
           "--seed", str(seed)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"workload {workload}/{nodes} failed (exit {p.returncode})")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fmt_table(rows: list[dict]) -> str:
    head = ["workload", "nodes", "init pods", "measured pods", "seconds", "pods/s", "threshold",
            "peak MB", "scheduled", "unsched", "max/node"]
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
            ("-" if th is None else str(th)) + verdict, f"{r['peak_mib']:.0f}",
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
    ap.add_argument("--workload", choices=["basic", "antiaffinity", "all"], default="all")
    ap.add_argument("--nodes", choices=["5000", "500", "all"], default="all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each workload N times (fresh processes) and report the median run")
    ap.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    ap.add_argument("--profile", metavar="FILE",
                    help="cProfile the measured phase of one workload into FILE")
    ap.add_argument("--child", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.child:
        print(json.dumps(run_workload(a.child, int(a.nodes), a.seed)))
        return 0
    workloads = list(WORKLOADS) if a.workload == "all" else [a.workload]
    node_counts = [5000, 500] if a.nodes == "all" else [int(a.nodes)]
    if a.profile:
        if len(workloads) != 1 or len(node_counts) != 1:
            ap.error("--profile needs one --workload and one --nodes")
        r = run_workload(workloads[0], node_counts[0], a.seed, profile=a.profile)
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
          "pods / seconds;\nthreshold: upstream scheduler_perf CI minimum (average pods/s, Go "
          "scheduler + API server); peak MB: child ru_maxrss;\nscheduled/unsched: init + "
          "measured pods; max/node: most pods on one node after the run.")
    if a.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
