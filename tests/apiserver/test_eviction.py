"""The eviction subresource, mirroring pkg/registry/core/pod/storage/eviction_test.go
(TestEviction, TestEvictionIgnorePDB, TestEvictionPDBStatus and the unhealthyPodEvictionPolicy
cases): which evictions the API server refuses, with which error, and what it writes."""

from __future__ import annotations

import pytest

from kubesim.apiserver.context import Cluster
from kubesim.apiserver.eviction import (EVICTION_MESSAGE, MULTIPLE_PDBS, VIOLATES_BUDGET, EvictionFailure, evict)
from kubesim.errors import Forbidden, NotFound, TooManyRequests
from kubesim.store import Store

NOW = "2026-11-22T10:00:00Z"


@pytest.fixture
def cluster(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": NOW, "KUBESIM_SEED": "1"})
    yield c
    store.rollback()


def pod(phase="Running", ready=True, deleting=False, labels=None):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "foo", "namespace": "default", "labels": labels if labels is not None else {"a": "true"}},
         "spec": {"nodeName": "node01", "containers": [{"name": "c", "image": "nginx"}]},
         "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}
    if deleting:
        p["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:30Z"
        p["metadata"]["deletionGracePeriodSeconds"] = 30
    return p


def pdb(name="foo", allowed=0, current=2, desired=2, selector=None, policy=None, generation=1, observed=1):
    spec = {"selector": selector if selector is not None else {"matchLabels": {"a": "true"}}, "minAvailable": desired}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default", "generation": generation},
            "spec": spec,
            "status": {"observedGeneration": observed, "disruptionsAllowed": allowed, "currentHealthy": current,
                       "desiredHealthy": desired, "expectedPods": current}}


def setup(cluster, p, *pdbs):
    for o in (p, *pdbs):
        cluster.store.create(o, NOW)


DENIED = (TooManyRequests, VIOLATES_BUDGET)


@pytest.mark.parametrize("p,pdbs,want", [
    (pod(), [pdb(allowed=0)], DENIED),
    (pod(phase="Pending"), [pdb(allowed=0)], None),
    (pod(phase="Succeeded"), [pdb(allowed=0)], None),
    (pod(phase="Failed"), [pdb(allowed=0)], None),
    (pod(), [pdb(allowed=1)], None),
    (pod(), [pdb(allowed=0, selector={"matchLabels": {"a": "false"}})], None),
    (pod(), [pdb(allowed=0, selector={})], DENIED),
    (pod(deleting=True), [pdb(allowed=0)], None),
    (pod(), [pdb("foo", allowed=1), pdb("bar", allowed=1)], (EvictionFailure, MULTIPLE_PDBS)),
    (pod(), [pdb(allowed=1, generation=2, observed=1)], DENIED),
    (pod(), [pdb(allowed=-1)], (Forbidden, 'poddisruptionbudget.policy "foo" is forbidden: '
                                           "pdb disruptions allowed is negative")),
    (pod(ready=False), [pdb(allowed=0, current=2, desired=2)], None),
    (pod(ready=False), [pdb(allowed=0, current=1, desired=2)], DENIED),
    (pod(ready=False), [pdb(allowed=0, current=0, desired=0)], DENIED),
    (pod(ready=False), [pdb(allowed=0, current=2, desired=2, policy="IfHealthyBudget")], None),
    (pod(ready=False), [pdb(allowed=0, current=1, desired=2, policy="IfHealthyBudget")], DENIED),
    (pod(ready=False), [pdb(allowed=0, current=1, desired=2, policy="AlwaysAllow")], None),
    (pod(), [pdb(allowed=0, current=1, desired=2, policy="AlwaysAllow")], DENIED),
], ids=[
    "matching pdb with no disruptions allowed, pod running: 429",
    "matching pdb with no disruptions allowed, pod pending: deleted",
    "matching pdb with no disruptions allowed, pod succeeded: deleted",
    "matching pdb with no disruptions allowed, pod failed: deleted",
    "matching pdb with disruptions allowed, pod running: deleted",
    "a pdb that does not match the pod does not protect it",
    "an empty selector matches every pod (policy/v1)",
    "a pod already terminating ignores its pdb",
    "a pod with two pdbs cannot be evicted",
    "a pdb whose status lags its spec refuses",
    "a negative disruptionsAllowed is forbidden",
    "an unready pod goes without spending a met budget (default policy)",
    "an unready pod is protected while the budget is not met (default policy)",
    "an unready pod is protected when nothing is desired (desiredHealthy 0)",
    "IfHealthyBudget: an unready pod goes while the budget is met",
    "IfHealthyBudget: an unready pod is protected while the budget is not met",
    "AlwaysAllow: an unready pod always goes",
    "AlwaysAllow: a ready pod still needs the budget",
])
def test_eviction_is_allowed_or_refused_as_upstream_decides(cluster, p, pdbs, want):
    setup(cluster, p, *pdbs)
    if want is None:
        evict(cluster, "default", "foo")
        stored = cluster.store.get("Pod", "default", "foo")
        assert stored is None or stored["metadata"].get("deletionTimestamp")
    else:
        before = cluster.store.get("Pod", "default", "foo")["metadata"]["resourceVersion"]
        with pytest.raises(want[0]) as e:
            evict(cluster, "default", "foo")
        assert e.value.message == want[1]
        assert cluster.store.get("Pod", "default", "foo")["metadata"]["resourceVersion"] == before


def test_a_missing_pod_is_not_found(cluster):
    with pytest.raises(NotFound) as e:
        evict(cluster, "default", "nope")
    assert str(e.value) == 'Error from server (NotFound): pods "nope" not found'


def test_a_refusal_names_the_budget_in_its_cause(cluster):
    setup(cluster, pod(), pdb(allowed=0, current=2, desired=2))
    with pytest.raises(TooManyRequests) as e:
        evict(cluster, "default", "foo")
    assert str(e.value) == f"Error from server (TooManyRequests): {VIOLATES_BUDGET}"
    assert e.value.cause == "The disruption budget foo needs 2 healthy pods and has 2 currently"


@pytest.mark.parametrize("allowed,want_allowed,want_condition", [
    (1, 0, ("False", "InsufficientPods")),
    (2, 1, None),
], ids=["the last allowed disruption turns the condition to InsufficientPods",
        "a remaining disruption leaves the condition alone"])
def test_an_eviction_spends_the_budget_and_records_the_pod(cluster, allowed, want_allowed, want_condition):
    """TestEvictionPDBStatus: disruptionsAllowed decremented, the pod in disruptedPods with the
    time, the DisruptionAllowed condition updated when it reaches 0; the pod gets the
    DisruptionTarget condition and its graceful deletion."""
    setup(cluster, pod(), pdb(allowed=allowed, current=3))
    evict(cluster, "default", "foo", grace_seconds=10)
    st = cluster.store.get("PodDisruptionBudget", "default", "foo")["status"]
    assert st["disruptionsAllowed"] == want_allowed
    assert st["disruptedPods"] == {"foo": NOW}
    cond = next((c for c in st.get("conditions") or [] if c["type"] == "DisruptionAllowed"), None)
    assert (None if cond is None else (cond["status"], cond["reason"])) == want_condition
    p = cluster.store.get("Pod", "default", "foo")
    assert p["metadata"]["deletionTimestamp"] == "2026-11-22T10:00:10Z"
    assert p["metadata"]["deletionGracePeriodSeconds"] == 10
    target = [c for c in p["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert target == [{"lastProbeTime": None, "lastTransitionTime": NOW, "message": EVICTION_MESSAGE,
                       "reason": "EvictionByEvictionAPI", "status": "True", "type": "DisruptionTarget"}]


def test_a_dry_run_eviction_checks_the_budget_but_writes_nothing(cluster):
    setup(cluster, pod(), pdb(allowed=1))
    rv = {k: cluster.store.get(*k)["metadata"]["resourceVersion"]
          for k in (("Pod", "default", "foo"), ("PodDisruptionBudget", "default", "foo"))}
    evict(cluster, "default", "foo", dry_run=True)
    assert {k: cluster.store.get(*k)["metadata"]["resourceVersion"] for k in rv} == rv


def test_a_budget_free_eviction_does_not_touch_the_pdb(cluster):
    """An unready pod under a met budget (and a pending pod) go without a disruptedPods entry."""
    setup(cluster, pod(ready=False), pdb(allowed=0, current=2, desired=2))
    evict(cluster, "default", "foo")
    st = cluster.store.get("PodDisruptionBudget", "default", "foo")["status"]
    assert st["disruptionsAllowed"] == 0 and "disruptedPods" not in st
