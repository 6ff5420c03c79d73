"""How the simulated kubelet writes times, durations and pods into statuses, events and messages.

Upstream: pkg/kubelet/util/format/pod.go (``format.Pod``: ``name_namespace(uid)``, as back-off
messages and events name a pod) and Go's time.Duration.String (``10s``, ``1m20s``, ``5m0s``,
``500ms``) for the durations in back-off and image-pull messages.

Kubelet times are float seconds; the arithmetic that moves them by periods and grace times can
leave one a hair off the whole value it stands for. ``EPS`` is the tolerance for comparing them,
and :func:`format_time` adds it before truncating to the second.
"""

from __future__ import annotations

from kubesim import clock

EPS = 1e-6


def format_time(t: float) -> str:
    """clock.format_time of a kubelet time, which float arithmetic may leave a hair (EPS) under
    the whole second it stands for."""
    return clock.format_time(t + EPS)


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String() for whole milliseconds: 10s, 1m20s, 5m0s, 500ms, 1.5s."""
    ms = int(round(seconds * 1000))
    if ms == 0:
        return "0s"
    if ms < 1000:
        return f"{ms}ms"
    hours, rest = divmod(ms, 3600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = (f"{rest / 1000:.3f}".rstrip("0").rstrip(".")) + "s"
    if hours:
        return f"{hours}h{minutes}m{secs}"
    if minutes:
        return f"{minutes}m{secs}"
    return secs


def pod_ref(pod: dict) -> str:
    """format.Pod: ``name_namespace(uid)``."""
    md = pod.get("metadata") or {}
    return f"{md.get('name', '')}_{md.get('namespace') or 'default'}({md.get('uid', '')})"
