"""The disruption controller: keeps each PodDisruptionBudget's status.

Upstream: pkg/controller/disruption/disruption.go (trySync, getExpectedPodCount,
getExpectedScale and the controller finders, countHealthyPods, buildDisruptedPodMap,
updatePdbStatus, failSafe, the stale DisruptionTarget cleanup); the pdbhelper functions it shares
with the eviction subresource (UpdateDisruptionAllowedCondition, ConditionsAreUpToDate) are
``kubesim.api.policy.helpers``'.

For every PDB: the pods of its namespace its selector matches (policy/v1: a missing selector
matches nothing, an empty one everything), how many are expected and how many must stay
healthy (``minAvailable`` as an integer counts the matching pods; a percentage, or
``maxUnavailable``, scales with the replicas of the pods' controllers: ReplicationController,
Deployment (through its ReplicaSet), ReplicaSet, StatefulSet), how many are healthy now (Ready
and not being deleted, nor recently evicted), and so how many disruptions are allowed. The
status is written only when it changes. A failed computation sets ``disruptionsAllowed: 0`` and
the ``DisruptionAllowed`` condition ``False``/``SyncFailed`` with the error, as upstream's
failSafe does.

Where kubesim differs: upstream syncs a PDB on every informer event and records its events
(``NoPods``, ``UnmanagedPods``, ``CalculateExpectedPodCountFailed``) on each sync; a settle loop
has no informer events, so kubesim records them when the sync writes the status, twice: the
write is itself an update event of the PDB, whose sync finds the same and records them again
(the event correlator counts them, ``describe`` shows ``(x2 over ...)``), then writes nothing.
Syncs that pod or workload events would add upstream are not counted. Controllers
with only a scale subresource (custom resources) are unknown to kubesim: their pods' PDBs fail
as upstream's do when the scale client cannot find the resource.
"""

from __future__ import annotations

from kubesim.api import selectors
from kubesim.api.meta.conditions import set_status_condition
from kubesim.api.meta.helpers import controller_ref, labels_of, meta, name_of, uid_of
from kubesim.api.policy.helpers import (
    DISRUPTION_ALLOWED,
    conditions_are_up_to_date,
    ordered_status,
    update_disruption_allowed_condition,
)
from kubesim.clock import format_time, parse_timestamp
from kubesim.controllers.base import (
    Change,
    Event,
    IntOrStringError,
    View,
    deepcopy,
    is_pod_ready,
    value_from_int_or_percent,
)

COMPONENT = "controllermanager"

# DeletionTimeout: how long an evicted pod may stay in status.disruptedPods without being
# marked for deletion; stalePodDisruptionTimeout: how long a DisruptionTarget condition may
# stay on a pod that is not being deleted.
DELETION_TIMEOUT = 120.0
STALE_POD_DISRUPTION_TIMEOUT = 120.0

SYNC_FAILED = "SyncFailed"
DISRUPTION_TARGET = "DisruptionTarget"
TERMINATION_BY_KUBELET = "TerminationByKubelet"

# a requeue a hair after a deadline (upstream compares with time.Before, strictly)
_AFTER = 0.001

# the workload resources the finders know (kind -> (groups of the ownerReference, plural))
_GROUP_RESOURCES = {"Deployment": "deployments.apps", "ReplicaSet": "replicasets.apps",
                    "StatefulSet": "statefulsets.apps", "DaemonSet": "daemonsets.apps",
                    "ReplicationController": "replicationcontrollers", "Job": "jobs.batch",
                    "CronJob": "cronjobs.batch", "Pod": "pods", "Node": "nodes"}
# of those, the ones with a scale subresource
_SCALABLE = {"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"}


class SyncError(Exception):
    """An error of trySync; its text becomes the SyncFailed condition's message."""


# ---------------------------------------------------------------------------------------------
# selectors and pods


def pdb_selector(pdb: dict) -> selectors.LabelSelector:
    """metav1.LabelSelectorAsSelector(spec.selector): nil selects nothing, {} everything."""
    return selectors.from_label_selector((pdb.get("spec") or {}).get("selector"))


def pods_for_pdb(view: View, pdb: dict) -> list[dict]:
    """getPodsForPdb: the pods of the PDB's namespace its selector matches (raises SyncError
    for a selector that cannot be converted)."""
    try:
        sel = pdb_selector(pdb)
    except ValueError as e:
        raise SyncError(str(e)) from None
    return [p for p in view.list("Pod", meta(pdb).get("namespace", "")) if sel.matches(labels_of(p))]


def go_label_selector(sel: dict | None) -> str:
    """``%v`` of a *metav1.LabelSelector (its generated String method)."""
    if sel is None:
        return "nil"
    labels = sel.get("matchLabels") or {}
    ml = "map[string]string{" + "".join(f"{k}: {labels[k]}," for k in sorted(labels)) + "}"
    exprs = "[]LabelSelectorRequirement{"
    for e in sel.get("matchExpressions") or []:
        values = "[" + " ".join(str(v) for v in e.get("values") or []) + "]"
        exprs += f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},Values:{values},}},"
    exprs += "}"
    return "&LabelSelector{MatchLabels:" + ml + ",MatchExpressions:" + exprs + ",}"


# ---------------------------------------------------------------------------------------------
# the controller finders (controller and scale of a pod's controllerRef)


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def _verify_group_kind(ref: dict, kind: str, groups: tuple[str, ...]) -> bool:
    return ref.get("kind") == kind and _group(ref.get("apiVersion", "")) in groups


def _replicas(obj: dict) -> int:
    r = (obj.get("spec") or {}).get("replicas")
    return 1 if r is None else int(r)


def _get_owned(view: View, kind: str, ns: str, ref: dict) -> dict | None:
    obj = view.get(kind, ns, ref.get("name", ""))
    if obj is None or uid_of(obj) != ref.get("uid"):
        return None
    return obj


def _find_replication_controller(view: View, ref: dict, ns: str):
    if not _verify_group_kind(ref, "ReplicationController", ("",)):
        return None
    rc = _get_owned(view, "ReplicationController", ns, ref)
    return None if rc is None else (uid_of(rc), _replicas(rc))


def _find_deployment(view: View, ref: dict, ns: str):
    if not _verify_group_kind(ref, "ReplicaSet", ("apps", "extensions")):
        return None
    rs = _get_owned(view, "ReplicaSet", ns, ref)
    if rs is None:
        return None
    dref = controller_ref(rs)
    if dref is None or not _verify_group_kind(dref, "Deployment", ("apps", "extensions")):
        return None
    d = _get_owned(view, "Deployment", ns, dref)
    return None if d is None else (uid_of(d), _replicas(d))


def _find_replica_set(view: View, ref: dict, ns: str):
    if not _verify_group_kind(ref, "ReplicaSet", ("apps", "extensions")):
        return None
    rs = _get_owned(view, "ReplicaSet", ns, ref)
    if rs is None:
        return None
    owner = controller_ref(rs)
    if owner is not None and owner.get("kind") == "Deployment":
        return None  # counted through its Deployment
    return uid_of(rs), _replicas(rs)


def _find_stateful_set(view: View, ref: dict, ns: str):
    if not _verify_group_kind(ref, "StatefulSet", ("apps",)):
        return None
    ss = _get_owned(view, "StatefulSet", ns, ref)
    return None if ss is None else (uid_of(ss), _replicas(ss))


def _find_by_scale(view: View, ref: dict, ns: str):
    """getScaleController: the scale subresource of any other kind. kubesim knows the built-in
    kinds only: one without a scale subresource fails as upstream's does; one it does not
    know fails as the REST mapper does."""
    kind, api_version = ref.get("kind", ""), ref.get("apiVersion", "")
    group = _group(api_version)
    resource = _GROUP_RESOURCES.get(kind)
    if resource is None or ("." in resource and resource.split(".", 1)[1] != group) or \
            ("." not in resource and group):
        version = api_version.split("/", 1)[1] if "/" in api_version else api_version
        gv = f"{group}/{version}" if group else version
        raise SyncError(f'no matches for kind "{kind}" in version "{gv}"')
    if kind not in _SCALABLE:
        raise SyncError(f"{resource} does not implement the scale subresource")
    obj = _get_owned(view, kind, ns, ref)
    return None if obj is None else (uid_of(obj), _replicas(obj))


FINDERS = (_find_replication_controller, _find_deployment, _find_replica_set, _find_stateful_set,
           _find_by_scale)


def expected_scale(view: View, pods: list[dict]) -> tuple[int, list[str]]:
    """getExpectedScale: the sum of the scales of the pods' controllers, and the names of the
    pods without a controller."""
    scales: dict[str, int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        ref = controller_ref(pod)
        if ref is None:
            unmanaged.append(name_of(pod))
            continue
        if ref.get("uid") in scales:
            continue
        ns = meta(pod).get("namespace", "")
        for finder in FINDERS:
            found = finder(view, ref, ns)
            if found is not None:
                scales[found[0]] = found[1]
                break
        else:
            raise SyncError(f'found no controllers for pod "{name_of(pod)}"')
    return sum(scales.values()), unmanaged


def expected_pod_count(view: View, pdb: dict, pods: list[dict]) -> tuple[int, int, list[str]]:
    """getExpectedPodCount: (expectedCount, desiredHealthy, unmanaged pod names)."""
    spec = pdb.get("spec") or {}
    expected, desired, unmanaged = 0, 0, []
    try:
        if spec.get("maxUnavailable") is not None:
            expected, unmanaged = expected_scale(view, pods)
            max_unavailable = value_from_int_or_percent(spec["maxUnavailable"], expected, True)
            desired = max(expected - max_unavailable, 0)
        elif spec.get("minAvailable") is not None:
            min_available = spec["minAvailable"]
            if isinstance(min_available, int) and not isinstance(min_available, bool):
                desired, expected = min_available, len(pods)
            else:
                expected, unmanaged = expected_scale(view, pods)
                desired = value_from_int_or_percent(min_available, expected, True)
    except IntOrStringError as e:
        raise SyncError(str(e)) from None
    return expected, desired, unmanaged


# ---------------------------------------------------------------------------------------------
# health and disrupted pods


def disrupted_pod_map(pods: list[dict], pdb: dict, now: float) -> tuple[dict[str, str], float | None, list[dict]]:
    """buildDisruptedPodMap: the entries of status.disruptedPods still waiting for their pod to
    be marked for deletion (at most DeletionTimeout), when to look again, and the pods whose
    entry expired (upstream warns about them: ``NotDeleted``)."""
    stored = (pdb.get("status") or {}).get("disruptedPods")
    result: dict[str, str] = {}
    recheck: float | None = None
    expired: list[dict] = []
    if stored is None:
        return result, recheck, expired
    for pod in pods:
        if meta(pod).get("deletionTimestamp"):
            continue
        stamp = stored.get(name_of(pod))
        if stamp is None:
            continue
        expected_deletion = (parse_timestamp(stamp) or 0.0) + DELETION_TIMEOUT
        if expected_deletion < now:
            expired.append(pod)
        else:
            if recheck is None or expected_deletion < recheck:
                recheck = expected_deletion
            result[name_of(pod)] = stamp
    return result, recheck, expired


def count_healthy_pods(pods: list[dict], disrupted: dict[str, str], now: float) -> int:
    """countHealthyPods: Ready pods not being deleted and not recently evicted."""
    healthy = 0
    for pod in pods:
        if meta(pod).get("deletionTimestamp"):
            continue
        stamp = disrupted.get(name_of(pod))
        if stamp is not None and (parse_timestamp(stamp) or 0.0) + DELETION_TIMEOUT > now:
            continue
        if is_pod_ready(pod):
            healthy += 1
    return healthy


# ---------------------------------------------------------------------------------------------
# sync


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    written: set[tuple[str, str]] = set()
    for pdb in sorted(view.list("PodDisruptionBudget"),
                      key=lambda o: (meta(o).get("namespace", ""), name_of(o))):
        mine = sync_pdb(view, pdb)
        if any(c.op == "update_status" for c in mine):
            written.add((meta(pdb).get("namespace", ""), name_of(pdb)))
        changes.extend(mine)
    changes.extend(multiple_pdb_warnings(view, written))
    changes.extend(sync_stale_pod_disruptions(view))
    return changes


def multiple_pdb_warnings(view: View, written: set[tuple[str, str]]) -> list[Change]:
    """getPdbForPod's warning about a pod several PDBs select (the PDB lister skips empty
    selectors). Upstream warns on every event about such a pod; kubesim when the status of one
    of its PDBs is written."""
    out: list[Change] = []
    if not written:
        return out
    by_ns: dict[str, list[tuple[dict, selectors.LabelSelector]]] = {}
    for pdb in view.list("PodDisruptionBudget"):
        sel = (pdb.get("spec") or {}).get("selector")
        try:
            compiled = selectors.from_label_selector(sel)
        except ValueError:
            continue
        if sel is None or not (sel.get("matchLabels") or sel.get("matchExpressions")):
            continue
        by_ns.setdefault(meta(pdb).get("namespace", ""), []).append((pdb, compiled))
    for ns, pdbs in sorted(by_ns.items()):
        if len(pdbs) < 2:
            continue
        pdbs.sort(key=lambda x: name_of(x[0]))
        for pod in view.list("Pod", ns):
            matched = [name_of(p) for p, sel in pdbs if sel.matches(labels_of(pod))]
            if len(matched) > 1 and any((ns, m) in written for m in matched):
                msg = (f'Pod "{ns}"/"{name_of(pod)}" matches multiple PodDisruptionBudgets.  '
                       f'Chose "{matched[0]}" arbitrarily.')
                out.append(Change("event", pod, events=[Event(pod, "Warning", "MultiplePodDisruptionBudgets", msg,
                                                               COMPONENT)]))
    return out


def sync_pdb(view: View, pdb: dict) -> list[Change]:
    """sync → trySync (→ failSafe on error) for one PDB."""
    now, stamp = view.now, view.stamp()
    events: list[Event] = []
    try:
        pods = pods_for_pdb(view, pdb)
    except SyncError as e:
        events.append(Event(pdb, "Warning", "NoPods", f"Failed to get pods: {e}", COMPONENT))
        return _fail_safe(pdb, str(e), stamp, events)
    if not pods:
        events.append(Event(pdb, "Normal", "NoPods", "No matching pods found", COMPONENT))
    try:
        expected, desired, unmanaged = expected_pod_count(view, pdb, pods)
    except SyncError as e:
        events.append(Event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                            f"Failed to calculate the number of expected pods: {e}", COMPONENT))
        return _fail_safe(pdb, str(e), stamp, events)
    if unmanaged:
        selector = go_label_selector((pdb.get("spec") or {}).get("selector"))
        events.append(Event(pdb, "Warning", "UnmanagedPods",
                            f"Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be "
                            "unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may "
                            "result in undefined behavior. To account for these pods please set \".spec.minAvailable\" "
                            "field of the PDB to an integer value.", COMPONENT))
    ns = meta(pdb).get("namespace", "")
    disrupted, recheck, expired = disrupted_pod_map(pods, pdb, now)
    for pod in expired:
        events.append(Event(pod, "Warning", "NotDeleted",
                            f"Pod was expected by PDB {ns}/{ns} to be deleted but it wasn't", COMPONENT))
    healthy = count_healthy_pods(pods, disrupted, now)
    changes = _update_status(pdb, healthy, desired, expected, disrupted, stamp, events)
    if recheck is not None:
        changes.append(Change("wake", at=recheck + _AFTER))
    return changes


def _update_status(pdb: dict, healthy: int, desired: int, expected: int, disrupted: dict[str, str],
                   stamp: str, events: list[Event]) -> list[Change]:
    """updatePdbStatus: write the status only when something in it changes."""
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status = pdb.get("status") or {}
    generation = int(meta(pdb).get("generation") or 0)
    if (int(status.get("currentHealthy") or 0) == healthy and int(status.get("desiredHealthy") or 0) == desired
            and int(status.get("expectedPods") or 0) == expected
            and int(status.get("disruptionsAllowed") or 0) == allowed
            and (status.get("disruptedPods") or {}) == disrupted
            and int(status.get("observedGeneration") or 0) == generation
            and conditions_are_up_to_date(pdb)):
        return []
    new_status = {"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
                  "disruptionsAllowed": allowed, "disruptedPods": disrupted, "observedGeneration": generation,
                  "conditions": status.get("conditions") or []}
    update_disruption_allowed_condition(new_status, stamp)
    new = deepcopy(pdb)
    new["status"] = ordered_status(new_status)
    return [Change("update_status", new, events=_with_follow_up_sync(events))]


def _fail_safe(pdb: dict, message: str, stamp: str, events: list[Event]) -> list[Change]:
    """failSafe: at least make sure no eviction is approved."""
    status = dict(pdb.get("status") or {})
    status["disruptionsAllowed"] = 0
    cond = {"type": DISRUPTION_ALLOWED, "status": "False", "reason": SYNC_FAILED, "message": message,
            "observedGeneration": status.get("observedGeneration") or 0}
    status["conditions"] = set_status_condition(status.get("conditions") or [], cond, stamp)
    status = ordered_status(status)
    if status == (pdb.get("status") or {}):
        return []  # already failed so: its events were recorded when the status was written
    new = deepcopy(pdb)
    new["status"] = status
    return [Change("update_status", new, events=_with_follow_up_sync(events))]


def _with_follow_up_sync(events: list[Event]) -> list[Event]:
    """The events of the sync that writes the status and of the one its own update event
    triggers (updateDb enqueues the PDB), which sees the same pods and writes nothing; a
    ``NotDeleted`` entry is gone from the written status by then."""
    return events + [e for e in events if e.reason != "NotDeleted"]


# ---------------------------------------------------------------------------------------------
# stale DisruptionTarget conditions (syncStalePodDisruption)


def stale_disruption_condition(pod: dict, now: float) -> tuple[bool, float]:
    """nonTerminatingPodHasStaleDisruptionCondition: (has one, seconds until it is stale)."""
    if meta(pod).get("deletionTimestamp"):
        return False, 0.0
    cond = next((c for c in (pod.get("status") or {}).get("conditions") or ()
                 if c.get("type") == DISRUPTION_TARGET), None)
    phase = (pod.get("status") or {}).get("phase")
    if cond is None or cond.get("status") != "True" or cond.get("reason") == TERMINATION_BY_KUBELET \
            or phase in ("Succeeded", "Failed"):
        return False, 0.0
    since = parse_timestamp(cond.get("lastTransitionTime")) or 0.0
    return True, max(STALE_POD_DISRUPTION_TIMEOUT - (now - since), 0.0)


def sync_stale_pod_disruptions(view: View) -> list[Change]:
    """Reset a DisruptionTarget condition to False on a pod that was not deleted within
    stalePodDisruptionTimeout (podutil.UpdatePodCondition: reason and message cleared)."""
    changes: list[Change] = []
    for pod in view.list("Pod"):
        has, wait = stale_disruption_condition(pod, view.now)
        if not has:
            continue
        if wait > 0:
            changes.append(Change("wake", at=view.now + wait))
            continue
        new = deepcopy(pod)
        conds = new["status"]["conditions"]
        for i, c in enumerate(conds):
            if c.get("type") == DISRUPTION_TARGET:
                conds[i] = {"lastProbeTime": None, "lastTransitionTime": format_time(view.now),
                            "status": "False", "type": DISRUPTION_TARGET}
        changes.append(Change("update_status", new))
    return changes
