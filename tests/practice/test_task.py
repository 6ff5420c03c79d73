"""The task loader's schema check, the seeded variables, and the command-line reader that runs
setups and solutions."""

import pytest

from kubesim.errors import UsageError
from kubesim.practice import script
from kubesim.practice.checks import resolve
from kubesim.practice.task import TOPICS, all_tasks, parse_task

GOOD = """id: t
topic: storage
weight: 3
title: a title
task: do it
checks:
- desc: d
  object: {kind: Pod, name: x}
solution: kubectl run x --image=nginx
"""


def _with(extra: str = "", drop: str = "") -> str:
    lines = [ln for ln in GOOD.splitlines() if not (drop and ln.startswith(drop + ":"))]
    return "\n".join(lines) + "\n" + extra


@pytest.mark.parametrize("text,error", [
    (_with("colour: red\n"), "unknown field(s): colour"),
    (_with(drop="solution"), "missing field: solution"),
    (_with().replace("topic: storage", "topic: networking"), "topic: 'networking' is not one of troubleshooting"),
    (_with().replace("weight: 3", "weight: 50"), "weight: must be an integer from 1 to 20"),
    (_with().replace("id: t", "id: Bad_Id"), "id: 'Bad_Id' must consist of lower case"),
    (_with().replace("  object: {kind: Pod, name: x}", "  objet: {kind: Pod, name: x}"),
     "checks[0]: must hold desc and exactly one of object, field"),
    (_with().replace("  object: {kind: Pod, name: x}", "  object: {kind: Widget, name: x}"),
     "checks[0]: object: unknown kind Widget"),
    (_with().replace("  object: {kind: Pod, name: x}", "  object: {kind: Pod}"), "checks[0]: object: missing name"),
    (_with().replace("  object: {kind: Pod, name: x}", "  field: {kind: Pod, name: x, path: a.b}"),
     "checks[0]: field: needs exactly one of equals"),
    (_with().replace("  object: {kind: Pod, name: x}", "  pods: {count: 2}"),
     "checks[0]: pods: needs exactly one of name, selector"),
    (_with().replace("  object: {kind: Pod, name: x}", "  field: {kind: Pod, name: x, path: 'a[', equals: 1}"),
     "checks[0]: field: cannot read the path"),
    (_with().replace("task: do it", "task: use {{nope}}"), "{{nope}} names no variable"),
    (_with("vars:\n  a: {int: [5, 1]}\n"), "vars.a: must be a string, {choice: [...]} or {int: [lo, hi]}"),
    (_with("setup:\n  nodes: 99\n"), "setup.nodes: must be an integer from 0 to 20"),
    (_with("setup:\n  shape: big\n"), "setup: unknown field(s): shape"),
    (_with("hints: a hint\n"), "hints: must be a list of strings"),
    ("id: [unclosed\n", "error: task t.yaml: yaml: line 2: did not find expected ',' or ']'"),
], ids=["an unknown field", "a missing field", "an unknown topic", "a weight out of range", "a bad id",
        "an unknown check", "a check on an unknown kind", "a check missing an argument",
        "a field check without a test", "a pods check naming neither pods nor a selector",
        "an unreadable path", "a variable that does not exist", "an empty int range", "too many nodes",
        "an unknown setup field", "hints that are not a list", "YAML that does not parse"])
def test_a_task_that_breaks_the_schema_is_refused_with_its_reason(text, error):
    with pytest.raises(UsageError) as e:
        parse_task("t.yaml", text)
    assert error in str(e.value)
    assert str(e.value).startswith("error: task t.yaml: ")


def test_every_shipped_task_loads_and_there_are_at_least_sixty_across_all_five_domains():
    tasks = all_tasks()
    assert len(tasks) >= 60
    assert {t.topic for t in tasks} == set(TOPICS)
    assert len({t.id for t in tasks}) == len(tasks)


def test_the_same_seed_gives_the_same_variant_and_seeds_vary_it():
    task = next(t for t in all_tasks() if t.id == "manual-scheduling")
    assert task.variables(7) == task.variables(7)
    assert len({task.variables(s)["pod"] for s in range(20)}) > 1
    values = task.variables(7)
    assert values["node"] == "node" + values["num"]  # a plain string uses the variables before it


@pytest.mark.parametrize("text,steps", [
    ("kubectl get pods\n", [script.Command(("get", "pods"), "", "kubectl get pods")]),
    ("# a comment\n\nk -n x get  pods", [script.Command(("-n", "x", "get", "pods"), "", "k -n x get  pods")]),
    ("kubectl label nodes n1 \\\n  a=b", [script.Command(("label", "nodes", "n1", "a=b"), "",
                                                          "kubectl label nodes n1  a=b")]),
    ("cat <<EOF | kubectl apply -f -\nkind: Pod\nEOF\n",
     [script.Command(("apply", "-f", "-"), "kind: Pod\n", "cat <<EOF | kubectl apply -f -")]),
    ("kubectl apply -f - <<'END'\na: b\nEND", [script.Command(("apply", "-f", "-"), "a: b\n",
                                                               "kubectl apply -f - <<'END'")]),
    ("cat <<EOF > /tmp/x/p.yaml\nkind: Pod\nEOF", [script.WriteFile("/tmp/x/p.yaml", "kind: Pod\n",
                                                                    "cat <<EOF > /tmp/x/p.yaml")]),
    ("rm -f /tmp/p.yaml", [script.RemoveFile("/tmp/p.yaml", "rm -f /tmp/p.yaml")]),
    ("kubectl run x --command -- sh -c \"echo a; sleep 1\"",
     [script.Command(("run", "x", "--command", "--", "sh", "-c", "echo a; sleep 1"), "",
                     "kubectl run x --command -- sh -c \"echo a; sleep 1\"")]),
], ids=["a command", "a comment, a blank line, the k alias", "a continued line", "a heredoc piped to kubectl",
        "a quoted heredoc on kubectl itself", "a heredoc into a file", "rm", "quotes kept as the shell keeps them"])
def test_command_lines_are_read_as_a_shell_reads_them(text, steps):
    assert script.parse(text) == steps


@pytest.mark.parametrize("text,error", [
    ("ssh node01", "unsupported command line: ssh node01"),
    ("cat <<EOF | kubectl apply -f -\nkind: Pod\n", "heredoc EOF is not terminated"),
    ("kubectl get pods 'x", "cannot read the command line"),
    ("cat file.yaml", "unsupported command line: cat file.yaml"),
], ids=["a command kubesim does not run", "an unterminated heredoc", "an unclosed quote", "cat without a heredoc"])
def test_a_command_line_kubesim_cannot_run_is_refused(text, error):
    with pytest.raises(UsageError) as e:
        script.parse(text)
    assert error in str(e.value)


@pytest.mark.parametrize("path,values", [
    ("spec.containers[0].image", ["nginx"]),
    ("spec.containers[name=side].image", ["busybox"]),
    ("spec.containers[*].name", ["web", "side"]),
    ('metadata.labels["app.kubernetes.io/name"]', ["web"]),
    ("spec.nodeName", []),
    ("spec.containers[5].image", []),
], ids=["an index", "a filter", "every item", "a quoted key with dots", "a missing field", "an index past the end"])
def test_a_field_path_reaches_every_value_it_names(path, values):
    pod = {"metadata": {"labels": {"app.kubernetes.io/name": "web"}},
           "spec": {"containers": [{"name": "web", "image": "nginx"}, {"name": "side", "image": "busybox"}]}}
    assert resolve(pod, path) == values
