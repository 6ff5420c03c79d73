"""kubesim explain-schedule: the recorded last attempt for a stored pod, or a what-if for pods in a
file (DESIGN §3.5). The what-if writes nothing."""

from __future__ import annotations

from kubesim.cli.session import namespace, session
from kubesim.errors import NotFound, UsageError


def explain_cmd(args, env) -> int:
    fmt = args.output or ""
    if fmt not in ("", "json", "yaml"):
        raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: json,yaml')
    if args.filename:
        explanations, pods, nodes = _what_if(args, env)
    else:
        if not args.pod:
            raise UsageError("a pod name or -f FILE is required")
        explanations, pods, nodes = _recorded(args, env)
    _print(env, explanations, pods, nodes, fmt, many=bool(args.filename) and len(explanations) > 1)
    return 0


def _recorded(args, env):
    from kubesim.engine import scheduling

    ns = namespace(args)
    name = args.pod.split("/", 1)[1] if args.pod.startswith(("pod/", "pods/", "po/")) else args.pod
    with session(args, env) as cluster:
        pod = cluster.store.get("Pod", ns, name)
        if pod is None:
            raise NotFound("pods", name)
        recorded = scheduling.load_explanation(cluster, ns, name)
        nodes = {n["metadata"]["name"]: n for n in cluster.store.list("Node")}
        if recorded is None:
            exp = _unattempted(cluster, pod)
        elif recorded[1]:
            exp = recorded[0]
        else:
            exp = _fresh(cluster, pod, recorded[0])
            env.stderr.write("kubesim: this attempt was part of a bulk scheduling and was recorded in summary; "
                             "the per-node detail is a fresh evaluation against the cluster as it is now\n")
    return [exp], [pod], nodes


def _fresh(cluster, pod: dict, summary: dict) -> dict:
    """Evaluate a stored pod again as if it were unscheduled, in a transaction rolled back later
    (the session's: nothing here is written because the explanation is not stored)."""
    import copy

    from kubesim.engine import scheduling

    scheduler = scheduling.make_scheduler(cluster)
    candidate = copy.deepcopy(pod)
    candidate["spec"].pop("nodeName", None)
    others = [p for p in cluster.store.iter_kind("Pod") if p["metadata"].get("uid") != pod["metadata"].get("uid")]
    scheduler.set_cluster(cluster.store.list("Node"), others)
    exp = scheduler.explain(candidate, cluster.now())
    # the recorded outcome is the fact; the fresh evaluation supplies the per-node detail
    for k in ("outcome", "node", "message"):
        exp[k] = summary.get(k)
    return exp


def _unattempted(cluster, pod: dict) -> dict:
    """A pod the scheduler has no record of: bypassed, another scheduler's, or gated."""
    from kubesim.engine import scheduling

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
    return base


def _what_if(args, env):
    """Evaluate each pod in the files against the current cluster, in order, as if the ones
    before it had been placed; roll everything back."""
    from kubesim.codec.load import load
    from kubesim.engine import objects, scheduling

    docs = load(args.filename, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to explain-schedule")
    prepared = objects.prepare(docs, args.namespace, "creating", explicit_namespace=bool(args.namespace))
    pods_in = [p for p in prepared if p.info.kind == "Pod"]
    if not pods_in:
        raise UsageError("explain-schedule -f needs at least one Pod")
    from kubesim.cli.session import state_dir
    from kubesim.engine.bootstrap import ensure_initialized
    from kubesim.engine.context import Cluster, Logger
    from kubesim.engine.settle import settle
    from kubesim.store import Store

    store = Store(state_dir(args, env)).open()
    explanations, pods = [], []
    try:
        cluster = Cluster(store, env.vars, Logger(verbosity=getattr(args, "verbosity", 0) or 0, stream=env.stderr))
        ensure_initialized(cluster)
        settle(cluster)
        nodes = {n["metadata"]["name"]: n for n in store.list("Node")}
        scheduler = scheduling.make_scheduler(cluster)
        for p in pods_in:
            # "what if I applied this": a stored pod of the same name is replaced, not a conflict
            if store.get("Pod", p.namespace, p.name) is not None:
                objects.delete_object(cluster, p.info, p.namespace, p.name, grace_seconds=0, force=True)
            pod = objects.create_object(cluster, p.obj, p.info)
            pods.append(pod)
            if (pod.get("spec") or {}).get("nodeName") or not scheduler.responsible_for(pod):
                explanations.append(_unattempted(cluster, pod))
                continue
            scheduler.set_cluster(store.list("Node"), list(store.iter_kind("Pod")))
            exp = scheduler.explain(pod, cluster.now())
            explanations.append(exp)
            if exp.get("node"):  # later pods see this one placed, with the volumes it took
                _reserve_and_pre_bind(cluster, scheduler, pod, exp["node"])
                pod["spec"]["nodeName"] = exp["node"]
                store.put(pod)
    finally:
        store.rollback()
    return explanations, pods, nodes


def _reserve_and_pre_bind(cluster, scheduler, pod: dict, node: str) -> None:
    """The binding cycle's Reserve and PreBind for a what-if pod placed on ``node``, with what
    PreBind asks of the API server carried out in the rolled-back transaction: VolumeBinding's
    PV claimRefs and claims' selected-node annotations, so a later pod in the file cannot take
    a volume this one took. Nothing is logged."""
    from kubesim.engine import scheduling
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


def _print(env, explanations, pods, nodes, fmt: str, many: bool) -> None:
    from kubesim.printers import output

    if fmt:
        payload = {"kind": "List", "items": explanations} if many else explanations[0]
        text = output.to_json(payload) if fmt == "json" else output.to_yaml(payload)
        if fmt == "json":
            import json

            # DESIGN §3.5 lists the fields in a reading order; keep it rather than sorting
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        env.stdout.write(text)
        return
    from kubesim.printers.explain import render

    blocks = [render(e, color=env.is_tty, pod=p, nodes=nodes) for e, p in zip(explanations, pods)]
    env.stdout.write("\n".join(blocks))
