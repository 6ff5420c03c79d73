"""kubectl's polymorphic helpers: what ``set image``, ``scale`` and the ``rollout`` verbs do to each
kind of object, client-side, before they send it.

Upstream: staging/src/k8s.io/kubectl/pkg/polymorphichelpers/{updatepodspec.go, rollout_status.go,
history.go, rollback.go, objectpauser.go, objectresumer.go, objectrestarter.go},
pkg/cmd/util/helpers.go (GetResourcesAndPairs, ParsePairs) and genericclioptions' RecordFlags
(``kubernetes.io/change-cause``). The Deployment specifics are the deployment helpers shared
with the controller.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from kubesim.api import kinds
from kubesim.api.kinds import KindInfo
from kubesim.api.patch import strategic_merge_patch
from kubesim.errors import StatusError, client_error

# ---------------------------------------------------------------------------------------------
# --record (genericclioptions.RecordFlags): kubernetes.io/change-cause

CHANGE_CAUSE = "kubernetes.io/change-cause"


def record(obj: dict, change_cause: str | None) -> dict:
    if change_cause is None:
        return obj
    obj.setdefault("metadata", {}).setdefault("annotations", {})[CHANGE_CAUSE] = change_cause
    return obj


# ---------------------------------------------------------------------------------------------
# scale

SCALABLE = ("Deployment", "ReplicaSet") + ("StatefulSet",)


def scale(client, info: KindInfo, live: dict, replicas: int, current_replicas: int = -1,
          resource_version: str = "", change_cause: str | None = None) -> dict:
    """The scale subresource's update of spec.replicas, after kubectl's preconditions."""
    if info.crd is not None:
        return _scale_custom_resource(client, info, live, replicas, current_replicas, resource_version)
    if info.kind not in SCALABLE:
        raise NotFoundResource()
    spec = live.get("spec") or {}
    current = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
    if current_replicas != -1 and current != current_replicas:
        raise client_error(f"Expected replicas to be {current_replicas}, was {current}")
    rv = live["metadata"].get("resourceVersion", "")
    if resource_version and rv != resource_version:
        raise client_error(f"Expected resource version to be {resource_version}, was {rv}")
    if not -(1 << 31) <= replicas < (1 << 31):
        raise _scale_overflow(live, replicas)
    new = copy.deepcopy(live)
    new.setdefault("spec", {})["replicas"] = replicas
    record(new, change_cause)
    return client.update(info, new, subresource="scale")


def _scale_custom_resource(client, info: KindInfo, live: dict, replicas: int, current_replicas: int,
                           resource_version: str) -> dict:
    """A custom resource's scale subresource (apiextensions-apiserver pkg/registry/customresource
    etcd.go ScaleREST): the CRD's specReplicasPath set; without the subresource the API server
    answers NotFound for the object."""
    from kubesim.api.apiextensions.helpers import subresources_for_version
    from kubesim.errors import NotFound

    name = live["metadata"]["name"]
    sub = subresources_for_version(info.crd, info.version).get("scale")
    if not isinstance(sub, dict):
        raise NotFound(info.resource, name)
    path = [p for p in str(sub.get("specReplicasPath", "")).split(".") if p]
    cur = live
    for p in path[:-1]:
        cur = cur.get(p) if isinstance(cur, dict) else None
    value = cur.get(path[-1]) if isinstance(cur, dict) and path else None
    current = int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    if current_replicas != -1 and current != current_replicas:
        raise client_error(f"Expected replicas to be {current_replicas}, was {current}")
    rv = live["metadata"].get("resourceVersion", "")
    if resource_version and rv != resource_version:
        raise client_error(f"Expected resource version to be {resource_version}, was {rv}")
    new = copy.deepcopy(live)
    cur = new
    for p in path[:-1]:
        cur = cur.setdefault(p, {})
    if path:
        cur[path[-1]] = replicas
    return client.update(info, new)


def _scale_overflow(live: dict, replicas: int):
    """What the API server answers kubectl's merge patch of the scale subresource when the
    replicas do not fit ScaleSpec's int32: the patched Scale does not decode (the registry's
    patch error: ``patch: Invalid value: <the patched object as JSON>: json: cannot unmarshal
    ...``). kubesim keeps no managedFields, so the quoted Scale lacks them."""
    import json

    from kubesim.api.gofmt import go_quote
    from kubesim.errors import RequestInvalid
    from kubesim.printers.apps import label_selector_string

    meta = live["metadata"]
    scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                  if meta.get(k)}
    obj = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": scale_meta,
           "spec": {"replicas": replicas},
           "status": {"replicas": int((live.get("status") or {}).get("replicas") or 0),
                      "selector": label_selector_string((live.get("spec") or {}).get("selector"))}}
    if not obj["status"]["replicas"]:
        del obj["status"]["replicas"]  # omitempty
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    cause = (f"patch: Invalid value: {go_quote(text)}: json: cannot unmarshal number {replicas} into Go "
             "struct field ScaleSpec.spec.replicas of type int32")
    return RequestInvalid([cause])


class NotFoundResource(StatusError):
    """A 404 for a route the server does not have (the scale subresource of a kind without one)."""

    reason = "NotFound"

    def __init__(self):
        super().__init__("the server could not find the requested resource")


# ---------------------------------------------------------------------------------------------
# set image

POD_TEMPLATE_KINDS = ("Deployment", "ReplicaSet", "DaemonSet") + ("StatefulSet",)


def split_resources_and_pairs(args: list[str], pair_type: str) -> tuple[list[str], list[str]]:
    """cmdutil.GetResourcesAndPairs."""
    resources, pairs, found = [], [], False
    for s in args:
        non_resource = ("=" in s and not s.startswith("=")) or (s.endswith("-") and s != "-")
        if non_resource:
            found = True
            pairs.append(s)
        elif found:
            raise client_error(f"all resources must be specified before {pair_type} changes: {s}")
        else:
            resources.append(s)
    return resources, pairs


def parse_pairs(pairs: list[str], pair_type: str) -> dict[str, str]:
    """cmdutil.ParsePairs without removals."""
    out: dict[str, str] = {}
    invalid = []
    for p in pairs:
        if "=" in p and not p.startswith("="):
            k, v = p.split("=", 1)
            out[k] = v
        else:
            invalid.append(p)
    if invalid:
        raise client_error(f"invalid {pair_type} format: {', '.join(invalid)}")
    return out


def pod_spec_of(obj: dict) -> dict | None:
    if obj.get("kind") == "Pod":
        return obj.setdefault("spec", {})
    if obj.get("kind") in POD_TEMPLATE_KINDS:
        return obj.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    return None


_GO_TYPES = {"Node": "*v1.Node", "Namespace": "*v1.Namespace", "Event": "*v1.Event",
             "ControllerRevision": "*v1.ControllerRevision"}


def set_images(obj: dict, images: dict[str, str]) -> tuple[dict, list[str]]:
    """UpdatePodSpecForObject + setImage: (the changed copy, errors for containers not found)."""
    new = copy.deepcopy(obj)
    spec = pod_spec_of(new)
    if spec is None:
        go_type = _GO_TYPES.get(obj.get("kind", ""), "*unstructured.Unstructured")
        raise _NoPodSpec(f"the object is not a pod or does not have a pod template: {go_type}")
    errors = []
    for name, image in images.items():
        found = False
        for key in ("initContainers", "containers"):
            for c in spec.get(key) or []:
                if c.get("name") == name or name == "*":
                    c["image"] = image
                    found = True
        if not found:
            errors.append(f'error: unable to find container named "{name}"')
    return new, errors


class _NoPodSpec(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# rollouts

REVISION = "deployment.kubernetes.io/revision"


def _group_kind(info: KindInfo) -> str:
    return f"{info.kind}.{info.group}" if info.group else info.kind


def replicasets_of(client, deployment: dict) -> list[dict]:
    from kubesim.api.apps.deployment_util import owned_replicasets

    ns = deployment["metadata"].get("namespace", "")
    return owned_replicasets(deployment, client.list(kinds.by_kind("ReplicaSet"), ns))


def revisions_of_daemonset(client, ds: dict) -> list[dict]:
    """ControllerRevisions controlled by the DaemonSet or StatefulSet (controlledHistory[V1])."""
    from kubesim.api.meta.helpers import controller_ref, selector_of

    ns = ds["metadata"].get("namespace", "")
    sel = selector_of(ds)
    uid = ds["metadata"].get("uid")
    return [cr for cr in client.list(kinds.by_kind("ControllerRevision"), ns)
            if sel.matches(cr["metadata"].get("labels") or {}) and (controller_ref(cr) or {}).get("uid") == uid]


def rollout_status(info: KindInfo, obj: dict, revision: int = 0) -> tuple[str, bool]:
    """StatusViewer.Status: (the message line, done). Raises a RawError (kubesim.errors.client_error)."""
    name = obj["metadata"]["name"]
    spec, st = obj.get("spec") or {}, obj.get("status") or {}
    generation = int(obj["metadata"].get("generation") or 0)
    observed = int(st.get("observedGeneration") or 0)
    if info.kind == "Deployment":
        if revision > 0:
            try:
                current = int((obj["metadata"].get("annotations") or {}).get(REVISION, "0"))
            except ValueError as e:
                raise client_error(f'cannot get the revision of deployment "{name}": {e}') from None
            if revision != current:
                raise client_error(f"desired revision ({revision}) is different from the running revision ({current})")
        if generation <= observed:
            cond = next((c for c in st.get("conditions") or [] if c.get("type") == "Progressing"), None)
            if cond is not None and cond.get("reason") == "ProgressDeadlineExceeded":
                raise client_error(f'deployment "{name}" exceeded its progress deadline')
            want = spec.get("replicas")
            updated, replicas = int(st.get("updatedReplicas") or 0), int(st.get("replicas") or 0)
            available = int(st.get("availableReplicas") or 0)
            if want is not None and updated < int(want):
                return ((f'Waiting for deployment "{name}" rollout to finish: {updated} out of {want} new replicas '
                         "have been updated..."), False)
            if replicas > updated:
                return ((f'Waiting for deployment "{name}" rollout to finish: {replicas - updated} old replicas are '
                         "pending termination..."), False)
            if available < updated:
                return ((f'Waiting for deployment "{name}" rollout to finish: {available} of {updated} updated '
                         "replicas are available..."), False)
            return f'deployment "{name}" successfully rolled out', True
        return "Waiting for deployment spec update to be observed...", False
    if info.kind == "DaemonSet":
        if ((spec.get("updateStrategy") or {}).get("type") or "RollingUpdate") != "RollingUpdate":
            raise client_error("rollout status is only available for RollingUpdate strategy type")
        if generation <= observed:
            updated = int(st.get("updatedNumberScheduled") or 0)
            desired = int(st.get("desiredNumberScheduled") or 0)
            available = int(st.get("numberAvailable") or 0)
            if updated < desired:
                return ((f'Waiting for daemon set "{name}" rollout to finish: {updated} out of {desired} new pods '
                         "have been updated..."), False)
            if available < desired:
                return ((f'Waiting for daemon set "{name}" rollout to finish: {available} of {desired} updated pods '
                         "are available..."), False)
            return f'daemon set "{name}" successfully rolled out', True
        return "Waiting for daemon set spec update to be observed...", False
    if info.kind == "StatefulSet":
        return _statefulset_status(spec, st, generation, observed)
    raise client_error(f"no status viewer has been implemented for {_group_kind(info)}")


def _statefulset_status(spec: dict, st: dict, generation: int, observed: int) -> tuple[str, bool]:
    """StatefulSetStatusViewer.Status."""
    strategy = spec.get("updateStrategy") or {}
    if (strategy.get("type") or "") != "RollingUpdate":
        raise client_error("rollout status is only available for RollingUpdate strategy type")
    if observed == 0 or generation > observed:
        return "Waiting for statefulset spec update to be observed...", False
    want = spec.get("replicas")
    ready, updated = int(st.get("readyReplicas") or 0), int(st.get("updatedReplicas") or 0)
    if want is not None and ready < int(want):
        return f"Waiting for {int(want) - ready} pods to be ready...", False
    ru = strategy.get("rollingUpdate")
    if ru is not None:
        if want is not None and ru.get("partition") is not None:
            target = int(want) - int(ru["partition"])
            if updated < target:
                return (f"Waiting for partitioned roll out to finish: {updated} out of {target} new pods have been "
                        "updated..."), False
        return f"partitioned roll out complete: {updated} new pods have been updated...", True
    if st.get("updateRevision", "") != st.get("currentRevision", ""):
        return (f"waiting for statefulset rolling update to complete {updated} pods at revision "
                f"{st.get('updateRevision', '')}..."), False
    return (f"statefulset rolling update complete {int(st.get('currentReplicas') or 0)} pods at revision "
            f"{st.get('currentRevision', '')}..."), True


def _matches_revision(live: dict, revision: dict) -> bool:
    """daemonSetMatch / statefulsetMatch: the object's template is the revision's."""
    if live.get("kind") == "StatefulSet":
        from kubesim.api.apps.statefulset_util import matches_revision

        return matches_revision(live, revision)
    from kubesim.api.apps.daemonset_util import get_patch

    return get_patch(live) == revision.get("data")


@dataclass
class History:
    """One revision: its number, change-cause and pod template (what ViewHistory shows)."""

    revision: int
    change_cause: str
    template: dict
    obj: dict  # the ReplicaSet or ControllerRevision


def history(client, info: KindInfo, obj: dict) -> list[History]:
    """ViewHistory's revisions, oldest first."""
    if info.kind == "Deployment":
        from kubesim.api.apps import deployment_util as du

        out: dict[int, History] = {}
        for rs in replicasets_of(client, obj):
            v = du.revision(rs)
            if v is None:
                continue
            template = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
            cause = (rs["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")
            if cause:
                template.setdefault("metadata", {}).setdefault("annotations", {})[CHANGE_CAUSE] = cause
            out[v] = History(v, cause, template, rs)
        return [out[k] for k in sorted(out)]
    if info.kind in ("DaemonSet", "StatefulSet"):
        out = {}
        for cr in revisions_of_daemonset(client, obj):
            v = int(cr.get("revision") or 0)
            applied = strategic_merge_patch(obj, cr.get("data") or {})
            template = (applied.get("spec") or {}).get("template") or {}
            cause = (cr["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")
            out[v] = History(v, cause, template, cr)
        return [out[k] for k in sorted(out)]
    raise client_error(f'no history viewer has been implemented for "{_group_kind(info)}"')


def rollback(client, info: KindInfo, live: dict, to_revision: int) -> str:
    """Rollbacker.Rollback: the word kubectl prints (``rolled back`` or ``skipped rollback (...)``)."""
    from kubesim.api.apps import deployment_util as du

    if info.kind == "Deployment":
        rss = replicasets_of(client, live)
        try:
            du.revision_replicaset(live, rss, to_revision)
            if (live.get("spec") or {}).get("paused"):
                raise du.RolloutError("you cannot rollback a paused deployment; resume it first with "
                                        "'kubectl rollout resume' and try again")
            new, word = du.rollback(live, rss, to_revision)
        except du.RolloutError as e:
            raise client_error(str(e)) from None
        if new is not None:
            client.update(info, new)
        return word
    if info.kind in ("DaemonSet", "StatefulSet"):
        if to_revision < 0:
            raise client_error(f"unable to find specified revision {to_revision} in history")
        revs = sorted(revisions_of_daemonset(client, live), key=lambda cr: int(cr.get("revision") or 0))
        if to_revision == 0 and len(revs) <= 1:
            raise client_error("no last revision to roll back to")
        if to_revision == 0:
            target = revs[-2]
        else:
            target = next((cr for cr in revs if int(cr.get("revision") or 0) == to_revision), None)
            if target is None:
                raise client_error(f"unable to find specified revision {to_revision} in history")
        if _matches_revision(live, target):
            return f"skipped rollback (current template already matches revision {to_revision})"
        new = strategic_merge_patch(live, target.get("data") or {})
        client.update(info, new)
        return "rolled back"
    raise client_error(f'no rollbacker has been implemented for "{_group_kind(info)}"')


def pause(info: KindInfo, live: dict, paused: bool) -> dict:
    """defaultObjectPauser / defaultObjectResumer. Raises _PatchFnError with kubectl's words."""
    if info.kind != "Deployment":
        raise PatchFnError("pausing is not supported" if paused else "resuming is not supported")
    current = bool((live.get("spec") or {}).get("paused"))
    if paused and current:
        raise PatchFnError("is already paused")
    if not paused and not current:
        raise PatchFnError("is not paused")
    new = copy.deepcopy(live)
    if paused:
        new.setdefault("spec", {})["paused"] = True
    else:
        new.setdefault("spec", {}).pop("paused", None)
    return new


def restart(info: KindInfo, live: dict, now: float) -> dict:
    """defaultObjectRestarter: the template annotation kubectl.kubernetes.io/restartedAt."""
    from kubesim.api.apps import deployment_util as du
    from kubesim.clock import format_time

    if info.kind == "Deployment":
        try:
            return du.restart(live, format_time(now))
        except du.RolloutError as e:
            raise PatchFnError(str(e)) from None
    if info.kind in ("DaemonSet", "StatefulSet"):
        new = copy.deepcopy(live)
        tmeta = new.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
        tmeta.setdefault("annotations", {})[du.RESTARTED_AT] = format_time(now)
        return new
    raise PatchFnError("restarting is not supported")


class PatchFnError(Exception):
    """An error of a polymorphic helper; kubectl prints ``error: <resource> "<name>" <message>``."""


# ---------------------------------------------------------------------------------------------
# logs: the pods behind an object (helpers.go SelectorsForObject, podutils.ByLogging)

_WORKLOAD_GO_TYPES = {"Deployment": "*v1.Deployment", "ReplicaSet": "*v1.ReplicaSet", "DaemonSet": "*v1.DaemonSet",
             "StatefulSet": "*v1.StatefulSet", "Job": "*v1.Job", "Service": "*v1.Service",
             "ReplicationController": "*v1.ReplicationController"}


def selector_for_object(obj: dict):
    """SelectorsForObject: the label selector of the pods a workload or Service stands for (a
    ``kubesim.api.selectors.LabelSelector``), or kubectl's error for a kind without one."""
    from kubesim.api.selectors import from_label_selector, selector_from_set

    kind = obj.get("kind", "")
    spec = obj.get("spec") or {}
    if kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job"):
        try:
            return from_label_selector(spec.get("selector"))
        except ValueError as e:
            raise client_error(f"cannot get the logs from {_WORKLOAD_GO_TYPES[kind]}: invalid label selector: {e}") from None
    if kind == "ReplicationController":
        return selector_from_set(spec.get("selector"))
    if kind == "Service":
        if not spec.get("selector"):
            name = (obj.get("metadata") or {}).get("name", "")
            raise client_error(f"cannot get the logs from *v1.Service: invalid service '{name}': Service is defined "
                               "without a selector")
        return selector_from_set(spec.get("selector"))
    go_type = _WORKLOAD_GO_TYPES.get(kind) or f"*v1.{kind}"
    raise client_error(f"cannot get the logs from {go_type}: selector for {go_type} not implemented")


def by_logging(pods: list[dict]) -> list[dict]:
    """podutils.ByLogging: the pod best to read logs from first — assigned before unassigned,
    Running before Unknown before Pending, ready before not, ready longer before ready shorter,
    more restarts before fewer (regular containers, then sidecars), older before newer."""
    from kubesim.clock import parse_timestamp

    phase_rank = {"Running": 0, "Unknown": 1, "Pending": 2}  # a Go map: any other phase ranks 0

    def ready_time(pod: dict) -> float | None:
        for c in (pod.get("status") or {}).get("conditions") or []:
            if c.get("type") == "Ready":
                return parse_timestamp(c.get("lastTransitionTime")) if c.get("status") == "True" else None
        return None

    def ready(pod: dict) -> bool:
        return any(c.get("type") == "Ready" and c.get("status") == "True"
                   for c in (pod.get("status") or {}).get("conditions") or [])

    def restarts(pod: dict) -> tuple[int, int]:
        st = pod.get("status") or {}
        regular = max([int(c.get("restartCount") or 0) for c in st.get("containerStatuses") or []], default=0)
        sidecars = {c.get("name") for c in (pod.get("spec") or {}).get("initContainers") or []
                    if c.get("restartPolicy") == "Always"}
        sidecar = max([int(c.get("restartCount") or 0) for c in st.get("initContainerStatuses") or []
                       if c.get("name") in sidecars], default=0)
        return regular, sidecar

    def key(pod: dict):
        spec, st = pod.get("spec") or {}, pod.get("status") or {}
        is_ready = ready(pod)
        rt = ready_time(pod) if is_ready else None
        regular, sidecar = restarts(pod)
        created = parse_timestamp((pod.get("metadata") or {}).get("creationTimestamp"))
        return (0 if spec.get("nodeName") else 1, phase_rank.get(st.get("phase", ""), 0), 0 if is_ready else 1,
                (rt is None, rt or 0.0) if is_ready else (False, 0.0), -regular, -sidecar,
                (created is None, created or 0.0))

    return sorted(pods, key=key)
