"""The API server's eviction subresource (``POST pods/<name>/eviction``).

Upstream: pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create, canIgnorePDB,
checkAndDecrement, getPodDisruptionBudgets, addConditionAndDeletePod) and
staging/src/k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go.

An eviction is a delete that respects the pod's PodDisruptionBudget:

- a pod that is Pending, has finished (Succeeded/Failed) or is already being deleted caused or
  causes no disruption: it is deleted without looking at budgets;
- a pod matched by more than one PDB cannot be evicted (a 500 the eviction API returns as is);
- an unready pod is deleted without spending the budget when its PDB says
  ``unhealthyPodEvictionPolicy: AlwaysAllow``, or (the default, ``IfHealthyBudget``) when the
  budget is currently met (``currentHealthy >= desiredHealthy > 0``);
- otherwise the budget must allow a disruption: a PDB whose status lags its spec
  (``observedGeneration < generation``) or allows none answers 429 TooManyRequests ("Cannot
  evict pod as it would violate the pod's disruption budget."); else ``disruptionsAllowed`` is
  decremented and the pod recorded in ``status.disruptedPods`` with the time, in the same
  transaction as the delete;
- the pod then gets the ``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``) and is
  deleted gracefully, as ``kubesim.engine.objects.delete_object`` deletes pods.

The retries upstream makes on write conflicts have no counterpart: a command holds the state's
write lock, so nothing can change between the read and the write.
"""

from __future__ import annotations

import copy

from kubesim.api import kinds, selectors
from kubesim.errors import Forbidden, NotFound, StatusError, TooManyRequests

MAX_DISRUPTED_POD_SIZE = 2000

VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
EVICTION_REASON = "EvictionByEvictionAPI"
EVICTION_MESSAGE = "Eviction API: evicting"


class EvictionFailure(StatusError):
    """A metav1.Status of failure the eviction subresource returns (code 500, no reason)."""

    reason = "InternalError"
    code = 500


class BudgetViolation(TooManyRequests):
    """The 429 of checkAndDecrement, with the DisruptionBudget cause upstream attaches."""

    def __init__(self, cause: str):
        super().__init__(VIOLATES_BUDGET)
        self.cause = cause


def can_ignore_pdb(pod: dict) -> bool:
    """canIgnorePDB: terminal, pending or already terminating pods."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def pod_disruption_budgets(cluster, pod: dict) -> list[dict]:
    """getPodDisruptionBudgets: the PDBs of the pod's namespace whose selector matches it (an
    unconvertible selector matches nothing; so does a missing one, an empty one matches all)."""
    md = pod.get("metadata") or {}
    labels = md.get("labels") or {}
    out = []
    for pdb in cluster.store.list("PodDisruptionBudget", md.get("namespace", "")):
        try:
            sel = selectors.from_label_selector((pdb.get("spec") or {}).get("selector"))
        except ValueError:
            continue
        if sel.matches(labels):
            out.append(pdb)
    return out


def _is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def evict(cluster, namespace: str, name: str, grace_seconds: int | None = None, dry_run: bool = False) -> None:
    """EvictionREST.Create for pod ``namespace/name``. Raises NotFound, TooManyRequests,
    Forbidden or EvictionFailure as the API server answers; returns when the pod was deleted
    (or, with ``dry_run``, would have been)."""
    store = cluster.store
    pod = store.get("Pod", namespace, name)
    if pod is None:
        raise NotFound("pods", name)
    if can_ignore_pdb(pod):
        _add_condition_and_delete(cluster, pod, grace_seconds, dry_run)
        return
    pdbs = pod_disruption_budgets(cluster, pod)
    if len(pdbs) > 1:
        raise EvictionFailure(MULTIPLE_PDBS)
    if pdbs:
        pdb = pdbs[0]
        if not _spares_unhealthy_pod(pdb, pod):
            check_and_decrement(cluster, pdb, name, dry_run)
    _add_condition_and_delete(cluster, pod, grace_seconds, dry_run)


def _spares_unhealthy_pod(pdb: dict, pod: dict) -> bool:
    """An unready pod that may go without spending the budget (unhealthyPodEvictionPolicy)."""
    if _is_ready(pod):
        return False
    policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy")
    if policy == "AlwaysAllow":
        return True
    status = pdb.get("status") or {}
    desired = int(status.get("desiredHealthy") or 0)
    return int(status.get("currentHealthy") or 0) >= desired and desired > 0


def check_and_decrement(cluster, pdb: dict, pod_name: str, dry_run: bool) -> None:
    """checkAndDecrement: refuse when the budget allows no disruption, else spend one and record
    the pod in status.disruptedPods (written at once: same transaction as the delete)."""
    from kubesim.controllers.disruption import update_disruption_allowed_condition

    md, status = pdb.get("metadata") or {}, pdb.get("status") or {}
    name = md.get("name", "")
    if int(status.get("observedGeneration") or 0) < int(md.get("generation") or 0):
        raise BudgetViolation(f"The disruption budget {name} is still being processed by the server.")
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: pdb disruptions allowed is negative')
    if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_POD_SIZE:
        raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: DisruptedPods map too big - too many '
                        "evictions not confirmed by PDB controller")
    if allowed == 0:
        raise BudgetViolation(f"The disruption budget {name} needs {int(status.get('desiredHealthy') or 0)} healthy "
                              f"pods and has {int(status.get('currentHealthy') or 0)} currently")
    if dry_run:
        return
    new = copy.deepcopy(pdb)
    st = new.setdefault("status", {})
    st["disruptionsAllowed"] = allowed - 1
    if st["disruptionsAllowed"] == 0:
        update_disruption_allowed_condition(st, cluster.stamp())
    disrupted = dict(st.get("disruptedPods") or {})
    disrupted[pod_name] = cluster.stamp()
    st["disruptedPods"] = dict(sorted(disrupted.items()))
    _reorder_status(new)
    cluster.store.put(new)


def _reorder_status(pdb: dict) -> None:
    from kubesim.controllers.disruption import ordered_status

    pdb["status"] = ordered_status(pdb["status"])


def _add_condition_and_delete(cluster, pod: dict, grace_seconds: int | None, dry_run: bool) -> None:
    """addConditionAndDeletePod: the DisruptionTarget condition (podutil.UpdatePodCondition),
    then the API server's graceful delete."""
    from kubesim.engine import objects

    md = pod["metadata"]
    if dry_run:
        return
    new = copy.deepcopy(pod)
    conds = new.setdefault("status", {}).setdefault("conditions", [])
    cond = {"lastProbeTime": None, "lastTransitionTime": cluster.stamp(), "message": EVICTION_MESSAGE,
            "reason": EVICTION_REASON, "status": "True", "type": "DisruptionTarget"}
    for i, c in enumerate(conds):
        if c.get("type") == "DisruptionTarget":
            if c.get("status") == "True" and c.get("lastTransitionTime"):
                cond["lastTransitionTime"] = c["lastTransitionTime"]
            conds[i] = cond
            break
    else:
        conds.append(cond)
    if new != pod:
        cluster.store.put(new)
    objects.delete_object(cluster, kinds.by_kind("Pod"), md.get("namespace", ""), md["name"],
                          grace_seconds=grace_seconds)


# ---------------------------------------------------------------------------------------------
# kubectl drain's eviction and deletion of a node's pods, on simulated time



RETRY_INTERVAL = 5.0
POLL_INTERVAL = 1.0
UNBOUNDED_WAIT = 3600.0
_EPS = 1e-6


class _PodRun:
    def __init__(self, pod: dict):
        md = pod["metadata"]
        self.pod, self.ns, self.name, self.uid = pod, md.get("namespace", ""), md["name"], md.get("uid")
        self.phase = "evict"  # evict | wait | done
        self.next_try = 0.0
        self.started = 0.0  # when the wait for deletion began (polls every second from then)
        self.next_poll = 0.0
        self.failed_seq: int | None = None  # the change sequence at the last 429
        self.cause = ""


def _gone(cluster, run: _PodRun) -> bool:
    p = cluster.store.get("Pod", run.ns, run.name)
    return p is None or (p.get("metadata") or {}).get("uid") != run.uid


def _grid_at_or_after(start: float, t: float) -> float:
    """The first poll instant (start + k seconds) at or after ``t``."""
    import math

    return start + max(math.ceil((t - start) / POLL_INTERVAL - _EPS), 0) * POLL_INTERVAL


def drain_pods(cluster, pods: list[dict], *, grace_period: int = -1, timeout: float = 0.0,
               disable_eviction: bool = False, server_dry_run: bool = False, skip_wait_seconds: int = 0,
               out, err) -> tuple[list[str], bool] | None:
    """DeleteOrEvictPods for one node's pods. Returns None on success, else the error as kubectl
    builds it: ``(messages, aggregate)`` — several messages of a utilerrors aggregate, or one
    plain error (``aggregate`` False).

    kubectl's drain helper (staging/src/k8s.io/kubectl/pkg/drain/drain.go evictPods, deletePods,
    waitForDelete) evicts every pod concurrently: each attempt prints ``evicting pod NS/NAME``; a 429
    prints ``error when evicting pods/"NAME" -n "NS" (will retry after 5s): ...`` and sleeps 5 s; a
    success is followed by a poll every second until the pod is gone (``pod/NAME evicted``); the
    whole runs under ``--timeout`` (0: no limit). kubesim runs the same schedule on the simulated
    clock: between two instants the cluster settles (replacements are created, scheduled and
    started, terminating pods finish) and the clock moves on to the next retry or poll, stopping at
    every moment a component asked to be woken on the way (as ``kubesim advance`` does), as the
    real wait would let it. Two guards keep a command from waiting forever where kubectl would:

    - with no ``--timeout``, when the cluster has reached a state nothing will change (no change since
      the failed attempt and nothing scheduled to happen), the pending evictions stop with an error
      naming the budget (``... nothing in the cluster will change that ...``); with a ``--timeout`` the
      retries go on, unchanged, until it is reached, and end with kubectl's timeout error;
    - with no ``--timeout``, kubesim gives up after an hour of simulated time (UNBOUNDED_WAIT).

    The same holds for the wait for a pod's deletion (after an eviction, or for each pod with
    ``--disable-eviction``, whose own timeout error is wait.PollImmediate's "timed out waiting for
    the condition"). A server dry run only asks the eviction API and does not wait.
    """
    from kubesim.engine.settle import settle
    from kubesim.engine.workloads import should_skip_pod
    from kubesim.kubelet.format import go_duration

    if not pods:
        return None
    grace = grace_period if grace_period >= 0 else None
    runs = [_PodRun(p) for p in pods]
    start = cluster.now()
    deadline = start + timeout if timeout != 0 else None
    limit = go_duration(timeout) if timeout > 0 else ("-" + go_duration(-timeout) if timeout < 0 else "")
    verb = "deleted" if disable_eviction else "evicted"
    errors: list[str] = []
    seq = 0  # counts changes to the cluster (an eviction, a settle round, a pod gone)

    def finish_wait(run: _PodRun, now: float) -> bool:
        """One waitForDelete poll; True when the run is over."""
        if _gone(cluster, run):
            out.write(f"pod/{run.name} {verb}\n")
            return True
        p = cluster.store.get("Pod", run.ns, run.name)
        if should_skip_pod(p or {}, skip_wait_seconds, now):
            out.write(f'pod "{run.name}" has DeletionTimestamp older than {skip_wait_seconds} seconds, skipping\n')
            return True
        return False

    if disable_eviction:
        for run in runs:
            try:
                if not server_dry_run:
                    from kubesim.engine import objects

                    objects.delete_object(cluster, kinds.by_kind("Pod"), run.ns, run.name, grace_seconds=grace)
            except NotFound:
                pass
            run.phase, run.started, run.next_poll = "wait", start, start + POLL_INTERVAL
            seq += 1
        if server_dry_run:
            return None
        for run in runs:  # PollImmediate: before the kubelets act
            if finish_wait(run, start):
                run.phase = "done"
    now = start
    settled_seq = 0  # the session settled the cluster before the first write
    while True:
        # waitForDelete polls
        for run in runs:
            if run.phase == "wait" and run.next_poll <= now + _EPS:
                if finish_wait(run, now):
                    run.phase = "done"
                    seq += 1
                elif not disable_eviction and deadline is not None and now >= deadline - _EPS:
                    run.phase = "done"  # the drain's context is done
                    errors.append(_wait_error(run, False, f"global timeout reached: {limit}"))
                else:
                    run.next_poll = now + POLL_INTERVAL
        # eviction attempts
        due = cluster.store.meta("settle.due")
        for run in runs:
            if run.phase != "evict" or run.next_try > now + _EPS:
                continue
            out.write(f"evicting pod {run.ns}/{run.name}" + (" (server dry run)" if server_dry_run else "") + "\n")
            if deadline is not None and now >= deadline - _EPS:
                run.phase = "done"
                errors.append(f'error when evicting pods/"{run.name}" -n "{run.ns}": global timeout reached: {limit}')
                continue
            if deadline is None and run.failed_seq is not None:
                if run.failed_seq == seq and due is None:
                    run.phase = "done"
                    errors.append(f'error when evicting pods/"{run.name}" -n "{run.ns}": {VIOLATES_BUDGET} '
                                  f"{run.cause}, and nothing in the cluster will change that (kubectl would retry "
                                  "every 5s forever; kubesim stops)")
                    continue
                if now - start >= UNBOUNDED_WAIT - _EPS:
                    run.phase = "done"
                    errors.append(f'error when evicting pods/"{run.name}" -n "{run.ns}": kubesim stopped retrying '
                                  f"after {go_duration(UNBOUNDED_WAIT)} of simulated time (kubectl would retry "
                                  "forever; set --timeout)")
                    continue
            try:
                evict(cluster, run.ns, run.name, grace, dry_run=server_dry_run)
            except NotFound:
                run.phase = "done"
                continue
            except TooManyRequests as e:
                err.write(f'error when evicting pods/"{run.name}" -n "{run.ns}" (will retry after 5s): {e.message}\n')
                run.next_try = now + RETRY_INTERVAL
                run.failed_seq = seq
                run.cause = getattr(e, "cause", "")
                continue
            except StatusError as e:
                run.phase = "done"
                errors.append(f'error when evicting pods/"{run.name}" -n "{run.ns}": {e.message}')
                continue
            seq += 1
            if server_dry_run:
                run.phase = "done"
                continue
            run.phase, run.started = "wait", now
            if finish_wait(run, now):  # PollImmediate
                run.phase = "done"
            else:
                run.next_poll = now + POLL_INTERVAL
        if all(r.phase == "done" for r in runs):
            break
        # the cluster reacts at once to this instant's evictions (the controllers create
        # replacements, the kubelets start terminating); it then stays as it is until the next
        # moment some component asked to be woken (``settle.due``)
        if seq != settled_seq and settle(cluster, force=True):
            seq += 1
        settled_seq = seq
        due = cluster.store.meta("settle.due")
        times = []
        for run in runs:
            if run.phase == "evict":
                times.append(run.next_try)
            elif run.phase == "wait":
                # polls before the next due moment would see the same pod: skip them
                skip_at = _skip_moment(cluster, run, skip_wait_seconds)
                if _gone(cluster, run):
                    t = run.next_poll
                elif due is not None:
                    t = max(run.next_poll, _grid_at_or_after(run.started, min(float(due), skip_at or float(due))))
                elif deadline is not None:
                    t = max(run.next_poll, _grid_at_or_after(run.started, min(deadline, skip_at or deadline)))
                elif skip_at is not None:
                    t = max(run.next_poll, skip_at)
                else:
                    run.phase = "done"
                    errors.append(_wait_error(run, disable_eviction, "nothing in the cluster will finish its "
                                              "termination (kubectl would wait forever; kubesim stops)"))
                    continue
                if deadline is None and t - start >= UNBOUNDED_WAIT - _EPS:
                    run.phase = "done"
                    errors.append(_wait_error(run, disable_eviction, f"kubesim stopped waiting after "
                                              f"{go_duration(UNBOUNDED_WAIT)} of simulated time (kubectl would wait "
                                              "forever; set --timeout)"))
                    continue
                times.append(t)
        if not times:
            break
        nxt = min(times)
        if disable_eviction and deadline is not None and nxt >= deadline - _EPS:
            # wait.PollImmediate's own timeout (deletePods waits without the drain's context)
            _advance_to(cluster, deadline)
            return ["timed out waiting for the condition"], False
        if _advance_to(cluster, nxt):
            seq += 1
        settled_seq = seq
        now = nxt
    if not errors:
        return None
    if disable_eviction:
        return [errors[0]], False
    return errors, True


def _advance_to(cluster, t: float) -> bool:
    """Move the simulated clock to ``t`` the way time flows (as ``kubesim advance`` does),
    settling at every due moment on the way; True when anything changed."""
    from kubesim.engine.settle import settle

    changed, last = False, None
    while True:
        due = cluster.store.meta("settle.due")
        if due is None or float(due) > t + _EPS or (last is not None and float(due) <= last + _EPS):
            break
        last = float(due)
        _move_clock(cluster, last)
        if settle(cluster, force=True):
            changed = True
    _move_clock(cluster, t)
    return changed


def _move_clock(cluster, t: float) -> None:
    now = cluster.now()
    if t > now:
        cluster.advance(t - now)


def _skip_moment(cluster, run: _PodRun, skip_seconds: int) -> float | None:
    """The first poll at which shouldSkipPod gives up on the pod (its deletionTimestamp more than
    ``skip_seconds`` whole seconds ago), or None."""
    from kubesim.clock import parse_timestamp

    if skip_seconds <= 0:
        return None
    p = cluster.store.get("Pod", run.ns, run.name)
    ts = parse_timestamp(((p or {}).get("metadata") or {}).get("deletionTimestamp"))
    if ts is None:
        return None
    return _grid_at_or_after(run.started, ts + skip_seconds + 1)


def _wait_error(run: _PodRun, deleting: bool, detail: str) -> str:
    if deleting:  # deletePods' own error names no pod
        return f'pod "{run.name}" in namespace "{run.ns}" is still terminating: {detail}'
    return f'error when waiting for pod "{run.name}" in namespace "{run.ns}" to terminate: {detail}'
