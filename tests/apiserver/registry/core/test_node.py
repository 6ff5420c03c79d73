"""The Node strategy (pkg/registry/core/node): a node keeps the status it registers with."""

from kubesim.apiserver.registry import for_kind


def test_a_node_keeps_the_status_it_is_created_with_and_other_kinds_do_not():
    assert for_kind("Node").keeps_status_on_create
    assert not any(for_kind(k).keeps_status_on_create for k in ("Pod", "Namespace", "PersistentVolume"))


def test_a_deleted_node_takes_its_csinode_along_and_leaves_its_pods_to_podgc():
    deleted = []

    class Store:
        def pod_keys_on_node(self, name):
            return [("Pod", "default", "p1")] if name == "node01" else []

        def delete(self, *key):
            deleted.append(key)

    for_kind("Node").delete_dependents(Store(), {"metadata": {"name": "node01"}})
    assert deleted == [("CSINode", "", "node01")]
