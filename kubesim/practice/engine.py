"""Preparing, grading and recording a drill or a mock exam.

A practice session is recorded in ``<state>/practice.json``: the mode (``drill`` or ``exam``),
each task's id, seed, variables and context, and the start on the wall and simulated clocks.
Each task gets its own cluster and context in the state (``kubesim cluster init --name CTX``),
as the real exam gives each task its own ``kubectl config use-context``; preparing one is typing
its setup: the cluster's shape, ``kubectl apply -f -`` of its objects, then its steps.

The commands are run by a ``runner(argv, stdin) -> (code, out, err)`` the command line hands in
(it drives kubesim's own entry point), and the cluster is read through ``ctx`` (a ``Client``
for the task's context, and one impersonating a user): this package never opens a state.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass

from kubesim.errors import UsageError
from kubesim.practice.task import TOPICS, Task

RECORD = "practice.json"
EXAM_PASS_MARK = 66  # percent, as the CKA's


@dataclass
class Entry:
    """One task of a session: which, with what seed and variables, on which context."""
    id: str
    seed: int
    context: str
    values: dict
    points: float = 0.0


@dataclass
class Record:
    mode: str  # drill | exam
    entries: list[Entry]
    wall_start: float
    sim_start: float
    minutes: int = 0
    seed: int = 0
    ended: bool = False

    def to_json(self) -> str:
        return json.dumps({"mode": self.mode, "minutes": self.minutes, "seed": self.seed, "ended": self.ended,
                           "wallStart": self.wall_start, "simStart": self.sim_start,
                           "entries": [e.__dict__ for e in self.entries]}, indent=1)


def load_record(state_dir: str, mode: str) -> Record:
    path = os.path.join(state_dir, RECORD)
    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
    except (OSError, ValueError):
        d = None
    if not d or d.get("mode") != mode:
        raise UsageError(f"no {mode} in progress in {state_dir} (start one with: kubesim {mode} start"
                         + (" ID)" if mode == "drill" else ")"))
    return Record(mode=d["mode"], entries=[Entry(**e) for e in d["entries"]], wall_start=d["wallStart"],
                  sim_start=d["simStart"], minutes=d.get("minutes", 0), seed=d.get("seed", 0),
                  ended=d.get("ended", False))


def save_record(state_dir: str, record: Record) -> None:
    path = os.path.join(state_dir, RECORD)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(record.to_json())
    os.replace(tmp, path)


def runtime_values(values: dict, context: str, cluster_dir: str) -> dict:
    return {**values, "context": context, "cluster_dir": cluster_dir}


def setup_script(task: Task, context: str) -> list:
    """The setup of a rendered task as steps: the cluster, its objects, its own steps."""
    from kubesim.practice import script

    s = task.setup
    argv = ["cluster", "init", "--name", context, "--nodes", str(s.get("nodes", 2))]
    if s.get("cpu"):
        argv += ["--cpu", str(s["cpu"])]
    if s.get("memory"):
        argv += ["--memory", str(s["memory"])]
    steps: list = [script.Command(tuple(argv), "", " ".join(argv))]
    if s.get("objects"):
        steps.append(script.Command(("apply", "-f", "-", "--context", context), str(s["objects"]), "apply"))
    if s.get("steps"):
        steps += [_in_context(st, context) for st in script.parse(str(s["steps"]))]
    # an exam's cluster has been up a while: images pulled, controllers settled
    steps.append(script.Command(("--context", context, "advance", "1m"), "", "advance 1m"))
    return steps


def _in_context(step, context: str):
    from kubesim.practice import script

    if isinstance(step, script.Command):
        return script.Command(("--context", context) + step.argv, step.stdin, step.line)
    return step


def prepare(task: Task, context: str, runner) -> None:
    """Make the task's cluster: its setup run as typed; a failing step is a broken task."""
    from kubesim.practice import script

    for step, code, _out, err in script.run(setup_script(task, context), runner):
        if code != 0:
            raise UsageError(f"drill {task.id}: setup step {step.line!r} failed: {err.strip()}")


def grade(task: Task, ctx) -> list:
    from kubesim.practice.checks import run_check

    return [run_check(c, ctx) for c in task.checks]


def exam_plan(tasks: list[Task], seed: int, count: int = 17) -> list[tuple[Task, float]]:
    """``count`` tasks in the curriculum's weights, each with its points (a domain's percent
    shared by its tasks in proportion to their weights), in a seeded order."""
    rng = random.Random(f"exam:{seed}")
    by_topic = {t: [x for x in tasks if x.topic == t] for t in TOPICS}
    shares = {t: max(1, round(count * pct / 100)) for t, pct in TOPICS.items()}
    while sum(shares.values()) > count:
        shares[max(shares, key=lambda t: shares[t] - count * TOPICS[t] / 100)] -= 1
    while sum(shares.values()) < count:
        shares[min(shares, key=lambda t: shares[t] - count * TOPICS[t] / 100)] += 1
    plan = []
    for topic, n in shares.items():
        chosen = rng.sample(by_topic[topic], min(n, len(by_topic[topic])))
        total = sum(t.weight for t in chosen) or 1
        plan += [(t, TOPICS[topic] * t.weight / total) for t in chosen]
    rng.shuffle(plan)  # the real exam does not group its tasks by domain
    return plan


def duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"
