"""Preemption through the CLI: a high-priority pod that fits nowhere evicts the victims upstream
would pick (the Preempted event, victims Terminating, NOMINATED NODE), runs once they are gone,
explain-schedule shows why, a PodDisruptionBudget shifts the choice, and the what-if writes
nothing.

The preemptor uses the built-in class system-cluster-critical; the victims have priority 0.
Their containers run ``sleep`` as PID 1, which ignores SIGTERM, so they stay Terminating for the
whole 30 s grace period."""

import json

from kubesim.testing.cli import snapshot


def victim(name, node, labels=""):
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n{labels}"
            f"spec:\n  nodeName: {node}\n  containers:\n  - name: c\n    image: busybox\n"
            f"    command: [sleep, \"3600\"]\n    resources:\n      requests:\n        cpu: \"3\"\n")


PREEMPTOR = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: high\nspec:\n"
             "  priorityClassName: system-cluster-critical\n  containers:\n  - name: c\n"
             "    image: nginx\n    resources:\n      requests:\n        cpu: \"2\"\n")

PDB = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: keep-low2\nspec:\n"
       "  minAvailable: 1\n  selector:\n    matchLabels:\n      app: low2\n")


def apply(h, tmp_path, text, name="p.yaml"):
    f = tmp_path / name
    f.write_text(text)
    return h.ok(f"apply -f {f}")


def victims(h, tmp_path):
    # low2 starts 10 s after low1: the later start time breaks the otherwise complete tie
    apply(h, tmp_path, victim("low1", "node01"), "low1.yaml")
    h.ok("advance 10s")
    apply(h, tmp_path, victim("low2", "node02"), "low2.yaml")
    h.ok("advance 2s")  # busybox pulled: low2 runs


def pod_row(out, name):
    return next(line.split() for line in out.splitlines() if line.startswith(name + " "))


def test_a_high_priority_pod_preempts_and_runs_once_the_victim_is_gone(kubesim, tmp_path):
    victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, PREEMPTOR, "high.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[:3] == ["high", "0/1", "Pending"]
    assert pod_row(wide, "high")[7] == "node02"  # NOMINATED NODE
    assert pod_row(wide, "low2")[2] == "Terminating"
    assert pod_row(wide, "low1")[2] == "Running"
    uid = json.loads(kubesim.ok("get pod high -o json"))["metadata"]["uid"]
    events = kubesim.ok("get events --field-selector reason=Preempted")
    assert f"pod/low2   Preempted by pod {uid} on node node02" in events
    low2 = json.loads(kubesim.ok("get pod low2 -o json"))
    cond = [c for c in low2["status"]["conditions"] if c["type"] == "DisruptionTarget"][0]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True", "PreemptionByScheduler",
        "default-scheduler: preempting to accommodate a higher priority pod")
    failed = kubesim.ok("get events --field-selector involvedObject.name=high")
    assert ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
            in failed)

    kubesim.ok("advance 35s")  # the victim's grace period, then the preemptor's nginx pull
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[2] == "Running" and pod_row(wide, "high")[6] == "node02"
    assert "low2" not in wide


def test_explain_schedule_shows_the_candidates_and_the_deciding_rule(kubesim, tmp_path):
    victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, PREEMPTOR, "high.yaml")
    exp = json.loads(kubesim.ok("explain-schedule high -o json"))
    pre = exp["preemption"]
    assert pre["eligible"] is True and pre["chosen"] == "node02"
    assert pre["decidedBy"] == "latest start time of the highest-priority victims"
    assert {c["node"]: c["victims"] for c in pre["candidates"]} == {
        "node01": [{"namespace": "default", "name": "low1", "priority": 0}],
        "node02": [{"namespace": "default", "name": "low2", "priority": 0}]}
    assert pre["notHelpful"] == {"controlplane": "Preemption is not helpful for scheduling "
                                                 "(node(s) had untolerated taint(s))"}
    text = kubesim.ok("explain-schedule high")
    assert "Preemption (PostFilter DefaultPreemption)" in text
    assert "node02  ← chosen" in text and "default/low2 (priority 0)" in text
    assert 'Chosen: node02, decided by the rule "latest start time of the highest-priority victims"' in text
    # once placed, the pod's explanation keeps the analysis of the attempt that made room
    kubesim.ok("advance 30s")
    exp = json.loads(kubesim.ok("explain-schedule high -o json"))
    assert exp["outcome"] == "Scheduled" and exp["node"] == "node02"
    assert exp["preemption"]["earlierAttempt"] is True


def test_a_pdb_protecting_the_victim_shifts_the_choice_to_the_other_node(kubesim, tmp_path):
    victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, PDB, "pdb.yaml")
    apply(kubesim, tmp_path, PREEMPTOR, "high.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[7] == "node01"
    assert pod_row(wide, "low1")[2] == "Terminating" and pod_row(wide, "low2")[2] == "Running"
    pre = json.loads(kubesim.ok("explain-schedule high -o json"))["preemption"]
    assert pre["decidedBy"] == "fewest PDB violations"
    assert [(c["node"], c["numPDBViolations"]) for c in pre["candidates"]] == [
        ("node01", 0), ("node02", 1)]


def test_the_what_if_shows_the_preemption_and_writes_nothing(kubesim, tmp_path):
    victims(kubesim, tmp_path)
    kubesim.ok("get pods")  # settle, so the snapshot is what the what-if starts from
    before = snapshot(kubesim.state_dir)
    f = tmp_path / "high.yaml"
    f.write_text(PREEMPTOR)
    exp = json.loads(kubesim.ok(f"explain-schedule -f {f} -o json"))
    assert exp["preemption"]["chosen"] == "node02"
    assert snapshot(kubesim.state_dir) == before
    assert "Terminating" not in kubesim.ok("get pods")


CLASSES = "".join(
    f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {name}\n"
    f"value: {value}\n{extra}---\n"
    for name, value, extra in (("low", 100, ""), ("medium", 500, ""), ("high", 1000, ""),
                               ("high-nonpreempting", 1000, "preemptionPolicy: Never\n")))


def classed(name, cls, node=None, cpu="3", labels=""):
    where = f"  nodeName: {node}\n" if node else ""
    image = "    image: busybox\n    command: [sleep, \"3600\"]\n" if node else "    image: nginx\n"
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\n"
            f"{labels}spec:\n{where}  priorityClassName: {cls}\n  containers:\n  - name: c\n{image}"
            f"    resources:\n      requests:\n        cpu: \"{cpu}\"\n")


def classed_victims(h, tmp_path, pdb=False):
    text = CLASSES + classed("med1", "medium", "node01") + "---\n" + \
        classed("low2", "low", "node02") + "---\n" + \
        classed("low3", "low", "node02", cpu="500m")
    if pdb:
        text += "---\n" + PDB
    apply(h, tmp_path, text, "setup.yaml")
    h.ok("advance 2s")  # busybox pulled: the victims run


def test_the_victims_with_the_lowest_priority_are_picked(kubesim, tmp_path):
    # node01: med1 (500, 3 cpu); node02: low2 (100, 3 cpu) + low3 (100, 500m). The preemptor
    # (1000, 2 cpu) fits on node02 without both; low3 is reprieved (2.5 of 4 cpu), low2 is not.
    # One victim of priority 100 beats one of priority 500.
    classed_victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, classed("web", "high", cpu="2"), "web.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "web")[7] == "node02"
    assert pod_row(wide, "low2")[2] == "Terminating"
    assert pod_row(wide, "low3")[2] == "Running" and pod_row(wide, "med1")[2] == "Running"
    pre = json.loads(kubesim.ok("explain-schedule web -o json"))["preemption"]
    assert pre["decidedBy"] == "lowest highest-victim priority"
    assert {c["node"]: [v["name"] for v in c["victims"]] for c in pre["candidates"]} == {
        "node01": ["med1"], "node02": ["low2"]}


def test_a_pdb_on_the_low_priority_victim_makes_the_medium_one_go(kubesim, tmp_path):
    classed_victims(kubesim, tmp_path, pdb=True)
    apply(kubesim, tmp_path, classed("web", "high", cpu="2"), "web.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "web")[7] == "node01"
    assert pod_row(wide, "med1")[2] == "Terminating" and pod_row(wide, "low2")[2] == "Running"
    pre = json.loads(kubesim.ok("explain-schedule web -o json"))["preemption"]
    assert pre["decidedBy"] == "fewest PDB violations"


def test_preemption_policy_never_stays_pending_with_the_never_message(kubesim, tmp_path):
    classed_victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, classed("polite", "high-nonpreempting", cpu="2"), "polite.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "polite")[2] == "Pending" and pod_row(wide, "polite")[7] == "<none>"
    assert "Terminating" not in wide
    events = kubesim.ok("get events --field-selector involvedObject.name=polite")
    assert ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
            "no new claims to deallocate, preemption: not eligible due to "
            "preemptionPolicy=Never.") in events
    text = kubesim.ok("explain-schedule polite")
    assert "The pod may not preempt: not eligible due to preemptionPolicy=Never." in text


TINY = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: tiny\nspec:\n  nodeName: node01\n"
        "  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n"
        "        cpu: 100m\n")


def test_while_the_victim_terminates_the_preemptor_waits_and_does_not_preempt_again(kubesim,
                                                                                    tmp_path):
    victims(kubesim, tmp_path)
    apply(kubesim, tmp_path, TINY, "tiny.yaml")
    apply(kubesim, tmp_path, PREEMPTOR, "high.yaml")
    # The victim's graceful deletion and status updates are no event NodeResourcesFit or
    # TaintToleration registered: the preemptor is not tried again while it terminates.
    kubesim.ok("advance 5s")
    events = kubesim.ok("get events --field-selector involvedObject.name=high")
    assert "not eligible" not in events and "(x2" not in events
    # A scheduled pod's deletion is (NodeResourcesFit's hint: Queue): the retry still does not
    # fit, and does not preempt again while the nominated node has a terminating victim.
    kubesim.ok("delete pod tiny --grace-period=0 --force")
    events = kubesim.ok("get events --field-selector involvedObject.name=high")
    assert ("2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to a "
            "terminating pod on the nominated node.") in events
    assert "Terminating" not in pod_row(kubesim.ok("get pods"), "low1")
    exp = json.loads(kubesim.ok("explain-schedule high -o json"))
    pre = exp["preemption"]
    assert pre["eligible"] is False and pre["earlier"]["chosen"] == "node02"
    assert exp["queue"]["movedBy"] == {"event": "AssignedPodDelete", "queue": "Active",
                                       "plugin": "NodeResourcesFit"}


LOW_HIGH = "".join(
    f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {n}\nvalue: {v}\n---\n"
    for n, v in (("low", 100), ("high", 1000)))

BATCH = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: batch\nspec:\n  replicas: 2\n"
         "  selector:\n    matchLabels:\n      app: batch\n  template:\n    metadata:\n      labels:\n"
         "        app: batch\n    spec:\n      priorityClassName: low\n      containers:\n      - name: c\n"
         "        image: busybox\n        command: [sleep, infinity]\n        resources:\n"
         "          requests:\n            cpu: \"3\"\n")


def test_a_victim_replaced_by_its_replicaset_does_not_delay_the_preemptor(kubesim, tmp_path):
    # The victim's ReplicaSet makes a replacement (Pending: it may not preempt its peers) and
    # writes its status on every change; neither is an event the scheduler watches, so the
    # preemptor is not pushed into a growing back-off and lands when the victim is gone.
    apply(kubesim, tmp_path, LOW_HIGH + BATCH, "batch.yaml")
    kubesim.ok("advance 1m")
    apply(kubesim, tmp_path, PREEMPTOR.replace("system-cluster-critical", "high"), "high.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[2] == "Pending" and pod_row(wide, "high")[7] in ("node01", "node02")
    kubesim.ok("advance 35s")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[2] == "Running"
    assert sorted(r.split()[2] for r in wide.splitlines()[1:] if r.startswith("batch-")) == [
        "Pending", "Running"]


def test_a_preemptor_lands_in_the_command_where_its_last_victim_disappears(kubesim, tmp_path):
    # node01 is tainted for the preemptor (preemption cannot help there); on node02 it needs
    # both victims gone. Each victim's deletion is an AssignedPodDelete NodeResourcesFit's hint
    # answers Queue to: the first retries in vain, the last one places the pod in that command.
    kubesim.ok("taint nodes node01 dedicated=x:NoSchedule")
    two = [victim(n, "node02").replace('cpu: "3"', 'cpu: "2"') for n in ("v1", "v2")]
    apply(kubesim, tmp_path, "---\n".join(two), "victims.yaml")
    kubesim.ok("advance 2s")  # busybox pulled: the victims run
    apply(kubesim, tmp_path, PREEMPTOR.replace('cpu: "2"', 'cpu: "3"'), "high.yaml")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[7] == "node02"
    assert pod_row(wide, "v1")[2] == pod_row(wide, "v2")[2] == "Terminating"
    kubesim.ok("delete pod v1 --grace-period=0 --force")
    assert pod_row(kubesim.ok("get pods -o wide"), "high")[2] == "Pending"
    assert "not eligible due to a terminating pod on the nominated node." in kubesim.ok(
        "get events --field-selector involvedObject.name=high")
    kubesim.ok("delete pod v2 --grace-period=0 --force")
    wide = kubesim.ok("get pods -o wide")
    assert pod_row(wide, "high")[6] == "node02"
    exp = json.loads(kubesim.ok("explain-schedule high -o json"))
    assert exp["outcome"] == "Scheduled"
    assert exp["queue"]["movedBy"] == {"event": "AssignedPodDelete", "queue": "Backoff",
                                       "plugin": "NodeResourcesFit"}
