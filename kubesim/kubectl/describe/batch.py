"""describe for batch/v1: Job and CronJob.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describeJob``,
``capIndexesListOrNone``, ``describeCronJob``, ``describeJobTemplate``, ``printActiveJobs``,
``DescribePodTemplate``). A selector that does not convert prints kubectl's ``Failed to get
selector`` line.
"""

from __future__ import annotations

from kubesim.kubectl.describe.apps import describe_pod_template
from kubesim.kubectl.describe.core import controlled_by
from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_rfc1123z,
    go_bool,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)
from kubesim.printers.age import human_duration, parse_timestamp


def _selector_line(selector: dict | None) -> str:
    from kubesim.api.selectors import from_label_selector

    try:
        return f"Selector:\t{from_label_selector(selector)}\n"
    except ValueError as e:
        return f"Selector:\tFailed to get selector: {e}\n"


def cap_indexes_list_or_none(indexes: str | None, soft_limit: int) -> str:
    """capIndexesListOrNone: the list cut after the first comma at or past ``soft_limit``."""
    if not indexes:
        return "<none>"
    ix = soft_limit
    while ix < len(indexes) and indexes[ix] != ",":
        ix += 1
    if ix >= len(indexes):
        return indexes
    return indexes[:ix + 1] + "..."


def describe_job(job: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(job), job.get("spec") or {}, job.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, _selector_line(spec.get("selector")))
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    controller = controlled_by(job)
    if controller:
        w.write(LEVEL_0, f"Controlled By:\t{controller}\n")
    if spec.get("parallelism") is not None:
        w.write(LEVEL_0, f"Parallelism:\t{spec['parallelism']}\n")
    completions = spec.get("completions")
    w.write(LEVEL_0, f"Completions:\t{'<unset>' if completions is None else completions}\n")
    if spec.get("completionMode") is not None:
        w.write(LEVEL_0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(LEVEL_0, f"Suspend:\t{go_bool(spec['suspend'])}\n")
    if spec.get("backoffLimit") is not None:
        w.write(LEVEL_0, f"Backoff Limit:\t{spec['backoffLimit']}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(LEVEL_0, f"TTL Seconds After Finished:\t{spec['ttlSecondsAfterFinished']}\n")
    start, done = status.get("startTime"), status.get("completionTime")
    if start:
        w.write(LEVEL_0, f"Start Time:\t{format_rfc1123z(start)}\n")
    if done:
        w.write(LEVEL_0, f"Completed At:\t{format_rfc1123z(done)}\n")
    if start and done:
        w.write(LEVEL_0, f"Duration:\t{human_duration(parse_timestamp(done) - parse_timestamp(start))}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(LEVEL_0, f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s\n")
    active, succeeded, failed = (int(status.get(k) or 0) for k in ("active", "succeeded", "failed"))
    if status.get("ready") is None:
        w.write(LEVEL_0, f"Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n")
    else:
        w.write(LEVEL_0, f"Pods Statuses:\t{active} Active ({status['ready']} Ready) / {succeeded} Succeeded / "
                         f"{failed} Failed\n")
    if spec.get("completionMode") == "Indexed":
        w.write(LEVEL_0, f"Completed Indexes:\t{cap_indexes_list_or_none(status.get('completedIndexes'), 50)}\n")
    describe_pod_template(spec.get("template") or {}, w)
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def _unset_or(value, suffix: str = "") -> str:
    return "<unset>" if value is None else f"{value}{suffix}"


def describe_job_template(template: dict, w: PrefixWriter) -> None:
    """describeJobTemplate."""
    spec = template.get("spec") or {}
    if spec.get("selector") is not None:
        w.write(LEVEL_0, _selector_line(spec["selector"]))
    else:
        w.write(LEVEL_0, "Selector:\t<unset>\n")
    w.write(LEVEL_0, f"Parallelism:\t{_unset_or(spec.get('parallelism'))}\n")
    w.write(LEVEL_0, f"Completions:\t{_unset_or(spec.get('completions'))}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(LEVEL_0, f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s\n")
    describe_pod_template(spec.get("template") or {}, w)


def describe_cronjob(cj: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(cj), cj.get("spec") or {}, cj.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Schedule:\t{spec.get('schedule', '')}\n")
    w.write(LEVEL_0, f"Concurrency Policy:\t{spec.get('concurrencyPolicy', '')}\n")
    suspend = spec.get("suspend")
    w.write(LEVEL_0, f"Suspend:\t{'<unset>' if suspend is None else ('True' if suspend else 'False')}\n")
    w.write(LEVEL_0, f"Time Zone:\t{_unset_or(spec.get('timeZone'))}\n")
    w.write(LEVEL_0, f"Successful Job History Limit:\t{_unset_or(spec.get('successfulJobsHistoryLimit'))}\n")
    w.write(LEVEL_0, f"Failed Job History Limit:\t{_unset_or(spec.get('failedJobsHistoryLimit'))}\n")
    w.write(LEVEL_0, f"Starting Deadline Seconds:\t{_unset_or(spec.get('startingDeadlineSeconds'), 's')}\n")
    describe_job_template(spec.get("jobTemplate") or {}, w)
    last = status.get("lastScheduleTime")
    w.write(LEVEL_0, f"Last Schedule Time:\t{format_rfc1123z(last) if last else '<unset>'}\n")
    active = status.get("active") or []
    w.write(LEVEL_0, "Active Jobs:\t")
    w.write_line(", ".join(a.get("name", "") for a in active) if active else "<none>")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
