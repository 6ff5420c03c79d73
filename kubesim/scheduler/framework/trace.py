"""An extension-point trace of one scheduling attempt (explain-schedule ``--trace``): kubesim's,
not upstream's.

The steps follow the order pkg/scheduler/schedule_one.go drives the framework
(pkg/scheduler/framework/runtime/framework.go) in v1.35: the queue's PreEnqueue (which admits
the pod to activeQ, pkg/scheduler/backend/queue/scheduling_queue.go ``moveToActiveQ``) and
QueueSort (which orders the admitted pods), then ``schedulingCycle`` (PreFilter, Filter, PostFilter when no node fits, PreScore, Score,
NormalizeScore, Reserve, Permit) and ``bindingCycle`` (WaitOnPermit, PreBind, Bind, PostBind),
with Unreserve in reverse order when Reserve, Permit, PreBind or Bind fails. Each step lists
the plugins framework.go ran, in its order, with the Status code each returned (upstream's code
names: Success, Error, Unschedulable, UnschedulableAndUnresolvable, Wait, Skip, Pending) and
stops where framework.go stops (the first rejecting Reserve plugin, the first non-Skip Bind
plugin, ...).

JSON shape (docs/explain-schedule-trace.md): a list of ``{"extensionPoint", "plugins": [{"name",
"code", "message"?, ...}], ...}``; a step that did not run says why in ``"note"``.
"""

from __future__ import annotations

from kubesim.scheduler.framework.status import Code, Status


def code_name(status: Status | None) -> str:
    """A Status's code as upstream names it (nil is Success)."""
    return "Success" if status is None else Code(status.code).name


class Trace:
    """The steps of one attempt, appended as the framework runs them."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps: list[dict] = []

    def step(self, point: str, **fields) -> dict:
        """Start an extension point's step; plugins are added with ``plugin``."""
        entry: dict = {"extensionPoint": point, "plugins": []}
        entry.update(fields)
        self.steps.append(entry)
        return entry

    @staticmethod
    def plugin(step: dict, name: str, status: Status | None, **extra) -> dict:
        """Record ``name``'s status in ``step`` (its message when it has one)."""
        entry: dict = {"name": name, "code": code_name(status)}
        if status is not None and status.code != Code.Success:
            msg = status.message()
            if msg:
                entry["message"] = msg
        entry.update(extra)
        step["plugins"].append(entry)
        return entry

    def not_run(self, point: str, note: str) -> None:
        """An extension point the attempt did not reach, and why."""
        self.steps.append({"extensionPoint": point, "plugins": [], "note": note})
