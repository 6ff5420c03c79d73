"""Big state: DESIGN §4's third target. A state of 5,000 nodes and 10,000 pods; the figures are
the medians of N runs of each command, with the peak resident memory of the worst run:

- ``kubesim get pods -A`` (target: under 1 s);
- applying one more pod, then deleting it with ``--now`` (target for the apply: under 0.3 s);
- ``kubesim explain-schedule POD`` for a stored pod, and ``-f`` for a what-if (target: under
  1 s, peak memory under 500 MB).

    python benchmarks/big_state.py [--nodes 5000] [--pods 10000] [--runs 5] [--state DIR]

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
    a = ap.parse_args()
    kubesim = shutil.which("kubesim")
    if not kubesim:
        print("need kubesim on PATH: pip install -e .", file=sys.stderr)
        return 2
    state = a.state or tempfile.mkdtemp(prefix="kubesim-big-")
    env = dict(os.environ, KUBESIM_STATE=state)
    env.pop("KUBESIM_NOW", None)
    if not os.path.exists(os.path.join(state, "kubesim.db")) or not a.state:
        t = time.perf_counter()
        subprocess.run([kubesim, "cluster", "init", "--nodes", str(a.nodes)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([kubesim, "apply", "-f", "-"], input=DEPLOYMENT.format(pods=a.pods),
                       text=True, env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"built {a.nodes} nodes / {a.pods} pods in {time.perf_counter() - t:.0f} s")
    pod = subprocess.run([kubesim, "get", "pods", "-o", "jsonpath={.items[0].metadata.name}"],
                         env=env, check=True, capture_output=True, text=True).stdout
    cases = {
        "get pods -A": ([kubesim, "get", "pods", "-A"], None, 1.0),
        "apply one pod": ([kubesim, "apply", "-f", "-"], ONE_POD, 0.3),
        "delete it --now": ([kubesim, "delete", "pod", "bench-one", "--now"], None, None),
        f"explain-schedule {pod}": ([kubesim, "explain-schedule", pod], None, 1.0),
        "explain-schedule -f": ([kubesim, "explain-schedule", "-f", "-"], ONE_POD, 1.0),
    }
    walls: dict[str, list[float]] = {k: [] for k in cases}
    peak = 0.0
    for _ in range(a.runs):
        for name, (cmd, stdin, _target) in cases.items():
            w, rss = run(cmd, env, stdin)
            walls[name].append(w)
            peak = max(peak, rss)
    print(f"{'command':<40} {'median':>8} {'target':>8}")
    for name, (_cmd, _stdin, target) in cases.items():
        med = statistics.median(walls[name])
        print(f"{name:<40} {med:>7.2f}s {('< %.1fs' % target) if target else '':>8}")
    print(f"peak RSS of any run: {peak:.0f} MB (target < 500 MB)")
    if not a.state:
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
