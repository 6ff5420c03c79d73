"""What the simulated kubelet remembers of a pod between syncs, and how a restarted kubelet
rebuilds it from the stored status.

Upstream a restarted kubelet learns what runs from the container runtime
(kuberuntime_manager.go GetPodStatus: each container's state, start and finish, exit code,
restart count) while its back-off entries (flowcontrol.Backoff) and probe workers live in
process memory only and start empty; kubesim has no runtime, so :func:`recover_memory` reads
the same facts back from the pod's stored status.

The memory is a JSON-serialisable dict the engine keeps beside the pod (pod_workers.memory_key
says under which key), so its keys are short and must not change: a stored state is read by
the next version. The pod's:

- ``v`` layout version (1); ``t`` the simulated time synced up to; ``epoch`` the first sync
  (the pod's startTime and the origin of every probe's tick grid);
- ``ip``, ``hostIP``; ``pulled`` the images pulled so far, when the engine passes no node image
  cache (the node's images are image_service.NodeImages, kept per node by the engine);
- ``rejected`` admission refused the pod; ``inputs`` the annotations and images the last sync
  ran with; ``term`` a termination (``at`` when it began, ``grace``, ``begun``); ``done`` the
  regular containers finished for good; ``removed`` when the pod finished terminating;
- ``c``: container name -> its record.

A container's record:

- ``st`` pending | pulling | pullerr | hook | running | backoff | exited | stopped;
  ``until`` when a pull, hook or back-off ends; ``n`` instances created so far;
- ``start`` when the current instance started, ``exitAt`` when it exits by itself (None:
  never), ``hash`` the image it runs, ``started``/``ready``, ``hookok`` its postStart result;
- ``fin`` the current instance's termination and ``last`` the previous one's (containerID,
  exitCode, reason, startedAt, finishedAt); ``prevTs`` the previous finish;
- ``kill`` a kill under way (``at``, ``exitAt``, ``code``, ``restart``); ``restartAfterKill``;
- ``bo``/``boUpd`` the crash-loop back-off (backoff.py); ``evnext`` the next BackOff event;
  ``ibo``, ``ipbo``, ``since``, ``pullmsg`` a failing image pull and its back-off; ``pull``
  [requested, started] of the pull under way (the serial puller's wait); ``rce`` [until,
  message] the RunContainerError shown after a start failure (StartError);
  ``cfgmsg``, ``cfgreason`` a container that cannot be created yet (CreateContainerConfigError,
  ErrImageNeverPull) and why;
- ``pr``: probe kind -> worker state (``next`` tick, ``run`` consecutive results of kind
  ``last``, ``res`` the result S/F/None, ``hold``); ``ticks`` the last tick spent per kind;
- ``cycs`` the last starts and their signatures (crashloop.py); ``recovered`` found running
  by a restarted kubelet.

The engine adds ``rv``, ``wake``, ``volumes`` and ``sk`` (a static pod killed because its file
was edited or removed) of its own (steps.py).
"""

from __future__ import annotations

from kubesim.clock import parse_timestamp


def new_memory(pod: dict, t: float) -> dict:
    """A pod first synced at ``t``: every container pending."""
    spec = pod.get("spec") or {}
    names = [c["name"] for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])]
    return {"v": 1, "t": t, "epoch": t, "c": {n: {"st": "pending", "n": 0} for n in names}}


def recover_memory(pod: dict, now: float) -> dict | None:
    """Rebuild kubelet memory from a stored status (a restarted kubelet: back-off and probe
    history are lost, the containers keep running). None for a pod never synced."""
    status = pod.get("status") or {}
    start = parse_timestamp(status.get("startTime"))
    if start is None:
        return None
    memory = new_memory(pod, start)
    memory["ip"] = status.get("podIP") or ""
    memory["hostIP"] = status.get("hostIP") or ""
    if status.get("phase") == "Failed" and status.get("reason") and not status.get("containerStatuses"):
        memory["rejected"] = True
    latest = start
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        name = cs.get("name")
        if name not in memory["c"]:
            continue
        record = memory["c"][name]
        state = cs.get("state") or {}
        record["n"] = int(cs.get("restartCount") or 0) + (1 if cs.get("containerID") else 0)
        record["hash"] = None
        last = (cs.get("lastState") or {}).get("terminated")
        if last:
            record["last"] = _termination_record(last)
        if state.get("running"):
            record.update(st="running", start=parse_timestamp(state["running"].get("startedAt")),
                          started=bool(cs.get("started")), ready=bool(cs.get("ready")), pr={}, exitAt=None, kill=None,
                          recovered=True)
            latest = max(latest, record["start"])
        elif state.get("terminated"):
            record.update(st="exited", fin=_termination_record(state["terminated"]))
            latest = max(latest, record["fin"]["finishedAt"])
        elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff" and last:
            record["fin"] = record.pop("last")
            record.update(st="exited")
            latest = max(latest, record["fin"]["finishedAt"])
        else:
            record["st"] = "pending"
        for c in (pod.get("spec") or {}).get("initContainers") or []:
            if c["name"] == name:
                record["hash"] = c.get("image")
        for c in (pod.get("spec") or {}).get("containers") or []:
            if c["name"] == name:
                record["hash"] = c.get("image")
    for condition in status.get("conditions") or []:
        transition = parse_timestamp(condition.get("lastTransitionTime"))
        if transition is not None and transition <= now:
            latest = max(latest, transition)
    memory["t"] = min(max(latest, start), now)
    return memory


def _termination_record(terminated: dict) -> dict:
    """A record's ``fin``/``last`` from a status's ContainerStateTerminated."""
    return {"containerID": terminated.get("containerID", ""), "exitCode": int(terminated.get("exitCode") or 0),
            "finishedAt": parse_timestamp(terminated.get("finishedAt")) or 0.0, "reason": terminated.get("reason") or "",
            "startedAt": parse_timestamp(terminated.get("startedAt")) or 0.0}
