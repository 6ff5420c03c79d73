"""Container probes: what each probe would answer over a container's life, and the probe
workers' counting rules.

Upstream: pkg/kubelet/prober/worker.go (a worker per probe ticks every ``periodSeconds`` on a
grid that starts when the pod is first synced; it skips a container that is not running,
liveness and readiness until the startup probe succeeded, the startup probe once it did, every
probe while ``int(now - startedAt) < initialDelaySeconds``, and liveness/startup "on hold" after
a failure until a new container instance appears; the result only changes after
``successThreshold`` consecutive successes or ``failureThreshold`` consecutive failures; the
initial result is Failure for readiness, Success for liveness, Unknown for startup),
pkg/kubelet/prober/prober.go (the Unhealthy event ``"<Probe> probe failed: <output>"`` on every
failed probe), pkg/probe/http/http.go (``HTTP probe failed with statuscode: 500``; a refused
connection reads ``Get "http://10.244.1.5:8080/healthz": dial tcp 10.244.1.5:8080: connect:
connection refused``), pkg/probe/tcp/tcp.go, pkg/probe/exec/exec.go (the command's output),
pkg/probe/grpc/grpc.go.

A probe's answer is a piecewise-constant function of the time since the container started
(:func:`answers`): from the behaviour (files an exec probe reads, ports it connects to, the
agnhost ``liveness`` server) and the ``kubesim.io/behaviour`` / ``kubesim.io/probe-failure``
overrides. That lets the pod worker jump over thousands of identical probe ticks at once; the
workers' running state (which tick is next, the consecutive results) is probe_workers.py.
"""

from __future__ import annotations

import math

from kubesim.api.record import FrozenRecord
from kubesim.kubelet.behaviour import Behaviour

KINDS = ("startup", "liveness", "readiness")
FIELD = {"startup": "startupProbe", "liveness": "livenessProbe", "readiness": "readinessProbe"}
TITLE = {"startup": "Startup", "liveness": "Liveness", "readiness": "Readiness"}


class ProbeSpec(FrozenRecord):
    __slots__ = ("detail", "failure_threshold", "handler", "initial_delay", "kind", "period",
                 "success_threshold", "termination_grace", "timeout")

    def __init__(self, kind: str, handler: str, detail: dict, initial_delay: int = 0, period: int = 10,
                 timeout: int = 1, success_threshold: int = 1, failure_threshold: int = 3,
                 termination_grace: int | None = None):
        self.kind = kind
        self.handler = handler          # exec | httpGet | tcpSocket | grpc
        self.detail = detail
        self.initial_delay = initial_delay
        self.period = period
        self.timeout = timeout
        self.success_threshold = success_threshold
        self.failure_threshold = failure_threshold
        self.termination_grace = termination_grace


def probe_specs(container: dict) -> dict[str, ProbeSpec]:
    """The container's probes by kind, with upstream's defaults (SetDefaults_Probe)."""
    out = {}
    for kind in KINDS:
        p = container.get(FIELD[kind])
        if not isinstance(p, dict):
            continue
        handler = next((h for h in ("exec", "httpGet", "tcpSocket", "grpc") if isinstance(p.get(h), dict)), None)
        if handler is None:
            continue
        out[kind] = ProbeSpec(
            kind=kind, handler=handler, detail=p[handler],
            initial_delay=int(p.get("initialDelaySeconds") or 0),
            period=max(int(p.get("periodSeconds") or 10), 1),
            timeout=int(p.get("timeoutSeconds") or 1),
            success_threshold=int(p.get("successThreshold") or 1),
            failure_threshold=int(p.get("failureThreshold") or 3),
            termination_grace=p.get("terminationGracePeriodSeconds"),
        )
    return out


def resolve_container_port(container: dict, port) -> int | None:
    """pkg/probe/util.go ResolveContainerPort: a number, or the named port of the container."""
    if isinstance(port, int) or (isinstance(port, str) and port.isdigit()):
        return int(port)
    for p in container.get("ports") or ():
        if isinstance(p, dict) and p.get("name") == port:
            try:
                return int(p.get("containerPort"))
            except (TypeError, ValueError):
                return None
    return None


def answers(spec: ProbeSpec, b: Behaviour, container: dict, pod_ip: str) -> list[tuple[float, bool, str]]:
    """[(from_offset, ok, output)] sorted by offset, the first at 0: the probe's answer from
    each offset (seconds since the container started) until the next."""
    base = _base_answers(spec, b, container, pod_ip)
    ov = b.probes.get(spec.kind)
    if ov is None:
        return base
    fail_output = next((o for _, ok, o in base if not ok), None)
    if fail_output is None:
        fail_output = _forced_failure(spec, container, pod_ip)
    if ov.fail:
        head = [seg for seg in base if seg[0] < ov.after]
        return (head or [(0.0, True, "")]) + [(ov.after, False, fail_output)] if ov.after > 0 else [(0.0, False, fail_output)]
    # forced to pass after `after`
    head = [seg for seg in base if seg[0] < ov.after]
    return (head if ov.after > 0 else []) + [(ov.after, True, "")]


def _forced_failure(spec: ProbeSpec, container: dict, pod_ip: str) -> str:
    if spec.handler == "httpGet":
        return "HTTP probe failed with statuscode: 500"
    if spec.handler == "tcpSocket":
        host = spec.detail.get("host") or pod_ip
        return f"dial tcp {host}:{resolve_container_port(container, spec.detail.get('port'))}: connect: connection refused"
    if spec.handler == "grpc":
        return "service unhealthy (responded with \"NOT_SERVING\")"
    return ""


def _listening(b: Behaviour, port: int | None) -> bool:
    if b.ports is None:
        return True
    return port is not None and port in b.ports


def _base_answers(spec: ProbeSpec, b: Behaviour, container: dict, pod_ip: str) -> list[tuple[float, bool, str]]:
    d = spec.detail
    if spec.handler == "exec":
        return _exec_answers(list(d.get("command") or []), b)
    host = d.get("host") or pod_ip
    port = resolve_container_port(container, d.get("port"))
    if spec.handler == "httpGet":
        scheme = (d.get("scheme") or "HTTP").lower()
        path = d.get("path") or "/"
        if not _listening(b, port):
            url = f"{scheme}://{host}:{port}{path}"
            return [(0.0, False, f'Get "{url}": dial tcp {host}:{port}: connect: connection refused')]
        if b.http_fail_after is not None:
            return [(0.0, True, ""), (b.http_fail_after, False, "HTTP probe failed with statuscode: 500")]
        return [(0.0, True, "")]
    if spec.handler == "tcpSocket":
        if not _listening(b, port):
            return [(0.0, False, f"dial tcp {host}:{port}: connect: connection refused")]
        return [(0.0, True, "")]
    # grpc
    if not _listening(b, port):
        return [(0.0, False, f'timeout: failed to connect service "{host}:{port}" within {spec.timeout}s')]
    return [(0.0, True, "")]


_FILE_READERS = {"cat", "test", "[", "ls", "stat", "head", "tail"}


def _exec_answers(argv: list[str], b: Behaviour) -> list[tuple[float, bool, str]]:
    """Exec probes: ``cat F`` / ``test -f F`` / ``ls F`` follow the file's life in the
    behaviour; ``false`` and ``exit N`` fail; anything else succeeds."""
    if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in ("sh", "bash", "ash") and argv[1].startswith("-") and "c" in argv[1]:
        import shlex

        try:
            argv = shlex.split(argv[2])
        except ValueError:
            return [(0.0, True, "")]
    if not argv:
        return [(0.0, True, "")]
    head = argv[0].rsplit("/", 1)[-1]
    if head == "false":
        return [(0.0, False, "")]
    if head == "exit":
        ok = len(argv) < 2 or argv[1] == "0"
        return [(0.0, ok, "")]
    if head in _FILE_READERS:
        files = [a for a in argv[1:] if not a.startswith("-") and a not in ("]", "!")]
        if not files:
            return [(0.0, True, "")]
        path = files[0]
        if head == "cat":
            missing = f"cat: can't open '{path}': No such file or directory"
        elif head == "ls":
            missing = f"ls: {path}: No such file or directory"
        elif head == "stat":
            missing = f"stat: can't stat '{path}': No such file or directory"
        elif head in ("head", "tail"):
            missing = f"{head}: {path}: No such file or directory"
        else:
            missing = ""
        points = sorted({0.0, *b.file_changes(path)})
        out: list[tuple[float, bool, str]] = []
        for t in points:
            ok = b.file_exists(path, t)
            if out and out[-1][1] == ok:
                continue
            out.append((t, ok, "" if ok else missing))
        return out
    return [(0.0, True, "")]


def answer_at(segments: list[tuple[float, bool, str]], offset: float) -> tuple[bool, str]:
    ok, out = True, ""
    for t, o, msg in segments:
        if t <= offset + 1e-9:
            ok, out = o, msg
        else:
            break
    return ok, out


def event_message(kind: str, output: str) -> str:
    """prober.go: ``"%s probe failed: %s"`` with the probe type title-cased."""
    return f"{TITLE[kind]} probe failed: {output}"


# --------------------------------------------------------------------------------------------
# tick arithmetic


def first_tick_at_or_after(epoch: float, period: float, t: float) -> float:
    """The first time ``epoch + k*period`` (k >= 0) at or after ``t``."""
    if t <= epoch:
        return epoch
    k = math.ceil((t - epoch) / period - 1e-9)
    return epoch + k * period


def first_probing_tick(epoch: float, spec: ProbeSpec, started_at: float, not_before: float) -> float:
    """The first tick at or after ``not_before`` at which the worker actually probes a
    container started at ``started_at``: ``int(tick - startedAt) >= initialDelaySeconds``."""
    t = first_tick_at_or_after(epoch, spec.period, max(not_before, started_at + spec.initial_delay))
    return t


def count_ticks(first: float, period: float, end_exclusive: float, limit_inclusive: float) -> int | None:
    """How many of ``first + k*period`` fall before ``end_exclusive`` and at or before
    ``limit_inclusive`` (None when both are infinite)."""
    bounds = []
    if end_exclusive != math.inf:
        bounds.append(max(math.ceil((end_exclusive - first) / period - 1e-7), 0))
    if limit_inclusive != math.inf:
        bounds.append(max(math.floor((limit_inclusive - first) / period + 1e-7) + 1, 0))
    return min(bounds) if bounds else None
