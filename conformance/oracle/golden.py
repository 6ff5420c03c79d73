"""Goldens: the real cluster's normalised transcripts of a scenario, recorded by a live run
(`run.py --record DIR`), and kubesim replayed against them without a cluster (`run.py --replay
DIR`, tests/test_conformance_replay.py).

A golden is YAML, one file per scenario, every step in order:

    - step: 7                                # the runner's 1-based step number
      run: kubectl get pods -o wide          # or `sleep: 2s` / `advance: 30s`
      clock: 3s                              # the `kubesim advance` the live run gave in this step
      agree: true                            # did kubesim agree at record time
      real: |                                # the real side's normalised transcript
        ...
      reason: ...                            # disagreeing steps: the first difference,
      note: ...                              #   a hand-written note (kept when re-recorded),
      diff: |                                #   and the diff at record time
        ...

Setup steps (`compare: false`) carry `setup: {real_exit: N, kubesim_exit: N}` and no transcript.
The replay runs kubesim's side exactly as the live run did (same commands, same clock moves),
so kubesim's normalised output is the one the live run compared, and holds it against `real`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .live import Outcome, StepRecord, make_sim, unified
from .scenario import Scenario
from .sim import SimSide

HEADER = """\
# The real cluster's normalised output for conformance/scenarios/{name}.yaml, recorded by
#   conformance/run.py --record conformance/golden conformance/scenarios/{name}.yaml
# against conformance/up's v1.35 control plane. Do not edit by hand (except `note:`), re-record.
# tests/test_conformance_replay.py replays kubesim against it: see conformance/README.md.
"""


class _Dumper(yaml.SafeDumper):
    def choose_scalar_style(self):
        # PyYAML refuses a literal block for text with tabs (describe's `Labels:\tapp=web`) or
        # trailing spaces (a diff's context line of an empty line), which YAML allows: keep the
        # block (dump() checks that the text reads back the same).
        v = self.event.value
        if (self.event.style == "|" and not self.flow_level and not self.simple_key_context
                and all(c in "\t\n" or " " <= c <= "~" or c >= "\xa0" for c in v) and not v.startswith("\n")):
            return "|"
        return super().choose_scalar_style()


class _Flow(list):
    """A list written on one line (the summary's step numbers)."""


def _str(dumper, s: str):
    if "\n" in s:  # transcripts as literal blocks: readable, and diff line by line
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", s)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Flow, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def dump(data: dict) -> str:
    data["summary"]["disagree"] = _Flow(data["summary"]["disagree"])
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=1 << 20, allow_unicode=True)
    if yaml.safe_load(text) != data:  # a literal block that would not read back: quoted strings then
        text = yaml.safe_dump(data, sort_keys=False, width=1 << 20, allow_unicode=True)
    return HEADER.format(name=data["scenario"]) + text


def first_difference(real: str, kubesim: str) -> str:
    """A one-line reason: where the first differing line differs, on each side."""
    a, b = real.splitlines(), kubesim.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x == y:
            continue
        if x is None or y is None:
            extra, side = (y, "kubesim") if x is None else (x, "real")
            return f"line {i + 1}: only {side} has `{extra.strip()[:120]}`"
        p = next((j for j, (c, d) in enumerate(zip(x, y)) if c != d), min(len(x), len(y)))
        start = max(0, p - 30)

        def part(s: str) -> str:
            return ("..." if start else "") + s[start:p + 50].strip() + ("..." if len(s) > p + 50 else "")
        return f"line {i + 1}: real `{part(x)}`, kubesim `{part(y)}`"
    return "the same lines, different line endings"


def step_entry(rec: StepRecord, old: dict | None) -> dict:
    st = rec.step
    e: dict = {"step": rec.index}
    if st.kind == "run":
        e["run"] = st.line
    else:
        e[st.kind] = st.duration_text
    if rec.clock:
        e["clock"] = rec.clock
    if st.kind != "run":
        return e
    if not st.compare:
        e["setup"] = {"real_exit": rec.real_exit, "kubesim_exit": rec.kubesim_exit}
        return e
    e["agree"] = rec.agree
    e["real"] = rec.real
    if not rec.agree:
        e["reason"] = first_difference(rec.real, rec.kubesim)
        if old and old.get("note") and old.get("run") == st.line:
            e["note"] = old["note"]
        e["diff"] = unified(rec.real, rec.kubesim, st.line)
    return e


def record(scenario: Scenario, outcome: Outcome, path: Path, meta: dict) -> dict:
    """Write the golden of a live run (a run that failed part-way is not written)."""
    if outcome.error:
        raise RuntimeError(f"{scenario.name}: not recorded: {outcome.error}")
    old = {}
    if path.exists():
        old = {s["step"]: s for s in (yaml.safe_load(path.read_text()) or {}).get("steps") or []}
    steps = [step_entry(r, old.get(r.index)) for r in outcome.records]
    compared = [s for s in steps if "agree" in s]
    data = {
        "scenario": scenario.name,
        "source": f"conformance/scenarios/{scenario.path.name}",
        "source_sha256": scenario.sha256,
        "recorded": meta,
        "summary": {"steps": len(steps), "compared": len(compared),
                    "agree": sum(1 for s in compared if s["agree"]),
                    "disagree": _Flow(s["step"] for s in compared if not s["agree"])},
        "steps": steps,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump(data))
    return data


def load(path: Path) -> dict:
    return yaml.safe_load(Path(path).read_text())


# ----------------------------------------------------------------------------------------------
# Replay


@dataclass
class StepResult:
    index: int
    title: str
    recorded_agree: bool
    agree: bool
    kubesim: str = ""         # kubesim's normalised transcript now
    diff: str = ""            # real (recorded) against kubesim (now), when they differ

    @property
    def status(self) -> str:
        if self.recorded_agree:
            return "agree" if self.agree else "REGRESSED"
        return "FIXED" if self.agree else "known"


@dataclass
class Replay:
    name: str
    results: list = field(default_factory=list)   # StepResult per compared step
    setup_notes: list = field(default_factory=list)  # setup steps whose kubesim exit code changed
    error: str = ""

    @property
    def regressed(self) -> list:
        return [r for r in self.results if r.status == "REGRESSED"]

    @property
    def fixed(self) -> list:
        return [r for r in self.results if r.status == "FIXED"]

    @property
    def known(self) -> list:
        return [r for r in self.results if r.status == "known"]

    @property
    def ok(self) -> bool:
        return not self.error and not self.regressed and not self.fixed

    def report(self, scenario_path: str = "SCENARIO") -> str:
        """What went wrong, for a person: each regressed step's diff, each fixed step, the notes."""
        out = []
        if self.error:
            out.append(f"{self.name}: {self.error}")
        for r in self.regressed:
            out.append(f"[{r.index}] {r.title}: agreed with the real cluster when recorded, now differs:\n{r.diff}")
        for r in self.fixed:
            out.append(f"[{r.index}] {r.title}: recorded as a disagreement, now agrees with the real cluster: "
                       f"mark it agreeing (conformance/run.py --replay conformance/golden --accept-fixed "
                       f"{scenario_path}) or re-record the golden")
        out += self.setup_notes
        return "\n".join(out)


def check(scenario: Scenario, golden: dict):
    """The golden was recorded from this version of the scenario (else it must be re-recorded)."""
    if golden.get("source_sha256") != scenario.sha256:
        raise ValueError(f"the golden was recorded from another version of {scenario.path.name}: re-record it")
    steps = golden.get("steps") or []
    if len(steps) != len(scenario.steps):
        raise ValueError(f"the golden has {len(steps)} steps, the scenario {len(scenario.steps)}: re-record it")


def replay(scenario: Scenario, golden: dict, kubesim: list[str] | None = None, pythonpath: str | None = None,
           verbose: bool = False) -> Replay:
    """kubesim's side of the scenario, as the live run drove it, against the recorded real side."""
    result = Replay(scenario.name)
    try:
        check(scenario, golden)
    except ValueError as e:
        result.error = str(e)
        return result
    work = tempfile.mkdtemp(prefix=f"kubesim-replay-{scenario.name}-")
    files_dir = os.path.join(work, "files")
    os.makedirs(files_dir)
    scenario.write_files(files_dir)
    sim = SimSide(make_sim(kubesim, os.path.join(work, "state"), pythonpath), files_dir)
    try:
        sim.setup(scenario)
        sim.start()
        for i, (st, g) in enumerate(zip(scenario.steps, golden["steps"]), 1):
            if g.get("clock"):
                sim.advance(g["clock"])
            if st.kind != "run":
                continue
            code, out, err = sim.run(st)
            if not st.compare:
                want = (g.get("setup") or {}).get("kubesim_exit")
                if want is not None and code != want:
                    result.setup_notes.append(f"[{i}] (setup) {st.line}: kubesim exit {code}, {want} when recorded: "
                                              f"{err.strip()[:300]}")
                continue
            text = sim.compared(st, code, out, err)
            r = StepResult(i, st.line, bool(g["agree"]), text == g["real"], text)
            if not r.agree:
                r.diff = unified(g["real"], text, st.line)
            result.results.append(r)
            if verbose:
                print(f"  [{i}] {r.status}: {st.line}")
    except Exception as e:  # noqa: BLE001 - reported per scenario
        result.error = f"{type(e).__name__}: {e}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def accept_fixed(path: Path, result: Replay) -> int:
    """Mark the steps a replay found fixed as agreeing: kubesim now prints their recorded real
    transcript (a fix needs no cluster to be accepted; re-recording also refreshes the real side).
    Returns how many."""
    data = load(path)
    fixed = {r.index for r in result.fixed}
    for s in data["steps"]:
        if s["step"] in fixed:
            s["agree"] = True
            for k in ("reason", "note", "diff"):
                s.pop(k, None)
    compared = [s for s in data["steps"] if "agree" in s]
    data["summary"].update(agree=sum(1 for s in compared if s["agree"]),
                           disagree=_Flow(s["step"] for s in compared if not s["agree"]))
    path.write_text(dump(data))
    return len(fixed)
