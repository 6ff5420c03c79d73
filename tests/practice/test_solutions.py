"""Every task's model solution, typed through kubesim's entry point on the prepared cluster,
passes its own checks; and the untouched cluster does not (a task that grades itself done
before any work is a broken task)."""

import pytest

from kubesim.practice import script
from kubesim.practice.task import all_tasks
from kubesim.testing.cli import Harness

TASKS = all_tasks()


def solve(h: Harness):
    solution = h.ok("drill solution")
    for step, code, out, err in script.run(script.parse(solution), lambda argv, stdin: _run(h, argv, stdin)):
        assert code == 0, f"{step.line!r} failed: {out}{err}"


def _run(h, argv, stdin):
    r = h(list(argv), stdin)
    return r.code, r.out, r.err


@pytest.mark.parametrize("task_id", [t.id for t in TASKS])
def test_the_model_solution_passes_every_check(drill, task_id):
    h = drill(task_id)
    before = h("drill check")
    assert before.code == 1, f"the prepared cluster already passes: {before.out}"
    solve(h)
    h.ok("advance 1m")  # the learner looks a moment later: images pulled, pods running
    r = h("drill check")
    assert r.code == 0, r.out + r.err
