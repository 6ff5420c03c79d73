"""Whole crash-loop cycles at once: a container that keeps crashing at the maximal back-off
repeats the same cycle for ever, so a sync across hours of simulated time jumps over whole
cycles instead of simulating each restart.

kubesim's own (upstream simply lives through every cycle). A cycle is known to repeat when two
starts of the container have the same signature - back-off period, the times since the back-off
was advanced and since the previous finish, each probe's phase on its tick grid, the state -
and nothing else in the pod is due. The jump moves the restart count, every time in the
container's record, its events (counts multiplied, as the event correlator would have counted
them) and the pod's condition transition times on by whole periods, so the result is what
simulating every cycle would have given.

:class:`CrashLoopSkipping` is a part of pod_workers.PodWorker; its history is the container's
``cycs`` in its memory record (memory.py).
"""

from __future__ import annotations

import json
import math

from kubesim.clock import parse_timestamp
from kubesim.kubelet.format import EPS, format_time

CYCLE_HISTORY = 4  # starts remembered per container


class CrashLoopSkipping:
    """Jumps over repeating crash-loop cycles (a part of pod_workers.PodWorker)."""

    def cycle_signature(self, name: str, t: float) -> tuple:
        """What decides a container's future, relative to its start: equal at two consecutive
        starts (at the maximal back-off), the cycle in between repeats for ever."""
        record = self.record_of(name)
        phases = tuple(sorted((kind, round((t - self.memory["epoch"]) % self.probe_specs[name][kind].period, 6))
                              for kind in record.get("pr", {})))

        def since(v):
            return None if v is None else round(t - v, 6)
        return (record.get("bo"), since(record.get("boUpd")), since(record.get("prevTs")), phases, record.get("st"))

    def note_cycle_start(self, name: str, t: float):
        record = self.record_of(name)
        history = record.setdefault("cycs", [])
        # in JSON form: the engine stores memory as JSON, and a round trip must not break equality
        history.append({"start": t, "sig": json.loads(json.dumps(self.cycle_signature(name, t)))})
        del history[:-CYCLE_HISTORY]

    def skip_repeating_cycles(self, name: str, now: float) -> bool:
        """After container ``name`` (re)started: if its last cycle will repeat unchanged and
        nothing else in the pod is due, jump over whole cycles - restart count, times, events
        (counts multiplied) and condition transition times move on by whole periods."""
        record = self.record_of(name)
        history = record.get("cycs") or []
        if len(history) < 2 or record.get("bo") != self.config.backoff_max:
            return False
        current = history[-1]
        previous, starts_per_cycle = None, 0
        for back, entry in enumerate(reversed(history[:-1]), 1):
            if entry["sig"] == current["sig"]:
                previous, starts_per_cycle = entry, back
                break
        if previous is None or previous["start"] <= self.synced_from + EPS:
            return False  # the cycle's events must all have been recorded by this call
        if self.memory.get("term") or self.memory.get("done") or record.get("st") != "running":
            return False
        if any(self.container_wake_time(n) is not None for n in self.container_specs if n != name):
            return False
        period = current["start"] - previous["start"]
        if period <= 0:
            return False
        cycles = math.floor((now - current["start"]) / period) - 1
        if cycles < 1:
            return False
        shift = cycles * period
        path = self.field_path[name]
        for event in list(self.events.items):
            if event.field_path == path and previous["start"] - EPS <= event.first < current["start"] - EPS:
                self.events.add(event.last + shift, event.type, event.reason, event.message, event.field_path,
                                count=event.count * cycles, first=event.first + period)
        record["n"] += cycles * starts_per_cycle
        for key in ("start", "exitAt", "until", "boUpd", "prevTs", "evnext"):
            if record.get(key) is not None:
                record[key] += shift
        for key in ("last", "fin"):
            if record.get(key):
                record[key] = dict(record[key], startedAt=record[key]["startedAt"] + shift,
                                   finishedAt=record[key]["finishedAt"] + shift)
                record[key]["containerID"] = self.container_id(name, record["n"] - (1 if key == "last" else 0))
        if record.get("kill"):
            record["kill"] = dict(record["kill"], at=record["kill"]["at"] + shift, exitAt=record["kill"]["exitAt"] + shift)
        for probe in record.get("pr", {}).values():
            if probe.get("next") is not None:
                probe["next"] += shift
        for kind in list(record.get("ticks", {})):
            record["ticks"][kind] += shift
        cycle_start = previous["start"]
        for entry in history:
            entry["start"] += shift
        for condition in (self.pod.get("status") or {}).get("conditions") or []:
            transition = parse_timestamp(condition.get("lastTransitionTime"))
            if transition is not None and transition >= cycle_start - EPS and condition.get("type") != "PodScheduled":
                condition["lastTransitionTime"] = format_time(transition + shift)
        self.memory["t"] = current["start"]
        return True
