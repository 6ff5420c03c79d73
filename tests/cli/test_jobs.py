"""Jobs end to end through the CLI on the simulated clock: a Job with completions 5 and
parallelism 2 progressing as time advances, a failing Job backing off (10 s, 20 s) until its
backoffLimit, the pods going with the Job, an Indexed Job's pod names."""

from __future__ import annotations

from kubesim.testing.cli import Harness

PI = """
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  completions: 5
  parallelism: 2
  template:
    spec:
      containers: [{name: pi, image: busybox, command: [sh, -c, "sleep 5; echo done"]}]
      restartPolicy: Never
"""

FAIL = """
apiVersion: batch/v1
kind: Job
metadata: {name: fail}
spec:
  backoffLimit: 2
  template:
    spec:
      containers: [{name: c, image: busybox, command: [sh, -c, "exit 1"]}]
      restartPolicy: Never
"""


def test_completions_five_parallelism_two_as_time_advances(tmp_path):
    h = Harness(tmp_path)
    h.apply(PI)
    assert h.ok("get jobs") == ("NAME   STATUS    COMPLETIONS   DURATION   AGE\n"
                                "pi     Running   0/5           0s         0s\n")
    assert len(h.ok("get pods --no-headers").splitlines()) == 2
    h.ok("advance 6s")
    assert h.ok("get jobs") == ("NAME   STATUS    COMPLETIONS   DURATION   AGE\n"
                                "pi     Running   2/5           6s         6s\n")
    h.ok("advance 1m")
    assert h.ok("get jobs") == ("NAME   STATUS     COMPLETIONS   DURATION   AGE\n"
                                "pi     Complete   5/5           16s        66s\n")
    out = h.ok("describe job pi")
    assert "Pods Statuses:    0 Active (0 Ready) / 5 Succeeded / 0 Failed\n" in out
    assert out.count("SuccessfulCreate") == 5 and "Normal  Completed         50s   job-controller  Job completed" in out
    assert h.ok("get pods -o jsonpath={.items[*].metadata.finalizers}") == ""


def test_a_failing_job_backs_off_until_its_backoff_limit(tmp_path):
    h = Harness(tmp_path)
    h.apply(FAIL)
    h.ok("advance 9s")
    assert len(h.ok("get pods --no-headers").splitlines()) == 1  # the first retry waits 10 s
    h.ok("advance 1s")
    assert len(h.ok("get pods --no-headers").splitlines()) == 2
    h.ok("advance 21s")  # then 20 s and its pull: the third pod fails, 3 failures > backoffLimit 2
    assert h.ok("get jobs") == ("NAME   STATUS   COMPLETIONS   DURATION   AGE\n"
                                "fail   Failed   0/1           31s        31s\n")
    out = h.ok("describe job fail")
    assert "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 3 Failed\n" in out
    assert "Warning  BackoffLimitExceeded  1s    job-controller  Job has reached the specified backoff limit\n" in out
    types = h.ok("get job fail -o jsonpath={.status.conditions[*].type}")
    assert types == "FailureTarget Failed"
    h.ok("delete job fail")
    assert h("get pods").err == "No resources found in default namespace.\n"


def test_indexed_job_pods_are_named_after_their_index(tmp_path):
    h = Harness(tmp_path)
    h.apply(PI.replace("parallelism: 2", "parallelism: 3\n  completionMode: Indexed"))
    names = h.ok("get pods -o jsonpath={.items[*].metadata.generateName}").split()
    assert names == ["pi-0-", "pi-1-", "pi-2-"]
    assert h.ok("get pods -o jsonpath={.items[*].spec.hostname}").split() == ["pi-0", "pi-1", "pi-2"]


def test_an_indexed_pod_reads_its_index_from_the_environment(tmp_path):
    h = Harness(tmp_path)
    h.apply(PI.replace("parallelism: 2", "parallelism: 3\n  completionMode: Indexed")
            .replace('"sleep 5; echo done"', '"echo index $JOB_COMPLETION_INDEX"'))
    h.ok("advance 5s")  # the pulls of each pod
    logs = [h.ok(["logs", name]) for name in h.ok("get pods -o name").split()]
    assert logs == [f"index {i}\n" for i in range(5)]  # completions 5: each index once


TICK = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "*/2 * * * *"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: c, image: busybox, command: [sh, -c, "date; sleep 30"]}]
          restartPolicy: OnFailure
"""


def test_a_cronjob_creates_its_jobs_in_order_over_advance_and_keeps_its_history(tmp_path):
    h = Harness(tmp_path, now="2026-11-22T10:00:30Z")
    h.apply(TICK)
    h.ok("advance 10m1s")  # each pod pulls busybox (untagged: every time) for about a second
    # 10:02 ... 10:10: five Jobs, named after their scheduled minute; two finished ones kept
    assert h.ok("get jobs") == ("NAME            STATUS     COMPLETIONS   DURATION   AGE\n"
                                "tick-29922368   Complete   1/1           30s        2m31s\n"
                                "tick-29922370   Complete   1/1           30s        31s\n")
    assert h.ok("get cj") == ("NAME   SCHEDULE      TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n"
                              "tick   */2 * * * *   <none>     False     0        31s             10m\n")
    out = h.ok("describe cj tick")
    assert out.count("SuccessfulCreate") == 5 and out.count("SuccessfulDelete") == 3
    assert "Last Schedule Time:  Sun, 22 Nov 2026 10:10:00 +0000\n" in out
    pods = h.ok("get pods --no-headers -o custom-columns=N:.metadata.generateName").split()
    assert pods == ["tick-29922368-", "tick-29922370-"]  # the deleted Jobs' pods went with them


def test_a_cronjob_whose_job_the_quota_refuses_backs_off_past_its_next_schedule(tmp_path):
    """As on the v1.35 oracle: the 10:02 Job is refused 14 times by 10:02:41 (5 ms doubling),
    the 10:03 schedule waits for the next retry (82 s after the first), which creates the most
    recent schedule's Job; the status keeps no Job that was never created."""
    h = Harness(tmp_path, now="2026-11-22T10:00:00Z", extra_env={"KUBESIM_IMAGES": "present"})
    h.ok("create quota jq --hard=count/jobs.batch=1")
    h.ok("create cronjob c --image=busybox '--schedule=*/1 * * * *' -- sleep 600")
    h.ok("advance 2m50s")
    cols = """-o 'jsonpath={range .items[*]}{.count}|{.message}|{.firstTimestamp}|{.lastTimestamp}{"\\n"}{end}'"""
    refused = 'Error creating job: jobs.batch "c-{}" is forbidden: exceeded quota: jq, requested: count/jobs.batch=1, ' \
              "used: count/jobs.batch=1, limited: count/jobs.batch=1"
    # (the oracle's 14th try was at 10:02:41, its own latency added to the 40.955 s)
    assert h.ok(f"get events --field-selector reason=FailedCreate {cols}").splitlines() == [
        f"14|{refused.format(29922362)}|2026-11-22T10:02:00Z|2026-11-22T10:02:40Z"]
    h.ok("advance 40s")
    assert h.ok(f"get events --field-selector reason=FailedCreate {cols}").splitlines()[1:] == [
        f"1|{refused.format(29922363)}|2026-11-22T10:03:21Z|2026-11-22T10:03:21Z"]
    assert h.ok("get cj c -o jsonpath={.status.lastScheduleTime}") == "2026-11-22T10:01:00Z"


def test_a_suspended_cronjob_creates_nothing(tmp_path):
    h = Harness(tmp_path, now="2026-11-22T10:00:30Z")
    h.apply(TICK.replace("successfulJobsHistoryLimit: 2", "suspend: true"))
    h.ok("advance 10m")
    assert h("get jobs").err == "No resources found in default namespace.\n"


PER_INDEX = """
apiVersion: batch/v1
kind: Job
metadata: {name: per-index}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    metadata:
      annotations:
        kubesim.io/behaviour: '{"*": {"exitCode": 1, "after": "1s"}}'
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sleep, "5"]}]
"""


def test_backoff_limit_per_index_retries_each_index_once_then_fails_the_job(tmp_path):
    h = Harness(tmp_path)
    h.apply(PER_INDEX)
    h.ok("advance 47s")
    assert h.ok("get job per-index -o jsonpath={.status.failedIndexes}/{.status.failed}") == "0-2/6"
    assert h.ok("get job per-index -o jsonpath={.status.conditions[*].reason}") == "FailedIndexes FailedIndexes"
    counts = h.ok(["get", "pods", "-o", "jsonpath={.items[*].metadata.annotations.batch\\.kubernetes\\.io/"
                                        "job-index-failure-count}"]).split()
    assert sorted(counts) == ["0", "0", "0", "1", "1", "1"]
