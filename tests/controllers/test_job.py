"""The Job controller (pkg/controller/job/job_controller.go), table-driven.

The sync table mirrors job_controller_test.go TestControllerSyncJob's cases (same names: pods in
each phase → creations, deletions and the counters written); the back-off table mirrors
backoff_utils_test.go TestGetRemainingBackoffTime; deadline, suspension, Indexed jobs and the
pod failure policy follow TestSyncJobPastDeadline, the suspend cases, the Indexed cases and
TestSyncJobWithJobPodFailurePolicy. Differences from upstream's harness: kubesim counts a
finished pod and removes its finalizer in one pass (no uncountedTerminatedPods in between).
"""

from __future__ import annotations

import pytest

from kubesim.clock import format_time, parse_time
from kubesim.controllers import job as jobctl
from kubesim.controllers.base import View

NOW = parse_time("2026-11-22T12:00:00Z")
LONG_AGO = "2026-11-22T10:00:00Z"
UID = "job-uid"


def make_job(parallelism=2, completions=5, backoff_limit=6, **spec) -> dict:
    s = {"parallelism": parallelism, "backoffLimit": backoff_limit, "completionMode": "NonIndexed",
         "suspend": False, "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False,
         "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}},
         "template": {"metadata": {"labels": {"batch.kubernetes.io/controller-uid": UID,
                                              "batch.kubernetes.io/job-name": "foobar"}},
                      "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}
    if completions is not None:
        s["completions"] = completions
    s.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "foobar", "namespace": "default", "uid": UID, "generation": 1,
                         "creationTimestamp": LONG_AGO},
            "spec": s, "status": {"startTime": LONG_AGO}}


def make_pod(i: int, phase: str, ready=False, terminating=False, index=None, finished=LONG_AGO,
             exit_code=None, finalizer=True) -> dict:
    md = {"name": f"foobar-{phase.lower()}-{i}", "namespace": "default", "uid": f"{phase}-{i}-{index}",
          "creationTimestamp": LONG_AGO, "labels": {"batch.kubernetes.io/controller-uid": UID},
          "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "foobar", "uid": UID,
                               "controller": True, "blockOwnerDeletion": True}]}
    if finalizer:
        md["finalizers"] = [jobctl.JOB_TRACKING_FINALIZER]
    if index is not None:
        md["annotations"] = {jobctl.COMPLETION_INDEX_ANNOTATION: str(index)}
    if terminating:
        md["deletionTimestamp"] = format_time(NOW)
        md["deletionGracePeriodSeconds"] = 30
    status: dict = {"phase": phase}
    if ready:
        status["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": LONG_AGO}]
    if phase in ("Succeeded", "Failed"):
        code = exit_code if exit_code is not None else (0 if phase == "Succeeded" else 1)
        status["containerStatuses"] = [{"name": "c", "state": {"terminated": {"exitCode": code,
                                                                            "finishedAt": finished}}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": {}, "status": status}


def pods(pending=0, active=0, ready=0, succeeded=0, failed=0, terminating=0) -> list[dict]:
    out = [make_pod(i, "Pending") for i in range(pending)]
    out += [make_pod(i, "Running", ready=i < ready) for i in range(active)]
    out += [make_pod(i, "Succeeded") for i in range(succeeded)]
    out += [make_pod(i, "Failed") for i in range(failed)]
    out += [make_pod(100 + i, "Running", terminating=True) for i in range(terminating)]
    return out


def run(job: dict, pod_list: list[dict], now: float = NOW):
    changes = jobctl.sync(View({"Job": [job], "Pod": pod_list}, now))
    creates = [c for c in changes if c.op == "create"]
    deletes = [c for c in changes if c.op == "delete"]
    finalizers = [c for c in changes if c.op == "update" and c.obj["kind"] == "Pod"]
    statuses = [c for c in changes if c.op == "update_status"]
    status = statuses[-1].obj["status"] if statuses else job["status"]
    return changes, creates, deletes, finalizers, status


SYNC = [
    # name, job, pods, creations, deletions, finalizer patches, active, ready, succeeded, failed, terminating
    ("job start", make_job(2, 5), pods(), 2, 0, 0, 2, 0, 0, 0, 0),
    ("WQ job start", make_job(2, None), pods(), 2, 0, 0, 2, 0, 0, 0, 0),
    ("pending pods", make_job(2, 5), pods(pending=2), 0, 0, 0, 2, 0, 0, 0, 0),
    ("correct # of pods", make_job(3, 5), pods(active=3, ready=2), 0, 0, 0, 3, 2, 0, 0, 0),
    ("WQ job: correct # of pods", make_job(2, None), pods(active=2), 0, 0, 0, 2, 0, 0, 0, 0),
    ("too few active pods", make_job(2, 5), pods(active=1, succeeded=1), 1, 0, 1, 2, 0, 1, 0, 0),
    ("WQ job: recreate pods when failed", make_job(1, None, podReplacementPolicy="Failed"),
     pods(active=1, failed=1, terminating=1), 0, 0, 1, 1, 0, 0, 1, 1),
    ("WQ job: recreate pods when terminating or failed", make_job(1, None),
     pods(active=1, failed=1, terminating=1), 0, 0, 2, 1, 0, 0, 2, 1),
    ("more terminating pods than parallelism", make_job(1, 1, podReplacementPolicy="Failed"),
     pods(active=2, terminating=4), 0, 1, 0, 1, 0, 0, 0, 5),
    ("too many active pods", make_job(2, 5), pods(active=3), 0, 1, 0, 2, 0, 0, 0, 1),
    ("failed + succeed pods: reset backoff delay", make_job(2, 5), pods(active=1, succeeded=1, failed=1),
     1, 0, 2, 2, 0, 1, 1, 0),
    ("new failed pod", make_job(2, 5), pods(active=1, failed=1), 1, 0, 1, 2, 0, 0, 1, 0),
    ("only new failed pod", make_job(2, 5), pods(failed=1), 2, 0, 1, 2, 0, 0, 1, 0),
    ("job finish", make_job(2, 5), pods(succeeded=5), 0, 0, 5, 0, 0, 5, 0, 0),
    ("WQ job finishing", make_job(2, None), pods(active=1, succeeded=1), 0, 0, 1, 1, 0, 1, 0, 0),
    ("WQ job all finished", make_job(2, None), pods(succeeded=2), 0, 0, 2, 0, 0, 2, 0, 0),
    ("more active pods than parallelism", make_job(2, 5), pods(active=10), 0, 8, 0, 2, 0, 0, 0, 8),
    ("more active pods than remaining completions", make_job(3, 4), pods(active=3, succeeded=2), 0, 1, 2, 2, 0, 2,
     0, 1),
]


@pytest.mark.parametrize("job,pod_list,creations,deletions,patches,active,ready,succeeded,failed,terminating",
                         [c[1:] for c in SYNC], ids=[c[0] for c in SYNC])
def test_controller_sync_job(job, pod_list, creations, deletions, patches, active, ready, succeeded, failed,
                             terminating):
    _, creates, deletes, finalizers, status = run(job, pod_list)
    assert (len(creates), len(deletes), len(finalizers)) == (creations, deletions, patches)
    got = (int(status.get("active") or 0), status.get("ready"), int(status.get("succeeded") or 0),
           int(status.get("failed") or 0), status.get("terminating"))
    assert got == (active, ready, succeeded, failed, terminating)
    for c in creates:
        pod = c.obj
        assert pod["metadata"]["finalizers"] == [jobctl.JOB_TRACKING_FINALIZER]
        assert pod["metadata"]["generateName"] == "foobar-"
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "Job"
        assert [e.reason for e in c.events] == ["SuccessfulCreate"]


def test_a_finished_job_gets_success_criteria_met_then_complete_and_an_event():
    changes, _, _, _, status = run(make_job(2, 5), pods(succeeded=5))
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("SuccessCriteriaMet", "CompletionsReached"), ("Complete", "CompletionsReached")]
    assert status["completionTime"] == format_time(NOW)
    ev = [e for c in changes for e in c.events if e.reason == "Completed"]
    assert [(e.type, e.message) for e in ev] == [("Normal", "Job completed")]


def test_backoff_limit_exceeded_fails_the_job_with_failure_target_first():
    changes, creates, _, _, status = run(make_job(1, 1, backoff_limit=2), pods(failed=3))
    assert not creates
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("FailureTarget", "BackoffLimitExceeded"), ("Failed", "BackoffLimitExceeded")]
    ev = [e for c in changes for e in c.events if e.type == "Warning"]
    assert [(e.reason, e.message) for e in ev] == [("BackoffLimitExceeded", "Job has reached the specified backoff limit")]
    assert "completionTime" not in status


def test_the_failed_condition_waits_for_terminating_pods():
    job = make_job(2, 5, activeDeadlineSeconds=10)
    changes, _, deletes, finalizers, status = run(job, pods(active=2))
    assert len(deletes) == 2 and status["terminating"] == 2
    # the pods still tracked count as failed, their finalizers go first (then the deletions)
    assert status["failed"] == 2 and len(finalizers) == 2
    ops = [c.op for c in changes if c.op in ("update", "delete")]
    assert ops == ["update", "update", "delete", "delete"]
    assert [c["type"] for c in status["conditions"]] == ["FailureTarget"]
    assert status["conditions"][0]["reason"] == "DeadlineExceeded"
    assert status["conditions"][0]["message"] == "Job was active longer than specified deadline"


def test_an_active_deadline_in_the_future_is_a_wake():
    job = make_job(2, 5, activeDeadlineSeconds=3 * 3600)
    changes, *_ = run(job, pods(active=2))
    assert [c.at for c in changes if c.op == "wake"] == [parse_time(LONG_AGO) + 3 * 3600]


@pytest.mark.parametrize("failures,since_last,remaining", [
    (0, 0, 0), (1, 0, 10), (1, 4, 6), (1, 15, 0), (2, 0, 20), (3, 5, 35), (6, 0, 320), (7, 0, 360), (20, 100, 260),
], ids=["no failures", "one failure, just now", "one failure, 4s ago", "one failure, long ago",
        "two failures double it", "three failures, 5s ago", "six failures", "seven reach the cap",
        "the cap holds"])
def test_remaining_backoff(failures, since_last, remaining):
    # 10 s * 2^(failures-1), capped at 6 min, less the time since the last failure
    assert jobctl.remaining_backoff(failures, NOW - since_last, NOW) == remaining


def test_a_recent_failure_delays_the_replacement_with_a_wake():
    failed = make_pod(0, "Failed", finished=format_time(NOW - 4))
    changes, creates, *_ = run(make_job(1, 1), [failed])
    assert not creates
    assert [c.at for c in changes if c.op == "wake"] == [NOW + 6]


def test_a_suspended_job_deletes_its_pods_and_says_so():
    changes, creates, deletes, _, status = run(make_job(2, 5, suspend=True), pods(active=2))
    assert (len(creates), len(deletes)) == (0, 2)
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [
        ("Suspended", "True", "JobSuspended")]
    assert [e.reason for c in changes for e in c.events if e.reason in ("Suspended", "Resumed")] == ["Suspended"]


def test_a_resumed_job_starts_again():
    job = make_job(2, 5)
    job["status"]["conditions"] = [{"type": "Suspended", "status": "True", "reason": "JobSuspended",
                                    "message": "Job suspended", "lastProbeTime": LONG_AGO,
                                    "lastTransitionTime": LONG_AGO}]
    changes, creates, _, _, status = run(job, [])
    assert len(creates) == 2
    assert [(c["status"], c["reason"]) for c in status["conditions"]] == [("False", "JobResumed")]
    assert status["startTime"] == format_time(NOW)


def test_indexed_pods_carry_their_index():
    job = make_job(2, 4, completionMode="Indexed")
    _, creates, _, _, status = run(job, [make_pod(0, "Succeeded", index=0)])
    names = [(c.obj["metadata"]["generateName"], c.obj["metadata"]["annotations"][jobctl.COMPLETION_INDEX_ANNOTATION],
              c.obj["metadata"]["labels"][jobctl.COMPLETION_INDEX_ANNOTATION], c.obj["spec"]["hostname"])
             for c in creates]
    assert names == [("foobar-1-", "1", "1", "foobar-1"), ("foobar-2-", "2", "2", "foobar-2")]
    env = creates[0].obj["spec"]["containers"][0]["env"]
    assert env == [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}]
    assert status["completedIndexes"] == "0"


@pytest.mark.parametrize("indexes,text", [([], ""), ([0], "0"), ([0, 1], "0,1"), ([0, 1, 2], "0-2"),
                                          ([1, 3, 4, 5, 7], "1,3-5,7")])
def test_completed_indexes_are_written_as_intervals(indexes, text):
    assert jobctl.format_indexes(indexes) == text
    assert jobctl.parse_indexes(text, 10) == indexes


def test_pod_failure_policy_fail_job_rule():
    job = make_job(1, 1, podReplacementPolicy="Failed", podFailurePolicy={"rules": [
        {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "In", "values": [42]}}]})
    _, _, _, _, status = run(job, [make_pod(0, "Failed", exit_code=42)])
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("FailureTarget", "PodFailurePolicy"), ("Failed", "PodFailurePolicy")]
    assert status["conditions"][0]["message"] == (
        "Container c for pod default/foobar-failed-0 failed with exit code 42 matching FailJob rule at index 0")


def test_pod_failure_policy_ignore_rule_does_not_count():
    job = make_job(1, 1, podReplacementPolicy="Failed", podFailurePolicy={"rules": [
        {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3]}}]})
    _, creates, _, finalizers, status = run(job, [make_pod(0, "Failed", exit_code=3)])
    assert len(creates) == 1 and len(finalizers) == 1 and "failed" not in status


def test_past_backoff_limit_on_failure_counts_restarts():
    job = make_job(1, 1, backoff_limit=2)
    job["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    p = make_pod(0, "Running")
    p["status"]["containerStatuses"] = [{"name": "c", "restartCount": 2}]
    _, _, deletes, _, status = run(job, [p])
    assert len(deletes) == 1 and status["conditions"][0]["reason"] == "BackoffLimitExceeded"
