"""The API server's create and update path (kubesim.apiserver.objects): what a new object looks
like once the server has prepared it (the scheme's defaults, admission, PrepareForCreate),
generated names, and the strategies' validation as the server reports it."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.apiserver import registry
from kubesim.apiserver.objects import begin_deletion, prepare_for_create, validate
from kubesim.apiserver.registry import rest
from kubesim.errors import required
from tests.api.core.test_validation import C0, OLD, setp


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


def defaulted(obj: dict, seed: int = 0, **kw) -> dict:
    out = copy.deepcopy(obj)
    prepare_for_create(out, rng=random.Random(seed), **kw)
    return out


def token_volume_name(seed: int = 0) -> str:
    rng = random.Random(seed)
    return "kube-api-access-" + "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))


def messages(obj, old=None) -> list[str]:
    return [str(e) for e in validate(obj, old)]


def test_a_minimal_pod_is_stored_as_kubectl_get_shows_it():
    name = token_volume_name()
    assert defaulted(make_pod()) == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default", "generation": 1},
        "spec": {
            "containers": [{
                "name": "nginx", "image": "nginx", "imagePullPolicy": "Always", "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                "volumeMounts": [{"name": name, "readOnly": True,
                                  "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            }],
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {},
            "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            ],
            "volumes": [{"name": name, "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace",
                                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ]}}],
        },
        "status": {"phase": "Pending", "qosClass": "BestEffort"},
    }


def test_the_defaulted_pod_validates():
    assert validate(defaulted(make_pod())) == []


def make_node(**kw) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01"}}
    n.update(copy.deepcopy(kw))
    return n


def test_generate_name_becomes_a_name_from_the_rng():
    pod = make_pod()
    pod["metadata"] = {"generateName": "web-", "namespace": "default"}
    a, b = defaulted(pod, seed=3), defaulted(pod, seed=3)
    assert a["metadata"]["name"] == b["metadata"]["name"]
    assert a["metadata"]["name"].startswith("web-") and len(a["metadata"]["name"]) == 9


def test_cluster_scoped_objects_lose_their_namespace():
    node = make_node()
    node["metadata"]["namespace"] = "default"
    got = defaulted(node)
    assert "namespace" not in got["metadata"]
    assert validate(got) == []


def test_kinds_without_defaults_are_untouched():
    obj = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}}
    assert defaulted(obj) == obj


def test_preparing_without_an_rng_still_works():
    pod = make_pod()
    prepare_for_create(pod)
    assert pod["spec"]["volumes"][0]["name"].startswith("kube-api-access-")


# --------------------------------------------------------------------------------------------- validation

def test_repeated_messages_are_reported_once():
    # both the spec validation and the container-update check require the image; the server's
    # message (field.ErrorList.ToAggregate) says it once
    assert messages(setp(OLD, f"{C0}.image", ""), OLD) == ["spec.containers[0].image: Required value"]


def test_a_kind_the_server_does_not_serve_has_no_validation():
    assert validate({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                     "metadata": {}}) == []


def test_adding_a_kind_is_one_entry(monkeypatch):
    class WidgetStrategy(rest.Strategy):
        kind = "Widget"

        def validate(self, obj):
            return [required("spec.size", "")]

    monkeypatch.setitem(registry._loaded, "Widget", WidgetStrategy())
    assert messages({"kind": "Widget"}) == ["spec.size: Required value"]



def test_every_kind_the_api_server_serves_has_a_strategy():
    from kubesim.api import kinds

    served = {k.kind for k in kinds.REGISTRY.all() if k.served}
    assert {k: registry.for_kind(k).kind for k in served} == {k: k for k in served}


# --------------------------------------------------------------------------------------------- deletion


def test_a_foreground_delete_marks_instead_of_removing():
    rs = {"kind": "ReplicaSet", "metadata": {"name": "a", "namespace": "default", "uid": "u-a"}}
    md = begin_deletion(rs, "Foreground", 100.0)["metadata"]
    assert md["finalizers"] == ["foregroundDeletion"] and md["deletionTimestamp"]
    assert begin_deletion(rs, "Orphan", 100.0)["metadata"]["finalizers"] == ["orphan"]
    assert begin_deletion(rs, "Background", 100.0) is None and "deletionTimestamp" not in rs["metadata"]


# -- LIST with field selectors -----------------------------------------------------------
# The store answers some exact-match field selectors from what it has without decoding the
# whole kind (kubesim.apiserver.objects._candidates); the answer must be the full scan's.

def _listed(tmp_path, committed: bool):
    from kubesim.apiserver.context import Cluster
    from kubesim.store import Store

    store = Store(str(tmp_path / "state")).open()
    def ev(name, kind, obj, uid=""):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
                "involvedObject": {"kind": kind, "name": obj, "uid": uid}, "reason": "R"}
    for o in [ev("a", "Node", "n1", "u1"), ev("b", "Node", "n10"), ev("c", "Pod", "n1"),
              ev("d", "Node", "n1", "u2"), ev("é", "Node", "nœud")]:
        store.create(o, "2026-11-22T10:00:00Z")
    for name, node in [("p1", "n1"), ("p2", ""), ("p3", "n2"), ("p4", "n1")]:
        store.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"},
                      "spec": {"nodeName": node} if node else {}}, "2026-11-22T10:00:00Z")
    if committed:
        store.commit()
        store = Store(str(tmp_path / "state")).open()
    return Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})


@pytest.mark.parametrize("committed", [False, True])
@pytest.mark.parametrize("kind,namespace,selector,names", [
    ("Event", "default", "involvedObject.kind=Node,involvedObject.name=n1", ["a", "d"]),
    ("Event", "default", "involvedObject.name=n1", ["a", "c", "d"]),
    ("Event", "default", "involvedObject.uid=u2", ["d"]),
    ("Event", None, "involvedObject.name=nœud", ["é"]),
    ("Event", "other", "involvedObject.name=n1", []),
    ("Event", "default", "involvedObject.name=", []),
    ("Event", "default", "involvedObject.name!=n1", ["b", "é"]),
    ("Event", "default", "metadata.name=b", ["b"]),
    ("Pod", None, "spec.nodeName=n1", ["p1", "p4"]),
    ("Pod", "ns", "spec.nodeName=", ["p2"]),
    ("Pod", None, "spec.nodeName=n9", []),
    ("Pod", None, "metadata.name=p3,spec.nodeName=n2", ["p3"]),
])
def test_field_selected_lists_equal_a_full_scan(tmp_path, committed, kind, namespace, selector, names):
    from kubesim.api import kinds
    from kubesim.apiserver.objects import list_objects

    cluster = _listed(tmp_path, committed)
    got = list_objects(cluster, kinds.by_kind(kind), namespace, field_selector=selector)
    assert [o["metadata"]["name"] for o in got] == names
