"""The scheduler's informers (kubesim.controlplane.scheduling ``Informers``): the copies they keep
of what they saw, and the binding of a popped pod, delivered without unpacking the informer's
copy of it, which must move the queue, log and write exactly what the general delivery (the
old copy unpacked and handed to ``_pod``) does. Upstream: pkg/scheduler/eventhandlers.go
(updatePodInSchedulingQueue → addAssignedPodToCache), scheduler.go newPodInformer (its
transform drops ``metadata.managedFields``)."""

from __future__ import annotations

import sqlite3

from kubesim.controlplane import scheduling
from kubesim.testing.cli import Harness

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "web", "namespace": "default", "uid": "u1",
                    "labels": {"app": "web"},
                    "managedFields": [{"manager": "kubectl", "operation": "Update"}]},
       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "managedFields": [{"manager": "kubelet"}]}}

# stays in the unschedulable pool: every later binding (AssignedPod Add) is offered to it
BIG = """apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "100"}}}]
"""

WEB = "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, namespace: default, labels: {{app: web}}}}
spec:
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 10m}}}}}}]
""" for i in range(5))


def test_a_pod_s_copy_is_kept_without_its_managed_fields_as_the_pod_informer_keeps_it():
    got = scheduling._seen(scheduling._copy("Pod", POD))
    assert "managedFields" not in got["metadata"]
    assert got == {**POD, "metadata": {k: v for k, v in POD["metadata"].items()
                                       if k != "managedFields"}}
    assert "managedFields" in POD["metadata"]  # (the stored object is left as it is)
    assert scheduling._seen(scheduling._copy("Node", NODE)) == NODE  # (only pods are trimmed)


def _rows(state) -> list:
    conn = sqlite3.connect(str(state / "kubesim.db"))
    try:
        rows = [*conn.execute("SELECT kind, namespace, name, body FROM objects ORDER BY 1, 2, 3"),
                *conn.execute("SELECT key, value FROM meta WHERE key != 'settle.staticPods' "
                              "ORDER BY 1")]  # (a digest of the static pod files' paths)
    finally:
        conn.close()
    # (the nodes' static pod paths name the state directory)
    return [tuple(v.replace(str(state), "<state>") if isinstance(v, str) else v for v in row)
            for row in rows]


def test_a_binding_delivered_without_the_old_copy_moves_logs_and_writes_as_the_general_path(
        tmp_path, monkeypatch):
    general, bound = Harness(tmp_path / "general"), Harness(tmp_path / "bound")
    real_sync, real_bound = scheduling.Informers.sync, scheduling.Informers._bound
    taken: list[str] = []

    def counted(self, pod, now):
        taken.append(pod["metadata"]["name"])
        return real_bound(self, pod, now)

    outputs = {}
    for name, h in (("general", general), ("bound", bound)):
        if name == "general":  # every delivery unpacks the copy the informers kept
            monkeypatch.setattr(scheduling.Informers, "sync",
                                lambda self, now, bound=None, defer=False: real_sync(self, now))
        else:
            monkeypatch.setattr(scheduling.Informers, "sync", real_sync)
            monkeypatch.setattr(scheduling.Informers, "_bound", counted)
        h.apply(BIG)
        r = h(["apply", "-f", "-", "-v=5"], stdin=WEB)
        assert r.code == 0, r.err
        outputs[name] = (r.out, r.err)
    assert sorted(n for n in taken if n.startswith("web-")) == [f"web-{i}" for i in range(5)]
    assert "Event is not making pod schedulable" in outputs["bound"][1]  # (big was offered each)
    assert outputs["bound"] == outputs["general"]
    assert _rows(tmp_path / "bound") == _rows(tmp_path / "general")


# bound as it is created: seen by the step's first sync, not scheduled, then run by the kubelet
BOUND = """---
apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: default, labels: {app: web}}
spec:
  nodeName: node01
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 10m}}}]
"""


def _unpacked(cluster) -> list:
    return sorted(k[2] for k, v in (cluster.__dict__.get("_sched_view") or {}).items()
                  if isinstance(v, scheduling._Deferred))


def test_views_left_unpacked_in_the_step_are_packed_before_anything_changes_them(
        tmp_path, monkeypatch):
    # the step's first sync keeps its views unpacked (the objects themselves) until a cycle
    # writes something else than the binding the next sync delivers without reading the view:
    # before a pod found unschedulable is written, and at the end of the step (the command's
    # other writers change objects in place: the kubelet runs ``pinned``) they are packed
    real_step, real_write_back = scheduling.step, scheduling._write_back
    seen: dict[str, list] = {"write": [], "end": []}

    def write_back(cluster, pod, result, **kw):
        if result.outcome != "Scheduled":
            seen["write"].append((pod["metadata"]["name"], _unpacked(cluster)))
        return real_write_back(cluster, pod, result, **kw)

    def step(cluster):
        try:
            return real_step(cluster)
        finally:
            seen["end"].append(_unpacked(cluster))

    monkeypatch.setattr(scheduling, "_write_back", write_back)
    monkeypatch.setattr(scheduling, "step", step)  # (components.schedule calls it)
    mixed = BIG.replace("name: big", "name: big-1") + "---\n" + BIG + WEB + BOUND
    r = Harness(tmp_path)(["apply", "-f", "-"], stdin=mixed)
    assert r.code == 0, r.err
    assert sorted(name for name, _ in seen["write"]) == ["big", "big-1"]
    assert all(unpacked == [] for _, unpacked in seen["write"])
    assert seen["end"] and all(unpacked == [] for unpacked in seen["end"])


def test_views_left_unpacked_deliver_what_packed_views_deliver(tmp_path, monkeypatch):
    real_sync = scheduling.Informers.sync
    mixed = BIG.replace("name: big", "name: big-1") + "---\n" + BIG + WEB + BOUND
    outputs = {}
    for name in ("deferred", "packed"):
        h = Harness(tmp_path / name)
        if name == "packed":
            monkeypatch.setattr(scheduling.Informers, "sync",
                                lambda self, now, bound=None, defer=False:
                                real_sync(self, now, bound))
        r = h(["apply", "-f", "-", "-v=10"], stdin=mixed)
        assert r.code == 0, r.err
        outputs[name] = (r.out, r.err)
    assert "Update event for unscheduled pod" in outputs["deferred"][1]
    assert outputs["deferred"] == outputs["packed"]
    assert _rows(tmp_path / "deferred") == _rows(tmp_path / "packed")
