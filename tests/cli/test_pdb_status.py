"""PodDisruptionBudget status and events as a user sees them on a cluster (pinned clock and seed):
`get pdb`, the status fields and `describe pdb` while the pods they select come, turn Ready, scale
and go. Upstream: pkg/controller/disruption/disruption.go (trySync, getExpectedPodCount,
updatePdbStatus; every status write is an update event that syncs the PDB once more) and
kubectl's describe.go describePodDisruptionBudgetV1.
"""

from __future__ import annotations

import json

import pytest


def deployment(replicas: int = 4, probe_delay: int | None = None) -> str:
    probe = ""
    if probe_delay is not None:
        probe = ("        readinessProbe:\n          httpGet:\n            path: /\n            port: 80\n"
                 f"          initialDelaySeconds: {probe_delay}\n")
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
            f"  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n"
            "  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n"
            "      - name: nginx\n        image: nginx\n" + probe)


def budget(name: str, field: str, value: str, app: str = "web") -> str:
    return (f"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {name}\nspec:\n"
            f"  {field}: {value}\n  selector:\n    matchLabels:\n      app: {app}\n")


def apply(kubesim, tmp_path, *docs):
    f = tmp_path / "objects.yaml"
    f.write_text("---\n".join(docs))
    kubesim.ok(f"apply -f {f}")


def status(kubesim, name: str) -> tuple:
    st = json.loads(kubesim.ok(f"get pdb {name} -o json"))["status"]
    cond = next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")
    return (st["disruptionsAllowed"], st["currentHealthy"], st["desiredHealthy"], st["expectedPods"],
            cond["status"], cond["reason"])


MAX_ONE = budget("max-one", "maxUnavailable", "1")
HALF = budget("half", "minAvailable", '"50%"')


@pytest.mark.parametrize("pdb, name, want", [
    (MAX_ONE, "max-one", (1, 4, 3, 4, "True", "SufficientPods")),
    (HALF, "half", (2, 4, 2, 4, "True", "SufficientPods")),
], ids=["maxUnavailable 1 over 4 ready replicas allows one disruption",
        "minAvailable 50% of 4 replicas needs 2 healthy and allows two"])
def test_a_budget_over_a_ready_deployment(kubesim, tmp_path, pdb, name, want):
    apply(kubesim, tmp_path, deployment(), pdb)
    kubesim.ok("advance 5s")  # nginx pulled: the pods run and are Ready
    assert status(kubesim, name) == want


@pytest.mark.parametrize("pdb, name, unready, ready", [
    (MAX_ONE, "max-one", (0, 0, 3, 4, "False", "InsufficientPods"), (1, 4, 3, 4, "True", "SufficientPods")),
    (HALF, "half", (0, 0, 2, 4, "False", "InsufficientPods"), (2, 4, 2, 4, "True", "SufficientPods")),
], ids=["maxUnavailable: no disruption until the pods are Ready",
        "minAvailable 50%: the expected count comes from the Deployment's scale, health from readiness"])
def test_pods_not_yet_ready_are_expected_but_not_healthy(kubesim, tmp_path, pdb, name, unready, ready):
    apply(kubesim, tmp_path, deployment(probe_delay=30), pdb)
    assert status(kubesim, name) == unready
    kubesim.ok("advance 45s")  # the pull, the initial delay, then the probe period
    assert status(kubesim, name) == ready


@pytest.mark.parametrize("replicas, want_max_one, want_half", [
    (6, (0, 4, 5, 6, "False", "InsufficientPods"), (1, 4, 3, 6, "True", "SufficientPods")),
    (2, (1, 2, 1, 2, "True", "SufficientPods"), (1, 2, 1, 2, "True", "SufficientPods")),
], ids=["scaled up: the new pods are expected at once and healthy only once Ready",
        "scaled down: the pods being deleted no longer count"])
def test_scaling_the_deployment_moves_the_budget(kubesim, tmp_path, replicas, want_max_one, want_half):
    apply(kubesim, tmp_path, deployment(probe_delay=30), MAX_ONE, HALF)
    kubesim.ok("advance 45s")
    kubesim.ok(f"scale deployment web --replicas={replicas}")
    assert (status(kubesim, "max-one"), status(kubesim, "half")) == (want_max_one, want_half)


def test_a_budget_that_selects_no_pods(kubesim, tmp_path):
    """trySync records NoPods on each sync; its status write syncs it once more, so a real
    cluster shows the event twice."""
    apply(kubesim, tmp_path, budget("none", "minAvailable", "1", app="nothing"))
    assert status(kubesim, "none") == (0, 0, 1, 0, "False", "InsufficientPods")
    assert kubesim.ok("get pdb") == ("NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n"
                                     "none   1               N/A               0                     0s\n")
    kubesim.ok("advance 1m")  # later commands sync it again: nothing new to write or record
    assert kubesim.ok("describe pdb none") == (
        "Name:           none\n"
        "Namespace:      default\n"
        "Min available:  1\n"
        "Selector:       app=nothing\n"
        "Status:\n"
        "    Allowed disruptions:  0\n"
        "    Current:              0\n"
        "    Desired:              1\n"
        "    Total:                0\n"
        "Events:\n"
        "  Type    Reason  Age                From               Message\n"
        "  ----    ------  ----               ----               -------\n"
        "  Normal  NoPods  60s (x2 over 60s)  controllermanager  No matching pods found\n")


def test_a_budget_created_before_its_pods(kubesim, tmp_path):
    apply(kubesim, tmp_path, MAX_ONE)
    assert status(kubesim, "max-one") == (0, 0, 0, 0, "False", "InsufficientPods")
    apply(kubesim, tmp_path, deployment())
    assert status(kubesim, "max-one") == (0, 0, 3, 4, "False", "InsufficientPods")  # pulling nginx
    kubesim.ok("advance 5s")
    assert status(kubesim, "max-one") == (1, 4, 3, 4, "True", "SufficientPods")
    events = kubesim.ok("describe pdb max-one").split("Events:\n", 1)[1]
    assert events.splitlines()[2:] == ["  Normal  NoPods  5s (x2 over 5s)  controllermanager  No matching pods found"]
