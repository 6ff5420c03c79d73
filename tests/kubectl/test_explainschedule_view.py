"""explain-schedule's text view at every width: the README's examples as golden files at 80,
120 and 200 columns (``COLUMNS``) and piped (no ``COLUMNS``: 80), compared exactly; the
layout's rules (no table line wider than the terminal, no number cut, no sliced name), the
focus flags and the what-if marking.

Regenerate with ``KUBESIM_UPDATE_GOLDEN=1 python -m pytest tests/kubectl/test_explainschedule_view.py``;
a missing or different golden file fails, it is never rewritten silently.
"""

from __future__ import annotations

import json
import os
import pathlib
import re

import pytest

from kubesim.testing.cli import Harness

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = pathlib.Path(__file__).parent / "golden" / "explain_schedule"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN") == "1"
WIDTHS = (80, 120, 200)


def _pod(name: str, cpu: str, extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{extra}  containers:\n"
            f"  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: \"{cpu}\"\n")


def _taint(h: Harness) -> list[str]:
    """README: a pod requesting 3 CPUs when node01 carries a taint it does not tolerate."""
    h.ok("taint nodes node01 dedicated=gpu:NoSchedule")
    return ["explain-schedule", "-f", "-"], _pod("api", "3")


def _winner(h: Harness):
    """A pod scored on two nodes, one of them busier: the winner and why it won."""
    h.apply(_pod("busy", "1500m", "  nodeName: node01\n"))
    return ["explain-schedule", "-f", "-"], _pod("web", "500m")


def _day6(h: Harness):
    """README: the CKA day-6 drill as bare pods, the third replica fits nowhere."""
    h.ok(f"apply -f {ROOT / 'manifests' / 'drills' / 'day6-affinity-pods'}")
    return ["explain-schedule", "cka-1122-01-c"], ""


def _preemption(h: Harness):
    """README: the preemption drill's high-priority pod."""
    d = ROOT / "manifests" / "drills" / "preemption"
    h.ok(f"apply -f {d / '01-priorityclasses.yaml'} -f {d / '02-workloads.yaml'}")
    h.ok("advance 1m")
    h.ok(f"apply -f {d / '03-web.yaml'}")
    return ["explain-schedule", "web"], ""


def _crowded(h: Harness, *flags: str):
    """Four plugins reject the nodes: too wide for nodes as rows at 80 columns."""
    h.ok("cordon node01")
    h.ok("label node node01 node02 disk=ssd")
    h.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: holder}\nspec:\n  nodeName: node02\n"
            "  containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}]}]\n")
    picky = ("apiVersion: v1\nkind: Pod\nmetadata: {name: picky}\nspec:\n  nodeSelector: {disk: ssd}\n"
             "  containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}]}]\n")
    return ["explain-schedule", "-f", "-", *flags], picky


def _one_node(h: Harness):
    """--node: every plugin's verdict and score on one node."""
    return _crowded(h, "--node", "node02")


SCENARIOS = {"taint": _taint, "winner": _winner, "day6": _day6, "preemption": _preemption,
             "crowded": _crowded, "one_node": _one_node}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Each scenario's output at each width, and piped."""
    out = {}
    for name, setup in SCENARIOS.items():
        h = Harness(tmp_path_factory.mktemp(name) / "state")
        argv, stdin = setup(h)
        out[name, "piped"] = h.ok(argv, stdin=stdin)
        for w in WIDTHS:
            h.vars["COLUMNS"] = str(w)
            out[name, w] = h.ok(argv, stdin=stdin)
        h.vars.pop("COLUMNS")
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_readme_examples_match_their_golden_files(outputs, scenario, width):
    path = GOLDEN / f"{scenario}_{width}.txt"
    got = outputs[scenario, width]
    if UPDATE:
        path.write_text(got)
    assert path.exists(), f"missing golden {path} (KUBESIM_UPDATE_GOLDEN=1 writes it)"
    assert got == path.read_text()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_piped_output_without_columns_is_the_80_column_layout(outputs, scenario):
    assert outputs[scenario, "piped"] == outputs[scenario, 80]


def _table_lines(text: str) -> list[str]:
    """The lines of the filter, score and candidate tables (from a title to the next blank, or
    to the preemption's prose after its candidates)."""
    out, inside = [], ""
    for line in text.split("\n"):
        if line.startswith(("Filter (predicates)", "Score (priorities)", "Candidate nodes")):
            inside = line
        elif not line or (inside.startswith("Candidate") and re.match(r"  \S", line)):
            inside = ""
        if inside:
            out.append(line)
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_no_table_line_is_wider_than_the_terminal(outputs, scenario, width):
    lines = _table_lines(outputs[scenario, width])
    assert lines
    too_wide = [ln for ln in lines if len(ln) > width and not ln.startswith("… and")]
    assert too_wide == []


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_plugin_names_and_numbers_are_whole_at_80_columns(outputs, scenario):
    text = outputs[scenario, 80]
    assert "…" not in text.replace("… and", "").replace("(✗ …)", "")
    # a plugin name never breaks over lines (Rich's folding made "NodeUnsc" / "hedulabl")
    for plugin in ("NodeUnschedulable", "NodeResourcesFit", "TaintToleration", "InterPodAffinity",
                   "NodeResourcesBalancedAllocation"):
        for cut in range(4, len(plugin) - 1):
            assert not re.search(rf"{plugin[:cut]}$", text, re.M), plugin[:cut]
            assert not re.search(rf"^\s*{plugin[cut:]}\b", text, re.M), plugin[cut:]


def test_the_winner_is_explained_by_the_plugins_where_it_beat_the_runner_up(outputs):
    text = outputs["winner", 80]
    # node01 carries 1500m of its 4 CPUs: node02 scores higher on NodeResourcesFit
    # (LeastAllocated) and NodeResourcesBalancedAllocation
    assert re.search(r"^Chosen: node02 with the highest total \d+, ahead of node01 \(\d+\)\.$", text, re.M)
    assert re.search(r"^  won on NodeResourcesFit \+\d+ \(\d+ vs \d+\)", text, re.M)


def test_an_unschedulable_pod_leads_with_the_message_and_the_reasons_counted(outputs):
    text = outputs["day6", 80].split("\n")
    assert text[1].startswith("Message: 0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                              "2 node(s) didn't match pod anti-affinity rules.")
    i = text.index("Feasible: 0 of 3 nodes; rejected, by the plugin kube-scheduler stopped at:")
    assert text[i + 1:i + 3] == ["  2  InterPodAffinity: node(s) didn't match pod anti-affinity rules",
                                 "  1  TaintToleration: node(s) had untolerated taint(s)"]


@pytest.fixture()
def huge(kubesim):
    """A pod asking for more CPU than any node has: the control plane's taint stops
    kube-scheduler first there, NodeResourcesFit everywhere else."""
    return kubesim, _pod("huge", "64")


def test_only_the_first_failing_filter_is_the_real_verdict(huge):
    h, pod = huge
    exp = json.loads(h.ok("explain-schedule -f - -o json", stdin=pod))
    assert exp["nodes"]["controlplane"]["rejectedBy"] == "TaintToleration"
    assert exp["nodes"]["node01"]["rejectedBy"] == "NodeResourcesFit"
    text = h.ok("explain-schedule -f -", stdin=pod)
    row = next(ln.split() for ln in text.splitlines() if ln.startswith(" controlplane "))
    assert row[1:6] == ["✗", "1", "(✗", "2)", "no"]
    row = next(ln.split() for ln in text.splitlines() if ln.startswith(" node01 "))
    assert row[1:5] == ["✓", "✗", "2", "no"]
    assert ("(✓) (✗ …) what-if: not run by kube-scheduler, which stops at a node's first failing filter "
            "(RunFilterPlugins)") in " ".join(text.split())


@pytest.mark.parametrize("cpu,hint", [
    pytest.param("64", "node01, node02: the pod requests 64 cpu, more than the node's whole allocatable (4): "
                       "no eviction makes room (UnschedulableAndUnresolvable)",
                 id="a request beyond the node's allocatable is not solved by freeing the node"),
    pytest.param("3500m", "node01: free cpu on node01 (delete or shrink pods there)",
                 id="a request within the allocatable asks to free the node"),
])
def test_the_hint_for_insufficient_cpu_depends_on_the_allocatable(kubesim, cpu, hint):
    kubesim.apply(_pod("a", "1", "  nodeName: node01\n"))
    kubesim.apply(_pod("b", "1", "  nodeName: node02\n"))
    text = kubesim.ok("explain-schedule -f -", stdin=_pod("x", cpu))
    hints = " ".join(text.split("What would make it fit:\n", 1)[1].split())  # unwrapped
    assert hint in hints


@pytest.mark.parametrize("flags,rows", [
    pytest.param("--node node01", ["node01"], id="--node shows only that node"),
    pytest.param("--node node01,controlplane", ["node01", "controlplane"], id="--node takes a list"),
    pytest.param("--only-feasible", ["node02", "node01"], id="--only-feasible drops the rejected nodes"),
])
def test_the_focus_flags_choose_the_rows(kubesim, flags, rows):
    kubesim.ok("taint nodes node01 dedicated=gpu:NoSchedule")
    text = kubesim.ok(f"explain-schedule -f - {flags} --plugin TaintToleration",
                      stdin=_pod("p", "100m", "  tolerations:\n  - {key: dedicated, operator: Exists}\n"))
    table = text.split("Filter (predicates)", 1)[1].split("\n\n", 1)[0].splitlines()
    start = next(i for i, ln in enumerate(table) if ln.startswith(" ─")) + 1
    got = [ln.split()[0] for ln in table[start:] if ln.startswith(" ") and not ln.startswith("  ")]
    assert got[:len(rows)] == rows and len([g for g in got if g.startswith(("node", "control"))]) == len(rows)


def test_plugin_keeps_only_the_named_plugins(kubesim):
    text = kubesim.ok("explain-schedule -f - --plugin NodeResourcesFit", stdin=_pod("p", "100m"))
    tables = text.split("Filter (predicates)", 1)[1]  # the answer above still names the rejecting plugin
    assert "NodeResourcesFit" in tables and "TaintToleration" not in tables and "ImageLocality" not in tables


@pytest.mark.parametrize("flags,err", [
    pytest.param("--node nope", 'error: node "nope" is not in the explanation', id="an unknown node"),
    pytest.param("--plugin Nope", 'error: unknown plugin "Nope"', id="an unknown plugin"),
    pytest.param("--nodes 0", 'invalid argument "0" for "--nodes" flag', id="zero nodes"),
    pytest.param("--nodes x", 'invalid argument "x" for "--nodes" flag', id="not a number"),
])
def test_bad_focus_flags_are_refused(kubesim, flags, err):
    r = kubesim(f"explain-schedule -f - {flags}", stdin=_pod("p", "100m"))
    assert r.code == 1 and err in r.err and r.out == ""


def test_a_big_cluster_lists_a_few_nodes_one_per_reason_and_counts_the_rest(kubesim):
    kubesim.ok("cluster init --nodes 40 --cpu 4 --memory 8Gi")
    kubesim.ok("taint nodes " + " ".join(f"node{i:02d}" for i in range(31, 41)) + " dedicated=gpu:NoSchedule")
    for i in range(1, 21):
        kubesim.apply(_pod(f"fill{i}", "3", f"  nodeName: node{i:02d}\n"))
    text = kubesim.ok("explain-schedule -f -", stdin=_pod("p", "2"))
    assert "Feasible: 10 of 41 nodes; rejected, by the plugin kube-scheduler stopped at:\n" \
           "  20  NodeResourcesFit: Insufficient cpu\n" \
           "  11  TaintToleration: node(s) had untolerated taint(s)\n" in text
    table = text.split("Filter (predicates)", 1)[1].split("\n\n", 1)[0]
    rows = [ln.split()[0] for ln in table.splitlines() if re.match(r" (node|controlplane)", ln)]
    assert len(rows) == 5 and "node01" in rows and "controlplane" in rows  # one per reason
    assert "… and 36 more nodes (--all-nodes shows them)" in table
    assert len(text.splitlines()) <= 50  # one screen
    everything = kubesim.ok("explain-schedule -f - --all-nodes", stdin=_pod("p", "2"))
    table = everything.split("Filter (predicates)", 1)[1].split("\n\n", 1)[0]
    assert len([ln for ln in table.splitlines() if re.match(r" (node|controlplane)", ln)]) == 41
    seven = kubesim.ok("explain-schedule -f - --nodes 7", stdin=_pod("p", "2"))
    table = seven.split("Filter (predicates)", 1)[1].split("\n\n", 1)[0]
    assert len([ln for ln in table.splitlines() if re.match(r" (node|controlplane)", ln)]) == 7


README_COMMANDS = {"kubesim explain-schedule -f api.yaml": "taint", "kubesim explain-schedule -f web.yaml": "winner",
                   "kubesim explain-schedule cka-1122-01-c": "day6", "kubesim explain-schedule web": "preemption"}


def _readme_examples() -> list[tuple[str, list[str]]]:
    """(scenario, the lines the README shows) for each of its explain-schedule examples."""
    out: list[tuple[str, list[str]]] = []
    current, fenced = None, False
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            fenced, current = not fenced, None
        elif fenced and line.startswith("$ "):
            command = line[2:].split("  #")[0].strip()
            current = (README_COMMANDS[command], []) if command in README_COMMANDS else None
            if current:
                out.append(current)
        elif current:
            current[1].append(line)
    return out


def test_the_readme_shows_real_output():
    examples = _readme_examples()
    assert sorted(s for s, _ in examples) == sorted(README_COMMANDS.values())
    for scenario, shown in examples:
        golden = (GOLDEN / f"{scenario}_80.txt").read_text().splitlines()
        # "..." leaves lines out; every run of lines between them is in the golden, in order
        at = 0
        chunks = "\n".join(shown).split("...")
        for chunk in chunks:
            lines = chunk.strip("\n").split("\n") if chunk.strip() else []
            if not lines:
                continue
            found = next((i for i in range(at, len(golden) - len(lines) + 1)
                          if golden[i:i + len(lines)] == lines), None)
            assert found is not None, (scenario, lines[0])
            at = found + len(lines)


NODE = {"metadata": {"name": "node01"}, "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}


@pytest.mark.parametrize("reason,cpu,hint", [
    pytest.param("node(s) had untolerated taint(s)", "1",
                 "tolerate the taint gpu:NoSchedule in the pod, or remove it: kubesim taint nodes node01 gpu:NoSchedule-",
                 id="an untolerated taint names the command that removes it"),
    pytest.param("Insufficient cpu", "3",
                 "free cpu on node01 (delete or shrink pods there) or lower the pod's cpu request",
                 id="a request within the allocatable: free the node"),
    pytest.param("Insufficient cpu", "5",
                 "the pod requests 5 cpu, more than the node's whole allocatable (4): no eviction makes room "
                 "(UnschedulableAndUnresolvable); lower the pod's cpu request or add a bigger node",
                 id="a request beyond the allocatable: nothing on the node can help"),
    pytest.param("Insufficient example.com/gpu", "1",
                 "the pod requests 1 example.com/gpu, more than the node's whole allocatable (0)",
                 id="an extended resource the node does not have at all"),
    pytest.param("pod affinity terms conflict", "1", "the pod's required node affinity cannot match any node",
                 id="contradicting node affinity terms"),
])
def test_fit_hint(reason, cpu, hint):
    from kubesim.kubectl.explainschedule import fit_hint

    requests = {"cpu": cpu, "example.com/gpu": "1"} if "gpu" in reason else {"cpu": cpu}
    pod = {"spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]}}
    assert fit_hint(reason, "node01", pod, NODE).startswith(hint)


@pytest.mark.parametrize("width", [80, 200])
def test_colour_changes_nothing_but_the_colours(kubesim, width):
    from kubesim.kubectl.explainschedule import View, render

    argv, stdin = _crowded(kubesim)
    exp = json.loads(kubesim.ok([*argv, "-o", "json"], stdin=stdin))
    plain = render(exp, color=False, view=View(width=width))
    coloured = render(exp, color=True, view=View(width=width))
    assert "\x1b[" in coloured
    stripped = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert "\n".join(ln.rstrip() for ln in stripped.split("\n")) == plain


def _sc(final: int, weight: int = 1) -> dict:
    return {"raw": final // weight, "normalized": final // weight, "weight": weight, "final": final}


def _exp(node: str, nodes: dict) -> dict:
    return {"kind": "ScheduleExplanation", "pod": {"namespace": "default", "name": "p"},
            "profile": "default-scheduler", "outcome": "Scheduled", "node": node, "message": "",
            "nodes": nodes, "preemption": None}


OK = {"NodeName": "passed"}


@pytest.mark.parametrize("nodes,lead", [
    pytest.param({"a": {"filter": OK, "feasible": True},
                  "b": {"filter": {"NodeName": "x"}, "feasible": False, "rejectedBy": "NodeName"}},
                 ["Chosen: a, the only feasible node (kube-scheduler skips scoring then).",
                  "Feasible: 1 of 2 nodes; rejected, by the plugin kube-scheduler stopped at:", "  1  NodeName: x"],
                 id="a single feasible node is chosen without scoring"),
    pytest.param({"a": {"filter": OK, "feasible": True}, "b": {"filter": OK, "feasible": True}},
                 ["Chosen: a without scoring: kube-scheduler tries the pod's nominated node first and takes",
                  "  it when it passes every filter.", "Feasible: 2 of 2 nodes."],
                 id="a nominated node that passes is taken without scoring"),
    pytest.param({"a": {"filter": OK, "feasible": True, "score": {"X": _sc(10)}, "total": 10},
                  "b": {"filter": OK, "feasible": True, "score": {"X": _sc(10)}, "total": 10}},
                 ["Chosen: a with 10, tied with b: kube-scheduler picks at random among equal top scores",
                  "  (repeatable with KUBESIM_SEED).", "Feasible: 2 of 2 nodes."],
                 id="a tie says the pick is random"),
    # a: X 30 + Y 4 = 34; b: X 10 + Y 8 = 18 -> won on X by 20, lost on Y by 4
    pytest.param({"a": {"filter": OK, "feasible": True, "score": {"X": _sc(30, 3), "Y": _sc(4)}, "total": 34},
                  "b": {"filter": OK, "feasible": True, "score": {"X": _sc(9, 3), "Y": _sc(8)}, "total": 17},
                  "c": {"filter": OK, "feasible": True}},
                 ["Chosen: a with the highest total 34, ahead of b (17).", "  won on X +21 (30 vs 9)",
                  "  lost on Y -4 (4 vs 8)", "Feasible: 3 of 3 nodes.",
                  "Scored: 2 of them; kube-scheduler stops looking once it has found enough",
                  "  (numFeasibleNodesToFind)."],  # prose folds at the width (90 here)
                 id="the winner's lead over the runner-up, plugin by plugin, and the nodes not scored"),
])
def test_the_answer_comes_first(nodes, lead):
    from kubesim.kubectl.explainschedule import View, render

    text = render(_exp("a", nodes), color=False, view=View(width=90))
    assert text.splitlines()[1:1 + len(lead)] == lead


@pytest.mark.parametrize("flags,says", [
    pytest.param("--only-feasible", "No node to list with --only-feasible: no node passed every filter.",
                 id="--only-feasible when no node is feasible"),
    pytest.param("--plugin ImageLocality", "Nothing of ImageLocality to show: a score plugin scores only "
                 "feasible nodes, and no listed node is one.", id="--plugin with a score plugin and no scores"),
])
def test_a_focus_that_leaves_nothing_says_so(kubesim, flags, says):
    text = kubesim.ok(f"explain-schedule -f - {flags}", stdin=_pod("huge", "64"))
    assert f"\n\n{says}\n" in text and "Filter (predicates)" not in text


FILTERS = {"NodeUnschedulable": "passed", "TaintToleration": "node(s) had untolerated taint(s)",
           "NodeAffinity": "pod affinity terms conflict", "NodePorts": "passed"}


@pytest.mark.parametrize("message,rejected,plugin,ran", [
    pytest.param("0/1 nodes are available: 1 node(s) had untolerated taint(s).", "TaintToleration",
                 "NodeUnschedulable", True, id="a filter before the first failure ran"),
    pytest.param("0/1 nodes are available: 1 node(s) had untolerated taint(s).", "TaintToleration",
                 "TaintToleration", True, id="the first failure ran"),
    pytest.param("0/1 nodes are available: 1 node(s) had untolerated taint(s).", "TaintToleration",
                 "NodeAffinity", False, id="a failing filter after it did not"),
    pytest.param("0/1 nodes are available: 1 node(s) had untolerated taint(s).", "TaintToleration",
                 "NodePorts", False, id="nor a passing one"),
    pytest.param("0/1 nodes are available: pod affinity terms conflict. not found", "NodeAffinity",
                 "NodeUnschedulable", False, id="after a PreFilter rejection no filter ran, not even earlier ones"),
    pytest.param("0/1 nodes are available: pod affinity terms conflict. not found", "NodeAffinity",
                 "NodeAffinity", True, id="the PreFilter rejection itself is real"),
])
def test_which_verdicts_kube_scheduler_computed(message, rejected, plugin, ran):
    from kubesim.kubectl.explainschedule import ran_by_kube_scheduler

    exp = {"message": message, "nodes": {"n": {"filter": FILTERS, "feasible": False, "rejectedBy": rejected}}}
    assert ran_by_kube_scheduler(exp, "n", plugin) is ran


def test_outside_a_prefilter_result_no_filter_ran():
    from kubesim.kubectl.explainschedule import ran_by_kube_scheduler

    filters = {"NodeUnschedulable": "passed", "NodeAffinity": "node(s) didn't satisfy plugin(s) [NodeAffinity]"}
    exp = {"message": "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
                      "[NodeAffinity].",
           "nodes": {"n": {"filter": filters, "feasible": False, "rejectedBy": "NodeAffinity"}}}
    assert ran_by_kube_scheduler(exp, "n", "NodeUnschedulable") is False
