"""PV/PVC matching rules: mirrors upstream pkg/controller/volume/persistentvolume/index_test.go
(TestMatchVolume, TestFindingPreboundVolumes, TestVolumeModeCheck, TestAllPossibleAccessModes
as findBestMatchForClaim's fewest-modes-first order) and component-helpers
storage/volume pv_helpers_test.go (FindMatchingVolume with a node, CheckNodeAffinity)."""

import pytest

from kubesim.api import volumes as V


def pv(name, size, modes=("ReadWriteOnce",), cls="", labels=None, claim=None, phase="Available",
       mode=None, hostnames=None, deleting=False):
    obj = {"apiVersion": "v1", "kind": "PersistentVolume",
           "metadata": {"name": name, "labels": dict(labels or {})},
           "spec": {"capacity": {"storage": size}, "accessModes": list(modes)},
           "status": {"phase": phase}}
    if cls:
        obj["spec"]["storageClassName"] = cls
    if claim is not None:
        obj["spec"]["claimRef"] = dict(claim)
    if mode:
        obj["spec"]["volumeMode"] = mode
    if hostnames:
        obj["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": list(hostnames)}]}]}}
    if deleting:
        obj["metadata"]["deletionTimestamp"] = "2026-11-22T10:00:00Z"
    return obj


def pvc(name="claim01", size="1G", modes=("ReadWriteOnce",), cls=None, selector=None, mode=None,
        uid="uid-claim01", volume_name=None, namespace="myns"):
    obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": namespace, "uid": uid},
           "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}}
    if cls is not None:
        obj["spec"]["storageClassName"] = cls
    if selector is not None:
        obj["spec"]["selector"] = selector
    if mode:
        obj["spec"]["volumeMode"] = mode
    if volume_name:
        obj["spec"]["volumeName"] = volume_name
    return obj


def node(name, **labels):
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}}}


OTHER = {"name": "someone-else", "namespace": "myns", "uid": "uid-other"}
MINE = {"name": "claim01", "namespace": "myns", "uid": "uid-claim01"}

# index_test.go createTestVolumes, reduced: GCE PDs (RWO,ROX), NFS (RWO,ROX,RWX), labelled and
# classed volumes, and very large ones
VOLUMES = [
    pv("gce-pd-1", "1G", ("ReadWriteOnce", "ReadOnlyMany"), claim=OTHER, phase="Bound"),
    pv("gce-pd-5", "5G", ("ReadWriteOnce", "ReadOnlyMany")),
    pv("gce-pd-10", "10G", ("ReadWriteOnce", "ReadOnlyMany")),
    pv("gce-pd-20", "20G", ("ReadWriteOnce", "ReadOnlyMany")),
    pv("nfs-1", "1G", ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")),
    pv("nfs-5", "5G", ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")),
    pv("nfs-10", "10G", ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")),
    pv("gce-pd-silver1", "10000G", ("ReadWriteOnce",), cls="silver",
       labels={"should-exist": "true"}),
    pv("gce-pd-silver2", "100G", ("ReadWriteOnce",), cls="silver"),
    pv("gce-pd-gold", "50G", ("ReadWriteOnce",), cls="gold"),
    pv("gce-pd-labelled", "10G", ("ReadWriteOnce", "ReadOnlyMany"), labels={"should-exist": "true"}),
    pv("gce-pd-huge", "8E", ("ReadWriteOnce", "ReadOnlyMany")),
]

MATCH_CASES = [
    pytest.param(pvc(size="8G", modes=("ReadOnlyMany", "ReadWriteOnce")), "gce-pd-10",
                 id="the smallest GCE PD of at least 8G is chosen for RWO+ROX"),
    pytest.param(pvc(size="5G", modes=("ReadOnlyMany", "ReadWriteOnce", "ReadWriteMany")), "nfs-5",
                 id="a claim for all three modes gets an NFS volume of the exact size"),
    pytest.param(pvc(size="1G", modes=("ReadOnlyMany", "ReadWriteOnce")), "gce-pd-5",
                 id="a volume bound to another claim is skipped"),
    pytest.param(pvc(size="999G", modes=("ReadOnlyMany",)), "gce-pd-huge",
                 id="a very large request still fits the huge volume"),
    pytest.param(pvc(size="9E", modes=("ReadOnlyMany",)), None,
                 id="a request larger than every volume matches nothing"),
    pytest.param(pvc(size="1G", modes=("ReadWriteOnce",),
                     selector={"matchLabels": {"should-not-exist": "true"}}), None,
                 id="a selector no volume's labels match matches nothing"),
    pytest.param(pvc(size="20000G", modes=("ReadWriteOnce",),
                     selector={"matchLabels": {"should-exist": "true"}}), None,
                 id="a labelled volume that is too small does not match"),
    pytest.param(pvc(size="8G", modes=("ReadWriteOnce",),
                     selector={"matchLabels": {"should-exist": "true"}}), "gce-pd-labelled",
                 id="the labelled volume of the claim's (empty) class matches the selector"),
    pytest.param(pvc(size="1G", modes=("ReadWriteOnce",), cls="silver"), "gce-pd-silver2",
                 id="only volumes of the claim's class match, the smallest first"),
    pytest.param(pvc(size="1G", modes=("ReadWriteOnce",), cls="silver",
                     selector={"matchLabels": {"should-exist": "true"}}), "gce-pd-silver1",
                 id="class and selector both constrain the match"),
    pytest.param(pvc(size="1G", modes=("ReadWriteOnce",), cls="bronze"), None,
                 id="a class no volume has matches nothing"),
]


@pytest.mark.parametrize("claim, want", MATCH_CASES)
def test_find_best_match_for_claim(claim, want):
    got = V.find_best_match_for_claim(claim, VOLUMES)
    assert (got["metadata"]["name"] if got else None) == want


def test_the_access_mode_set_with_the_fewest_modes_is_searched_first():
    # index.go allPossibleMatchingAccessModes: an RWO-only volume beats a smaller RWO+ROX one
    vols = [pv("ebs-10", "10G", ("ReadWriteOnce",)), pv("gce-5", "5G", ("ReadWriteOnce", "ReadOnlyMany"))]
    assert V.find_best_match_for_claim(pvc(size="1G"), vols)["metadata"]["name"] == "ebs-10"
    # but a claim asking for ROX too can only use the second set
    claim = pvc(size="1G", modes=("ReadWriteOnce", "ReadOnlyMany"))
    assert V.find_best_match_for_claim(claim, vols)["metadata"]["name"] == "gce-5"


PREBOUND_CASES = [
    pytest.param([pv("pv1", "1Gi", claim=MINE, phase="Available"), pv("pv2", "1Gi")], "pv1",
                 id="a volume pre-bound to the claim wins over an available one"),
    pytest.param([pv("pv1", "1Gi", claim={"name": "claim01", "namespace": "myns"}), pv("pv2", "1Gi")], "pv1",
                 id="a claimRef without uid still pre-binds by namespace and name"),
    pytest.param([pv("pv8", "512Mi", claim=MINE), pv("pv2", "1Gi")], "pv2",
                 id="a pre-bound volume that is too small is skipped"),
    pytest.param([pv("pv1", "1Gi", claim={**MINE, "uid": "uid-old"}), pv("pv2", "1Gi")], "pv2",
                 id="a claimRef to an older claim of the same name (other uid) does not pre-bind"),
    pytest.param([pv("pv1", "1Gi", phase="Released"), pv("pv3", "2Gi")], "pv3",
                 id="volumes that are not Available are skipped"),
    pytest.param([pv("pv1", "1Gi", deleting=True), pv("pv3", "2Gi")], "pv3",
                 id="a volume being deleted is skipped"),
]


@pytest.mark.parametrize("volumes, want", PREBOUND_CASES)
def test_finding_prebound_volumes(volumes, want):
    got = V.find_best_match_for_claim(pvc(size="1Gi"), volumes)
    assert (got["metadata"]["name"] if got else None) == want


def test_delay_binding_returns_only_prebound_volumes():
    vols = [pv("pv1", "1Gi")]
    assert V.find_best_match_for_claim(pvc(size="1Gi"), vols, delay_binding=True) is None
    vols.append(pv("pv2", "1Gi", claim=MINE))
    assert V.find_best_match_for_claim(pvc(size="1Gi"), vols, delay_binding=True)["metadata"]["name"] == "pv2"


VOLUME_MODE_CASES = [
    pytest.param(None, None, False, id="both unset default to Filesystem"),
    pytest.param("Block", "Block", False, id="block claim and block volume match"),
    pytest.param("Filesystem", "Block", True, id="filesystem claim and block volume mismatch"),
    pytest.param("Block", None, True, id="block claim and a volume without mode mismatch"),
]


@pytest.mark.parametrize("claim_mode, pv_mode, mismatch", VOLUME_MODE_CASES)
def test_volume_mode_check(claim_mode, pv_mode, mismatch):
    claim, vol = pvc(mode=claim_mode), pv("pv", "1G", mode=pv_mode)
    assert V.volume_mode_mismatch(claim, vol) is mismatch
    assert (V.find_best_match_for_claim(claim, [vol]) is None) is mismatch


NODE_CASES = [
    pytest.param([pv("local-1", "5Gi", hostnames=["node02"])], "node02", "local-1",
                 id="a local volume matches on its node"),
    pytest.param([pv("local-1", "5Gi", hostnames=["node02"])], "node01", None,
                 id="a local volume does not match on another node"),
    pytest.param([pv("local-1", "5Gi", hostnames=["node02"], claim=MINE)], "node01", None,
                 id="a pre-bound volume whose affinity excludes the node means no match at all"),
    pytest.param([pv("rwx-only", "5Gi", ("ReadWriteMany",))], "node01", None,
                 id="on the scheduler's path the access modes must cover the claim's"),
    pytest.param([pv("a", "5Gi", hostnames=["node01"]), pv("b", "2Gi", hostnames=["node01"])], "node01", "b",
                 id="the smallest volume the node can reach is chosen"),
]


@pytest.mark.parametrize("volumes, node_name, want", NODE_CASES)
def test_find_matching_volume_with_a_node(volumes, node_name, want):
    got = V.find_matching_volume(pvc(size="1Gi"), volumes, node(node_name), set(), True)
    assert (got["metadata"]["name"] if got else None) == want


def test_excluded_volumes_are_not_chosen_twice():
    vols = [pv("a", "1Gi"), pv("b", "2Gi")]
    assert V.find_matching_volume(pvc(size="1Gi"), vols, node("n"), {"a"}, True)["metadata"]["name"] == "b"


def test_bind_volume_to_claim_sets_claim_ref_and_bound_by_controller():
    new, dirty = V.bind_volume_to_claim(pv("pv1", "1Gi"), pvc())
    assert dirty
    assert new["spec"]["claimRef"] == {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": "claim01",
                                       "namespace": "myns", "uid": "uid-claim01"}
    assert new["metadata"]["annotations"] == {V.ANN_BOUND_BY_CONTROLLER: "yes"}
    # pre-bound by the user: the uid is filled in, no bound-by-controller annotation
    new, dirty = V.bind_volume_to_claim(pv("pv1", "1Gi", claim={"name": "claim01", "namespace": "myns"}), pvc())
    assert dirty and new["spec"]["claimRef"]["uid"] == "uid-claim01"
    assert V.ANN_BOUND_BY_CONTROLLER not in (new["metadata"].get("annotations") or {})


@pytest.mark.parametrize("terms, labels, want", [
    pytest.param(None, {}, True, id="no allowed topologies allows every node"),
    pytest.param([{"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}], {"zone": "b"}, True,
                 id="a node with one of the values is allowed"),
    pytest.param([{"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}], {"zone": "b"}, False,
                 id="a node with another value is not"),
    pytest.param([{"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
                  {"matchLabelExpressions": [{"key": "rack", "values": ["r1"]}]}], {"rack": "r1"}, True,
                 id="terms are ORed"),
])
def test_match_topology_selector_terms(terms, labels, want):
    assert V.match_topology_selector_terms(terms, labels) is want


def _vac(obj, name):
    if name is not None:
        obj["spec"]["volumeAttributesClassName"] = name
    return obj


# pv_helpers.go FindMatchingVolume: with VolumeAttributesClass (GA in v1.34) the volume's
# class must equal the claim's, an unset name being ""
VAC_CASES = [
    pytest.param(None, None, "pv-1", id="neither names a volume attributes class"),
    pytest.param("gold", "gold", "pv-1", id="the same volume attributes class"),
    pytest.param("gold", None, None, id="the claim asks for a class the volume lacks"),
    pytest.param(None, "gold", None, id="the volume has a class the claim did not ask for"),
    pytest.param("gold", "silver", None, id="different volume attributes classes"),
]


@pytest.mark.parametrize("claim_vac, pv_vac, want", VAC_CASES)
def test_the_volume_attributes_class_must_match(claim_vac, pv_vac, want):
    claim = _vac(pvc(size="1G"), claim_vac)
    volume = _vac(pv("pv-1", "5G"), pv_vac)
    got = V.find_matching_volume(claim, [volume])
    assert (got["metadata"]["name"] if got else None) == want
    got = V.find_matching_volume(claim, [volume], node("node01"), None, True)
    assert (got["metadata"]["name"] if got else None) == want
