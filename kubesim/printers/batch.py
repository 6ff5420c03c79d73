"""kubectl's table columns and rows for batch/v1's Job and CronJob.

Upstream: pkg/printers/internalversion/printers.go: ``printJob`` (COMPLETIONS ``succeeded/
completions``, or ``succeeded/1 [of parallelism]`` without completions; DURATION from
startTime to completionTime, or to now while running; STATUS from the conditions, in
``printJob``'s order) and ``printCronJob`` (TIMEZONE, SUSPEND as ``printBoolPtr``, ACTIVE, LAST
SCHEDULE), with ``layoutContainerCells`` and ``metav1.FormatLabelSelector``.
"""

from __future__ import annotations

from kubesim.printers.age import (
    human_duration,
    parse_timestamp,
    translate_timestamp_since,
)
from kubesim.printers.apps import format_label_selector
from kubesim.printers.tables import NONE, Column, PrintContext, age, object_meta


def _containers(template: dict | None) -> tuple[str, str]:
    containers = (((template or {}).get("spec") or {}).get("containers")) or []
    return (",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers))


def has_job_condition(job: dict, type_: str) -> bool:
    """hasJobCondition: a condition of the type with status True."""
    return any(c.get("type") == type_ and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def job_status(job: dict) -> str:
    if has_job_condition(job, "Complete"):
        return "Complete"
    if has_job_condition(job, "Failed"):
        return "Failed"
    if object_meta(job).get("deletionTimestamp"):
        return "Terminating"
    for type_ in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if has_job_condition(job, type_):
            return type_
    return "Running"


def job_completions(job: dict) -> str:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        return f"{succeeded}/{spec['completions']}"
    parallelism = int(spec.get("parallelism") or 0)
    if parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def job_duration(job: dict, now: float) -> str:
    status = job.get("status") or {}
    start = parse_timestamp(status.get("startTime"))
    if start is None:
        return ""
    end = parse_timestamp(status.get("completionTime"))
    return human_duration((now if end is None else end) - start)


def print_job(job: dict, ctx: PrintContext) -> list[str]:
    names, images = _containers((job.get("spec") or {}).get("template"))
    return [object_meta(job).get("name", ""), job_status(job), job_completions(job), job_duration(job, ctx.now),
            age(job, ctx), names, images, format_label_selector((job.get("spec") or {}).get("selector"))]


JOB_COLUMNS = [
    Column("Name", format="name"), Column("Status"), Column("Completions"), Column("Duration"), Column("Age"),
    Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]


def print_cronjob(cj: dict, ctx: PrintContext) -> list[str]:
    spec, status = cj.get("spec") or {}, cj.get("status") or {}
    last = status.get("lastScheduleTime")
    last_cell = translate_timestamp_since(last, ctx.now) if last else NONE
    tz = spec.get("timeZone")
    suspend = spec.get("suspend")
    suspend_cell = "<unset>" if suspend is None else ("True" if suspend else "False")
    jspec = (spec.get("jobTemplate") or {}).get("spec") or {}
    names, images = _containers(jspec.get("template"))
    return [object_meta(cj).get("name", ""), spec.get("schedule", ""), NONE if tz is None else tz, suspend_cell,
            str(len(status.get("active") or [])), last_cell, age(cj, ctx), names, images,
            format_label_selector(jspec.get("selector"))]


CRONJOB_COLUMNS = [
    Column("Name", format="name"), Column("Schedule"), Column("Timezone"), Column("Suspend"), Column("Active"),
    Column("Last Schedule"), Column("Age"), Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]
