"""The DaemonSet controller: one pod per eligible node, scheduled by the default scheduler.

Upstream: pkg/controller/daemon/daemon_controller.go (syncDaemonSet, manage, podsShouldBeOnNode,
NodeShouldRunDaemonPod, predicates, syncNodes, updateDaemonSetStatus, getNodesToDaemonPods),
update.go (rollingUpdate without surge, constructHistory, snapshot, getPatch, Match,
cleanupHistory), util/daemonset_util.go (CreatePodTemplate, AddOrUpdateDaemonPodTolerations,
ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName, IsPodUpdated).

A daemon pod is created unscheduled (no ``spec.nodeName``) with a required node affinity term
``matchFields: metadata.name In [<node>]``, the automatic tolerations, and the labels
``controller-revision-hash`` and ``pod-template-generation``; the default scheduler binds it.
Each DaemonSet's template history is kept in ControllerRevisions ``<ds>-<hash>`` (what
``kubectl rollout history ds`` reads). ``maxSurge`` > 0 rolling updates are not modelled
(treated as surge 0).

A sync told which nodes changed (``DaemonNodes``: upstream's node and pod event handlers enqueue
a DaemonSet for the node an event names, and its informer cache answers the rest) visits those
nodes only, when every DaemonSet was at rest before and neither it nor its history changed: the
pods it creates or deletes are the ones a sync over every node would (the other nodes needed
none before and nothing of them changed), and its status counts are the ones it had then, less
what the changed nodes counted then, plus what they count now. Otherwise it visits every node.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesim.api import selectors
from kubesim.api.apps.daemonset_util import TEMPLATE_GENERATION_ANNOTATION, get_patch
from kubesim.api.meta.helpers import (
    creation_time,
    is_controlled_by,
    meta,
    name_of,
    new_controller_ref,
    selector_of,
    uid_of,
)
from kubesim.api.pods import tolerates
from kubesim.controllers.base import (
    Change,
    Event,
    View,
    available_at,
    claim,
    deepcopy,
    is_pod_available,
    is_pod_ready,
    is_pod_terminal,
    value_from_int_or_percent,
)
from kubesim.controllers.hashing import compute_hash

COMPONENT = "daemonset-controller"
UNIQUE_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
FAILED_DAEMON_POD = "FailedDaemonPod"

# util.AddOrUpdateDaemonPodTolerations
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
NETWORK_UNAVAILABLE_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                                  "effect": "NoSchedule"}


def sync(view: View) -> list[Change]:
    changes: list[Change] = []
    for ds in view.list("DaemonSet"):
        changes.extend(sync_daemonset(view, ds))
    return changes


@dataclass
class DaemonNodes:
    """What a sync of only some nodes reads (kubesim.controlplane.components builds it from
    the store): the nodes whose daemon pods may differ from when every DaemonSet was last at
    rest — each Node added, updated or deleted since, and each node a daemon pod added,
    updated or deleted since names (``target_node_name``) — and, for each, what it was then."""

    names: list[str]  # sorted
    nodes: dict[str, dict | None]  # name -> the Node now (None: there is none)
    pods: list[dict]  # the pods of any DaemonSet whose target node is one of ``names``, now
    then_nodes: dict[str, dict | None]  # name -> the Node at rest
    then_pods: list[dict]  # those pods at rest
    then_sets: dict[str, dict]  # uid -> each DaemonSet at rest (none for a new one)


# ---------------------------------------------------------------------------------------------
# tolerations and node affinity

def add_daemon_tolerations(spec: dict) -> None:
    """AddOrUpdateDaemonPodTolerations (v1helper.AddOrUpdateTolerationInPodSpec for each)."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(NETWORK_UNAVAILABLE_TOLERATION)
    tolerations = list(spec.get("tolerations") or [])
    for t in wanted:
        for i, cur in enumerate(tolerations):
            if all((cur.get(k) or "") == (t.get(k) or "") for k in ("key", "operator", "value", "effect")):
                if cur != t:
                    tolerations[i] = dict(t)
                break
        else:
            tolerations.append(dict(t))
    spec["tolerations"] = tolerations


def _untolerated(taints: list[dict], tolerations: list[dict], effects: tuple[str, ...]) -> dict | None:
    for taint in taints:
        if taint.get("effect") not in effects:
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def replace_node_name_affinity(affinity: dict | None, node_name: str) -> dict:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: one required term, matchFields metadata.name In [node]."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = deepcopy(affinity) if affinity else {}
    na = affinity.setdefault("nodeAffinity", {})
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is None:
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    else:
        req["nodeSelectorTerms"] = [term]
    return affinity


def target_node_name(pod: dict) -> str | None:
    """util.GetTargetNodeName: spec.nodeName, else the node named by the matchFields affinity."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    req = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
           .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in req.get("nodeSelectorTerms") or ():
        for f in term.get("matchFields") or ():
            if f.get("key") == "metadata.name" and f.get("operator") == "In" and len(f.get("values") or []) == 1:
                return f["values"][0]
    return None


def daemon_pod_spec(ds: dict) -> dict:
    """The spec NewPod gives a daemon pod: the template's, with the automatic tolerations."""
    spec = deepcopy(((ds.get("spec") or {}).get("template") or {}).get("spec") or {})
    add_daemon_tolerations(spec)
    return spec


def node_should_run_daemon_pod(node: dict, ds: dict, spec: dict | None = None) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (shouldRun, shouldContinueRunning). ``spec`` is
    ``daemon_pod_spec(ds)``, computed once per sync by callers looping over nodes."""
    if spec is None:
        spec = daemon_pod_spec(ds)
    node_name = name_of(node)
    if spec.get("nodeName") and spec["nodeName"] != node_name:
        return False, False
    labels = meta(node).get("labels") or {}
    fits_affinity = selectors.selector_from_set(spec.get("nodeSelector")).matches(labels) if spec.get("nodeSelector") \
        else True
    req = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
           .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if fits_affinity and req is not None:
        fits_affinity = selectors.node_selector_matches(req, labels, {"metadata.name": node_name})
    if not fits_affinity:
        return False, False
    taints = (node.get("spec") or {}).get("taints") or []
    if _untolerated(taints, spec["tolerations"], ("NoExecute", "NoSchedule")) is not None:
        return False, _untolerated(taints, spec["tolerations"], ("NoExecute",)) is None
    return True, True


# ---------------------------------------------------------------------------------------------
# history (ControllerRevisions)

def template_generation(ds: dict) -> int | None:
    v = (meta(ds).get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def is_pod_updated(pod: dict, hash_: str, generation: int | None) -> bool:
    labels = meta(pod).get("labels") or {}
    template_matches = generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation)
    return (bool(hash_) and labels.get(UNIQUE_LABEL) == hash_) or template_matches


class _Sync:
    def __init__(self, view: View, ds: dict):
        self.view, self.ds = view, ds
        self.ns = meta(ds).get("namespace", "")
        self.changes: list[Change] = []
        self.pod_spec = daemon_pod_spec(ds)

    def event(self, type_: str, reason: str, message: str) -> Event:
        return Event(self.ds, type_, reason, message, COMPONENT)

    def run(self) -> list[Change]:
        ds, view = self.ds, self.view
        if (ds.get("spec") or {}).get("selector") == {}:
            self.changes.append(Change("event", ds, [self.event(
                "Warning", "SelectingAll", "This daemon set is selecting all pods. A non-empty selector is required.")]))
            return self.changes
        targeted = getattr(view, "daemon_nodes", None)
        if targeted is not None:
            done = self._run_on_nodes(targeted)
            if done is not None:
                return done
            self.changes = []  # (nothing of it applied: every node, as without)
        nodes = view.list("Node")
        cur, old = self._construct_history()
        hash_ = (meta(cur).get("labels") or {}).get(UNIQUE_LABEL, "")
        pods = self._daemon_pods()
        node_to_pods = self._nodes_to_daemon_pods(pods)
        if meta(ds).get("deletionTimestamp"):
            self._update_status(nodes, node_to_pods, hash_)
            return self.changes
        before = len(self.changes)
        self._manage(nodes, node_to_pods, hash_)
        created_or_deleted = any(c.op in ("create", "delete") and c.key[0] == "Pod" for c in self.changes[before:])
        if not created_or_deleted and _strategy(ds) == "RollingUpdate":
            self._rolling_update(nodes, node_to_pods, hash_)
        if not created_or_deleted:
            self._cleanup_history(old, pods)
        self._update_status(nodes, node_to_pods, hash_)
        return self.changes

    def _run_on_nodes(self, t: DaemonNodes) -> list[Change] | None:
        """The sync over ``t.names`` alone (None: it cannot stand for one over every node)."""
        ds = self.ds
        then = t.then_sets.get(uid_of(ds))
        if then is None or meta(ds).get("deletionTimestamp"):
            return None
        st = then.get("status") or {}
        if st.get("observedGeneration") != int(meta(ds).get("generation", 1)) or st.get("numberMisscheduled") \
                or (st.get("updatedNumberScheduled") or 0) != (st.get("currentNumberScheduled") or 0):
            return None  # (a rolling update or misscheduled pods: every node counts)
        cur, old = self._construct_history()
        limit = (ds.get("spec") or {}).get("revisionHistoryLimit")
        if self.changes or len(old) > (10 if limit is None else int(limit)):
            return None
        hash_ = (meta(cur).get("labels") or {}).get(UNIQUE_LABEL, "")
        generation = template_generation(ds)
        pods = claim(self.view, ds, sorted((p for p in t.pods if is_controlled_by(p, ds)), key=name_of),
                     selector_of(ds), self.changes)
        node_to_pods = {n: ps for n, ps in self._nodes_to_daemon_pods(pods).items() if n in t.nodes}
        if _strategy(ds) == "RollingUpdate" and any(
                not meta(p).get("deletionTimestamp") and not is_pod_updated(p, hash_, generation)
                for ps in node_to_pods.values() for p in ps):
            return None  # (a pod of an older template: the rolling update counts every node)
        nodes = [n for name in t.names if (n := t.nodes.get(name)) is not None]
        self._manage(nodes, node_to_pods, hash_)
        # (no rolling update: no pod of an older template anywhere; the history is within
        # its limit)
        then_pods = sorted((p for p in t.then_pods if is_controlled_by(p, ds)), key=name_of)
        then_nodes = [n for name in t.names if (n := t.then_nodes.get(name)) is not None]
        base = (st, then_nodes, {n: ps for n, ps in self._nodes_to_daemon_pods(then_pods).items()
                                 if n in t.then_nodes})
        self._update_status(nodes, node_to_pods, hash_, base)
        return self.changes

    def _daemon_pods(self) -> list[dict]:
        candidates = sorted(self.view.owned_by("Pod", uid_of(self.ds)) + self.view.orphans("Pod", self.ns),
                            key=name_of)
        return claim(self.view, self.ds, candidates, selector_of(self.ds), self.changes)

    def _nodes_to_daemon_pods(self, pods: list[dict]) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        for p in pods:
            if is_pod_terminal(p) and meta(p).get("deletionTimestamp"):
                continue
            n = target_node_name(p)
            if n is None:
                continue
            out.setdefault(n, []).append(p)
        return out

    def _construct_history(self) -> tuple[dict, list[dict]]:
        ds, view = self.ds, self.view
        histories = sorted(view.owned_by("ControllerRevision", uid_of(ds)), key=name_of)
        patch = get_patch(ds)
        current, old = [], []
        for h in histories:
            if UNIQUE_LABEL not in (meta(h).get("labels") or {}):
                h = deepcopy(h)
                h["metadata"].setdefault("labels", {})[UNIQUE_LABEL] = name_of(h)
                self.changes.append(Change("update", h))
            (current if h.get("data") == patch else old).append(h)
        cur_revision = max([int(h.get("revision") or 0) for h in old], default=0) + 1
        if not current:
            h = compute_hash((ds.get("spec") or {}).get("template") or {}, (ds.get("status") or {}).get("collisionCount"))
            labels = dict((((ds.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {})
            labels[UNIQUE_LABEL] = h
            cr = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                  "metadata": {"name": f"{name_of(ds)}-{h}", "namespace": self.ns, "labels": labels,
                               "ownerReferences": [new_controller_ref(ds)]},
                  "data": patch, "revision": cur_revision}
            if meta(ds).get("annotations"):
                cr["metadata"]["annotations"] = dict(meta(ds)["annotations"])
            if view.get("ControllerRevision", self.ns, name_of(cr)) is None:
                self.changes.append(Change("create", cr))
            return cr, old
        # the last of equal keys, as the stable sort leaves them (max would take the first)
        cur = sorted(current, key=lambda h: (int(h.get("revision") or 0), creation_time(h)))[-1]  # noqa: FURB192
        if int(cur.get("revision") or 0) < cur_revision:
            cur = deepcopy(cur)
            cur["revision"] = cur_revision
            self.changes.append(Change("update", cur))
        return cur, old

    def _cleanup_history(self, old: list[dict], pods: list[dict]) -> None:
        limit = (self.ds.get("spec") or {}).get("revisionHistoryLimit")
        limit = 10 if limit is None else int(limit)
        to_kill = len(old) - limit
        if to_kill <= 0:
            return
        live = {(meta(p).get("labels") or {}).get(UNIQUE_LABEL) for p in pods}
        for h in sorted(old, key=lambda h: int(h.get("revision") or 0)):
            if to_kill <= 0:
                break
            if (meta(h).get("labels") or {}).get(UNIQUE_LABEL) in live:
                continue
            self.changes.append(Change("delete", h, propagation="Background"))
            to_kill -= 1

    # -- manage -----------------------------------------------------------------------------
    def _manage(self, nodes: list[dict], node_to_pods: dict[str, list[dict]], hash_: str) -> None:
        need: list[str] = []
        delete: list[dict] = []
        for node in nodes:
            n, d = self._pods_should_be_on_node(node, node_to_pods)
            need += n
            delete += d
        node_names = {name_of(n) for n in nodes}
        for node_name, pods in sorted(node_to_pods.items()):
            if node_name not in node_names:
                delete += [p for p in pods if not (p.get("spec") or {}).get("nodeName")
                           and not meta(p).get("deletionTimestamp")]
        self._sync_nodes(delete, need, hash_)

    def _pods_should_be_on_node(self, node: dict, node_to_pods: dict[str, list[dict]]) -> tuple[list[str], list[dict]]:
        should_run, should_continue = node_should_run_daemon_pod(node, self.ds, self.pod_spec)
        pods = node_to_pods.get(name_of(node))
        need, delete = [], []
        if should_run and pods is None:
            need.append(name_of(node))
        elif should_continue:
            running = []
            for p in pods or ():
                if meta(p).get("deletionTimestamp"):
                    continue
                phase = (p.get("status") or {}).get("phase")
                if phase == "Failed":
                    msg = f"Found failed daemon pod {self.ns}/{name_of(p)} on node {name_of(node)}, will try to kill it"
                    self.changes.append(Change("event", self.ds, [self.event("Warning", FAILED_DAEMON_POD, msg)]))
                    delete.append(p)
                elif phase == "Succeeded":
                    delete.append(p)
                else:
                    running.append(p)
            if len(running) > 1:
                running.sort(key=_by_creation_and_phase)
                delete += running[1:]
        elif pods:
            delete += [p for p in pods if not meta(p).get("deletionTimestamp")]
        return need, delete

    def _sync_nodes(self, delete: list[dict], need: list[str], hash_: str) -> None:
        ds, view = self.ds, self.view
        generation = template_generation(ds)
        template = deepcopy((ds.get("spec") or {}).get("template") or {})
        tmeta = template.setdefault("metadata", {})
        labels = dict(tmeta.get("labels") or {})
        if generation is not None:
            labels[TEMPLATE_GENERATION_LABEL] = str(generation)
        if hash_:
            labels[UNIQUE_LABEL] = hash_
        tmeta["labels"] = labels
        add_daemon_tolerations(template.setdefault("spec", {}))
        taken: set[str] = set()
        from kubesim.controllers.base import pod_from_template

        for node_name in need:
            name = view.generate_name(name_of(ds) + "-", "Pod", self.ns, taken)
            pod = pod_from_template(template, ds, self.ns, name)
            pod["spec"]["affinity"] = replace_node_name_affinity(pod["spec"].get("affinity"), node_name)
            self.changes.append(Change("create", pod, [self.event("Normal", "SuccessfulCreate", f"Created pod: {name}")],
                                       slow_start=uid_of(ds)))
        for p in delete:
            self.changes.append(Change("delete", p, [self.event("Normal", "SuccessfulDelete", f"Deleted pod: {name_of(p)}")],
                                       propagation="Background"))

    # -- update.go --------------------------------------------------------------------------
    def _rolling_update(self, nodes: list[dict], node_to_pods: dict[str, list[dict]], hash_: str) -> None:
        ds, now = self.ds, self.view.now
        desired = sum(1 for n in nodes if node_should_run_daemon_pod(n, ds, self.pod_spec)[0])
        ru = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
        max_unavailable = value_from_int_or_percent(ru.get("maxUnavailable", 1), desired, True)
        if max_unavailable == 0 and desired > 0:
            max_unavailable = 1  # upstream: both zero resolves to maxUnavailable 1
        mrs = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        generation = template_generation(ds)
        num_unavailable = 0
        allowed, candidates = [], []
        for node_name in sorted(node_to_pods):
            new, old, ok = _find_updated_pods_on_node(node_to_pods[node_name], hash_, generation)
            if not ok:
                num_unavailable += 1
                continue
            if (old is None and new is None) or (old is not None and new is not None):
                num_unavailable += 1
            elif new is not None:
                if not is_pod_available(new, mrs, now):
                    num_unavailable += 1
            else:
                if not is_pod_available(old, mrs, now):
                    allowed.append(old)
                elif num_unavailable >= max_unavailable:
                    continue
                else:
                    candidates.append(old)
        remaining = max(0, min(max_unavailable - num_unavailable, len(candidates)))
        self._sync_nodes(allowed + candidates[:remaining], [], hash_)

    # -- status -----------------------------------------------------------------------------
    def _update_status(self, nodes: list[dict], node_to_pods: dict[str, list[dict]], hash_: str,
                       base: tuple[dict, list[dict], dict[str, list[dict]]] | None = None) -> None:
        """updateDaemonSetStatus over ``nodes``; with ``base`` (the status at rest, and the
        same nodes and their pods then), the status at rest with these nodes' counts then
        replaced by their counts now."""
        ds = self.ds
        wake: list[float] = []
        desired, current, misscheduled, ready, updated, available = self._counts(nodes, node_to_pods, hash_, wake)
        if base is not None:
            st, then_nodes, then_pods = base
            before = self._counts(then_nodes, then_pods, hash_, [])
            prior = [st.get(k) or 0 for k in ("desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled",
                                             "numberReady", "updatedNumberScheduled", "numberAvailable")]
            desired, current, misscheduled, ready, updated, available = (
                p - b + n for p, b, n in zip(prior, before,
                                             (desired, current, misscheduled, ready, updated, available)))
        old = ds.get("status") or {}
        status = {"currentNumberScheduled": current, "numberMisscheduled": misscheduled,
                  "desiredNumberScheduled": desired, "numberReady": ready}
        status["observedGeneration"] = int(meta(ds).get("generation", 1))
        for k, v in (("updatedNumberScheduled", updated), ("numberAvailable", available),
                     ("numberUnavailable", desired - available)):
            if v:
                status[k] = v
        for k in ("collisionCount", "conditions"):
            if old.get(k) is not None:
                status[k] = old[k]
        if status != old:
            new = deepcopy(ds)
            new["status"] = status
            self.changes.append(Change("update_status", new))
        if wake:
            self.changes.append(Change("wake", ds, at=min(wake)))

    def _counts(self, nodes: list[dict], node_to_pods: dict[str, list[dict]], hash_: str,
                wake: list[float]) -> tuple[int, int, int, int, int, int]:
        """(desired, current, misscheduled, ready, updated, available) over ``nodes``; when a
        ready pod becomes available, appended to ``wake``."""
        ds, now = self.ds, self.view.now
        mrs = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        generation = template_generation(ds)
        desired = current = misscheduled = ready = updated = available = 0
        for node in nodes:
            should_run, _ = node_should_run_daemon_pod(node, ds, self.pod_spec)
            pods = node_to_pods.get(name_of(node)) or []
            if should_run:
                desired += 1
                if not pods:
                    continue
                current += 1
                pod = min(pods, key=_by_creation_and_phase)
                if is_pod_ready(pod):
                    ready += 1
                    if is_pod_available(pod, mrs, now):
                        available += 1
                    elif available_at(pod, mrs) is not None:
                        wake.append(available_at(pod, mrs))
                if is_pod_updated(pod, hash_, generation):
                    updated += 1
            elif pods:
                misscheduled += 1
        return desired, current, misscheduled, ready, updated, available


def _strategy(ds: dict) -> str:
    return ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate")


def _by_creation_and_phase(p: dict):
    """podByCreationTimestampAndPhase: scheduled pods first, then the oldest, then by name."""
    return (0 if (p.get("spec") or {}).get("nodeName") else 1, creation_time(p), name_of(p))


def _find_updated_pods_on_node(pods: list[dict], hash_: str, generation: int | None):
    new = old = None
    for p in pods:
        if meta(p).get("deletionTimestamp"):
            continue
        if is_pod_updated(p, hash_, generation):
            if new is not None:
                return None, None, False
            new = p
        else:
            if old is not None:
                return None, None, False
            old = p
    return new, old, True


def sync_daemonset(view: View, ds: dict) -> list[Change]:
    return _Sync(view, ds).run()
