"""kubectl drain's helper: which pods of a node go (the filters), the cordon, and the evictions
and deletions that follow, with their retries and waits on the simulated clock.

Upstream: staging/src/k8s.io/kubectl/pkg/drain/{drain.go, filters.go, cordon.go}
(GetPodsForDeletion and its filters, in upstream's order: skip-deleted, DaemonSet, mirror, local
storage, unreplicated; evictPods, deletePods, waitForDelete). Evictions retried and polls run
side by side for many pods, so drain keeps its own schedule; it moves the clock with the same
client calls as ``kubesim.kubectl.waiting`` and shares its poll grid and its bound.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from kubesim.api import kinds
from kubesim.api.pods import is_mirror_pod
from kubesim.errors import NotFound, StatusError, TooManyRequests, UsageError
from kubesim.kubectl import waiting

DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"


@dataclass
class DrainOptions:
    force: bool = False
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    pod_selector: str | None = None
    grace_period: int = -1
    disable_eviction: bool = False
    skip_wait_for_delete_timeout: int = 0


@dataclass
class PodDelete:
    pod: dict
    delete: bool
    reason: str  # Okay | Skip | Warning | Error
    message: str = ""


@dataclass
class DrainPlan:
    items: list[PodDelete] = field(default_factory=list)

    def pods(self) -> list[dict]:
        return [i.pod for i in self.items if i.delete]

    def _grouped(self, reason: str) -> list[tuple[str, list[str]]]:
        groups: dict[str, list[str]] = {}
        for i in self.items:
            if i.reason == reason:
                msg = i.message if reason == "Warning" or i.message else "unexpected error"
                md = i.pod["metadata"]
                groups.setdefault(msg, []).append(f"{md.get('namespace', '')}/{md['name']}")
        return list(groups.items())

    def warnings(self) -> str:
        return "; ".join(f"{msg}: {', '.join(pods)}" for msg, pods in self._grouped("Warning"))

    def errors(self) -> list[str]:
        out = []
        for msg, pods in self._grouped("Error"):
            if msg.lower().startswith("cannot delete"):
                out.append(f"{msg}: {', '.join(pods)}")
            else:
                out.append(f"cannot delete {msg}: {', '.join(pods)}")
        return out


def _finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _controller_ref(pod: dict) -> dict | None:
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def plan_drain(client, node: str, opts: DrainOptions) -> DrainPlan:
    """GetPodsForDeletion: every pod on the node through the filters, in upstream's order."""
    from kubesim.api import selectors

    selector = None
    if opts.pod_selector:
        try:
            selector = selectors.parse_label_selector(opts.pod_selector)
        except ValueError as e:
            raise UsageError(str(e)) from None
    pods = client.list(kinds.by_kind("Pod"), None, field_selector=f"spec.nodeName={node}")
    plan = DrainPlan()
    for pod in pods:
        if selector is not None and not selector.matches(pod["metadata"].get("labels") or {}):
            continue
        status = PodDelete(pod, True, "Okay")
        for f in (_skip_deleted_filter, _daemonset_filter, _mirror_filter, _local_storage_filter,
                  _unreplicated_filter):
            status = f(client, pod, opts)
            if not status.delete:
                break
        plan.items.append(status)
    return plan


def should_skip_pod(pod: dict, skip_seconds: int, now: float) -> bool:
    """drain.shouldSkipPod: a deletionTimestamp more than ``skip_seconds`` whole seconds ago."""
    from kubesim.clock import parse_timestamp

    if skip_seconds <= 0:
        return False
    ts = parse_timestamp((pod.get("metadata") or {}).get("deletionTimestamp"))
    return ts is not None and int(now - ts) > skip_seconds


def _skip_deleted_filter(client, pod: dict, opts: DrainOptions) -> PodDelete:
    if should_skip_pod(pod, opts.skip_wait_for_delete_timeout, client.now()):
        return PodDelete(pod, False, "Skip")
    return PodDelete(pod, True, "Okay")


def _daemonset_filter(client, pod: dict, opts: DrainOptions) -> PodDelete:
    ref = _controller_ref(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or _finished(pod):
        return PodDelete(pod, True, "Okay")
    if client.find(kinds.by_kind("DaemonSet"), pod["metadata"].get("namespace", ""), ref.get("name", "")) is None:
        message = f'daemonsets.apps "{ref.get("name", "")}" not found'
        if opts.force:
            return PodDelete(pod, True, "Warning", message)
        return PodDelete(pod, False, "Error", message)
    if not opts.ignore_daemonsets:
        return PodDelete(pod, False, "Error", DAEMONSET_FATAL)
    return PodDelete(pod, False, "Warning", DAEMONSET_WARNING)


def _mirror_filter(client, pod: dict, opts: DrainOptions) -> PodDelete:
    if is_mirror_pod(pod):
        return PodDelete(pod, False, "Skip")
    return PodDelete(pod, True, "Okay")


def _local_storage_filter(client, pod: dict, opts: DrainOptions) -> PodDelete:
    if not any("emptyDir" in v for v in (pod.get("spec") or {}).get("volumes") or []) or _finished(pod):
        return PodDelete(pod, True, "Okay")
    if not opts.delete_emptydir_data:
        return PodDelete(pod, False, "Error", LOCAL_STORAGE_FATAL)
    return PodDelete(pod, True, "Warning", LOCAL_STORAGE_WARNING)


def _unreplicated_filter(client, pod: dict, opts: DrainOptions) -> PodDelete:
    if _finished(pod) or _controller_ref(pod) is not None:
        return PodDelete(pod, True, "Okay")
    if opts.force:
        return PodDelete(pod, True, "Warning", UNMANAGED_WARNING)
    return PodDelete(pod, False, "Error", UNMANAGED_FATAL)


def cordon(client, node: dict, unschedulable: bool) -> bool:
    """The cordon helper's update of spec.unschedulable; False when already so."""
    if bool((node.get("spec") or {}).get("unschedulable")) == unschedulable:
        return False
    new = copy.deepcopy(node)
    spec = new.setdefault("spec", {})
    if unschedulable:
        spec["unschedulable"] = True
    else:
        spec.pop("unschedulable", None)
    client.update(kinds.by_kind("Node"), new)
    return True


RETRY_INTERVAL = 5.0
POLL_INTERVAL = 1.0
UNBOUNDED_WAIT = waiting.UNBOUNDED_WAIT  # the waiting verbs' bound, shared
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
        self.refusal = ""  # the last 429's message and cause
        self.cause = ""


_POD = kinds.by_kind("Pod")


def _gone(client, run: _PodRun) -> bool:
    p = client.find(_POD, run.ns, run.name)
    return p is None or (p.get("metadata") or {}).get("uid") != run.uid


def _grid_at_or_after(start: float, t: float) -> float:
    """The first poll instant (start + k seconds) at or after ``t``."""
    return waiting.grid_at_or_after(start, POLL_INTERVAL, t)


def drain_pods(client, pods: list[dict], *, grace_period: int = -1, timeout: float = 0.0,
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
    from kubesim.clock import format_duration as go_duration

    if not pods:
        return None
    grace = grace_period if grace_period >= 0 else None
    runs = [_PodRun(p) for p in pods]
    start = client.now()
    deadline = start + timeout if timeout != 0 else None
    limit = go_duration(timeout) if timeout > 0 else ("-" + go_duration(-timeout) if timeout < 0 else "")
    verb = "deleted" if disable_eviction else "evicted"
    errors: list[str] = []
    seq = 0  # counts changes to the cluster (an eviction, a settle round, a pod gone)

    def finish_wait(run: _PodRun, now: float) -> bool:
        """One waitForDelete poll; True when the run is over."""
        if _gone(client, run):
            out.write(f"pod/{run.name} {verb}\n")
            return True
        p = client.find(_POD, run.ns, run.name)
        if should_skip_pod(p or {}, skip_wait_seconds, now):
            out.write(f'pod "{run.name}" has DeletionTimestamp older than {skip_wait_seconds} seconds, skipping\n')
            return True
        return False

    if disable_eviction:
        for run in runs:
            try:
                if not server_dry_run:
                    client.delete(_POD, run.ns, run.name, grace_period=grace)
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
        due = client.next_due()
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
                    errors.append(f'error when evicting pods/"{run.name}" -n "{run.ns}": {run.refusal} '
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
                client.evict(run.ns, run.name, grace_period=grace, dry_run=server_dry_run)
            except NotFound:
                run.phase = "done"
                continue
            except TooManyRequests as e:
                err.write(f'error when evicting pods/"{run.name}" -n "{run.ns}" (will retry after 5s): {e.message}\n')
                run.next_try = now + RETRY_INTERVAL
                run.failed_seq = seq
                run.refusal, run.cause = e.message, getattr(e, "cause", "")
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
        if seq != settled_seq and client.settle():
            seq += 1
        settled_seq = seq
        due = client.next_due()
        times = []
        for run in runs:
            if run.phase == "evict":
                times.append(run.next_try)
            elif run.phase == "wait":
                # polls before the next due moment would see the same pod: skip them
                skip_at = _skip_moment(client, run, skip_wait_seconds)
                if _gone(client, run):
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
            client.wait_until(deadline)
            return ["timed out waiting for the condition"], False
        if client.wait_until(nxt):
            seq += 1
        settled_seq = seq
        now = nxt
    if not errors:
        return None
    if disable_eviction:
        return [errors[0]], False
    return errors, True


def _skip_moment(client, run: _PodRun, skip_seconds: int) -> float | None:
    """The first poll at which shouldSkipPod gives up on the pod (its deletionTimestamp more than
    ``skip_seconds`` whole seconds ago), or None."""
    from kubesim.clock import parse_timestamp

    if skip_seconds <= 0:
        return None
    p = client.find(_POD, run.ns, run.name)
    ts = parse_timestamp(((p or {}).get("metadata") or {}).get("deletionTimestamp"))
    if ts is None:
        return None
    return _grid_at_or_after(run.started, ts + skip_seconds + 1)


def _wait_error(run: _PodRun, deleting: bool, detail: str) -> str:
    if deleting:  # deletePods' own error names no pod
        return f'pod "{run.name}" in namespace "{run.ns}" is still terminating: {detail}'
    return f'error when waiting for pod "{run.name}" in namespace "{run.ns}" to terminate: {detail}'
