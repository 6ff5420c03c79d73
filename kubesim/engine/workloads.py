"""The workload verbs' domain logic: patches, scale, set image, rollouts and drain.

The command modules (``kubesim.cli.workloads``, ``kubesim.cli.edit``) parse flags and print; what
the API server and kubectl's helpers do with the objects lives here.

Upstream:

- patches: the API server's ``pkg/endpoints/handlers/patch.go`` (which patch a PATCH applies,
  which error a failed one becomes, and the default ``fieldValidation=Warn`` that drops unknown
  fields with a warning). The patch algorithms themselves (strategic merge, JSON merge, JSON
  patch) and the patch strategy of each field are ``kubesim.api.patch``.
- scale: staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go and pkg/scale/scale.go.
- set image: staging/src/k8s.io/kubectl/pkg/cmd/set/set_image.go and cmd/util/helpers.go
  (GetResourcesAndPairs, ParsePairs), polymorphichelpers/updatepodspec.go.
- rollouts: staging/src/k8s.io/kubectl/pkg/polymorphichelpers/{rollout_status.go, history.go,
  rollback.go, objectpauser.go, objectresumer.go, objectrestarter.go}; the Deployment specifics
  are ``kubesim.controllers.deployment``'s client-side helpers.
- drain: staging/src/k8s.io/kubectl/pkg/drain/{drain.go, filters.go} (GetPodsForDeletion and its
  filters, in upstream's order: skip-deleted, DaemonSet, mirror, local storage, unreplicated).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field

from kubesim.api import kinds
from kubesim.api.gofmt import go_quote, go_sprint
from kubesim.api.kinds import KindInfo
from kubesim.api.patch import (PatchFailure, decode_json_patch, json_merge_patch, json_patch,
                               strategic_merge_patch)
from kubesim.errors import BadRequest, NotFound, RequestInvalid, StatusError, UsageError, client_error

# ---------------------------------------------------------------------------------------------
# the API server's PATCH and PUT


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _drop_path(obj, path: str) -> None:
    parts = [(m.group(1), m.group(2)) for m in _PATH_PART.finditer(path)]
    cur = obj
    for name, idx in parts[:-1]:
        try:
            cur = cur[name] if name is not None else cur[int(idx)]
        except (KeyError, IndexError, TypeError):
            return
    name, idx = parts[-1]
    if isinstance(cur, dict) and name is not None:
        cur.pop(name, None)


def decode_like_the_server(obj: dict, info: KindInfo, warn: list[str], invalid_value: str) -> dict:
    """The typed decode of a patched object with ``fieldValidation=Warn``: a type mismatch is an
    Invalid ``patch`` error; unknown fields are dropped with one warning each."""
    from kubesim.codec.schema import is_strict_message, schema_issues, validate_structure

    messages = validate_structure(obj)
    if messages and not all(is_strict_message(m) for m in messages):
        raise PatchFailure(RequestInvalid([f"patch: Invalid value: {go_quote(invalid_value)}: {messages[0]}"]))
    if messages:
        warn.extend(messages)
        obj = copy.deepcopy(obj)
        for kind, path in schema_issues(obj):
            if kind == "unknown":
                _drop_path(obj, path)
    return obj


def patch_object(cluster, info: KindInfo, live: dict, patch_type: str, patch) -> tuple[dict, list[str]]:
    """What PATCH of ``live`` stores: (the new object, warnings). Raises PatchFailure or the
    update's StatusError (Invalid, ...). ``patch`` is the decoded JSON."""
    original = copy.deepcopy(live)
    original["metadata"].pop("managedFields", None)
    if patch_type == "json":
        patched = json_patch(original, decode_json_patch(patch))
        shown = json.dumps(patched, separators=(",", ":"), sort_keys=True)
    elif patch_type == "merge":
        patched = json_merge_patch(original, patch)
        shown = json.dumps(patched, separators=(",", ":"), sort_keys=True)
    else:
        patched = strategic_merge_patch(original, patch)
        shown = go_sprint(patch)
    if not isinstance(patched, dict):
        raise PatchFailure(BadRequest("Object 'Kind' is missing in '" + json.dumps(patched, separators=(",", ":")) + "'"))
    warnings: list[str] = []
    md = patched.get("metadata") if isinstance(patched.get("metadata"), dict) else {}
    name = live["metadata"]["name"]
    if md.get("name", name) != name:
        raise PatchFailure(BadRequest(f"the name of the object ({md.get('name')}) does not match the name on the URL ({name})"))
    if info.namespaced and md.get("namespace", live["metadata"].get("namespace")) != live["metadata"].get("namespace"):
        raise PatchFailure(BadRequest("the namespace of the provided object does not match the namespace sent on the request"))
    if patched.get("apiVersion") != live.get("apiVersion") or patched.get("kind") != live.get("kind"):
        raise PatchFailure(RequestInvalid([f"patch: Invalid value: {go_quote(shown)}: Object 'Kind' is missing in "
                                           f"'{shown}'"]))
    patched = decode_like_the_server(patched, info, warnings, shown)
    return patched, warnings


def update(cluster, info: KindInfo, new: dict, live: dict) -> bool:
    """The API server's update (validation, immutability, generation) through objects.update_object."""
    from kubesim.apiserver import objects

    return objects.update_object(cluster, new, live, info)


def get_live(cluster, info: KindInfo, namespace: str, name: str) -> dict:
    obj = cluster.store.get(info.kind, namespace if info.namespaced else "", name)
    if obj is None:
        raise NotFound(info.resource, name)
    return copy.deepcopy(obj)


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

SCALABLE = ("Deployment", "ReplicaSet")


def scale(cluster, info: KindInfo, live: dict, replicas: int, current_replicas: int = -1,
          resource_version: str = "", change_cause: str | None = None) -> bool:
    """The scale subresource's update of spec.replicas, after kubectl's preconditions."""
    if info.kind not in SCALABLE:
        raise NotFoundResource()
    spec = live.get("spec") or {}
    current = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
    if current_replicas != -1 and current != current_replicas:
        raise client_error(f"Expected replicas to be {current_replicas}, was {current}")
    rv = live["metadata"].get("resourceVersion", "")
    if resource_version and rv != resource_version:
        raise client_error(f"Expected resource version to be {resource_version}, was {rv}")
    new = copy.deepcopy(live)
    new.setdefault("spec", {})["replicas"] = replicas
    record(new, change_cause)
    return update(cluster, info, new, live)


class NotFoundResource(StatusError):
    """A 404 for a route the server does not have (the scale subresource of a kind without one)."""

    reason = "NotFound"

    def __init__(self):
        super().__init__("the server could not find the requested resource")


# ---------------------------------------------------------------------------------------------
# set image

POD_TEMPLATE_KINDS = ("Deployment", "ReplicaSet", "DaemonSet")


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


def replicasets_of(cluster, deployment: dict) -> list[dict]:
    from kubesim.controllers.deployment import owned_replicasets

    ns = deployment["metadata"].get("namespace", "")
    return owned_replicasets(deployment, cluster.store.list("ReplicaSet", ns))


def revisions_of_daemonset(cluster, ds: dict) -> list[dict]:
    """ControllerRevisions controlled by the DaemonSet (controlledHistory)."""
    from kubesim.controllers.base import controller_ref, selector_of

    ns = ds["metadata"].get("namespace", "")
    sel = selector_of(ds)
    uid = ds["metadata"].get("uid")
    return [cr for cr in cluster.store.list("ControllerRevision", ns)
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
                return (f'Waiting for deployment "{name}" rollout to finish: {updated} out of {want} new replicas '
                        "have been updated...", False)
            if replicas > updated:
                return (f'Waiting for deployment "{name}" rollout to finish: {replicas - updated} old replicas are '
                        "pending termination...", False)
            if available < updated:
                return (f'Waiting for deployment "{name}" rollout to finish: {available} of {updated} updated '
                        "replicas are available...", False)
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
                return (f'Waiting for daemon set "{name}" rollout to finish: {updated} out of {desired} new pods '
                        "have been updated...", False)
            if available < desired:
                return (f'Waiting for daemon set "{name}" rollout to finish: {available} of {desired} updated pods '
                        "are available...", False)
            return f'daemon set "{name}" successfully rolled out', True
        return "Waiting for daemon set spec update to be observed...", False
    raise client_error(f"no status viewer has been implemented for {_group_kind(info)}")


@dataclass
class History:
    """One revision: its number, change-cause and pod template (what ViewHistory shows)."""

    revision: int
    change_cause: str
    template: dict
    obj: dict  # the ReplicaSet or ControllerRevision


def history(cluster, info: KindInfo, obj: dict) -> list[History]:
    """ViewHistory's revisions, oldest first."""
    if info.kind == "Deployment":
        from kubesim.controllers import deployment_util as du

        out: dict[int, History] = {}
        for rs in replicasets_of(cluster, obj):
            v = du.revision(rs)
            if v is None:
                continue
            template = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
            cause = (rs["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")
            if cause:
                template.setdefault("metadata", {}).setdefault("annotations", {})[CHANGE_CAUSE] = cause
            out[v] = History(v, cause, template, rs)
        return [out[k] for k in sorted(out)]
    if info.kind == "DaemonSet":
        out = {}
        for cr in revisions_of_daemonset(cluster, obj):
            v = int(cr.get("revision") or 0)
            applied = strategic_merge_patch(obj, cr.get("data") or {})
            template = (applied.get("spec") or {}).get("template") or {}
            cause = (cr["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")
            out[v] = History(v, cause, template, cr)
        return [out[k] for k in sorted(out)]
    raise client_error(f'no history viewer has been implemented for "{_group_kind(info)}"')


def rollback(cluster, info: KindInfo, live: dict, to_revision: int) -> str:
    """Rollbacker.Rollback: the word kubectl prints (``rolled back`` or ``skipped rollback (...)``)."""
    from kubesim.controllers import deployment as dctl

    if info.kind == "Deployment":
        rss = replicasets_of(cluster, live)
        try:
            dctl.revision_replicaset(live, rss, to_revision)
            if (live.get("spec") or {}).get("paused"):
                raise dctl.RolloutError("you cannot rollback a paused deployment; resume it first with "
                                        "'kubectl rollout resume' and try again")
            new, word = dctl.rollback(live, rss, to_revision)
        except dctl.RolloutError as e:
            raise client_error(str(e)) from None
        if new is not None:
            update(cluster, info, new, live)
        return word
    if info.kind == "DaemonSet":
        from kubesim.controllers.daemonset import get_patch

        if to_revision < 0:
            raise client_error(f"unable to find specified revision {to_revision} in history")
        revs = sorted(revisions_of_daemonset(cluster, live), key=lambda cr: int(cr.get("revision") or 0))
        if to_revision == 0 and len(revs) <= 1:
            raise client_error("no last revision to roll back to")
        if to_revision == 0:
            target = revs[-2]
        else:
            target = next((cr for cr in revs if int(cr.get("revision") or 0) == to_revision), None)
            if target is None:
                raise client_error(f"unable to find specified revision {to_revision} in history")
        if get_patch(live) == target.get("data"):
            return f"skipped rollback (current template already matches revision {to_revision})"
        new = strategic_merge_patch(live, target.get("data") or {})
        update(cluster, info, new, live)
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
    from kubesim.controllers import deployment as dctl

    if info.kind == "Deployment":
        try:
            return dctl.restart(live, now)
        except dctl.RolloutError as e:
            raise PatchFnError(str(e)) from None
    if info.kind == "DaemonSet":
        from kubesim.clock import format_time

        new = copy.deepcopy(live)
        tmeta = new.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
        tmeta.setdefault("annotations", {})[dctl.RESTARTED_AT] = format_time(now)
        return new
    raise PatchFnError("restarting is not supported")


class PatchFnError(Exception):
    """An error of a polymorphic helper; kubectl prints ``error: <resource> "<name>" <message>``."""


# ---------------------------------------------------------------------------------------------
# drain

DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"


@dataclass
class DrainOptions:
    force: bool = False
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    pod_selector: str | None = None
    grace_period: int = -1
    disable_eviction: bool = False
    skip_wait_for_delete_timeout: int = 0


@dataclass
class PodDelete:
    pod: dict
    delete: bool
    reason: str  # Okay | Skip | Warning | Error
    message: str = ""


@dataclass
class DrainPlan:
    items: list[PodDelete] = field(default_factory=list)

    def pods(self) -> list[dict]:
        return [i.pod for i in self.items if i.delete]

    def _grouped(self, reason: str) -> list[tuple[str, list[str]]]:
        groups: dict[str, list[str]] = {}
        for i in self.items:
            if i.reason == reason:
                msg = i.message if reason == "Warning" or i.message else "unexpected error"
                md = i.pod["metadata"]
                groups.setdefault(msg, []).append(f"{md.get('namespace', '')}/{md['name']}")
        return list(groups.items())

    def warnings(self) -> str:
        return "; ".join(f"{msg}: {', '.join(pods)}" for msg, pods in self._grouped("Warning"))

    def errors(self) -> list[str]:
        out = []
        for msg, pods in self._grouped("Error"):
            if msg.lower().startswith("cannot delete"):
                out.append(f"{msg}: {', '.join(pods)}")
            else:
                out.append(f"cannot delete {msg}: {', '.join(pods)}")
        return out


def _finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _controller_ref(pod: dict) -> dict | None:
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def plan_drain(cluster, node: str, opts: DrainOptions) -> DrainPlan:
    """GetPodsForDeletion: every pod on the node through the filters, in upstream's order."""
    from kubesim.api import selectors

    selector = None
    if opts.pod_selector:
        try:
            selector = selectors.parse_label_selector(opts.pod_selector)
        except ValueError as e:
            raise UsageError(str(e)) from None
    pods = [cluster.store.get(*k) for k in cluster.store.pod_keys_on_node(node)]
    pods = sorted((p for p in pods if p is not None),
                  key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"]))
    plan = DrainPlan()
    for pod in pods:
        if selector is not None and not selector.matches(pod["metadata"].get("labels") or {}):
            continue
        status = PodDelete(pod, True, "Okay")
        for f in (_skip_deleted_filter, _daemonset_filter, _mirror_filter, _local_storage_filter,
                  _unreplicated_filter):
            status = f(cluster, pod, opts)
            if not status.delete:
                break
        plan.items.append(status)
    return plan


def should_skip_pod(pod: dict, skip_seconds: int, now: float) -> bool:
    """drain.shouldSkipPod: a deletionTimestamp more than ``skip_seconds`` whole seconds ago."""
    from kubesim.clock import parse_timestamp

    if skip_seconds <= 0:
        return False
    ts = parse_timestamp((pod.get("metadata") or {}).get("deletionTimestamp"))
    return ts is not None and int(now - ts) > skip_seconds


def _skip_deleted_filter(cluster, pod: dict, opts: DrainOptions) -> PodDelete:
    if should_skip_pod(pod, opts.skip_wait_for_delete_timeout, cluster.now()):
        return PodDelete(pod, False, "Skip")
    return PodDelete(pod, True, "Okay")


def _daemonset_filter(cluster, pod: dict, opts: DrainOptions) -> PodDelete:
    ref = _controller_ref(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or _finished(pod):
        return PodDelete(pod, True, "Okay")
    if cluster.store.get("DaemonSet", pod["metadata"].get("namespace", ""), ref.get("name", "")) is None:
        message = f'daemonsets.apps "{ref.get("name", "")}" not found'
        if opts.force:
            return PodDelete(pod, True, "Warning", message)
        return PodDelete(pod, False, "Error", message)
    if not opts.ignore_daemonsets:
        return PodDelete(pod, False, "Error", DAEMONSET_FATAL)
    return PodDelete(pod, False, "Warning", DAEMONSET_WARNING)


def _mirror_filter(cluster, pod: dict, opts: DrainOptions) -> PodDelete:
    if MIRROR_ANNOTATION in (pod["metadata"].get("annotations") or {}):
        return PodDelete(pod, False, "Skip")
    return PodDelete(pod, True, "Okay")


def _local_storage_filter(cluster, pod: dict, opts: DrainOptions) -> PodDelete:
    if not any("emptyDir" in v for v in (pod.get("spec") or {}).get("volumes") or []) or _finished(pod):
        return PodDelete(pod, True, "Okay")
    if not opts.delete_emptydir_data:
        return PodDelete(pod, False, "Error", LOCAL_STORAGE_FATAL)
    return PodDelete(pod, True, "Warning", LOCAL_STORAGE_WARNING)


def _unreplicated_filter(cluster, pod: dict, opts: DrainOptions) -> PodDelete:
    if _finished(pod) or _controller_ref(pod) is not None:
        return PodDelete(pod, True, "Okay")
    if opts.force:
        return PodDelete(pod, True, "Warning", UNMANAGED_WARNING)
    return PodDelete(pod, False, "Error", UNMANAGED_FATAL)


def cordon(cluster, node: dict, unschedulable: bool) -> bool:
    """The cordon helper's update of spec.unschedulable; False when already so."""
    if bool((node.get("spec") or {}).get("unschedulable")) == unschedulable:
        return False
    new = copy.deepcopy(node)
    spec = new.setdefault("spec", {})
    if unschedulable:
        spec["unschedulable"] = True
    else:
        spec.pop("unschedulable", None)
    update(cluster, kinds.by_kind("Node"), new, node)
    return True
