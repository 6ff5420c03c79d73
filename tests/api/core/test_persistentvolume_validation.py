"""PersistentVolume and PersistentVolumeClaim validation (pkg/apis/core/validation), with the API
server's messages, on the object as the server prepares it.

The capacity texts print the internal ResourceList as json.Marshal writes it; they were checked
against a real v1.35 API server (``kubectl apply --dry-run=server``)."""

import pytest

from tests.api.builders import bound_and, errors_of, pv, pvc, set_path, update_errors

CREATE = [
    ("a host path volume", pv(), []),
    ("a volume without access modes", pv(drop=["accessModes"]), ["spec.accessModes: Required value"]),
    ("an unknown access mode", pv({"accessModes": ["ReadWriteSometimes"]}),
     ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", '
      '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']),
    ("ReadWriteOncePod with another mode", pv({"accessModes": ["ReadWriteOncePod", "ReadWriteOnce"]}),
     ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"]),
    ("a volume without capacity", pv(drop=["capacity"]),
     ["spec.capacity: Required value",
      'spec.capacity: Unsupported value: null: supported values: "storage"']),
    ("an empty capacity", pv({"capacity": {}}),
     ["spec.capacity: Required value",
      'spec.capacity: Unsupported value: {}: supported values: "storage"']),
    ("a capacity of another resource", pv({"capacity": {"storage": "1Gi", "cpu": "1"}}),
     ['spec.capacity: Unsupported value: {"cpu":"1","storage":"1Gi"}: supported values: "storage"']),
    ("a zero capacity", pv({"capacity": {"storage": "0"}}),
     ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']),
    ("an unknown reclaim policy", pv({"persistentVolumeReclaimPolicy": "Keep"}),
     ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", '
      '"Retain"']),
    ("a volume without a source", pv(drop=["hostPath"]), ["spec: Required value: must specify a volume type"]),
    ("a volume with two sources", pv({"nfs": {"server": "s", "path": "/x"}}),
     ["spec.nfs: Forbidden: may not specify more than 1 volume type"]),
    ("a host path without a path", pv({"hostPath": {}}), ["spec.hostPath.path: Required value"]),
    ("a local volume without node affinity", pv({"local": {"path": "/mnt"}}, drop=["hostPath"]),
     ["spec.nodeAffinity: Required value: Local volume requires node affinity"]),
    ("a node affinity without required terms", pv({"nodeAffinity": {"required": {"nodeSelectorTerms": []}}}),
     ["spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term"]),
    ("a recycled host path of /", pv({"hostPath": {"path": "/"}, "persistentVolumeReclaimPolicy": "Recycle"}),
     ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]),
    ("a bad storage class name", pv({"storageClassName": "Fast"}),
     ['spec.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case '
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ("an unknown volume mode", pv({"volumeMode": "Raw"}),
     ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']),
    ("a csi volume without driver or handle", pv({"csi": {}}, drop=["hostPath"]),
     ["spec.csi.driver: Required value", "spec.csi.volumeHandle: Required value"]),
    ("a claim", pvc(), []),
    ("a claim without access modes", pvc(drop=["accessModes"]),
     ["spec.accessModes: Required value: at least 1 access mode is required"]),
    ("a claim without a storage request", pvc({"resources": {}}), ["spec.resources[storage]: Required value"]),
    ("a claim for zero bytes", pvc({"resources": {"requests": {"storage": "0"}}}),
     ['spec.resources[storage]: Invalid value: "0": must be greater than zero']),
    ("a claim with an unknown volume mode", pvc({"volumeMode": "Raw"}),
     ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']),
    ("a data source of a core kind other than a claim", pvc({"dataSource": {"kind": "Pod", "name": "x"}}),
     ['spec.dataSource: Invalid value: "Pod": must be \'PersistentVolumeClaim\' when referencing the default '
      "apiGroup"]),
]


@pytest.mark.parametrize("obj, expected", [(o, e) for _, o, e in CREATE], ids=[i for i, _, _ in CREATE])
def test_validation_on_create(obj, expected):
    assert errors_of(obj) == expected


CLAIM_IMMUTABLE = ("spec: Forbidden: spec is immutable after creation except resources.requests and "
                   "volumeAttributesClassName for bound claims\n")


def hunk(*lines: str) -> str:
    """diff.Diff's text of the internal specs: the lines, each ending in a newline. The update
    texts are v1.35's own ValidatePersistentVolume(Claim)Update's, run in Go on the same objects."""
    return "".join(line + "\n" for line in lines)


UPDATE = [
    ("a pending claim's storage request cannot change", pvc(), set_path(["spec", "resources", "requests", "storage"], "2Gi"),
     [CLAIM_IMMUTABLE + hunk("@@ -6,7 +6,7 @@",
                             '  "Resources": {',
                             '   "Limits": null,',
                             '   "Requests": {',
                             '-   "storage": "1Gi"',
                             '+   "storage": "2Gi"',
                             "   }",
                             "  },",
                             '  "VolumeName": "",')]),
    ("a bound claim's storage request grows", pvc({"volumeName": "pv1"}), bound_and(
        set_path(["spec", "resources", "requests", "storage"], "2Gi")), []),
    ("a bound claim's storage request shrinks to its capacity", pvc({"volumeName": "pv1"}), bound_and(
        set_path(["spec", "resources", "requests", "storage"], "500Mi")),
     ["spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"]),
    ("a claim's access modes change", pvc(), set_path(["spec", "accessModes"], ["ReadWriteMany"]),
     [CLAIM_IMMUTABLE + hunk("@@ -1,6 +1,6 @@",
                             " {",
                             '  "AccessModes": [',
                             '-  "ReadWriteOnce"',
                             '+  "ReadWriteMany"',
                             "  ],",
                             '  "Selector": null,',
                             '  "Resources": {')]),
    ("a claim's volume mode changes", pvc(), set_path(["spec", "volumeMode"], "Block"),
     [CLAIM_IMMUTABLE + hunk("@@ -11,7 +11,7 @@",
                             "  },",
                             '  "VolumeName": "",',
                             '  "StorageClassName": null,',
                             '- "VolumeMode": "Filesystem",',
                             '+ "VolumeMode": "Block",',
                             '  "DataSource": null,',
                             '  "DataSourceRef": null,',
                             '  "VolumeAttributesClassName": null'),
      'volumeMode: Invalid value: "Block": field is immutable']),
    ("a claim gets its volume name once", pvc(), set_path(["spec", "volumeName"], "pv1"), []),
    ("a claim without a class gets one", pvc(), set_path(["spec", "storageClassName"], "standard"), []),
    ("a volume's source changes", pv(), set_path(["spec", "hostPath", "path"], "/other"),
     ["spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n"
      + hunk("@@ -2,7 +2,7 @@",
             '  "GCEPersistentDisk": null,',
             '  "AWSElasticBlockStore": null,',
             '  "HostPath": {',
             '-  "Path": "/data",',
             '+  "Path": "/other",',
             '   "Type": ""',
             "  },",
             '  "Glusterfs": null,')]),
    ("a volume's capacity grows", pv(), set_path(["spec", "capacity", "storage"], "2Gi"), []),
    ("a volume's mode changes", pv(), set_path(["spec", "volumeMode"], "Block"),
     ['volumeMode: Invalid value: "Block": field is immutable']),
    ("a volume's node affinity changes", pv({"nodeAffinity": {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a"]}]}]}}}),
     set_path(["spec", "nodeAffinity", "required", "nodeSelectorTerms"],
              [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["b"]}]}]),
     ['nodeAffinity: Invalid value: {"Required":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"k","Operator":"In",'
      '"Values":["b"]}],"MatchFields":null}]}}: field is immutable, except for updating from beta label to GA']),
]


@pytest.mark.parametrize("obj, mutate, expected", [(o, m, e) for _, o, m, e in UPDATE], ids=[i for i, *_ in UPDATE])
def test_validation_on_update(obj, mutate, expected):
    assert update_errors(obj, mutate) == expected
