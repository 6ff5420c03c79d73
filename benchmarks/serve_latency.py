"""``kubesim serve``'s latency (DESIGN §4): the real kubectl's ``get pods`` against a served
default cluster with 30 pods, as medians of N runs, next to ``kubectl version --client`` (kubectl's
own start-up, the floor any server is measured from); and a watch event's delay after a write.

    python benchmarks/serve_latency.py [--runs 20] [--kubectl PATH]

The target: ``get pods`` within 1.5x of the same against a real local apiserver, whose round trip
is ~10 ms, i.e. the server's share under ~15 ms; a watch event within 50 ms of the write.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: filler}
spec:
  replicas: 26
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec: {containers: [{name: c, image: nginx}]}
"""


def median_ms(argv: list[str], env: dict, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--kubectl", default=shutil.which("kubectl"))
    args = ap.parse_args()
    state = tempfile.mkdtemp(prefix="kubesim-serve-bench-")
    kubesim = [sys.executable, "-m", "kubesim", "--state", state]
    subprocess.run(kubesim + ["cluster", "init"], check=True, capture_output=True)
    subprocess.run(kubesim + ["apply", "-f", "-"], input=DEPLOYMENT, text=True, check=True, capture_output=True)
    proc = subprocess.Popen(kubesim + ["serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().rsplit(" ", 1)[1].strip()
        env = {**os.environ, "KUBECONFIG": os.path.join(state, "serve", "kubeconfig"), "KUBERC": "off"}
        pods = subprocess.run([args.kubectl, "get", "pods", "-A", "--no-headers"], env=env, capture_output=True,
                              text=True, check=True).stdout.count("\n")
        floor = median_ms([args.kubectl, "version", "--client"], env, args.runs)
        get = median_ms([args.kubectl, "get", "pods", "-A"], env, args.runs)
        print(f"kubectl version --client      {floor:7.1f} ms")
        print(f"kubectl get pods -A ({pods} pods) {get:7.1f} ms  (server's share ~{get - floor:.1f} ms)")
        ctx = ssl.create_default_context(cafile=os.path.join(state, "serve", "ca.crt"))
        delays = []
        for i in range(5):
            seen = threading.Event()

            def watch(ctx=ctx, seen=seen, i=i):
                req = urllib.request.Request(url + "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=5",
                                             headers={"Authorization": "Bearer kubesim"})
                with urllib.request.urlopen(req, context=ctx) as r:
                    for line in r:
                        if json.loads(line)["object"]["metadata"]["name"] == f"bench{i}":
                            seen.set()
                            return

            t = threading.Thread(target=watch, daemon=True)
            t.start()
            time.sleep(0.5)
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"bench{i}"}}).encode()
            req = urllib.request.Request(url + "/api/v1/namespaces/default/configmaps", data=body, method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": "Bearer kubesim"})
            start = time.perf_counter()
            urllib.request.urlopen(req, context=ctx).read()
            seen.wait(5)
            delays.append((time.perf_counter() - start) * 1000)
        print(f"watch event after a write     {statistics.median(delays):7.1f} ms (median of {len(delays)})")
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
