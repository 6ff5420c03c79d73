"""describe for apps/v1: Deployment, ReplicaSet, DaemonSet, StatefulSet, and the pod template they share.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describeDeployment``,
``printReplicaSetsByLabels``, ``describeReplicaSet``, ``describeDaemonSet``,
``describeStatefulSet``, ``describeVolumeClaimTemplates``,
``DescribePodTemplate``, ``getPodStatusForController``) and
staging/src/k8s.io/kubectl/pkg/util/deployment/deployment.go (``GetAllReplicaSets``:
``listReplicaSets``, ``findNewReplicaSet``, ``equalIgnoreHash``, ``findOldReplicaSets``).
Describe lists every old ReplicaSet, those scaled to zero included (the run against the real
kubectl settled it). Template equality treats zero values and absent fields alike (Go compares
pointer fields, so ``false`` and unset differ there); a selector that does not convert prints
empty where kubectl fails.
"""

from __future__ import annotations

from kubesim.kubectl.describe.core import (
    controlled_by,
    describe_containers,
    describe_topology_spread,
    describe_volumes,
)
from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_label_selector,
    format_rfc1123z,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
    print_tolerations_multiline,
)


def describe_pod_template(template: dict | None, w: PrefixWriter) -> None:
    """DescribePodTemplate: a controller's pod template, indented under ``Pod Template:``.

    Unlike a pod's, its containers have no statuses and ``fieldRef`` env values stay empty.
    """
    w.write(LEVEL_0, "Pod Template:\n")
    if template is None:
        w.write(LEVEL_1, "<unset>")
        return
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    print_labels_multiline(w, "  Labels", meta.get("labels"))
    if meta.get("annotations"):
        print_annotations_multiline(w, "  Annotations", meta["annotations"])
    if spec.get("serviceAccountName"):
        w.write(LEVEL_1, f"Service Account:\t{spec['serviceAccountName']}\n")
    if spec.get("initContainers"):
        describe_containers("Init Containers", spec["initContainers"], None, None, w, "  ")
    describe_containers("Containers", spec.get("containers") or [], None, None, w, "  ")
    describe_volumes(spec.get("volumes"), w, "  ")
    describe_topology_spread(spec.get("topologySpreadConstraints"), w, "  ")
    if spec.get("priorityClassName"):
        w.write(LEVEL_1, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    print_labels_multiline(w, "  Node-Selectors", spec.get("nodeSelector"))
    print_tolerations_multiline(w, "  Tolerations", spec.get("tolerations"))
    if spec.get("schedulingGroup") is not None:
        w.write(LEVEL_0, "  SchedulingGroup:\n")
        w.write(LEVEL_1, f"PodGroupName:\t{spec['schedulingGroup'].get('podGroupName', '')}\n")


def pod_template_text(template: dict | None) -> str:
    """polymorphichelpers' ``printTemplate`` (history.go): :func:`describe_pod_template` through
    a bare PrefixWriter over a buffer, with no tabwriter (tabs stay tabs), as ``rollout history
    --revision=N`` and ``rollout undo --dry-run`` print a revision's template."""
    w = PrefixWriter()
    describe_pod_template(template, w)
    return "".join(w.parts)


def _controller_conditions(status: dict, w: PrefixWriter) -> None:
    """The Type/Status/Reason conditions table of a Deployment or ReplicaSet."""
    conditions = status.get("conditions") or []
    if not conditions:
        return
    w.write(LEVEL_0, "Conditions:\n  Type\tStatus\tReason\n")
    w.write(LEVEL_1, "----\t------\t------\n")
    for c in conditions:
        w.write(LEVEL_1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")


def _spec_replicas(obj: dict) -> int:
    """``*spec.replicas`` of a stored object (the API server defaults a missing one to 1)."""
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def _int_or_string_ptr(v: object) -> str:
    """``(*intstr.IntOrString).String()``: ``<nil>`` for a missing value."""
    return "<nil>" if v is None else str(v)


def _selector(selector: dict | None):
    """metav1.LabelSelectorAsSelector, or None when it does not convert."""
    from kubesim.api.selectors import from_label_selector

    try:
        return from_label_selector(selector)
    except ValueError:
        return None


def _controlled_by_uid(obj: dict, uid: str) -> bool:
    """metav1.IsControlledBy: ``obj``'s controller reference has this UID."""
    for ref in object_meta(obj).get("ownerReferences") or []:
        if ref.get("controller") is True:
            return ref.get("uid", "") == uid
    return False


def _owned_by(owner: dict, candidates: list[dict]) -> list[dict]:
    """What kubectl's describers list for ``owner``: objects of its namespace matching its
    selector (the API server's label-selector list) whose controller is ``owner``."""
    selector = _selector((owner.get("spec") or {}).get("selector"))
    if selector is None:
        return []
    meta = object_meta(owner)
    namespace, uid = meta.get("namespace", ""), meta.get("uid", "")
    return [o for o in candidates
            if object_meta(o).get("namespace", "") == namespace
            and selector.matches(object_meta(o).get("labels") or {}) and _controlled_by_uid(o, uid)]


def pod_status_counts(owner: dict, pods: list[dict]) -> tuple[int, int, int, int]:
    """getPodStatusForController: Running, Pending ("Waiting"), Succeeded and Failed pods among
    ``owner``'s (matching its selector, controlled by it)."""
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in _owned_by(owner, pods):
        phase = (pod.get("status") or {}).get("phase")
        if phase in counts:
            counts[phase] += 1
    return counts["Running"], counts["Pending"], counts["Succeeded"], counts["Failed"]


def deployment_replicasets(d: dict, replicasets: list[dict]) -> tuple[list[dict], dict | None]:
    """kubectl's deploymentutil.GetAllReplicaSets for describe: the Deployment's ReplicaSets
    (selector match, controlled by it) by creation time then name; the new one is the oldest
    whose pod template equals the Deployment's (ignoring ``pod-template-hash``: the controller's
    FindNewReplicaSet, of which kubectl's is a copy); the old ones are all the rest, scaled to
    zero or not (describe takes GetAllReplicaSets' ``allOldRSs``)."""
    from kubesim.api.apps import deployment_util as du

    owned = du.sort_by_creation(_owned_by(d, replicasets))
    new = du.find_new_replicaset(d, owned)
    old = [rs for rs in owned if rs is not new]
    return old, new


def _replicasets_by_labels(replicasets: list[dict]) -> str:
    """printReplicaSetsByLabels."""
    text = ", ".join(f"{object_meta(rs).get('name', '')} ({int((rs.get('status') or {}).get('replicas') or 0)}"
                     f"/{_spec_replicas(rs)} replicas created)" for rs in replicasets)
    return text or "<none>"


def describe_deployment(d: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(d), d.get("spec") or {}, d.get("status") or {}
    selector = _selector(spec.get("selector"))
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(meta.get('creationTimestamp'))}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Selector:\t{'' if selector is None else selector}\n")

    def count(key: str) -> int:
        return int(status.get(key) or 0)

    w.write(LEVEL_0, f"Replicas:\t{_spec_replicas(d)} desired | {count('updatedReplicas')} updated | "
                     f"{count('replicas')} total | {count('availableReplicas')} available | "
                     f"{count('unavailableReplicas')} unavailable\n")
    strategy = spec.get("strategy") or {}
    w.write(LEVEL_0, f"StrategyType:\t{strategy.get('type', '')}\n")
    w.write(LEVEL_0, f"MinReadySeconds:\t{int(spec.get('minReadySeconds') or 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        w.write(LEVEL_0, f"RollingUpdateStrategy:\t"
                         f"{_int_or_string_ptr(rolling.get('maxUnavailable'))} max unavailable, "
                         f"{_int_or_string_ptr(rolling.get('maxSurge'))} max surge\n")
    describe_pod_template(spec.get("template") or {}, w)
    _controller_conditions(status, w)
    old, new = deployment_replicasets(d, ctx.extra.get("replicasets") or [])
    if old or new is not None:
        w.write(LEVEL_0, f"OldReplicaSets:\t{_replicasets_by_labels(old)}\n")
        w.write(LEVEL_0, f"NewReplicaSet:\t{_replicasets_by_labels([new] if new else [])}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def _pods_status_line(owner: dict, pods: list[dict]) -> str:
    running, waiting, succeeded, failed = pod_status_counts(owner, pods)
    return f"{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"


def describe_replicaset(rs: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(rs), rs.get("spec") or {}, rs.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    controller = controlled_by(rs)
    if controller:
        w.write(LEVEL_0, f"Controlled By:\t{controller}\n")
    w.write(LEVEL_0, f"Replicas:\t{int(status.get('replicas') or 0)} current / "
                     f"{_spec_replicas(rs)} desired\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status_line(rs, ctx.pods)}\n")
    describe_pod_template(spec.get("template") or {}, w)
    _controller_conditions(status, w)
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def describe_daemonset(ds: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(ds), ds.get("spec") or {}, ds.get("status") or {}
    template = spec.get("template") or {}
    selector = _selector(spec.get("selector"))
    node_selector = (template.get("spec") or {}).get("nodeSelector") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"Selector:\t{'' if selector is None else selector}\n")
    node_selector_text = ",".join(f"{k}={node_selector[k]}" for k in sorted(node_selector))
    w.write(LEVEL_0, f"Node-Selector:\t{node_selector_text or '<none>'}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))

    def count(key: str) -> int:
        return int(status.get(key) or 0)

    # no tabs on these five lines: each is a line of one cell, which ends a column block
    w.write(LEVEL_0, f"Desired Number of Nodes Scheduled: {count('desiredNumberScheduled')}\n")
    w.write(LEVEL_0, f"Current Number of Nodes Scheduled: {count('currentNumberScheduled')}\n")
    w.write(LEVEL_0, f"Number of Nodes Scheduled with Up-to-date Pods: "
                     f"{count('updatedNumberScheduled')}\n")
    w.write(LEVEL_0, f"Number of Nodes Scheduled with Available Pods: {count('numberAvailable')}\n")
    w.write(LEVEL_0, f"Number of Nodes Misscheduled: {count('numberMisscheduled')}\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status_line(ds, ctx.pods)}\n")
    describe_pod_template(template, w)
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def _claim_class(pvc: dict) -> str:
    """storageutil.GetPersistentVolumeClaimClass: the beta annotation, else storageClassName."""
    ann = object_meta(pvc).get("annotations") or {}
    if "volume.beta.kubernetes.io/storage-class" in ann:
        return ann["volume.beta.kubernetes.io/storage-class"]
    return (pvc.get("spec") or {}).get("storageClassName") or ""


def describe_volume_claim_templates(templates: list[dict] | None, w: PrefixWriter) -> None:
    """describeVolumeClaimTemplates."""
    from kubesim.kubectl.describe.writer import go_string_slice_v, quantity_string

    if not templates:
        w.write(LEVEL_0, "Volume Claims:\t<none>\n")
        return
    w.write(LEVEL_0, "Volume Claims:\n")
    for pvc in templates:
        meta, spec = object_meta(pvc), pvc.get("spec") or {}
        w.write(LEVEL_1, f"Name:\t{meta.get('name', '')}\n")
        w.write(LEVEL_1, f"StorageClass:\t{_claim_class(pvc)}\n")
        print_labels_multiline(w, "Labels", meta.get("labels"), "  ")
        print_labels_multiline(w, "Annotations", meta.get("annotations"), "  ")
        requests = (spec.get("resources") or {}).get("requests") or {}
        capacity = quantity_string(requests["storage"]) if "storage" in requests else "<default>"
        w.write(LEVEL_1, f"Capacity:\t{capacity}\n")
        w.write(LEVEL_1, f"Access Modes:\t{go_string_slice_v(spec.get('accessModes'))}\n")


def describe_statefulset(sts: dict, ctx: DescribeContext) -> str:
    """describeStatefulSet."""
    meta, spec, status = object_meta(sts), sts.get("spec") or {}, sts.get("status") or {}
    selector = _selector(spec.get("selector"))
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(meta.get('creationTimestamp'))}\n")
    w.write(LEVEL_0, f"Selector:\t{'' if selector is None else selector}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Replicas:\t{_spec_replicas(sts)} desired | {int(status.get('replicas') or 0)} total\n")
    strategy = spec.get("updateStrategy") or {}
    w.write(LEVEL_0, f"Update Strategy:\t{strategy.get('type', '')}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None and rolling.get("partition") is not None:
        w.write(LEVEL_1, f"Partition:\t{int(rolling['partition'])}\n")
        if rolling.get("maxUnavailable") is not None:
            w.write(LEVEL_1, f"MaxUnavailable:\t{_int_or_string_ptr(rolling['maxUnavailable'])}\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status_line(sts, ctx.pods)}\n")
    describe_pod_template(spec.get("template") or {}, w)
    describe_volume_claim_templates(spec.get("volumeClaimTemplates"), w)
    describe_events(ctx.events, w, ctx.now)
    return w.text()
