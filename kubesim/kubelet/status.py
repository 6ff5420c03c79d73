"""The pod status a kubelet derives from its containers' statuses: phase and conditions.

Pure re-expressions of upstream:

- pkg/kubelet/kubelet_pods.go ``getPhase`` (regular init containers, restartable init
  containers (sidecars), regular containers; the restart policy; ``podIsTerminal``);
- pkg/kubelet/status/generate.go ``GeneratePodReadyToStartContainersCondition``,
  ``GeneratePodInitializedCondition``, ``GeneratePodReadyCondition``,
  ``GenerateContainersReadyCondition`` (reasons ContainersNotReady, ContainersNotInitialized,
  PodCompleted, PodFailed, ReadinessGatesNotReady; messages ``containers with unready status:
  [a b]`` formatted as Go prints a []string);
- pkg/kubelet/status/status_manager.go ``updateLastTransitionTime`` (a condition keeps its
  lastTransitionTime while its status is unchanged) and the kubelet-owned condition types
  (pkg/kubelet/types/pod_status.go: PodScheduled, Ready, Initialized, ContainersReady,
  PodReadyToStartContainers); other conditions (DisruptionTarget, custom readiness gates) are
  kept from the stored status.
"""

from __future__ import annotations

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")

UNKNOWN_CONTAINER_STATUSES = "UnknownContainerStatuses"
POD_COMPLETED = "PodCompleted"
POD_FAILED = "PodFailed"
CONTAINERS_NOT_READY = "ContainersNotReady"
CONTAINERS_NOT_INITIALIZED = "ContainersNotInitialized"
READINESS_GATES_NOT_READY = "ReadinessGatesNotReady"


def is_sidecar(container: dict) -> bool:
    return (container or {}).get("restartPolicy") == "Always"


def _status(statuses: list[dict], name: str) -> dict | None:
    for s in statuses:
        if s.get("name") == name:
            return s
    return None


def go_string_slice(items: list[str]) -> str:
    """fmt's %s of a []string: ``[a b]``."""
    return "[" + " ".join(items) + "]"


def has_any_regular_container_started(spec: dict, statuses: list[dict]) -> bool:
    """kubecontainer.HasAnyRegularContainerStarted."""
    for c in spec.get("containers") or ():
        s = _status(statuses, c.get("name"))
        if s is None:
            continue
        st = s.get("state") or {}
        if st.get("running") is not None or st.get("terminated") is not None:
            return True
        if (s.get("lastState") or {}).get("terminated") is not None:
            return True
    return False


def get_phase(pod: dict, statuses: list[dict], pod_is_terminal: bool, is_static: bool = False) -> str:
    spec = pod.get("spec") or {}
    pending_init = failed_init = 0
    init = spec.get("initContainers") or []
    for c in init:
        if is_sidecar(c):
            continue
        s = _status(statuses, c.get("name"))
        if s is None:
            pending_init += 1
            continue
        st = s.get("state") or {}
        last = (s.get("lastState") or {}).get("terminated")
        if st.get("running") is not None:
            pending_init += 1
        elif st.get("terminated") is not None:
            if int(st["terminated"].get("exitCode") or 0) != 0:
                failed_init += 1
        elif st.get("waiting") is not None:
            if last is not None:
                if int(last.get("exitCode") or 0) != 0:
                    failed_init += 1
            else:
                pending_init += 1
        else:
            pending_init += 1

    unknown = running = waiting = stopped = succeeded = 0
    for c in init:
        if not is_sidecar(c):
            continue
        s = _status(statuses, c.get("name"))
        if s is None:
            unknown += 1
            continue
        st = s.get("state") or {}
        if st.get("running") is not None:
            if not s.get("started"):
                pending_init += 1
            running += 1
        elif st.get("terminated") is not None:
            pass
        elif st.get("waiting") is not None:
            if (s.get("lastState") or {}).get("terminated") is None:
                pending_init += 1
                waiting += 1
        else:
            pending_init += 1
            unknown += 1

    for c in spec.get("containers") or ():
        s = _status(statuses, c.get("name"))
        if s is None:
            unknown += 1
            continue
        st = s.get("state") or {}
        if st.get("running") is not None:
            running += 1
        elif st.get("terminated") is not None:
            stopped += 1
            if int(st["terminated"].get("exitCode") or 0) == 0:
                succeeded += 1
        elif st.get("waiting") is not None:
            if (s.get("lastState") or {}).get("terminated") is not None:
                stopped += 1
            else:
                waiting += 1
        else:
            unknown += 1

    policy = spec.get("restartPolicy") or "Always"
    if failed_init > 0 and policy == "Never":
        return "Failed"
    if (pending_init > 0 and not has_any_regular_container_started(spec, statuses)) or waiting > 0:
        return "Pending"
    if running > 0 and unknown == 0:
        return "Running"
    if running == 0 and stopped > 0 and unknown == 0:
        if pod_is_terminal and not is_static:
            return "Succeeded" if stopped == succeeded else "Failed"
        if policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        if policy == "Never":
            return "Failed"
        return "Running"
    return "Pending"


def _cond(type_: str, status: str, reason: str = "", message: str = "") -> dict:
    c = {"type": type_, "status": status}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def containers_ready_condition(spec: dict, statuses: list[dict] | None, phase: str) -> dict:
    if statuses is None:
        return _cond("ContainersReady", "False", UNKNOWN_CONTAINER_STATUSES)
    unknown, unready = [], []
    for c in [c for c in spec.get("initContainers") or () if is_sidecar(c)] + list(spec.get("containers") or ()):
        s = _status(statuses, c.get("name"))
        if s is None:
            unknown.append(c.get("name"))
        elif not s.get("ready"):
            unready.append(c.get("name"))
    if phase == "Succeeded" and not unknown:
        return _cond("ContainersReady", "False", POD_COMPLETED)
    if phase == "Failed":
        return _cond("ContainersReady", "False", POD_FAILED)
    msgs = []
    if unknown:
        msgs.append(f"containers with unknown status: {go_string_slice(unknown)}")
    if unready:
        msgs.append(f"containers with unready status: {go_string_slice(unready)}")
    if msgs:
        return _cond("ContainersReady", "False", CONTAINERS_NOT_READY, ", ".join(msgs))
    return _cond("ContainersReady", "True")


def ready_condition(spec: dict, conditions: list[dict], statuses: list[dict] | None, phase: str,
                    containers_ready: dict | None = None) -> dict:
    """GeneratePodReadyCondition; ``containers_ready``: the pod's ContainersReady condition
    when the caller has it already (``containers_ready_condition`` of the same arguments)."""
    cr = containers_ready if containers_ready is not None else containers_ready_condition(spec, statuses, phase)
    if cr["status"] != "True":
        out = dict(cr)
        out["type"] = "Ready"
        return out
    msgs = []
    for gate in spec.get("readinessGates") or ():
        ct = (gate or {}).get("conditionType")
        c = next((c for c in conditions if c.get("type") == ct), None)
        if c is None:
            msgs.append(f'corresponding condition of pod readiness gate "{ct}" does not exist.')
        elif c.get("status") != "True":
            msgs.append(f'the status of pod readiness gate "{ct}" is not "True", but {c.get("status")}')
    if msgs:
        return _cond("Ready", "False", READINESS_GATES_NOT_READY, ", ".join(msgs))
    return _cond("Ready", "True")


def initialized_condition(spec: dict, statuses: list[dict] | None, phase: str) -> dict:
    init = spec.get("initContainers") or []
    if statuses is None and init:
        return _cond("Initialized", "False", UNKNOWN_CONTAINER_STATUSES)
    statuses = statuses or []
    unknown, incomplete = [], []
    for c in init:
        s = _status(statuses, c.get("name"))
        if s is None:
            unknown.append(c.get("name"))
            continue
        done = bool(s.get("started")) if is_sidecar(c) else bool(s.get("ready"))
        if not done:
            incomplete.append(c.get("name"))
    if phase == "Succeeded" and not unknown:
        return _cond("Initialized", "True", POD_COMPLETED)
    if has_any_regular_container_started(spec, statuses):
        return _cond("Initialized", "True")
    msgs = []
    if unknown:
        msgs.append(f"containers with unknown status: {go_string_slice(unknown)}")
    if incomplete:
        msgs.append(f"containers with incomplete status: {go_string_slice(incomplete)}")
    if msgs:
        return _cond("Initialized", "False", CONTAINERS_NOT_INITIALIZED, ", ".join(msgs))
    return _cond("Initialized", "True")


def generate_conditions(pod: dict, init_statuses: list[dict], statuses: list[dict], phase: str,
                        sandbox_ready: bool) -> list[dict]:
    """The kubelet-owned conditions in the order generateAPIPodStatus appends them, after the
    conditions it does not own (kept from the stored status)."""
    spec = pod.get("spec") or {}
    old = (pod.get("status") or {}).get("conditions") or []
    kept = [dict(c) for c in old if c.get("type") not in KUBELET_CONDITIONS]
    all_statuses = list(init_statuses) + list(statuses)
    out = kept
    out.append(_cond("PodReadyToStartContainers", "True" if sandbox_ready else "False"))
    out.append(initialized_condition(spec, all_statuses, phase))
    containers_ready = containers_ready_condition(spec, all_statuses, phase)
    out.append(ready_condition(spec, kept, all_statuses, phase, containers_ready))
    out.append(containers_ready)
    out.append(_cond("PodScheduled", "True"))
    return out


def stamp_conditions(new: list[dict], old: list[dict], now_stamp: str, observed_generation: int | None) -> list[dict]:
    """updateLastTransitionTime: keep an unchanged condition's lastTransitionTime, stamp the
    changed ones; the stored PodScheduled condition (written by the scheduler) is kept whole."""
    by_type = {c.get("type"): c for c in old}
    out = []
    for c in new:
        prev = by_type.get(c["type"])
        if c["type"] == "PodScheduled" and prev is not None and prev.get("status") == "True":
            out.append(prev)
            continue
        if c["type"] not in KUBELET_CONDITIONS:
            out.append(c)
            continue
        c = dict(c)
        c["lastProbeTime"] = None
        if prev is not None and prev.get("status") == c["status"] and prev.get("lastTransitionTime"):
            c["lastTransitionTime"] = prev["lastTransitionTime"]
        else:
            c["lastTransitionTime"] = now_stamp
        if observed_generation is not None:
            c["observedGeneration"] = observed_generation
        out.append(c)
    return out
