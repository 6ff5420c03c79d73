"""The scheduler through the CLI: placement, FailedScheduling, explain-schedule, schedulerName,
KubeSchedulerConfiguration, --v=10 score logs, and the seed drills."""

import json
from pathlib import Path

import pytest
import yaml

from kubesim.testing.cli import snapshot

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"


def pod(name, cpu=None, extra=""):
    res = f"    resources:\n      requests:\n        cpu: \"{cpu}\"\n" if cpu else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\nspec:\n{extra}"
            f"  containers:\n  - name: c\n    image: nginx\n{res}")


def apply(h, tmp_path, text, name="p.yaml"):
    f = tmp_path / name
    f.write_text(text)
    return h.ok(f"apply -f {f}")


def test_a_pending_pod_is_scheduled_with_the_event_and_condition_upstream_writes(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("web", cpu="500m"))
    p = json.loads(kubesim.ok("get pod web -o json"))
    assert p["spec"]["nodeName"] in ("node01", "node02")
    cond = [c for c in p["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert (cond["status"], cond["observedGeneration"]) == ("True", 1)
    out = kubesim.ok("get events --field-selector involvedObject.name=web")
    assert f"Successfully assigned default/web to {p['spec']['nodeName']}" in out


def test_an_unschedulable_pod_gets_the_fit_error_message(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("big", cpu="3") + "---\n" + pod("big2", cpu="3") + "---\n" + pod("huge", cpu="3"))
    p = json.loads(kubesim.ok("get pod huge -o json"))
    assert "nodeName" not in p["spec"]
    cond = [c for c in p["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert (cond["status"], cond["reason"], cond["observedGeneration"]) == ("False", "Unschedulable", 1)
    assert cond["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
                               "no new claims to deallocate, preemption: 0/3 nodes are available: "
                               "1 Preemption is not helpful for scheduling, 2 No preemption victims found for "
                               "incoming pod.")
    assert "FailedScheduling" in kubesim.ok("describe pod huge")


def test_a_pod_whose_resource_claim_does_not_exist_waits_without_an_attempt(kubesim, tmp_path):
    # DynamicResources' PreEnqueue keeps it out of the active queue, as a scheduling gate would:
    # no FailedScheduling event, no PodScheduled condition; explain-schedule says why.
    claims = ("  resourceClaims:\n  - name: gpu\n    resourceClaimTemplateName: single-gpu\n")
    apply(kubesim, tmp_path, pod("gpu", extra=claims))
    p = json.loads(kubesim.ok("get pod gpu -o json"))
    assert "nodeName" not in p["spec"] and p["status"]["phase"] == "Pending"
    assert not [c for c in p["status"].get("conditions") or [] if c["type"] == "PodScheduled"]
    assert "FailedScheduling" not in kubesim.ok("get events")
    assert ('its PreEnqueue plugin DynamicResources holds it back (pod "default/gpu": '
            "ResourceClaim not created yet)") in kubesim.ok("explain-schedule gpu")


def test_an_unschedulable_pod_is_retried_only_by_a_change_that_can_make_it_fit(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("wait", extra="  nodeSelector:\n    disk: ssd\n"))
    assert "nodeName" not in json.loads(kubesim.ok("get pod wait -o json"))["spec"]
    # NodeAffinity's hint: a label the selector does not read is no reason to retry
    kubesim.ok("label node node02 disk=hdd")
    kubesim.ok("advance 10s")
    assert "nodeName" not in json.loads(kubesim.ok("get pod wait -o json"))["spec"]
    events = kubesim.ok("get events --field-selector involvedObject.name=wait")
    assert "FailedScheduling" in events and "(x2" not in events
    # a label that matches: moved (to backoffQ, its 1 s back-off running at the pinned instant)
    # and popped at once, as activeQ is empty (SchedulerPopFromBackoffQ)
    kubesim.ok("label node node02 disk=ssd --overwrite")
    assert json.loads(kubesim.ok("get pod wait -o json"))["spec"]["nodeName"] == "node02"


def test_a_pod_for_another_scheduler_stays_pending_untouched(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("other", extra="  schedulerName: my-scheduler\n"))
    p = json.loads(kubesim.ok("get pod other -o json"))
    assert "nodeName" not in p["spec"] and "conditions" not in p["status"]
    assert kubesim("get events --field-selector involvedObject.name=other").err.startswith("No resources found")
    exp = json.loads(kubesim.ok("explain-schedule other -o json"))
    assert exp["outcome"] == "NotResponsible"


def test_a_pod_with_node_name_bypasses_the_scheduler(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("manual", extra="  nodeName: controlplane\n"))
    exp = json.loads(kubesim.ok("explain-schedule manual -o json"))
    assert (exp["outcome"], exp["node"]) == ("Bypassed", "controlplane")


def test_explain_schedule_json_follows_the_contract(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("web", cpu="500m"))
    exp = json.loads(kubesim.ok("explain-schedule web -o json"))
    assert list(exp) == ["kind", "apiVersion", "pod", "profile", "outcome", "node", "message", "nodes", "preemption",
                         "queue"]
    assert exp["queue"] == {"attempt": 1, "poppedFrom": "Active",
                            "movedBy": {"event": "UnschedulablePodAdd", "queue": "Active"}}
    assert (exp["kind"], exp["apiVersion"], exp["outcome"]) == ("ScheduleExplanation", "kubesim.io/v1alpha1", "Scheduled")
    cp = exp["nodes"]["controlplane"]
    assert cp["feasible"] is False and cp["filter"]["TaintToleration"] == "node(s) had untolerated taint(s)"
    n = exp["nodes"][exp["node"]]
    assert n["feasible"] is True
    assert n["total"] == sum(s["final"] for s in n["score"].values())
    for s in n["score"].values():
        assert s["final"] == s["normalized"] * s["weight"]


def test_explain_schedule_what_if_writes_nothing(kubesim, tmp_path):
    kubesim.ok("get nodes")
    f = tmp_path / "w.yaml"
    f.write_text(pod("w1", cpu="3") + "---\n" + pod("w2", cpu="3") + "---\n" + pod("w3", cpu="3"))
    before = snapshot(kubesim.state_dir)
    out = json.loads(kubesim.ok(f"explain-schedule -f {f} -o json"))
    assert snapshot(kubesim.state_dir) == before
    assert out["kind"] == "List"
    # each pod is evaluated as if the ones before it had been placed
    assert [i["outcome"] for i in out["items"]] == ["Scheduled", "Scheduled", "Unschedulable"]
    assert {out["items"][0]["node"], out["items"][1]["node"]} == {"node01", "node02"}


def test_explain_schedule_reads_standard_input(kubesim):
    out = kubesim.ok("explain-schedule -f - -o yaml", stdin=pod("s", cpu="100m"))
    assert yaml.safe_load(out)["outcome"] == "Scheduled"


def test_explain_schedule_table_names_plugins_their_legacy_names_and_the_winner(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("web", cpu="500m"))
    out = kubesim.ok("explain-schedule web")
    for text in ("NodeResourcesFit", "(PodFitsResources)", "LeastRequestedPriority", "TaintToleration",
                 "Chosen: ", "← chosen", "Skipped"):
        assert text in out, text


def test_explain_schedule_says_what_would_make_an_unschedulable_pod_fit(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("picky", extra="  nodeSelector:\n    disk: ssd\n"))
    out = kubesim.ok("explain-schedule picky")
    assert "What would make it fit:" in out
    assert "kubesim taint nodes controlplane node-role.kubernetes.io/control-plane:NoSchedule-" in out
    assert "label the node to match" in out


def test_explain_schedule_shows_each_post_filter_plugins_verdict(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("huge", cpu="64"))
    out = kubesim.ok("explain-schedule huge")
    assert "\nPostFilter DynamicResources: no new claims to deallocate\n" in out
    assert "Preemption (PostFilter DefaultPreemption)" in out
    conflict = ("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                "        nodeSelectorTerms:\n        - matchFields:\n"
                "          - {key: metadata.name, operator: In, values: [node01]}\n"
                "          - {key: metadata.name, operator: In, values: [node02]}\n")
    apply(kubesim, tmp_path, pod("conflict", extra=conflict), "conflict.yaml")
    out = kubesim.ok("explain-schedule conflict")
    assert "Message: 0/3 nodes are available: pod affinity terms conflict. not found\n" in out
    assert "PostFilter DynamicResources failed: not found (its PreFilter never ran" in out
    assert "Preemption (PostFilter DefaultPreemption)" not in out


def test_explain_schedule_prints_bracketed_text_verbatim(kubesim):
    # Rich reads "[example.com/wait]" as markup unless it is escaped, in plain text too
    gated = pod("gated", extra="  schedulingGates:\n  - name: example.com/wait\n")
    out = kubesim.ok("explain-schedule -f -", stdin=gated)
    assert "Message: waiting for scheduling gates: [example.com/wait]\n" in out


def test_explain_schedule_names_the_pre_enqueue_plugin_holding_a_pod_back(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("gated", extra="  schedulingGates:\n  - name: example.com/wait\n"))
    exp = json.loads(kubesim.ok("explain-schedule gated -o json"))
    assert (exp["outcome"], exp["message"]) == (
        "Unschedulable", "The scheduler has not attempted this pod yet: its PreEnqueue plugin "
        "SchedulingGates holds it back (waiting for scheduling gates: [example.com/wait]).")


def test_explain_schedule_of_a_missing_pod(kubesim):
    r = kubesim("explain-schedule ghost")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): pods "ghost" not found\n')


def test_v10_prints_every_plugin_score_and_each_final_score(kubesim, tmp_path):
    kubesim.ok("get nodes")
    f = tmp_path / "p.yaml"
    f.write_text(pod("logged", cpu="100m"))
    r = kubesim(f"apply -f {f} --v=10")
    assert r.code == 0
    lines = r.err.splitlines()
    scored = [ln for ln in lines if '"Plugin scored node for pod"' in ln]
    final = [ln for ln in lines if "\"Calculated node's final score for pod\"" in ln]
    assert len(final) == 2 and len(scored) >= 2 * 4
    assert all(ln.startswith("I1122 10:00:00.000000 ") for ln in lines if ln)
    assert 'pod="default/logged" plugin="NodeResourcesFit" node="node01" score=' in r.err
    assert '"Successfully bound pod to node" pod="default/logged"' in r.err


def test_without_v_there_are_no_log_lines(kubesim, tmp_path):
    kubesim.ok("get nodes")
    f = tmp_path / "p.yaml"
    f.write_text(pod("quiet"))
    assert kubesim(f"apply -f {f}").err == ""


KSC = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: {strategy}
- schedulerName: my-scheduler
"""


def test_a_scheduler_configuration_is_applied_and_shown(kubesim, tmp_path):
    assert apply(kubesim, tmp_path, KSC.format(strategy="MostAllocated")) == \
        "kubeschedulerconfiguration.kubescheduler.config.k8s.io/kube-scheduler created\n"
    assert apply(kubesim, tmp_path, KSC.format(strategy="MostAllocated")) == \
        "kubeschedulerconfiguration.kubescheduler.config.k8s.io/kube-scheduler unchanged\n"
    cfg = yaml.safe_load(kubesim.ok("get kubeschedulerconfiguration -o yaml"))
    assert [p["schedulerName"] for p in cfg["profiles"]] == ["default-scheduler", "my-scheduler"]
    # the second profile now takes pods that name it
    apply(kubesim, tmp_path, pod("mine", extra="  schedulerName: my-scheduler\n"), "mine.yaml")
    assert json.loads(kubesim.ok("get pod mine -o json"))["spec"].get("nodeName")


def test_most_allocated_packs_pods_onto_the_busier_node(kubesim, tmp_path):
    apply(kubesim, tmp_path, KSC.format(strategy="MostAllocated"), "ksc.yaml")
    apply(kubesim, tmp_path, pod("first", cpu="1", extra="  nodeName: node02\n"), "first.yaml")
    apply(kubesim, tmp_path, pod("second", cpu="1"), "second.yaml")
    assert json.loads(kubesim.ok("get pod second -o json"))["spec"]["nodeName"] == "node02"


def test_the_default_configuration_is_shown_when_none_was_applied(kubesim):
    cfg = yaml.safe_load(kubesim.ok("get kubeschedulerconfiguration"))
    assert cfg["kind"] == "KubeSchedulerConfiguration" and cfg["profiles"][0]["schedulerName"] == "default-scheduler"


@pytest.mark.parametrize("change, message", [
    pytest.param(("MostAllocated", "Sometimes"), 'Unsupported value: "Sometimes"', id="an unknown scoring strategy"),
    pytest.param(("- schedulerName: my-scheduler", "- schedulerName: default-scheduler"),
                 'Duplicate value: "default-scheduler"', id="a duplicate profile name"),
])
def test_an_invalid_scheduler_configuration_is_refused(kubesim, tmp_path, change, message):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    f = tmp_path / "bad.yaml"
    f.write_text(KSC.format(strategy="MostAllocated").replace(*change))
    r = kubesim(f"apply -f {f}")
    assert r.code == 1 and r.err.startswith("The KubeSchedulerConfiguration is invalid: ") and message in r.err
    assert snapshot(kubesim.state_dir) == before


def test_an_unknown_plugin_is_refused(kubesim, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text(KSC.format(strategy="MostAllocated") + "  plugins:\n    score:\n      enabled:\n      - name: Nope\n")
    r = kubesim(f"apply -f {f}")
    assert r.code == 1 and "Nope" in r.err


# -- the seed drills ---------------------------------------------------------------------------

def test_day5_manual_scheduling_drill(kubesim):
    kubesim.ok(f"apply -f {MANIFESTS / 'drills' / 'day5-manual-scheduling'}")
    kubesim.ok("advance 5s")  # the image pull
    out = kubesim.ok("get pod cka-1121 -o custom-columns=NODE:.spec.nodeName,STATUS:.status.phase --no-headers")
    assert out.split() == ["node1121", "Running"]
    assert json.loads(kubesim.ok("explain-schedule cka-1121 -o json"))["outcome"] == "Bypassed"


def test_day6_affinity_drill(kubesim):
    kubesim.ok(f"apply -f {MANIFESTS / 'drills' / 'day6-affinity-pods'}")
    pods = {p["metadata"]["name"]: p for p in json.loads(kubesim.ok("get pods -o json"))["items"]}
    node = {n: p["spec"].get("nodeName") for n, p in pods.items()}
    # anti-affinity: one cka-1122-01 pod per worker; affinity: cka-1122-02 beside them
    assert {node["cka-1122-01-a"], node["cka-1122-01-b"]} == {"node01", "node02"}
    assert {node["cka-1122-02-a"], node["cka-1122-02-b"]} <= {"node01", "node02"}
    assert node["cka-1122-01-c"] is None
    exp = json.loads(kubesim.ok("explain-schedule cka-1122-01-c -o json"))
    assert exp["message"].startswith("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                                     "2 node(s) didn't match pod anti-affinity rules.")
    assert exp["nodes"]["node01"]["filter"]["InterPodAffinity"] == "node(s) didn't match pod anti-affinity rules"


def test_attempts_past_the_explanation_budget_are_summarised_and_evaluated_afresh(kubesim, tmp_path, monkeypatch):
    from kubesim.controlplane import scheduling

    monkeypatch.setattr(scheduling, "EXPLAIN_NODE_BUDGET", 0)
    apply(kubesim, tmp_path, pod("bulk", cpu="100m"))
    node = json.loads(kubesim.ok("get pod bulk -o json"))["spec"]["nodeName"]
    r = kubesim("explain-schedule bulk -o json")
    assert r.code == 0 and "recorded in summary" in r.err
    exp = json.loads(r.out)
    assert (exp["outcome"], exp["node"]) == ("Scheduled", node)  # the recorded facts
    assert set(exp["nodes"]) == {"controlplane", "node01", "node02"}  # the fresh detail


def test_runtime_class_overhead_counts_for_scheduling(kubesim, tmp_path):
    rc = ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: kata\nhandler: kata\n"
          "overhead:\n  podFixed:\n    cpu: 250m\n")
    apply(kubesim, tmp_path, rc, "rc.yaml")
    # 3800m fits a 4-CPU node alone, but not with the class's 250m overhead
    apply(kubesim, tmp_path, pod("sandboxed", cpu="3800m", extra="  runtimeClassName: kata\n"))
    p = json.loads(kubesim.ok("get pod sandboxed -o json"))
    assert p["spec"]["overhead"] == {"cpu": "250m"} and "nodeName" not in p["spec"]
    apply(kubesim, tmp_path, pod("plain", cpu="3800m"), "plain.yaml")
    assert json.loads(kubesim.ok("get pod plain -o json"))["spec"].get("nodeName")


def test_an_unknown_runtime_class_is_refused(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(pod("x", extra="  runtimeClassName: nope\n"))
    r = kubesim(f"apply -f {f}")
    assert r.code == 1
    assert r.err == (f'Error from server (Forbidden): error when creating "{f}": pods "x" is forbidden: '
                     'pod rejected: RuntimeClass "nope" not found\n')


def test_explain_schedule_what_if_on_the_day6_drill_directory(kubesim):
    out = json.loads(kubesim.ok(f"explain-schedule -f {MANIFESTS / 'drills' / 'day6-affinity-pods'} -o json"))
    assert [i["pod"]["name"] for i in out["items"]] == ["cka-1122-01-a", "cka-1122-01-b", "cka-1122-02-a",
                                                        "cka-1122-02-b", "cka-1122-01-c"]
    assert [i["outcome"] for i in out["items"]] == ["Scheduled"] * 4 + ["Unschedulable"]


def test_day6_drill_as_deployments(kubesim, tmp_path):
    drill = MANIFESTS / "drills" / "day6-affinity"
    kubesim.ok(f"apply -f {drill}")
    pods = json.loads(kubesim.ok("get pods -o json"))["items"]
    on = {}
    for p in pods:
        on.setdefault(p["metadata"]["labels"]["app"], []).append(p["spec"].get("nodeName"))
    assert sorted(on["cka-1122-01"]) == ["node01", "node02"]
    assert sorted(on["cka-1122-02"]) == ["node01", "node02"]
    # "scale cka-1122-01 to 3": the third replica has nowhere to go
    f = tmp_path / "three.yaml"
    f.write_text((drill / "01-cka-1122-01.yaml").read_text().replace("replicas: 2", "replicas: 3"))
    kubesim.ok(f"apply -f {f}")
    pending = [p for p in json.loads(kubesim.ok("get pods -l app=cka-1122-01 -o json"))["items"]
               if not p["spec"].get("nodeName")]
    assert len(pending) == 1
    cond = [c for c in pending[0]["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert cond["message"].startswith("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                                      "2 node(s) didn't match pod anti-affinity rules.")
    exp = json.loads(kubesim.ok(f"explain-schedule {pending[0]['metadata']['name']} -o json"))
    assert exp["outcome"] == "Unschedulable"


def test_day6_drill_typed_as_a_learner_would(kubesim):
    kubesim.ok(f"apply -f {MANIFESTS / 'drills' / 'day6-affinity'}")
    assert kubesim.ok("scale deployment cka-1122-01 --replicas=3") == "deployment.apps/cka-1122-01 scaled\n"
    kubesim.ok("advance 5s")  # the image pulls
    rows = [ln.split() for ln in kubesim.ok("get pods -l app=cka-1122-01 --no-headers").splitlines()]
    assert sorted(r[2] for r in rows) == ["Pending", "Running", "Running"]
    pending = next(r[0] for r in rows if r[2] == "Pending")
    out = kubesim.ok(f"explain-schedule {pending}")
    assert "2 node(s) didn't match pod anti-affinity rules" in out and "What would make it fit:" in out
    assert "FailedScheduling" in kubesim.ok(f"describe pod {pending}")


def test_a_what_if_for_a_stored_pods_name_evaluates_the_file_instead(kubesim, tmp_path):
    f = apply_file = tmp_path / "p.yaml"
    apply_file.write_text(pod("same", cpu="100m", extra="  nodeSelector:\n    disk: ssd\n"))
    kubesim.ok(f"apply -f {f}")  # stored, Pending: no node has disk=ssd
    g = tmp_path / "fixed.yaml"
    g.write_text(pod("same", cpu="100m"))
    before = snapshot(kubesim.state_dir)
    exp = json.loads(kubesim.ok(f"explain-schedule -f {g} -o json"))
    assert exp["outcome"] == "Scheduled"
    assert snapshot(kubesim.state_dir) == before


def test_a_pod_rejected_only_by_a_taint_is_scheduled_in_the_command_that_removes_it(kubesim, tmp_path):
    # TaintToleration registered Node/UpdateNodeTaint; its hint answers Queue once the node's
    # taints stop rejecting the pod. The pod is still backing off at the pinned instant, so it
    # goes to backoffQ, and the idle scheduler pops it from there (SchedulerPopFromBackoffQ).
    kubesim.ok("taint nodes node01 node02 dedicated=gpu:NoSchedule")
    apply(kubesim, tmp_path, pod("waiting", cpu="100m"))
    assert "nodeName" not in json.loads(kubesim.ok("get pod waiting -o json"))["spec"]
    # writes no plugin of the pod registered: no second attempt
    kubesim.ok("label node node02 disk=ssd")
    kubesim.ok("create configmap unrelated --from-literal=a=b")
    kubesim.ok("advance 2s")
    events = kubesim.ok("get events --field-selector involvedObject.name=waiting")
    assert events.count("FailedScheduling") == 1 and "(x2" not in events
    kubesim.ok("taint nodes node01 dedicated-")
    assert json.loads(kubesim.ok("get pod waiting -o json"))["spec"]["nodeName"] == "node01"
    q = json.loads(kubesim.ok("explain-schedule waiting -o json"))["queue"]
    assert q == {"attempt": 2, "poppedFrom": "Active",
                 "movedBy": {"event": "NodeUpdateNodeTaint", "queue": "Active",
                             "plugin": "TaintToleration"}}


def test_a_taint_removed_while_the_pod_backs_off_is_popped_from_the_backoff_queue(kubesim, tmp_path):
    kubesim.ok("taint nodes node01 node02 dedicated=gpu:NoSchedule")
    apply(kubesim, tmp_path, pod("waiting", cpu="100m"))
    kubesim.ok("taint nodes node02 dedicated-")  # the same pinned instant: backoff not over
    assert json.loads(kubesim.ok("get pod waiting -o json"))["spec"]["nodeName"] == "node02"
    exp = json.loads(kubesim.ok("explain-schedule waiting -o json"))
    assert exp["queue"] == {"attempt": 2, "poppedFrom": "Backoff",
                            "movedBy": {"event": "NodeUpdateNodeTaint", "queue": "Backoff",
                                        "plugin": "TaintToleration"}}
    text = kubesim.ok("explain-schedule waiting")
    assert ("Queue: attempt 2, after NodeUpdateNodeTaint moved it to the backoff queue "
            "(TaintToleration's queueing hint: Queue); popped from the backoff queue") in " ".join(text.split())


def test_explain_schedule_says_which_events_an_unschedulable_pod_waits_for(kubesim, tmp_path):
    apply(kubesim, tmp_path, pod("picky", extra="  nodeSelector:\n    disk: ssd\n"))
    q = json.loads(kubesim.ok("explain-schedule picky -o json"))["queue"]
    assert q["after"] == {"queue": "Unschedulable", "waitingFor": {
        "NodeAffinity": ["NodeAdd", "NodeUpdateNodeLabel", "NodeUpdateNodeTaint"],
        "TaintToleration": ["NodeAdd", "NodeUpdateNodeTaint", "PodUpdatePodToleration"]}}
    text = kubesim.ok("explain-schedule picky")
    assert "Waiting in the unschedulable pool for: NodeAffinity: NodeAdd, NodeUpdateNodeLabel" in text


def test_v5_logs_the_event_that_moved_a_pod(kubesim, tmp_path):
    kubesim.ok("taint nodes node01 node02 dedicated=gpu:NoSchedule")
    apply(kubesim, tmp_path, pod("waiting", cpu="100m"))
    err = kubesim("taint nodes node01 dedicated- --v=5").err
    assert ('scheduling_queue.go:915] "Pod moved to an internal scheduling queue" '
            'pod="default/waiting" event="ScheduleAttemptFailure"') not in err  # that was before
    assert ('backoff_queue.go:321] "Pod moved to an internal scheduling queue" '
            'pod="default/waiting" event="NodeUpdateNodeTaint" queue="Backoff"') in err
    assert 'eventhandlers.go:83] "Update event for node" node="node01"' in err  # V(4)
