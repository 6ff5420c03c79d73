"""The scheduler's resource names (after pkg/apis/core/v1/helper helpers_test.go)."""

import pytest

from kubesim.scheduler.framework.pod_resources import is_scalar_resource_name


@pytest.mark.parametrize("name, scalar", [
    ("cpu", False), ("memory", False), ("pods", False), ("ephemeral-storage", False),
    ("example.com/gpu", True), ("hugepages-2Mi", True), ("kubernetes.io/something", True),
    ("attachable-volumes-csi-x", True), ("requests.example.com/x", False),
])
def test_scalar_resource_names(name, scalar):
    assert is_scalar_resource_name(name) is scalar
