"""The TTL-after-finished controller: a finished Job with ``ttlSecondsAfterFinished`` is
deleted (in the foreground, so its pods go first) once that many seconds have passed since it
finished.

Upstream: pkg/controller/ttlafterfinished/ttlafterfinished_controller.go (processJob,
needsCleanup, processTTL, timeLeft, getFinishAndExpireTime, jobFinishTime): the finish time is
the lastTransitionTime of the Job's true Complete or Failed condition; a Job not yet expired is
requeued for its expiry, which here is a wake.
"""

from __future__ import annotations

from kubesim.clock import parse_time
from kubesim.controllers.base import Change, View


def job_finish_time(job: dict) -> float | None:
    """jobFinishTime: when the Job's Complete or Failed condition became true."""
    for c in (job.get("status") or {}).get("conditions") or ():
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True" and c.get("lastTransitionTime"):
            return parse_time(c["lastTransitionTime"])
    return None


def expire_time(job: dict) -> float | None:
    """When a finished Job with a TTL expires (None: it never does, or is not finished)."""
    ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
    if ttl is None or (job.get("metadata") or {}).get("deletionTimestamp"):
        return None
    finished = job_finish_time(job)
    return None if finished is None else finished + int(ttl)


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for job in view.list("Job"):
        at = expire_time(job)
        if at is None:
            continue
        if at <= view.now:
            changes.append(Change("delete", job, propagation="Foreground"))
        else:
            changes.append(Change("wake", job, at=at))
    return changes
