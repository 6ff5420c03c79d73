"""PodTopologyLabels (plugin/pkg/admission/podtopologylabels, admission_test.go's cases for the
pod endpoint and the binding registry's overwrite), and what a real v1.35 cluster showed through
the conformance oracle: a pod created on a zoned node keeps its own zone label, a scheduled one
gets the node's."""

from __future__ import annotations

import pytest

from kubesim.apiserver.admission import CREATE, UPDATE, Attributes
from kubesim.apiserver.admission.podtopologylabels import PodTopologyLabels
from kubesim.apiserver.registry.core.pod import bind

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"


def node(name="node01", **labels):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def pod(node_name="node01", **labels):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    if node_name:
        p["spec"]["nodeName"] = node_name
    if labels:
        p["metadata"]["labels"] = labels
    return p


ZONED = node(**{ZONE: "z1", REGION: "r1", "topology.k8s.io/zone": "other", "tier": "front"})


@pytest.mark.parametrize("obj, nodes, operation, labels", [
    (pod(), [ZONED], CREATE, {ZONE: "z1", REGION: "r1"}),
    (pod(**{ZONE: "mine"}), [ZONED], CREATE, {ZONE: "mine", REGION: "r1"}),  # existing labels win
    (pod(node_name=""), [ZONED], CREATE, None),  # not yet scheduled
    (pod(node_name="ghost"), [ZONED], CREATE, None),  # a missing node contributes nothing
    (pod(), [node()], CREATE, None),  # a node without topology labels
    (pod(), [ZONED], UPDATE, None),  # the handler admits creates only
], ids=["copied", "pod labels win", "unscheduled", "missing node", "unlabelled node", "update"])
def test_admitting_a_pod(obj, nodes, operation, labels):
    PodTopologyLabels().admit(Attributes(operation, obj, None, lambda kind: nodes if kind == "Node" else []))
    assert obj["metadata"].get("labels") == labels


def test_binding_copies_the_node_topology_overwriting():
    p = pod(node_name="", **{ZONE: "mine", "app": "web"})
    bind(p, "node01", ZONED)
    assert p["spec"]["nodeName"] == "node01"
    assert p["metadata"]["labels"] == {ZONE: "z1", REGION: "r1", "app": "web"}


def test_the_scheduler_binds_with_the_labels(kubesim, tmp_path):
    kubesim.ok(f"label node node01 {ZONE}=z1")
    f = tmp_path / "p.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeSelector: {kubernetes.io/hostname: node01}\n"
                 "  containers: [{name: c, image: nginx}]\n")
    kubesim.ok(f"apply -f {f}")
    assert kubesim.ok("get pod web -o jsonpath={.metadata.labels}") == '{"topology.kubernetes.io/zone":"z1"}'
