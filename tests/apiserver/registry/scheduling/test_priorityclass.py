"""The PriorityClass strategy (pkg/registry/scheduling/priorityclass): generation, the scheme's
preemptionPolicy default, and the system classes the storage refuses to delete."""

import pytest

from kubesim.apiserver.registry import for_kind
from kubesim.errors import Forbidden
from tests.api.builders import created, pc


def test_priority_class_defaults():
    obj = created(pc())
    assert obj["preemptionPolicy"] == "PreemptLowerPriority" and obj["metadata"]["generation"] == 1
    assert "globalDefault" not in obj


@pytest.mark.parametrize("kind, name, refused", [
    ("PriorityClass", "system-node-critical", True), ("PriorityClass", "system-cluster-critical", True),
    ("PriorityClass", "high", False), ("StorageClass", "system-node-critical", False),
], ids=["system-node-critical cannot be deleted", "system-cluster-critical cannot be deleted",
        "a user class can be deleted", "only priority classes are protected"])
def test_system_priority_classes_cannot_be_deleted(kind, name, refused):
    if not refused:
        for_kind(kind).before_delete({"metadata": {"name": name}})
        return
    with pytest.raises(Forbidden) as e:
        for_kind(kind).before_delete({"metadata": {"name": name}})
    assert e.value.message == (f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this is a system '
                               "priority class and cannot be deleted")
