"""The kubelet's node Lease (kubesim.kubelet.nodelease): the Lease its lease controller writes,
after component-helpers' lease/controller_test.go TestNewNodeLease, and the renewals a reader
sees on the 10 s grid without their being written."""

from __future__ import annotations

import copy

import pytest

from kubesim.clock import format_micro_time
from kubesim.kubelet import nodelease as NL
from kubesim.testing.kubelet import T0

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "foo", "uid": "foo-uid"}}
OWNER = [{"apiVersion": "v1", "kind": "Node", "name": "foo", "uid": "foo-uid"}]


def lease(renewed: float, duration: int = 40, owners=None) -> dict:
    md = {"name": "foo", "namespace": "kube-node-lease", "creationTimestamp": "2026-11-22T09:00:00Z"}
    if owners is not None:
        md["ownerReferences"] = copy.deepcopy(owners)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": md,
            "spec": {"holderIdentity": "foo", "leaseDurationSeconds": duration, "renewTime": format_micro_time(renewed)}}


def test_a_new_lease_is_held_by_the_node_and_owned_by_it():
    """TestNewNodeLease "nil base with node" (the kubelet's duration: 40 s)."""
    assert NL.new_lease(NODE, T0) == {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "foo", "namespace": "kube-node-lease", "ownerReferences": OWNER},
        "spec": {"holderIdentity": "foo", "leaseDurationSeconds": 40, "renewTime": "2026-11-22T10:00:00.000000Z"}}


RENEWALS = [
    ("non-nil base without owner ref, renew time is updated", lease(T0 - 10), lease(T0, owners=OWNER)),
    ("non-nil base with owner ref, renew time is updated", lease(T0 - 10, owners=OWNER), lease(T0, owners=OWNER)),
    ("non-nil base with owner ref, lease duration is updated",
     lease(T0 - 10, duration=123, owners=OWNER), lease(T0, owners=OWNER)),
    ("another owner reference is kept (only a missing one is set)",
     lease(T0 - 10, owners=[{"apiVersion": "v1", "kind": "Node", "name": "foo", "uid": "old"}]),
     lease(T0, owners=[{"apiVersion": "v1", "kind": "Node", "name": "foo", "uid": "old"}])),
]


@pytest.mark.parametrize("base,expect", [c[1:] for c in RENEWALS], ids=[c[0] for c in RENEWALS])
def test_a_renewal_is_a_new_object(base, expect):
    before = copy.deepcopy(base)
    got = NL.renew(base, NODE, T0)
    assert got == expect and got is not base and base == before


GRID = [
    ("right after its last write: as stored", T0, T0 + 9.999, T0),
    ("a renewal every 10 s after the stored renewTime", T0, T0 + 10, T0 + 10),
    ("between renewals, the last one", T0, T0 + 25, T0 + 20),
    ("an hour later, 360 renewals later", T0, T0 + 3600, T0 + 3600),
    ("the grid keeps the stored time's fraction of a second", T0 + 0.25, T0 + 30.5, T0 + 30.25),
    ("a renewTime in the future stays until it has passed", T0 + 60, T0, T0 + 60),
]


@pytest.mark.parametrize("stored,now,seen", [c[1:] for c in GRID], ids=[c[0] for c in GRID])
def test_a_reader_sees_the_last_renewal_of_the_grid(stored, now, seen):
    base = lease(stored, owners=OWNER)
    got = NL.renewed(base, NODE, now)
    assert got["spec"]["renewTime"] == format_micro_time(seen)
    assert (got is base) == (seen == stored)


def test_a_renewal_seen_later_also_restores_the_duration_and_the_owner():
    got = NL.renewed(lease(T0, duration=5), NODE, T0 + 10)
    assert (got["spec"]["leaseDurationSeconds"], got["metadata"]["ownerReferences"]) == (40, OWNER)


@pytest.mark.parametrize("deleted_at,recreated_at", [(T0 + 3, T0 + 10), (T0 + 10, T0 + 20), (T0 + 19.5, T0 + 20)],
                         ids=["between renewals: at the next one", "at a renewal (made before the delete): the one after",
                              "just before a renewal: at it"])
def test_a_deleted_lease_comes_back_at_the_next_renewal(deleted_at, recreated_at):
    assert NL.next_renewal(lease(T0), deleted_at) == recreated_at
