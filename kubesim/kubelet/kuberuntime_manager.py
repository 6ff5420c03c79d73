"""What one SyncPod does to a pod's containers: which to start, restart, kill or stop, in which
order, and the back-off before a restart.

Upstream: pkg/kubelet/kuberuntime/kuberuntime_manager.go (computePodActions: a container whose
definition changed is killed, ``Container c definition changed, will be restarted``; regular
init containers run one at a time, in order, each to success; restartable init containers
(sidecars) start in their place and keep running; regular containers start once initialization
is done; SyncPod stops at the first start that blocks (an image pull, a postStart hook);
doBackOff: a container in back-off stays ``CrashLoopBackOff`` and the pod worker, requeued every
sync period, records ``Back-off restarting failed container c in pod p_ns(uid)``),
pkg/kubelet/container/helpers.go (ShouldContainerBeRestarted: the restart policy, sidecars
always), pkg/kubelet/kuberuntime/kuberuntime_termination_order.go (sidecars stop after the
regular containers, in reverse order), pkg/kubelet/kubelet.go SyncTerminatingPod (on delete,
every container is killed with the pod's grace period; the pod is gone once none runs) and
pkg/kubelet/images/image_manager.go (``Back-off pulling image`` / ``ImagePullBackOff`` while an
image pull backs off).

:class:`RuntimeManager` is a part of pod_workers.PodWorker; the container operations it calls
are kuberuntime_container.ContainerRuntime's.
"""

from __future__ import annotations

from kubesim.kubelet.backoff import is_in_backoff_since, next_backoff
from kubesim.kubelet.format import pod_ref
from kubesim.kubelet.probes import count_ticks

STARTING = ("pulling", "hook")                           # a start in progress: the pod worker is blocked
ALIVE = ("running", "hook")                              # a process exists: it must be killed
WAITING = ("backoff", "pulling", "pullerr", "pending", "configerr")   # no process yet: stopping it is immediate


class RuntimeManager:
    """SyncPod for one pod (a part of pod_workers.PodWorker)."""

    # ---- what should restart
    def should_restart(self, name: str) -> bool:
        record = self.record_of(name)
        if record.get("st") != "exited" or self.memory.get("term") or self.memory.get("done"):
            return False
        kind = self.container_type[name]
        if record.get("restartAfterKill"):
            return True
        code = (record.get("fin") or {}).get("exitCode", 0)
        if kind == "sidecar":
            return True
        if kind == "init":
            return code != 0 and self.restart_policy != "Never"
        if self.restart_policy == "Always":
            return True
        if self.restart_policy == "OnFailure":
            return code != 0
        return False

    def any_regular_container_started(self) -> bool:
        return any(self.record_of(spec["name"]).get("n", 0) > 0 for spec in self.containers)

    # ---- one kubelet sync at time t (computePodActions + SyncPod)
    def sync_containers(self, t: float) -> bool:
        """Start, restart and kill what computePodActions says at ``t``; True when anything
        changed (the caller syncs again until nothing does)."""
        memory = self.memory
        changed = False
        if memory.get("term"):
            return self.sync_terminating_pod(t)
        if memory.get("done"):
            return self.stop_sidecars(t)
        # definition changes (a new image): kill and restart
        for name, spec in self.container_specs.items():
            record = self.record_of(name)
            if record.get("st") in ALIVE and record.get("hash") != spec.get("image") and not record.get("kill"):
                self.kill_container(name, t, f"Container {name} definition changed, will be restarted", True,
                                    self.termination_grace_period())
                changed = True
        blocked = any(self.record_of(n).get("st") in STARTING for n in self.container_specs)
        # init containers, in order
        for spec in self.init_containers:
            name = spec["name"]
            record = self.record_of(name)
            state = record.get("st")
            if self.container_type[name] == "init":
                if state == "exited" and (record.get("fin") or {}).get("exitCode", 0) == 0 \
                        and not record.get("restartAfterKill"):
                    continue
                if state == "exited" and self.restart_policy == "Never" and not record.get("restartAfterKill"):
                    memory["done"] = True
                    return self.stop_sidecars(t) or True
                if state in ("pending", "exited") and not blocked:
                    blocked = self.restart_container(name, t) if state == "exited" else self.start_container(name, t)
                    return True
                return changed
            # a sidecar: started before the next init container runs
            if state in ("pending", "exited") and not blocked:
                blocked = self.restart_container(name, t) if state == "exited" else self.start_container(name, t)
                changed = True
                if self.record_of(name).get("st") != "running" or not self.record_of(name).get("started"):
                    return True
                continue
            if state == "running" and record.get("started"):
                continue
            if self.any_regular_container_started():
                continue
            return changed
        # regular containers
        for spec in self.containers:
            name = spec["name"]
            state = self.record_of(name).get("st")
            if blocked:
                break
            if state == "pending":
                blocked = self.start_container(name, t)
                changed = True
            elif state == "exited" and self.should_restart(name):
                blocked = self.restart_container(name, t)
                changed = True
        # sidecars that exited after initialization
        for spec in self.init_containers:
            name = spec["name"]
            if self.container_type[name] == "sidecar" and self.record_of(name).get("st") == "exited" and not blocked \
                    and self.any_regular_container_started():
                blocked = self.restart_container(name, t)
                changed = True
        # a pod whose regular containers are all done for good
        if self.restart_policy != "Always" and self.containers and all(
                self.record_of(spec["name"]).get("st") == "exited" and not self.should_restart(spec["name"])
                for spec in self.containers):
            memory["done"] = True
            self.stop_sidecars(t)
            changed = True
        return changed

    # ---- doBackOff
    def restart_container(self, name: str, t: float) -> bool:
        """doBackOff then start: returns True when the start blocks the pod worker."""
        record = self.record_of(name)
        finished = record.get("fin")
        if record.get("restartAfterKill"):
            # the kill and the start happened in one SyncPod, against the status from before
            record["restartAfterKill"] = False
            previous = (record.get("last") or {}).get("finishedAt") if record.get("last") else None
            if previous is not None:
                if is_in_backoff_since(record, previous, t, self.config):
                    self.enter_backoff(name, finished["finishedAt"], t)
                    return False
                next_backoff(record, previous, t, self.config)
            return self.start_container(name, t)
        finished_at = finished["finishedAt"] if finished else None
        if finished_at is not None:
            if is_in_backoff_since(record, finished_at, t, self.config):
                self.enter_backoff(name, finished_at, t)
                return False
            next_backoff(record, finished_at, t, self.config)
        return self.start_container(name, t)

    def enter_backoff(self, name: str, finished_at: float, t: float):
        """CrashLoopBackOff until the back-off period after ``finished_at`` has passed."""
        record = self.record_of(name)
        record.update(st="backoff", until=finished_at + record["bo"], evnext=t)

    def flush_waiting_events(self, name: str, limit: float):
        """The events a waiting container's pod worker records on every resync up to ``limit``:
        BackOff while it backs off, BackOff and ImagePullBackOff while its image pull does."""
        record = self.record_of(name)
        state = record.get("st")
        path = self.field_path[name]
        period = self.config.sync_period
        if state == "backoff" and record.get("evnext") is not None:
            count = count_ticks(record["evnext"], period, record["until"], limit)
            if count:
                last = record["evnext"] + (count - 1) * period
                self.events.add(last, "Warning", "BackOff",
                                f"Back-off restarting failed container {name} in pod {pod_ref(self.pod)}", path,
                                count=count, first=record["evnext"])
                record["evnext"] += count * period
        if state == "pullerr" and record.get("evnext") is not None:
            count = count_ticks(record["evnext"], period, record["until"], limit)
            if count:
                last = record["evnext"] + (count - 1) * period
                image = self.container_specs[name].get("image") or ""
                self.events.add(last, "Normal", "BackOff", f'Back-off pulling image "{image}"', path, count=count,
                                first=record["evnext"])
                self.events.add(last, "Warning", "Failed", "Error: ImagePullBackOff", path, count=count,
                                first=record["evnext"])
                record["evnext"] += count * period

    # ---- stopping
    def stop_sidecars(self, t: float) -> bool:
        """After the regular containers finished (or during termination), sidecars stop in
        reverse order, each once the ones after it have exited."""
        changed = False
        for spec in reversed(self.init_containers):
            name = spec["name"]
            if self.container_type[name] != "sidecar":
                continue
            record = self.record_of(name)
            if record.get("st") in ALIVE:
                if not record.get("kill"):
                    term = self.memory.get("term")
                    grace = self.termination_grace_period()
                    if term:
                        grace = max(term["at"] + term["grace"] - t, self.config.minimum_grace)
                    self.kill_container(name, t, f"Stopping container {name}", False, grace)
                    changed = True
                return changed
            if record.get("st") in WAITING:
                record["st"] = "exited" if record.get("fin") else "stopped"
                changed = True
        return changed

    def sync_terminating_pod(self, t: float) -> bool:
        """SyncTerminatingPod: kill every container with the deletion's grace period (sidecars
        last); the pod is removed once none runs."""
        term = self.memory["term"]
        changed = False
        if not term.get("begun"):
            term["begun"] = True
            changed = True
            for name in list(self.container_specs):
                record = self.record_of(name)
                if self.container_type[name] == "sidecar":
                    continue
                if record.get("st") in ALIVE:
                    self.kill_container(name, t, f"Stopping container {name}", False, term["grace"])
                    if record.get("kill"):
                        record["kill"]["restart"] = False
                elif record.get("st") in WAITING:
                    record["st"] = "exited" if record.get("fin") else "stopped"
        if all(self.record_of(n).get("st") not in ALIVE for n in self.container_specs
               if self.container_type[n] != "sidecar"):
            changed = self.stop_sidecars(t) or changed
        if all(self.record_of(n).get("st") not in ALIVE for n in self.container_specs) \
                and not self.memory.get("removed"):
            self.memory["removed"] = t
            changed = True
        return changed
