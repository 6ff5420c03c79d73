#!/usr/bin/env python3
"""Run kubectl scenarios against the conformance oracle (a real v1.35 control plane with KWOK
kubelets, started by conformance/up) and against kubesim, and diff what they print.

    python conformance/run.py conformance/scenarios/*.yaml
    python conformance/run.py --no-fail -k drain conformance/scenarios/*
    python conformance/run.py --record conformance/golden conformance/scenarios/*   # live, and write goldens
    python conformance/run.py --replay conformance/golden conformance/scenarios/*   # kubesim only, no cluster

A scenario is YAML (see conformance/README.md, "Writing a scenario"):

    name: short-name
    nodes:                      # fake nodes: KWOK nodes on the real side, Node manifests in kubesim
    - {name: node01, cpu: "4", memory: 8Gi, pods: 110, labels: {...}, taints: [...]}
    files:                      # optional: files written to a temp dir, same path on both sides
      bad.yaml: |
        ...
    steps:
    - kubectl get nodes                       # run on both sides and compared
    - run: kubectl apply -f -                 # the long form
      stdin: |
        apiVersion: v1 ...
      compare: false                          # setup: run on both, not compared
      sort: true                              # compare table rows sorted (order is incidental)
      tied: [node01, node02]                  # upstream draws among equal scores: these node
                                              # names become <tied-node> in this step's output
      wait: 2s                                # extra real-side wait after the step (and settle)
      settle: false                           # do not wait for the real cluster to settle
    - apply: |                                # shorthand for kubectl apply -f - (compare: false)
        ...
    - sleep: 5s                               # real side sleeps; kubesim `advance 5s`
    - advance: 30s                            # kubesim `advance 30s`; the real side only settles
                                              # (kubelet-side waits that KWOK skips, e.g. grace periods)

Python 3.11, stdlib + PyYAML. The parts live in conformance/oracle/.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from conformance.oracle import golden  # noqa: E402
from conformance.oracle.live import run_scenario  # noqa: E402
from conformance.oracle.real import Real  # noqa: E402
from conformance.oracle.scenario import Scenario  # noqa: E402

HOME_DIR = Path(os.environ.get("KUBESIM_CONFORMANCE_HOME", Path.home() / ".cache" / "kubesim-conformance"))
KUBECONFIG = HOME_DIR / "kubeconfig"


def kubesim_rev(rev: str) -> tuple[str, str]:
    """kubesim as committed at `rev`, unpacked into the cache: (its PYTHONPATH, its short sha)."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    snap = HOME_DIR / "kubesim-src" / sha
    if not (snap / "kubesim").is_dir():
        snap.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "kubesim"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(snap)], input=archive, check=True)
    return str(snap), sha[:12]


def worktree_rev() -> str:
    """The working tree's revision, `+dirty` when kubesim/ has uncommitted changes."""
    def git(*a):
        return subprocess.run(["git", "-C", str(REPO), *a], capture_output=True, text=True).stdout.strip()
    sha = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return sha + ("+dirty" if git("status", "--porcelain", "--", "kubesim") else "")


def scenario_paths(args) -> list[Path]:
    paths: list[Path] = []
    for s in args.scenarios:
        p = Path(s)
        paths += sorted(p.glob("*.yaml")) if p.is_dir() else [p]
    return [p for p in paths if not args.filter or args.filter in p.stem]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="+", help="scenario YAML files (or directories)")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when the sides disagree")
    ap.add_argument("-k", dest="filter", help="only scenarios whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each step as it runs")
    ap.add_argument("--keep", action="store_true", help="keep kubesim's state directories")
    ap.add_argument("--pinned-clock", action="store_true",
                    help="kubesim's clock moves only at sleep/advance steps (default: it follows the real side's "
                         "elapsed wall-clock time)")
    ap.add_argument("-s", "--show", action="store_true", help="also print each identical step's (normalised) output")
    ap.add_argument("--record", metavar="DIR",
                    help="also write each scenario's golden (the real side's normalised transcripts, and which "
                         "steps kubesim agreed on) to DIR/<scenario>.yaml")
    ap.add_argument("--replay", metavar="DIR",
                    help="no cluster: run kubesim only (in-process unless --kubesim/--kubesim-rev) and compare it "
                         "with the goldens in DIR")
    ap.add_argument("--accept-fixed", action="store_true",
                    help="with --replay: mark the recorded disagreements kubesim now agrees on as agreeing")
    ap.add_argument("--in-process", action="store_true",
                    help="run kubesim in this process (the default with --replay), not as a command")
    ap.add_argument("--kubeconfig", default=str(KUBECONFIG))
    ap.add_argument("--kubectl", default=os.environ.get("KUBECTL") or str(REPO / ".venv" / "bin" / "kubectl"))
    ap.add_argument("--kubesim", default=os.environ.get("KUBESIM"),
                    help="the kubesim command (default: the venv's; with --replay, in-process)")
    ap.add_argument("--kubesim-rev", metavar="REV",
                    help="run kubesim as committed at REV (git archive of the repo into the cache, run with "
                         "the venv's python), not the working tree: for a tree that is being edited")
    args = ap.parse_args(argv)
    if args.record and args.replay:
        ap.error("--record and --replay exclude each other")
    if args.accept_fixed and not args.replay:
        ap.error("--accept-fixed goes with --replay")

    pythonpath, rev = None, None
    if args.kubesim_rev:
        pythonpath, rev = kubesim_rev(args.kubesim_rev)
        py = REPO / ".venv" / "bin" / "python"
        args.kubesim = f"{py if py.exists() else sys.executable} -m kubesim"
        print(f"kubesim: {rev} ({args.kubesim_rev}) from {pythonpath}")
    kubesim: list[str] | None = None
    if args.kubesim or not (args.replay or args.in_process):
        kubesim = shlex.split(args.kubesim or str(REPO / ".venv" / "bin" / "kubesim"))
        if len(kubesim) == 1 and not os.path.exists(kubesim[0]):
            found = shutil.which(kubesim[0]) or shutil.which("kubesim")
            if not found:
                print("kubesim not found", file=sys.stderr)
                return 2
            kubesim = [found]
        if os.path.exists(kubesim[0]):  # the commands run in the scenario's directory
            kubesim[0] = os.path.abspath(kubesim[0])
    paths = scenario_paths(args)
    if args.replay:
        return replay_main(args, paths, kubesim, pythonpath)

    if not os.path.exists(args.kubectl):
        found = shutil.which("kubectl")
        if not found:
            print("kubectl not found", file=sys.stderr)
            return 2
        args.kubectl = found
    args.kubectl = os.path.abspath(args.kubectl)
    if not Path(args.kubeconfig).exists():
        print(f"no kubeconfig at {args.kubeconfig}: run conformance/up first", file=sys.stderr)
        return 2
    real = Real(Path(args.kubeconfig), args.kubectl)
    if not real.healthy():
        print("the real cluster is not ready (/readyz): run conformance/up", file=sys.stderr)
        return 2
    meta = None
    if args.record:
        client = json.loads(subprocess.run([args.kubectl, "version", "--client", "-o", "json"], capture_output=True,
                                           text=True).stdout or "{}")
        meta = {"server": real.get("/version")["gitVersion"],
                "kubectl": (client.get("clientVersion") or {}).get("gitVersion", "?"),
                "kubesim": rev or worktree_rev(),
                "clock": "pinned" if args.pinned_clock else "follows the real side"}

    outcomes = []
    for p in paths:
        print(f"=== {p.stem}", flush=True)
        t0 = time.monotonic()
        scenario = Scenario.load(p)
        o = run_scenario(scenario, real, kubesim, pythonpath, args.verbose or args.show, args.keep, args.show,
                         args.pinned_clock)
        outcomes.append(o)
        for cmd, d in o.diffs:
            print(f"--- {cmd}")
            print(d, end="" if d.endswith("\n") else "\n")
        if o.error:
            print(f"ERROR: {o.error}")
        elif args.record:
            out = Path(args.record) / f"{scenario.name}.yaml"
            golden.record(scenario, o, out, meta)
            print(f"recorded {out}")
        verdict = "agree" if not o.diffs and not o.error else ("error" if o.error else "disagree")
        print(f"=== {o.name}: {verdict} ({o.identical}/{o.compared} identical, {time.monotonic() - t0:.0f}s)\n",
              flush=True)

    w = max([len("scenario")] + [len(o.name) for o in outcomes])
    print(f"{'scenario':<{w}}  compared  identical  verdict")
    for o in outcomes:
        verdict = "error" if o.error else ("agree" if not o.diffs else "disagree")
        print(f"{o.name:<{w}}  {o.compared:>8}  {o.identical:>9}  {verdict}")
    total_c = sum(o.compared for o in outcomes)
    total_i = sum(o.identical for o in outcomes)
    print(f"{'total':<{w}}  {total_c:>8}  {total_i:>9}")
    bad = any(o.diffs or o.error for o in outcomes)
    return 1 if bad and not args.no_fail else 0


def replay_main(args, paths: list[Path], kubesim: list[str] | None, pythonpath: str | None) -> int:
    """--replay: kubesim against the recorded real side, no cluster."""
    rows = []
    for p in paths:
        scenario = Scenario.load(p)
        gpath = Path(args.replay) / f"{scenario.name}.yaml"
        if not gpath.exists():
            print(f"=== {scenario.name}: no golden at {gpath}")
            rows.append((scenario.name, None))
            continue
        t0 = time.monotonic()
        r = golden.replay(scenario, golden.load(gpath), kubesim, pythonpath, verbose=args.verbose)
        if r.error or r.regressed or r.fixed or r.setup_notes:
            print(r.report(str(p)))
        if args.accept_fixed and r.fixed:
            n = golden.accept_fixed(gpath, r)
            print(f"{gpath}: {n} step(s) now marked agreeing")
        rows.append((scenario.name, r))
        verdict = "error" if r.error else ("ok" if r.ok else "FAIL")
        agree = sum(1 for x in r.results if x.status == "agree")
        print(f"=== {scenario.name}: {verdict} ({len(r.results)} compared: {agree} agree as recorded, "
              f"{len(r.known)} known disagreements, {len(r.regressed)} regressed, {len(r.fixed)} fixed; "
              f"{time.monotonic() - t0:.1f}s)", flush=True)
    bad = any(r is None or not r.ok for _, r in rows)
    if args.accept_fixed:
        bad = any(r is None or r.error or r.regressed for _, r in rows)
    return 1 if bad and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
