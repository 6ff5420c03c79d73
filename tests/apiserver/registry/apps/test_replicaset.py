"""The ReplicaSet strategy (pkg/registry/apps/replicaset): a new ReplicaSet as stored."""

from kubesim.apiserver.objects import prepare_for_create
from tests.api.builders import deploy


def test_replicaset_defaults():
    rs = deploy()
    rs["kind"] = "ReplicaSet"
    del rs["spec"]["replicas"]
    prepare_for_create(rs)
    assert rs["spec"]["replicas"] == 1 and rs["status"] == {"replicas": 0}
