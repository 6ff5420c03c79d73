"""A scenario file (see conformance/README.md, "Writing a scenario"): its nodes, files and steps."""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Verbs that do not change the cluster: no settling needed after them on the real side.
READ_ONLY = {"get", "describe", "events", "logs", "api-resources", "api-versions", "explain", "version",
             "top", "auth", "config", "wait"}


def parse_duration(s) -> float:
    if isinstance(s, (int, float)):
        return float(s)
    total, n = 0.0, ""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    i = 0
    s = str(s).strip()
    while i < len(s):
        c = s[i]
        if c.isdigit() or c == ".":
            n += c
            i += 1
            continue
        u = "ms" if s[i:i + 2] == "ms" else c
        total += float(n) * units[u]
        n = ""
        i += len(u)
    if n:
        total += float(n)
    return total


@dataclass
class Step:
    kind: str                 # run | sleep | advance
    argv: list = field(default_factory=list)
    line: str = ""
    stdin: str | None = None
    compare: bool = True
    sort: bool = False
    tied: list = field(default_factory=list)
    duration: float = 0.0
    duration_text: str = ""
    settle: bool = True
    wait: float = 0.0

    @property
    def title(self) -> str:
        """The step as the scenario writes it: its command line, or `sleep 2s` / `advance 30s`."""
        return self.line if self.kind == "run" else f"{self.kind} {self.duration_text}"


def load_steps(raw: list) -> list[Step]:
    steps = []
    for s in raw:
        if isinstance(s, str):
            s = {"run": s}
        if "sleep" in s or "advance" in s:
            k = "sleep" if "sleep" in s else "advance"
            steps.append(Step(kind=k, duration=parse_duration(s[k]), duration_text=str(s[k])))
            continue
        if "apply" in s:
            s = {"run": "kubectl apply -f -", "stdin": s["apply"], "compare": s.get("compare", False), **s}
            s.pop("apply")
        line = s["run"].strip()
        argv = shlex.split(line)
        if not argv or argv[0] != "kubectl":
            raise ValueError(f"a step must start with kubectl: {line!r}")
        steps.append(Step(kind="run", argv=argv[1:], line=line, stdin=s.get("stdin"),
                          compare=s.get("compare", True), sort=s.get("sort", False), tied=s.get("tied") or [],
                          settle=s.get("settle", True), wait=parse_duration(s.get("wait", 0))))
    return steps


@dataclass
class Scenario:
    name: str
    path: Path
    nodes: list
    files: dict
    steps: list
    sha256: str               # of the file's text: a golden is valid for this version of it only

    @classmethod
    def load(cls, path: Path) -> "Scenario":
        text = Path(path).read_text()
        sc = yaml.safe_load(text)
        return cls(name=sc.get("name") or Path(path).stem, path=Path(path), nodes=sc.get("nodes") or [],
                   files=sc.get("files") or {}, steps=load_steps(sc.get("steps") or []),
                   sha256=hashlib.sha256(text.encode()).hexdigest())

    def write_files(self, files_dir: str):
        """The scenario's files, in the directory both sides run in (so names in messages match)."""
        for fname, content in self.files.items():
            Path(files_dir, fname).parent.mkdir(parents=True, exist_ok=True)
            Path(files_dir, fname).write_text(content)


def transcript(code: int, out: str, err: str) -> str:
    t = out
    if err:
        t += ("" if not out or out.endswith("\n") else "\n") + "--- stderr ---\n" + err
    return t + ("" if t.endswith("\n") or not t else "\n") + f"--- exit {code} ---\n"


def verb_of(argv: list[str]) -> str:
    skip_value = {"-n", "--namespace", "--context", "--kubeconfig", "-l", "--selector", "-o", "--output"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in skip_value:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        return a
    return ""


def node_manifest(spec: dict) -> dict:
    """The Node manifest both sides start from (kubesim registers it as a kubelet would)."""
    labels = {"kubernetes.io/hostname": spec["name"]}
    labels.update(spec.get("labels") or {})
    res = {"cpu": str(spec.get("cpu", "4")), "memory": str(spec.get("memory", "8Gi")),
           "pods": str(spec.get("pods", 110))}
    if spec.get("ephemeral-storage"):
        res["ephemeral-storage"] = str(spec["ephemeral-storage"])
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": spec["name"], "labels": labels,
                         "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {},
            "status": {"capacity": dict(res), "allocatable": dict(spec.get("allocatable") or res)}}
    if spec.get("taints"):
        node["spec"]["taints"] = spec["taints"]
    if spec.get("unschedulable"):
        node["spec"]["unschedulable"] = True
    return node
