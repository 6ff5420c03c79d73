"""core/v1 PodLogOptions: what a ``pods/log`` request may ask, its validation, and how a
container's log is cut to it.

Upstream: pkg/apis/core/validation/validation.go (ValidatePodLogOptions: tailLines not negative,
limitBytes and sinceSeconds at least 1, at most one of sinceTime and sinceSeconds),
pkg/registry/core/pod/strategy.go (validateContainer: the container must be one of the pod's;
with none named, a pod of one container gets it) and k8s.io/cri-client pkg/logs/logs.go, which
the kubelet reads a log file with (NewLogOptions: ``since`` is the later of now − sinceSeconds
and sinceTime; ReadLogs: the last ``tail`` lines, those older than ``since`` skipped, each
prefixed with its RFC3339NanoFixed timestamp and a space when asked, the whole cut at
``limitBytes``, mid-line if it falls there).

A log here is a list of ``(time, line)`` entries, oldest first: what the simulated kubelet
recorded a container printing.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

from kubesim.errors import BadRequest, FieldError, Invalid, forbidden, invalid

NEGATIVE = "must be greater than or equal to 0"  # validation.go isNegativeErrorMsg


@dataclass(frozen=True)
class PodLogOptions:
    container: str = ""
    previous: bool = False
    follow: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    since_seconds: int | None = None
    since_time: float | None = None  # epoch seconds
    limit_bytes: int | None = None


def validate(opts: PodLogOptions) -> list[FieldError]:
    """ValidatePodLogOptions (stream selection off, as v1.35 serves it by default)."""
    errs: list[FieldError] = []
    if opts.tail_lines is not None and opts.tail_lines < 0:
        errs.append(invalid("tailLines", opts.tail_lines, NEGATIVE))
    if opts.limit_bytes is not None and opts.limit_bytes < 1:
        errs.append(invalid("limitBytes", opts.limit_bytes, "must be greater than 0"))
    if opts.since_seconds is not None and opts.since_time is not None:
        errs.append(forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif opts.since_seconds is not None and opts.since_seconds < 1:
        errs.append(invalid("sinceSeconds", opts.since_seconds, "must be greater than 0"))
    return errs


def check(pod_name: str, opts: PodLogOptions) -> None:
    """The log REST's validation: an Invalid PodLogOptions error, as the API server returns it."""
    errs = validate(opts)
    if errs:
        raise Invalid("PodLogOptions", pod_name, errs)


def container_for(pod: dict, container: str) -> str:
    """strategy.go validateContainer: the container a request reads, or the API server's
    BadRequest."""
    spec = pod.get("spec") or {}
    name = (pod.get("metadata") or {}).get("name", "")
    containers = spec.get("containers") or []
    if not container:
        if len(containers) == 1:
            return containers[0].get("name", "")
        if not containers:
            raise BadRequest(f"a container name must be specified for pod {name}")
        every = [c.get("name", "") for group in ("initContainers", "containers", "ephemeralContainers")
                 for c in spec.get(group) or []]
        raise BadRequest(f"a container name must be specified for pod {name}, choose one of: "
                         f"[{' '.join(every)}]")
    if not any(c.get("name") == container
               for group in ("initContainers", "containers", "ephemeralContainers") for c in spec.get(group) or []):
        raise BadRequest(f"container {container} is not valid for pod {name}")
    return container


def since(opts: PodLogOptions, now: float) -> float | None:
    """cri-client NewLogOptions: the moment before which lines are skipped (None: all)."""
    t = now - opts.since_seconds if opts.since_seconds is not None else None
    if opts.since_time is not None and (t is None or opts.since_time > t):
        t = opts.since_time
    return t


def timestamp(t: float) -> str:
    """RFC3339NanoFixed in UTC: ``2026-11-22T10:00:00.000000000Z``."""
    sec = int(t // 1)
    nanos = round((t - sec) * 1_000_000_000)
    if nanos >= 1_000_000_000:
        sec, nanos = sec + 1, nanos - 1_000_000_000
    return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(sec)) + f".{nanos:09d}Z"


def lines(entries: list[tuple[float, str]], opts: PodLogOptions, now: float) -> list[str]:
    """The lines ReadLogs writes, each without its newline: the last ``tail_lines`` entries,
    those older than ``since`` skipped, timestamped when asked (``limit_bytes`` aside)."""
    if opts.tail_lines is not None and opts.tail_lines >= 0:
        entries = entries[len(entries) - opts.tail_lines:] if opts.tail_lines else []
    start = since(opts, now)
    if start is not None:
        entries = [e for e in entries if e[0] >= start]
    if opts.timestamps:
        return [f"{timestamp(t)} {line}" for t, line in entries]
    return [line for _, line in entries]


def cut(text: str, limit_bytes: int | None) -> str:
    """The first ``limit_bytes`` bytes of ``text`` (all of it when None)."""
    if limit_bytes is None:
        return text
    data = text.encode()
    if len(data) <= limit_bytes:
        return text
    return data[:limit_bytes].decode(errors="ignore")


def read(entries: list[tuple[float, str]], opts: PodLogOptions, now: float) -> str:
    """What the kubelet returns for the request: the selected lines, cut at ``limit_bytes``."""
    return cut("".join(line + "\n" for line in lines(entries, opts, now)), opts.limit_bytes)
