"""A practice task as data: ``kubesim/drills/<id>.yaml``, loaded and checked against its schema.

A task file holds::

    id: manual-scheduling          # the file's name, [a-z0-9-]
    topic: workloads-scheduling    # one of TOPICS (the CNCF CKA curriculum's five domains)
    weight: 4                      # points in a mock exam (relative, within its domain)
    title: Place a pod without the scheduler
    vars:                          # seeded variants, rendered in order into every text below
      node: {choice: [node01, node02]}
      port: {int: [8000, 8999]}
      name: "web-{{port}}"         # a plain string may use the variables before it
    setup:
      nodes: 2                     # worker nodes (``kubesim cluster init --nodes``); cpu, memory
      objects: |                   # manifests, applied with ``kubectl apply -f -``
        ...
      steps: |                     # command lines typed after the objects (as a solution's)
        kubectl taint nodes node01 a=b:NoSchedule
    task: |                        # what the candidate reads
      ...
    checks:                        # kubesim.practice.checks: one predicate each
    - desc: Pod web runs on node01
      pod: {name: web, node: node01}
    hints: [...]
    solution: |                    # command lines as typed (heredocs allowed)
      ...

``{{var}}`` in any text is replaced by the variable's value; ``{{context}}`` and
``{{cluster_dir}}`` are the task's context and its cluster's state directory.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from kubesim.errors import UsageError

DRILLS_DIR = Path(__file__).resolve().parent.parent / "drills"

# The CNCF CKA curriculum (v1.35): domain -> its share of the exam, in percent.
TOPICS: dict[str, int] = {
    "troubleshooting": 30,
    "cluster-architecture": 25,
    "services-networking": 20,
    "workloads-scheduling": 15,
    "storage": 10,
}
TOPIC_TITLES = {
    "troubleshooting": "Troubleshooting",
    "cluster-architecture": "Cluster Architecture, Installation and Configuration",
    "services-networking": "Services and Networking",
    "workloads-scheduling": "Workloads and Scheduling",
    "storage": "Storage",
}

_ID = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_VAR = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
_KEYS = {"id", "topic", "weight", "title", "vars", "setup", "task", "checks", "hints", "solution"}
_SETUP_KEYS = {"nodes", "cpu", "memory", "objects", "steps"}
RUNTIME_VARS = ("context", "cluster_dir")


class TaskError(UsageError):
    """A task file that does not follow the schema."""


@dataclass
class Task:
    id: str
    topic: str
    weight: int
    title: str
    task: str
    checks: list[dict]
    solution: str
    hints: list[str] = field(default_factory=list)
    vars: dict = field(default_factory=dict)
    setup: dict = field(default_factory=dict)

    def variables(self, seed: int) -> dict[str, str]:
        """The task's variables for one seed (the same seed, the same values)."""
        rng = random.Random(f"{self.id}:{seed}")
        out: dict[str, str] = {}
        for name, spec in self.vars.items():
            if isinstance(spec, dict) and "choice" in spec:
                out[name] = str(rng.choice(spec["choice"]))
            elif isinstance(spec, dict) and "int" in spec:
                lo, hi = spec["int"]
                out[name] = str(rng.randint(lo, hi))
            else:
                out[name] = render(str(spec), out)
        return out

    def rendered(self, values: dict[str, str]) -> Task:
        """The task with every ``{{var}}`` replaced."""
        return Task(id=self.id, topic=self.topic, weight=self.weight, title=render(self.title, values),
                    task=render(self.task, values), checks=_render_any(self.checks, values),
                    solution=render(self.solution, values), hints=[render(h, values) for h in self.hints],
                    vars=self.vars, setup=_render_any(self.setup, values))


def render(text: str, values: dict[str, str]) -> str:
    return _VAR.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _render_any(value, values):
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, list):
        return [_render_any(v, values) for v in value]
    if isinstance(value, dict):
        return {k: _render_any(v, values) for k, v in value.items()}
    return value


def _fail(source: str, message: str):
    raise TaskError(f"task {source}: {message}")


def parse_task(source: str, text: str) -> Task:
    """A task from its YAML text, checked: unknown keys, missing keys, wrong types, an unknown
    topic, a check of an unknown type, or a ``{{var}}`` that names no variable are refused."""
    from kubesim.codec.load import decode_yaml
    from kubesim.errors import KubesimError
    from kubesim.practice.checks import check_errors

    try:
        docs = decode_yaml(source, text)
    except KubesimError as e:
        _fail(source, getattr(e, "detail", None) or str(e))
    if len(docs) != 1 or not isinstance(docs[0], dict):
        _fail(source, "a task file holds one mapping")
    d = docs[0]
    unknown = sorted(set(d) - _KEYS)
    if unknown:
        _fail(source, f"unknown field(s): {', '.join(unknown)}")
    for key in ("id", "topic", "weight", "title", "task", "checks", "solution"):
        if key not in d:
            _fail(source, f"missing field: {key}")
    for key in ("id", "topic", "title", "task", "solution"):
        if not isinstance(d[key], str) or not d[key].strip():
            _fail(source, f"{key}: must be a non-empty string")
    if not _ID.fullmatch(d["id"]):
        _fail(source, f"id: {d['id']!r} must consist of lower case alphanumeric characters or '-'")
    if d["topic"] not in TOPICS:
        _fail(source, f"topic: {d['topic']!r} is not one of {', '.join(TOPICS)}")
    if not isinstance(d["weight"], int) or isinstance(d["weight"], bool) or not 1 <= d["weight"] <= 20:
        _fail(source, "weight: must be an integer from 1 to 20")
    variables = d.get("vars") or {}
    if not isinstance(variables, dict):
        _fail(source, "vars: must be a mapping")
    for name, spec in variables.items():
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", str(name)):
            _fail(source, f"vars: {name!r} is not a variable name")
        if isinstance(spec, dict):
            ok = (set(spec) == {"choice"} and isinstance(spec["choice"], list) and spec["choice"]) or \
                 (set(spec) == {"int"} and isinstance(spec["int"], list) and len(spec["int"]) == 2
                  and all(isinstance(x, int) for x in spec["int"]) and spec["int"][0] <= spec["int"][1])
            if not ok:
                _fail(source, f"vars.{name}: must be a string, {{choice: [...]}} or {{int: [lo, hi]}}")
        elif not isinstance(spec, (str, int)):
            _fail(source, f"vars.{name}: must be a string, {{choice: [...]}} or {{int: [lo, hi]}}")
    setup = d.get("setup") or {}
    if not isinstance(setup, dict):
        _fail(source, "setup: must be a mapping")
    unknown = sorted(set(setup) - _SETUP_KEYS)
    if unknown:
        _fail(source, f"setup: unknown field(s): {', '.join(unknown)}")
    if "nodes" in setup and (not isinstance(setup["nodes"], int) or not 0 <= setup["nodes"] <= 20):
        _fail(source, "setup.nodes: must be an integer from 0 to 20")
    for key in ("objects", "steps", "cpu", "memory"):
        if key in setup and not isinstance(setup[key], (str, int)):
            _fail(source, f"setup.{key}: must be a string")
    hints = d.get("hints") or []
    if not isinstance(hints, list) or not all(isinstance(h, str) for h in hints):
        _fail(source, "hints: must be a list of strings")
    checks = d["checks"]
    if not isinstance(checks, list) or not checks:
        _fail(source, "checks: must be a non-empty list")
    for i, c in enumerate(checks):
        for err in check_errors(c):
            _fail(source, f"checks[{i}]: {err}")
    known = set(variables) | set(RUNTIME_VARS)
    for m in _VAR.finditer(text):
        if m.group(1) not in known:
            _fail(source, f"{{{{{m.group(1)}}}}} names no variable")
    task = Task(id=d["id"], topic=d["topic"], weight=d["weight"], title=d["title"], task=d["task"],
                checks=checks, solution=d["solution"], hints=hints, vars=variables, setup=setup)
    return task


def load_task(path: Path) -> Task:
    task = parse_task(path.name, path.read_text(encoding="utf-8"))
    if task.id != path.stem:
        _fail(path.name, f"id: {task.id!r} differs from the file's name")
    return task


def all_tasks(directory: Path = DRILLS_DIR) -> list[Task]:
    """Every task, in the order of the curriculum's domains, then by id."""
    tasks = [load_task(p) for p in sorted(directory.glob("*.yaml"))]
    order = list(TOPICS)
    return sorted(tasks, key=lambda t: (order.index(t.topic), t.id))


def find_task(task_id: str, directory: Path = DRILLS_DIR) -> Task:
    path = directory / f"{task_id}.yaml"
    if not _ID.fullmatch(task_id) or not path.is_file():
        raise UsageError(f'drill "{task_id}" not found (kubesim drill list shows them)')
    return load_task(path)
