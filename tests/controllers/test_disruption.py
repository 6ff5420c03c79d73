"""The disruption controller, mirroring pkg/controller/disruption/disruption_test.go: the cases
whose PDB status can be written down as (disruptionsAllowed, currentHealthy, desiredHealthy,
expectedPods, disruptedPods), plus the DisruptionAllowed condition and the failSafe path."""

from __future__ import annotations

import pytest

from kubesim.clock import format_time, parse_time
from kubesim.controllers import disruption
from kubesim.controllers.base import View

NOW = parse_time("2026-11-22T10:00:00Z")
STAMP = format_time(NOW)
LABELS = {"foo": "bar"}


def pod(name, ready=True, owner=None, labels=None, deleting=False, phase="Running", ns="default"):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "labels": dict(labels or LABELS)},
         "spec": {"nodeName": "node01"}, "status": {"phase": phase}}
    if ready:
        p["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    if owner is not None:
        p["metadata"]["ownerReferences"] = [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                             "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                             "controller": True}]
    if deleting:
        p["metadata"]["deletionTimestamp"] = STAMP
    return p


def workload(kind, name, replicas, owner=None):
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    obj = {"apiVersion": api, "kind": kind,
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{kind}-{name}"},
           "spec": {"replicas": replicas}}
    if owner is not None:
        obj["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner["kind"],
                                               "name": owner["metadata"]["name"],
                                               "uid": owner["metadata"]["uid"], "controller": True}]
    return obj


def pdb(min_available=None, max_unavailable=None, selector=None, status=None, generation=1, policy=None):
    spec = {"selector": {"matchLabels": dict(LABELS)} if selector is None else selector}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    if policy is not None:
        spec["unhealthyPodEvictionPolicy"] = policy
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb", "namespace": "default", "uid": "uid-pdb", "generation": generation},
            "spec": spec,
            "status": status or {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}}


def sync(budget, *objs, now=NOW):
    objects: dict[str, list] = {"PodDisruptionBudget": [budget]}
    for o in objs:
        objects.setdefault(o["kind"], []).append(o)
    return disruption.sync(View(objects, now))


def status_after(budget, *objs, now=NOW) -> dict:
    changes = [c for c in sync(budget, *objs, now=now) if c.op == "update_status" and c.obj["kind"] == "PodDisruptionBudget"]
    return changes[-1].obj["status"] if changes else budget["status"]


def counts(status) -> tuple:
    return (status["disruptionsAllowed"], status["currentHealthy"], status["desiredHealthy"], status["expectedPods"],
            status.get("disruptedPods", {}))


RS = workload("ReplicaSet", "rs", 7)
RS10 = workload("ReplicaSet", "rs", 10)
RS3 = workload("ReplicaSet", "rs", 3)
RC3 = workload("ReplicationController", "rc", 3)
SS3 = workload("StatefulSet", "ss", 3)
DEPLOY = workload("Deployment", "web", 4)
RS_OF_DEPLOY = workload("ReplicaSet", "web-abc", 2, owner=DEPLOY)


@pytest.mark.parametrize("budget,objs,want", [
    # (disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods, disruptedPods)
    (pdb(3, selector={}), [pod("p")], (0, 1, 3, 1, {})),
    (pdb(3), [pod(f"yo {i}") for i in range(3)], (0, 3, 3, 3, {})),
    (pdb(3), [pod(f"yo {i}") for i in range(4)], (1, 4, 3, 4, {})),
    (pdb(3), [pod("yo 0", ready=False)] + [pod(f"yo {i}") for i in range(1, 4)], (0, 3, 3, 4, {})),
    (pdb(3), [pod("yo 0", deleting=True)] + [pod(f"yo {i}") for i in range(1, 4)], (0, 3, 3, 4, {})),
    (pdb(max_unavailable=1), [], (0, 0, 0, 0, {})),
    (pdb(max_unavailable=1), [pod("naked")], (0, 1, 0, 0, {})),
    (pdb(max_unavailable=2), [RS, pod("pod", owner=RS)], (0, 1, 5, 7, {})),
    (pdb(max_unavailable=2), [RS3, pod("pod", owner=RS3)], (0, 1, 1, 3, {})),
    (pdb(max_unavailable="30%"), [RS, pod("pod", owner=RS)], (0, 1, 4, 7, {})),
    (pdb(max_unavailable="30%"), [RS3, pod("pod", owner=RS3)], (0, 1, 2, 3, {})),
    (pdb("28%"), [pod("naked")], (0, 1, 0, 0, {})),
    (pdb("20%"), [RS10, pod("pod", owner=RS10)], (0, 1, 2, 10, {})),
    (pdb("34%"), [RC3] + [pod(f"foobar {i}", owner=RC3) for i in range(2)], (0, 2, 2, 3, {})),
    (pdb("34%"), [RC3] + [pod(f"foobar {i}", owner=RC3) for i in range(3)], (1, 3, 2, 3, {})),
    (pdb("34%"), [RC3, pod("rogue")] + [pod(f"foobar {i}", owner=RC3) for i in range(3)], (2, 4, 2, 3, {})),
    (pdb("34%"), [SS3] + [pod(f"foobar {i}", owner=SS3) for i in range(3)], (1, 3, 2, 3, {})),
    (pdb(max_unavailable=1), [DEPLOY, RS_OF_DEPLOY] + [pod(f"web {i}", owner=RS_OF_DEPLOY) for i in range(4)],
     (1, 4, 3, 4, {})),
    (pdb(max_unavailable="50%"), [DEPLOY, RS_OF_DEPLOY, pod("web 0", owner=RS_OF_DEPLOY, ready=False)]
     + [pod(f"web {i}", owner=RS_OF_DEPLOY) for i in range(1, 4)], (1, 3, 2, 4, {})),
    (pdb(2, selector=None), [pod("other", labels={"app": "x"})], (0, 0, 2, 0, {})),
], ids=[
    "an empty selector matches every pod of the namespace (policy/v1)",
    "minAvailable 3 over 3 ready pods allows nothing",
    "minAvailable 3 over 4 ready pods allows one disruption",
    "a pod that is not ready is not healthy",
    "a pod being deleted is not healthy",
    "maxUnavailable with no pods allows nothing",
    "an integer maxUnavailable allows nothing for pods with no controller",
    "maxUnavailable 2 scales with the replicas of a ReplicaSet of 7",
    "maxUnavailable 2 follows the ReplicaSet down to 3",
    "maxUnavailable 30% of 7 rounds up to 3",
    "maxUnavailable 30% of 3 rounds up to 1",
    "a percentage over a naked pod expects nothing and allows nothing",
    "a ReplicaSet without a Deployment counts with its own scale",
    "minAvailable 34% of a ReplicationController of 3 needs 2",
    "the third ready pod of the ReplicationController allows one disruption",
    "a rogue pod without a controller counts as healthy but not as expected",
    "a StatefulSet counts with its scale",
    "a Deployment's pods count with the Deployment's scale, not the ReplicaSet's",
    "maxUnavailable 50% of a Deployment of 4 with one pod not ready",
    "pods the selector does not match are not counted",
])
def test_status_counts_as_upstream_computes_them(budget, objs, want):
    assert counts(status_after(budget, *objs)) == want


def test_unavailable_and_recovering_pods_move_the_budget_step_by_step():
    """TestUnavailable: counts go up as pods are added, down when one becomes unready."""
    budget, pods = pdb(3), []
    for i in range(4):
        assert counts(budget["status"])[:4] == (0, i, 3 if i else 0, i)
        pods.append(pod(f"yo-yo-yo {i}"))
        budget = dict(budget, status=status_after(budget, *pods))
    assert counts(budget["status"]) == (1, 4, 3, 4, {})
    pods[0] = pod("yo-yo-yo 0", ready=False)
    assert counts(status_after(budget, *pods)) == (0, 3, 3, 4, {})


def test_disrupted_pods_are_pruned_as_upstream_prunes_them():
    """TestUpdateDisruptedPods: p1 is being deleted, p2's entry expired, notthere is gone; p3 stays
    (and does not count as healthy), and the controller asks to look again when it expires."""
    five_minutes_ago = format_time(NOW - 300)
    budget = pdb(1, status={"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0,
                            "disruptedPods": {"p1": STAMP, "p2": five_minutes_ago, "p3": STAMP, "notthere": STAMP}})
    changes = sync(budget, pod("p1", deleting=True), pod("p2"), pod("p3"))
    status = next(c for c in changes if c.op == "update_status").obj["status"]
    assert counts(status) == (0, 1, 1, 3, {"p3": STAMP})
    assert [c.at for c in changes if c.op == "wake"] == [pytest.approx(NOW + 120, abs=0.01)]
    warned = [e for c in changes for e in c.events if e.reason == "NotDeleted"]
    assert [(e.obj["metadata"]["name"], e.type, e.message) for e in warned] == \
        [("p2", "Warning", "Pod was expected by PDB default/default to be deleted but it wasn't")]


def test_a_disrupted_pod_counts_again_once_its_entry_expires():
    budget = pdb(1, status={"currentHealthy": 1, "desiredHealthy": 1, "disruptionsAllowed": 0, "expectedPods": 2,
                            "disruptedPods": {"p1": STAMP}})
    assert counts(status_after(budget, pod("p1"), pod("p2"), now=NOW + 60)) == (0, 1, 1, 2, {"p1": STAMP})
    assert counts(status_after(budget, pod("p1"), pod("p2"), now=NOW + 121)) == (1, 2, 1, 2, {})


@pytest.mark.parametrize("objs,allowed,status,reason", [
    ([pod(f"p{i}") for i in range(3)], 1, "True", "SufficientPods"),
    ([pod(f"p{i}") for i in range(2)], 0, "False", "InsufficientPods"),
], ids=["disruptions allowed: SufficientPods", "none allowed: InsufficientPods"])
def test_the_disruption_allowed_condition_follows_disruptions_allowed(objs, allowed, status, reason):
    st = status_after(pdb(2), *objs)
    assert st["disruptionsAllowed"] == allowed
    assert st["observedGeneration"] == 1
    assert st["conditions"] == [{"type": "DisruptionAllowed", "status": status, "observedGeneration": 1,
                                 "lastTransitionTime": STAMP, "reason": reason, "message": ""}]


def test_an_unchanged_status_is_not_written_again():
    budget = pdb(2)
    pods = [pod(f"p{i}") for i in range(3)]
    budget = dict(budget, status=status_after(budget, *pods))
    assert [c for c in sync(budget, *pods, now=NOW + 30) if c.op == "update_status"] == []


def test_a_spec_change_is_observed_with_the_new_generation():
    pods = [pod(f"p{i}") for i in range(3)]
    budget = pdb(2)
    budget = dict(budget, status=status_after(budget, *pods))
    changed = pdb(1, generation=2, status=budget["status"])
    st = status_after(changed, *pods, now=NOW + 10)
    assert (st["observedGeneration"], st["disruptionsAllowed"]) == (2, 2)
    # the condition kept its status (True), so it kept its transition time
    assert st["conditions"][0]["lastTransitionTime"] == STAMP and st["conditions"][0]["observedGeneration"] == 2


DS = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default",
                                                                 "uid": "uid-ds"}}
GONE_RS = workload("ReplicaSet", "gone", 3)
CRD = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default",
                                                                      "uid": "uid-w"}}


@pytest.mark.parametrize("owner,message", [
    (DS, "daemonsets.apps does not implement the scale subresource"),
    (CRD, 'no matches for kind "Widget" in version "example.com/v1"'),
    (GONE_RS, 'found no controllers for pod "p0"'),
], ids=["a DaemonSet has no scale subresource", "an unknown kind has no REST mapping",
        "a controller that no longer exists is found nowhere"])
def test_a_percentage_over_pods_whose_controller_cannot_be_scaled_fails_safe(owner, message):
    budget = pdb("50%", status={"currentHealthy": 2, "desiredHealthy": 1, "disruptionsAllowed": 1, "expectedPods": 2,
                                "observedGeneration": 1})
    objs = [pod("p0", owner=owner), pod("p1", owner=owner)] + ([DS] if owner is DS else [])
    changes = sync(budget, *objs)
    st = next(c for c in changes if c.op == "update_status").obj["status"]
    # failSafe: only disruptionsAllowed and the condition change
    assert counts(st) == (0, 2, 1, 2, {})
    assert st["conditions"] == [{"type": "DisruptionAllowed", "status": "False", "observedGeneration": 1,
                                 "lastTransitionTime": STAMP, "reason": "SyncFailed", "message": message}]
    ev = [(e.type, e.reason, e.message) for c in changes for e in c.events]
    # recorded by this sync and by the one the status write triggers (failSafe's identical
    # update there writes nothing)
    assert ev == [("Warning", "CalculateExpectedPodCountFailed",
                   f"Failed to calculate the number of expected pods: {message}")] * 2
    # a second sync finds nothing more to write
    assert [c for c in sync(dict(budget, status=st), *objs) if c.op == "update_status"] == []


def test_an_integer_min_available_does_not_need_the_controllers():
    assert counts(status_after(pdb(1), pod("p0", owner=DS), pod("p1", owner=DS), DS)) == (1, 2, 1, 2, {})


def test_unmanaged_pods_and_no_pods_are_reported_with_upstreams_events():
    """Each event twice: the sync that writes the status, then the sync its update event
    triggers; once the status is written, a sync records nothing (kubesim has no informer
    events to sync on)."""
    changes = sync(pdb(max_unavailable="50%"), pod("naked"))
    assert [(e.type, e.reason, e.message) for c in changes for e in c.events] == [
        ("Warning", "UnmanagedPods",
         "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{foo: bar,},"
         "MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the "
         "PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please "
         "set \".spec.minAvailable\" field of the PDB to an integer value.")] * 2
    changes = sync(pdb(1))
    assert [(e.type, e.reason, e.message) for c in changes for e in c.events] == \
        [("Normal", "NoPods", "No matching pods found")] * 2
    written = next(c.obj for c in changes if c.op == "update_status")
    assert sync(written) == []


def test_pods_of_other_namespaces_do_not_count():
    assert counts(status_after(pdb(1), pod("here"), pod("there", ns="other"))) == (0, 1, 1, 1, {})


def _with_disruption_target(p, since, reason="EvictionByEvictionAPI"):
    p["status"]["conditions"].append({"lastProbeTime": None, "lastTransitionTime": format_time(since),
                                      "message": "Eviction API: evicting", "reason": reason, "status": "True",
                                      "type": "DisruptionTarget"})
    return p


@pytest.mark.parametrize("since,reason,want", [
    (NOW - 200, "EvictionByEvictionAPI", "reset"),
    (NOW - 30, "EvictionByEvictionAPI", "wake"),
    (NOW - 200, "TerminationByKubelet", "nothing"),
], ids=["a stale DisruptionTarget condition is set to False after two minutes",
        "a recent one is looked at again when it becomes stale",
        "the kubelet's own condition is never stale"])
def test_stale_disruption_target_conditions(since, reason, want):
    p = _with_disruption_target(pod("p0"), since, reason)
    changes = [c for c in sync(pdb(1), p) if c.key[0] == "Pod" or c.op == "wake"]
    if want == "reset":
        cond = changes[0].obj["status"]["conditions"][-1]
        assert cond == {"lastProbeTime": None, "lastTransitionTime": STAMP, "status": "False",
                        "type": "DisruptionTarget"}
    elif want == "wake":
        assert [(c.op, c.at) for c in changes] == [("wake", NOW + 90)]
    else:
        assert changes == []


def test_a_pod_that_several_pdbs_select_is_warned_about_once_their_status_is_written():
    a = pdb(1)
    b = dict(pdb(1), metadata={"name": "another", "namespace": "default", "uid": "uid-b", "generation": 1})
    everything = dict(pdb(1, selector={}), metadata={"name": "all", "namespace": "default", "uid": "u", "generation": 1})
    changes = disruption.sync(View({"PodDisruptionBudget": [a, b, everything], "Pod": [pod("p0")]}, NOW))
    warnings = [(e.obj["metadata"]["name"], e.type, e.reason, e.message) for c in changes for e in c.events
                if e.reason == "MultiplePodDisruptionBudgets"]
    # the lister skips the empty selector; the first of the others by name is "another"
    assert warnings == [("p0", "Warning", "MultiplePodDisruptionBudgets",
                         'Pod "default"/"p0" matches multiple PodDisruptionBudgets.  Chose "another" arbitrarily.')]
