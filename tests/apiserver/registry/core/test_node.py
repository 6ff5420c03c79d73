"""The Node strategy (pkg/registry/core/node): a node keeps the status it registers with."""

import pytest

from kubesim.apiserver.registry import for_kind


def test_a_node_keeps_the_status_it_is_created_with_and_other_kinds_do_not():
    assert for_kind("Node").keeps_status_on_create
    assert not any(for_kind(k).keeps_status_on_create for k in ("Pod", "Namespace", "PersistentVolume"))


def owned(kind, ns, uid):
    return {"kind": kind, "metadata": {"name": "node01", "namespace": ns,
                                       "ownerReferences": [{"kind": "Node", "name": "node01", "uid": uid}]}}


@pytest.mark.parametrize("stored,gone", [
    ({("CSINode", "", "node01"): owned("CSINode", "", "u1"),
      ("Lease", "kube-node-lease", "node01"): owned("Lease", "kube-node-lease", "u1")},
     [("CSINode", "", "node01"), ("Lease", "kube-node-lease", "node01")]),
    ({("Lease", "kube-node-lease", "node01"): owned("Lease", "kube-node-lease", "another")},
     []),
], ids=["its CSINode and its Lease go with it; its pods stay for PodGC",
        "a Lease owned by another Node of that name stays (the collector matches uids)"])
def test_a_deleted_node_takes_what_it_owns_along_and_leaves_its_pods_to_podgc(stored, gone):
    deleted = []

    class Store:
        def pod_keys_on_node(self, name):
            return [("Pod", "default", "p1")] if name == "node01" else []

        def get(self, *key):
            return stored.get(key)

        def delete(self, *key):
            deleted.append(key)

    for_kind("Node").delete_dependents(Store(), {"metadata": {"name": "node01", "uid": "u1"}})
    assert deleted == gone
