"""One command's view of the cluster: the open store, the simulated clock, the seeded random
source, the event recorder and the klog logger. The engine is the only package that wires
these together; components receive what they need from it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

from kubesim.api.names import random_string
from kubesim.api.record import Record
from kubesim.clock import Clock, format_time, make_random
from kubesim.store import Store


class Logger(Record):
    """klog-format lines on stderr (``I1122 10:00:00.000000   4242 file.go:NN] "msg" k="v"``)."""

    __slots__ = ("now", "pid", "stream", "verbosity")

    def __init__(self, verbosity: int = 0, stream: TextIO | None = None, now: Callable[[], float] | None = None,
                 pid: int | None = None):
        self.verbosity = verbosity
        self.stream = stream
        self.now = now
        self.pid = os.getpid() if pid is None else pid

    def enabled(self, level: int) -> bool:
        return self.verbosity >= level

    def __call__(self, level: int, where: str, msg: str, kv: dict | None = None, severity: str = "I") -> None:
        if self.verbosity < level:
            return
        import time

        t = self.now() if self.now else time.time()
        tm = time.gmtime(t)
        micro = int((t - int(t)) * 1_000_000)
        head = f"{severity}{tm.tm_mon:02d}{tm.tm_mday:02d} {tm.tm_hour:02d}:{tm.tm_min:02d}:{tm.tm_sec:02d}.{micro:06d} {self.pid:7d} {where}]"
        parts = [head, _quote(msg)]
        for k, v in (kv or {}).items():
            parts.append(f"{k}={_kv(v)}")
        (self.stream or sys.stderr).write(" ".join(parts) + "\n")


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _kv(v) -> str:
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_kv(x) for x in v) + "]"
    return str(v)


def _stored_crds(store: Store, before):
    """The CRDs of ``store`` while it is open; then those last read, else ``before``'s. Only
    the thread that opened the store reads it: the registry is the process's, and another
    thread (``kubesim serve`` parsing a request before it takes the server's lock) must not use
    the connection while its owner does (SQLite's Python module crashed so), and gets what
    was last read, else ``before``'s."""
    from _thread import get_ident

    from kubesim.errors import StateError

    last: list[dict] | None = None
    owner = get_ident()

    def source() -> list[dict]:
        nonlocal last
        if get_ident() == owner:
            try:
                last = store.list("CustomResourceDefinition")
                return last
            except StateError:
                pass
        if last is not None:
            return last
        got = before() if before is not None else []
        if get_ident() == owner:
            last = got
        return got
    return source


class Cluster:
    """The state of one command: store + clock + rng + events + log."""

    def __init__(self, store: Store, env: dict | None = None, log: Logger | None = None):
        self.store = store
        self.env = os.environ if env is None else env
        self.clock = Clock.from_env(float(store.meta("clock.offset", 0.0)), self.env)
        counter = int(store.meta("rng.counter", 0))
        self.rng = make_random(counter, self.env)
        store.rng = self.rng if "KUBESIM_SEED" in self.env else None
        self.log = log or Logger()
        if self.log.now is None:
            self.log.now = self.clock.now
        self._rng_counter = counter
        self.next_due: float | None = None
        # the kinds the stored CustomResourceDefinitions serve, resolved on demand (and, once
        # the command's state is closed, as they were last read: printing comes after)
        from kubesim.api.kinds import REGISTRY

        REGISTRY.attach_custom(_stored_crds(store, REGISTRY.custom_source))

        from kubesim.apiserver.fieldmanager import Tracker

        # the manager of the writes being made (a request's fieldManager, or the component the
        # settle loop runs); None: writes are not tracked
        self.field_manager: str | None = None
        self.fields = Tracker(self)
        store.write_hook = self.fields.before_write

    def wake_at(self, t: float) -> None:
        """A component asks to run again at simulated time ``t``."""
        if self.next_due is None or t < self.next_due:
            self.next_due = t

    # -- time -----------------------------------------------------------------------------
    def now(self) -> float:
        return self.clock.now()

    def stamp(self) -> str:
        return format_time(self.clock.now())

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.store.set_meta("clock.offset", self.clock.offset)

    # -- transaction ------------------------------------------------------------------------
    @property
    def command_counter(self) -> int:
        """How many commands have written to this state before this one (it grows at every
        commit that writes; the seeded random source is derived from it)."""
        return self._rng_counter

    def commit(self) -> bool:
        if self.store.dirty:
            # the next command draws fresh (but, with KUBESIM_SEED, repeatable) random numbers
            self.store.set_meta("rng.counter", self._rng_counter + 1)
        return self.store.commit()

    def rollback(self) -> None:
        self.store.rollback()

    # -- helpers ---------------------------------------------------------------------------
    def random_suffix(self, n: int = 5) -> str:
        """apimachinery's ``utilrand.String`` (kubesim.api.names), from the command's random source."""
        return random_string(self.rng, n)

    def record(self, obj: dict, type_: str, reason: str, message: str, component: str,
               host: str = "", field_path: str = "", at: float | None = None, first: float | None = None,
               count: int = 1, action: str = "", related: dict | None = None) -> dict:
        """Record an Event about ``obj``; components call this instead of importing the engine.
        With an ``action`` it is an events.k8s.io event (the scheduler's recorder)."""
        from kubesim.apiserver import events

        if action:
            return events.eventf(self, obj, related, type_, reason, action, message, component, at)
        return events.record(self, obj, type_, reason, message, component, host, field_path, at, first, count)

    def namespace_exists(self, ns: str) -> bool:
        return self.store.get("Namespace", "", ns) is not None
