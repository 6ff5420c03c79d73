"""The DaemonSet controller's sync of only the nodes that changed (kubesim.controllers.daemonset
``DaemonNodes``, built by kubesim.controlplane.components ``_daemon_nodes``) makes exactly the
writes its sync over every node makes: the same pods created and deleted (so the same names
drawn from the seeded random source), the same status counts. Upstream's node and pod event
handlers enqueue a DaemonSet for the node an event names (pkg/controller/daemon/
daemon_controller.go addNode, updateNode, deleteNode, addPod, updatePod, deletePod); its
status is computed over its informer's nodes. Each step below runs on two clusters, one whose
controller always visits every node, and every object (and Event) must come out the same."""

from __future__ import annotations

import sqlite3

import pytest

from kubesim.controlplane import components
from kubesim.testing.cli import Harness

AGENT = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {role: agent}
      containers: [{name: a, image: nginx}]
"""

NODE9 = """apiVersion: v1
kind: Node
metadata: {name: node9, labels: {role: agent}}
"""

ORPHAN = """apiVersion: v1
kind: Pod
metadata: {name: stray, namespace: default, labels: {app: agent}}
spec: {containers: [{name: a, image: nginx}]}
"""

# (a step, and whether the first sync after it can be a targeted one; None: the node
# update wakes no DaemonSet, syncNodeUpdate)
STEPS = [
    ("apply agent", False),  # a new DaemonSet: every node
    ("label node node01 role=agent", True),
    ("label node node02 role=agent", True),
    ("apply node9", True),  # a new Node: its kubelet registers it, the DaemonSets add their pods
    ("label node node01 role-", True),  # no longer selected: its pod goes
    ("delete agent pod on node02", True),  # recreated
    ("taint node node02 dedicated=x:NoExecute", True),  # not tolerated: its pods go
    ("cordon node03", None),  # (its pods tolerate node.kubernetes.io/unschedulable)
    ("advance 5m", True),
    ("delete node node9", True),
    ("apply stray", False),  # an orphan the DaemonSet selects: every node (adoption)
]


def _run(h: Harness, step: str) -> None:
    if step == "apply agent":
        h.apply(AGENT)
    elif step == "apply node9":
        h.apply(NODE9)
    elif step == "apply stray":
        h.apply(ORPHAN)
    elif step == "delete agent pod on node02":
        name = next(line.split()[0] for line in h.ok("get pods -o wide").splitlines()[1:]
                    if line.startswith("agent-") and " node02 " in line)
        h.ok(f"delete pod {name}")
    else:
        h.ok(step)


def _rows(state) -> list:
    conn = sqlite3.connect(str(state / "kubesim.db"))
    try:
        return [(k, ns, name, body.replace(str(state), "<state>")) for k, ns, name, body in conn.execute(
            "SELECT kind, namespace, name, body FROM objects WHERE kind != 'ScheduleExplanation' ORDER BY 1, 2, 3")]
    finally:
        conn.close()


def test_a_sync_of_the_changed_nodes_writes_what_a_sync_of_every_node_writes(tmp_path, monkeypatch):
    full, targeted = Harness(tmp_path / "full"), Harness(tmp_path / "targeted")
    for h in (full, targeted):
        h.ok("cluster init --nodes 3")
    real = components._daemon_nodes
    used: list[bool] = []

    def counted(cluster):
        t = real(cluster)
        used.append(t is not None)
        return t

    for step, can_target in STEPS:
        monkeypatch.setattr(components, "_daemon_nodes", lambda cluster: None)
        _run(full, step)
        used.clear()
        monkeypatch.setattr(components, "_daemon_nodes", counted)
        _run(targeted, step)
        assert _rows(tmp_path / "targeted") == _rows(tmp_path / "full"), step
        if step.startswith("advance"):
            continue
        assert (used[0] if used else None) == can_target, (step, used)  # (its first sync)
        if step == "apply node9":  # (node01, node02, node9: desired, current; nginx still pulling)
            for h in (full, targeted):  # (on both: a read may settle, and count as a command)
                assert h.ok("get ds agent").split("\n")[1].split()[1:3] == ["3", "3"]
    assert targeted.ok("get ds -n kube-system kube-proxy").split("\n")[1].split()[1:6] == ["4"] * 5


@pytest.mark.parametrize("step", ["rollout restart ds agent", "set image ds/agent a=nginx:1.27"])
def test_a_changed_template_syncs_every_node(tmp_path, monkeypatch, step):
    h = Harness(tmp_path / "s")
    h.ok("cluster init --nodes 2")
    h.apply(AGENT)
    h.ok("label node node01 node02 role=agent")
    real = components._daemon_nodes
    used: list[bool] = []
    monkeypatch.setattr(components, "_daemon_nodes", lambda cluster: used.append(bool(real(cluster))))
    h.ok(step)
    assert used and not any(used)
