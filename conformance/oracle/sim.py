"""kubesim's side of a scenario: a fresh state directory, the clock pinned, the names seeded.

kubesim runs either as a command in a subprocess (the venv's `kubesim`, or a committed revision
with --kubesim-rev) or in-process through kubesim.testing.cli's entry point (fast: no
interpreter start per command). Both the live run and the replay drive it through
:class:`SimSide`, so kubesim sees the same sequence of commands either way: its seeded random
source counts the commands of a state, so one more `get` would change every later name."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import traceback

import yaml

from .normalise import Names, compared
from .scenario import Scenario, Step, node_manifest

PINNED_NOW = "2026-11-22T10:00:00Z"
SEED = "42"


class Sim:
    """kubesim as a command, in a subprocess."""

    def __init__(self, kubesim: list[str], state: str, pythonpath: str | None = None):
        self.kubesim = kubesim
        self.state = state
        self.env = dict(os.environ, KUBESIM_NOW=PINNED_NOW, KUBESIM_SEED=SEED, KUBESIM_STATE=state,
                        KUBESIM_IMAGES="present")  # KWOK's nodes pull nothing
        self.env.pop("KUBECONFIG", None)
        if pythonpath:
            self.env["PYTHONPATH"] = pythonpath

    def run(self, argv: list[str], stdin: str | None, cwd: str) -> tuple[int, str, str]:
        p = subprocess.run(self.kubesim + argv, input=stdin or "", capture_output=True, text=True,
                           env=self.env, cwd=cwd, timeout=600)
        return p.returncode, p.stdout, p.stderr


class InProcessSim:
    """kubesim called in this process (kubesim.cli.main.main with an injected Environment), in
    the working directory a subprocess would have had (relative file names in arguments)."""

    def __init__(self, state: str):
        self.state = state
        self.vars = {"KUBESIM_NOW": PINNED_NOW, "KUBESIM_SEED": SEED, "KUBESIM_STATE": state,
                     "KUBESIM_IMAGES": "present"}  # KWOK's nodes pull nothing

    def run(self, argv: list[str], stdin: str | None, cwd: str) -> tuple[int, str, str]:
        from kubesim.cli.main import Environment, main

        out, err = io.StringIO(), io.StringIO()
        env = Environment(stdin=io.StringIO(stdin or ""), stdout=out, stderr=err, vars=dict(self.vars), cwd=cwd)
        old = os.getcwd()
        os.chdir(cwd)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(list(argv), env)
        except Exception:  # noqa: BLE001 - what the command would print as it died
            err.write(traceback.format_exc())
            code = 1
        finally:
            os.chdir(old)
        return code, out.getvalue(), err.getvalue()


class SimSide:
    """A scenario's kubesim side: set up, then fed step by step (by the live run or the replay)."""

    def __init__(self, sim: Sim | InProcessSim, files_dir: str):
        self.sim = sim
        self.files_dir = files_dir
        self.names = Names()

    def ok(self, argv: list[str], stdin: str | None = None) -> str:
        code, out, err = self.sim.run(argv, stdin, os.path.dirname(self.sim.state) or "/")
        if code != 0:
            raise RuntimeError(f"kubesim {' '.join(argv)} failed: {err}")
        return out

    def pods(self) -> list[dict]:
        return json.loads(self.ok(["get", "pods", "-A", "-o", "json"]))["items"]

    def setup(self, scenario: Scenario) -> tuple[list[dict], list[dict]]:
        """An empty cluster with the scenario's nodes; returns the nodes and CSINodes kubesim
        registered (the live run creates the same on the real side)."""
        self.ok(["cluster", "init", "--empty"])
        nodes = [node_manifest(n) for n in scenario.nodes]
        if nodes:
            self.ok(["create", "-f", "-"], yaml.safe_dump_all(nodes))
        sim_nodes = json.loads(self.ok(["get", "nodes", "-o", "json"]))["items"]
        # kubeadm's add-ons came up with the cluster; the real side creates them after its nodes
        # and drops kube-system's events once they are ready (real.install_addons): so here
        self.ok(["delete", "events", "--all", "-n", "kube-system"])
        sim_csinodes = json.loads(self.ok(["get", "csinodes", "-o", "json"]))["items"]
        return sim_nodes, sim_csinodes

    def start(self):
        """Before the first step: the pods there are get their placeholders."""
        self.names.track(self.pods())

    def advance(self, duration: str):
        self.ok(["advance", duration])

    def run(self, step: Step) -> tuple[int, str, str]:
        """A run step's command; then the pods it made get their placeholders."""
        result = self.sim.run(step.argv, step.stdin, self.files_dir)
        self.names.track(self.pods())
        return result

    def compared(self, step: Step, code: int, out: str, err: str) -> str:
        return compared(step, code, out, err, self.names, kubesim=True)
