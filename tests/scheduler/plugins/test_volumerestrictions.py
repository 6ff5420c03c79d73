"""VolumeRestrictions: mirrors upstream volume_restrictions_test.go (TestGCEDiskConflicts,
TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCIDiskConflicts, TestAccessModeConflicts)."""

import copy

import pytest

from kubesim.scheduler.framework.status import Code
from kubesim.scheduler.plugins.volumerestrictions import (ERR_REASON_DISK_CONFLICT, ERR_REASON_RWOP_CONFLICT,
                                                          VolumeRestrictions)

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter
from .volume_builders import Store, claim_volume, pvc


def with_volume(name, source, node_name=""):
    w = make_pod(name)
    if node_name:
        w.node(node_name)
    p = w.obj()
    p["spec"]["volumes"] = [{"name": "v", **copy.deepcopy(source)}]
    return p


GCE_FOO = {"gcePersistentDisk": {"pdName": "foo"}}
GCE_BAR = {"gcePersistentDisk": {"pdName": "bar"}}
GCE_FOO_RO = {"gcePersistentDisk": {"pdName": "foo", "readOnly": True}}
EBS_FOO = {"awsElasticBlockStore": {"volumeID": "foo"}}
EBS_BAR = {"awsElasticBlockStore": {"volumeID": "bar"}}
RBD_1 = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar"}}
RBD_2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar"}}
RBD_3 = {"rbd": {"monitors": ["b", "e"], "pool": "foo", "image": "bar"}}
ISCSI_A = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "lun": 0}}
ISCSI_B = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "lun": 0}}

CONFLICT = (Code.Unschedulable, [ERR_REASON_DISK_CONFLICT])

CASES = [
    pytest.param(make_pod("p").obj(), [], "skipped", id="a pod without such volumes is skipped"),
    pytest.param(with_volume("p", GCE_FOO), [], None, id="GCE PD on an empty node"),
    pytest.param(with_volume("p", GCE_FOO), [with_volume("e", GCE_BAR, "node")], None, id="different GCE PDs"),
    pytest.param(with_volume("p", GCE_FOO), [with_volume("e", GCE_FOO, "node")], CONFLICT, id="the same GCE PD"),
    pytest.param(with_volume("p", GCE_FOO_RO), [with_volume("e", GCE_FOO_RO, "node")], None,
                 id="the same GCE PD read-only twice"),
    pytest.param(with_volume("p", GCE_FOO), [with_volume("e", GCE_FOO_RO, "node")], CONFLICT,
                 id="the same GCE PD read-only once"),
    pytest.param(with_volume("p", EBS_FOO), [with_volume("e", EBS_BAR, "node")], None, id="different EBS volumes"),
    pytest.param(with_volume("p", EBS_FOO), [with_volume("e", EBS_FOO, "node")], CONFLICT,
                 id="the same EBS volume"),
    pytest.param(with_volume("p", RBD_1), [with_volume("e", RBD_2, "node")], None,
                 id="RBD images on disjoint monitors"),
    pytest.param(with_volume("p", RBD_1), [with_volume("e", RBD_3, "node")], CONFLICT,
                 id="the same RBD image on overlapping monitors"),
    pytest.param(with_volume("p", ISCSI_A), [with_volume("e", ISCSI_B, "node")], None, id="different iSCSI IQNs"),
    pytest.param(with_volume("p", ISCSI_A), [with_volume("e", ISCSI_A, "node")], CONFLICT,
                 id="the same iSCSI IQN"),
]


@pytest.mark.parametrize("pod, existing, want", CASES)
def test_disk_conflicts(pod, existing, want):
    plugin = VolumeRestrictions(handle=Store().handle())
    got = run_filter(plugin, pod, make_node("node").obj(), existing)
    if got not in (None, "skipped"):
        got = (got.code, got.reasons)
    assert got == want


def rwop_run(existing_claims):
    store = Store(pvc("claim-with-rwop-1", modes=("ReadWriteOncePod",)),
                  pvc("claim-with-rwop-2", modes=("ReadWriteOncePod",)), pvc("claim-rwo"))
    nodes = [make_node("node-1").obj(), make_node("node-2").obj()]
    existing = [claim_volume(make_pod(f"e{i}").node("node-2").obj(), c) for i, c in enumerate(existing_claims)]
    plugin = VolumeRestrictions(handle=store.handle(nodes, existing))
    pod = claim_volume(make_pod("p").obj(), "claim-with-rwop-1", "claim-rwo")
    got = run_filter(plugin, pod, nodes[0], existing)
    return got if got in (None, "skipped") else (got.code, got.reasons)


@pytest.mark.parametrize("existing, want", [
    pytest.param([], None, id="a ReadWriteOncePod claim no pod uses"),
    pytest.param(["claim-with-rwop-2"], None, id="another ReadWriteOncePod claim in use does not matter"),
    pytest.param(["claim-rwo"], None, id="a ReadWriteOnce claim may be shared"),
    pytest.param(["claim-with-rwop-1"], (Code.Unschedulable, [ERR_REASON_RWOP_CONFLICT]),
                 id="a ReadWriteOncePod claim used by a pod on another node rejects every node"),
])
def test_read_write_once_pod_conflicts(existing, want):
    assert rwop_run(existing) == want


def test_a_missing_claim_is_unresolvable():
    plugin = VolumeRestrictions(handle=Store().handle())
    got = run_filter(plugin, claim_volume(make_pod("p").obj(), "nope"), make_node("node").obj())
    assert (got.code, got.reasons) == (Code.UnschedulableAndUnresolvable, ['persistentvolumeclaim "nope" not found'])


# -- queueing hints (volume_restrictions_test.go Test_isSchedulableAfterPodDeleted and
#    Test_isSchedulableAfterPersistentVolumeClaimChange) --------------------------------------
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


@pytest.mark.parametrize("pod, deleted, want", [
    pytest.param(with_volume("p", GCE_FOO), with_volume("e", GCE_FOO), QUEUE,
                 id="queue-new-object-gcedisk-conflict"),
    pytest.param(with_volume("p", GCE_FOO), with_volume("e", GCE_BAR), QUEUE_SKIP,
                 id="skip-new-object-gcedisk-no-conflict"),
    pytest.param(with_volume("p", EBS_FOO), with_volume("e", EBS_FOO), QUEUE,
                 id="queue-new-object-awsdisk-conflict"),
    pytest.param(with_volume("p", EBS_FOO), with_volume("e", EBS_BAR), QUEUE_SKIP,
                 id="skip-new-object-awsdisk-no-conflict"),
    pytest.param(with_volume("p", RBD_1), with_volume("e", RBD_1), QUEUE,
                 id="queue-new-object-rbddisk-conflict"),
    pytest.param(with_volume("p", RBD_1), with_volume("e", RBD_2), QUEUE_SKIP,
                 id="skip-new-object-rbddisk-no-conflict"),
    pytest.param(with_volume("p", ISCSI_A), with_volume("e", ISCSI_A), QUEUE,
                 id="queue-new-object-iscsidisk-conflict"),
    pytest.param(with_volume("p", ISCSI_A), with_volume("e", ISCSI_B), QUEUE_SKIP,
                 id="skip-new-object-iscsidisk-no-conflict"),
    pytest.param(claim_volume(make_pod("pod1").obj(), "claim-rwop"),
                 claim_volume(make_pod("pod2").obj(), "claim-rwop"), QUEUE,
                 id="queue-has-same-claim"),
    pytest.param(claim_volume(make_pod("pod1").obj(), "claim-1-rwop"),
                 claim_volume(make_pod("pod2").obj(), "claim-2-rwop"), QUEUE_SKIP,
                 id="skip-no-same-claim"),
])
def test_is_schedulable_after_pod_deleted(pod, deleted, want):
    assert VolumeRestrictions().is_schedulable_after_pod_deleted(pod, deleted, None) == want


_ONE = claim_volume(make_pod("pod-with-one-pvc").node("node-1").obj(), "claim-with-rwx-1")
_TWO = claim_volume(make_pod("pod-with-two-pvcs").node("node-1").obj(), "claim-with-rwx-1",
                    "claim-with-rwx-2")
_OTHER_NS = claim_volume(make_pod("pod-with-one-pvc", "kube-system").node("claim-with-rwx-2").obj(),
                         "claim-with-rwx-1")
_PVC1 = pvc("claim-with-rwx-1", modes=("ReadWriteMany",))
_PVC2 = pvc("claim-with-rwx-2", modes=("ReadWriteMany",))


@pytest.mark.parametrize("pod, new, want", [
    pytest.param(_TWO, _PVC1, QUEUE, id="queue-new-object-pvc-belong-pod"),
    pytest.param(_ONE, _PVC2, QUEUE_SKIP, id="skip-new-object-unused"),
    pytest.param(_ONE, _PVC2, QUEUE_SKIP, id="skip-new-object-not-belong-pod"),
    pytest.param(_OTHER_NS, _PVC1, QUEUE_SKIP, id="skip-new-object-namespace-not-equal-pod"),
])
def test_is_schedulable_after_persistent_volume_claim_added(pod, new, want):
    got = VolumeRestrictions().is_schedulable_after_persistent_volume_claim_added(pod, None, new)
    assert got == want
