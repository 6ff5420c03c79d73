"""The downward API in a container's environment (pkg/kubelet/kubelet_pods.go
podFieldSelectorRuntimeValue): the fieldRef paths kubesim resolves."""

import pytest

from kubesim.kubelet.envvars import field_value, with_field_refs

POD = {"metadata": {"name": "pi-1-abcde", "namespace": "default", "uid": "u1",
                    "labels": {"batch.kubernetes.io/job-completion-index": "1"}, "annotations": {"a": "b"}},
       "spec": {"nodeName": "node01", "serviceAccountName": "default"},
       "status": {"hostIP": "192.168.0.11", "podIP": "10.244.1.5"}}


@pytest.mark.parametrize("path,value", [
    ("metadata.name", "pi-1-abcde"), ("metadata.namespace", "default"), ("metadata.uid", "u1"),
    ("metadata.labels['batch.kubernetes.io/job-completion-index']", "1"), ("metadata.annotations['a']", "b"),
    ("metadata.labels['missing']", ""), ("spec.nodeName", "node01"), ("spec.serviceAccountName", "default"),
    ("status.hostIP", "192.168.0.11"), ("status.podIP", "10.244.1.5"), ("status.podIPs", None),
])
def test_field_values(path, value):
    assert field_value(POD, path) == value


def test_the_completion_index_reaches_the_environment():
    c = {"name": "c", "env": [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}, {"name": "X", "value": "y"}]}
    assert with_field_refs(c, POD)["env"] == [{"name": "JOB_COMPLETION_INDEX", "value": "1"}, {"name": "X", "value": "y"}]
    assert c["env"][0]["valueFrom"]  # the pod's own spec is left as it is
    plain = {"name": "c", "env": [{"name": "X", "value": "y"}]}
    assert with_field_refs(plain, POD) is plain
