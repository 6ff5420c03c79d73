"""Plugin outcomes: a small code enum and a Status carrying reasons and the rejecting plugin.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (``Code``, ``Status``,
``NewStatus``, ``AsStatus``, ``Status.Message`` joining reasons with ", ", ``IsRejected`` covering
Unschedulable, UnschedulableAndUnresolvable and Pending).

As upstream, ``None`` stands for success everywhere a status is returned; the module-level
helpers (``code_of``, ``is_success``, ...) accept ``None``.
"""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """Status codes, in upstream's order (their integer values match upstream's iota)."""

    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


_new_object = object.__new__

_REJECTED = frozenset((Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending))


class Status:
    """The result of running a plugin: a code, the reasons users read, and who said so."""

    __slots__ = ("code", "err", "plugin", "reasons")

    def __init__(self, code: Code = Code.Success, *reasons: str, err: str | None = None,
                 plugin: str = "") -> None:
        self.code = code
        self.reasons = list(reasons)
        self.err = err
        self.plugin = plugin

    # -- readers, named as upstream's -------------------------------------------------------
    def all_reasons(self) -> list[str]:
        """``Reasons()``: the error text (if any) first, then the reasons."""
        if self.err is not None:
            return [self.err, *self.reasons]
        return self.reasons

    def message(self) -> str:
        return ", ".join(self.all_reasons())

    def is_success(self) -> bool:
        return self.code == Code.Success

    def is_rejected(self) -> bool:
        return self.code in _REJECTED

    def is_skip(self) -> bool:
        return self.code == Code.Skip

    def is_wait(self) -> bool:
        return self.code == Code.Wait

    def is_error(self) -> bool:
        return self.code == Code.Error

    def as_error(self) -> str | None:
        """The error text, or None for Success, Wait and Skip (``AsError``)."""
        if self.code in (Code.Success, Code.Wait, Code.Skip):
            return None
        if self.err is not None:
            return self.err
        return self.message()

    # -- writers ----------------------------------------------------------------------------
    def with_plugin(self, plugin: str) -> Status:
        self.plugin = plugin
        return self

    def with_error(self, err: str) -> Status:
        self.err = err
        return self

    def clone(self) -> Status:
        c = _new_object(Status)
        c.code = self.code
        c.reasons = self.reasons.copy()
        c.err = self.err
        c.plugin = self.plugin
        return c

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.reasons, self.err, self.plugin) == (
            other.code, other.reasons, other.err, other.plugin)

    def __hash__(self) -> int:  # pragma: no cover - statuses are not used as keys
        return hash((self.code, tuple(self.reasons), self.err, self.plugin))

    def __repr__(self) -> str:
        extra = f", plugin={self.plugin!r}" if self.plugin else ""
        err = f", err={self.err!r}" if self.err is not None else ""
        return f"Status({self.code.name}, {self.reasons!r}{err}{extra})"


def new_status(code: Code, *reasons: str) -> Status:
    """``NewStatus``."""
    return Status(code, *reasons)


def as_status(err: str | None) -> Status | None:
    """``AsStatus``: wrap an error text in an Error status (None stays None)."""
    if err is None:
        return None
    return Status(Code.Error, err=err)


def code_of(status: Status | None) -> Code:
    return Code.Success if status is None else status.code


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.Success


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.code in _REJECTED


def is_skip(status: Status | None) -> bool:
    return status is not None and status.code == Code.Skip


def message_of(status: Status | None) -> str:
    return "" if status is None else status.message()


# The Skip a plugin returns when it has nothing to do for a pod (PreFilter, PreScore): one for
# every plugin and cycle, as nothing changes a Skip status (the framework records the plugin
# as skipped and moves on, naming it on no status).
SKIP = Status(Code.Skip)
