"""Big state: DESIGN §4's third target. A state of 5,000 nodes and 10,000 pods; the figures are
the medians of N runs of each command, with the peak resident memory of the worst run:

- ``kubesim get pods -A`` (target: under 1 s);
- applying one more pod, then deleting it with ``--now`` (target for the apply: under 0.3 s);
- ``kubesim explain-schedule POD`` for a stored pod (also with ``--trace``, ``-o html`` and
  ``--compare`` of two nodes), and ``-f`` for a what-if (target: under 1 s, peak memory under
  500 MB).

    python benchmarks/big_state.py [--nodes 5000] [--pods 10000] [--runs 5] [--state DIR] [--kubesim PATH ...]

Building the state (``cluster init --nodes N`` and a Deployment of ``--pods`` replicas) takes a
few minutes; ``--state DIR`` keeps it for later runs (an existing state there is reused).
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

ONE_POD = """apiVersion: v1
kind: Pod
metadata: {name: bench-one}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def run(cmd: list[str], env: dict, stdin: str | None = None) -> tuple[float, float]:
    """Wall seconds and the child's own peak RSS in MB (os.wait4 reports its rusage alone)."""
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
    return wall, usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--state", help="keep (or reuse) the built state here")
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
    for i, _ in enumerate(kubesims):
        copy = tempfile.mkdtemp(prefix=f"kubesim-big-copy{i}-")
        shutil.copytree(state, copy, dirs_exist_ok=True)
        copies.append(dict(env, KUBESIM_STATE=copy))
    pod = subprocess.run([kubesims[-1], "get", "pods", "-o", "jsonpath={.items[0].metadata.name}"],
                         env=copies[-1], check=True, capture_output=True, text=True).stdout

    two_nodes = subprocess.run(
        [kubesims[-1], "get", "nodes", "-o",
         "jsonpath={.items[1].metadata.name} {.items[2].metadata.name}"],
        env=copies[-1], check=True, capture_output=True, text=True).stdout.split()

    def cases(kubesim: str) -> dict:
        return {
            "get pods -A": ([kubesim, "get", "pods", "-A"], None, 1.0),
            "apply one pod": ([kubesim, "apply", "-f", "-"], ONE_POD, 0.3),
            "delete it --now": ([kubesim, "delete", "pod", "bench-one", "--now"], None, None),
            "describe node": ([kubesim, "describe", "node", two_nodes[0]], None, 0.2),
            "label node --overwrite": ([kubesim, "label", "node", two_nodes[0], "bench=1", "--overwrite"],
                                       None, None),
            "get nodes": ([kubesim, "get", "nodes"], None, 0.3),
            f"explain-schedule {pod}": ([kubesim, "explain-schedule", pod], None, 1.0),
            "explain-schedule -f": ([kubesim, "explain-schedule", "-f", "-"], ONE_POD, 1.0),
            f"explain-schedule {pod} --trace": ([kubesim, "explain-schedule", pod, "--trace"],
                                                None, 1.0),
            f"explain-schedule {pod} -o html": ([kubesim, "explain-schedule", pod, "-o", "html"],
                                                None, 1.0),
            f"explain-schedule {pod} --compare": ([kubesim, "explain-schedule", pod, "--compare",
                                                   *two_nodes], None, 1.0),
        }

    names = list(cases(kubesims[0]))
    walls = [{k: [] for k in names} for _ in kubesims]
    peaks = [0.0 for _ in kubesims]
    for _ in range(a.runs):
        for name in names:
            for i, kubesim in enumerate(kubesims):
                cmd, stdin, _target = cases(kubesim)[name]
                w, rss = run(cmd, copies[i], stdin)
                walls[i][name].append(w)
                peaks[i] = max(peaks[i], rss)
    print(f"{'command':<40} " + " ".join(f"{'median ' + str(i + 1):>9}" for i in range(len(kubesims)))
          + f" {'target':>8}")
    for name in names:
        target = cases(kubesims[0])[name][2]
        meds = " ".join(f"{statistics.median(w[name]):>8.2f}s" for w in walls)
        print(f"{name:<40} {meds} {('< %.1fs' % target) if target else '':>8}")
    print("peak RSS of any run: " + ", ".join(f"{p:.0f} MB" for p in peaks) + " (target < 500 MB)")
    for i, kubesim in enumerate(kubesims):
        print(f"{i + 1}: {kubesim}")
    for c in copies:
        shutil.rmtree(c["KUBESIM_STATE"], ignore_errors=True)
    if not a.state:
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
