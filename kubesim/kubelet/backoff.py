"""The kubelet's crash-loop back-off, per container: how long a container that exited waits
before its restart.

Upstream: k8s.io/client-go/util/flowcontrol/backoff.go, the Backoff the runtime manager keeps
per container (kuberuntime_manager.go doBackOff): ``Next`` starts at the initial period (10 s)
and doubles up to the maximum (300 s); ``IsInBackOffSince`` holds while less than the current
period has passed since the container finished; an entry expires (back to the initial period)
once its last update is more than twice the maximum before the container's finish.

The state lives in the container's memory record (memory.py): ``bo`` the current period, ``boUpd``
when it was last advanced. ``config`` is the pod worker's KubeletConfig (``backoff_initial``,
``backoff_max``).
"""

from __future__ import annotations

from kubesim.kubelet.format import EPS


def _expired(record: dict, event_time: float, config) -> bool:
    return event_time - record["boUpd"] > 2 * config.backoff_max


def is_in_backoff_since(record: dict, event_time: float, now: float, config) -> bool:
    """IsInBackOffSince: the container that finished at ``event_time`` still waits at ``now``."""
    if record.get("bo") is None:
        return False
    if _expired(record, event_time, config):
        return False
    return now - event_time < record["bo"] - EPS


def next_backoff(record: dict, event_time: float, now: float, config) -> None:
    """Next: the period for the restart after the finish at ``event_time``, recorded at ``now``."""
    if record.get("bo") is None or _expired(record, event_time, config):
        record["bo"] = config.backoff_initial
    else:
        record["bo"] = min(record["bo"] * 2, config.backoff_max)
    record["boUpd"] = now
