"""A scenario run live: on the real cluster and on kubesim, step by step, compared."""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field

from . import real as real_mod
from .normalise import Names, compared
from .scenario import READ_ONLY, Scenario, Step, verb_of
from .sim import InProcessSim, Sim, SimSide


@dataclass
class StepRecord:
    """What one step did on both sides: what a golden keeps of a live run."""
    index: int                # 1-based, as the runner numbers steps
    step: Step
    clock: str = ""           # the `kubesim advance` argument given in this step (before its command)
    real: str = ""            # compared steps: the normalised transcripts
    kubesim: str = ""
    real_exit: int | None = None   # setup steps: the exit codes
    kubesim_exit: int | None = None

    @property
    def agree(self) -> bool:
        return self.real == self.kubesim


@dataclass
class Outcome:
    name: str
    compared: int = 0
    identical: int = 0
    diffs: list = field(default_factory=list)   # (command, diff text)
    error: str = ""
    records: list = field(default_factory=list)  # StepRecord per step


def unified(real: str, kubesim: str, title: str) -> str:
    return "".join(difflib.unified_diff(real.splitlines(True), kubesim.splitlines(True),
                                        fromfile=f"real: {title}", tofile=f"kubesim: {title}"))


def make_sim(kubesim: list[str] | None, state: str, pythonpath: str | None) -> Sim | InProcessSim:
    """kubesim as a command (`kubesim` given), else in-process."""
    return Sim(kubesim, state, pythonpath) if kubesim else InProcessSim(state)


def run_scenario(scenario: Scenario, real: real_mod.Real, kubesim: list[str] | None, pythonpath: str | None,
                 verbose: bool, keep: bool, show: bool = False, pinned: bool = False) -> Outcome:
    outcome = Outcome(scenario.name)
    work = tempfile.mkdtemp(prefix=f"kubesim-conformance-{scenario.name}-")
    state = os.path.join(work, "state")
    files_dir = os.path.join(work, "files")
    os.makedirs(files_dir)
    scenario.write_files(files_dir)
    sim = SimSide(make_sim(kubesim, state, pythonpath), files_dir)
    try:
        # --- a fresh kubesim state with the scenario's nodes; a clean real cluster with the same
        sim_nodes, sim_csinodes = sim.setup(scenario)
        real_mod.prepare(real, sim_nodes, sim_csinodes)

        # kubesim's clock starts pinned at PINNED_NOW and, unless --pinned-clock, follows the
        # wall-clock time the real side has spent (whole seconds) before each step, so periodic
        # work (resyncs, back-offs) has had the same time on both sides.
        t0 = time.monotonic()
        followed = 0

        def follow() -> str:
            nonlocal followed
            if pinned:
                return ""
            target = int(time.monotonic() - t0)
            if target > followed:
                moved = f"{target - followed}s"
                sim.advance(moved)
                followed = target
                return moved
            return ""

        real_names = Names()
        real_names.track(real.pods())
        sim.start()
        for i, st in enumerate(scenario.steps, 1):
            rec = StepRecord(i, st)
            outcome.records.append(rec)
            if st.kind == "sleep":
                time.sleep(st.duration)
                real.settle()
                if pinned:
                    sim.advance(st.duration_text)
                    rec.clock = st.duration_text
                else:
                    rec.clock = follow()
                if verbose:
                    print(f"  [{i}] sleep {st.duration_text}")
                continue
            if st.kind == "advance":
                real.settle()
                sim.advance(st.duration_text)
                rec.clock = st.duration_text
                if verbose:
                    print(f"  [{i}] advance {st.duration_text} (kubesim only)")
                continue
            rec.clock = follow()
            rc, rout, rerr = real.run(st.argv, st.stdin, files_dir)
            if st.settle and verb_of(st.argv) not in READ_ONLY:
                real.settle()
            if st.wait:
                time.sleep(st.wait)
                real.settle()
            sc_, sout, serr = sim.run(st)
            real_names.track(real.pods())
            if not st.compare:
                rec.real_exit, rec.kubesim_exit = rc, sc_
                if verbose:
                    print(f"  [{i}] (setup) {st.line}: real exit {rc}, kubesim exit {sc_}")
                if rc != 0 or sc_ != 0:
                    print(f"  [{i}] setup step {st.line!r}: real exit {rc} {rerr.strip()[:300]!r}; "
                          f"kubesim exit {sc_} {serr.strip()[:300]!r}", file=sys.stderr)
                continue
            rec.real = a = compared(st, rc, rout, rerr, real_names)
            rec.kubesim = b = sim.compared(st, sc_, sout, serr)
            outcome.compared += 1
            if a == b:
                outcome.identical += 1
                if verbose:
                    print(f"  [{i}] = {st.line}")
                if show:
                    print("    " + a.rstrip("\n").replace("\n", "\n    "))
            else:
                outcome.diffs.append((f"[{i}] {st.line}", unified(a, b, st.line)))
                if verbose:
                    print(f"  [{i}] ≠ {st.line}")
    except Exception as e:  # noqa: BLE001 - reported per scenario
        outcome.error = f"{type(e).__name__}: {e}"
    finally:
        if keep:
            print(f"  kubesim state kept in {state}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return outcome
