"""Big state: DESIGN §4's third target and issue 19's table. A state of 5,000 nodes and 10,000
pods (or 20,000 / 40,000); the figures are the medians of N runs of each command (wall time,
and the CPU time of the process, which a busy machine inflates less), with each command's peak
resident memory (MB, the worst of its runs):

- ``kubesim get pods -A`` (target: under 0.5 s), ``get pods -n default``, ``get nodes`` (0.3 s);
- applying one more pod, then deleting it with ``--now`` (target for the apply: under 0.3 s);
- applying a 3-replica Deployment, then deleting it (target for the apply: under 0.5 s);
- ``describe node`` (target: under 0.2 s) and ``label node --overwrite``;
- ``kubesim explain-schedule POD`` for a stored pod (also with ``--trace``, ``-o html`` and
  ``--compare`` of two nodes), and ``-f`` for a what-if (target: under 0.5 s);
- applying 1,000 pods in one file (target: under 2 s, 500 pods/s), then deleting them;
- peak memory (target: under 300 MB at 5,000 nodes, 600 MB at 20,000) and the state's size on
  disk per stored object (target: 10 KB).

At 20,000 nodes the target of every single-object command is 1 s.

    python benchmarks/big_state.py [--nodes 5000] [--pods 10000] [--runs 5] [--state DIR] [--kubesim PATH ...]
                                   [--only "apply one,explain"]
    python benchmarks/big_state.py --nodes 20000 --pods 40000 --runs 3 --state /tmp/big20k

Building the state (``cluster init --nodes N`` and a Deployment of ``--pods`` replicas) takes a
few minutes; ``--state DIR`` keeps it for later runs (an existing state there is reused).
A ``--kubesim`` may be ``python -m kubesim`` of another checkout: give a script that runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: filler}}
spec:
  replicas: {pods}
  selector: {{matchLabels: {{app: filler}}}}
  template:
    metadata: {{labels: {{app: filler}}}}
    spec:
      containers:
      - name: c
        image: registry.k8s.io/pause:3.10
        resources: {{requests: {{cpu: 100m, memory: 100Mi}}}}
"""

DEPLOYMENT_3 = """apiVersion: apps/v1
kind: Deployment
metadata: {name: bench-three}
spec:
  replicas: 3
  selector: {matchLabels: {app: bench-three}}
  template:
    metadata: {labels: {app: bench-three}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""

BULK = "---\n".join(
    f"apiVersion: v1\nkind: Pod\nmetadata: {{name: bulk-{i:04d}, labels: {{app: bench-bulk}}}}\n"
    "spec:\n  containers: [{name: c, image: nginx, resources: {requests: {cpu: 10m}}}]\n"
    for i in range(1000))

ONE_POD = """apiVersion: v1
kind: Pod
metadata: {name: bench-one}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def run(cmd: list[str], env: dict, stdin: str | None = None) -> tuple[float, float, float]:
    """Wall seconds, the child's own peak RSS in MB and its CPU seconds (os.wait4 reports its
    rusage alone)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE if stdin is not None else None,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    if stdin is not None:
        p.stdin.write(stdin)
        p.stdin.close()
    _pid, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {p.returncode}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def state_size(state: str) -> tuple[int, int]:
    """The state's database files in bytes (WAL included) and how many objects it stores."""
    import sqlite3

    size = sum(os.path.getsize(os.path.join(state, f)) for f in os.listdir(state)
               if f.startswith("kubesim.db"))
    conn = sqlite3.connect(f"file:{os.path.join(state, 'kubesim.db')}?mode=ro", uri=True)
    try:
        objects = conn.execute("SELECT COUNT(*) FROM objects").fetchone()[0]
    finally:
        conn.close()
    return size, objects


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--state", help="keep (or reuse) the built state here")
    ap.add_argument("--only", metavar="NAMES",
                    help="time only the commands whose name contains one of these comma-separated words")
    ap.add_argument("--kubesim", action="append", default=None, metavar="PATH",
                    help="a kubesim executable to time (repeatable; default: the one on PATH); each runs "
                         "on its own copy of the built state")
    a = ap.parse_args()
    kubesims = a.kubesim or [shutil.which("kubesim")]
    if not all(kubesims):
        print("need kubesim on PATH: pip install -e .", file=sys.stderr)
        return 2
    state = a.state or tempfile.mkdtemp(prefix="kubesim-big-")
    env = dict(os.environ, KUBESIM_STATE=state)
    env.pop("KUBESIM_NOW", None)
    if not os.path.exists(os.path.join(state, "kubesim.db")) or not a.state:
        t = time.perf_counter()
        subprocess.run([kubesims[-1], "cluster", "init", "--nodes", str(a.nodes)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([kubesims[-1], "apply", "-f", "-"], input=DEPLOYMENT.format(pods=a.pods),
                       text=True, env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"built {a.nodes} nodes / {a.pods} pods in {time.perf_counter() - t:.0f} s")
    copies = []
    try:  # (the copies go even when a command fails)
        for i, _ in enumerate(kubesims):
            copy = tempfile.mkdtemp(prefix=f"kubesim-big-copy{i}-")
            shutil.copytree(state, copy, dirs_exist_ok=True)
            copies.append(dict(env, KUBESIM_STATE=copy))
        os.sync()  # else the first write's checkpoint pays for writing the copies back to disk
        pod = subprocess.run([kubesims[-1], "get", "pods", "-o", "jsonpath={.items[0].metadata.name}"],
                             env=copies[-1], check=True, capture_output=True, text=True).stdout

        two_nodes = subprocess.run(
            [kubesims[-1], "get", "nodes", "-o",
             "jsonpath={.items[1].metadata.name} {.items[2].metadata.name}"],
            env=copies[-1], check=True, capture_output=True, text=True).stdout.split()

        one_s = 1.0 if a.nodes > 5000 else None  # every single-object command at 20,000 nodes

        def cases(kubesim: str) -> dict:
            return {
                "get pods -A": ([kubesim, "get", "pods", "-A"], None, one_s or 0.5),
                "get pods -n default": ([kubesim, "get", "pods", "-n", "default"], None, one_s),
                "apply one pod": ([kubesim, "apply", "-f", "-"], ONE_POD, one_s or 0.3),
                "delete it --now": ([kubesim, "delete", "pod", "bench-one", "--now"], None, one_s),
                "apply a 3-replica Deployment": ([kubesim, "apply", "-f", "-"], DEPLOYMENT_3, one_s or 0.5),
                "delete the Deployment": ([kubesim, "delete", "deployment", "bench-three"], None, one_s),
                "describe node": ([kubesim, "describe", "node", two_nodes[0]], None, one_s or 0.2),
                "label node --overwrite": ([kubesim, "label", "node", two_nodes[0], "bench=1", "--overwrite"],
                                           None, one_s),
                "get nodes": ([kubesim, "get", "nodes"], None, one_s or 0.3),
                f"explain-schedule {pod}": ([kubesim, "explain-schedule", pod], None, one_s or 0.5),
                "explain-schedule -f": ([kubesim, "explain-schedule", "-f", "-"], ONE_POD, one_s or 0.5),
                f"explain-schedule {pod} --trace": ([kubesim, "explain-schedule", pod, "--trace"],
                                                    None, one_s),
                f"explain-schedule {pod} -o html": ([kubesim, "explain-schedule", pod, "-o", "html"],
                                                    None, one_s),
                f"explain-schedule {pod} --compare": ([kubesim, "explain-schedule", pod, "--compare",
                                                       *two_nodes], None, one_s),
                "apply 1,000 pods in one file": ([kubesim, "apply", "-f", "-"], BULK, 2.0),
                "delete them --now": ([kubesim, "delete", "pods", "-l", "app=bench-bulk", "--now"], None, None),
            }

        names = list(cases(kubesims[0]))
        if a.only:
            names = [n for n in names if any(w.strip() and w.strip() in n for w in a.only.split(","))]
        walls = [{k: [] for k in names} for _ in kubesims]
        cpus = [{k: [] for k in names} for _ in kubesims]
        peaks = [0.0 for _ in kubesims]
        rss = [{k: 0.0 for k in names} for _ in kubesims]  # each command's peak over its runs
        for _ in range(a.runs):
            for name in names:
                for i, kubesim in enumerate(kubesims):
                    cmd, stdin, _target = cases(kubesim)[name]
                    w, mb, cpu = run(cmd, copies[i], stdin)
                    walls[i][name].append(w)
                    cpus[i][name].append(cpu)
                    peaks[i] = max(peaks[i], mb)
                    rss[i][name] = max(rss[i][name], mb)
        print(f"{'command':<40} " + " ".join(
            f"{'wall ' + str(i + 1):>8} {'cpu ' + str(i + 1):>7} {'MB ' + str(i + 1):>6}"
            for i in range(len(kubesims))) + f" {'target':>8}")
        for name in names:
            target = cases(kubesims[0])[name][2]
            meds = " ".join(f"{statistics.median(w[name]):>7.2f}s {statistics.median(c[name]):>6.2f}s {r[name]:>6.0f}"
                            for w, c, r in zip(walls, cpus, rss, strict=True))
            print(f"{name:<40} {meds} {(f'< {target:.1f}s') if target else '':>8}")
        print("peak RSS of any run: " + ", ".join(f"{p:.0f} MB" for p in peaks)
              + f" (target < {600 if a.nodes > 5000 else 300} MB)")
        for i, c in enumerate(copies):
            size, objects = state_size(c["KUBESIM_STATE"])
            print(f"state on disk {i + 1}: {size / 1e6:.0f} MB for {objects} objects, "
                  f"{size / max(objects, 1) / 1e3:.1f} KB per object (target <= 10 KB)")
        for i, kubesim in enumerate(kubesims):
            print(f"{i + 1}: {kubesim}")
    finally:
        for c in copies:
            shutil.rmtree(c["KUBESIM_STATE"], ignore_errors=True)
        if not a.state:
            shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
