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
                                lambda self, now, bound=None: real_sync(self, now))
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
