"""Deployment helpers shared by the Deployment controller and kubectl: revisions, the
ReplicaSets a Deployment owns, which of them is the new one, and kubectl's rollout helpers.

Upstream: pkg/controller/deployment/util/deployment_util.go, of which kubectl keeps its own copy
(staging/src/k8s.io/kubectl/pkg/util/deployment/deployment.go: ``Revision``,
``EqualIgnoreHash``, ``FindNewReplicaSet``, ``GetAllReplicaSets``/``ListReplicaSets``, the
revision annotations and ``annotationsToSkip``), pkg/controller/controller_utils.go
(``ReplicaSetsByCreationTimestamp``) and kubectl's polymorphichelpers/rollback.go
(``DeploymentRollbacker``: ``deploymentRevision``, the rollback patch) and objectrestarter.go
(the ``kubectl.kubernetes.io/restartedAt`` template annotation). The controller's own
arithmetic (surge, proportions, conditions) is ``kubesim.controllers.deployment_util``'s.

Objects are the JSON-shaped dicts as stored; nothing here changes its arguments.
"""

from __future__ import annotations

import copy

from kubesim.api.merge import LAST_APPLIED
from kubesim.api.meta.helpers import (
    controller_ref,
    creation_time,
    meta,
    name_of,
    selector_of,
    uid_of,
)

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to"
DEFAULT_UNIQUE_LABEL = "pod-template-hash"
# annotationsToSkip: the Deployment's annotations its ReplicaSets do not copy, nor a rollback
ANNOTATIONS_TO_SKIP = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                 DEPRECATED_ROLLBACK_TO})
CHANGE_CAUSE = "kubernetes.io/change-cause"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"

ROLLBACK_SUCCESS = "rolled back"
ROLLBACK_SKIPPED = "skipped rollback"


def revision(obj: dict) -> int | None:
    """deploymentutil.Revision: 0 without the annotation, None when it does not parse."""
    v = (meta(obj).get("annotations") or {}).get(REVISION)
    if v is None:
        return 0
    try:
        return int(v)
    except ValueError:
        return None


def _is_zero(x) -> bool:
    return x is None or x is False or x == "" or x == [] or x == {} or (type(x) is int and x == 0)


def _semantic(v):
    """apiequality.Semantic.DeepEqual on JSON: absent and zero values are equal."""
    if isinstance(v, dict):
        return {k: _semantic(x) for k, x in v.items() if not _is_zero(x)}
    if isinstance(v, list):
        return [_semantic(x) for x in v]
    return v


def equal_ignore_hash(t1: dict, t2: dict) -> bool:
    """EqualIgnoreHash: pod templates equal, ignoring the pod-template-hash label."""
    def strip(t):
        t = dict(t or {})
        md = dict(t.get("metadata") or {})
        labels = dict(md.get("labels") or {})
        labels.pop(DEFAULT_UNIQUE_LABEL, None)
        md["labels"] = labels
        md.pop("creationTimestamp", None)
        t["metadata"] = md
        return _semantic(t)
    return strip(t1) == strip(t2)


def sort_by_creation(rss: list[dict]) -> list[dict]:
    """ReplicaSetsByCreationTimestamp (ties by name)."""
    return sorted(rss, key=lambda r: (creation_time(r), name_of(r)))


def find_new_replicaset(d: dict, rss: list[dict]) -> dict | None:
    """FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's."""
    template = (d.get("spec") or {}).get("template") or {}
    for rs in sort_by_creation(rss):
        if equal_ignore_hash((rs.get("spec") or {}).get("template") or {}, template):
            return rs
    return None


def owned_replicasets(deployment: dict, replicasets: list[dict]) -> list[dict]:
    """deploymentutil.ListReplicaSets: the Deployment's ReplicaSets (selector and controllerRef)."""
    sel = selector_of(deployment)
    ns = meta(deployment).get("namespace", "")
    return [rs for rs in replicasets if meta(rs).get("namespace", "") == ns and sel.matches(meta(rs).get("labels") or {})
            and (controller_ref(rs) or {}).get("uid") == uid_of(deployment)]


# ---------------------------------------------------------------------------------------------
# kubectl's rollout helpers

class RolloutError(ValueError):
    """A kubectl rollout error (printed as ``error: <message>``)."""


def revision_replicaset(deployment: dict, replicasets: list[dict], to_revision: int) -> dict:
    """polymorphichelpers.deploymentRevision: the ReplicaSet of ``to_revision`` (0 = the previous one)."""
    if to_revision < 0:
        raise RolloutError(f"unable to find specified revision {to_revision} in history")
    latest, latest_rev, previous, previous_rev = None, -1, None, -1
    for rs in owned_replicasets(deployment, replicasets):
        v = revision(rs)
        if v is None:
            continue
        if to_revision == 0:
            if latest_rev < v:
                previous, previous_rev, latest, latest_rev = latest, latest_rev, rs, v
            elif previous_rev < v:
                previous, previous_rev = rs, v
        elif to_revision == v:
            return rs
    if to_revision > 0:
        raise RolloutError(f"unable to find specified revision {to_revision} in history")
    if previous is None:
        raise RolloutError(f'no rollout history found for deployment "{name_of(deployment)}"')
    return previous


def rollback(deployment: dict, replicasets: list[dict], to_revision: int = 0) -> tuple[dict | None, str]:
    """DeploymentRollbacker.Rollback: the Deployment as kubectl's JSON patch leaves it (template of
    the revision's ReplicaSet without pod-template-hash; annotations = the deployment's
    skipped annotations + the ReplicaSet's others), and kubectl's word for it. Returns
    ``(None, "skipped rollback (current template already matches revision N)")`` when nothing
    changes. Raises RolloutError with kubectl's messages."""
    rs = revision_replicaset(deployment, replicasets, to_revision)
    if (deployment.get("spec") or {}).get("paused"):
        raise RolloutError(f"you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume "
                           f"deployment/{name_of(deployment)}' and try again")
    rs_template = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
    if equal_ignore_hash(rs_template, (deployment.get("spec") or {}).get("template") or {}):
        return None, f"{ROLLBACK_SKIPPED} (current template already matches revision {to_revision})"
    labels = (rs_template.get("metadata") or {}).get("labels")
    if labels is not None:
        labels.pop(DEFAULT_UNIQUE_LABEL, None)
    annotations = {k: v for k, v in (meta(deployment).get("annotations") or {}).items() if k in ANNOTATIONS_TO_SKIP}
    for k, v in (meta(rs).get("annotations") or {}).items():
        if k not in ANNOTATIONS_TO_SKIP:
            annotations[k] = v
    new = copy.deepcopy(deployment)
    new["spec"]["template"] = rs_template
    new["metadata"]["annotations"] = annotations
    return new, ROLLBACK_SUCCESS


def restart(deployment: dict, now_stamp: str) -> dict:
    """kubectl rollout restart (objectrestarter.go): the template annotation
    kubectl.kubernetes.io/restartedAt = ``now_stamp`` (RFC 3339)."""
    if (deployment.get("spec") or {}).get("paused"):
        raise RolloutError("can't restart paused deployment (run rollout resume first)")
    new = copy.deepcopy(deployment)
    tmeta = new.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
    tmeta.setdefault("annotations", {})[RESTARTED_AT] = now_stamp
    return new


def history(deployment: dict, replicasets: list[dict]) -> list[tuple[int, str, dict]]:
    """``rollout history``: (revision, change-cause or "<none>", ReplicaSet), oldest first."""
    out = []
    for rs in owned_replicasets(deployment, replicasets):
        v = revision(rs)
        if v is None:
            continue
        cause = (meta(rs).get("annotations") or {}).get(CHANGE_CAUSE) or "<none>"
        out.append((v, cause, rs))
    return sorted(out, key=lambda t: t[0])
