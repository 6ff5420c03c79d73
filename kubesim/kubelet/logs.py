"""What a container instance printed by a given time: the lines of its log, as the runtime's
log file holds them for ``kubectl logs`` (pkg/kubelet/kuberuntime/logs/logs.go ReadLogs; the
kubelet's side, which instance to read, is kubelet_pods.logs).

A program kubesim ran to its end printed :attr:`Behaviour.output`; one that loops for ever
(``while true; do date; sleep 5; done``) is run again up to the moment asked for, so its log
grows with simulated time. ``{ts:FORMAT}`` in a line is the time it was printed (strftime, UTC),
as ``date`` and nginx's own log lines show it. At most ``MAX_LOG_LINES`` are kept, the newest.
"""

from __future__ import annotations

import re
import time as _time

from kubesim.kubelet.behaviour import MAX_LOG_LINES, Behaviour
from kubesim.kubelet.shell import MAX_STEPS, RunContext, run_program


def log_lines(behaviour: Behaviour, started: float, until: float) -> list[str]:
    """What the instance started at ``started`` printed by ``until`` (absolute times)."""
    elapsed = until - started
    if behaviour.program is not None:
        argv, env, pod_name = behaviour.program
        ctx = RunContext(env=dict(env), pod_name=pod_name, start=started, until=elapsed,
                         max_steps=MAX_STEPS * 5, loop_cap=None)
        out = run_program(list(argv), ctx).output
    else:
        out = behaviour.output
    lines = []
    for t, line in out:
        if t > elapsed + 1e-9:
            break
        lines.append(_format_line(line, started + t))
    return lines[-MAX_LOG_LINES:]


def _format_line(line: str, t: float) -> str:
    def timestamp(m):
        return _time.strftime(m.group(1), _time.gmtime(t))
    return re.sub(r"\{ts:([^}]*)\}", timestamp, line)
