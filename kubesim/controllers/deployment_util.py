"""Deployment arithmetic and bookkeeping, as pure functions on JSON objects.

Upstream: pkg/controller/deployment/util/deployment_util.go (MaxSurge, MaxUnavailable,
ResolveFenceposts, NewRSNewReplicas, IsSaturated, GetProportion, FindOldReplicaSets,
SetNewReplicaSetAnnotations, DeploymentComplete, DeploymentProgressing, DeploymentTimedOut,
the replica annotations) and the sort orders of pkg/controller/controller_utils.go
(ReplicaSetsBySizeNewer/Older) and util/replicaset_util.go (ReplicaSetsByRevision). What kubectl
shares with the controller (revisions, FindNewReplicaSet, EqualIgnoreHash, the annotations,
ReplicaSetsByCreationTimestamp) is ``kubesim.api.apps.deployment_util``'s.
"""

from __future__ import annotations

import functools

from kubesim.api.apps.deployment_util import (
    ANNOTATIONS_TO_SKIP,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    REVISION,
    REVISION_HISTORY,
    find_new_replicaset,
    revision,
    sort_by_creation,
)
from kubesim.api.meta.helpers import creation_time, meta, name_of
from kubesim.clock import parse_time
from kubesim.controllers.base import (
    get_condition,
    round_to_int32,
    value_from_int_or_percent,
)

MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000
MAX_INT32 = 2147483647

# condition reasons
RS_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_REASON = "DeploymentPaused"
RESUMED_REASON = "DeploymentResumed"
MIN_AVAILABLE = "MinimumReplicasAvailable"
MIN_UNAVAILABLE = "MinimumReplicasUnavailable"


def replicas(obj: dict | None) -> int:
    if obj is None:
        return 0
    r = (obj.get("spec") or {}).get("replicas")
    return 1 if r is None else int(r)


def replicaset_name(deployment_name: str, hash_: str) -> str:
    return f"{deployment_name}-{hash_}"


def condition(type_: str, status: str, reason: str, message: str, stamp: str) -> dict:
    """NewDeploymentCondition."""
    return {"type": type_, "status": status, "lastUpdateTime": stamp, "lastTransitionTime": stamp,
            "reason": reason, "message": message}


def is_rolling_update(d: dict) -> bool:
    return ((d.get("spec") or {}).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def is_recreate(d: dict) -> bool:
    return ((d.get("spec") or {}).get("strategy") or {}).get("type") == "Recreate"


def _rolling(d: dict) -> dict:
    return ((d.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}


def resolve_fenceposts(max_surge, max_unavailable, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: surge rounds up, unavailable rounds down; both 0 -> unavailable 1."""
    surge = value_from_int_or_percent(0 if max_surge is None else max_surge, desired, True)
    unavailable = value_from_int_or_percent(0 if max_unavailable is None else max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(d: dict) -> int:
    if not is_rolling_update(d) or replicas(d) == 0:
        return 0
    ru = _rolling(d)
    _, mu = resolve_fenceposts(ru.get("maxSurge"), ru.get("maxUnavailable"), replicas(d))
    return min(mu, replicas(d))


def min_available(d: dict) -> int:
    if not is_rolling_update(d):
        return 0
    return replicas(d) - max_unavailable(d)


def max_surge(d: dict) -> int:
    if not is_rolling_update(d):
        return 0
    ru = _rolling(d)
    ms, _ = resolve_fenceposts(ru.get("maxSurge"), ru.get("maxUnavailable"), replicas(d))
    return ms


def replica_count(rss: list[dict]) -> int:
    return sum(replicas(rs) for rs in rss if rs is not None)


def _status_sum(rss: list[dict], key: str) -> int:
    return sum(int((rs.get("status") or {}).get(key) or 0) for rs in rss if rs is not None)


def actual_replica_count(rss: list[dict]) -> int:
    return _status_sum(rss, "replicas")


def ready_replica_count(rss: list[dict]) -> int:
    return _status_sum(rss, "readyReplicas")


def available_replica_count(rss: list[dict]) -> int:
    return _status_sum(rss, "availableReplicas")


def terminating_replica_count(rss: list[dict]) -> int | None:
    """GetTerminatingReplicaCountForReplicaSets: None when an observed ReplicaSet does not report it."""
    total = 0
    for rs in rss:
        if rs is None:
            continue
        st = rs.get("status") or {}
        if not st.get("observedGeneration") and st.get("terminatingReplicas") is None:
            continue
        if st.get("terminatingReplicas") is None:
            return None
        total += int(st["terminatingReplicas"])
    return total


def filter_active(rss: list[dict]) -> list[dict]:
    return [rs for rs in rss if rs is not None and replicas(rs) > 0]


def new_rs_new_replicas(d: dict, all_rss: list[dict], new_rs: dict) -> int:
    """NewRSNewReplicas."""
    if is_recreate(d):
        return replicas(d)
    surge = value_from_int_or_percent(_rolling(d).get("maxSurge", 0) or 0, replicas(d), True)
    current = replica_count(all_rss)
    max_total = replicas(d) + surge
    if current >= max_total:
        return replicas(new_rs)
    scale_up = min(max_total - current, replicas(d) - replicas(new_rs))
    return replicas(new_rs) + scale_up


def nonnegative_int32_annotation(rs: dict, key: str) -> int | None:
    """getNonNegativeInt32FromAnnotation (GetDesiredReplicasAnnotation, getMaxReplicasAnnotation):
    the annotation as strconv.ParseUint(v, 10, 32) reads it, at most MaxInt32; None when it is
    absent or not such a number."""
    v = (meta(rs).get("annotations") or {}).get(key)
    if v is None or not v.isascii() or not v.isdigit():
        return None
    n = int(v)
    return n if n <= MAX_INT32 else None


def _atoi(v: str | None) -> int | None:
    """strconv.Atoi: an optional sign and decimal digits; None otherwise."""
    if not v:
        return None
    digits = v[1:] if v[0] in "+-" else v
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    return int(v)


def is_saturated(d: dict, rs: dict | None) -> bool:
    """IsSaturated: the ReplicaSet has all the deployment's replicas, wants them (its
    desired-replicas annotation, read with strconv.Atoi) and has them all available."""
    if rs is None:
        return False
    desired = _atoi((meta(rs).get("annotations") or {}).get(DESIRED_REPLICAS))
    if desired is None:
        return False
    return replicas(rs) == replicas(d) and desired == replicas(d) and \
        int((rs.get("status") or {}).get("availableReplicas") or 0) == replicas(d)


def get_proportion(rs: dict | None, d: dict, to_add: int, added: int) -> int:
    """GetProportion."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _replicaset_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _replicaset_fraction(rs: dict, d: dict) -> int:
    """getReplicaSetFraction: the ReplicaSet's share of the deployment's new maximum (replicas +
    surge) as it had of the maximum before (its max-replicas annotation; without a usable one,
    the deployment's status.replicas; without that either, no change)."""
    if replicas(d) == 0:
        return -replicas(rs)
    deployment_max = replicas(d) + max_surge(d)
    before = nonnegative_int32_annotation(rs, MAX_REPLICAS)
    if not before:
        before = int((d.get("status") or {}).get("replicas") or 0)
        if before == 0:
            return 0
    return round_to_int32(replicas(rs) * deployment_max / before) - replicas(rs)


def _by_creation_less(a: dict, b: dict) -> bool:
    ta, tb = creation_time(a), creation_time(b)
    if ta == tb:
        return name_of(a) < name_of(b)
    return ta < tb


def sort_by_size_newer(rss: list[dict]) -> list[dict]:
    def cmp(a, b):
        if replicas(a) == replicas(b):
            return -1 if _by_creation_less(b, a) else (1 if _by_creation_less(a, b) else 0)
        return -1 if replicas(a) > replicas(b) else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


def sort_by_size_older(rss: list[dict]) -> list[dict]:
    def cmp(a, b):
        if replicas(a) == replicas(b):
            return -1 if _by_creation_less(a, b) else (1 if _by_creation_less(b, a) else 0)
        return -1 if replicas(a) > replicas(b) else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


def sort_by_revision(rss: list[dict]) -> list[dict]:
    def cmp(a, b):
        ra, rb = revision(a), revision(b)
        if ra is None or rb is None or ra == rb:
            return -1 if _by_creation_less(a, b) else (1 if _by_creation_less(b, a) else 0)
        return -1 if ra < rb else 1
    return sorted(rss, key=functools.cmp_to_key(cmp))


def max_revision(rss: list[dict]) -> int:
    return max([v for v in (revision(rs) for rs in rss) if v is not None], default=0)


def find_old_replicasets(d: dict, rss: list[dict]) -> tuple[list[dict], list[dict]]:
    new = find_new_replicaset(d, rss)
    all_old = [rs for rs in rss if new is None or name_of(rs) != name_of(new)]
    return [rs for rs in all_old if replicas(rs) != 0], all_old


def find_active_or_latest(new_rs: dict | None, old_rss: list[dict]) -> dict | None:
    if new_rs is None and not old_rss:
        return None
    old_sorted = list(reversed(sort_by_creation(old_rss)))
    active = filter_active(old_sorted + ([new_rs] if new_rs else []))
    if not active:
        return new_rs if new_rs is not None else old_sorted[0]
    if len(active) == 1:
        return active[0]
    return None


def set_deployment_revision(d: dict, rev: str) -> bool:
    ann = d.setdefault("metadata", {}).setdefault("annotations", {})
    if ann.get(REVISION) != rev:
        ann[REVISION] = rev
        return True
    return False


def set_replicas_annotations(rs: dict, desired: int, max_replicas: int) -> bool:
    ann = rs.setdefault("metadata", {}).setdefault("annotations", {})
    updated = False
    for k, v in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(max_replicas))):
        if ann.get(k) != v:
            ann[k] = v
            updated = True
    return updated


def replicas_annotations_need_update(rs: dict, desired: int, max_replicas: int) -> bool:
    ann = meta(rs).get("annotations") or {}
    return ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(max_replicas)


def set_new_replicaset_annotations(d: dict, rs: dict, new_revision: str, exists: bool,
                                   limit: int = MAX_REV_HISTORY_LENGTH_IN_CHARS) -> bool:
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations (but the skipped ones),
    raise the revision, keep the revision history of a rolled-back-to ReplicaSet."""
    ann = rs.setdefault("metadata", {}).setdefault("annotations", {})
    changed = False
    for k, v in (meta(d).get("annotations") or {}).items():
        if k in ANNOTATIONS_TO_SKIP or ann.get(k) == v:
            continue
        ann[k] = v
        changed = True
    old_revision = ann.get(REVISION)
    had = old_revision is not None
    try:
        old_int = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    new_int = int(new_revision)
    if old_int < new_int:
        ann[REVISION] = new_revision
        changed = True
    if had and old_int < new_int:
        hist = ann.get(REVISION_HISTORY, "")
        olds = hist.split(",")
        if not olds[0]:
            ann[REVISION_HISTORY] = old_revision
        else:
            total = len(hist) + len(old_revision) + 1
            start = 0
            while total > limit and start < len(olds):
                total -= len(olds[start]) + 1
                start += 1
            if total <= limit:
                ann[REVISION_HISTORY] = ",".join(olds[start:] + [old_revision])
    if not exists and set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def has_progress_deadline(d: dict) -> bool:
    v = (d.get("spec") or {}).get("progressDeadlineSeconds")
    return v is not None and int(v) != MAX_INT32


def has_revision_history_limit(d: dict) -> bool:
    v = (d.get("spec") or {}).get("revisionHistoryLimit")
    return v is not None and int(v) != MAX_INT32


def deployment_complete(d: dict, status: dict) -> bool:
    r = replicas(d)
    return int(status.get("updatedReplicas") or 0) == r and int(status.get("replicas") or 0) == r and \
        int(status.get("availableReplicas") or 0) == r and \
        int(status.get("observedGeneration") or 0) >= int(meta(d).get("generation", 1))


def deployment_progressing(d: dict, new: dict) -> bool:
    old = d.get("status") or {}
    g = lambda s, k: int(s.get(k) or 0)
    old_old = g(old, "replicas") - g(old, "updatedReplicas")
    new_old = g(new, "replicas") - g(new, "updatedReplicas")
    return g(new, "updatedReplicas") > g(old, "updatedReplicas") or new_old < old_old or \
        g(new, "readyReplicas") > g(old, "readyReplicas") or g(new, "availableReplicas") > g(old, "availableReplicas")


def deployment_timed_out(d: dict, conditions: list[dict], now: float) -> bool:
    if not has_progress_deadline(d):
        return False
    c = get_condition(conditions, "Progressing")
    if c is None or c.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if c.get("reason") == TIMED_OUT_REASON:
        return True
    frm = parse_time(c["lastUpdateTime"]) if c.get("lastUpdateTime") else 0.0
    return frm + int(d["spec"]["progressDeadlineSeconds"]) < now


def requeue_stuck_at(d: dict, status: dict, now: float) -> float | None:
    """requeueStuckDeployment: when to check the progress deadline again (None: never)."""
    c = get_condition((d.get("status") or {}).get("conditions"), "Progressing")
    if not has_progress_deadline(d) or c is None:
        return None
    if deployment_complete(d, status) or c.get("reason") == TIMED_OUT_REASON:
        return None
    frm = parse_time(c["lastUpdateTime"]) if c.get("lastUpdateTime") else now
    after = frm + int(d["spec"]["progressDeadlineSeconds"]) - now
    if after < 1:
        return now + 1  # rate-limited requeue
    return now + after + 1


def replica_failures(all_rss: list[dict], new_rs: dict | None) -> list[dict]:
    def conv(c):
        return {"type": "ReplicaFailure", "status": c.get("status"), "lastUpdateTime": c.get("lastTransitionTime"),
                "lastTransitionTime": c.get("lastTransitionTime"), "reason": c.get("reason"), "message": c.get("message")}
    if new_rs is not None:
        out = [conv(c) for c in (new_rs.get("status") or {}).get("conditions") or () if c.get("type") == "ReplicaFailure"]
        if out:
            return out
    return [conv(c) for rs in all_rss if rs is not None
            for c in (rs.get("status") or {}).get("conditions") or () if c.get("type") == "ReplicaFailure"]
