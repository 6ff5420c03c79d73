"""The CronJob controller: a Job from the job template at each scheduled time, the concurrency
policy, the history limits, and the CronJob's status.

Upstream: pkg/controller/cronjob/cronjob_controllerv2.go (sync, syncCronJob,
cleanupFinishedJobs, removeOldestJobs, deleteJob, formatSchedule, getJobName) and utils.go
(mostRecentScheduleTime, nextScheduleTime, nextScheduleTimeDuration, getJobFromTemplate2,
getTimeHashInMinutes, inActiveList, deleteFromActiveList, byJobStartTime); the schedule is
``kubesim.api.batch.cron``'s (robfig/cron v3).

One ``sync`` is one ``sync`` of every CronJob. Its requeue-after (the next scheduled time) is a
wake, so ``kubesim advance 10m`` stops at every scheduled time and each Job is created at its
own moment, in order. A Job is named ``<cronjob>-<scheduled time in minutes since the epoch>``
and carries the ``batch.kubernetes.io/cronjob-scheduled-timestamp`` annotation. kubesim's
``status.active`` references leave out the Job's resourceVersion.
"""

from __future__ import annotations

import datetime as _dt

from kubesim.api.batch.cron import CronError, load_location, parse_standard
from kubesim.api.meta.helpers import meta, name_of, new_controller_ref, uid_of
from kubesim.clock import format_time, parse_time
from kubesim.controllers.base import Change, Event, View, controller_ref, deepcopy

COMPONENT = "cronjob-controller"
SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
MANY_MISSED = 100


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for cj in view.list("CronJob"):
        changes.extend(sync_cronjob(view, cj))
    return changes


def _condition_true(job: dict, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def finished_status(job: dict) -> str | None:
    """getFinishedStatus: Complete or Failed, or None while the Job runs."""
    for c in (job.get("status") or {}).get("conditions") or ():
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return c["type"]
    return None


def job_name(cj: dict, scheduled: float) -> str:
    """getJobName: ``<cronjob>-<minutes since the epoch>``."""
    return f"{name_of(cj)}-{int(scheduled) // 60}"


def most_recent_schedule_time(cj: dict, now: float, schedule, include_deadline: bool,
                              zone: str | None) -> tuple[float, float | None, int]:
    """mostRecentScheduleTime: (earliest time considered, the most recent scheduled time not
    after now or None, how many were missed: 0 none, 1 a few, 2 more than 100)."""
    earliest = parse_time(meta(cj)["creationTimestamp"]) if meta(cj).get("creationTimestamp") else now
    last = (cj.get("status") or {}).get("lastScheduleTime")
    if last:
        earliest = parse_time(last)
    deadline = (cj.get("spec") or {}).get("startingDeadlineSeconds")
    if include_deadline and deadline is not None:
        earliest = max(earliest, now - int(deadline))
    t1 = schedule.next(earliest, zone)
    if t1 is None:  # no activation within five years: Go's zero times, 0 s apart
        raise CronError("time difference between two schedules is less than 1 second")
    if now < t1:
        return earliest, None, 0
    t2 = schedule.next(t1, zone)
    if t2 is None or now < t2:
        return earliest, t1, 0
    between = round(t2 - t1)
    if between < 1:
        raise CronError("time difference between two schedules is less than 1 second")
    missed = int(now - t1) // between + 1
    most_recent = None
    t = schedule.next(t1 + (missed - 2) * between, zone) if missed >= 2 else t1
    while t is not None and t <= now:
        most_recent = t
        t = schedule.next(t, zone)
    return earliest, most_recent, 2 if missed > MANY_MISSED else 1


def next_schedule_wake(cj: dict, now: float, schedule, zone: str | None) -> float | None:
    """nextScheduleTimeDuration, as the time to be woken (without its 100 ms delta)."""
    try:
        earliest, most_recent, missed = most_recent_schedule_time(cj, now, schedule, False, zone)
    except CronError:
        most_recent = now
    else:
        if most_recent is None:
            most_recent = earliest if missed == 0 else now
    return schedule.next(most_recent, zone)


def _schedule_text(cj: dict) -> str:
    return (cj.get("spec") or {}).get("schedule") or ""


def _time_in_zone(t: float, zone: str | None) -> str:
    """``t.In(loc).Format(time.RFC3339)``."""
    if not zone or zone == "UTC":
        return format_time(t)
    import zoneinfo

    d = _dt.datetime.fromtimestamp(int(t), zoneinfo.ZoneInfo(zone))
    text = d.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def job_from_template(cj: dict, scheduled: float) -> dict:
    """getJobFromTemplate2."""
    template = (cj.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    annotations = dict(tmeta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = _time_in_zone(scheduled, (cj.get("spec") or {}).get("timeZone"))
    md: dict = {"name": job_name(cj, scheduled), "namespace": meta(cj).get("namespace", "")}
    if tmeta.get("labels"):
        md["labels"] = dict(tmeta["labels"])
    md["annotations"] = annotations
    md["ownerReferences"] = [new_controller_ref(cj)]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": md, "spec": deepcopy(template.get("spec") or {})}


def _ref(job: dict) -> dict:
    md = meta(job)
    ref = {"apiVersion": "batch/v1", "kind": "Job", "name": md.get("name", ""), "namespace": md.get("namespace", "")}
    if md.get("uid"):
        ref["uid"] = md["uid"]
    return ref


def _start_key(job: dict):
    start = (job.get("status") or {}).get("startTime")
    return (start is None, parse_time(start) if start else 0.0, name_of(job))


def sync_cronjob(view: View, cj: dict) -> list[Change]:
    changes: list[Change] = []
    spec = cj.get("spec") or {}
    status = deepcopy(cj.get("status") or {})
    active = list(status.get("active") or [])
    ns = meta(cj).get("namespace", "")
    jobs = [j for j in view.list("Job", ns) if (controller_ref(j) or {}).get("uid") == uid_of(cj)]
    events: list[Event] = []
    # a reference written with the Job's create has its uid once the Job is seen (the API server
    # assigns it; upstream reads it from the create's response)
    for i, a in enumerate(active):
        if not a.get("uid"):
            j = view.get("Job", a.get("namespace") or ns, a.get("name", ""))
            if j is not None:
                active[i] = _ref(j)

    def ev(type_: str, reason: str, message: str) -> None:
        events.append(Event(cj, type_, reason, message, COMPONENT))

    deleted: set[str] = set()

    # cleanupFinishedJobs
    for kind, limit in (("Complete", spec.get("successfulJobsHistoryLimit")),
                        ("Failed", spec.get("failedJobsHistoryLimit"))):
        if limit is None:
            continue
        done = sorted((j for j in jobs if finished_status(j) == kind), key=_start_key)
        for j in done[:max(0, len(done) - int(limit))]:
            changes.append(Change("delete", j, propagation="Background"))
            deleted.add(uid_of(j))
            active = [a for a in active if a.get("uid") != uid_of(j)]
            ev("Normal", "SuccessfulDelete", f"Deleted job {name_of(j)}")

    # syncCronJob: the active list against the Jobs
    children = {uid_of(j) for j in jobs}
    active_uids = {a.get("uid") for a in active}
    for j in jobs:
        state = finished_status(j)
        if uid_of(j) not in active_uids and state is None:
            ev("Warning", "UnexpectedJob", f"Saw a job that the controller did not create or forgot: {name_of(j)}")
        elif state is not None:
            if uid_of(j) in active_uids:
                active = [a for a in active if a.get("uid") != uid_of(j)]
                ev("Normal", "SawCompletedJob", f"Saw completed job: {name_of(j)}, condition: {state}")
            if state == "Complete":
                done_at = (j.get("status") or {}).get("completionTime")
                last = status.get("lastSuccessfulTime")
                if done_at and (last is None or parse_time(done_at) > parse_time(last)):
                    status["lastSuccessfulTime"] = done_at
    for a in list(active):
        if a.get("uid") in children or a.get("uid") in deleted:
            continue
        if view.get("Job", a.get("namespace") or ns, a.get("name", "")) is None:
            ev("Normal", "MissingJob", f"Active job went missing: {a.get('name', '')}")
            active = [x for x in active if x.get("uid") != a.get("uid")]

    wake = None
    saved: dict = {}

    def before_create(key: tuple[str, str, str]) -> None:
        # what syncCronJob's copy holds when CreateJob fails: it returns then, and the status
        # written is the one without this job (nor its lastScheduleTime and event)
        saved.update(key=key, status=deepcopy(status), active=list(active), events=len(events))

    if not meta(cj).get("deletionTimestamp"):
        wake = _schedule(view, cj, spec, status, active, jobs, deleted, changes, ev, before_create)

    write = _status_write(view, cj, status, active, events)
    if write is not None:
        if saved:
            write.needs = (saved["key"],)
            write.otherwise = _status_write(view, cj, saved["status"], saved["active"], events[:saved["events"]])
        changes.append(write)
    if wake is not None:
        # (a refused create requeues with back-off alone: the next schedule waits for it)
        changes.append(Change("wake", cj, at=wake, needs=(saved["key"],) if saved else ()))
    return changes


def _status_write(view: View, cj: dict, status: dict, active: list[dict], events: list) -> Change | None:
    """The status update (with the sync's events), or the events alone when the status is as
    stored (a write would wake the controller again at once), or None."""
    status = dict(status)
    if active:
        status["active"] = active
    else:
        status.pop("active", None)
    if status != (cj.get("status") or {}):
        updated = deepcopy(cj)
        updated["status"] = status
        return Change("update_status", updated, list(events))
    fresh = [e for e in events if _first_time(cj, e, view.now)]
    return Change("event", cj, fresh) if fresh else None


def _schedule(view: View, cj: dict, spec: dict, status: dict, active: list[dict], jobs: list[dict],
              deleted: set[str], changes: list[Change], ev, before_create=None) -> float | None:
    """The scheduling half of syncCronJob; returns when to be woken, or None."""
    now = view.now
    zone = spec.get("timeZone")
    if zone is not None:
        try:
            load_location(zone)
        except CronError as e:
            ev("Warning", "UnknownTimeZone", f'invalid timeZone: "{zone}": {e}')
            return None
    if spec.get("suspend") is True:
        return None
    text = _schedule_text(cj)
    if "TZ" in text:
        ev("Warning", "UnsupportedSchedule", f'CRON_TZ or TZ used in schedule "{text}" is not officially supported, '
                                             "see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ "
                                             "for more details")
    try:
        schedule = parse_standard(text)
    except CronError as e:
        ev("Warning", "UnparseableSchedule", f'unparseable schedule: "{text}" : {e}')
        return None
    try:
        _, scheduled, missed = most_recent_schedule_time({**cj, "status": status}, now, schedule, True, zone)
    except CronError as e:
        ev("Warning", "InvalidSchedule", f"invalid schedule: {text} : {e}")
        return None
    view_cj = {**cj, "status": status}
    if scheduled is None or scheduled > now:
        return next_schedule_wake(view_cj, now, schedule, zone)
    if missed == 2:
        ev("Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                                            "or check clock skew")
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None and scheduled + int(deadline) < now:
        ev("Warning", "MissSchedule", f"Missed scheduled time to start a job: {_rfc1123z_utc(scheduled)}")
        return next_schedule_wake(view_cj, now, schedule, zone)
    name = job_name(cj, scheduled)
    last = status.get("lastScheduleTime")
    if any(a.get("name") == name for a in active) or (last and parse_time(last) == scheduled):
        return next_schedule_wake(view_cj, now, schedule, zone)
    policy = spec.get("concurrencyPolicy") or "Allow"
    if policy == "Forbid" and active:
        ev("Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy "
                                         "is Forbid")
        return next_schedule_wake(view_cj, now, schedule, zone)
    if policy == "Replace":
        for a in list(active):
            job = view.get("Job", a.get("namespace") or "", a.get("name", ""))
            if job is None:
                continue
            changes.append(Change("delete", job, propagation="Background"))
            active[:] = [x for x in active if x.get("uid") != a.get("uid")]
            ev("Normal", "SuccessfulDelete", f"Deleted job {name_of(job)}")
    existing = view.get("Job", meta(cj).get("namespace", ""), name)
    if existing is not None and uid_of(existing) not in deleted:
        if (controller_ref(existing) or {}).get("uid") != uid_of(cj) or \
                any(a.get("uid") == uid_of(existing) for a in active):
            return None
        job = existing
    else:
        job = job_from_template(cj, scheduled)
        if before_create is not None:
            before_create(("Job", meta(job).get("namespace", ""), name_of(job)))
        # cronjob_controllerv2.go syncCronJob: a refused create's event
        changes.append(Change("create", job, failure="Error creating job: {error}"))
        ev("Normal", "SuccessfulCreate", f"Created job {name}")
    active.append(_ref(job))
    status["lastScheduleTime"] = format_time(scheduled)
    return next_schedule_wake({**cj, "status": status}, now, schedule, zone)


# Events a sync repeats while nothing changes (JobAlreadyActive, MissSchedule, UnexpectedJob, ...)
# are recorded once per CronJob and moment: upstream syncs once per watch event or requeue, while
# kubesim's settle loop may run the controller several times at one moment before it is at rest.
_RECORDED: set[tuple[str, str, str, float]] = set()


def _first_time(cj: dict, event: Event, now: float) -> bool:
    key = (uid_of(cj), event.reason, event.message, now)
    if key in _RECORDED:
        return False
    if len(_RECORDED) > 10000:
        _RECORDED.clear()
    _RECORDED.add(key)
    return True


def _rfc1123z_utc(t: float) -> str:
    """``t.UTC().Format(time.RFC1123Z)``."""
    d = _dt.datetime.fromtimestamp(int(t), _dt.UTC)
    return d.strftime("%a, %d %b %Y %H:%M:%S +0000")
