"""The Job controller: pods toward completions, failures toward the backoff limit, and the
Job's status and conditions.

Upstream: pkg/controller/job/job_controller.go (syncJob, manageJob, deleteActivePods,
activePodsForRemoval, trackJobStatusAndRemoveFinalizers, canRemoveFinalizer, enactJobFinished,
recordJobFinished, pastBackoffLimitOnFailure, pastActiveDeadline, getFailJobMessage, isPodFailed,
trackTerminatingPods, onlyReplaceFailedPods), backoff_utils.go (newBackoffRecord,
getRemainingTimeForFailuresCount, getFinishedTime), indexed_job_utils.go (calculateSucceeded
Indexes, firstPendingIndexes, appendDuplicatedIndexPodsForRemoval, the completion index
annotation/label/env/hostname, podGenerateNameWithIndex, backoffLimitPerIndex's failed indexes
and failure-count annotations), pod_failure_policy.go (matchPodFailurePolicy) and
success_policy.go (matchSuccessPolicy).

One ``sync`` is one syncJob over every unfinished Job. Pods carry the
``batch.kubernetes.io/job-tracking`` finalizer while the controller has not counted them; a
finished pod is counted and its finalizer removed in the same pass (upstream does it in two
status writes through ``uncountedTerminatedPods``, which kubesim's single-pass settle shows
empty). With JobManagedBy and JobPodReplacementPolicy on (v1.35) the terminal condition is
delayed: ``SuccessCriteriaMet`` / ``FailureTarget`` first, ``Complete`` / ``Failed`` once no
pod is terminating.

The pod-failure back-off (10 s, doubled per failure since the last success, at most 6 min)
is a requeue-after: a ``wake`` at the moment the next pod may be created. Upstream keeps its
back-off record in memory; kubesim derives it from the Job's finished pods, which stay until
the Job goes. The active deadline is a wake too.
"""

from __future__ import annotations

import copy

from kubesim.api.meta.helpers import labels_of, meta, name_of, selector_of, uid_of
from kubesim.clock import format_time, parse_time
from kubesim.controllers.base import (
    Change,
    Event,
    View,
    active_pods_less,
    deepcopy,
    is_pod_active,
    is_pod_ready,
    is_pod_terminating,
    pod_from_template,
)

COMPONENT = "job-controller"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
DEFAULT_BACKOFF = 10.0   # DefaultJobPodFailureBackOff
MAX_BACKOFF = 360.0      # MaxJobPodFailureBackOff
MAX_POD_CREATE_DELETE_PER_SYNC = 500
MAX_GENERATED_NAME_LENGTH = 58

# reasons and messages, in upstream's words
REASON_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded"
REASON_DEADLINE_EXCEEDED = "DeadlineExceeded"
REASON_POD_FAILURE_POLICY = "PodFailurePolicy"
REASON_COMPLETIONS_REACHED = "CompletionsReached"
REASON_SUCCESS_POLICY = "SuccessPolicy"
REASON_FAILED_INDEXES = "FailedIndexes"
REASON_MAX_FAILED_INDEXES_EXCEEDED = "MaxFailedIndexesExceeded"
MSG_BACKOFF_LIMIT = "Job has reached the specified backoff limit"
MSG_DEADLINE = "Job was active longer than specified deadline"
MSG_COMPLETIONS_REACHED = "Reached expected number of succeeded pods"
MSG_SUCCESS_POLICY = "Matched rules at index"
MSG_FAILED_INDEXES = "Job has failed indexes"
MSG_MAX_FAILED_INDEXES = "Job has exceeded the specified maximal number of failed indexes"


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for job in view.list("Job"):
        changes.extend(sync_job(view, job))
    return changes


# ---------------------------------------------------------------------------------------------
# small predicates


def is_finished(job: dict) -> bool:
    """util.IsJobFinished: a Complete or Failed condition that is True."""
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def _condition(job: dict, type_: str) -> dict | None:
    return next((c for c in (job.get("status") or {}).get("conditions") or () if c.get("type") == type_), None)


def is_indexed(job: dict) -> bool:
    return (job.get("spec") or {}).get("completionMode") == "Indexed"


def has_backoff_limit_per_index(job: dict) -> bool:
    return is_indexed(job) and (job.get("spec") or {}).get("backoffLimitPerIndex") is not None


def suspended(job: dict) -> bool:
    return (job.get("spec") or {}).get("suspend") is True


def only_replace_failed_pods(job: dict) -> bool:
    """onlyReplaceFailedPods."""
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def has_tracking_finalizer(pod: dict) -> bool:
    return JOB_TRACKING_FINALIZER in (meta(pod).get("finalizers") or ())


def is_pod_failed(pod: dict, job: dict) -> bool:
    """isPodFailed: Failed, or (unless only failed pods are replaced) being deleted before it
    succeeded."""
    if phase(pod) == "Failed":
        return True
    if only_replace_failed_pods(job):
        return False
    return bool(meta(pod).get("deletionTimestamp")) and phase(pod) != "Succeeded"


def completion_index(pod: dict) -> int:
    """getCompletionIndex: -1 when unknown."""
    v = (meta(pod).get("annotations") or {}).get(COMPLETION_INDEX_ANNOTATION)
    try:
        i = int(v) if v is not None and v.strip() == v else -1
    except ValueError:
        return -1
    return i if i >= 0 else -1


def new_condition(type_: str, reason: str, message: str, now: float) -> dict:
    stamp = format_time(now)
    return {"lastProbeTime": stamp, "lastTransitionTime": stamp, "message": message, "reason": reason,
            "status": "True", "type": type_}


def ensure_condition(conditions: list[dict], type_: str, status: str, reason: str, message: str,
                     now: float) -> tuple[list[dict], bool]:
    """ensureJobConditionStatus."""
    for i, c in enumerate(conditions):
        if c.get("type") != type_:
            continue
        if c.get("status") == status and c.get("reason") == reason and c.get("message") == message:
            return conditions, False
        out = list(conditions)
        new = dict(c, status=status, reason=reason, message=message, lastProbeTime=format_time(now))
        if c.get("status") != status:
            new["lastTransitionTime"] = format_time(now)
        out[i] = new
        return out, True
    if status == "False":
        return conditions, False
    return conditions + [new_condition(type_, reason, message, now)], True


# ---------------------------------------------------------------------------------------------
# pod failure policy (pod_failure_policy.go)


def _terminated_statuses(pod: dict, container: str | None):
    status = pod.get("status") or {}
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if container is not None and cs.get("name") != container:
            continue
        term = (cs.get("state") or {}).get("terminated")
        if term is not None:
            yield cs, term


def _match_on_exit_codes(pod: dict, req: dict):
    values = set(req.get("values") or ())
    op = req.get("operator")
    for cs, term in _terminated_statuses(pod, req.get("containerName")):
        code = int(term.get("exitCode") or 0)
        if code == 0:
            continue
        if (op == "In" and code in values) or (op == "NotIn" and code not in values):
            return cs, code
    return None


def _match_on_pod_conditions(pod: dict, patterns: list[dict]):
    for c in (pod.get("status") or {}).get("conditions") or ():
        for p in patterns:
            if c.get("type") == p.get("type") and c.get("status") == (p.get("status") or "True"):
                return c
    return None


def match_pod_failure_policy(policy: dict | None, pod: dict) -> tuple[str | None, bool, str | None]:
    """matchPodFailurePolicy: (the FailJob message, whether the failure counts, the action)."""
    if policy is None:
        return None, True, None
    md = meta(pod)
    for index, rule in enumerate(policy.get("rules") or ()):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            hit = _match_on_exit_codes(pod, rule["onExitCodes"])
            if hit is None:
                continue
            if action == "FailJob":
                return (f"Container {hit[0].get('name')} for pod {md.get('namespace')}/{md.get('name')} failed with "
                        f"exit code {hit[1]} matching FailJob rule at index {index}"), True, action
        elif rule.get("onPodConditions") is not None:
            hit = _match_on_pod_conditions(pod, rule["onPodConditions"])
            if hit is None:
                continue
            if action == "FailJob":
                return (f"Pod {md.get('namespace')}/{md.get('name')} has condition {hit.get('type')} matching "
                        f"FailJob rule at index {index}"), True, action
        else:
            continue
        if action == "Ignore":
            return None, False, action
        if action in ("FailIndex", "Count"):
            return None, True, action
    return None, True, None


# ---------------------------------------------------------------------------------------------
# finish times and the back-off (backoff_utils.go)


def finished_time(pod: dict) -> float:
    """getFinishedTime: the latest container finishedAt, else the Ready=False transition, else
    the deletion time less its grace period, else the creation time."""
    latest = None
    for cs in (pod.get("status") or {}).get("containerStatuses") or ():
        term = (cs.get("state") or {}).get("terminated") or {}
        if term.get("finishedAt"):
            t = parse_time(term["finishedAt"])
            if latest is None or t > latest:
                latest = t
    if latest is not None:
        return latest
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "Ready" and c.get("status") == "False" and c.get("lastTransitionTime"):
            return parse_time(c["lastTransitionTime"])
    md = meta(pod)
    if md.get("deletionTimestamp"):
        return parse_time(md["deletionTimestamp"]) - int(md.get("deletionGracePeriodSeconds") or 0)
    return parse_time(md["creationTimestamp"]) if md.get("creationTimestamp") else 0.0


def backoff_record(job: dict, pods: list[dict]) -> tuple[int, float | None]:
    """(failuresAfterLastSuccess, lastFailureTime) of the Job's finished pods."""
    succeeded = [finished_time(p) for p in pods if phase(p) == "Succeeded"]
    failed = sorted(finished_time(p) for p in pods if is_pod_failed(p, job)
                    and match_pod_failure_policy((job.get("spec") or {}).get("podFailurePolicy"), p)[1])
    last_success = max(succeeded) if succeeded else None
    after = [t for t in failed if last_success is None or t > last_success]
    return len(after), (max(after) if after else None)


def remaining_backoff(failures: int, last_failure: float | None, now: float,
                      default: float = DEFAULT_BACKOFF, maximum: float = MAX_BACKOFF) -> float:
    """getRemainingTimeForFailuresCount: 10 s, doubling per failure, capped at 6 min, less the
    time since the last failure."""
    if failures == 0 or last_failure is None:
        return 0.0
    duration = default
    for _ in range(1, failures):
        duration *= 2
        if duration >= maximum:
            duration = maximum
            break
    elapsed = now - last_failure
    if duration < elapsed:
        return 0.0
    return duration - elapsed


# ---------------------------------------------------------------------------------------------
# ordered intervals of indexes (indexed_job_utils.go)


def parse_indexes(text: str | None, completions: int) -> list[int]:
    out: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        try:
            x, y = int(a), int(b or a)
        except ValueError:
            continue
        out.update(i for i in range(x, y + 1) if i < completions)
    return sorted(out)


def format_indexes(indexes) -> str:
    """orderedIntervals.String: ``1,3-5,7`` (a pair of neighbours as ``1,2``)."""
    items = sorted(set(indexes))
    parts, i = [], 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        if j == i:
            parts.append(str(items[i]))
        elif j == i + 1:
            parts += [str(items[i]), str(items[j])]
        else:
            parts.append(f"{items[i]}-{items[j]}")
        i = j + 1
    return ",".join(parts)


def _index_failure_counts(pod: dict) -> tuple[int, int]:
    ann = meta(pod).get("annotations") or {}

    def num(key: str) -> int:
        try:
            v = int(ann.get(key, "0"))
        except ValueError:
            return 0
        return v if 0 <= v < 2**31 else 0

    return num(INDEX_FAILURE_COUNT_ANNOTATION), num(INDEX_IGNORED_FAILURE_COUNT_ANNOTATION)


def new_index_failure_counts(job: dict, replaced: dict | None) -> tuple[int, int]:
    """getNewIndexFailureCounts: the failure counts the replacement of ``replaced`` carries."""
    if replaced is None:
        return 0, 0
    failures, ignored = _index_failure_counts(replaced)
    _, count_failed, action = match_pod_failure_policy((job.get("spec") or {}).get("podFailurePolicy"), replaced)
    if count_failed:
        failures += 1
    elif action == "Ignore":
        ignored += 1
    return failures, ignored


def is_index_failed(job: dict, pod: dict) -> bool:
    """isIndexFailed: a FailIndex rule matched, or the index's failures reached its limit."""
    _, count_failed, action = match_pod_failure_policy((job.get("spec") or {}).get("podFailurePolicy"), pod)
    if action == "FailIndex":
        return True
    failures, _ = _index_failure_counts(pod)
    return count_failed and failures >= int((job.get("spec") or {}).get("backoffLimitPerIndex") or 0)


# ---------------------------------------------------------------------------------------------
# syncJob


def sync_job(view: View, job: dict) -> list[Change]:
    if is_finished(job):
        return []
    spec = job.get("spec") or {}
    if spec.get("managedBy") not in (None, "kubernetes.io/job-controller"):
        return []
    changes: list[Change] = []
    now = view.now
    selector = selector_of(job)
    pods = sorted((p for p in view.owned_by("Pod", uid_of(job)) if selector.matches(labels_of(p))),
                  key=lambda p: (p["metadata"].get("creationTimestamp") or "", name_of(p)))
    status = deepcopy(job.get("status") or {})
    old_status = job.get("status") or {}
    indexed = is_indexed(job)
    completions = spec.get("completions")
    pfp = spec.get("podFailurePolicy")
    active_pods = [p for p in pods if is_pod_active(p)]
    ready = sum(1 for p in active_pods if is_pod_ready(p))
    terminating = sum(1 for p in pods if is_pod_terminating(p))

    def valid_index(p: dict) -> bool:
        ix = completion_index(p)
        return not indexed or (ix != -1 and ix < int(completions or 0))

    new_succeeded = [p for p in pods if has_tracking_finalizer(p) and phase(p) == "Succeeded" and valid_index(p)]
    new_failed = [p for p in pods if has_tracking_finalizer(p) and is_pod_failed(p, job) and valid_index(p)]
    counted_failed = [p for p in new_failed if match_pod_failure_policy(pfp, p)[1]]
    succeeded = int(status.get("succeeded") or 0) + len(new_succeeded)
    failed = int(status.get("failed") or 0) + len(counted_failed)
    if not status.get("startTime") and not suspended(job):
        status["startTime"] = format_time(now)

    finished: dict | None = None
    sc = _condition(job, "SuccessCriteriaMet")
    if sc is not None and sc.get("status") == "True":
        finished = sc
    if finished is None:
        ft = _condition(job, "FailureTarget")
        if ft is not None and ft.get("status") == "True":
            finished = new_condition("Failed", ft.get("reason", ""), ft.get("message", ""), now)
        elif pfp is not None:
            for p in pods:
                if is_pod_failed(p, job):
                    msg = match_pod_failure_policy(pfp, p)[0]
                    if msg is not None:
                        finished = new_condition("FailureTarget", REASON_POD_FAILURE_POLICY, msg, now)
                        break
    ads = spec.get("activeDeadlineSeconds")
    if finished is None:
        if failed > int(spec.get("backoffLimit") or 0) or past_backoff_limit_on_failure(job, pods):
            finished = new_condition("FailureTarget", REASON_BACKOFF_LIMIT_EXCEEDED, MSG_BACKOFF_LIMIT, now)
        elif ads is not None and status.get("startTime") and not suspended(job):
            deadline = parse_time(status["startTime"]) + int(ads)
            if now >= deadline:
                finished = new_condition("FailureTarget", REASON_DEADLINE_EXCEEDED, MSG_DEADLINE, now)
            else:
                changes.append(Change("wake", job, at=deadline))

    succeeded_indexes: list[int] = []
    failed_indexes: list[int] | None = None
    delayed: dict[int, dict] = {}
    if indexed:
        n = int(completions or 0)
        prev = parse_indexes(old_status.get("completedIndexes"), n)
        succeeded_indexes = sorted(set(prev) | {completion_index(p) for p in new_succeeded})
        succeeded = len(succeeded_indexes)
        if has_backoff_limit_per_index(job):
            failed_indexes = sorted(set(parse_indexes(old_status.get("failedIndexes"), n)) |
                                    {completion_index(p) for p in new_failed if is_index_failed(job, p)})
            if finished is None:
                mfi = spec.get("maxFailedIndexes")
                if mfi is not None and len(failed_indexes) > int(mfi):
                    finished = new_condition("FailureTarget", REASON_MAX_FAILED_INDEXES_EXCEEDED,
                                             MSG_MAX_FAILED_INDEXES, now)
                elif failed_indexes and len(failed_indexes) + len(succeeded_indexes) >= n:
                    finished = new_condition("FailureTarget", REASON_FAILED_INDEXES, MSG_FAILED_INDEXES, now)
            delayed = _pods_with_delayed_deletion_per_index(job, pods, failed_indexes, succeeded_indexes)
        if finished is None:
            met = match_success_policy(spec.get("successPolicy"), n, succeeded_indexes)
            if met is not None:
                finished = new_condition("SuccessCriteriaMet", REASON_SUCCESS_POLICY, met, now)

    active = len(active_pods)
    suspend_changed = False
    if finished is not None:
        for pod in active_pods:
            changes.append(_delete_pod(job, pod))
        active = 0
        terminating += len(active_pods)
        ready -= sum(1 for p in active_pods if is_pod_ready(p))
    else:
        manage_called = False
        if not meta(job).get("deletionTimestamp"):
            manage_called = True
            active, terminating, ready = _manage_job(view, job, pods, active_pods, succeeded, succeeded_indexes,
                                                     failed_indexes, delayed, terminating, ready, changes)
        if completions is None:
            complete = succeeded > 0 and active == 0
        else:
            complete = succeeded >= int(completions) and active == 0
        if complete:
            finished = new_condition("SuccessCriteriaMet", REASON_COMPLETIONS_REACHED, MSG_COMPLETIONS_REACHED, now)
        elif manage_called:
            conds = status.get("conditions") or []
            if suspended(job):
                conds, updated = ensure_condition(conds, "Suspended", "True", "JobSuspended", "Job suspended", now)
                if updated:
                    suspend_changed = True
                    changes.append(Change("event", job, [Event(job, "Normal", "Suspended", "Job suspended", COMPONENT)]))
            else:
                conds, updated = ensure_condition(conds, "Suspended", "False", "JobResumed", "Job resumed", now)
                if updated:
                    suspend_changed = True
                    changes.append(Change("event", job, [Event(job, "Normal", "Resumed", "Job resumed", COMPONENT)]))
                    status["startTime"] = format_time(now)
            if conds:
                status["conditions"] = conds

    # trackJobStatusAndRemoveFinalizers, with the uncounted pods counted at once: a pod counts
    # when its finalizer goes (once the Job is failing, every tracked pod that did not succeed
    # counts as failed)
    status_succeeded, status_failed = int(old_status.get("succeeded") or 0), int(old_status.get("failed") or 0)
    failing = finished is not None and finished["type"] not in ("SuccessCriteriaMet", "Complete")
    for pod in pods:
        if not has_tracking_finalizer(pod):
            continue
        considered_failed = is_pod_failed(pod, job)
        if not _can_remove_finalizer(job, finished, pod, considered_failed, delayed):
            continue
        changes.append(_remove_finalizer(pod))
        if not valid_index(pod):
            continue
        if phase(pod) == "Succeeded":
            status_succeeded += 1
        elif (considered_failed or failing) and match_pod_failure_policy(pfp, pod)[1]:
            status_failed += 1
    status["active"] = active
    status["ready"] = ready
    status["terminating"] = terminating
    status["succeeded"] = succeeded if indexed else status_succeeded
    status["failed"] = status_failed
    status["uncountedTerminatedPods"] = {}
    if indexed:
        status["completedIndexes"] = format_indexes(succeeded_indexes)
        if failed_indexes is not None:
            status["failedIndexes"] = format_indexes(failed_indexes)
    events: list[Event] = []
    if finished is not None:
        conds = list(status.get("conditions") or [])
        if finished["type"] == "FailureTarget":
            conds.append(finished)
            finished = new_condition("Failed", finished["reason"], finished["message"], now)
        if finished["type"] == "SuccessCriteriaMet":
            if not any(c.get("type") == "SuccessCriteriaMet" for c in conds):
                conds.append(finished)
            finished = new_condition("Complete", finished["reason"], finished["message"], now)
        status["conditions"] = conds
        if terminating == 0:
            status["conditions"], _ = ensure_condition(conds, finished["type"], "True", finished["reason"],
                                                       finished["message"], now)
            if finished["type"] == "Complete":
                status["completionTime"] = format_time(now)
                if completions is not None and succeeded > int(completions):
                    events.append(Event(job, "Warning", "TooManySucceededPods",
                                        "Too many succeeded pods running after completion count reached", COMPONENT))
                events.append(Event(job, "Normal", "Completed", "Job completed", COMPONENT))
            else:
                events.append(Event(job, "Warning", finished["reason"], finished["message"], COMPONENT))
    for key in ("failed", "active", "succeeded"):
        if not status.get(key):
            status.pop(key, None)
    # the finalizer patches go first: an update of a pod deleted in this pass would write back
    # the copy read before its deletion (upstream patches only the finalizer list)
    patches = [c for c in changes if c.op == "update"]
    changes = patches + [c for c in changes if c.op != "update"]
    if _status_differs(old_status, status) or suspend_changed:
        updated = deepcopy(job)
        updated["status"] = status
        changes.append(Change("update_status", updated, events))
    elif events:
        changes.append(Change("event", job, events))
    return changes


def _status_differs(old: dict, new: dict) -> bool:
    return old != new


def past_backoff_limit_on_failure(job: dict, pods: list[dict]) -> bool:
    """pastBackoffLimitOnFailure: with restartPolicy OnFailure, the restarts of the running and
    pending pods' containers count against the limit."""
    spec = job.get("spec") or {}
    if ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") != "OnFailure":
        return False
    restarts = 0
    for p in pods:
        if phase(p) in ("Running", "Pending"):
            st = p.get("status") or {}
            for cs in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
                restarts += int(cs.get("restartCount") or 0)
    limit = int(spec.get("backoffLimit") or 0)
    return restarts > 0 if limit == 0 else restarts >= limit


def match_success_policy(policy: dict | None, completions: int, succeeded: list[int]) -> str | None:
    """matchSuccessPolicy: the message of the first rule the succeeded indexes satisfy."""
    if policy is None:
        return None
    have = set(succeeded)
    for index, rule in enumerate(policy.get("rules") or ()):
        wanted = rule.get("succeededIndexes")
        count = rule.get("succeededCount")
        if wanted is not None:
            indexes = set(parse_indexes(wanted, completions))
            matched = len(indexes & have)
            if (count is None and indexes and indexes <= have) or (count is not None and matched >= int(count)):
                return f"{MSG_SUCCESS_POLICY} {index}"
        elif count is not None and len(have) >= int(count):
            return f"{MSG_SUCCESS_POLICY} {index}"
    return None


def _can_remove_finalizer(job: dict, finished: dict | None, pod: dict, considered_failed: bool,
                          delayed: dict[int, dict]) -> bool:
    if meta(job).get("deletionTimestamp") or finished is not None or phase(pod) == "Succeeded":
        return True
    if not considered_failed:
        return False
    ix = completion_index(pod)
    # backoffLimitPerIndex: the last failed pod of an index keeps its finalizer until replaced
    return not (has_backoff_limit_per_index(job) and ix != -1 and uid_of(delayed.get(ix) or {}) == uid_of(pod))


def _remove_finalizer(pod: dict) -> Change:
    new = deepcopy(pod)
    fins = [f for f in new["metadata"].get("finalizers") or () if f != JOB_TRACKING_FINALIZER]
    if fins:
        new["metadata"]["finalizers"] = fins
    else:
        new["metadata"].pop("finalizers", None)
    return Change("update", new)


def _delete_pod(job: dict, pod: dict) -> Change:
    return Change("delete", pod, [Event(job, "Normal", "SuccessfulDelete", f"Deleted pod: {name_of(pod)}",
                                        COMPONENT)], propagation="Background")


def _sort_active(pods: list[dict], now: float) -> list[dict]:
    """sort.Sort(controller.ActivePods): the pods to delete first."""
    import functools

    def cmp(a: dict, b: dict) -> int:
        if active_pods_less(a, b, 0, 0, None):
            return -1
        if active_pods_less(b, a, 0, 0, None):
            return 1
        return 0

    return sorted(pods, key=functools.cmp_to_key(cmp))


def active_pods_for_removal(job: dict, pods: list[dict], rm_at_least: int, now: float) -> list[dict]:
    """activePodsForRemoval: an Indexed Job's duplicates and out-of-range indexes first."""
    rm: list[dict] = []
    left = pods
    if is_indexed(job):
        rm, left = [], []
        n = int((job.get("spec") or {}).get("completions") or 0)
        by_index: dict[int, list[dict]] = {}
        for p in sorted(pods, key=completion_index):
            ix = completion_index(p)
            if ix == -1 or ix >= n:
                rm.append(p)
            else:
                by_index.setdefault(ix, []).append(p)
        for ix in sorted(by_index):
            group = by_index[ix]
            if len(group) == 1:
                left.append(group[0])
            else:
                group = _sort_active(group, now)
                rm += group[:-1]
                left.append(group[-1])
    if len(rm) < rm_at_least:
        left = _sort_active(left, now)
        rm += left[:rm_at_least - len(rm)]
    return rm


def _pods_with_delayed_deletion_per_index(job: dict, pods: list[dict], failed_indexes: list[int],
                                          succeeded_indexes: list[int]) -> dict[int, dict]:
    """getPodsWithDelayedDeletionPerIndex: per index, its last failed pod that will be replaced
    (its finalizer kept until the replacement is created)."""
    out: dict[int, dict] = {}
    n = int((job.get("spec") or {}).get("completions") or 0)
    done = set(failed_indexes) | set(succeeded_indexes)
    for p in pods:
        ix = completion_index(p)
        if ix == -1 or ix >= n or ix in done or not has_tracking_finalizer(p) or not is_pod_failed(p, job):
            continue
        cur = out.get(ix)
        if cur is None or finished_time(p) > finished_time(cur):
            out[ix] = p
    return out


def _manage_job(view: View, job: dict, pods: list[dict], active_pods: list[dict], succeeded: int,
                succeeded_indexes: list[int], failed_indexes: list[int] | None, delayed: dict[int, dict],
                terminating: int, ready: int, changes: list[Change]) -> tuple[int, int, int]:
    """manageJob: returns the active, terminating and ready counts after its deletions and
    creations."""
    spec = job.get("spec") or {}
    now = view.now
    active = len(active_pods)
    parallelism = int(spec.get("parallelism") or 0)
    completions = spec.get("completions")
    remaining = list(active_pods)
    if suspended(job):
        for pod in active_pods_for_removal(job, active_pods, active, now):
            changes.append(_delete_pod(job, pod))
            remaining.remove(pod)
            ready -= 1 if is_pod_ready(pod) else 0
        terminating += active - len(remaining)
        return len(remaining), terminating, ready
    if completions is None:
        want = active if succeeded > 0 else parallelism
    else:
        want = max(0, min(int(completions) - succeeded, parallelism))
    rm_at_least = max(0, active - want)
    to_delete = active_pods_for_removal(job, remaining, rm_at_least, now)[:MAX_POD_CREATE_DELETE_PER_SYNC]
    for pod in to_delete:
        changes.append(_delete_pod(job, pod))
        remaining.remove(pod)
        ready -= 1 if is_pod_ready(pod) else 0
    terminating += len(to_delete)
    active -= len(to_delete)
    term_now = terminating if only_replace_failed_pods(job) else 0
    diff = want - term_now - active
    if diff <= 0:
        return active, terminating, ready
    if not has_backoff_limit_per_index(job):
        failures, last = backoff_record(job, view.owned_by("Pod", uid_of(job)))
        wait = remaining_backoff(failures, last, now)
        if wait > 0:
            changes.append(Change("wake", job, at=now + wait))
            return active, terminating, ready
    diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
    indexes: list[int] = []
    if is_indexed(job):
        indexes = first_pending_indexes(job, pods, remaining, succeeded_indexes, failed_indexes, diff)
        if has_backoff_limit_per_index(job):
            now_ok, soonest = [], None
            for ix in indexes:
                wait = _remaining_for_index(delayed.get(ix), now)
                if wait == 0:
                    now_ok.append(ix)
                elif soonest is None or wait < soonest:
                    soonest = wait
            if not now_ok and soonest is not None:
                changes.append(Change("wake", job, at=now + soonest))
            indexes = now_ok
        diff = len(indexes)
    template = deepcopy(spec.get("template") or {})
    if is_indexed(job):
        _add_completion_index_env(template)
    tmeta = template.setdefault("metadata", {})
    if JOB_TRACKING_FINALIZER not in (tmeta.get("finalizers") or []):
        tmeta["finalizers"] = list(tmeta.get("finalizers") or []) + [JOB_TRACKING_FINALIZER]
    ns = meta(job).get("namespace", "")
    taken: set[str] = set()
    for i in range(diff):
        t = template
        prefix = name_of(job) + "-"
        if indexes:
            ix = indexes[i]
            t = copy.deepcopy(template)
            t["metadata"].setdefault("annotations", {})[COMPLETION_INDEX_ANNOTATION] = str(ix)
            t["metadata"].setdefault("labels", {})[COMPLETION_INDEX_ANNOTATION] = str(ix)
            t.setdefault("spec", {})["hostname"] = f"{name_of(job)}-{ix}"
            prefix = pod_generate_name_with_index(name_of(job), ix)
            if has_backoff_limit_per_index(job):
                fails, ignored = new_index_failure_counts(job, delayed.get(ix))
                t["metadata"]["annotations"][INDEX_FAILURE_COUNT_ANNOTATION] = str(fails)
                if ignored:
                    t["metadata"]["annotations"][INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = str(ignored)
        name = view.generate_name(prefix, "Pod", ns, taken)
        pod = pod_from_template(t, job, ns, name)
        pod["metadata"]["generateName"] = prefix
        changes.append(Change("create", pod, [Event(job, "Normal", "SuccessfulCreate", f"Created pod: {name}",
                                                    COMPONENT)], slow_start=uid_of(job)))
    active += diff
    return active, terminating, ready


def _remaining_for_index(pod: dict | None, now: float) -> float:
    """getRemainingTimePerIndex: the back-off of an index from its last failed pod."""
    if pod is None:
        return 0.0
    failures, _ = _index_failure_counts(pod)
    return remaining_backoff(failures + 1, finished_time(pod), now)


def pod_generate_name_with_index(job_name: str, index: int) -> str:
    """podGenerateNameWithIndex: ``<job>-<index>-``, the job's name cut to fit."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[:MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def _add_completion_index_env(template: dict) -> None:
    """addCompletionIndexEnvVariables: JOB_COMPLETION_INDEX from the pod's index label."""
    tspec = template.setdefault("spec", {})
    for key in ("initContainers", "containers"):
        for c in tspec.get(key) or ():
            env = c.setdefault("env", [])
            if any(e.get("name") == COMPLETION_INDEX_ENV for e in env):
                continue
            env.append({"name": COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": {
                "fieldPath": f"metadata.labels['{COMPLETION_INDEX_ANNOTATION}']"}}})


def first_pending_indexes(job: dict, pods: list[dict], active: list[dict], succeeded_indexes: list[int],
                          failed_indexes: list[int] | None, count: int) -> list[int]:
    """firstPendingIndexes: the lowest indexes neither succeeded, active, (when only failed
    pods are replaced) terminating, nor failed."""
    n = int((job.get("spec") or {}).get("completions") or 0)
    taken = set(succeeded_indexes) | {completion_index(p) for p in active}
    if only_replace_failed_pods(job):
        taken |= {completion_index(p) for p in pods if is_pod_terminating(p)}
    taken |= set(failed_indexes or ())
    out = []
    for ix in range(n):
        if len(out) >= count:
            break
        if ix not in taken:
            out.append(ix)
    return out
