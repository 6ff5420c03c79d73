"""VolumeZone: mirrors upstream volume_zone_test.go (TestSingleZone, TestMultiZone,
TestWithBinding): PV topology labels, beta and GA, against node labels."""

import pytest

from kubesim.scheduler.framework.status import Code
from kubesim.scheduler.plugins.volumezone import ERR_REASON_CONFLICT, VolumeZone

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_filter
from .volume_builders import Store, claim_volume, pv, pvc, sc

BZ, BR = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
Z, R = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"

OBJS = [
    pv("Vol_1", labels={BZ: "us-west1-a"}), pvc("PVC_1", volume_name="Vol_1", bound=True),
    pv("Vol_2", labels={BR: "us-west1-b", "uselessLabel": "none"}), pvc("PVC_2", volume_name="Vol_2", bound=True),
    pv("Vol_3", labels={BR: "us-west1-c"}), pvc("PVC_3", volume_name="Vol_3", bound=True),
    pv("Vol_Stable_1", labels={Z: "us-west1-a"}), pvc("PVC_Stable_1", volume_name="Vol_Stable_1", bound=True),
    pv("Vol_Stable_2", labels={R: "us-west1-b", "uselessLabel": "none"}),
    pvc("PVC_Stable_2", volume_name="Vol_Stable_2", bound=True),
    pv("Vol_Multi", labels={BZ: "us-west1-b__us-west1-c"}), pvc("PVC_Multi", volume_name="Vol_Multi", bound=True),
    sc("Class_Wait"), pvc("PVC_Wait", cls="Class_Wait"),
    sc("Class_Immediate", mode="Immediate"), pvc("PVC_Immediate", cls="Class_Immediate"),
    pvc("PVC_NoClass"),
]


def node(**labels):
    w = make_node("host1")
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


CONFLICT = (Code.UnschedulableAndUnresolvable, [ERR_REASON_CONFLICT])

CASES = [
    pytest.param([], node(), "skipped", id="pod without volume"),
    pytest.param(["PVC_1"], make_node("host1").obj(), None, id="node without zone labels fits"),
    pytest.param(["PVC_1"], node(**{BZ: "us-west1-a", "uselessLabel": "none"}), None,
                 id="beta zone label matched"),
    pytest.param(["PVC_2"], node(**{BR: "us-west1-b", "uselessLabel": "none"}), None,
                 id="beta region label matched"),
    pytest.param(["PVC_2"], node(**{BR: "no_us-west1-b"}), CONFLICT, id="beta region label doesn't match"),
    pytest.param(["PVC_1"], node(**{BZ: "no_us-west1-a"}), CONFLICT, id="beta zone label doesn't match"),
    pytest.param(["PVC_Stable_1"], node(**{Z: "us-west1-a"}), None, id="zone label matched"),
    pytest.param(["PVC_Stable_2"], node(**{R: "no_us-west1-b"}), CONFLICT, id="region label doesn't match"),
    pytest.param(["PVC_1"], node(**{Z: "us-west1-a"}), None,
                 id="a PV's beta zone label matches the node's GA zone label"),
    pytest.param(["PVC_Stable_1"], node(**{BZ: "us-west1-a"}), CONFLICT,
                 id="a PV's GA zone label does not fall back to the node's beta label"),
    pytest.param(["PVC_Multi"], node(**{BZ: "us-west1-c"}), None, id="one of several zones matched"),
    pytest.param(["PVC_Multi"], node(**{BZ: "us-west1-a"}), CONFLICT, id="none of several zones matched"),
    pytest.param(["PVC_1", "PVC_3"], node(**{BZ: "us-west1-a", BR: "us-west1-b"}), CONFLICT,
                 id="every volume must match"),
    pytest.param(["PVC_Wait"], node(**{Z: "us-west1-a"}), "skipped",
                 id="an unbound WaitForFirstConsumer claim is left to VolumeBinding"),
    pytest.param(["PVC_Immediate"], node(**{Z: "us-west1-a"}),
                 (Code.UnschedulableAndUnresolvable, ["PersistentVolume had no name"]),
                 id="an unbound immediate claim has no volume yet"),
    pytest.param(["PVC_NoClass"], node(**{Z: "us-west1-a"}),
                 (Code.UnschedulableAndUnresolvable, ["PersistentVolumeClaim had no pv name and storageClass name"]),
                 id="an unbound claim without class"),
    pytest.param(["PVC_Missing"], node(**{Z: "us-west1-a"}),
                 (Code.UnschedulableAndUnresolvable, ['persistentvolumeclaim "PVC_Missing" not found']),
                 id="a claim that does not exist"),
]


@pytest.mark.parametrize("claims, node_obj, want", CASES)
def test_volume_zone(claims, node_obj, want):
    plugin = VolumeZone(handle=Store(*OBJS).handle())
    got = run_filter(plugin, claim_volume(make_pod("pod").obj(), *claims), node_obj)
    if got not in (None, "skipped"):
        got = (got.code, got.reasons)
    assert got == want


# -- queueing hints (volume_zone_test.go TestIsSchedulableAfterPersistentVolumeClaimAdded,
#    TestIsSchedulableAfterStorageClassAdded, TestIsSchedulableAfterPersistentVolumeChange) ---
from kubesim.scheduler.framework.events import QUEUE, QUEUE_SKIP  # noqa: E402


def _with_claim(claim):
    p = make_pod("pod_1").obj()
    p["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]
    return p


def _claim(ns="default", volume="Vol_1"):
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": "PVC_1", "namespace": ns},
            "spec": {"volumeName": volume}}


@pytest.mark.parametrize("pod, old, new, want", [
    pytest.param(make_pod("pod_1").obj(), None, _claim(), QUEUE_SKIP,
                 id="pvc-was-added-but-pod-refers-no-pvc"),
    pytest.param(_with_claim("PVC_2"), None, _claim(), QUEUE_SKIP,
                 id="pvc-was-added-and-pod-was-bound-to-different-pvc"),
    pytest.param(_with_claim("PVC_1"), None, _claim("ns1"), QUEUE_SKIP,
                 id="pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns"),
    pytest.param(_with_claim("PVC_1"), None, _claim(), QUEUE,
                 id="pvc-was-added-and-pod-was-bound-to-the-pvc"),
    pytest.param(_with_claim("PVC_1"), _claim(volume=""), _claim(), QUEUE,
                 id="pvc-was-updated-and-pod-was-bound-to-the-pvc"),
    pytest.param(make_pod("pod_1").obj(), _claim(volume=""), _claim(), QUEUE_SKIP,
                 id="pvc-was-updated-but-pod-refers-no-pvc"),
])
def test_is_schedulable_after_persistent_volume_claim_change(pod, old, new, want):
    got = VolumeZone().is_schedulable_after_persistent_volume_claim_change(pod, old, new)
    assert got == want


@pytest.mark.parametrize("sc, want", [
    pytest.param({"kind": "StorageClass", "metadata": {"name": "SC_1"}}, QUEUE_SKIP,
                 id="sc-doesn't-have-volume-binding-mode"),
    pytest.param({"kind": "StorageClass", "metadata": {"name": "SC_1"},
                  "volumeBindingMode": "WaitForFirstConsumer"}, QUEUE,
                 id="new-sc-is-wait-for-first-consumer-mode"),
])
def test_is_schedulable_after_storage_class_added(sc, want):
    assert VolumeZone().is_schedulable_after_storage_class_added(_with_claim("PVC_1"), None,
                                                                  sc) == want


_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
_GA_ZONE = "topology.kubernetes.io/zone"


def _pv(labels):
    return {"kind": "PersistentVolume", "metadata": {"name": "Vol_1", "labels": labels}}


@pytest.mark.parametrize("old, new, want", [
    pytest.param(None, _pv({_BETA_ZONE: "us-west1-b"}), QUEUE, id="new-pv-was-added"),
    pytest.param(_pv({_BETA_ZONE: "us-west1-a"}), _pv({_BETA_ZONE: "us-west1-b"}), QUEUE,
                 id="pv-was-updated-and-changed-topology"),
    pytest.param(_pv({_BETA_ZONE: "us-west1-a"}), _pv({_BETA_ZONE: "us-west1-a", _GA_ZONE: "zone"}),
                 QUEUE, id="pv-was-updated-and-added-topology-label"),
    pytest.param(_pv({_BETA_ZONE: "us-west1-a", _GA_ZONE: "zone"}),
                 _pv({_BETA_ZONE: "us-west1-a", _GA_ZONE: "zone"}), QUEUE_SKIP,
                 id="pv-was-updated-but-no-topology-is-changed"),
])
def test_is_schedulable_after_persistent_volume_change(old, new, want):
    got = VolumeZone().is_schedulable_after_persistent_volume_change(_with_claim("PVC_1"), old, new)
    assert got == want
