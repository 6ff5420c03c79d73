"""Time ``apply -f`` of big_state.py's file of 1,000 bare pods, then ``delete -f`` of it with
``--now``, the clock pinned (``KUBESIM_NOW``), on a fresh copy of a built state for every run and
every kubesim compared (runs alternate between them), and print each one's medians: wall
seconds and the child's CPU seconds (os.wait4's rusage).

    python benchmarks/big_state.py --runs 1 --only "get nodes" --state /tmp/big   # build a state once
    python benchmarks/bulk_file.py --state /tmp/big --runs 5 --kubesim A --kubesim B

The clock is pinned a minute after the state's last write (``KUBESIM_NOW`` overrides it).
``--copies DIR`` puts the copies there (a tmpfs such as /dev/shm keeps disk writes out of a
busy machine's timings).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from big_state import BULK  # (the file of 1,000 pods big_state.py times)


def _run(cmd: list[str], env: dict) -> tuple[float, float]:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True, help="a built state (left as it is: each run copies it)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--copies", default=None, help="where the copies go (default: the system's temp dir)")
    ap.add_argument("--kubesim", action="append", default=None, metavar="PATH")
    a = ap.parse_args()
    kubesims = a.kubesim or [shutil.which("kubesim")]
    # the clock pinned a minute after the state's last write, unless KUBESIM_NOW says otherwise
    last = os.path.getmtime(os.path.join(a.state, "kubesim.db"))
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last + 60))
    env = dict(os.environ, KUBESIM_NOW=os.environ.get("KUBESIM_NOW", now))
    env.pop("KUBESIM_STATE", None)
    with tempfile.TemporaryDirectory(dir=a.copies) as work:
        manifest = os.path.join(work, "bulk.yaml")
        with open(manifest, "w") as f:
            f.write(BULK)
        times = {k: {n: [] for n in ("apply wall", "apply cpu", "delete wall", "delete cpu")} for k in kubesims}
        for _ in range(a.runs):
            for k in kubesims:
                copy = os.path.join(work, "state")
                shutil.rmtree(copy, ignore_errors=True)
                subprocess.run(["cp", "-a", a.state, copy], check=True)
                os.sync()  # else the command's checkpoint pays for writing back the copy
                for verb, extra in (("apply", []), ("delete", ["--now"])):
                    wall, cpu = _run([k, "--state", copy, verb, "-f", manifest, *extra], env)
                    times[k][f"{verb} wall"].append(wall)
                    times[k][f"{verb} cpu"].append(cpu)
                shutil.rmtree(copy)
    print(f"{'kubesim':<40} " + " ".join(f"{n:>12}" for n in times[kubesims[0]]) + "   (medians, seconds)")
    for k, t in times.items():
        print(f"{k:<40} " + " ".join(f"{statistics.median(v):>12.2f}" for v in t.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
