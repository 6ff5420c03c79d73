"""The CronJob controller and its schedules.

``most_recent_schedule_time`` mirrors pkg/controller/cronjob/utils_test.go
TestMostRecentScheduleTime (same cases, same reference time 2016-05-19T10:00:00Z); the cron
parser's cases follow robfig/cron's parser_test.go and the API server's validation texts;
the sync cases follow cronjob_controllerv2_test.go TestControllerV2SyncCronJob (never ran / not
time / is time, Allow, Forbid and Replace with an active Job, suspended, too late for the
starting deadline)."""

from __future__ import annotations

import pytest

from kubesim.api.batch.cron import CronError, parse_standard
from kubesim.clock import format_time, parse_time
from kubesim.controllers import cronjob as cjctl
from kubesim.controllers.base import View

TOP = parse_time("2016-05-19T10:00:00Z")
M, H = 60, 3600


def cj(schedule="0 * * * *", created=TOP, last=None, deadline=None, **spec) -> dict:
    obj = {"apiVersion": "batch/v1", "kind": "CronJob",
           "metadata": {"name": "mycronjob", "namespace": "snazzycats", "uid": "cj-uid",
                        "creationTimestamp": format_time(created)},
           "spec": {"schedule": schedule, "concurrencyPolicy": "Allow", "suspend": False,
                    "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
                    "jobTemplate": {"metadata": {"labels": {"a": "b"}}, "spec": {"template": {"spec": {
                        "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}},
           "status": {}}
    if last is not None:
        obj["status"]["lastScheduleTime"] = format_time(last)
    if deadline is not None:
        obj["spec"]["startingDeadlineSeconds"] = deadline
    obj["spec"].update(spec)
    return obj


RECENT = [
    ("now before next schedule", cj(), False, TOP + 30, TOP, None, 0),
    ("now just after next schedule", cj(), False, TOP + 61 * M, TOP, TOP + 60 * M, 0),
    ("missed 5 schedules", cj(created=TOP + 10), False, TOP + 301 * M, TOP + 10, TOP + 300 * M, 1),
    ("complex schedule", cj("30 6-16/4 * * 1-5", last=TOP + 30 * M), False, TOP + 24 * H + 31 * M, TOP + 30 * M,
     TOP + 24 * H + 30 * M, 1),
    ("another complex schedule", cj("30 10,11,12 * * 1-5", last=TOP + 30 * M), False, TOP + 30 * H + 30 * M,
     TOP + 30 * M, None, 1),
    ("complex schedule with longer diff between executions", cj("30 6-16/4 * * 1-5", last=TOP + 30 * M), False,
     TOP + 96 * H + 31 * M, TOP + 30 * M, TOP + 96 * H + 30 * M, 1),
    ("complex schedule with shorter diff between executions", cj("30 6-16/4 * * 1-5"), False, TOP + 24 * H + 31 * M,
     TOP, TOP + 24 * H + 30 * M, 1),
    ("@every schedule", cj("@every 1h", created=TOP - 59 * M, last=TOP + M, deadline=10), False, TOP + 7 * 24 * H,
     TOP + M, TOP + 6 * 24 * H + 23 * H + M, 2),
    ("earliestTime being CreationTimestamp and LastScheduleTime", cj(last=TOP), False, TOP + 30, TOP, None, 0),
    ("earliestTime being LastScheduleTime", cj("*/5 * * * *", last=TOP + 30 * M), False, TOP + 31 * M,
     TOP + 30 * M, None, 0),
    ("earliestTime being LastScheduleTime (within StartingDeadlineSeconds)",
     cj("*/5 * * * *", last=TOP + 30 * M, deadline=60), True, TOP + 31 * M, TOP + 30 * M, None, 0),
]


@pytest.mark.parametrize("obj,include,now,earliest,recent,missed", [c[1:] for c in RECENT], ids=[c[0] for c in RECENT])
def test_most_recent_schedule_time(obj, include, now, earliest, recent, missed):
    schedule = parse_standard(obj["spec"]["schedule"])
    assert cjctl.most_recent_schedule_time(obj, now, schedule, include, None) == (earliest, recent, missed)


def test_a_rogue_schedule_is_an_error():
    with pytest.raises(CronError, match="less than 1 second"):
        cjctl.most_recent_schedule_time(cj("59 23 31 2 *", created=TOP + 10), TOP + H, parse_standard("59 23 31 2 *"),
                                        False, None)


@pytest.mark.parametrize("spec,after,expected", [
    ("*/5 * * * *", "2016-05-19T10:02:00Z", "2016-05-19T10:05:00Z"),
    ("@hourly", "2016-05-19T10:00:00Z", "2016-05-19T11:00:00Z"),
    ("@daily", "2016-05-19T10:00:00Z", "2016-05-20T00:00:00Z"),
    ("@weekly", "2016-05-19T10:00:00Z", "2016-05-22T00:00:00Z"),
    ("@monthly", "2016-05-19T10:00:00Z", "2016-06-01T00:00:00Z"),
    ("@yearly", "2016-05-19T10:00:00Z", "2017-01-01T00:00:00Z"),
    ("0 9 * * mon-fri", "2016-05-20T10:00:00Z", "2016-05-23T09:00:00Z"),
    ("0 0 1,15 * *", "2016-05-19T10:00:00Z", "2016-06-01T00:00:00Z"),
    ("0 0 29 2 *", "2016-05-19T10:00:00Z", "2020-02-29T00:00:00Z"),
    ("TZ=America/New_York 0 9 * * *", "2016-05-19T10:00:00Z", "2016-05-19T13:00:00Z"),
    ("@every 90s", "2016-05-19T10:00:00Z", "2016-05-19T10:01:30Z"),
])
def test_next_activation(spec, after, expected):
    assert format_time(parse_standard(spec).next(parse_time(after))) == expected


@pytest.mark.parametrize("spec,message", [
    ("x", "expected exactly 5 fields, found 1: [x]"),
    ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
    ("70 * * * *", "end of range (70) above maximum (59): 70"),
    ("* 24 * * *", "end of range (24) above maximum (23): 24"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("1/2/3 * * * *", "too many slashes: 1/2/3"),
    ("a * * * *", 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("@every x", 'failed to parse duration @every x: time: invalid duration "x"'),
    ("TZ=Mars/Olympus * * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"),
])
def test_bad_schedules(spec, message):
    with pytest.raises(CronError) as e:
        parse_standard(spec)
    assert str(e.value) == message


def active_job(name="mycronjob-24394200", uid="job-uid", finished=None) -> dict:
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": name, "namespace": "snazzycats", "uid": uid,
                        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "mycronjob",
                                             "uid": "cj-uid", "controller": True}]},
           "spec": {}, "status": {"startTime": format_time(TOP)}}
    if finished:
        job["status"]["conditions"] = [{"type": finished, "status": "True"}]
    return job


def sync(obj: dict, jobs: list[dict], now: float):
    changes = cjctl.sync(View({"CronJob": [obj], "Job": jobs}, now))
    creates = [c.obj["metadata"]["name"] for c in changes if c.op == "create"]
    deletes = [c.obj["metadata"]["name"] for c in changes if c.op == "delete"]
    reasons = [e.reason for c in changes for e in c.events]
    wakes = [c.at for c in changes if c.op == "wake"]
    return creates, deletes, reasons, wakes


SYNC = [
    # name, policy, suspend, has active job, deadline, now, creates, deletes, reasons
    ("never ran, not time, A", "Allow", False, False, None, TOP - 30 * M, [], [], []),
    ("never ran, is time, A", "Allow", False, False, None, TOP + 30, ["mycronjob-24394200"], [],
     ["SuccessfulCreate"]),
    ("never ran, is time, suspended", "Allow", True, False, None, TOP + 30, [], [], []),
    # shortDead is 10 s there: a schedule missed by more than the deadline is not started, and the
    # controller waits for the next one
    ("never ran, is time, past deadline", "Allow", False, False, 10, TOP + 60 + 11 * M, [], [], []),
    ("never ran, is time, not past deadline", "Allow", False, False, 100 * M, TOP + 60 + 11 * M,
     ["mycronjob-24394200"], [], ["SuccessfulCreate"]),
    ("prev ran but done, is time, F", "Forbid", False, False, None, TOP + 30, ["mycronjob-24394200"], [],
     ["SuccessfulCreate"]),
    ("still active, is time, A", "Allow", False, True, None, TOP + H + 30, ["mycronjob-24394260"], [],
     ["SuccessfulCreate"]),
    ("still active, is time, F", "Forbid", False, True, None, TOP + H + 30, [], [], ["JobAlreadyActive"]),
    ("still active, is time, R", "Replace", False, True, None, TOP + H + 30, ["mycronjob-24394260"],
     ["mycronjob-24394200"], ["SuccessfulDelete", "SuccessfulCreate"]),
]


@pytest.mark.parametrize("policy,suspend,has_active,deadline,now,creates,deletes,reasons",
                         [c[1:] for c in SYNC], ids=[c[0] for c in SYNC])
def test_sync_cronjob(policy, suspend, has_active, deadline, now, creates, deletes, reasons):
    obj = cj(created=TOP - H + 1, deadline=deadline, concurrencyPolicy=policy, suspend=suspend)
    jobs = []
    if has_active:
        obj["status"] = {"lastScheduleTime": format_time(TOP),
                         "active": [{"apiVersion": "batch/v1", "kind": "Job", "name": "mycronjob-24394200",
                                     "namespace": "snazzycats", "uid": "job-uid"}]}
        jobs = [active_job()]
    cjctl._RECORDED.clear()
    got_creates, got_deletes, got_reasons, wakes = sync(obj, jobs, now)
    assert (got_creates, got_deletes, got_reasons) == (creates, deletes, reasons)
    if not suspend:
        assert wakes and wakes[0] > now  # requeued for the next scheduled time


def test_the_created_job_is_named_and_annotated_after_its_scheduled_time():
    changes = cjctl.sync(View({"CronJob": [cj(created=TOP - H + 1, timeZone="America/New_York")], "Job": []},
                              TOP + 30))
    job = next(c.obj for c in changes if c.op == "create")
    assert job["metadata"]["name"] == "mycronjob-24394200"  # 2016-05-19T10:00:00Z in minutes
    assert job["metadata"]["annotations"] == {
        "batch.kubernetes.io/cronjob-scheduled-timestamp": "2016-05-19T06:00:00-04:00"}
    assert job["metadata"]["labels"] == {"a": "b"}
    status = next(c.obj["status"] for c in changes if c.op == "update_status")
    assert status["lastScheduleTime"] == "2016-05-19T10:00:00Z"
    assert [a["name"] for a in status["active"]] == ["mycronjob-24394200"]


def test_history_limits_delete_the_oldest_finished_jobs():
    obj = cj(created=TOP - H + 1, successfulJobsHistoryLimit=1, failedJobsHistoryLimit=0, last=TOP)
    jobs = [active_job(f"mycronjob-{i}", f"u{i}", "Complete") for i in (1, 2, 3)]
    jobs[0]["status"]["startTime"] = format_time(TOP - 3 * M)
    jobs[1]["status"]["startTime"] = format_time(TOP - 2 * M)
    jobs[2]["status"]["startTime"] = format_time(TOP - M)
    jobs.append(active_job("mycronjob-9", "u9", "Failed"))
    _, deletes, reasons, _ = sync(obj, jobs, TOP + 30)
    assert deletes == ["mycronjob-1", "mycronjob-2", "mycronjob-9"]
    assert reasons.count("SuccessfulDelete") == 3
