"""Metadata accessors (metav1 controller_ref.go, helpers.go)."""

from kubesim.api.meta.helpers import (controller_ref, creation_time, is_controlled_by, new_controller_ref,
                                      selector_of)

OWNER = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "uid": "u1"}}


def test_a_new_controller_reference_blocks_owner_deletion():
    assert new_controller_ref(OWNER) == {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u1",
                                         "controller": True, "blockOwnerDeletion": True}


def test_the_controller_is_the_reference_marked_controller():
    pod = {"metadata": {"ownerReferences": [{"uid": "other"}, new_controller_ref(OWNER)]}}
    assert controller_ref(pod)["uid"] == "u1" and is_controlled_by(pod, OWNER)
    assert controller_ref({"metadata": {}}) is None


def test_an_invalid_selector_selects_nothing():
    bad = {"spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}}}
    assert not selector_of(bad).matches({"a": "1"})
    assert selector_of({"spec": {"selector": {"matchLabels": {"a": "1"}}}}).matches({"a": "1"})


def test_creation_time_reads_rfc3339_and_defaults_to_zero():
    assert creation_time({"metadata": {"creationTimestamp": "1970-01-01T00:01:00Z"}}) == 60.0
    assert creation_time({"metadata": {}}) == 0.0
