"""The resource quota controller (pkg/controller/resourcequota/resource_quota_controller.go
syncResourceQuota): status.hard follows the spec, status.used what the namespace uses, and
nothing is written when both already say so."""

from __future__ import annotations

import pytest

from kubesim.controllers import resourcequota
from kubesim.controllers.base import View


def quota(hard: dict, status: dict | None = None, ns: str = "dev", **spec) -> dict:
    q = {"kind": "ResourceQuota", "metadata": {"name": "q", "namespace": ns}, "spec": {"hard": hard, **spec}}
    if status is not None:
        q["status"] = status
    return q


def pod(name: str, ns: str = "dev", cpu: str = "", phase: str = "Running") -> dict:
    res = {"requests": {"cpu": cpu}} if cpu else {}
    return {"kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": res}]}, "status": {"phase": phase}}


CASES = [
    ("a new quota gets its hard limits and zero use", quota({"pods": "2"}), [],
     {"hard": {"pods": "2"}, "used": {"pods": "0"}}),
    ("pods of its namespace count, others not", quota({"pods": "5", "requests.cpu": "2"}),
     [pod("a", cpu="250m"), pod("b", cpu="500m"), pod("c", ns="other", cpu="1")],
     {"hard": {"pods": "5", "requests.cpu": "2"}, "used": {"pods": "2", "requests.cpu": "750m"}}),
    ("a finished pod no longer counts", quota({"pods": "5"}), [pod("a"), pod("b", phase="Succeeded")],
     {"hard": {"pods": "5"}, "used": {"pods": "1"}}),
    ("a best effort quota counts only best effort pods", quota({"pods": "5"}, scopes=["BestEffort"]),
     [pod("a"), pod("b", cpu="1")], {"hard": {"pods": "5"}, "used": {"pods": "1"}}),
    ("a changed hard limit is copied and its old use dropped",
     quota({"configmaps": "3"}, {"hard": {"pods": "2"}, "used": {"pods": "1"}}), [],
     {"hard": {"configmaps": "3"}, "used": {"configmaps": "0"}}),
]


@pytest.mark.parametrize("q,objects,status", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_sync_sets_the_status(q, objects, status):
    view = View({"ResourceQuota": [q], "Pod": objects, "ConfigMap": []})
    changes = resourcequota.sync(view)
    assert [(c.op, c.obj["status"]) for c in changes] == [("update_status", status)]


def test_an_up_to_date_quota_is_left_alone():
    q = quota({"pods": "2"}, {"hard": {"pods": "2"}, "used": {"pods": "1"}})
    assert resourcequota.sync(View({"ResourceQuota": [q], "Pod": [pod("a")]})) == []
