"""``kubesim drill`` and ``kubesim exam`` as a user drives them: listing, starting, hints,
solutions, resets, grading and exit codes; bad input gets an error and changes nothing."""

import pytest

from kubesim.practice import script
from kubesim.practice.engine import exam_plan, load_record
from kubesim.practice.task import TOPICS, all_tasks, find_task


def _result(r):
    return r.code, r.out, r.err


def test_drill_list_shows_every_task_and_filters_by_topic(kubesim):
    out = kubesim.ok("drill list").splitlines()
    assert out[0].split() == ["ID", "TOPIC", "TITLE"]
    assert len(out) == len(all_tasks()) + 1
    storage = kubesim.ok("drill list --topic storage").splitlines()[1:]
    assert storage and all(line.split()[1] == "storage" for line in storage)


def test_a_drill_from_start_to_pass(kubesim):
    out = kubesim.ok("drill start manual-scheduling --seed 7")
    assert "kubectl config use-context drill" in out
    assert "Create a pod named cka-7369" in out
    assert kubesim.ok("config current-context") == "drill\n"
    assert kubesim.ok("get nodes").count("node7369") == 1
    r = kubesim("drill check")
    assert r.code == 1 and "Drill manual-scheduling: 0/3 checks passed" in r.out
    assert "Hint 1: The scheduler only places pods" in kubesim.ok("drill hint")
    solution = kubesim.ok("drill solution")
    assert solution.startswith("# A model answer for manual-scheduling (on context drill):\ncat <<EOF | kubectl apply")
    kubesim.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: cka-7369}\nspec:\n  nodeName: node7369\n"
                  "  containers: [{name: cka-7369, image: nginx}]\n")
    kubesim.ok("advance 30s")  # nginx pulled
    r = kubesim("drill check")
    assert r.code == 0, r.out
    assert "3/3 checks passed" in r.out and "All checks passed." in r.out
    assert "on the wall clock, 0m30s on the simulated clock" in r.out


def test_drill_reset_prepares_the_same_variant_afresh(kubesim):
    from kubesim.practice.task import find_task

    kubesim.ok("drill start pending-taint --seed 4")
    kubesim.ok(f"taint nodes node01 {find_task('pending-taint').variables(4)['key']}-")
    assert kubesim.ok("get node node01 -o jsonpath={.spec.taints}") == ""
    kubesim.ok("drill reset")
    assert "NoSchedule" in kubesim.ok("get node node01 -o jsonpath={.spec.taints[0].effect}")


@pytest.mark.parametrize("command,error", [
    ("drill start no-such-drill", 'error: drill "no-such-drill" not found (kubesim drill list shows them)\n'),
    ("drill start", ("error: drill start needs a drill ID (kubesim drill list shows them)\n"
                    "See 'kubesim drill --help' for usage.\n")),
    ("drill check", "error: no drill in progress in {state} (start one with: kubesim drill start ID)\n"),
    ("drill hint", "error: no drill in progress in {state} (start one with: kubesim drill start ID)\n"),
    ("drill list --topic networking", ('error: unknown topic "networking": one of troubleshooting, '
                                      "cluster-architecture, services-networking, workloads-scheduling, storage\n")),
    ("drill start crashloop --seed x", ('error: invalid argument "x" for "--seed" flag: a non-negative integer is '
                                       "expected\n")),
    ("drill verify", None),
    ("exam check", "error: no exam in progress in {state} (start one with: kubesim exam start)\n"),
    ("exam start --tasks 30", "error: --tasks must be between 15 and 20\n"),
    ("exam start --minutes 0", "error: --minutes must be positive\n"),
], ids=["an unknown drill", "start without an ID", "check with no drill", "hint with no drill", "an unknown topic",
        "a seed that is not a number", "an unknown action", "exam check with no exam", "too many exam tasks",
        "no time at all"])
def test_bad_input_is_refused_with_exit_1_and_changes_nothing(kubesim, command, error):
    from kubesim.testing.cli import snapshot

    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert r.code == 1 and r.out == ""
    if error is not None:
        assert r.err == error.format(state=kubesim.state_dir)
    else:
        assert r.err.startswith("error: argument action: invalid choice: 'verify'")
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("count,shares", [
    (15, {"troubleshooting": 4, "cluster-architecture": 4, "services-networking": 3, "workloads-scheduling": 2,
          "storage": 2}),
    (17, {"troubleshooting": 5, "cluster-architecture": 4, "services-networking": 3, "workloads-scheduling": 3,
          "storage": 2}),
    (20, {"troubleshooting": 6, "cluster-architecture": 5, "services-networking": 4, "workloads-scheduling": 3,
          "storage": 2}),
], ids=["15 tasks", "17 tasks", "20 tasks"])
def test_an_exam_follows_the_curriculum_weights(count, shares):
    plan = exam_plan(all_tasks(), seed=1, count=count)
    assert len(plan) == count
    got = {t: sum(1 for task, _ in plan if task.topic == t) for t in TOPICS}
    assert got == shares
    for topic, pct in TOPICS.items():  # each domain's points are its share of 100
        assert round(sum(p for task, p in plan if task.topic == topic), 6) == pct
    assert exam_plan(all_tasks(), seed=1, count=count) == plan
    assert [t.id for t, _ in exam_plan(all_tasks(), seed=2, count=count)] != [t.id for t, _ in plan]


def test_an_exam_gives_each_task_its_own_context_and_grades_at_the_end(kubesim):
    out = kubesim.ok("exam start --seed 11 --tasks 15")
    assert out.startswith("Mock CKA exam (seed 11): 15 tasks, 120 minutes, pass mark 66%. Prepared in ")
    assert [ln for ln in out.splitlines() if ln.startswith("kubectl config use-context")] == \
        [f"kubectl config use-context exam-{i}" for i in range(1, 16)]
    contexts = kubesim.ok("config get-contexts -o name").split()
    assert {f"exam-{i}" for i in range(1, 16)} <= set(contexts)
    # task 1 solved on its own context, as typed: its points are earned, the others' are not
    record = load_record(kubesim.state_dir, "exam")
    first = record.entries[0]
    solution = find_task(first.id).rendered(first.values).solution
    for step, code, _out, err in script.run(script.parse(solution), lambda argv, stdin: _result(kubesim(argv, stdin)),
                                            context="exam-1"):
        assert code == 0, f"{step.line}: {err}"
    r = kubesim("exam end")
    assert r.code == 1
    assert f"Task 1 [exam-1] {first.id}: {first.points:.1f}/{first.points:.1f} " in r.out
    assert "Task 15 [exam-15] " in r.out
    assert "(pass mark 66%): FAIL" in r.out and r.out.endswith("The exam has ended.\n")
    r = kubesim("exam check")
    assert (r.code, r.err) == (1, "error: this exam has ended (kubesim exam start begins another)\n")
