"""Concurrent writers on one state: how long each of N parallel commands takes to land.

    python benchmarks/concurrent_writers.py [--writers 16] [--rounds 3] [--kubesim PATH]

Each round starts N ``kubesim run pN --image=nginx`` at once on a fresh state and prints the
median and the worst wall time from start to exit. The worst is what a starved command sees:
writers take turns on the state's lock file (kubesim.store.files.writer_lock), so it should
stay close to N times one command's time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def one_round(kubesim: list[str], writers: int) -> tuple[float, float]:
    state = tempfile.mkdtemp(prefix="kubesim-writers-")
    env = dict(os.environ, KUBESIM_STATE=state, KUBESIM_NOW="2026-11-22T10:00:00Z", KUBESIM_SEED="1")
    try:
        subprocess.run([*kubesim, "get", "nodes"], env=env, capture_output=True, check=True)
        starts, procs = [], []
        for i in range(writers):
            starts.append(time.monotonic())
            procs.append(subprocess.Popen([*kubesim, "run", f"p{i}", "--image=nginx"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        ends: list[float] = [0.0] * writers
        pending = set(range(writers))
        while pending:
            for i in list(pending):
                if procs[i].poll() is not None:
                    ends[i] = time.monotonic()
                    pending.discard(i)
            time.sleep(0.005)
        if any(p.returncode != 0 for p in procs):
            raise SystemExit("a writer failed")
        lat = sorted(e - s for s, e in zip(starts, ends))
        return statistics.median(lat), lat[-1]
    finally:
        shutil.rmtree(state, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kubesim", default="kubesim", help="the kubesim executable (default: on PATH)")
    args = ap.parse_args()
    for r in range(args.rounds):
        med, worst = one_round([args.kubesim], args.writers)
        print(f"round {r + 1}: {args.writers} writers, median {med:.2f} s, worst {worst:.2f} s")


if __name__ == "__main__":
    main()
