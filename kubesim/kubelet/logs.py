"""``kubesim logs``: which instance of a container to read, and what it printed by a given time.

Upstream: pkg/kubelet/kubelet_pods.go (GetContainerLogs and validateContainerLogStatus: the
running instance, or the last terminated one; ``--previous`` the one before, else ``previous
terminated container "c" in pod "p" not found``; a waiting container ``is waiting to start:
<reason>``) and pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs: the lines of the instance's log
file).

A program kubesim ran to its end printed :attr:`Behaviour.output`; one that loops for ever
(``while true; do date; sleep 5; done``) is run again up to the moment asked for, so its log
grows with simulated time. ``{ts:FORMAT}`` in a line is the time it was printed (strftime, UTC),
as ``date`` and nginx's own log lines show it. At most ``MAX_LOG_LINES`` are kept, the newest.
"""

from __future__ import annotations

import re
import time as _time

from kubesim.clock import parse_timestamp
from kubesim.kubelet.behaviour import MAX_LOG_LINES, Behaviour, behaviour
from kubesim.kubelet.envvars import with_field_refs
from kubesim.kubelet.overrides import override_for
from kubesim.kubelet.pod_workers import DEFAULT_CONFIG, KubeletConfig
from kubesim.kubelet.shell import MAX_STEPS, RunContext, run_program


def logs(pod: dict, container: str | None, now: float, previous: bool = False,
         config: KubeletConfig = DEFAULT_CONFIG) -> list[str]:
    """What ``kubesim logs`` prints: the output of the container's current instance (or the
    previous one) by ``now``. Raises LookupError with kubectl's messages."""
    return [line for _, line in entries(pod, container, now, previous, config)]


def entries(pod: dict, container: str | None, now: float, previous: bool = False,
            config: KubeletConfig = DEFAULT_CONFIG,
            extra: list[tuple[float, str]] | None = None, get=None, network=None) -> list[tuple[float, str]]:
    """The instance's log as ``(time printed, line)`` entries, oldest first (:func:`logs`).
    ``extra``: lines the program wrote that kubesim recorded elsewhere as it ran (the
    scheduler's klog lines), merged in where they fall within this instance's lifetime.
    ``get(kind, namespace, name)`` reads the ConfigMaps and Secrets its environment names."""
    spec = pod.get("spec") or {}
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    name = container or ((spec.get("containers") or [{}])[0].get("name"))
    target = next((c for c in containers if c.get("name") == name), None)
    if target is None:
        md = pod.get("metadata") or {}
        raise LookupError(f'container {name} is not valid for pod {md.get("name")}')
    statuses = ((pod.get("status") or {}).get("initContainerStatuses") or []) + \
        ((pod.get("status") or {}).get("containerStatuses") or [])
    cs = next((s for s in statuses if s.get("name") == name), None) or {}
    state = cs.get("state") or {}
    if previous:
        term = (cs.get("lastState") or {}).get("terminated")
        if not term:
            raise LookupError(f'previous terminated container "{name}" in pod "{(pod.get("metadata") or {}).get("name")}" not found')
        started, until = parse_timestamp(term.get("startedAt")), parse_timestamp(term.get("finishedAt"))
    elif state.get("running"):
        started, until = parse_timestamp(state["running"].get("startedAt")), now
    elif state.get("terminated"):
        started, until = parse_timestamp(state["terminated"].get("startedAt")), parse_timestamp(state["terminated"].get("finishedAt"))
    elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff" and (cs.get("lastState") or {}).get("terminated"):
        term = cs["lastState"]["terminated"]
        started, until = parse_timestamp(term.get("startedAt")), parse_timestamp(term.get("finishedAt"))
    else:
        reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
        md = pod.get("metadata") or {}
        raise LookupError(f'container "{name}" in pod "{md.get("name")}" is waiting to start: {reason}')
    target = with_field_refs(target, pod)
    if get is not None:
        from kubesim.kubelet.kubelet_pods import with_resolved_env

        target = with_resolved_env(pod, target, get)
    derived = behaviour(target, config.image_defaults, pod_name=(pod.get("metadata") or {}).get("name", ""),
                        override=override_for(pod, name), start=started or 0.0,
                        network=(lambda argv: network(pod, argv)) if network else None)
    start, end = started or 0.0, until if until is not None else now
    out = log_entries(derived, start, end, network=(lambda argv: network(pod, argv)) if network else None)
    if extra:
        out = sorted(out + [e for e in extra if start <= e[0] <= end], key=lambda e: e[0])[-MAX_LOG_LINES:]
    return out


def log_lines(instance: Behaviour, started: float, until: float) -> list[str]:
    """What the instance (its behaviour) started at ``started`` printed by ``until`` (absolute
    times)."""
    return [line for _, line in log_entries(instance, started, until)]


def log_entries(instance: Behaviour, started: float, until: float, network=None) -> list[tuple[float, str]]:
    """:func:`log_lines` with the time each line was printed (``network``: what the network
    tools of an endless program answer, as kubesim.kubelet.behaviour takes it)."""
    elapsed = until - started
    if instance.program is not None:
        argv, env, pod_name, files = instance.program
        ctx = RunContext(env=dict(env), pod_name=pod_name, start=started, until=elapsed, files=dict(files),
                         max_steps=MAX_STEPS * 5, loop_cap=None, network=network)
        out = run_program(list(argv), ctx).output
    else:
        out = instance.output
    lines = []
    for t, line in out:
        if t > elapsed + 1e-9:
            break
        lines.append((started + t, _format_line(line, started + t)))
    return lines[-MAX_LOG_LINES:]


def _format_line(line: str, t: float) -> str:
    def timestamp(m):
        return _time.strftime(m.group(1), _time.gmtime(t))
    return re.sub(r"\{ts:([^}]*)\}", timestamp, line)
