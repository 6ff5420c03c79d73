"""The Deployment controller: ReplicaSets per pod template, rolling updates, Recreate, revisions,
status and conditions.

Upstream: pkg/controller/deployment/deployment_controller.go (syncDeployment,
getReplicaSetsForDeployment, getPodMapForDeployment), sync.go (getNewReplicaSet, scale,
scaleReplicaSet, cleanupDeployment, calculateStatus, isScalingEvent, checkPausedConditions),
rolling.go, recreate.go, progress.go (syncRolloutStatus, requeueStuckDeployment),
util/deployment_util.go (the arithmetic, ``kubesim.controllers.deployment_util``; what kubectl
shares, ``kubesim.api.apps.deployment_util``, which also holds kubectl's rollback and restart).

One ``sync`` is one pass of syncDeployment over every Deployment; the engine repeats passes
(with the ReplicaSet controller and the kubelet in between) until nothing changes, which is how
upstream's level-triggered controllers converge. The deprecated in-object rollback
(``deprecated.deployment.rollback.to``) is not modelled: kubectl rolls back client-side.
"""

from __future__ import annotations

from kubesim.api.apps import deployment_util as adu
from kubesim.api.meta.helpers import (
    controller_ref,
    meta,
    name_of,
    new_controller_ref,
    selector_of,
    uid_of,
)
from kubesim.controllers import deployment_util as du
from kubesim.controllers.base import (
    Change,
    Event,
    View,
    claim,
    deepcopy,
    get_condition,
    remove_condition,
    set_condition,
)
from kubesim.controllers.hashing import compute_hash

COMPONENT = "deployment-controller"
SCALING_REPLICA_SET = "ScalingReplicaSet"


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for d in view.list("Deployment"):
        if view.wants(d):
            changes.extend(sync_deployment(view, d))
    return changes


class _Abort(Exception):
    """An API error upstream returns from syncDeployment (the deployment is requeued)."""


class _InvalidScaleDown(Exception):
    """rolling.go's "got invalid request to scale down": a scale-down count below zero."""


class _Sync:
    """One syncDeployment: the working copies of the Deployment and its ReplicaSets, and the
    changes (API calls) made so far, in order."""

    def __init__(self, view: View, d: dict):
        self.view = view
        self.d = deepcopy(d)
        self.changes: list[Change] = []
        self.rs_list: list[dict] = []

    # -- API calls --------------------------------------------------------------------------
    def event(self, type_: str, reason: str, message: str) -> Event:
        return Event(self.d, type_, reason, message, COMPONENT)

    def update_rs(self, old: dict, new: dict, events: list[Event] | None = None) -> dict:
        if (new.get("spec") or {}) != (old.get("spec") or {}):
            new["metadata"]["generation"] = int(meta(old).get("generation", 1)) + 1
        self.changes.append(Change("update", new, events or []))
        self.rs_list = [new if uid_of(r) == uid_of(old) and name_of(r) == name_of(old) else r for r in self.rs_list]
        return new

    def update_status(self) -> None:
        """UpdateStatus of the Deployment (the status subresource also writes annotations)."""
        self.changes.append(Change("update_status", deepcopy(self.d)))

    # -- syncDeployment ---------------------------------------------------------------------
    def run(self) -> list[Change]:
        d = self.d
        spec = d.get("spec") or {}
        if spec.get("selector") == {}:
            ev = self.event("Warning", "SelectingAll",
                            "This deployment is selecting all pods. A non-empty selector is required.")
            st = d.setdefault("status", {})
            if int(st.get("observedGeneration") or 0) < int(meta(d).get("generation", 1)):
                st["observedGeneration"] = meta(d).get("generation", 1)
                self.changes.append(Change("update_status", deepcopy(d), [ev]))
            else:
                self.changes.append(Change("event", d, [ev]))
            return self.changes
        self.rs_list = self._replicasets_for_deployment()
        try:
            if meta(d).get("deletionTimestamp"):
                self._sync_status_only()
                return self.changes
            self._check_paused_conditions()
            if spec.get("paused") or self._is_scaling_event():
                self._sync()
            elif du.is_recreate(d):
                self._rollout_recreate()
            else:
                self._rollout_rolling()
        except _Abort:
            pass
        return self.changes

    def _replicasets_for_deployment(self) -> list[dict]:
        ns = meta(self.d).get("namespace", "")
        candidates = sorted(self.view.owned_by("ReplicaSet", uid_of(self.d)) + self.view.orphans("ReplicaSet", ns),
                            key=name_of)
        return claim(self.view, self.d, candidates, selector_of(self.d), self.changes)

    def _pod_map(self) -> dict[str, list[dict]]:
        return {uid_of(rs): [p for p in self.view.owned_by("Pod", uid_of(rs))
                             if (controller_ref(p) or {}).get("kind") == "ReplicaSet"] for rs in self.rs_list}

    # -- sync.go ----------------------------------------------------------------------------
    def _all_replicasets(self, create: bool) -> tuple[dict | None, list[dict]]:
        _, all_old = du.find_old_replicasets(self.d, self.rs_list)
        new_rs = self._new_replicaset(all_old, create)
        _, all_old = du.find_old_replicasets(self.d, self.rs_list)
        if new_rs is not None:
            all_old = [r for r in all_old if name_of(r) != name_of(new_rs)]
        return new_rs, all_old

    def _new_replicaset(self, old_rss: list[dict], create: bool) -> dict | None:
        d, view = self.d, self.view
        existing = adu.find_new_replicaset(d, self.rs_list)
        new_revision = str(du.max_revision(old_rss) + 1)
        if existing is not None:
            rs_copy = deepcopy(existing)
            annotations_updated = du.set_new_replicaset_annotations(d, rs_copy, new_revision, True)
            mrs = int((d.get("spec") or {}).get("minReadySeconds") or 0)
            if annotations_updated or int((rs_copy.get("spec") or {}).get("minReadySeconds") or 0) != mrs:
                if mrs:
                    rs_copy["spec"]["minReadySeconds"] = mrs
                else:
                    rs_copy["spec"].pop("minReadySeconds", None)
                return self.update_rs(existing, rs_copy)
            needs_update = du.set_deployment_revision(d, (meta(rs_copy).get("annotations") or {}).get(adu.REVISION, ""))
            conds = (d.get("status") or {}).get("conditions") or []
            if du.has_progress_deadline(d) and get_condition(conds, "Progressing") is None:
                self._set_condition(du.condition("Progressing", "True", du.FOUND_NEW_RS_REASON,
                                                 f'Found new replica set "{name_of(rs_copy)}"', view.stamp()))
                needs_update = True
            if needs_update:
                self.update_status()
            return rs_copy
        if not create:
            return None

        spec = d.get("spec") or {}
        template = deepcopy(spec.get("template") or {})
        collision = (d.get("status") or {}).get("collisionCount")
        h = compute_hash(template, collision)
        tmeta = template.setdefault("metadata", {})
        tmeta["labels"] = dict(tmeta.get("labels") or {}, **{adu.DEFAULT_UNIQUE_LABEL: h})
        selector = deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = dict(selector.get("matchLabels") or {}, **{adu.DEFAULT_UNIQUE_LABEL: h})
        ns = meta(d).get("namespace", "")
        name = du.replicaset_name(name_of(d), h)
        new_rs = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": ns, "labels": dict(tmeta["labels"]),
                         "ownerReferences": [new_controller_ref(d)]},
            "spec": {"replicas": 0, "selector": selector, "template": template},
        }
        if spec.get("minReadySeconds"):
            new_rs["spec"]["minReadySeconds"] = spec["minReadySeconds"]
        new_replicas = du.new_rs_new_replicas(d, old_rss + [new_rs], new_rs)
        new_rs["spec"]["replicas"] = new_replicas
        du.set_new_replicaset_annotations(d, new_rs, new_revision, False)
        # keep the annotations' order as upstream's map would print: sorted keys
        new_rs["metadata"]["annotations"] = dict(sorted(new_rs["metadata"]["annotations"].items()))

        already_exists = False
        stored = view.get("ReplicaSet", ns, name)
        if stored is not None:
            already_exists = True
            ref = controller_ref(stored)
            if ref is not None and ref.get("uid") == uid_of(d) and \
                    adu.equal_ignore_hash(spec.get("template") or {}, (stored.get("spec") or {}).get("template") or {}):
                created = stored
            else:
                st = d.setdefault("status", {})
                st["collisionCount"] = int(st.get("collisionCount") or 0) + 1
                self.update_status()
                raise _Abort()
        else:
            created = new_rs
            events = []
            if new_replicas > 0:
                events.append(self.event("Normal", SCALING_REPLICA_SET,
                                         f"Scaled up replica set {name} from 0 to {new_replicas}"))
            # deployment/sync.go getNewReplicaSet: a refused create's event (and failure_status)
            self.changes.append(Change("create", new_rs, events, failure_reason=du.FAILED_RS_CREATE_REASON,
                                       failure=f'Failed to create new replica set "{name}": {{error}}'))
            self.rs_list.append(new_rs)
        needs_update = du.set_deployment_revision(d, new_revision)
        if not already_exists and du.has_progress_deadline(d):
            self._set_condition(du.condition("Progressing", "True", du.NEW_RS_REASON,
                                             f'Created new replica set "{name}"', view.stamp()))
            needs_update = True
        if needs_update:
            self.update_status()
        return created

    def _set_condition(self, cond: dict) -> None:
        st = self.d.setdefault("status", {})
        st["conditions"] = set_condition(list(st.get("conditions") or []), cond)

    def _scale_rs(self, rs: dict, new_scale: int) -> tuple[bool, dict]:
        """scaleReplicaSet (and scaleReplicaSetAndRecordEvent's no-op check by the callers)."""
        d = self.d
        old_scale = du.replicas(rs)
        size_needs_update = old_scale != new_scale
        desired, max_replicas = du.replicas(d), du.replicas(d) + du.max_surge(d)
        if not size_needs_update and not du.replicas_annotations_need_update(rs, desired, max_replicas):
            return False, rs
        rs_copy = deepcopy(rs)
        rs_copy["spec"]["replicas"] = new_scale
        du.set_replicas_annotations(rs_copy, desired, max_replicas)
        events = []
        if size_needs_update:
            op = "up" if old_scale < new_scale else "down"
            events.append(self.event("Normal", SCALING_REPLICA_SET,
                                     f"Scaled {op} replica set {name_of(rs)} from {old_scale} to {new_scale}"))
        updated = self.update_rs(rs, rs_copy, events)
        return size_needs_update, updated

    def _scale_and_record(self, rs: dict, new_scale: int) -> tuple[bool, dict]:
        if du.replicas(rs) == new_scale:
            return False, rs
        return self._scale_rs(rs, new_scale)

    def _scale(self, new_rs: dict | None, old_rss: list[dict]) -> None:
        """sync.go scale: proportional scaling of a scaling event or a paused deployment."""
        d = self.d
        active_or_latest = du.find_active_or_latest(new_rs, old_rss)
        if active_or_latest is not None:
            if du.replicas(active_or_latest) == du.replicas(d):
                return
            self._scale_rs(active_or_latest, du.replicas(d))
            return
        if du.is_saturated(d, new_rs):
            for old in du.filter_active(old_rss):
                self._scale_and_record(old, 0)
            return
        if not du.is_rolling_update(d):
            return
        all_rss = du.filter_active(old_rss + ([new_rs] if new_rs else []))
        all_replicas = du.replica_count(all_rss)
        allowed = du.replicas(d) + du.max_surge(d) if du.replicas(d) > 0 else 0
        to_add = allowed - all_replicas
        if to_add > 0:
            all_rss = du.sort_by_size_newer(all_rss)
        elif to_add < 0:
            all_rss = du.sort_by_size_older(all_rss)
        added = 0
        sizes: dict[str, int] = {}
        for rs in all_rss:
            if to_add != 0:
                proportion = du.get_proportion(rs, d, to_add, added)
                sizes[name_of(rs)] = du.replicas(rs) + proportion
                added += proportion
            else:
                sizes[name_of(rs)] = du.replicas(rs)
        for i, rs in enumerate(all_rss):
            if i == 0 and to_add != 0:
                sizes[name_of(rs)] = max(0, sizes[name_of(rs)] + to_add - added)
            self._scale_rs(rs, sizes[name_of(rs)])

    def _cleanup(self, old_rss: list[dict]) -> None:
        """cleanupDeployment: keep revisionHistoryLimit old ReplicaSets."""
        d = self.d
        if not du.has_revision_history_limit(d):
            return
        cleanable = [rs for rs in old_rss if not meta(rs).get("deletionTimestamp")]
        diff = len(cleanable) - int((d.get("spec") or {}).get("revisionHistoryLimit"))
        if diff <= 0:
            return
        for rs in du.sort_by_revision(cleanable)[:diff]:
            st = rs.get("status") or {}
            if int(st.get("replicas") or 0) != 0 or du.replicas(rs) != 0 or \
                    int(meta(rs).get("generation", 1)) > int(st.get("observedGeneration") or 0):
                continue
            self.changes.append(Change("delete", rs, propagation="Background"))

    def _calculate_status(self, all_rss: list[dict], new_rs: dict | None) -> dict:
        d = self.d
        available = du.available_replica_count(all_rss)
        total = du.replica_count(all_rss)
        status: dict = {}
        for k, v in (("observedGeneration", int(meta(d).get("generation", 1))),
                     ("replicas", du.actual_replica_count(all_rss)),
                     ("updatedReplicas", du.actual_replica_count([new_rs] if new_rs else [])),
                     ("readyReplicas", du.ready_replica_count(all_rss)),
                     ("availableReplicas", available),
                     ("unavailableReplicas", max(0, total - available))):
            if v:
                status[k] = v
        terminating = du.terminating_replica_count(all_rss)
        if terminating is not None:
            status["terminatingReplicas"] = terminating
        old = d.get("status") or {}
        if old.get("collisionCount") is not None:
            status["collisionCount"] = old["collisionCount"]
        conds = list(old.get("conditions") or [])
        if available >= du.replicas(d) - du.max_unavailable(d):
            conds = set_condition(conds, du.condition("Available", "True", du.MIN_AVAILABLE,
                                                      "Deployment has minimum availability.", self.view.stamp()))
        else:
            conds = set_condition(conds, du.condition("Available", "False", du.MIN_UNAVAILABLE,
                                                      "Deployment does not have minimum availability.", self.view.stamp()))
        status["conditions"] = conds
        return status

    def _sync_deployment_status(self, all_rss: list[dict], new_rs: dict | None) -> None:
        status = self._calculate_status(all_rss, new_rs)
        if status != (self.d.get("status") or {}):
            self.d["status"] = status
            self.update_status()

    def _sync_status_only(self) -> None:
        new_rs, old = self._all_replicasets(False)
        self._sync_deployment_status(old + ([new_rs] if new_rs else []), new_rs)

    def _sync(self) -> None:
        new_rs, old = self._all_replicasets(False)
        self._scale(new_rs, old)
        new_rs, old = self._refresh(new_rs, old)
        if (self.d.get("spec") or {}).get("paused"):
            self._cleanup(old)
        self._sync_deployment_status(old + ([new_rs] if new_rs else []), new_rs)

    def _refresh(self, new_rs: dict | None, old: list[dict]) -> tuple[dict | None, list[dict]]:
        """The working copies after this pass's own updates (upstream carries the returned objects)."""
        by_name = {name_of(r): r for r in self.rs_list}
        return (by_name.get(name_of(new_rs), new_rs) if new_rs else None), [by_name.get(name_of(r), r) for r in old]

    def _check_paused_conditions(self) -> None:
        d = self.d
        if not du.has_progress_deadline(d):
            return
        cond = get_condition((d.get("status") or {}).get("conditions"), "Progressing")
        if cond is not None and cond.get("reason") == du.TIMED_OUT_REASON:
            return
        paused_exists = cond is not None and cond.get("reason") == du.PAUSED_REASON
        paused = bool((d.get("spec") or {}).get("paused"))
        if paused and not paused_exists:
            self._set_condition(du.condition("Progressing", "Unknown", du.PAUSED_REASON, "Deployment is paused",
                                             self.view.stamp()))
        elif not paused and paused_exists:
            self._set_condition(du.condition("Progressing", "Unknown", du.RESUMED_REASON, "Deployment is resumed",
                                             self.view.stamp()))
        else:
            return
        self.update_status()

    def _is_scaling_event(self) -> bool:
        new_rs, old = self._all_replicasets(False)
        for rs in du.filter_active(old + ([new_rs] if new_rs else [])):
            desired = du.nonnegative_int32_annotation(rs, adu.DESIRED_REPLICAS)
            if desired is not None and desired != du.replicas(self.d):
                return True
        return False

    # -- rolling.go -------------------------------------------------------------------------
    def _rollout_rolling(self) -> None:
        new_rs, old = self._all_replicasets(True)
        all_rss = old + [new_rs]
        scaled_up = self._reconcile_new_rs(all_rss, new_rs)
        new_rs, old = self._refresh(new_rs, old)
        if scaled_up:
            self._sync_rollout_status(old + [new_rs], new_rs)
            return
        scaled_down = self._reconcile_old_rss(old + [new_rs], du.filter_active(old), new_rs)
        new_rs, old = self._refresh(new_rs, old)
        if scaled_down:
            self._sync_rollout_status(old + [new_rs], new_rs)
            return
        if du.deployment_complete(self.d, self.d.get("status") or {}):
            self._cleanup(old)
        self._sync_rollout_status(old + [new_rs], new_rs)

    def _reconcile_new_rs(self, all_rss: list[dict], new_rs: dict) -> bool:
        d = self.d
        if du.replicas(new_rs) == du.replicas(d):
            return False
        if du.replicas(new_rs) > du.replicas(d):
            return self._scale_and_record(new_rs, du.replicas(d))[0]
        return self._scale_and_record(new_rs, du.new_rs_new_replicas(d, all_rss, new_rs))[0]

    def _reconcile_old_rss(self, all_rss: list[dict], old_rss: list[dict], new_rs: dict) -> bool:
        d = self.d
        if du.replica_count(old_rss) == 0:
            return False
        all_pods = du.replica_count(all_rss)
        min_available = du.replicas(d) - du.max_unavailable(d)
        new_unavailable = du.replicas(new_rs) - int((new_rs.get("status") or {}).get("availableReplicas") or 0)
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        try:
            old_rss, cleaned = self._cleanup_unhealthy(old_rss, max_scaled_down)
            scaled = self._scale_down_old_for_rolling(old_rss + [new_rs], old_rss)
        except _InvalidScaleDown:
            # upstream drops the error and reports nothing scaled down; a scaling already made stays
            return False
        return cleaned + scaled > 0

    def _cleanup_unhealthy(self, old_rss: list[dict], max_cleanup: int) -> tuple[list[dict], int]:
        """cleanupUnhealthyReplicas: scale old ReplicaSets down by their unavailable replicas.

        A ReplicaSet whose status reports more available replicas than its spec wants (the
        status the ReplicaSet controller wrote before deleting the pods of a scale-down this
        controller just made) would be "scaled down" by a negative count: upstream refuses
        that ("got invalid request to scale down"), and so the whole scale-down of this sync."""
        old_rss = adu.sort_by_creation(old_rss)
        total = 0
        for i, rs in enumerate(old_rss):
            if total >= max_cleanup:
                break
            if du.replicas(rs) == 0:
                continue
            available = int((rs.get("status") or {}).get("availableReplicas") or 0)
            if du.replicas(rs) == available:
                continue
            count = min(max_cleanup - total, du.replicas(rs) - available)
            if du.replicas(rs) - count > du.replicas(rs):
                raise _InvalidScaleDown(name_of(rs))
            _, updated = self._scale_and_record(rs, du.replicas(rs) - count)
            total += count
            old_rss[i] = updated
        return old_rss, total

    def _scale_down_old_for_rolling(self, all_rss: list[dict], old_rss: list[dict]) -> int:
        """scaleDownOldReplicaSetsForRollingUpdate: scale old ReplicaSets down, oldest first, by
        as many available replicas as the deployment has above its minimum."""
        d = self.d
        min_available = du.replicas(d) - du.max_unavailable(d)
        available = du.available_replica_count(all_rss)
        if available <= min_available:
            return 0
        total, target = 0, available - min_available
        for rs in adu.sort_by_creation(old_rss):
            if total >= target:
                break
            if du.replicas(rs) == 0:
                continue
            count = min(du.replicas(rs), target - total)
            if du.replicas(rs) - count > du.replicas(rs):
                raise _InvalidScaleDown(name_of(rs))
            self._scale_and_record(rs, du.replicas(rs) - count)
            total += count
        return total

    # -- recreate.go ------------------------------------------------------------------------
    def _rollout_recreate(self) -> None:
        pod_map = self._pod_map()
        new_rs, old = self._all_replicasets(False)
        scaled = False
        for rs in du.filter_active(old):
            s, _ = self._scale_and_record(rs, 0)
            scaled = scaled or s
        new_rs, old = self._refresh(new_rs, old)
        all_rss = old + ([new_rs] if new_rs else [])
        if scaled or _old_pods_running(new_rs, old, pod_map):
            self._sync_rollout_status(all_rss, new_rs)
            return
        if new_rs is None:
            new_rs, old = self._all_replicasets(True)
            all_rss = old + [new_rs]
        self._scale_and_record(new_rs, du.replicas(self.d))
        new_rs, old = self._refresh(new_rs, old)
        if du.deployment_complete(self.d, self.d.get("status") or {}):
            self._cleanup(old)
        self._sync_rollout_status(old + [new_rs], new_rs)

    # -- progress.go ------------------------------------------------------------------------
    def _sync_rollout_status(self, all_rss: list[dict], new_rs: dict | None) -> None:
        d, now = self.d, self.view.now
        status = self._calculate_status(all_rss, new_rs)
        conds = status["conditions"]
        if not du.has_progress_deadline(d):
            conds = remove_condition(conds, "Progressing")
        current = get_condition((d.get("status") or {}).get("conditions"), "Progressing")
        complete = status.get("replicas", 0) == status.get("updatedReplicas", 0) and current is not None \
            and current.get("reason") == du.NEW_RS_AVAILABLE_REASON
        if du.has_progress_deadline(d) and not complete:
            who = f'ReplicaSet "{name_of(new_rs)}"' if new_rs else f'Deployment "{name_of(d)}"'
            if du.deployment_complete(d, status):
                conds = set_condition(conds, du.condition("Progressing", "True", du.NEW_RS_AVAILABLE_REASON,
                                                          f"{who} has successfully progressed.", self.view.stamp()))
            elif du.deployment_progressing(d, status):
                cond = du.condition("Progressing", "True", du.RS_UPDATED_REASON, f"{who} is progressing.",
                                    self.view.stamp())
                if current is not None:
                    if current.get("status") == "True":
                        cond["lastTransitionTime"] = current.get("lastTransitionTime")
                    conds = remove_condition(conds, "Progressing")
                conds = set_condition(conds, cond)
            elif du.deployment_timed_out(d, conds, now):
                conds = set_condition(conds, du.condition("Progressing", "False", du.TIMED_OUT_REASON,
                                                          f"{who} has timed out progressing.", self.view.stamp()))
        failures = du.replica_failures(all_rss, new_rs)
        if failures:
            conds = set_condition(conds, failures[0])
        else:
            conds = remove_condition(conds, "ReplicaFailure")
        status["conditions"] = conds
        if status == (d.get("status") or {}):
            at = du.requeue_stuck_at(d, status, now)
            if at is not None:
                self.changes.append(Change("wake", d, at=at))
            return
        d["status"] = status
        self.update_status()


def _old_pods_running(new_rs: dict | None, old_rss: list[dict], pod_map: dict[str, list[dict]]) -> bool:
    if du.actual_replica_count(old_rss) > 0:
        return True
    for rs_uid, pods in pod_map.items():
        if new_rs is not None and uid_of(new_rs) == rs_uid:
            continue
        for p in pods:
            if (p.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
                return True
    return False


def sync_deployment(view: View, d: dict) -> list[Change]:
    changes = _Sync(view, d).run()
    # syncDeployment returns when the new ReplicaSet's create is refused: what the pass did
    # after it holds only if it was created
    for i, ch in enumerate(changes):
        if ch.op == "create" and (ch.obj or {}).get("kind") == "ReplicaSet":
            for later in changes[i + 1:]:
                later.needs = later.needs + (ch.key,)
            break
    return changes


def failure_status(d: dict | None, error: str | None, now: float, message: str = "") -> list[Change]:
    """getNewReplicaSet's refused create: with a progress deadline, Progressing False
    (ReplicaSetCreateError) with the event's message, written at once (a successful create
    later sets NewReplicaSetCreated itself)."""
    if d is None or error is None or not du.has_progress_deadline(d):
        return []
    from kubesim.clock import format_time

    updated = deepcopy(d)
    st = updated.setdefault("status", {})
    st["conditions"] = set_condition(list(st.get("conditions") or []),
                                     du.condition("Progressing", "False", du.FAILED_RS_CREATE_REASON, message,
                                                  format_time(now)))
    return [] if st == (d.get("status") or {}) else [Change("update_status", updated)]
