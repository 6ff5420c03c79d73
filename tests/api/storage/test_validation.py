"""StorageClass and CSINode validation (pkg/apis/storage/validation), with the API server's
messages, on the object as the server prepares it."""

import pytest

from tests.api.builders import csinode, errors_of, sc, set_path, update_errors

CREATE = [
    ("a storage class", sc(), []),
    ("a storage class without provisioner", sc(provisioner=""), ["provisioner: Required value"]),
    ("an unknown reclaim policy for a class", sc(reclaimPolicy="Recycle"),
     ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']),
    ("an unknown binding mode", sc(volumeBindingMode="Later"),
     ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']),
    ("an empty parameter key", sc(parameters={"": "x"}), ['parameters: Invalid value: "": field can not be empty.']),
    ("an allowed topology without values", sc(allowedTopologies=[{"matchLabelExpressions": [{"key": "zone"}]}]),
     ["allowedTopologies[0].matchLabelExpressions[0].values: Required value"]),
    ("an allowed topology without expressions", sc(allowedTopologies=[{}]),
     ["allowedTopologies[0].matchLabelExpressions: Required value: must have at least one label selector"]),
    ("the same allowed topology twice", sc(allowedTopologies=[
        {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
        {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]),
     ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']),
    ("a csi node", csinode([{"name": "d", "nodeID": "n"}]), []),
    ("a csi node driver without node id", csinode([{"name": "d"}]),
     ["spec.drivers[0].nodeID: Required value"]),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


UPDATE = [
    ("a storage class provisioner change", sc(), set_path(["provisioner"], "other.io/x"),
     ["provisioner: Forbidden: updates to provisioner are forbidden."]),
    ("a storage class parameters change", sc(), set_path(["parameters"], {"type": "gp3"}),
     ["parameters: Forbidden: updates to parameters are forbidden."]),
    ("a storage class reclaim policy change", sc(), set_path(["reclaimPolicy"], "Retain"),
     ["reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."]),
    ("a storage class binding mode change", sc(), set_path(["volumeBindingMode"], "WaitForFirstConsumer"),
     ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable']),
    ("a storage class expansion change", sc(), set_path(["allowVolumeExpansion"], True), []),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    assert update_errors(obj, mutate) == expected
