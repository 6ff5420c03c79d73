"""The Deployment arithmetic, table-driven after pkg/controller/deployment/util/deployment_util_test.go."""

import pytest

from kubesim.api.apps import deployment_util as adu
from kubesim.controllers import deployment_util as du
from kubesim.controllers.base import IntOrStringError


def dep(replicas, max_surge=1, max_unavailable=1, strategy="RollingUpdate"):
    spec = {"replicas": replicas, "strategy": {"type": strategy}}
    if strategy == "RollingUpdate":
        spec["strategy"]["rollingUpdate"] = {"maxSurge": max_surge, "maxUnavailable": max_unavailable}
    return {"metadata": {"name": "nginx", "generation": 1}, "spec": spec}


def rs(replicas, name="rs", created="2026-11-22T10:00:00Z", annotations=None, available=0):
    return {"metadata": {"name": name, "creationTimestamp": created, "annotations": annotations or {}},
            "spec": {"replicas": replicas}, "status": {"availableReplicas": available}}


@pytest.mark.parametrize("strategy,dep_replicas,new_rs_replicas,max_surge,expected", [
    ("RollingUpdate", 1, 5, 1, 5),
    ("RollingUpdate", 6, 2, 10, 6),
    ("Recreate", 3, 1, 1, 3),
], ids=["can not scale up - to newRSReplicas", "scale up - to depReplicas", "recreate - to depReplicas"])
def test_new_rs_new_replicas(strategy, dep_replicas, new_rs_replicas, max_surge, expected):
    # TestNewRSNewReplicas: all ReplicaSets = one of 5 replicas, plus the new one
    d = dep(dep_replicas, max_surge=max_surge, strategy=strategy)
    if strategy == "Recreate":
        d["spec"]["strategy"]["rollingUpdate"] = {"maxSurge": max_surge}
    assert du.new_rs_new_replicas(d, [rs(5, "rs5")], rs(new_rs_replicas, "new")) == expected


@pytest.mark.parametrize("replicas,max_unavailable,strategy,expected", [
    (10, 5, "RollingUpdate", 5),
    (10, 10, "RollingUpdate", 10),
    (5, 10, "RollingUpdate", 5),
    (0, 10, "RollingUpdate", 0),
    (1, 1, "Recreate", 0),
    (10, "50%", "RollingUpdate", 5),
    (10, "100%", "RollingUpdate", 10),
    (5, "100%", "RollingUpdate", 5),
], ids=["maxUnavailable less than replicas", "maxUnavailable equal replicas", "maxUnavailable greater than replicas",
        "maxUnavailable with replicas is 0", "maxUnavailable with Recreate deployment strategy",
        "maxUnavailable less than replicas with percents", "maxUnavailable equal replicas with percents",
        "maxUnavailable greater than replicas with percents"])
def test_max_unavailable(replicas, max_unavailable, strategy, expected):
    assert du.max_unavailable(dep(replicas, 1, max_unavailable, strategy)) == expected


@pytest.mark.parametrize("surge,unavailable,desired,expected", [
    ("0%", "0%", 0, (0, 1)),
    ("39%", "39%", 10, (4, 3)),
    (None, "39%", 10, (0, 3)),
    ("25%", "25%", 3, (1, 0)),
    ("25%", "25%", 4, (1, 1)),
    ("25%", "25%", 1, (1, 0)),
], ids=["both zero resolve to one unavailable",
        "surge rounds up (3.9 -> 4) and unavailable rounds down (3.9 -> 3)",
        "an absent surge is zero",
        "the defaults on 3 replicas: surge 0.75 -> 1, unavailable 0.75 -> 0",
        "the defaults on 4 replicas: one each",
        "the defaults on 1 replica: surge one, none unavailable"])
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    assert du.resolve_fenceposts(surge, unavailable, desired) == expected


@pytest.mark.parametrize("surge,unavailable", [("oops", "39%"), ("55%", "urg")],
                         ids=["a bad maxSurge is an error", "a bad maxUnavailable is an error"])
def test_resolve_fenceposts_errors(surge, unavailable):
    with pytest.raises(IntOrStringError):
        du.resolve_fenceposts(surge, unavailable, 10)


@pytest.mark.parametrize("d_replicas,rs_replicas,max_replicas_ann,to_add,added,expected", [
    # fraction = round(rs * (d + surge) / annotated) - rs
    (10, 5, "11", 4, 0, 0),   # 5*11/11 = 5 -> 0
    (12, 5, "11", 2, 0, 1),   # 5*13/11 = 5.9 -> 6 -> +1, min(1, allowed 2)
    (12, 5, "11", 2, 2, 0),   # everything already added
    (8, 5, "11", -2, 0, -1),  # 5*9/11 = 4.09 -> 4 -> -1, max(-1, -2)
    (0, 5, "11", -5, 0, -5),  # scaling to zero: the whole replica set
], ids=["the annotation matches the new size: nothing to add",
        "scaling up gives a replica set its share, rounded half away from zero",
        "no share once the total has been added",
        "scaling down takes a replica set's share",
        "scaling to zero takes everything"])
def test_get_proportion(d_replicas, rs_replicas, max_replicas_ann, to_add, added, expected):
    d = dep(d_replicas, max_surge=1, max_unavailable=0)
    r = rs(rs_replicas, annotations={du.MAX_REPLICAS: max_replicas_ann})
    assert du.get_proportion(r, d, to_add, added) == expected


@pytest.mark.parametrize("d_replicas,status_replicas,max_surge,rs_replicas,annotations,expected", [
    (0, 0, 0, 10, None, -10),
    (10, 0, 0, 5, None, 0),
    (10, 0, 0, 5, {du.MAX_REPLICAS: "0"}, 0),
    (120, 100, 0, 50, None, 10),
    (120, 100, 0, 50, {du.MAX_REPLICAS: "0"}, 10),
    (120, 0, 0, 50, {du.MAX_REPLICAS: "100"}, 10),
    (120, 0, 10, 50, {du.MAX_REPLICAS: "110"}, 9),
    (10, 0, 0, 6, {du.MAX_REPLICAS: "12"}, -1),
    (100, 0, 10, 50, {du.MAX_REPLICAS: "130"}, -8),
    (120, 100, 0, 50, {du.MAX_REPLICAS: "-100"}, 10),
], ids=["empty deployment always scales to 0",
        "unsynced deployment does not scale when max-replicas annotation is missing",
        "unsynced deployment does not scale when max-replicas annotation is incorrectly set to 0",
        "scale up by 1/5 when max-replicas annotation is missing",
        "scale up by 1/5 when max-replicas annotation is incorrectly set to 0",
        "scale up by 1/5 should increase RS replicas by 1/5",
        "scale up with maxSurge by 1/5 should increase RS replicas approximately by 1/5",
        "scale down by 1/6 should decrease RS replicas by 1/6",
        "scale down with maxSurge by 1/6 should decrease RS replicas approximately by 1/6",
        "a negative max-replicas annotation is not a number of replicas either"])
def test_get_replicaset_fraction(d_replicas, status_replicas, max_surge, rs_replicas, annotations, expected):
    # TestGetReplicaSetFraction
    d = dep(d_replicas, max_surge=max_surge, max_unavailable=1)
    d["status"] = {"replicas": status_replicas}
    assert du._replicaset_fraction(rs(rs_replicas, annotations=annotations), d) == expected


@pytest.mark.parametrize("annotations,expected", [
    ({}, None),
    ({"test": "invalid", "foo": "2"}, None),
    ({"test": "-1", "foo": "2"}, None),
    ({"test": "0", "foo": "2"}, 0),
    ({"test": "13", "foo": "2"}, 13),
    ({"test": "2147483647", "foo": "2"}, 2147483647),
    ({"test": "2147483648", "foo": "2"}, None),
    ({"test": "4294967296", "foo": "2"}, None),
    ({"test": "+13"}, None),
    ({"test": " 13"}, None),
    ({"test": "1_3"}, None),
], ids=["invalid empty", "invalid", "invalid negative", "valid zero", "valid", "valid max",
        "invalid max out of range", "invalid max out of range 2", "no sign", "no space", "no underscore"])
def test_get_non_negative_int32_from_annotation(annotations, expected):
    # TestGetNonNegativeInt32FromAnnotation (the last three: what ParseUint refuses and int() takes)
    assert du.nonnegative_int32_annotation(rs(1, annotations=annotations), "test") == expected


@pytest.mark.parametrize("desired,expected", [("3", True), ("+3", True), ("4", False), ("x", False), (None, False)],
                         ids=["saturated", "Atoi takes a sign", "wants another size", "not a number",
                              "no annotation"])
def test_is_saturated(desired, expected):
    r = rs(3, annotations={du.DESIRED_REPLICAS: desired} if desired is not None else {}, available=3)
    assert du.is_saturated(dep(3), r) is expected


@pytest.mark.parametrize("status,expected", [
    ({"replicas": 3, "updatedReplicas": 3, "availableReplicas": 3, "observedGeneration": 1}, True),
    ({"replicas": 4, "updatedReplicas": 3, "availableReplicas": 3, "observedGeneration": 1}, False),
    ({"replicas": 3, "updatedReplicas": 3, "availableReplicas": 2, "observedGeneration": 1}, False),
    ({"replicas": 3, "updatedReplicas": 3, "availableReplicas": 3, "observedGeneration": 0}, False),
], ids=["complete when everything is updated and available", "not complete while old pods run",
        "not complete while a pod is unavailable", "not complete before the generation is observed"])
def test_deployment_complete(status, expected):
    assert du.deployment_complete(dep(3), status) is expected


@pytest.mark.parametrize("old,new,expected", [
    ({"updatedReplicas": 1}, {"updatedReplicas": 2}, True),
    ({"replicas": 4, "updatedReplicas": 2}, {"replicas": 3, "updatedReplicas": 2}, True),
    ({"readyReplicas": 1}, {"readyReplicas": 2}, True),
    ({"availableReplicas": 1}, {"availableReplicas": 2}, True),
    ({"replicas": 3, "updatedReplicas": 1, "availableReplicas": 2}, {"replicas": 3, "updatedReplicas": 1, "availableReplicas": 2}, False),
], ids=["more updated pods is progress", "fewer old pods is progress", "more ready pods is progress",
        "more available pods is progress", "the same status is no progress"])
def test_deployment_progressing(old, new, expected):
    d = dep(3)
    d["status"] = old
    assert du.deployment_progressing(d, new) is expected


def test_set_new_replicaset_annotations_copies_change_cause_and_keeps_revision_history():
    d = dep(3)
    d["metadata"]["annotations"] = {"kubernetes.io/change-cause": "v2", adu.REVISION: "9",
                                   adu.LAST_APPLIED: "{}"}
    r = rs(3, annotations={adu.REVISION: "1"})
    assert du.set_new_replicaset_annotations(d, r, "3", True)
    ann = r["metadata"]["annotations"]
    assert ann["kubernetes.io/change-cause"] == "v2"
    assert ann[adu.REVISION] == "3" and ann[adu.REVISION_HISTORY] == "1"
    assert adu.LAST_APPLIED not in ann
