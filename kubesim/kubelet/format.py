"""How the simulated kubelet writes times, durations and pods into statuses, events and messages.

Upstream: pkg/kubelet/util/format/pod.go (``format.Pod``: ``name_namespace(uid)``, as back-off
messages and events name a pod). Durations in back-off and image-pull messages are Go's
time.Duration.String, ``kubesim.clock.format_duration``.

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


def pod_ref(pod: dict) -> str:
    """format.Pod: ``name_namespace(uid)``."""
    md = pod.get("metadata") or {}
    return f"{md.get('name', '')}_{md.get('namespace') or 'default'}({md.get('uid', '')})"
