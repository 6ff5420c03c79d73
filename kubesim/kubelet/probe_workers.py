"""The probe workers of one pod: when each probe runs next, the consecutive results it has
counted, and what a result that changes does to the container.

Upstream: pkg/kubelet/prober/worker.go (one worker per probe, ticking every ``periodSeconds``
on a grid that starts when the pod is first synced; doProbe skips a container that is not
running, liveness and readiness until the startup probe succeeded, the startup probe once it
did, and liveness/startup "on hold" after a failure until a new container instance appears; the
result changes after ``successThreshold`` consecutive successes or ``failureThreshold``
consecutive failures; a liveness or startup failure kills the container, ``Container c failed
liveness probe, will be restarted``, with the probe's own terminationGracePeriodSeconds when it
has one), pkg/kubelet/prober/prober_manager.go (UpdatePodStatus: ``started`` once the startup
probe succeeded, ``ready`` from the readiness result) and pkg/kubelet/prober/prober.go (an
``Unhealthy`` event on every failed probe).

What a probe answers at each moment of a container's life is probes.py; here its ticks are
walked segment by segment, so thousands of identical ticks are taken (and their Unhealthy
events counted) at once. The state is each container's ``pr`` in its memory record (memory.py).
:class:`ProbeWorkers` is a part of pod_workers.PodWorker.
"""

from __future__ import annotations

import math

from kubesim.kubelet import probes
from kubesim.kubelet.format import EPS
from kubesim.kubelet.probes import count_ticks


class ProbeWorkers:
    """The probe workers of one pod (a part of pod_workers.PodWorker)."""

    def probe_answers(self, name: str, kind: str) -> list:
        """probes.answers for the container's probe, computed once per sync."""
        key = (name, kind)
        if key not in self._probe_answers:
            self._probe_answers[key] = probes.answers(self.probe_specs[name][kind], self.behaviour_of(name),
                                                      self.container_specs[name], self.memory.get("ip") or "")
        return self._probe_answers[key]

    def probe_is_active(self, name: str, kind: str) -> bool:
        """Whether the worker probes the container now (doProbe's skips)."""
        record = self.record_of(name)
        if record.get("st") != "running":
            return False
        probe = record["pr"][kind]
        if probe["hold"]:
            return False
        if kind in ("liveness", "startup") and (record.get("kill") or self.memory.get("term")):
            return False
        if kind == "startup":
            return not record["started"]
        return bool(record["started"])

    # ---- scheduling the next tick
    def schedule_probes(self, name: str, t: float):
        """The first tick of every active probe without one, for a container running at ``t``."""
        record = self.record_of(name)
        for kind, probe in record.get("pr", {}).items():
            if probe["next"] is None and self.probe_is_active(name, kind):
                spec = self.probe_specs[name][kind]
                probe["next"] = probes.first_probing_tick(self.memory["epoch"], spec, record["start"],
                                                          max(record["start"], t))
                if probe["next"] < t - EPS:
                    probe["next"] = probes.first_tick_at_or_after(self.memory["epoch"], spec.period, t)
                probe["next"] = self._first_unspent_tick(name, kind, probe["next"])

    def schedule_probes_after_startup(self, name: str, t: float):
        """Liveness and readiness begin on the tick after the startup probe succeeded at ``t``."""
        record = self.record_of(name)
        for kind, probe in record["pr"].items():
            if probe["next"] is None and self.probe_is_active(name, kind):
                spec = self.probe_specs[name][kind]
                first = probes.first_tick_at_or_after(self.memory["epoch"], spec.period,
                                                      max(t + EPS, record["start"] + spec.initial_delay))
                probe["next"] = self._first_unspent_tick(name, kind, first)

    def _mark_tick_spent(self, name: str, kind: str, tick: float):
        """The probe worker's ticker runs on across container instances: a tick spent on the
        old instance is not spent again on the new one."""
        last = self.record_of(name).setdefault("ticks", {})
        if tick > last.get(kind, -math.inf):
            last[kind] = tick

    def _first_unspent_tick(self, name: str, kind: str, t: float) -> float:
        last = self.record_of(name).get("ticks", {}).get(kind)
        if last is not None and t <= last + EPS:
            t = probes.first_tick_at_or_after(self.memory["epoch"], self.probe_specs[name][kind].period, last + EPS)
        return t

    # ---- walking the ticks
    def scan_probe(self, name: str, kind: str, limit: float, apply: bool) -> float | None:
        """Walk the probe's ticks from its next one up to ``limit`` (inclusive): the time of the
        first tick that changes its result (None if none by ``limit``). With ``apply`` the
        ticks before the change (and the changing one, if within ``limit``) are taken, their
        failures recorded as Unhealthy events."""
        record = self.record_of(name)
        probe = record["pr"][kind]
        if probe["next"] is None or not self.probe_is_active(name, kind):
            return None
        spec = self.probe_specs[name][kind]
        segments = self.probe_answers(name, kind)
        start = record["start"]
        tick = probe["next"]
        run, last, result = probe["run"], probe["last"], probe["res"]
        period = spec.period
        change = None
        for i, (_offset, ok, output) in enumerate(segments):
            segment_end = start + segments[i + 1][0] if i + 1 < len(segments) else math.inf
            if tick >= segment_end - EPS:
                continue
            if tick > limit + EPS:
                break
            count = count_ticks(tick, period, segment_end, limit)
            threshold = spec.success_threshold if ok else spec.failure_threshold
            target = "S" if ok else "F"
            prior = run if last == ok else 0
            ticks_to_change = None
            if result != target:
                ticks_to_change = max(threshold - prior, 1)
            take = count if ticks_to_change is None else (ticks_to_change if count is None else min(count, ticks_to_change))
            if take is None:
                break  # an endless segment without a change
            if apply and take > 0:
                if not ok:
                    self.events.add(tick + (take - 1) * period, "Warning", "Unhealthy", probes.event_message(kind, output),
                                    self.field_path[name], count=take, first=tick)
                run = prior + take
                last = ok
            if ticks_to_change is not None and (count is None or ticks_to_change <= count):
                change = tick + (ticks_to_change - 1) * period
                if apply:
                    probe.update(run=run, last=last, next=change + period)
                    self._mark_tick_spent(name, kind, change)
                return change
            tick = tick + take * period
            if not apply:
                run, last = prior + take, ok
        if apply:
            probe.update(run=run, last=last, next=tick)
            self._mark_tick_spent(name, kind, tick - period)
        return change

    def flush_probe_ticks(self, name: str, limit: float):
        """Take (and record) the ticks up to ``limit`` that change nothing."""
        record = self.record_of(name)
        for kind in list(record.get("pr", {})):
            probe = record["pr"][kind]
            if probe["next"] is None or not self.probe_is_active(name, kind) or probe["next"] > limit + EPS:
                continue
            spec = self.probe_specs[name][kind]
            segments = self.probe_answers(name, kind)
            tick = probe["next"]
            start = record["start"]
            while tick <= limit + EPS:
                offset = tick - start
                index = max(i for i, segment in enumerate(segments) if segment[0] <= offset + EPS)
                ok, output = segments[index][1], segments[index][2]
                segment_end = start + segments[index + 1][0] if index + 1 < len(segments) else math.inf
                count = count_ticks(tick, spec.period, segment_end, limit)
                if not count:
                    break
                if not ok:
                    self.events.add(tick + (count - 1) * spec.period, "Warning", "Unhealthy",
                                    probes.event_message(kind, output), self.field_path[name], count=count, first=tick)
                probe["run"] = (probe["run"] if probe["last"] == ok else 0) + count
                probe["last"] = ok
                tick += count * spec.period
                self._mark_tick_spent(name, kind, tick - spec.period)
            probe["next"] = tick

    # ---- results that change
    def apply_probe_results(self, name: str, t: float) -> bool:
        """The probe results of container ``name`` that change at ``t``, and what they do:
        started, ready, or a kill after a liveness or startup failure."""
        record = self.record_of(name)
        changed = False
        for kind in probes.KINDS:
            if kind not in record.get("pr", {}) or record.get("st") != "running":
                continue
            change_at = self.scan_probe(name, kind, t, apply=False)
            if change_at is None or abs(change_at - t) > EPS:
                continue
            self.scan_probe(name, kind, t, apply=True)
            probe = record["pr"][kind]
            probe["res"] = "S" if probe["last"] else "F"
            changed = True
            if kind == "startup" and probe["res"] == "S":
                record["started"] = True
                if "readiness" not in self.probe_specs[name]:
                    record["ready"] = True
                for other in ("liveness", "readiness"):
                    if other in record["pr"]:
                        record["pr"][other]["next"] = None
                self.schedule_probes_after_startup(name, t)
            elif kind == "readiness":
                record["ready"] = probe["res"] == "S"
            elif kind in ("liveness", "startup") and probe["res"] == "F":
                probe["hold"] = True
                probe["run"] = 0
                restart = self.restart_policy != "Never"
                message = f"Container {name} failed {kind} probe" + (", will be restarted" if restart else "")
                probe_grace = self.probe_specs[name][kind].termination_grace
                self.kill_container(name, t, message, restart,
                                    float(probe_grace) if probe_grace is not None else self.termination_grace_period())
        return changed
