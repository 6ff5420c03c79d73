"""explain-schedule's server side (kubesim.io): the recorded last attempt of a stored pod, and
the what-if evaluation of pods that are not stored (DESIGN §3.5). The views are kubectl's
(``kubesim.kubectl.explainschedule``).
"""

from __future__ import annotations

from kubesim.apiserver import objects
from kubesim.apiserver.context import Cluster
from kubesim.controlplane import scheduling

BULK_NOTE = ("kubesim: this attempt was part of a bulk scheduling and was recorded in summary; "
             "the per-node detail is a fresh evaluation against the cluster as it is now")


def recorded(cluster: Cluster, pod: dict) -> tuple[dict, str | None]:
    """The pod's last attempt as recorded (an attempt recorded in summary gets its per-node
    detail evaluated afresh, and a note saying so)."""
    md = pod["metadata"]
    found = scheduling.load_explanation(cluster, md.get("namespace", ""), md["name"])
    if found is None:
        return _unattempted(cluster, pod), None
    exp, full = found
    if full:
        return exp, None
    return _fresh(cluster, pod, exp), BULK_NOTE


def what_if(cluster: Cluster, pods: list[dict]) -> list[tuple[dict, dict]]:
    """Evaluate each pod against the current cluster, in order, as if the ones before it had
    been placed. The pods are created (admitted, defaulted) in the caller's transaction, which
    must be rolled back."""
    from kubesim.api import kinds

    store = cluster.store
    scheduler = scheduling.make_scheduler(cluster)
    out = []
    for obj in pods:
        info = kinds.for_object(obj)
        md = obj["metadata"]
        # "what if I applied this": a stored pod of the same name is replaced, not a conflict
        # (a pod with only generateName gets a fresh name)
        if md.get("name") and store.get("Pod", md.get("namespace", ""), md["name"]) is not None:
            objects.delete_object(cluster, info, md.get("namespace", ""), md["name"], grace_seconds=0, force=True)
        pod = objects.create_object(cluster, obj, info)
        if (pod.get("spec") or {}).get("nodeName") or not scheduler.responsible_for(pod):
            out.append((_unattempted(cluster, pod), pod))
            continue
        scheduling.use_cached_cluster(cluster, scheduler)
        exp = scheduler.explain(pod, cluster.now())
        out.append((exp, pod))
        if exp.get("node"):  # later pods see this one placed, with the volumes it took
            _reserve_and_pre_bind(cluster, scheduler, pod, exp["node"])
            pod["spec"]["nodeName"] = exp["node"]
            store.put(pod)
    return out


def _fresh(cluster, pod: dict, summary: dict) -> dict:
    """Evaluate a stored pod again as if it were unscheduled, in a transaction rolled back later
    (the session's: nothing here is written because the explanation is not stored)."""
    import copy

    scheduler = scheduling.make_scheduler(cluster)
    candidate = copy.deepcopy(pod)
    candidate["spec"].pop("nodeName", None)
    scheduling.use_cached_cluster(cluster, scheduler, without_uid=pod["metadata"].get("uid") or None,
                                  without_node=(pod.get("spec") or {}).get("nodeName") or None)
    exp = scheduler.explain(candidate, cluster.now())
    # the recorded outcome is the fact; the fresh evaluation supplies the per-node detail
    for k in ("outcome", "node", "message"):
        exp[k] = summary.get(k)
    return exp


def _unattempted(cluster, pod: dict) -> dict:
    """A pod the scheduler has no record of: bypassed, another scheduler's, or gated."""
    md = pod["metadata"]
    base = {"kind": "ScheduleExplanation", "apiVersion": "kubesim.io/v1alpha1",
            "pod": {"namespace": md.get("namespace", ""), "name": md["name"]},
            "profile": None, "node": (pod.get("spec") or {}).get("nodeName"), "message": "", "nodes": {},
            "preemption": None}
    if (pod.get("spec") or {}).get("nodeName"):
        base["outcome"] = "Bypassed"
        return base
    scheduler = scheduling.make_scheduler(cluster)
    if not scheduler.responsible_for(pod):
        name = (pod.get("spec") or {}).get("schedulerName")
        base["outcome"] = "NotResponsible"
        base["message"] = (f'No profile of the scheduler is named "{name}" (spec.schedulerName): '
                           "the pod waits for a scheduler of that name and stays Pending.")
        return base
    base["outcome"] = "Unschedulable"
    base["message"] = "The scheduler has not attempted this pod yet."
    gate = scheduler.pre_enqueue(pod)
    if gate is not None:  # a PreEnqueue plugin keeps it out of the active queue
        plugin, msg = gate
        base["message"] = (f"The scheduler has not attempted this pod yet: its PreEnqueue plugin "
                           f"{plugin} holds it back ({msg}).")
    return base


def _reserve_and_pre_bind(cluster, scheduler, pod: dict, node: str) -> None:
    """The binding cycle's Reserve and PreBind for a what-if pod placed on ``node``, with what
    PreBind asks of the API server carried out in the rolled-back transaction: VolumeBinding's
    PV claimRefs and claims' selected-node annotations, so a later pod in the file cannot take
    a volume this one took. Nothing is logged."""
    from kubesim.scheduler.framework.cycle_state import CycleState
    from kubesim.scheduler.framework.types import PodInfo

    fwk = scheduler.framework_for(pod)
    ni = scheduler.snapshot.get(node)
    if fwk is None or ni is None:
        return
    handle = scheduler.handle
    state, info = CycleState(), PodInfo(pod)
    saved = handle.commit, handle.writes, handle.log
    handle.commit, handle.writes, handle.log = False, [], None
    try:
        _, s, _ = fwk.run_pre_filter_plugins(state, info, scheduler.snapshot.node_info_list)
        if (s is not None and not s.is_success()) or fwk.run_filter_plugins(state, info, ni) is not None:
            return
        if fwk.run_reserve_plugins_reserve(state, info, node) is not None:
            fwk.run_reserve_plugins_unreserve(state, info, node)
            return
        handle.commit = True
        if fwk.run_pre_bind_plugins(state, info, node) is not None:
            return
        writes = handle.writes
    finally:
        handle.commit, handle.writes, handle.log = saved
    scheduling.apply_writes(cluster, writes)
