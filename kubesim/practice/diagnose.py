"""Why a check failed, in the cluster's own terms: what the components wrote on the objects.

- a pod the scheduler could not place: its PodScheduled condition's message, the
  FailedScheduling text (``0/3 nodes are available: ...``, pkg/scheduler/schedule_one.go), and
  a pointer to ``kubesim explain-schedule POD``;
- a container that is not running: its waiting reason and message as the kubelet set them
  (ImagePullBackOff, ErrImagePull, CreateContainerConfigError, CrashLoopBackOff with the last
  exit code; pkg/kubelet/kuberuntime, pkg/kubelet/images);
- a pod that runs but is not Ready: the containers the Ready condition names
  (``containers with unready status: [...]``, pkg/kubelet/status/generate.go);
- a Service without ready endpoints: its selector against the labels the namespace's pods carry
  (what pkg/controller/endpointslice selects);
- a workload not rolled out: replicas against ready replicas (kubectl's rollout status,
  staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go), its controller's last
  FailedCreate event when pods are missing, and its pods' problems.
"""

from __future__ import annotations


def _cond(pod: dict, kind: str) -> dict:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == kind), {})


def _where(pod: dict) -> str:
    ns = pod["metadata"].get("namespace") or "default"
    return "" if ns == "default" else f" -n {ns}"


def container_problem(pod: dict) -> str | None:
    """The first container that is waiting or terminated, as the kubelet reported it."""
    status = pod.get("status") or {}
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        state = cs.get("state") or {}
        name = cs.get("name")
        if "waiting" in state:
            w = state["waiting"] or {}
            reason = w.get("reason") or "waiting"
            if reason == "PodInitializing" or reason == "ContainerCreating":
                continue
            text = f"container {name} is waiting: {reason}"
            last = ((cs.get("lastState") or {}).get("terminated") or {})
            if reason == "CrashLoopBackOff" and last:
                text += f" (last exit code {last.get('exitCode')}, {last.get('reason') or 'Error'}; " \
                        f"{cs.get('restartCount', 0)} restarts)"
            elif w.get("message"):
                text += f": {w['message']}"
            return text
        if "terminated" in state and (pod.get("spec") or {}).get("restartPolicy", "Always") != "Never":
            t = state["terminated"] or {}
            if t.get("exitCode", 0) != 0:
                return f"container {name} terminated: {t.get('reason') or 'Error'} (exit code {t.get('exitCode')})"
    return None


def pod_problem(pod: dict, want_ready: bool = True, context: str | None = None) -> str | None:
    """Why a pod is not Running (and Ready), or None when it is."""
    name = pod["metadata"]["name"]
    status = pod.get("status") or {}
    phase = status.get("phase") or "Pending"
    if pod["metadata"].get("deletionTimestamp"):
        return f"pod {name} is terminating"
    if not (pod.get("spec") or {}).get("nodeName"):
        sched = _cond(pod, "PodScheduled")
        msg = sched.get("message")
        if msg:
            return f"pod {name} is Pending: {msg} (run kubesim explain-schedule {name}{_where(pod)})"
        scheduler = (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
        if scheduler != "default-scheduler":
            return f'pod {name} is Pending: no scheduler named "{scheduler}" placed it'
        return f"pod {name} is Pending: not scheduled yet (run kubesim explain-schedule {name}{_where(pod)})"
    why = container_problem(pod)
    if phase != "Running":
        return f"pod {name} is {phase}" + (f": {why}" if why else "")
    if why:
        return f"pod {name} is Running but {why}"
    if want_ready:
        ready = _cond(pod, "Ready")
        if ready.get("status") != "True":
            return f"pod {name} is Running but not Ready: {ready.get('message') or ready.get('reason') or 'not ready'}"
    return None


def _labels(labels: dict | None) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items())) or "<none>"


def selector_mismatch(client, namespace: str, selector: str) -> str:
    """``selector S matches no pod in namespace N; pods there are labelled ...``."""
    from kubesim.api import kinds

    pods = client.list(kinds.by_kind("Pod"), namespace)
    text = f'selector {selector or "<none>"} matches no pod in namespace "{namespace}"'
    if not pods:
        return text + "; there are no pods in that namespace"
    shown = sorted({_labels(p["metadata"].get("labels")) for p in pods})
    return text + "; pods there are labelled " + "; ".join(shown[:6]) + (" ..." if len(shown) > 6 else "")


def service_problem(client, svc: dict, count: int = 1) -> str | None:
    """Why a Service has fewer than ``count`` ready endpoints, or None."""
    from kubesim.api import kinds
    from kubesim.api.selectors import selector_from_set

    ns = svc["metadata"].get("namespace") or "default"
    name = svc["metadata"]["name"]
    selector = (svc.get("spec") or {}).get("selector")
    ep = client.find(kinds.by_kind("Endpoints"), ns, name) or {}
    ready = sum(len(s.get("addresses") or []) for s in ep.get("subsets") or [])
    if ready >= count:
        return None
    lead = f"Service {name} has {ready} ready endpoint(s), expected at least {count}"
    if not selector:
        return lead + ": it has no selector"
    sel = selector_from_set(selector)
    pods = [p for p in client.list(kinds.by_kind("Pod"), ns) if sel.matches(p["metadata"].get("labels") or {})]
    if not pods:
        return lead + ": its " + selector_mismatch(client, ns, _labels(selector))
    problems = [p for p in (pod_problem(p) for p in pods) if p]
    ports = [p.get("targetPort") for p in (svc.get("spec") or {}).get("ports") or []]
    if problems:
        return lead + ": " + "; ".join(problems[:3])
    return lead + f": its selector {_labels(selector)} matches {len(pods)} pod(s) (target ports {ports})"


_WORKLOAD_STATUS = {
    "Deployment": ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"),
    "StatefulSet": ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"),
    "DaemonSet": ("desiredNumberScheduled", "updatedNumberScheduled", "numberReady", "numberAvailable"),
}


def workload_problem(client, obj: dict, context: str | None = None) -> str | None:
    """Why a Deployment, StatefulSet or DaemonSet has not rolled out, or None."""
    from kubesim.api import kinds
    from kubesim.api.selectors import from_label_selector

    kind = obj["kind"]
    name = obj["metadata"]["name"]
    st = obj.get("status") or {}
    want_f, updated_f, ready_f, avail_f = _WORKLOAD_STATUS[kind]
    want = (obj.get("spec") or {}).get("replicas", 1) if kind != "DaemonSet" else st.get(want_f, 0)
    ready = st.get(ready_f, 0)
    updated = st.get(updated_f, 0)
    available = st.get(avail_f, 0)
    generation_seen = st.get("observedGeneration", 0) >= obj["metadata"].get("generation", 0)
    done = generation_seen and ready >= want and updated >= want and available >= want
    if kind != "DaemonSet":
        done = done and st.get("replicas", want) <= want  # no old replicas left over
    if done:
        return None
    lead = f"{kind} {name}: {ready}/{want} ready, {updated} up to date"
    ns = obj["metadata"].get("namespace") or "default"
    sel = from_label_selector((obj.get("spec") or {}).get("selector"))
    pods = [p for p in client.list(kinds.by_kind("Pod"), ns) if sel.matches(p["metadata"].get("labels") or {})]
    problems = [p for p in (pod_problem(p, True, context) for p in pods) if p]
    failed = _failed_create(client, obj) if len(pods) < want else None
    if failed:
        problems.insert(0, failed)
    return lead + (": " + "; ".join(problems[:3]) if problems else "")


def _failed_create(client, obj: dict) -> str | None:
    """The last FailedCreate event of the workload's controller (its ReplicaSets for a
    Deployment): why pods are missing, as ``kubectl describe rs`` shows it (a quota, a
    LimitRange, Pod Security refusing them; pkg/controller/replicaset/replica_set.go)."""
    from kubesim.api import kinds

    ns = obj["metadata"].get("namespace") or "default"
    owners = {(obj["kind"], obj["metadata"]["name"])}
    if obj["kind"] == "Deployment":
        uid = obj["metadata"].get("uid")
        owners |= {("ReplicaSet", rs["metadata"]["name"]) for rs in client.list(kinds.by_kind("ReplicaSet"), ns)
                   if any(o.get("uid") == uid for o in rs["metadata"].get("ownerReferences") or [])}
    events = [e for e in client.list(kinds.by_kind("Event"), ns)
              if e.get("reason") == "FailedCreate"
              and ((e.get("involvedObject") or {}).get("kind"), (e.get("involvedObject") or {}).get("name")) in owners]
    if not events:
        return None
    last = max(events, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
    involved = last["involvedObject"]
    return f"{involved['kind'].lower()}/{involved['name']}: FailedCreate: {last.get('message')}"
